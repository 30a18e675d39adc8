"""Every input checked at the boundary (issue 59, item 3): each number finite and within its
documented bound, each key given once, each vector file a regular file of bounded size.

Each attack runs the real command line (`montverif.regress.cli.main`, what the console
script runs; many at once through refusals.py, a handful through the `montverif` script
itself) and expects exactly one `error:` line and exit code 2, at once: a refusal comes
from the parser or the list's loader, before anything is built. Where the attack got
through before (a build, a simulation, an expansion without end, a FIFO waited on), the
deadline of refusals.py ends it and the test fails.

The numeric options are found, not listed: every option of every command's parser whose
type is a number is attacked with nan, inf, a negative and a huge value, so an option
added later is attacked too (and must have a bounded type: Parser checks its bound).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from montverif.regress import cli
from montverif.regress.cli.args import Bounded
from montverif.regress.tests.reliability.refusals import Refusal, refusals
from montverif.regress.tests.reliability.test_bad_input import montverif, one_error
from montverif.regress.tests.testshard import standins

VALUES = ("nan", "inf", "-1", "1" + "0" * 30)
# the command lines the numeric options are appended to: each valid up to the attacked option
PREFIX = {
    "montverif sim": ["sim", "--dut", "mont_lut"],
    "montverif regress": ["regress", "--list", "smoke"],
    "montverif closure run": ["closure", "run", "--dut", "mont_lut"],
    "montverif closure compare": ["closure", "compare", "--duts", "mont_lut"],
    "montverif mutate": ["mutate", "--dut", "mont_r2"],
    "montverif mutate proofs prove": ["mutate", "proofs", "prove", "--out", "{tmp}/proofs"],
    "montverif mutate proofs renew": ["mutate", "proofs", "renew", "--out", "{tmp}/proofs"],
    "montverif mutate directed": ["mutate", "directed", "{tmp}", "--out", "{tmp}/directed",
                                  "--into", "{tmp}/into"],
    "montverif formal": ["formal", "--block", "mv_bus_loader", "--out", "{tmp}/formal"],
    "montverif synth run": ["synth", "run", "--dut", "mont_r2", "--n", "8", "--out",
                            "{tmp}/synth"],
    "montverif synth pnr": ["synth", "pnr", "--dut", "mont_r2", "--n", "8", "--out",
                            "{tmp}/synth"],
    "montverif synth table": ["synth", "table", "--designs", "mont_r2", "--widths", "8",
                              "--out", "{tmp}/table"],
    "montverif synth papers": ["synth", "papers", "--out", "{tmp}/papers"],
    "montverif synth rsa": ["synth", "rsa", "--out", "{tmp}/rsa"],
    "montverif synth remeasure": ["synth", "remeasure", "--out", "{tmp}/remeasure"],
    "montverif synth warm": ["synth", "warm"],
    "montverif bench": ["bench", "--profile", "mont_r2:8", "--out", "{tmp}/bench"],
    "montverif rsa-figures": ["rsa-figures", "--no-write", "--widths", "8"],
}
# what `--help` is asked of to find every parser (the subcommands' parsers are found below
# their parents; mutate builds its subcommands' parsers on demand)
HELPS = [[name] for name in cli.COMMANDS] + [["mutate", "report"], ["mutate", "proofs"],
                                             ["mutate", "directed"]]


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser of every command, by its prog (`montverif closure run`)."""
    seen: dict[str, argparse.ArgumentParser] = {}
    original = argparse.ArgumentParser.parse_known_args

    def record(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
        seen.setdefault(self.prog, self)
        return original(self, *args, **kwargs)

    with mock.patch.object(argparse.ArgumentParser, "parse_known_args", record), \
            contextlib.redirect_stdout(io.StringIO()):
        for argv in HELPS:
            with contextlib.suppress(SystemExit):
                cli.main([*argv, "--help"])
    todo = list(seen.values())
    while todo:
        for action in todo.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    if sub.prog not in seen:
                        seen[sub.prog] = sub
                        todo.append(sub)
    return seen


def numeric(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.Action]]:
    """The parser's options that take a number: (--option, action)."""
    for action in parser._actions:
        if action.type in (int, float) or isinstance(action.type, Bounded):
            yield next(o for o in action.option_strings if o.startswith("--")), action


