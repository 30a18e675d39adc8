"""Secrets in logs (issue 29, item 7): a user who replays a real RSA key must not leak its
private exponent into CI artifacts.

The RSA core's descriptor names E as its secret register. Every file a run or a regression
writes (txns.jsonl, sim.log, results.xml, outcome.json, coverage, summary.json, junit.xml,
report.html) is searched for the exponent in hex, in decimal and word by word as the bus
carries it: none may hold it. The same runs with `keep_secrets` (`--keep-secrets`) are the
control: there the search finds it, so an empty search proves something. The digest that
stands in for E is stable, so two runs of one seed still compare and the cross-simulator
diff still reports identical logs.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import gmpy2
import pytest
import pywellen

from montverif.host.errors import ConfigError
from montverif.host.secrets import Secrets
from montverif.models import rsa as rsa_model
from montverif.models.registry import get_algo
from montverif.regress.cli import regress as regress_cli
from montverif.regress.cli import sim as sim_cli
from montverif.regress.flow import check
from montverif.regress.flow.launcher import Launcher, LocalLauncher
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.regression.buckets import signature
from montverif.regress.tests.reliability.test_bad_input import make, montverif, one_error
from montverif.spec import regmap
from montverif.spec.design import parse
from montverif.spec.designs import load_design
from montverif.verif.bus.item import Transfer
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.env.rsa_seq import rsa_key

N = 64  # a 64-bit key: its exponent is 16 hex digits, 2 bus words at BusW = 32
BUS_W = 32
SEED = 3
WORD_DIGITS = 6  # bus words of fewer hex digits are not searched (they match by chance)


# --- searching a folder --------------------------------------------------------------------
def _patterns(value: int, bus_w: int = BUS_W) -> dict[str, re.Pattern[str]]:
    """The forms a value takes in text: hex (any case, with or without 0x), decimal, and
    each bus word in hex; each delimited, so that a longer number holding the digits (a
    digest, a timestamp) is no hit."""
    forms = {"hex": re.compile(rf"(?<![0-9a-f]){value:x}(?![0-9a-f])"),
             "decimal": re.compile(rf"(?<![0-9]){value}(?![0-9])")}
    mask = (1 << bus_w) - 1
    for k in range((value.bit_length() + bus_w - 1) // bus_w):
        word = (value >> (k * bus_w)) & mask
        if len(f"{word:x}") >= WORD_DIGITS:
            forms[f"word {k}"] = re.compile(rf"(?<![0-9a-f]){word:x}(?![0-9a-f])")
    return forms


def _leaks(folder: Path, values: Iterable[int]) -> list[str]:
    """`file: value (form)` for every file below `folder` holding one of `values`."""
    found = []
    patterns = {v: _patterns(v) for v in values}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("latin-1").lower()
        for value, forms in patterns.items():
            found += [f"{path.relative_to(folder)}: {value:#x} ({name})"
                      for name, pattern in forms.items() if pattern.search(text)]
    return found


def _digest(value: int, width: int) -> str:
    """The documented digest (docs/running.md), computed here independently."""
    return "sha256:" + hashlib.sha256(f"{width}:{value:x}".encode()).hexdigest()[:16]


def _txns(log_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (log_dir / "txns.jsonl").read_text().splitlines()]


# --- a real key, replayed ------------------------------------------------------------------
def _key_vectors(tmp_path: Path) -> tuple[Path, int, list[tuple[int, int, int]]]:
    """A vector file a user would write: decrypt and sign with a real private exponent d,
    encrypt with the public one. Returns (file, d, the vectors as (msg, exp, mod))."""
    rng = random.Random("montverif secrets")
    mod, d = rsa_key(N, 65537, rng)
    msg = rng.randrange(2, mod)
    vectors = [(int(gmpy2.powmod(msg, 65537, mod)), d, mod), (rng.randrange(2, mod), d, mod),
               (msg, 65537, mod)]
    path = tmp_path / "my_key.json"
    path.write_text(json.dumps({"vectors": [{"msg": hex(x), "exp": hex(e), "mod": hex(m)}
                                            for x, e, m in vectors]}))
    return path, d, vectors


def _replay(tmp_path: Path, vectors: Path, name: str, sim: str = "verilator",
            fault: bool = False, keep_secrets: bool = False) -> Outcome:
    run = RunSpec(BuildSpec("rsa_core", N, BUS_W, sim, fault=fault), seed=SEED,
                  vectors=str(vectors), tests=("VectorTest",), timeout_s=600,
                  keep_secrets=keep_secrets)
    return execute(run, tmp_path / name)


@pytest.mark.sim
def test_a_replayed_private_key_is_in_no_file_of_the_run(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path, d, vectors = _key_vectors(tmp_path)
    monkeypatch.setenv("MV_BUS_LOG", str(tmp_path / "run" / "bus.log"))  # every transfer too
    outcome = _replay(tmp_path, path, "run")
    assert outcome.passed, outcome.first_error
    assert "<secret>" in (outcome.log_dir / "bus.log").read_text()  # E's words
    assert _leaks(outcome.log_dir, [d]) == []
    logged = _txns(outcome.log_dir)
    assert [r["e"] for r in logged] == [_digest(e, N) for _, e, _ in vectors]
    # everything else is logged as before: the message, the modulus and the result in clear
    assert [(int(r["x"], 16), int(r["m"], 16), int(r["p"], 16)) for r in logged] == [
        (x, m, int(gmpy2.powmod(x, e, m))) for x, e, m in vectors]


@pytest.mark.sim
def test_keep_secrets_keeps_the_exponent_for_debugging(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The control of the search above: with the opt-out the exponent is there."""
    path, d, vectors = _key_vectors(tmp_path)
    monkeypatch.setenv("MV_BUS_LOG", str(tmp_path / "run" / "bus.log"))
    outcome = _replay(tmp_path, path, "run", keep_secrets=True)
    assert outcome.passed, outcome.first_error
    leaks = _leaks(outcome.log_dir, [d])
    assert f"txns.jsonl: {d:#x} (hex)" in leaks
    assert {f"bus.log: {d:#x} (word {k})" for k in (0, 1)} <= set(leaks)
    assert [int(r["e"], 16) for r in _txns(outcome.log_dir)] == [e for _, e, _ in vectors]
    assert outcome.run.repro().endswith("--keep-secrets --waves")


