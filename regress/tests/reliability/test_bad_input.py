"""Bad input gets one line (issue 29, items 6 and 8): each attack runs the real command
(`.venv/bin/montverif`, or `make sim` where make is the way in) and expects exactly one
`error:` line on stderr and exit code 2, refused before anything is built; or, for the repro
line and the vector replay's folder, the corrected behaviour."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.regress.cli import sim as sim_cli
from montverif.regress.flow.spec import DEFAULT_TIMEOUT_S, BuildSpec, RunSpec
from montverif.spec.designs import load_design

ROOT = Path(__file__).resolve().parents[3]
MONTVERIF = Path(sys.executable).parent / "montverif"
BUILD = ROOT / "build"


def montverif(*args: str, timeout: float = 60, memory_gb: float = 0,
              cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """The real command; memory_gb caps its address space (an attack that would eat memory
    fails fast instead)."""
    def limit() -> None:
        cap = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return subprocess.run([str(MONTVERIF), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False,
                          preexec_fn=limit if memory_gb else None)


def make(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False)


# make's own line for a failed command: `make: *** ...`, or `make[1]: *** ...` when this
# suite itself runs under make (`make test`)
MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* ")


def one_error(cp: subprocess.CompletedProcess[str], *, via_make: bool = False) -> str:
    """The one `error:` line of a refusal with exit code 2 (through make: make's own
    `make: *** ... Error 2` line aside, which says the command exited 2); returns it."""
    lines = cp.stderr.splitlines()
    if via_make:
        made = [ln for ln in lines if MAKE_ERROR.match(ln)]
        assert len(made) == 1 and made[0].endswith("Error 2"), cp.stderr
        assert cp.returncode == 2
        lines = [ln for ln in lines if not MAKE_ERROR.match(ln)]
    else:
        assert cp.returncode == 2, (cp.returncode, cp.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), cp.stderr
    return lines[0]


# --- N, SEED and TIMEOUT given as text --------------------------------------------------------

@pytest.mark.parametrize(("option", "value"), [("--n", "abc"), ("--seed", "x1"),
                                               ("--timeout", "1m")])
def test_sim_number_as_text_is_one_line(option: str, value: str) -> None:
    line = one_error(montverif("sim", option, value))
    assert f"argument {option}: invalid int value: '{value}'" in line


@pytest.mark.sim
@pytest.mark.parametrize("assignment", ["N=abc", "SEED=x1", "TIMEOUT=1m"])
def test_make_sim_number_as_text_is_one_line(assignment: str) -> None:
    one_error(make("sim", assignment), via_make=True)


@pytest.mark.parametrize("args", [
    ("models", "run", "mont_lut", "--n", "abc", "--x", "1", "--y", "2", "--m", "3"),
    ("regress", "--list", "smoke", "--seed", "x1"),
    ("regress", "--list", "smoke", "--timeout", "1m"),
    ("closure", "run", "--dut", "mont_lut", "--n", "abc"),
    ("mutate", "--dut", "mont_lut", "--seed", "x1"),
])
def test_other_commands_number_as_text_is_one_line(args: tuple[str, ...]) -> None:
    one_error(montverif(*args))


def test_models_parser_names_the_command_for_help() -> None:
    line = one_error(montverif("models", "run", "mont_lut", "--n", "8", "--x", "1", "--y", "2",
                               "--m"))
    assert line.endswith("(see montverif models run --help)")


# --- VECTORS naming a directory ----------------------------------------------------------------

def test_sim_vectors_directory_is_one_line(tmp_path: Path) -> None:
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "8", "--vectors",
                               str(tmp_path)))
    assert line == f"error: VECTORS={tmp_path} is a directory, not a vector file"


def test_make_sim_vectors_directory_is_one_line(tmp_path: Path) -> None:
    line = one_error(make("sim", "N=8", f"VECTORS={tmp_path}"), via_make=True)
    assert "is a directory" in line


# --- TIMEOUT=0 ---------------------------------------------------------------------------------

def test_sim_timeout_zero_is_refused_like_regress() -> None:
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "8", "--sim", "icarus",
                               "--txns", "1", "--timeout", "0"))
    assert line == ("error: argument --timeout: must be an integer 1..604800 s (got 0) "
                    "(see montverif sim --help)")
    assert one_error(montverif("regress", "--list", "smoke", "--timeout", "0"))


def test_make_sim_timeout_zero_is_refused() -> None:
    line = one_error(make("sim", "N=8", "SIM=icarus", "TXNS=1", "TIMEOUT=0"), via_make=True)
    assert "argument --timeout: must be an integer 1..604800 s (got 0)" in line


# --- widths: the descriptor's widest N, --allow-wide / ALLOW_WIDE=1 ----------------------------

def test_models_n_above_the_widest_is_refused_at_once() -> None:
    """N = 10^9 reached 2.1 GB in 20 s: now one line, within a second, in 1.5 GB at most."""
    widest = load_design("mont_lut").max_n
    line = one_error(montverif("models", "run", "mont_lut", "--n", str(10**9), "--x", "1",
                               "--y", "2", "--m", "3", timeout=20, memory_gb=1.5))
    assert f"above mont_lut's widest, {widest}" in line and "--allow-wide" in line


def test_models_mwrkmm_wide_is_refused_and_allow_wide_runs_it() -> None:
    """mwrkmm at N = 100000 ran past a minute: refused; one bit above the widest runs with
    --allow-wide."""
    one_error(montverif("models", "run", "mwrkmm", "--n", "100000", "--x", "1", "--y", "2",
                        "--m", "3", timeout=20))
    wide = load_design("mont_r2").max_n + 1
    cp = montverif("models", "run", "mont_r2", "--n", str(wide), "--x", "1", "--y", "2",
                   "--m", "3", "--allow-wide", timeout=60)
    assert cp.returncode == 0 and cp.stderr == "", cp.stderr
    assert json.loads(cp.stdout)["n"] == wide


def test_sim_n_above_the_widest_names_the_override() -> None:
    widest = load_design("mont_lut").max_n
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", str(widest + 1)))
    assert f"(supported: 8..{widest}; ALLOW_WIDE=1 / --allow-wide" in line


def test_sim_allow_wide_passes_the_width_check_and_keeps_the_register_map_limit() -> None:
    """With --allow-wide a wider N gets past the width check (to the next check: an unknown
    test, so nothing is built); the register map's limit still holds."""
    wide = str(load_design("mont_lut").max_n + 8)
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", wide, "--allow-wide",
                               "--tests", "NoSuchTest"))
    assert line.startswith("error: unknown test(s) NoSuchTest")
    line = one_error(montverif("sim", "--dut", "mont_lut", "--n", "40000", "--allow-wide"))
    assert "needs more than 1024 words" in line  # 1024 words of BusW = 32: N = 32768