def refused(got: Refusal, *needles: str) -> str:
    """'' when `got` is one `error:` line, exit 2, holding every needle; else what it was."""
    if got.timed_out:
        return f"{got.argv}: not refused (still running at the deadline)"
    if got.code != 2 or len(got.lines) != 1 or not got.lines[0].startswith("error: "):
        return f"{got.argv}: exit {got.code}, stderr {got.stderr[-300:]!r}"
    if missing := [n for n in needles if n not in got.lines[0]]:
        return f"{got.argv}: {got.lines[0]!r} lacks {missing}"
    return ""


def all_refused(cases: list[list[str]], *needles: str, timeout_s: float = 20) -> None:
    wrong = [w for got in refusals(cases, timeout_s) if (w := refused(got, *needles))]
    assert not wrong, "\n".join(wrong)


# --- the numeric options of every command ------------------------------------------------------

def test_every_numeric_option_has_a_bound_its_help_states() -> None:
    """A number option's type is a Bounded (never a bare int or float: `--timeout nan`,
    `--idle-max -1`, `--goal 150` got through those), and its help shows the bound."""
    found = parsers()
    assert {"montverif sim", "montverif regress", "montverif closure run", "montverif mutate",
            "montverif mutate proofs prove", "montverif formal", "montverif synth run",
            "montverif bench", "montverif models run"} <= set(found)
    wrong = [f"{prog} {opt}: type {action.type!r}" for prog, parser in found.items()
             for opt, action in numeric(parser) if not isinstance(action.type, Bounded)]
    wrong += [f"{prog} {opt}: help {action.help!r} does not state {action.type.bound.text!r}"
              for prog, parser in found.items() for opt, action in numeric(parser)
              if isinstance(action.type, Bounded) and action.type.bound.text.replace(
                  "%", "%%") not in (action.help or "")]
    assert not wrong, "\n".join(wrong)
    # and the test below has a command line to attack each of them with
    taking = {prog for prog, parser in found.items() if any(numeric(parser))}
    assert taking <= set(PREFIX), f"add a PREFIX for {sorted(taking - set(PREFIX))}"


# make test attacks the commands that run a design (sim, closure, formal, synthesis of one
# design, proofs); the others' numeric options are found and attacked the same way in the
# nightly
@pytest.mark.parametrize("prog", standins(sorted(PREFIX), (
    "montverif sim", "montverif closure run", "montverif formal", "montverif synth run",
    "montverif mutate proofs prove", "montverif mutate directed"), seconds=8))
