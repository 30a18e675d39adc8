"""Tests of the regression list runner (regress/regression/runner.py, regress/report/).

All but one use a fake launcher that returns canned outcomes; `test_selftest_end_to_end`
(marked `sim`) builds and runs the tiny `selftest` list with Verilator.
"""

from __future__ import annotations

import json
import threading
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from junitparser import JUnitXml

from montverif.host.errors import ConfigError
from montverif.regress.cli import regress as regress_cli
from montverif.regress.flow import launcher as launchers
from montverif.regress.flow import simulate, spec
from montverif.regress.flow.spec import ALL_TESTS, BuildSpec, Outcome, RunSpec
from montverif.regress.mutate import campaigns
from montverif.regress.regression import lists as rlists
from montverif.regress.regression import scheduler, seeds
from montverif.spec.designs import known_designs

TWO_CONFIGS = """
[pair]
description = "two models, one shared by two entries"
[[pair.entry]]
dut = "mont_lut"
widths = [32, 64]
bus_widths = [32]
simulators = ["verilator"]
seeds = 2
txns = 4
[[pair.entry]]
dut = "mont_lut"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 1
txns = 2
tests = ["RandomTest"]
"""


class FakeLauncher:
    """Canned outcomes: runs whose key is in `fail` fail, builds in `broken` do not build."""

    def __init__(self, fail: tuple[str, ...] = (), broken: tuple[str, ...] = (),
                 invalid: tuple[str, ...] = ()) -> None:
        self.fail, self.broken, self.invalid = fail, broken, invalid
        self.built: list[str] = []
        self.ran: list[str] = []
        self.lock = threading.Lock()

    def check(self, run: RunSpec) -> None:
        if run.build.key in self.invalid:
            raise ConfigError(f"unsupported width N={run.build.n} for {run.build.dut}")

    def build(self, spec: BuildSpec) -> float:
        with self.lock:
            self.built.append(spec.key)
        if spec.key in self.broken:
            raise RuntimeError("Command failed with return code: 2\nsecond line")
        return 0.5

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        with self.lock:
            self.ran.append(run.key)
        log_dir.mkdir(parents=True)
        failing = any(run.key.startswith(f) for f in self.fail)
        write_results_xml(log_dir, run, "MISMATCH op 3: got 0x1 expected 0x2" if failing else "")
        if failing:
            return Outcome(run, False, log_dir, tests=5, failed=1, wall_s=0.25,
                           first_error="MISMATCH op 3: got 0x1 expected 0x2")
        return Outcome(run, True, log_dir, tests=5, wall_s=0.25)


def write_results_xml(log_dir: Path, run: RunSpec, error: str = "") -> None:
    """A results.xml as cocotb writes it: the run's tests, the first failing with `error`."""
    tests = spec.with_design_tests(run).tests
    cases = "".join(
        f'<testcase classname="montverif.verif.tb_mult" name="{t}" time="0.0{i}">'
        f'<properties><property name="random_seed" value="{run.seed}" /></properties>'
        + (f'<failure message="{error}" />' if error and not i else "") + "</testcase>"
        for i, t in enumerate(tests))
    (log_dir / "results.xml").write_text(
        f'<testsuites name="cocotb tests"><testsuite name="montverif.verif.tb_mult" '
        f'tests="{len(tests)}">{cases}</testsuite></testsuites>')


@pytest.fixture
def pair_file(tmp_path: Path) -> Path:
    path = tmp_path / "lists.toml"
    path.write_text(TWO_CONFIGS)
    return path


def run_main(tmp_path: Path, lists: Path, launcher: FakeLauncher, *extra: str,
             name: str = "pair") -> int:
    argv = ["--lists", str(lists), "regress", "--list", name, "--jobs", "2",
            "--out", str(tmp_path / "out"), *extra]
    return regress_cli.main(argv, launcher=launcher, results_root=tmp_path / "results")


def junit_cases(path: Path) -> list[ET.Element]:
    return list(ET.parse(path).getroot().iter("testcase"))


def property_of(case: ET.Element, name: str) -> str | None:
    return next((p.get("value") for p in case.iter("property") if p.get("name") == name), None)