WIDE = 1 << 24  # values searched for: narrower ones are found by chance (0x1 is everywhere)


def _chain_a(x: int, e: int, m: int) -> set[int]:
    """The values multiplier A takes while it computes x^e mod m (the accumulator chain):
    whether it changes at a step is a bit of e. Not the first steps nor the last one (from
    the Montgomery domain to the result), nor the public values (x, m, the result)."""
    public = {x, m, int(gmpy2.powmod(x, e, m))}
    return {v for step in rsa_model.products(x, e, m, N)[2:-1] for p in step
            if p.mult == "A" for v in (p.x, p.p) if v >= WIDE} - public


@pytest.mark.sim
def test_a_failing_run_reports_its_mismatches_without_the_key(tmp_path: Path) -> None:
    """A broken core (the fault build) fails on every product of multiplier A: the
    mismatches name the operation with E's digest and leave out every value computed from
    E, which would show its bits."""
    path, d, vectors = _key_vectors(tmp_path)
    chain = _chain_a(*vectors[0])
    outcome = _replay(tmp_path, path, "run", sim="icarus", fault=True)
    assert not outcome.passed
    assert outcome.first_error.startswith("MISMATCH op 0 multiplier A"), outcome.first_error
    assert "<secret>" in outcome.first_error
    log = (outcome.log_dir / "sim.log").read_text()
    assert f"e={_digest(d, N)}" in log  # the whole operation's mismatch names it
    assert _leaks(outcome.log_dir, [d, *chain]) == []
    kept = _replay(tmp_path, path, "kept", sim="icarus", fault=True, keep_secrets=True)
    assert not kept.passed and kept.first_error.split(":")[0] == outcome.first_error.split(":")[0]
    assert f"sim.log: {d:#x} (hex)" in _leaks(kept.log_dir, [d])
    assert any(k.startswith("sim.log: ") for k in _leaks(kept.log_dir, chain))


# --- a regression: its reports, and the cross-simulator comparison --------------------------
LIST = """
[secrets]
description = "the RSA core on both simulators, every test (KeyTest: real private keys)"
[[secrets.entry]]
dut = "rsa_core"
widths = [32]
bus_widths = [32]
simulators = ["verilator", "icarus"]
diff_sims = true
seeds = 1
txns = 2
"""