def test_each_numeric_option_refuses_nan_inf_negative_and_huge(prog: str,
                                                               tmp_path: Path) -> None:
    """Every numeric option of the command, with each of nan, inf, -1 and 10^30: one line
    naming the option and its bound, exit 2, at once."""
    parser = parsers()[prog]
    prefix = [a.replace("{tmp}", str(tmp_path)) for a in PREFIX[prog]]
    options = [opt for opt, _ in numeric(parser)]
    assert options, f"{prog} has no numeric option any more: drop it from PREFIX"
    cases = [[*prefix, opt, value] for opt in options for value in VALUES]
    wrong = [w for got in refusals(cases) if (w := refused(
        got, f"argument {got.argv[-2]}", "must be", f"(see {prog} --help)"))]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("argv", "line"), [
    (("closure", "run", "--dut", "mont_lut", "--budget-min", "nan"),
     "error: argument --budget-min: must be a number above 0, at most 10080 min (got nan) "
     "(see montverif closure run --help)"),
    (("mutate", "--dut", "mont_r2", "--goal", "150"),
     "error: argument --goal: must be a number 0..100 % (got 150.0) "
     "(see montverif mutate --help)"),
    (("sim", "--dut", "mont_lut", "--n", "8", "--sim", "icarus", "--idle-max", "-1"),
     "error: argument --idle-max: must be an integer 0..1000 (got -1) "
     "(see montverif sim --help)"),
    (("regress", "--list", "smoke", "--seeds", "1000000000"),
     "error: argument --seeds: must be an integer 1..10000 (got 1000000000) "
     "(see montverif regress --help)"),
    (("synth", "run", "--dut", "mont_r2", "--n", "8", "--timeout", "inf"),
     "error: argument --timeout: must be a number above 0, at most 604800 s (got inf) "
     "(see montverif synth run --help)"),
    (("synth", "pnr", "--dut", "mont_r2", "--n", "8", "--freq", "1e30"),
     "error: argument --freq: must be a number above 0, at most 1000 MHz (got 1e+30) "
     "(see montverif synth pnr --help)"),
    (("sim", "--timeout", "1e30"),
     "error: argument --timeout: must be an integer 1..604800 s (got '1e30') "
     "(see montverif sim --help)"),
])
def test_the_issues_examples_through_the_montverif_script(argv: tuple[str, ...],
                                                          line: str) -> None:
    """The attacks of the issue, run as a user runs them (the installed script)."""
    assert one_error(montverif(*argv, timeout=30)) == line


# --- comma-separated numbers and widths --------------------------------------------------------

def test_numbers_in_comma_lists_and_widths_are_bounded(tmp_path: Path) -> None:
    """`bench --profile mont_r2:1000000000` had no width check (a 10^9-bit vector file),
    `rsa-figures --widths 1000000000` crashed the interpreter making a key, `bench --jobs -1`
    and `--shard 1/1000000000` (a list of 10^9 loads) were taken."""
    out = str(tmp_path / "bench")
    all_refused([["bench", "--profile", "mont_r2:1000000000", "--out", out],
                 ["rsa-figures", "--widths", "1000000000", "--no-write"],
                 ["bench", "--jobs", "-1", "--lists", "smoke", "--out", out],
                 ["bench", "--widths", "1000000000", "--designs", "mont_r2", "--out", out],
                 ["regress", "--list", "smoke", "--shard", "1/1000000000"]])
    line = one_error(montverif("bench", "--profile", "mont_r2:1000000000", "--out", out))
    assert line == "error: --profile mont_r2:1000000000: N=1000000000 is outside mont_r2's " \
                   "widths 8..4096"


# --- keys given twice --------------------------------------------------------------------------

def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    """`--params W=4,W=8` took the last value, `--tests a,a` ran a test twice: each names
    what is given twice."""
    mwrkmm = ["--dut", "mwrkmm", "--n", "32"]
    all_refused([
        ["sim", *mwrkmm, "--params", "W=4,W=8"],
        ["sim", *mwrkmm, "--params", "W=4,P=2,W=4"],
        ["closure", "run", *mwrkmm, "--params", "W=4,W=8"],
        ["synth", "run", *mwrkmm, "--param", "W=4", "--param", "W=8", "--out",
         str(tmp_path / "s")],
        ["synth", "run", *mwrkmm, "--params", "W=4", "--param", "W=8", "--out",
         str(tmp_path / "s")],
        ["models", "run", "mwrkmm", "--n", "32", "--x", "1", "--y", "1", "--m", "3",
         "--param", "W=4", "--param", "W=8"],
        ["formal", "--block", "mv_bus_loader", "--params", "N=4,N=8",
         "--out", str(tmp_path / "f")],
        ["formal", "--block", "mv_bus_loader", "--n", "8", "--params", "N=8",
         "--out", str(tmp_path / "f")],
        ["sim", "--dut", "mont_lut", "--n", "8", "--tests", "RandomTest,RandomTest"],
        ["closure", "run", "--dut", "mont_lut", "--tests", "RandomTest,CornerTest,RandomTest"],
        ["mutate", "--dut", "mont_r2", "--tests", "RandomTest,RandomTest",
         "--out", str(tmp_path / "m")],
        ["closure", "compare", "--duts", "mont_lut,mont_lut"],
        ["bench", "--designs", "mont_r2", "--widths", "256,256", "--out", str(tmp_path / "b")],
        ["rsa-figures", "--widths", "1024,1024", "--no-write"],
        ["synth", "table", "--reuse", "--widths", "256,256", "--out", str(tmp_path / "t")],
    ], "twice")


