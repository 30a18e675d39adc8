"""Shards, merge, resume, fixed seeds, buckets, the HTML report, history, cross-simulator
comparison and bad input, all with a fake launcher (no simulator)."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

import pytest
from junitparser import JUnitXml

from montverif.host.paths import ROOT
from montverif.regress.cli import regress as regress_cli
from montverif.regress.coverage import closure
from montverif.regress.flow import debug, simulate, spec
from montverif.regress.flow import launcher as launchers
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.regression import buckets as bk
from montverif.regress.regression import lists as rlists
from montverif.regress.regression import runner, scheduler, seeds, shards
from montverif.regress.regression import shards as rshards
from montverif.regress.regression import summary as rsummary
from montverif.regress.regression.results import FAIL, RunResult
from montverif.regress.report import history, html
from montverif.regress.report import write as report_write
from montverif.regress.tests.test_run import FakeLauncher

LIST = """
[mix]
description = "four models, two designs"
[[mix.entry]]
dut = "mont_lut"
widths = [32, 64]
bus_widths = [8, 32]
simulators = ["verilator"]
seeds = 3
txns = 4
[[mix.entry]]
dut = "mont_r2"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 4
txns = 2
[diff]
[[diff.entry]]
dut = "mont_lut"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
diff_sims = true
seeds = 2
txns = 3
"""


class LoggingLauncher(FakeLauncher):
    """Also writes sim.log and a txns.jsonl that depends only on the seed (as a real one)."""

    def __init__(self, *args: object, errors: dict[str, str] | None = None,
                 perturb: str = "", crash: str = "", **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.errors, self.perturb, self.crash = errors or {}, perturb, crash

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        if self.crash and run.key.startswith(self.crash):
            with self.lock:
                self.ran.append(run.key)
            raise RuntimeError("simulator killed by signal 9")
        shutil.rmtree(log_dir, ignore_errors=True)  # as simulate.execute does
        out = super().run(run, log_dir)
        error = next((e for k, e in self.errors.items() if run.key.startswith(k)), None)
        if error is not None:
            out.passed, out.failed, out.first_error = False, 1, error
        txns = [{"op": i, "x": str(run.seed * 7 + i), "p": str(run.seed % 97 + i),
                 "cycles": 40, "start_ns": 10 * i + (5 if run.build.sim == "icarus" else 0)}
                for i in range(run.txns)]
        if self.perturb and run.build.sim == self.perturb:
            txns[-1]["p"] = "0"
        (log_dir / "txns.jsonl").write_text("".join(json.dumps(t) + "\n" for t in txns))
        lines = [f"   {100 * i}.00ns INFO     op {i}" for i in range(20)]
        if not out.passed:
            lines[12] = f"   1200.00ns ERROR    scoreboard: {out.first_error}"
        (log_dir / "sim.log").write_text("\n".join(lines) + "\n")
        return out


@pytest.fixture
def lists(tmp_path: Path) -> Path:
    path = tmp_path / "lists.toml"
    path.write_text(LIST)
    return path


def main(tmp_path: Path, lists: Path, launcher: launchers.Launcher, *extra: str,
         name: str = "mix", out: str = "out") -> int:
    argv = ["--lists", str(lists), "regress", "--list", name, "--jobs", "2",
            "--out", str(tmp_path / out), *extra]
    return regress_cli.main(argv, launcher=launcher, results_root=tmp_path / "results")


def summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


# --- shards and merge -----------------------------------------------------------------------
def test_shards_partition_the_runs_by_model(lists: Path) -> None:
    runs = seeds.expand(rlists.get_list("mix", lists))
    parts = [rshards.shard(runs, i, 3) for i in (1, 2, 3)]
    assert sorted(r.key for p in parts for r in p) == sorted(r.key for r in runs)
    builds = [{r.build.key for r in p} for p in parts]
    assert all(b for b in builds) and sum(map(len, builds)) == len(seeds.unique_builds(runs))
    assert [rshards.shard(runs, i, 3) for i in (1, 2, 3)] == parts  # deterministic
    assert rshards.shard(runs, 1, 1) == runs
    assert sum(len(rshards.shard(runs, i, 9)) for i in range(1, 10)) == len(runs)  # empty shards ok


def test_run_cost_follows_cycles_width_and_simulator() -> None:
    """The estimate that balances shards and orders runs: a word-serial array with one PE
    costs far more than one with 16 at the same width (cycles), wider is dearer, Icarus is
    dearer than Verilator, an RSA exponentiation grows with N^2."""
    def cost(dut: str, n: int, sim: str = "verilator", txns: int = 5, **params: int) -> float:
        return shards.run_cost(RunSpec(BuildSpec(dut, n, 32, sim, params=tuple(sorted(
            params.items()))), txns=txns))

    assert cost("mwr2mm", 2048, W=8, P=1) > 10 * cost("mwr2mm", 2048, W=32, P=16)
    start = shards.COST_START_S
    assert cost("mont_lut", 1024) - start > 4 * (cost("mont_lut", 256) - start) > 0
    assert cost("mont_lut", 256, "icarus", txns=50) > 3 * cost("mont_lut", 256, txns=50)
    assert cost("rsa_core", 1024) > 10 * cost("rsa_core", 256)
    assert cost("mont_lut", 256, txns=50) > cost("mont_lut", 256, txns=5)


def test_the_longest_runs_start_first(tmp_path: Path, lists: Path) -> None:
    launcher = FakeLauncher()
    assert main(tmp_path, lists, launcher, "--jobs", "1") in (0, 1)
    by_key = {r.key: r for r in seeds.expand(rlists.get_list("mix", lists))}
    started = [shards.run_cost(by_key[k]) for k in launcher.ran]
    assert started == sorted(started, reverse=True) and len(set(started)) > 1


@pytest.mark.parametrize("spec", ["0/3", "4/3", "1-3", "a/b", "1/0", "/"])
def test_bad_shard_spec(tmp_path: Path, lists: Path, spec: str,
                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(tmp_path, lists, FakeLauncher(), "--shard", spec) == 2
    err = capsys.readouterr().err
    assert err == (f"error: bad shard spec '{spec}': expected I/K with 1 <= I <= K <= 1000, "
                   "e.g. 2/4\n")


def _normalised(folder: Path) -> dict:
    """A summary without what legitimately differs between machines: times, paths, jobs."""
    s = summary(folder)
    for key in ("start", "wall_s", "out_dir", "jobs", "shard", "notes"):
        s.pop(key)
    for b in s["builds"]:
        b.pop("seconds")
    for r in s["runs"]:
        r.pop("wall_s")
        r["log_dir"] = Path(r["log_dir"]).relative_to(folder).as_posix() if r["log_dir"] else None
        if r["rerun"]:
            r["rerun"]["log_dir"] = Path(r["rerun"]["log_dir"]).relative_to(folder).as_posix()
    return s


def _cases(folder: Path) -> list[tuple[str | None, str | None, bool, bool]]:
    root = ET.parse(folder / "junit.xml").getroot()
    return sorted((c.get("classname"), c.get("name"), c.find("failure") is not None,
                   c.find("skipped") is not None) for c in root.iter("testcase"))


def test_merged_shards_equal_a_single_run(tmp_path: Path, lists: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    errors = {"mont_lut-n64-b8": "MISMATCH op 3: got 0x1f expected 0x2e",
              "mont_r2-n32": "watchdog: simulation killed after 600s wall time"}
    # --rerun-waves caps reruns per regression, i.e. per shard: rerun every failure here
    assert main(tmp_path, lists, LoggingLauncher(errors=errors), "--rerun-waves", "99",
                out="full") == 1
    shards = []
    for i in (1, 2, 3):
        launcher = LoggingLauncher(errors=errors)
        main(tmp_path, lists, launcher, "--shard", f"{i}/3", "--rerun-waves", "99",
             out=f"shard{i}")
        shards.append(str(tmp_path / f"shard{i}"))
        assert set(launcher.built) == {r.build.key for r in rshards.shard(
            seeds.expand(rlists.get_list("mix", lists)), i, 3)}  # only what the shard needs
    assert not (tmp_path / "results" / "history.jsonl").read_text().count("\n") > 1
    capsys.readouterr()
    assert regress_cli.main(["merge", str(tmp_path / "merged"), *shards],
                   results_root=tmp_path / "results") == 1
    out = capsys.readouterr().out
    full, merged = tmp_path / "full", tmp_path / "merged"
    assert _normalised(merged) == _normalised(full)
    assert _cases(merged) == _cases(full)
    assert out.splitlines()[-1] == summary(full)["passed"].__str__() + " passed, " + str(
        summary(full)["failed"]) + " failed"
    assert (merged / "report.html").read_text().count("<h3 id=") == summary(full)["failed"]
    for run in summary(merged)["runs"]:
        assert (merged / "runs" / run["key"] / "sim.log").exists()
    assert len(history.load(tmp_path / "results" / "history.jsonl")) == 2  # full + merge


def test_merge_of_a_missing_shard_says_incomplete(tmp_path: Path, lists: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    main(tmp_path, lists, LoggingLauncher(), "--shard", "1/2", out="s1")
    assert regress_cli.main(["merge", str(tmp_path / "m"), str(tmp_path / "s1")],
                   results_root=tmp_path / "results") == 0
    assert "incomplete:" in capsys.readouterr().out
    assert "incomplete:" in (tmp_path / "m" / "report.html").read_text()


def test_merge_bad_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert regress_cli.main(["merge", str(tmp_path / "m"), str(tmp_path / "nope")],
                   results_root=tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read results folder") and err.count("\n") == 1
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "summary.json").write_text("{not json")
    assert regress_cli.main(["merge", str(tmp_path / "m"), str(tmp_path / "bad")],
                   results_root=tmp_path) == 2
    err = capsys.readouterr().err
    assert "summary.json: not JSON" in err and err.count("\n") == 1


# --- resume, fixed seed, fail-fast, crashes -------------------------------------------------
def test_resume_runs_only_what_did_not_finish(tmp_path: Path, lists: Path) -> None:
    errors = {"mont_r2": "MISMATCH op 1: got 0x1 expected 0x2"}
    assert main(tmp_path, lists, LoggingLauncher(errors=errors), "--rerun-waves", "9") == 1
    before = summary(tmp_path / "out")
    lost = [r["key"] for r in before["runs"]][:3]
    for key in lost:  # as if interrupted before these finished
        (tmp_path / "out" / "runs" / key / "result.json").unlink()
    (tmp_path / "out" / "summary.json").unlink()
    launcher = LoggingLauncher(errors=errors)
    assert main(tmp_path, lists, launcher, "--resume") == 1
    assert sorted(launcher.ran) == sorted(lost)
    assert {b for b in launcher.built} == {k.rsplit("-s", 1)[0] for k in lost}
    after = summary(tmp_path / "out")
    assert [(r["key"], r["status"], r["first_error"]) for r in after["runs"]] == [
        (r["key"], r["status"], r["first_error"]) for r in before["runs"]]


def test_resume_keeps_a_run_recorded_with_its_designs_own_tests(tmp_path: Path) -> None:
    """The RSA core runs its config's test list: the record holds that list, the expanded
    run the generic one; --resume must still find it finished (it reran them all before)."""

    run = RunSpec(BuildSpec("rsa_core", 64, 32, "verilator"), seed=7, txns=2)
    ran = spec.with_design_tests(run)
    assert ran != run
    rsummary.save_result(tmp_path, RunResult(ran, "PASS", log_dir=tmp_path / "runs" / run.key))
    assert list(rsummary.finished_results(tmp_path, [run])) == [run.key]
    other = RunSpec(BuildSpec("rsa_core", 64, 32, "verilator"), seed=7, txns=3)
    assert rsummary.finished_results(tmp_path, [other]) == {}  # a different run is not kept


def test_resume_needs_a_readable_folder(tmp_path: Path, lists: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(tmp_path, lists, FakeLauncher(), "--resume", out="missing") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --resume: cannot use results folder") and err.count("\n") == 1


def test_fixed_seed_runs_each_model_once(lists: Path, tmp_path: Path) -> None:
    runs = seeds.expand(rlists.get_list("mix", lists), fixed_seed=4242)
    assert {r.seed for r in runs} == {4242}
    assert len(runs) == len(seeds.unique_builds(runs)) == 5
    launcher = FakeLauncher()
    assert main(tmp_path, lists, launcher, "--fixed-seed", "4242", "--dut", "mont_r2") == 0
    assert launcher.ran == ["mont_r2-n32-b32-verilator-s4242"]


def test_crashing_run_is_a_failure_and_loses_nothing(tmp_path: Path, lists: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    launcher = LoggingLauncher(crash="mont_lut-n32-b8")
    assert main(tmp_path, lists, launcher, "--rerun-waves", "0") == 1
    s = summary(tmp_path / "out")
    crashed = [r for r in s["runs"] if r["status"] == FAIL]
    assert len(crashed) == 3 and all("killed by signal 9" in r["first_error"] for r in crashed)
    assert s["passed"] == len(s["runs"]) - 3 and s["skipped"] == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["--dut", "nope"], "error: unknown design nope (known: "),
    (["--sim", "vcs"], "error: unknown simulator vcs (known: "),
    (["--seeds", "0"], "error: argument --seeds: must be an integer 1..10000 (got 0)"),
    (["--fixed-seed", "-1"], "error: argument --fixed-seed: must be an integer 0..2^32-1"),
    (["--bogus"], "error: unrecognized arguments: --bogus"),
    (["--jobs", "x"], "error: argument --jobs/-j: invalid int value: 'x'"),
])
def test_bad_options_are_one_line(tmp_path: Path, lists: Path, argv: list[str], message: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(tmp_path, lists, FakeLauncher(), *argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_unknown_test_in_a_list_is_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "l.toml"
    path.write_text(LIST.replace('txns = 2\n', 'txns = 2\ntests = ["NoSuchTest"]\n'))
    assert main(tmp_path, path, FakeLauncher()) == 2
    err = capsys.readouterr().err
    assert "tests: unknown NoSuchTest" in err and err.count("\n") == 1


# --- buckets --------------------------------------------------------------------------------
def _fail(key_seed: int, error: str, dut: str = "mont_lut", n: int = 32) -> RunResult:
    return RunResult(RunSpec(BuildSpec(dut, n), seed=key_seed), FAIL, first_error=error)


def test_buckets_one_bug_many_numbers_is_one_bucket() -> None:
    fails = [_fail(s, f"RandomTest: MISMATCH @{100 + 20 * s}.0ns read P[{s % 4}] (addr "
                      f"{hex(0x2000 + s % 4)}): expected {hex(s * 977)}, got {hex(s * 13)}",
                   n=32 + 32 * (s % 3)) for s in range(1, 41)]
    got = bk.buckets(fails)
    assert len(got) == 1 and got[0].count == 40 and got[0].seeds == list(range(1, 41))
    assert got[0].example.run.build.n == 32
    assert got[0].signature == "MISMATCH @# read P[#...] (addr #): expected #, got #"


def test_buckets_two_messages_are_two_buckets() -> None:
    fails = [_fail(1, "MISMATCH op 3: got 0x1 expected 0x2"),
             _fail(2, "MISMATCH op 9: table-address hits [7, 11, 12], model expects [7, 11, 11]"),
             _fail(3, "MISMATCH op 5: got 0x7 expected 0x9"),
             _fail(4, "MISMATCH op 5: got 0x7 expected 0x9", dut="mont_r2")]
    got = bk.buckets(fails)
    assert [(b.dut, b.count) for b in got] == [("mont_lut", 2), ("mont_lut", 1), ("mont_r2", 1)]
    assert len({b.signature for b in got}) == 2


def _build_fail(b: BuildSpec, seed: int, cause: str, root: str) -> RunResult:
    """A run of a model that did not build, its first error as the scheduler writes it (the
    text of flow.build's ToolError)."""
    log = f"{root}/build/sim/{b.key}/build.log"
    return RunResult(RunSpec(b, seed=seed), FAIL, first_error=f"build failed: build of {b.key} "
                     f"failed: {cause} (log: {log})")


def test_buckets_one_build_cause_is_one_bucket_across_designs_seeds_and_paths() -> None:
    """The build failures of every model on a machine without a command (the wheel's
    `python`: issue 60) are one bucket, whatever the design, parameters, seed or checkout;
    another cause is another bucket."""
    missing = "/bin/sh: 1: python: not found"
    builds = [BuildSpec("mont_r2", 32), BuildSpec("mont_lut", 64, 8, ack_wait=2, fault=True),
              BuildSpec("mont_lut", 97, params=(("W", 16),)), BuildSpec("mont_r2", 32, 16)]
    same = [_build_fail(b, seed, missing, root) for b in builds for seed in (1, 977)
            for root in ("/work/main", "/home/ci/.cache/montverif/sim/0a9f")]
    other = [_build_fail(b, 5, "cc1plus: error: argument to '-O' should be a non-negative "
                               "integer, 'g', 's', 'z' or 'fast'", "/work/main")
             for b in builds[:2]]
    third = [_build_fail(builds[0], 3, "/bin/sh: 1: /usr/bin/c++: not found", "/w")]
    got = bk.buckets(same + other + third)
    assert [b.count for b in got] == [len(same), len(other), 1]
    assert {r.run.key for r in got[0].results} == {r.run.key for r in same}
    assert got[0].dut == "mont_lut, mont_r2" and got[1].dut == "mont_lut, mont_r2"
    for b in got:  # nothing of one run's left in a signature
        for word in ("mont_", "-n32", "/work", "/home", "0a9f", "977", "verilator"):
            assert word not in b.signature, (word, b.signature)
    # a run failure stays per design: the same mismatch in two designs is two pieces of RTL
    runs = [_fail(1, "MISMATCH op 5: got 0x7 expected 0x9"),
            _fail(2, "MISMATCH op 5: got 0x7 expected 0x9", dut="mont_r2")]
    assert [b.dut for b in bk.buckets(runs)] == ["mont_lut", "mont_r2"]


def test_bucket_signature_strips_keys_seeds_and_paths_not_names() -> None:
    """Run keys, seeds and folders go; a path's file name and hierarchical signal names
    stay (they tell causes apart)."""
    a = bk.signature("watchdog: mont_lut-n32-b32-verilator-s17 (seed 17) hung in "
                     "build/runs/mont_lut-n32-b32-verilator-s17/sim.log")
    b = bk.signature("watchdog: mont_r2-n64-W16-P4-b8-w1-fault-waves-icarus-s3-vec-0a1b "
                     "(seed 3) hung in /tmp/x/runs/k/sim.log")
    assert a == b and "sim.log" in a and "17" not in a
    assert bk.signature("/bin/sh: 1: python3: not found") != bk.signature(
        "/bin/sh: 1: c++: not found")
    assert bk.signature("x <path>/a.sv:3") != bk.signature("x <path>/b.sv:3")
    hier = bk.signature("ASSERT FAILED X_A @ 9 ps: mont_r2_top.u_loader.X_A (hdl/common/l.sv:4)")
    assert "mont_r2_top.u_loader.X_A" in hier and "hdl/" not in hier and "l.sv" in hier
    assert bk.signature("expected 3/4") == bk.signature("expected 7/8")


def test_buckets_in_summary_terminal_and_report(tmp_path: Path, lists: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    errors = {"mont_lut-n32": "MISMATCH op 3: got 0x1 expected 0x2",
              "mont_lut-n64": "MISMATCH op 17: got 0xfff expected 0x2a",
              "mont_r2": "watchdog: simulation killed after 600s wall time"}
    assert main(tmp_path, lists, LoggingLauncher(errors=errors)) == 1
    out = capsys.readouterr().out
    s = summary(tmp_path / "out")
    assert [(b["dut"], b["count"]) for b in s["buckets"]] == [("mont_lut", 12), ("mont_r2", 4)]
    assert "bucket  12x mont_lut: MISMATCH op #: got # expected #" in out
    page = (tmp_path / "out" / "report.html").read_text()
    assert "watchdog: simulation killed after #s wall time" in page


# --- report, history ------------------------------------------------------------------------
def _fake_coverage_merge(monkeypatch: pytest.MonkeyPatch, duts: dict | None) -> None:
    """The fake launcher writes no coverage: stand in for the merge of regress.closure."""

    def merge(out: Path, *_args: object, **_kw: object) -> bool:
        if duts is not None:
            (out / "coverage").mkdir(parents=True, exist_ok=True)
            (out / "coverage" / "summary.json").write_text(json.dumps({"duts": duts}))
        return True

    monkeypatch.setattr(closure, "after_regression", merge)


def test_html_report_has_failures_excerpts_coverage_and_trends(
        tmp_path: Path, lists: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    errors = {"mont_r2": "MISMATCH op 1: got 0x1 expected 0x2"}
    _fake_coverage_merge(monkeypatch, None)
    main(tmp_path, lists, LoggingLauncher(errors=errors), out="a")
    _fake_coverage_merge(monkeypatch, {"mont_lut": {"covered": 30, "total": 40},
                                       "mont_r2": {"covered": 5, "total": 10}})
    main(tmp_path, lists, LoggingLauncher(), out="b")
    page = (tmp_path / "a" / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "http" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")  # nothing fetched from anywhere
    bad = [r for r in summary(tmp_path / "a")["runs"] if r["status"] == FAIL]
    for r in bad:
        assert f'id="{r["key"]}"' in page and r["repro"] in page
    assert "&gt;    1200.00ns ERROR    scoreboard: MISMATCH op 1" in page  # the excerpt
    assert summary(tmp_path / "a")["git"] in page
    page_b = (tmp_path / "b" / "report.html").read_text()
    assert "<td>mont_lut</td><td>30</td><td>40</td><td>75.0</td><td>-</td>" in page_b
    # two pass rates make a trend; one coverage value is said, not drawn as empty axes
    assert page_b.count("<svg") == 1 and "<polyline" in page_b
    assert "functional coverage (covered / total bins): 70% in the only regression" in page_b
    hist = history.load(tmp_path / "results" / "history.jsonl")
    assert [h["pass_rate"] for h in hist] == [pytest.approx(100 * 12 / 16, abs=0.01), 100.0]
    assert [h["coverage_pct"] for h in hist] == [None, 70.0]


def test_history_file_option_and_damaged_lines(tmp_path: Path, lists: Path) -> None:
    hist = tmp_path / "h" / "nightly.jsonl"
    main(tmp_path, lists, FakeLauncher(), "--history", str(hist))
    with hist.open("a") as f:
        f.write("garbage\n")
    main(tmp_path, lists, FakeLauncher(), "--history", str(hist), out="o2")
    assert len(history.load(hist)) == 2
    assert not (tmp_path / "results" / "history.jsonl").exists()


# --- cross-simulator comparison -------------------------------------------------------------
def test_diff_entry_runs_both_simulators_with_the_same_seeds(lists: Path) -> None:
    runs = seeds.expand(rlists.get_list("diff", lists))
    by_sim = {s: sorted(r.seed for r in runs if r.build.sim == s) for s in ("verilator",
                                                                           "icarus")}
    assert by_sim["verilator"] == by_sim["icarus"] and len(by_sim["icarus"]) == 2
    plain = seeds.expand(rlists.get_list("mix", lists), diff_sims=True)
    assert len(plain) == 2 * len(seeds.expand(rlists.get_list("mix", lists)))


@pytest.mark.parametrize("perturb", ["", "icarus"])
def test_diff_sims_compares_transaction_logs(tmp_path: Path, lists: Path, perturb: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(tmp_path, lists, LoggingLauncher(perturb=perturb), name="diff")
    out = capsys.readouterr().out
    s = summary(tmp_path / "out")
    assert len(s["diffs"]) == 2
    if perturb:
        assert code == 1 and not any(d["same"] for d in s["diffs"])
        assert "operation 2 differs in p" in s["diffs"][0]["detail"]
        assert out.splitlines()[-1] == "4 passed, 2 failed"
    else:  # start_ns differs between the simulators: a timing field, ignored
        assert code == 0 and all(d["same"] for d in s["diffs"])
        assert out.splitlines()[-1] == "6 passed, 0 failed"
    cases = _cases(tmp_path / "out")
    diffs = [c for c in cases if str(c[1]).startswith("sims-agree[")]
    assert [c[0] for c in diffs] == ["mont_lut.n32-b32"] * 2  # the point, without simulator
    assert sorted(str(c[1]) for c in diffs) == ["sims-agree[0]", "sims-agree[1]"]
    assert [c[2] for c in diffs] == [bool(perturb)] * 2


def test_diff_sims_compares_code_coverage_builds(tmp_path: Path, lists: Path) -> None:
    """--code-coverage instruments only the Verilator builds (a -cov key): their runs are
    still compared with the Icarus runs of the same seed (they were left out before)."""
    code = main(tmp_path, lists, LoggingLauncher(perturb=""), "--code-coverage", name="diff")
    s = summary(tmp_path / "out")
    assert any(r["key"].endswith(f"-cov-verilator-s{r['seed']}") for r in s["runs"])
    assert code == 0 and len(s["diffs"]) == 2 and all(d["same"] for d in s["diffs"])


# --- debug aids -----------------------------------------------------------------------------
def test_signal_groups_and_gtkw(tmp_path: Path) -> None:
    paths = ["$rootio.clk_i", "top.clk_i", "top.bus_req_i", "top.bus_addr_i", "top.busy_o",
             "top.done_o", "top.N", "top.u_core.u_observe.lut_hits_q",
             "top.u_loader.x_q", "top.u_core.start_i", "top.u_core.s_q", "top.u_core.c_q",
             "top.u_core.lut_addr", "top.u_core.state_q", "top.u_core.tmp"]
    groups = debug.group_signals(paths)
    assert groups == {"bus": ["top.clk_i", "top.bus_req_i", "top.bus_addr_i"],
                      "control": ["top.busy_o", "top.done_o", "top.u_core.start_i",
                                  "top.u_core.state_q"],
                      "datapath registers": ["top.u_core.s_q", "top.u_core.c_q"],
                      "table address": ["top.u_core.lut_addr"]}
    text = debug.gtkw_text("w.fst", groups, 1200.0)
    assert text.count("@800200") == 4 and "-table address" in text
    # GTKWave's marker (in the dumps' 1 ps steps) and view: WINDOW_NS before the mismatch
    marker = [ln.split() for ln in text.splitlines() if ln.startswith("*")]
    assert len(marker) == 1 and marker[0][1] == str(1200 * 1000)
    assert f"[timestart] {int((1200 - debug.WINDOW_NS) * 1000)}" in text
    log = tmp_path / "sim.log"
    log.write_text("  10.00ns INFO x\n  1490.00ns ERROR    scoreboard: MISMATCH\n")
    assert debug.first_error_time_ns(log) == 1490.0


# --- the real thing -------------------------------------------------------------------------
@pytest.mark.sim
def test_real_build_failures_bucket_by_cause(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Real Verilator builds of two designs broken two ways (a C++ compiler that is not there;
    an optimisation flag the compiler refuses), two seeds each, in two results folders: one
    bucket per cause, each spanning both designs."""
    builds = [BuildSpec(d, 32, 16, ack_wait=3) for d in ("mont_lut", "mont_r2")]  # own keys
    runs = [RunSpec(b, seed=s, txns=2) for b in builds for s in (3, 4)]
    results = []
    for i, flags in enumerate(("CXX=/nonexistent/mv-no-compiler/c++", "OPT_FAST=-Onot")):
        monkeypatch.setenv("MAKEFLAGS", flags)
        reg = runner.regress(launchers.LocalLauncher(), "broken", runs,
                             scheduler.ScheduleOptions(1, False, 0), tmp_path / f"out{i}", 1)
        assert [r.status for r in reg.results] == [FAIL] * len(runs)
        assert all(r.first_error.startswith(bk.BUILD_FAILED) for r in reg.results)
        results += reg.results
    got = bk.buckets(results)
    assert [(b.count, b.dut) for b in got] == [(len(runs), "mont_lut, mont_r2")] * 2, \
        [(b.count, b.dut, b.signature) for b in got]
    for b in got:
        assert not any(r.run.build.key in b.signature for r in results), b.signature
        assert str(tmp_path) not in b.signature and str(ROOT) not in b.signature


DIFF_REAL = """
[d]
[[d.entry]]
dut = "mont_lut"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
diff_sims = true
seeds = 1
txns = 3
tests = ["RandomTest", "CornerTest"]
"""


@pytest.mark.sim
def test_same_seed_same_transaction_log(tmp_path: Path) -> None:
    """The same seed twice on each simulator gives byte-identical transaction logs, and
    Icarus and Verilator agree on every operation (timing fields ignored)."""
    lists = tmp_path / "l.toml"
    lists.write_text(DIFF_REAL)
    for out in ("a", "b"):
        assert main(tmp_path, lists, launchers.LocalLauncher(), "--fixed-seed", "77", name="d",
                    out=out) == 0
    s = summary(tmp_path / "a")
    assert [d["same"] for d in s["diffs"]] == [True]
    for run in s["runs"]:
        logs = [(tmp_path / o / "runs" / run["key"] / "txns.jsonl").read_text() for o in "ab"]
        assert logs[0] == logs[1] and logs[0].count("\n") > 3


def test_unreadable_waves_leave_a_note_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "waves.fst").write_bytes(b"not an fst")
    note = debug.annotate(RunSpec(BuildSpec("mont_lut", 32)), tmp_path / "waves.fst", tmp_path,
                          "MISMATCH")
    assert "waves.fst" in note and (tmp_path / "mismatch.txt").read_text().startswith(
        "no picture")
    assert not (tmp_path / "mismatch.png").exists()


@pytest.mark.sim
def test_broken_dut_is_bucketed_and_rerun_with_waves_gtkw_and_picture(tmp_path: Path) -> None:
    """The fault build of mont_lut fails; its rerun with waves fails the same way and leaves
    waves.fst, waves.gtkw and mismatch.png, which the report embeds."""
    runs = [RunSpec(BuildSpec("mont_lut", 32, fault=True), seed=s, txns=10,
                    tests=("RandomTest", "CornerTest")) for s in (3, 4)]
    reg = runner.regress(launchers.LocalLauncher(), "fault", runs,
                         scheduler.ScheduleOptions(2, False, 1), tmp_path, 1)
    assert reg.count(FAIL) == 2
    report_write.write_all(reg)
    s = summary(tmp_path)
    assert [b["count"] for b in s["buckets"]] == [2]
    rerun = next(r["rerun"] for r in s["runs"] if r["rerun"])
    assert rerun["same_failure"] is True
    rdir = Path(rerun["log_dir"])
    assert (rdir / "waves.fst").exists() and (rdir / "mismatch.png").exists()
    gtkw = (rdir / "waves.gtkw").read_text()
    assert "-table address" in gtkw and '[dumpfile] "waves.fst"' in gtkw  # opens when moved
    assert '[savefile] "waves.gtkw"' in gtkw  # GTKWave finds the dump beside it
    sucl = (rdir / "waves.sucl").read_text().splitlines()
    assert sucl[0] == "load_file waves.fst" and "divider_add table address" in sucl
    assert any(line.startswith("variable_add ") and "lut" in line for line in sucl)
    page = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in page and "surfer -c waves.sucl" in page
    # every link of the page (the seeds' logs, waves, gtkw) resolves inside the folder
    links = [unquote(h) for h in re.findall(r'href="([^"#]+)"', page)]
    assert {"waves.fst", "waves.gtkw", "sim.log"} <= {Path(h).name for h in links}
    assert all((tmp_path / h).is_file() for h in links), links
    # JUnit: each run's cocotb tests with cocotb's own verdicts and messages (junitparser)
    cases = [c for suite in JUnitXml.fromfile(str(tmp_path / "junit.xml")) for c in suite]
    assert sorted((c.classname, c.name) for c in cases) == sorted(
        ("mont_lut.n32-b32-fault-verilator", f"{t}[{i}]")
        for t in ("RandomTest", "CornerTest") for i in (0, 1))
    for i, run in enumerate(runs):
        cocotb = ET.parse(tmp_path / "runs" / run.key / "results.xml").getroot()
        for want in cocotb.iter("testcase"):
            case = next(c for c in cases if c.name == f"{want.get('name')}[{i}]")
            bad = want.find("failure")
            assert case.is_failure == (bad is not None)
            if bad is not None:
                assert case.result[0].message == bad.get("message")
                assert f"repro: {run.repro()}" in (case.result[0].text or "")
    assert any(c.is_failure for c in cases)


class InterruptingLauncher(LoggingLauncher):
    """Ctrl-C arrives while the n-th run is going."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        if len(self.ran) == self.at:
            self.ran.append(run.key)
            raise KeyboardInterrupt
        return super().run(run, log_dir)


def test_interrupted_regression_resumes(tmp_path: Path, lists: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(tmp_path, lists, InterruptingLauncher(at=5), "--jobs", "1") == 130
    first = summary(tmp_path / "out")
    assert first["passed"] == 5 and first["stopped"] == "interrupted"
    done = {r["key"] for r in first["runs"] if r["status"] == "PASS"}
    launcher = LoggingLauncher()
    assert main(tmp_path, lists, launcher, "--resume") == 0
    assert not done & set(launcher.ran) and len(launcher.ran) == len(first["runs"]) - 5
    final = summary(tmp_path / "out")
    assert final["passed"] == len(final["runs"]) and final["stopped"] == ""
    assert "resumed: 5 run(s) kept" in capsys.readouterr().out


def test_report_command_picks_up_a_later_coverage_summary(
        tmp_path: Path, lists: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_coverage_merge(monkeypatch, None)
    main(tmp_path, lists, FakeLauncher())
    page = tmp_path / "out" / "report.html"
    assert "no coverage summary" in page.read_text()
    (tmp_path / "out" / "coverage").mkdir()
    (tmp_path / "out" / "coverage" / "summary.json").write_text(
        json.dumps({"mont_lut": {"covered": 9, "total": 12}}))
    assert regress_cli.main(["report", str(tmp_path / "out")],
                            results_root=tmp_path / "results") == 0
    assert "<td>mont_lut</td><td>9</td><td>12</td><td>75.0</td>" in page.read_text()
    assert len(history.load(tmp_path / "results" / "history.jsonl")) == 1  # not appended
    capsys.readouterr()
    assert regress_cli.main(["report", str(tmp_path / "nope")], results_root=tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read results folder") and err.count("\n") == 1


# --- a simulator that crashes or hangs (simulate.execute with a stand-in simulator) --------------
@pytest.mark.parametrize(("script", "timeout", "expected"), [
    ("echo starting; kill -SEGV $$", 60, "simulator killed by signal SIGSEGV with no results"),
    ("echo starting; exit 3", 60, "simulator exited with code 3 and no results"),
    ("echo starting; exec sleep 60", 1, "watchdog: simulation killed after 1s wall time"),
])
@pytest.mark.sim
def test_crashing_or_hanging_simulator_is_a_failure_with_its_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str, timeout: int,
        expected: str) -> None:

    child = tmp_path / "child.sh"
    child.write_text(f"#!/bin/sh\n{script}\n")
    child.chmod(0o755)
    monkeypatch.setattr(simulate, "build", lambda spec, design: (tmp_path, 0.0))
    # the script in the simulator's place, started as the simulator is (supervised, in the
    # run's folder, with the run's environment)
    monkeypatch.setattr(simulate.launch, "command",
                        lambda run, log_dir, env: ([str(child)], dict(env), log_dir))
    run = RunSpec(BuildSpec("mont_lut", 32), seed=5, txns=1, timeout_s=timeout)
    out = simulate.execute(run, tmp_path / "log")
    assert not out.passed and out.first_error == expected
    assert (tmp_path / "log" / "sim.log").read_text().startswith("starting")
    record = json.loads((tmp_path / "log" / "outcome.json").read_text())
    assert record["passed"] is False and record["first_error"] == expected


def test_save_files_name_the_dump_relative_to_themselves(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "k"
    run.mkdir(parents=True)
    assert debug.dump_name(run / "waves.fst", run) == "waves.fst"
    assert debug.dump_name(tmp_path / "w" / "x.fst", run) == "../../w/x.fst"
    groups = {"bus": ["top.clk_i"], "control": [], "datapath registers": ["top.u.s_q"],
              "table address": []}
    assert debug.surfer_text("waves.fst", groups) == (
        "load_file waves.fst\ndivider_add bus\nvariable_add top.clk_i\n"
        "divider_add datapath registers\nvariable_add top.u.s_q\nzoom_fit\n")


def test_gtkw_names_vectors_with_their_range(tmp_path: Path) -> None:
    groups = {"bus": ["top.clk_i", "top.bus_addr_i"], "control": [], "datapath registers": [],
              "table address": []}
    text = debug.gtkw_text("w.fst", groups, None, {"top.bus_addr_i": 16})
    assert "@28\ntop.clk_i\n@22\ntop.bus_addr_i[15:0]\n" in text
    assert "[timestart] 0" in text and not any(ln.startswith("*") for ln in text.splitlines())


def test_trend_axis_tells_apart_two_regressions_of_one_minute() -> None:
    """The trend's first and last labels are to the minute, and to the second when both
    regressions started in the same minute (equal labels would say nothing)."""
    same = html.trend([("2026-11-24T05:10:01", 90.0), ("2026-11-24T05:10:48", 95.0)], "x")
    assert (same["first"], same["last"]) == ("2026-11-24T05:10:01", "2026-11-24T05:10:48")
    apart = html.trend([("2026-11-24T05:10:01", 90.0), ("2026-11-25T05:10:48", 95.0)], "x")
    assert (apart["first"], apart["last"]) == ("2026-11-24T05:10", "2026-11-25T05:10")


def test_the_page_escapes_every_text_of_the_results(tmp_path: Path) -> None:
    """report.html's templates escape what the results say as html.escape does (quotes as
    &quot; and &#x27;), in text and in attributes; no markup of the results gets through."""
    odd = "<b>\"x\" & 'y'</b>"
    said = "&lt;b&gt;&quot;x&quot; &amp; &#x27;y&#x27;&lt;/b&gt;"
    run = {"key": odd, "dut": "d", "n": 8, "sim": "icarus", "seed": 7, "status": "PASS",
           "wall_s": 0.5, "config": odd, "first_error": None, "tests": [odd]}
    summary = {"list": odd, "start": "2026-11-28T10:00:00+00:00", "git": odd, "passed": 1,
               "failed": 0, "skipped": 0, "wall_s": 1.0, "base_seed": 1, "runs": [run],
               "notes": [odd], "versions": {"sim": odd}}
    page = html.render(summary, tmp_path)
    assert odd not in page and "<b>\"" not in page
    for where in (f"<title>montverif regression {said}</title>", f"<p><b>{said}</b></p>",
                  f"<td>{said}</td><td>d</td>", f'title="{said}: PASS"',
                  f"<code>{said}</code> · started", f"tools: sim {said}; list {said},"):
        assert where in page, where