def _regress(tmp_path: Path, out: str, *extra: str, launcher: Launcher | None = None) -> int:
    lists = tmp_path / "lists.toml"
    lists.write_text(LIST)
    argv = ["--lists", str(lists), "regress", "--list", "secrets", "--jobs", "1",
            "--rerun-waves", "0", "--out", str(tmp_path / out),
            "--history", str(tmp_path / "history.jsonl"), *extra]
    return regress_cli.main(argv, launcher, results_root=tmp_path / "results")


def _exponents(results: Path) -> set[int]:
    """The exponents a kept regression loaded, from its transaction logs: those wide enough
    that their digits are not found by chance (real keys, random exponents) and not also a
    public value of the run (CornerTest's 2^(N-1) + 1 and 2^N - 1 are moduli too)."""
    recs = [rec for log in results.rglob("txns.jsonl") for rec in _txns(log.parent)]
    public = {int(rec[k], 16) for rec in recs for k in ("x", "m", "p") if k in rec}
    return {e for rec in recs if (e := int(rec["e"], 16)) >= WIDE} - public


@pytest.mark.nightly(seconds=20)
@pytest.mark.sim
def test_a_regression_keeps_its_runs_comparable_without_the_key(tmp_path: Path) -> None:
    assert _regress(tmp_path, "kept", "--keep-secrets") == 0
    secrets = _exponents(tmp_path / "kept")
    assert len(secrets) >= 4  # KeyTest's private exponents, RandomTest's, CornerTest's
    assert _leaks(tmp_path / "kept", secrets) != []
    assert _regress(tmp_path, "redacted") == 0
    assert _leaks(tmp_path / "redacted", secrets) == []
    summary = json.loads((tmp_path / "redacted" / "summary.json").read_text())
    assert summary["diffs"] and all(d["same"] for d in summary["diffs"]), summary["diffs"]
    # the same seed gives the same stimulus: each digest stands for the kept run's exponent
    for run in summary["runs"]:
        kept = _txns(tmp_path / "kept" / "runs" / run["key"])
        redacted = _txns(Path(run["log_dir"]))
        assert [r["e"] for r in redacted] == [_digest(int(r["e"], 16), 32) for r in kept]
        assert [{k: v for k, v in r.items() if k != "e"} for r in redacted] == \
            [{k: v for k, v in r.items() if k != "e"} for r in kept]


class FaultLauncher(LocalLauncher):
    """Builds and runs every model with its fault (the RSA core: a wrong table entry in
    multiplier A), as a broken core would run in a nightly."""

    def build(self, spec: BuildSpec) -> float:
        return super().build(replace(spec, fault=True))

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        return super().run(replace(run, build=replace(run.build, fault=True)), log_dir)


@pytest.mark.sim
def test_a_failing_regression_reports_no_key(tmp_path: Path) -> None:
    """The failures' text goes into summary.json, junit.xml, report.html (with an excerpt
    of sim.log) and the buckets: none of them may hold an exponent."""
    only = ["--sim", "icarus"]
    assert _regress(tmp_path, "kept", *only, "--keep-secrets", launcher=FaultLauncher()) == 1
    secrets = _exponents(tmp_path / "kept")
    assert secrets and _leaks(tmp_path / "kept", secrets) != []
    assert _regress(tmp_path, "redacted", *only, launcher=FaultLauncher()) == 1
    for report in ("summary.json", "junit.xml", "report.html"):
        assert "MISMATCH" in (tmp_path / "redacted" / report).read_text()
    assert _leaks(tmp_path / "redacted", secrets) == []


def test_runs_that_differ_only_in_a_secret_share_a_bucket() -> None:
    """A digest is no number the bucket signature strips: without the digest pattern, one
    bug failing two keys would make two buckets."""
    first = "MISMATCH op 3 (x=0x1f, e=sha256:0123456789abcdef, m=0x3b): P = 0x5, gmpy2 ..."
    other = "MISMATCH op 1 (x=0x2, e=sha256:fedcba9876543210, m=0x61): P = 0x7, gmpy2 ..."
    assert signature(first) == signature(other)
    assert "sha256" not in signature(first)