# --- the numbers of a regression list ---------------------------------------------------------

ENTRY = """
[attack]
timeout = {timeout}
[[attack.entry]]
dut = "{dut}"
widths = {widths}
bus_widths = {bus_widths}
simulators = {simulators}
tests = {tests}
params = {params}
seeds = {seeds}
txns = {txns}
idle_max = {idle_max}
ack_wait = {ack_wait}
txns_from_n = {{ 8 = {txns_from_n} }}
[[attack.mutation]]
dut = "mont_r2"
mutants = {mutants}
n = {n}
txns = {m_txns}
goal = {goal}
[[attack.formal]]
dut = "mv_bus_loader"
n = {f_n}
timeout = {f_timeout}
"""
NUMBERS = {"timeout": "60", "widths": "[8]", "bus_widths": "[8]", "seeds": "1", "txns": "1",
           "idle_max": "2", "ack_wait": "[0]", "txns_from_n": "1", "mutants": "2", "n": "8",
           "m_txns": "2", "goal": "100", "f_n": "8", "f_timeout": "60"}
GOOD = NUMBERS | {"dut": "mont_lut", "simulators": '["icarus"]', "tests": '["RandomTest"]',
                  "params": "[{}]"}
ARRAYS = {"widths", "bus_widths", "ack_wait"}