# --- lists and expansion --------------------------------------------------------------------
def test_shipped_lists_expand() -> None:
    lists = rlists.load_lists()
    assert {"smoke", "nightly", "selftest"} <= set(lists)
    smoke = seeds.expand(lists["smoke"])
    assert {r.build.dut for r in smoke} == set(known_designs())  # every design, every PR
    assert all(r.txns <= 5 for r in smoke if r.build.n >= 1024)
    assert any(r.build.ack_wait for r in smoke) and {8, 32} <= {r.build.bus_w for r in smoke}
    assert len(seeds.expand(lists["selftest"])) == 2
    nightly = seeds.expand(lists["nightly"])
    assert {r.build.key for r in smoke} <= {r.build.key for r in nightly}
    assert max(r.build.n for r in nightly if r.build.sim == "icarus") <= 256
    assert max(r.build.n for r in nightly) == 2048
    assert any(e.diff_sims for e in lists["nightly"].entries)  # cross-simulator runs nightly


def test_shipped_lists_are_valid_runs() -> None:
    """Every run of every list passes regress.sim.validate (widths, bus widths, tests)."""
    launcher = launchers.LocalLauncher()
    for tlist in rlists.load_lists().values():
        runs = seeds.expand(tlist)
        assert len({r.key for r in runs}) == len(runs)
        for run in runs:  # as Verilator: the Icarus install is not what is checked here
            launcher.check(replace(run, build=replace(run.build, sim="verilator")))


def test_seeds_are_deterministic(pair_file: Path) -> None:
    tlist = rlists.get_list("pair", pair_file)
    first, again = seeds.expand(tlist), seeds.expand(tlist)
    assert [r.seed for r in first] == [r.seed for r in again]
    other = seeds.expand(tlist, base_seed=7)
    assert [r.seed for r in other] != [r.seed for r in first]
    assert all(1 <= r.seed < seeds.SEED_RANGE for r in first + other)


def test_expansion_counts_and_unique_builds(pair_file: Path) -> None:
    runs = seeds.expand(rlists.get_list("pair", pair_file))
    assert [r.build.key for r in runs] == ["mont_lut-n32-b32-verilator"] * 2 + [
        "mont_lut-n64-b32-verilator"] * 2 + ["mont_lut-n32-b32-verilator"]
    assert len({r.key for r in runs}) == 5  # the shared build got a third, new seed
    assert runs[-1].txns == 2 and runs[-1].tests == ("RandomTest",)
    assert runs[0].tests == ALL_TESTS
    assert [b.key for b in seeds.unique_builds(runs)] == ["mont_lut-n32-b32-verilator",
                                                       "mont_lut-n64-b32-verilator"]
    assert len(seeds.expand(rlists.get_list("pair", pair_file), seeds=4)) == 12
    assert seeds.expand(rlists.get_list("pair", pair_file), sims=["icarus"]) == []