# --- messages that could show a word of the exponent ---------------------------------------
@pytest.mark.parametrize("keep", [False, True], ids=["redacted", "kept"])
def test_a_core_that_reads_its_exponent_back_is_reported_without_it(keep: bool) -> None:
    """E is write-only: a core that returns a word of it on a read fails the predictor; the
    mismatch says so without the word (a word's digest is undone by trying every word)."""
    rm, algo = regmap.load(), get_algo("rsa_core")
    n, bus_w, word = 64, 32, 0x9E3779B9
    pred = LoaderPredictor(rm, load_design("rsa_core"), n, bus_w, algo.model(algo.resolve(n)),
                           10, secrets=Secrets.of(("E",), n, keep))
    pred.observe(Transfer(True, rm.addr("E"), word, 0, 15))
    mismatch = pred.observe(Transfer(False, rm.addr("E"), 0, word, 35))
    assert mismatch is not None and str(mismatch).startswith("@35ns read E[0]")
    assert ("9e3779b9" in str(mismatch)) is keep
    assert ("<secret>" in str(mismatch)) is not keep


# --- the descriptor: the one source of which registers are secret --------------------------
def _copy(tmp_path: Path, name: str) -> Path:
    d = load_design(name)
    folder = tmp_path / d.family
    folder.mkdir()
    for src in d.rtl:
        shutil.copy(src, folder / src.name)
    path = folder / d.descriptor.name
    path.write_text(d.descriptor.read_text())
    return path


def test_the_rsa_core_descriptor_names_its_exponent_secret() -> None:
    assert load_design("rsa_core").secret == ("E",)
    assert all(not load_design(n).secret for n in ("mont_lut", "mont_r4", "mm42", "mont_dual"))


@pytest.mark.parametrize(("design", "edit", "needle"), [
    ("rsa_core", lambda t: t.replace('secret = ["E"]', 'secret = ["D"]'),
     "[operands] secret: D is no register"),
    ("rsa_core", lambda t: t.replace('secret = ["E"]', 'secrets = ["E"]'),
     "[operands]: unknown key(s) secrets"),
    ("rsa_core", lambda t: t.replace('secret = ["E"]', 'secret = "E"'),
     "[operands] secret: expected a list (got 'E')"),
    ("mont_lut", lambda t: t.replace('promise = {', 'secret = ["Y"]\npromise = {'),
     "only a modexp design"),
])
def test_a_wrong_secret_key_is_one_line(tmp_path: Path, design: str, edit, needle: str) -> None:
    """A misspelt or misplaced `secret` would log a key in clear: it is refused."""
    path = _copy(tmp_path, design)
    text = path.read_text()
    assert edit(text) != text, "the edit must change the descriptor"
    path.write_text(edit(text))
    with pytest.raises(ConfigError, match=re.escape(needle)) as exc:
        parse(path)
    assert "\n" not in str(exc.value)


@pytest.mark.sim
def test_failing_runs_of_a_secret_design_get_no_waves(tmp_path: Path) -> None:
    """Waves hold every signal in clear: a regression that does not keep secrets does not
    rerun the RSA core's failing seeds with waves, and its report says so."""
    assert _regress(tmp_path, "redacted", "--sim", "icarus", "--rerun-waves", "3",
                    launcher=FaultLauncher()) == 1
    summary = json.loads((tmp_path / "redacted" / "summary.json").read_text())
    assert summary["failed"] and all(run["rerun"] is None for run in summary["runs"])
    assert not list((tmp_path / "redacted").rglob("*.fst"))
    assert any("no waves for failing runs of rsa_core" in note for note in summary["notes"])


# --- waves and repro lines (issue 59, item 7) ----------------------------------------------
SMALL = 8  # the RSA core's narrowest N: the smallest run that writes waves
KEY = {"msg": 0x3, "exp": 0xB5, "mod": 0xE3}  # a toy exponent, as a vector file gives it


def test_waves_of_a_secret_design_are_refused_without_keep_secrets(tmp_path: Path) -> None:
    """`sim --dut rsa_core --waves` wrote the exponent in clear into waves.fst (e_i, e_q and
    every register it steers): refused, before anything is built, with the way to ask for
    them anyway; a design without secret operands gets its waves as before."""
    out = tmp_path / "run"
    line = one_error(montverif("sim", "--dut", "rsa_core", "--n", str(SMALL), "--waves",
                               "--out", str(out)))
    assert line.startswith("error: --waves (WAVES=1): rsa_core's waves would hold its secret "
                           "operand(s) E in clear") and "add --keep-secrets" in line, line
    assert not out.exists()
    line = one_error(make("sim", "DUT=rsa_core", f"N={SMALL}", "WAVES=1",
                          f"OUT={tmp_path / 'make'}"), via_make=True)
    assert "--keep-secrets (KEEP_SECRETS=1)" in line
    with pytest.raises(ConfigError, match="secret operand"):  # the flow's own check
        check.validate(RunSpec(BuildSpec("rsa_core", SMALL, waves=True)))
    check.validate(RunSpec(BuildSpec("rsa_core", SMALL, waves=True), keep_secrets=True))
    check.validate(RunSpec(BuildSpec("mont_lut", SMALL, waves=True)))