def test_make_sim_allow_wide() -> None:
    wide = str(load_design("mont_lut").max_n + 8)
    line = one_error(make("sim", f"N={wide}", "ALLOW_WIDE=1", "TESTS=NoSuchTest"),
                     via_make=True)
    assert line.startswith("error: unknown test(s) NoSuchTest")


# --- mm42's second halves are --x2 / --y2, not A2 / B2 ------------------------------------------

def test_mm42_names_the_operands_as_the_command_line_does() -> None:
    line = one_error(montverif("models", "run", "mm42", "--n", "8", "--x", "1", "--x2", "300",
                               "--y", "2", "--m", "0xeb"))
    assert line == "error: X2 must be in [0, 2^n) (got 0x12c, n=8)"
    line = one_error(montverif("models", "run", "mm42", "--n", "8", "--x", "2", "--y", "200",
                               "--y2", "100", "--m", "0x81"))
    assert line.startswith("error: Y + Y2 must be < 2M")


# --- a read-only build/ ------------------------------------------------------------------------

def _read_only_build(*cmd: str) -> subprocess.CompletedProcess[str]:
    """cmd in a mount namespace of its own where build/ is a read-only bind mount: read-only
    for root too (chmod is not), and nobody else's build/ changes."""
    BUILD.mkdir(exist_ok=True)
    script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, str(BUILD), *cmd], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def _can_mount_read_only() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = _read_only_build("sh", "-c", 'touch "$0/.rw-probe" 2>/dev/null; test $? -ne 0',
                             str(BUILD))
    return probe.returncode == 0


read_only = pytest.mark.skipif(not _can_mount_read_only(),
                               reason="needs root and unshare to bind build/ read-only")


@read_only
def test_make_sim_read_only_build_is_one_line() -> None:
    cp = _read_only_build("make", "--no-print-directory", "sim", "N=8", "SIM=icarus", "TXNS=1")
    line = one_error(cp, via_make=True)
    assert line.startswith("error: cannot write build/") and line.endswith(
        ": Read-only file system"), line


@read_only
def test_sim_read_only_build_is_one_line() -> None:
    """The run's folder from an earlier run is there: the line names the file that could not
    be written, its whole path (the run's claim on its folder, host/claim.py)."""
    key = RunSpec(BuildSpec("mont_lut", 8, sim="icarus"), seed=2929).key
    old = BUILD / "runs" / key / "sim.log"
    old.parent.mkdir(parents=True, exist_ok=True)
    old.touch()
    line = one_error(_read_only_build(str(MONTVERIF), "sim", "--n", "8", "--sim", "icarus",
                                      "--seed", "2929"))
    assert line == f"error: cannot write build/runs/{key}/.lock: Read-only file system"


@read_only
def test_regress_read_only_build_is_one_line() -> None:
    line = one_error(_read_only_build(str(MONTVERIF), "regress", "--list", "smoke",
                                      "--jobs", "1"))
    assert line.startswith("error: cannot write build/regress") and line.endswith(
        ": Read-only file system"), line


# --- item 8: the repro line and the vector replay's folder --------------------------------------

def _parsed_repro(run: RunSpec) -> dict[str, object]:
    argv = run.repro().split()
    assert argv[:2] == ["montverif", "sim"]
    return vars(sim_cli.parser().parse_args(argv[2:]))