def test_seed_collisions_are_skipped(pair_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seeds, "derive_seed", lambda base, key, index: 10 + index // 3)
    runs = seeds.expand(rlists.get_list("pair", pair_file))
    assert [r.seed for r in runs if r.build.n == 32] == [10, 11, 12]


def test_txns_from_n() -> None:
    entry = rlists.ListEntry("mont_lut", (32,), (32,), ("verilator",), 1, 100,
                     txns_from_n=((512, 40), (1024, 15)))
    assert [entry.txns_for(n) for n in (32, 511, 512, 1023, 1024, 4096)] == [
        100, 100, 40, 40, 15, 15]


GOOD_ENTRY: dict[str, str | None] = {"dut": '"mont_lut"', "widths": "[32]", "bus_widths": "[32]",
              "simulators": '["verilator"]', "seeds": "1", "txns": "1"}


@pytest.mark.parametrize(("patch", "message"), [
    ({"dut": None}, "missing dut"),
    ({"widths": None, "txns": None}, "missing widths, txns"),
    ({"dut": '"nope"'}, "dut: unknown nope"),
    ({"simulators": '["vcs"]'}, "simulators: unknown vcs"),
    ({"widths": "[]"}, "widths: expected a non-empty list"),
    ({"seeds": "0"}, "seeds: must be an integer 1..10000 (got 0)"),
    ({"seed": "3"}, "unknown key(s) seed"),
    ({"tests": '["Nope"]'}, "tests: unknown Nope"),
    ({"txns_from_n": "{ big = 2 }"}, "txns_from_n: expected a table"),
])
def test_bad_list_file(tmp_path: Path, patch: dict[str, str | None], message: str,
                       capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_block(tmp_path, "entry", GOOD_ENTRY | patch, message, capsys)


def assert_bad_block(tmp_path: Path, kind: str, keys: dict[str, str | None], message: str,
                     capsys: pytest.CaptureFixture[str]) -> None:
    """A list `[bad]` with one `[[bad.<kind>]]` block of these keys (None: left out) is
    refused when read (an entry by load_lists, a mutation block by the mutation layer's
    campaigns.of_list) and by `lists` with one `error:` line containing `message`."""
    body = "".join(f"{k} = {v}\n" for k, v in keys.items() if v is not None)
    path = tmp_path / "lists.toml"
    path.write_text(f"[bad]\n[[bad.{kind}]]\n{body}")
    with pytest.raises(rlists.ListError, match=f"bad.{kind}"):
        for tlist in rlists.load_lists(path).values():
            campaigns.of_list(tlist, path.name)
    assert regress_cli.main(["--lists", str(path), "lists"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


# --- running with a fake launcher -----------------------------------------------------------
def test_all_pass(tmp_path: Path, pair_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    launcher = FakeLauncher()
    assert run_main(tmp_path, pair_file, launcher) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "5 passed, 0 failed"
    assert sorted(launcher.built) == ["mont_lut-n32-b32-verilator",
                                      "mont_lut-n64-b32-verilator"]  # each model once
    assert len(launcher.ran) == 5
    assert err.count("] PASS mont_lut-") == 5 and "[5/5]" in err
    assert "(5 ok, 0 failed)" in err  # running counts on every progress line
    cases = junit_cases(tmp_path / "out" / "junit.xml")
    # one testcase per cocotb test: 4 runs of the 5 default tests, one of RandomTest alone
    assert len(cases) == 21 and not any(c.find("failure") is not None for c in cases)
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert root.tag == "testsuites" and root.get("tests") == "21" and root.get("failures") == "0"
    assert [s.get("name") for s in root.iter("testsuite")] == [
        "mont_lut-n32-b32-verilator", "mont_lut-n64-b32-verilator"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["list"] == "pair" and summary["passed"] == 5 and summary["failed"] == 0
    assert {"git", "versions", "start", "wall_s"} <= set(summary)
    first = summary["runs"][0]
    assert first["key"].endswith(f"-s{first['seed']}")
    assert first["repro"].startswith("montverif sim")
    assert Path(first["log_dir"]) == tmp_path / "out" / "runs" / first["key"]
    assert (tmp_path / "results" / "latest").resolve() == (tmp_path / "out").resolve()


def test_failure_is_reported(tmp_path: Path, pair_file: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    runs = seeds.expand(rlists.get_list("pair", pair_file))
    bad = runs[2]
    assert run_main(tmp_path, pair_file, FakeLauncher(fail=(bad.key,))) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "4 passed, 1 failed"
    assert f"FAIL {bad.key}: MISMATCH op 3" in out
    assert f"  repro: {bad.repro()}" in out
    failed = [c for c in junit_cases(tmp_path / "out" / "junit.xml")
              if c.find("failure") is not None]
    assert [(c.get("classname"), c.get("name")) for c in failed] == [
        ("mont_lut.n64-b32-verilator", "RandomTest[0]")]  # the run's failing cocotb test
    assert property_of(failed[0], "run") == bad.key
    assert property_of(failed[0], "seed") == str(bad.seed)
    failure = failed[0].find("failure")
    assert failure is not None
    assert failure.get("message") == "MISMATCH op 3: got 0x1 expected 0x2"
    assert f"repro: {bad.repro()}" in (failure.text or "")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [r["status"] for r in summary["runs"]].count("FAIL") == 1


def test_build_failure_fails_its_runs(tmp_path: Path, pair_file: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    launcher = FakeLauncher(broken=("mont_lut-n64-b32-verilator",))
    assert run_main(tmp_path, pair_file, launcher) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "3 passed, 2 failed"
    assert "Traceback" not in out + err
    assert "build failed: Command failed with return code: 2" in out
    assert not any("n64" in key for key in launcher.ran)


def test_fail_fast_skips_the_rest(tmp_path: Path, pair_file: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    launcher = FakeLauncher(fail=("mont_lut-n64",))
    argv = ["--lists", str(pair_file), "regress", "--list", "pair", "--jobs", "1", "--fail-fast",
            "--out", str(tmp_path / "out")]
    assert regress_cli.main(argv, launcher=launcher, results_root=tmp_path / "results") == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "0 passed, 1 failed"  # the widest model runs first
    assert "4 run(s) not started: --fail-fast" in out
    cases = junit_cases(tmp_path / "out" / "junit.xml")
    skipped = {property_of(c, "run") for c in cases if c.find("skipped") is not None}
    assert len(skipped) == 4  # every test of the 4 runs not started
    assert sum(c.find("skipped") is not None for c in cases) == 3 * 5 + 1


def test_unknown_list_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert regress_cli.main(["regress", "--list", "nope"], launcher=FakeLauncher(),
                   results_root=tmp_path) == 2
    err = capsys.readouterr().err
    known = ", ".join(sorted(rlists.load_lists()))
    assert err == f"error: unknown list 'nope' (known: {known})\n"
    assert not any(tmp_path.iterdir())


def test_invalid_run_is_bad_input(tmp_path: Path, pair_file: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    launcher = FakeLauncher(invalid=("mont_lut-n64-b32-verilator",))
    assert run_main(tmp_path, pair_file, launcher) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: mont_lut-n64-b32-verilator-s") and err.count("\n") == 1
    assert launcher.built == []


def test_default_results_folder(tmp_path: Path, pair_file: Path) -> None:
    argv = ["--lists", str(pair_file), "regress", "--list", "pair", "--seeds", "1"]
    root = tmp_path / "results"
    assert regress_cli.main(argv, launcher=FakeLauncher(), results_root=root) == 0
    assert regress_cli.main(argv, launcher=FakeLauncher(), results_root=root) == 0
    folders = sorted(p.name for p in root.iterdir() if p.name != "latest" and p.is_dir())
    assert len(folders) == 2 and all(f.startswith("pair-") for f in folders)
    latest = root / "latest"
    assert latest.is_symlink() and not Path(latest.readlink()).is_absolute()
    assert (latest / "junit.xml").exists()


def test_list_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert regress_cli.main(["lists"]) == 0
    lines = capsys.readouterr().out.splitlines()
    smoke = next(line for line in lines if line.startswith("smoke "))
    runs = seeds.expand(rlists.load_lists()["smoke"])
    assert f"{len(runs)} runs" in smoke and f"{len(seeds.unique_builds(runs))} builds" in smoke
    assert regress_cli.main(["lists", "selftest"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


# --- the real thing -------------------------------------------------------------------------
@pytest.mark.sim
def test_selftest_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["regress", "--list", "selftest", "--jobs", "2", "--out", str(tmp_path / "out")]
    assert regress_cli.main(argv, results_root=tmp_path / "results") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 passed, 0 failed"
    cases = junit_cases(tmp_path / "out" / "junit.xml")
    runs = {str(property_of(c, "run")) for c in cases}
    assert len(runs) == 2
    for run in runs:  # one testcase per test of cocotb's own results.xml, with its time
        mine = {c.get("name", "").split("[")[0]: c for c in cases if property_of(c, "run") == run}
        cocotb = ET.parse(tmp_path / "out" / "runs" / run / "results.xml").getroot()
        assert {str(c.get("name")): c.get("time") for c in cocotb.iter("testcase")} == \
            {name: c.get("time") for name, c in mine.items()}
    assert all(c.find("failure") is None and c.find("skipped") is None for c in cases)


def _waves_key(run: RunSpec) -> str:
    return replace(run, build=replace(run.build, waves=True)).key


@pytest.mark.parametrize("reproduces", [True, False])
def test_failing_seed_is_rerun_with_waves(tmp_path: Path, pair_file: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          reproduces: bool) -> None:
    runs = seeds.expand(rlists.get_list("pair", pair_file))
    bad = runs[1]
    fail = (bad.key, _waves_key(bad)) if reproduces else (bad.key,)
    launcher = FakeLauncher(fail=fail)
    assert run_main(tmp_path, pair_file, launcher) == 1
    out = capsys.readouterr().out
    assert _waves_key(bad) in launcher.ran  # the same seed, on the traced build
    assert len(launcher.ran) == len(runs) + 1  # only the failure is rerun
    verdict = "fails the same way" if reproduces else "PASSED: the failure did not reproduce"
    assert verdict in out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    rerun = next(r for r in summary["runs"] if r["key"] == bad.key)["rerun"]
    assert rerun["key"] == _waves_key(bad) and rerun["same_failure"] is reproduces
    assert out.splitlines()[-1] == f"{len(runs) - 1} passed, 1 failed"  # reruns not counted


PARAM_LIST = """
[sweep]
[[sweep.entry]]
dut = "mwr2mm"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 1
txns = 2
params = [{ W = 8, P = 2 }, { W = 16 }]
"""


def test_params_expand_into_builds_keys_and_repro(tmp_path):
    path = tmp_path / "lists.toml"
    path.write_text(PARAM_LIST)
    runs = seeds.expand(rlists.load_lists(path)["sweep"])
    keys = sorted(r.build.key for r in runs)
    assert keys == ["mwr2mm-n32-P2-W8-b32-verilator", "mwr2mm-n32-W16-b32-verilator"]
    repro = next(r for r in runs if r.build.params == (("P", 2), ("W", 8))).repro()
    assert "--params P=2,W=8" in repro


def test_bad_params_in_a_list_and_unknown_parameter(tmp_path):
    path = tmp_path / "lists.toml"
    path.write_text(PARAM_LIST.replace("{ W = 16 }", "{ W = \"x\" }"))
    with pytest.raises(rlists.ListError, match="params: mwr2mm: W=x: expected an integer"):
        rlists.load_lists(path)
    path.write_text(PARAM_LIST.replace("{ W = 16 }", "{ Q = 16 }"))
    with pytest.raises(rlists.ListError, match="mwr2mm has no parameter"):
        rlists.load_lists(path)
    from montverif.regress.flow.check import validate
    with pytest.raises(ConfigError, match="mont_lut has no parameter"):
        validate(RunSpec(BuildSpec("mont_lut", 32, params=(("W", 8),))))


def test_entry_bias_reaches_runs_and_repro(tmp_path):
    """A list entry's `bias` steers every run of it: in the RunSpec, the child's MV_BIAS
    and the repro line; a malformed bias is a one-line list error."""
    path = tmp_path / "lists.toml"
    path.write_text(PARAM_LIST.replace("params = [{ W = 8, P = 2 }, { W = 16 }]",
                                       'bias = { p = 0.5, targets = [{ m = "short" }] }'))
    runs = seeds.expand(rlists.load_lists(path)["sweep"])
    assert runs and all(json.loads(r.bias) == {"p": 0.5, "targets": [{"m": "short"}]}
                        for r in runs)
    assert " --bias '{" in runs[0].repro()
    path.write_text(PARAM_LIST.replace("params = [{ W = 8, P = 2 }, { W = 16 }]",
                                       'bias = { targets = [{ m = "tiny" }] }'))
    with pytest.raises(rlists.ListError, match="bias"):
        rlists.load_lists(path)


def test_check_thread_only_with_a_spare_core_for_every_simulation(monkeypatch):
    """The scoreboard's checker thread is on for Verilator engine runs when each simulation
    this process runs at once can have two cores; MV_CHECK_THREAD=0/1 decides instead; any
    other value is a clear error; `parallel` tells it how many run at once."""
    engine = spec.RunSpec(spec.BuildSpec("mont_lut", 32, 32, "verilator", bus="engine"))
    pins = spec.RunSpec(spec.BuildSpec("mont_lut", 32, 32, "verilator"))
    icarus = spec.RunSpec(spec.BuildSpec("mont_lut", 32, 32, "icarus", bus="engine"))
    monkeypatch.delenv("MV_CHECK_THREAD", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    monkeypatch.setattr(simulate.os, "sched_getaffinity", lambda pid: {0, 1})
    assert simulate.check_thread(engine)
    assert not simulate.check_thread(pins) and not simulate.check_thread(icarus)
    monkeypatch.setattr(simulate.os, "sched_getaffinity", lambda pid: {0})
    assert not simulate.check_thread(engine)
    monkeypatch.setenv("MV_CHECK_THREAD", "1")
    assert simulate.check_thread(engine)
    monkeypatch.setenv("MV_CHECK_THREAD", "yes")
    with pytest.raises(ConfigError, match="MV_CHECK_THREAD='yes'"):
        simulate.check_thread(engine)
    monkeypatch.delenv("MV_CHECK_THREAD")
    monkeypatch.setattr(simulate.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert not simulate.check_thread(engine)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT")
    seen = scheduler.parallel(lambda item: simulate.check_thread(engine), [1, 2], 2,
                        lambda item, result: True)[0]
    assert seen == {1: False, 2: False}  # two at once on two cores
    assert scheduler.parallel(lambda item: simulate.check_thread(engine), [1], 2,
                        lambda item, result: True)[0] == {1: True}
    assert simulate.CONCURRENT_JOBS == 1


def _read_junit(path: Path) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """(classname, name) of every testcase and the root's counts, read by junitparser (an
    independent reader), after checking that the counts written are those of the cases."""
    xml = JUnitXml.fromfile(str(path))
    written = {k: int(getattr(xml, k)) for k in ("tests", "failures", "errors", "skipped")}
    xml.update_statistics()  # recount from the testcases
    assert {k: int(getattr(xml, k)) for k in written} == written
    return [(case.classname, case.name) for suite in xml for case in suite], written


def test_junit_names_outlive_the_seeds(tmp_path: Path, pair_file: Path) -> None:
    """Another base seed gives other seeds and the same testcase names, each name once."""
    outs = []
    for base, extra in (("1", []), ("7", []), ("9", ["--code-coverage"])):
        argv = ["--lists", str(pair_file), "regress", "--list", "pair", "--jobs", "2",
                "--seed", base, "--out", str(tmp_path / base), *extra]
        assert regress_cli.main(argv, launcher=FakeLauncher(),
                                results_root=tmp_path / "results") == 0
        outs.append(tmp_path / base / "junit.xml")
    (names, counts), (names7, _), (names_cov, _) = (_read_junit(p) for p in outs)
    assert counts == {"tests": 21, "failures": 0, "errors": 0, "skipped": 0}
    assert len(set(names)) == len(names) == 21  # no two testcases share a name
    assert names == names7 == names_cov  # nor with a coverage build
    assert ("mont_lut.n32-b32-verilator", "RandomTest[2]") in names  # the 2nd entry's run
    seeds1, seeds7 = ({property_of(c, "seed") for c in junit_cases(p)} for p in outs[:2])
    assert seeds1.isdisjoint(seeds7)


def test_junit_of_a_run_without_results(tmp_path: Path, pair_file: Path) -> None:
    """A build failure leaves no results.xml: each test of its runs is an error."""
    launcher = FakeLauncher(broken=("mont_lut-n64-b32-verilator",))
    assert run_main(tmp_path, pair_file, launcher) == 1
    names, counts = _read_junit(tmp_path / "out" / "junit.xml")
    assert counts == {"tests": 21, "failures": 0, "errors": 10, "skipped": 0}
    errors = [c for c in junit_cases(tmp_path / "out" / "junit.xml") if c.find("error") is not None]
    assert {c.get("classname") for c in errors} == {"mont_lut.n64-b32-verilator"}
    assert all("build failed" in (c.find("error").get("message") or "")  # type: ignore[union-attr]
               for c in errors)