def test_the_repro_line_of_a_secret_design_asks_for_no_waves() -> None:
    """A failing rsa_core run's repro ended in `--waves`: the line a user copies would be
    refused (or, before, write the exponent in clear). Without waves it runs; with the
    run's --keep-secrets it keeps both; other designs keep their --waves."""
    secret = RunSpec(BuildSpec("rsa_core", 64, sim="icarus"), seed=3)
    assert not secret.repro().endswith("--waves") and "--waves" not in secret.repro().split()
    assert replace(secret, keep_secrets=True).repro().endswith("--keep-secrets --waves")
    assert RunSpec(BuildSpec("mont_lut", 64), seed=3).repro().endswith(" --waves")
    for run in (secret, replace(secret, keep_secrets=True)):  # each line is one sim takes
        argv = run.repro().split()
        args = sim_cli.parser().parse_args(argv[2:])
        check.validate(RunSpec(BuildSpec(args.dut, args.n, args.busw, args.sim,
                                         waves=args.waves), keep_secrets=args.keep_secrets))


def _exponent_errors(tmp_path: Path) -> list[tuple[str, str]]:
    """(secret digits, the error line) of each attack that makes an `error:` line about the
    exponent: a malformed one in a vector file and on `models run`, and one too wide."""
    d = 0x9E3779B97F4A7C15  # a whole 64-bit exponent
    out = []
    for name, text in (("malformed", f"{d:#x}g"), ("signed", f"-{d:#x}"),
                       ("wide", f"{d << 4:#x}")):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"vectors": [{"msg": "0x3", "exp": text,
                                                 "mod": "0xfffffffffffffffb"}]}))
        out.append((f"{d:x}", one_error(montverif("sim", "--dut", "rsa_core", "--n", "64",
                                                  "--vectors", str(path)))))
        out.append((f"{d:x}", one_error(montverif(
            "models", "run", "rsa_core", "--n", "64", "--x", "3", "--y", text,
            "--m", "0xfffffffffffffffb"))))
    return out


def test_no_error_line_quotes_a_secret_operand(tmp_path: Path) -> None:
    """`vectors[0].exp: cannot parse integer '0x9e37...'` quoted the whole exponent: each
    line names the field and what is wrong, never the value."""
    for digits, line in _exponent_errors(tmp_path):
        assert digits not in line.lower(), line
        assert "exp" in line or "--y" in line or "E must" in line, line
    # the control: the same malformed value as the public message is quoted, as before
    path = tmp_path / "msg.json"
    path.write_text(json.dumps({"vectors": [{"msg": "0x9e3779b97f4a7c15g", "exp": "0x3",
                                             "mod": "0xfffffffffffffffb"}]}))
    line = one_error(montverif("sim", "--dut", "rsa_core", "--n", "64", "--vectors", str(path)))
    assert "9e3779b97f4a7c15g" in line


@pytest.mark.sim
def test_kept_waves_hold_the_exponent(tmp_path: Path) -> None:
    """Why waves are refused: with --keep-secrets (the control) the run's waves.fst holds
    the exponent in clear, in the core's e_i and e_q."""
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"vectors": [{k: hex(v) for k, v in KEY.items()}]}))
    run = RunSpec(BuildSpec("rsa_core", SMALL, BUS_W, "icarus", waves=True), seed=SEED,
                  vectors=str(path), tests=("VectorTest",), timeout_s=600, keep_secrets=True)
    outcome = execute(run, tmp_path / "kept")
    assert outcome.passed and outcome.waves is not None, outcome.first_error
    wave = pywellen.Waveform(str(outcome.waves))
    exponent = [v for v in wave.all_vars() if v.full_name.endswith(("u_core.e_i", "u_core.e_q"))]
    seen: set[object] = set()
    wave.stream_changes(lambda _t, _sid, value: seen.add(value), exponent)
    assert exponent and KEY["exp"] in seen, (len(exponent), sorted(map(str, seen))[:10])
    with pytest.raises(ConfigError, match="--keep-secrets"):
        execute(replace(run, keep_secrets=False), tmp_path / "redacted")
    assert not (tmp_path / "redacted").exists()