def test_repro_carries_the_timeout_and_allow_wide() -> None:
    run = RunSpec(BuildSpec("mont_lut", 8, sim="icarus"), seed=3, txns=5, timeout_s=7)
    args = _parsed_repro(run)
    assert args["timeout"] == 7 and args["allow_wide"] is False
    args = _parsed_repro(replace(run, build=replace(run.build, n=5000), allow_wide=True))
    assert args["n"] == 5000 and args["allow_wide"] is True
    assert "--timeout" not in replace(run, timeout_s=DEFAULT_TIMEOUT_S).repro()


def test_vector_replay_has_a_folder_of_its_own(tmp_path: Path) -> None:
    random_run = RunSpec(BuildSpec("mont_lut", 8), seed=5)
    one, two = tmp_path / "a" / "v.json", tmp_path / "b" / "v.json"
    keys = {random_run.key, replace(random_run, vectors=str(one)).key,
            replace(random_run, vectors=str(two)).key}
    assert len(keys) == 3
    assert replace(random_run, vectors=str(one)).key == replace(random_run, vectors=str(one)).key


def _sim_lines(cp: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """`montverif sim`'s report: its verdict line and its `  name: value` lines."""
    lines = cp.stdout.splitlines()
    out = {"verdict": lines[0]}
    out |= {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return out


@pytest.mark.sim
def test_watchdog_repro_and_vector_folder_real_runs(tmp_path: Path) -> None:
    """A run the watchdog ends (TIMEOUT=1: Icarus at N = 8 cannot even start its tests in a
    second) prints a repro with --timeout 1; a vector replay with the same seed writes a
    folder of its own and leaves the random run's folder as it was."""
    common = ("sim", "--dut", "mont_lut", "--n", "8", "--sim", "icarus", "--seed", "29",
              "--txns", "1000", "--timeout", "1")
    cp = montverif(*common, timeout=300)
    assert cp.returncode == 1, cp.stderr
    report = _sim_lines(cp)
    assert report["first error"].startswith("watchdog: simulation killed after 1s")
    assert " --timeout 1 " in report["repro"] + " "
    random_dir = Path(report["log"])
    before = (random_dir / "outcome.json").read_text()
    vec = tmp_path / "vec.json"
    vec.write_text(json.dumps({"vectors": [{"x": "1", "y": "2", "m": "0xeb"}]}))
    cp = montverif(*common, "--vectors", str(vec), timeout=300)
    assert cp.returncode in (0, 1), cp.stderr
    vector_dir = Path(_sim_lines(cp)["log"])
    assert vector_dir != random_dir and vector_dir.name.startswith(random_dir.name + "-vec-vec-")
    assert (random_dir / "outcome.json").read_text() == before


# --- an unknown option names the subcommand whose help lists the options ---------------------

@pytest.mark.parametrize("argv", [("lists", "--bogus"), ("regress", "--list", "smoke", "--bogus"),
                                  ("merge", "out", "s1", "--bogus")])
def test_unknown_option_points_at_the_subcommand_help(argv: tuple[str, ...]) -> None:
    line = one_error(montverif(*argv))
    assert line == f"error: unrecognized arguments: --bogus (see montverif {argv[0]} --help)"


def test_mutate_seed_words_as_for_regress() -> None:
    """`montverif mutate --seed` takes what `regress --seed` takes (date, date:..., run) and
    refuses anything else in one line; a valid word gets as far as the next check."""
    line = one_error(montverif("mutate", "--dut", "mont_r2", "--seed", "datex"))
    assert line.startswith("error: --seed must be an integer, date, date:YYYY-MM-DD or run")
    cp = montverif("mutate", "--dut", "mont_r2", "--seed", "date:2026-11-24", "--mutants", "0")
    assert one_error(cp) == ("error: argument --mutants: must be an integer 1..10000 (got 0) "
                             "(see montverif mutate --help)")


# --- synth --papers: its two files and its page ------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (("--figures", "{tmp}/none.toml"), "cannot read the papers' figures"),
    (("--figures", "{tmp}/wrong.toml"), "unknown DUT 'mont_nope'"),
    (("--results", "{tmp}/wrong.json"), "not a synthesis result"),
    (("--write", "{tmp}/plain.md"), "plain.md exists and montverif did not write it"),
])
def test_synth_papers_bad_files_are_one_line(tmp_path: Path, args: tuple[str, ...],
                                             message: str) -> None:
    """A missing or wrong figures file, a results file of another shape and a page of the
    user's own (montverif did not write it): one line each, and the page is left as it was."""
    figures = (ROOT / "docs" / "papers" / "figures.toml").read_text()
    (tmp_path / "wrong.toml").write_text(figures.replace('"mont_qp"', '"mont_nope"'))
    (tmp_path / "wrong.json").write_text('{"xc7": [{"dut": "mont_r2"}]}')
    (tmp_path / "plain.md").write_text("no markers\n")
    line = one_error(montverif("synth", "papers",
                               *(a.replace("{tmp}", str(tmp_path)) for a in args)))
    assert message in line
    assert (tmp_path / "plain.md").read_text() == "no markers\n"