def _list(tmp_path: Path, name: str, **keys: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(ENTRY.format(**(GOOD | keys)))
    return path


@pytest.mark.nightly(seconds=20)
def test_each_number_of_a_list_refuses_nan_inf_negative_and_huge(tmp_path: Path) -> None:
    """`seeds = 1000000000` expanded without end, `idle_max` and `txns` had no upper bound,
    `timeout = 10^30` was taken: each numeric key of a list (an entry's, a mutation block's,
    a formal block's) with each of nan, inf, -1 and 10^30 is one line naming that key."""
    got = refusals([["lists", "--lists", str(_list(tmp_path, "good")), "attack"]])[0]
    assert got.code == 0 and not got.stderr, got  # the control: the list as it is expands
    attacks = [(key, value) for key in NUMBERS for value in VALUES]
    cases = [["lists", "--lists", str(_list(tmp_path, f"{key}{i}", **{
        key: f"[{value}]" if key in ARRAYS else value})), "attack"]
        for i, (key, value) in enumerate(attacks)]
    shown = {"m_txns": "txns", "f_n": "n", "f_timeout": "timeout", "txns_from_n": "txns_from_n.8"}
    wrong = [w for (key, _), got in zip(attacks, refusals(cases), strict=True)
             if (w := refused(got, f".{shown.get(key, key)}:"))]
    assert not wrong, "\n".join(wrong)


def test_a_list_that_expands_beyond_the_most_runs_is_refused(tmp_path: Path) -> None:
    """10000 seeds (the most) at 11 widths: 110000 runs, above the 100000 a list may hold."""
    path = _list(tmp_path, "big", seeds="10000", widths=str(list(range(8, 19))))
    all_refused([["lists", "--lists", str(path), "attack"]], "expands to more than 100000 runs")


@pytest.mark.parametrize(("key", "value"), [
    ("widths", "[8, 8]"), ("bus_widths", "[8, 16, 8]"), ("ack_wait", "[0, 0]"),
    ("simulators", '["icarus", "icarus"]'), ("tests", '["RandomTest", "RandomTest"]'),
    ("params", "[{ W = 4 }, { W = 4 }]"),
])
def test_a_list_array_names_each_item_once(key: str, value: str, tmp_path: Path) -> None:
    """`widths = [8, 8]` ran each seed of the model twice as many times: which was meant?"""
    path = _list(tmp_path, "twice", dut="mwrkmm", **{key: value})
    all_refused([["lists", "--lists", str(path), "attack"]], f"{key}:", "given twice")


# --- vector files -------------------------------------------------------------------------------

def _vector_attacks(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    with big.open("wb") as f:  # sparse: 65 MiB of nothing, no disk used
        f.truncate(65 * 2**20)
    wide = tmp_path / "wide.json"
    wide.write_text('{"vectors": [{"x": ' + "1" * 5000 + ', "y": "1", "m": "3"}]}')
    wide_rsa = tmp_path / "wide_rsa.json"
    wide_rsa.write_text('{"vectors": [{"msg": "3", "exp": ' + "7" * 5000 + ', "mod": "5"}]}')
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    return {"fifo": fifo, "dev-zero": Path("/dev/zero"), "link to /dev/zero": link,
            "65 MiB": big, "5000 digits": wide, "5000 digits, RSA": wide_rsa}


def test_a_vector_file_is_a_regular_file_of_bounded_size(tmp_path: Path) -> None:
    """A FIFO waited for a writer for ever, /dev/zero ate memory, a 5,000-digit JSON integer
    was a traceback: each is one line naming the file."""
    attacks = _vector_attacks(tmp_path)
    cases = [["sim", "--dut", "rsa_core" if "RSA" in what else "mont_lut", "--n", "8",
              "--vectors", str(path)] for what, path in attacks.items()]
    wrong = [w for got in refusals(cases) if (w := refused(got, got.argv[-1]))]
    assert not wrong, "\n".join(wrong)
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "8", "--vectors",
                               str(attacks["fifo"]), timeout=30))
    assert line == (f"error: {attacks['fifo']}: not a regular file (a vector file is read "
                    "whole: a directory, FIFO or device is refused)")
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "8", "--vectors",
                               str(attacks["65 MiB"]), timeout=30))
    assert line.endswith("larger than 64 MiB, the most a vector file may hold")
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "8", "--vectors",
                               str(attacks["5000 digits"]), timeout=30))
    assert "a JSON integer of 5000 digits" in line and "0x-hex string" in line
    # the control: as a string, the same value is read (and refused for what it is: too
    # wide for N)
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"vectors": [{"x": "1" * 5000, "y": "1", "m": "3"}]}))
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "8", "--vectors", str(path)))
    assert line == f"error: {path}: vectors[0].x: does not fit in N=8 bits"


def test_a_key_given_twice_in_a_json_input_is_refused(tmp_path: Path) -> None:
    """JSON keeps the last of two keys in an object: a vector file's and a steering table's
    (`--bias`) are refused, naming the key."""
    vec = tmp_path / "twice.json"
    vec.write_text('{"vectors": [{"x": "1", "x": "2", "y": "1", "m": "3"}]}')
    rsa = tmp_path / "twice_rsa.json"
    rsa.write_text('{"vectors": [{"msg": "3", "exp": "5", "mod": "7", "exp": "9"}]}')
    all_refused([
        ["sim", "--dut", "mont_lut", "--n", "8", "--vectors", str(vec)],
        ["sim", "--dut", "rsa_core", "--n", "8", "--vectors", str(rsa)],
        ["sim", "--dut", "mont_lut", "--n", "8", "--bias", '{"p": 0.5, "p": 0.9, "targets": []}'],
    ], "given twice in one object")
