"""The nightly's fresh stimulus (issue 30): its base seed comes from the date or the CI run
number, is printed, recorded and reported; another base seed gives other run seeds and other
mutants; a failure's printed repro reproduces it; the CI summary page (Markdown)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
import yaml

from montverif.host import environment
from montverif.host.paths import ROOT
from montverif.regress.cli import regress as regress_cli
from montverif.regress.flow import launcher as launchers
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.mutate import campaigns
from montverif.regress.regression import runner, scheduler
from montverif.regress.regression.lists import LISTS_FILE, get_list
from montverif.regress.regression.seeds import BaseSeed, expand, resolve_base_seed
from montverif.regress.report import markdown
from montverif.regress.report import write as report_write
from montverif.regress.report.text import format_summary
from montverif.regress.tests.test_run import FakeLauncher

DAY = date(2026, 11, 24)
LIST = """
[tiny]
[[tiny.entry]]
dut = ["mont_lut", "mont_r2"]
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 3
txns = 4
"""


# --- where the base seed comes from ---------------------------------------------------------
@pytest.mark.parametrize(("text", "run_number", "expected"), [
    ("7", None, BaseSeed(7)),
    ("date", None, BaseSeed(20261124, "date 2026-11-24")),
    ("date:2026-01-05", None, BaseSeed(20260105, "date 2026-01-05")),
    ("run", "57", BaseSeed(57, "run number 57")),
])
def test_base_seed_from_a_number_the_date_or_the_run(text: str, run_number: str | None,
                                                     expected: BaseSeed) -> None:
    assert resolve_base_seed(text, DAY, run_number) == expected


@pytest.mark.parametrize(("text", "run_number", "message"), [
    ("run", None, "--seed run: no CI run number (GITHUB_RUN_NUMBER is unset)"),
    ("run", "abc", "--seed run: no CI run number (GITHUB_RUN_NUMBER is 'abc')"),
    ("date:2026-13-01", None, "--seed date:2026-13-01: not a date"),
    ("4294967296", None, "--seed must be 0..2^32-1"),
    ("tomorrow", None, "--seed must be an integer, date, date:YYYY-MM-DD or run"),
])
def test_bad_base_seed_is_one_line(text: str, run_number: str | None, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")
                       .replace("^", r"\^").replace(".", r"\.")):
        resolve_base_seed(text, DAY, run_number)


def test_consecutive_nights_have_other_base_seeds() -> None:
    days = [resolve_base_seed("date", date(2026, 11, d), None).value for d in (23, 24, 25)]
    assert len(set(days)) == 3


# --- another base seed: other run seeds, other mutants --------------------------------------
def test_two_base_seeds_give_other_run_seeds_and_the_same_models() -> None:
    nightly = get_list("nightly", LISTS_FILE)
    a, b = expand(nightly, 20261124), expand(nightly, 20261125)
    assert [r.build.key for r in a] == [r.build.key for r in b]  # the same models, in order
    same = sum(x.seed == y.seed for x, y in zip(a, b, strict=True))
    assert same <= len(a) // 100, f"{same} of {len(a)} runs kept their seed"
    assert [r.seed for r in expand(nightly, 20261124)] == [r.seed for r in a]  # replayable


def test_two_base_seeds_rotate_the_mutants() -> None:
    specs = campaigns.of_list(get_list("nightly", LISTS_FILE))
    assert specs, "the nightly list has mutation campaigns"
    night1 = {c.dut: c for c in campaigns.plan(specs, 20261124)}
    night2 = {c.dut: c for c in campaigns.plan(specs, 20261125)}
    assert all(night1[d].seed != night2[d].seed for d in night1)
    rotated = 0
    for dut, spec1 in night1.items():
        sites, picked1 = campaigns.sample(spec1)
        picked2 = campaigns.sample(night2[dut])[1]
        assert len(picked1) == len(picked2) == min(spec1.mutants, sites)
        if sites > spec1.mutants:  # a sample: another night, others (else all, every night)
            assert [m.site for m in picked1] != [m.site for m in picked2], dut
            rotated += 1
        assert [m.site for m in campaigns.sample(spec1)[1]] == [m.site for m in picked1]
    assert rotated >= len(night1) // 2


# --- printed, recorded, reported ------------------------------------------------------------
def _regress(tmp_path: Path, *extra: str, launcher: FakeLauncher | None = None) -> int:
    lists = tmp_path / "lists.toml"
    lists.write_text(LIST)
    argv = ["--lists", str(lists), "regress", "--list", "tiny", "--jobs", "1",
            "--out", str(tmp_path / "out"), "--rerun-waves", "0", *extra]
    return regress_cli.main(argv, launcher=launcher or FakeLauncher(),
                            results_root=tmp_path / "results")


def test_the_date_seed_is_printed_recorded_and_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    failing = FakeLauncher(fail=("mont_r2",))
    assert _regress(tmp_path, "--seed", "date:2026-11-24", launcher=failing) == 1
    err = capsys.readouterr().err
    assert "tiny: base seed 20261124 (from the date 2026-11-24); replay with --seed 20261124" \
        in err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["base_seed"] == 20261124
    assert summary["base_seed_source"] == "date 2026-11-24"
    assert "base seed 20261124 (from the date 2026-11-24)" in \
        (tmp_path / "out" / "report.html").read_text()
    # every failure names its own seed in its repro
    fails = [r for r in summary["runs"] if r["status"] == "FAIL"]
    assert len(fails) == 3
    assert all(f"--seed {r['seed']} " in r["repro"] for r in fails)


def test_the_run_number_seed(tmp_path: Path) -> None:
    with environment.CI_RUN_NUMBER.set_to("57"):
        assert _regress(tmp_path, "--seed", "run") == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (summary["base_seed"], summary["base_seed_source"]) == (57, "run number 57")
    ref = expand(get_list("tiny", tmp_path / "lists.toml"), 57)
    assert [r["seed"] for r in summary["runs"]] == [r.seed for r in ref]


def test_a_bad_seed_is_one_line_exit_2(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert _regress(tmp_path, "--seed", "someday") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --seed must be an integer") and err.count("\n") == 1


# --- the CI summary page --------------------------------------------------------------------
def test_markdown_summary_has_designs_buckets_repros_seed_and_coverage(tmp_path: Path) -> None:
    assert _regress(tmp_path, "--seed", "date:2026-11-24",
                    launcher=FakeLauncher(fail=("mont_r2",))) == 1
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    coverage = {"runs": 3, "enforce": True, "duts": {"mont_lut": {
        "covered": 10, "total": 12, "percent": 83.33, "goal": 100.0, "met": False,
        "uncovered": ["mont_lut.lut.addr:5", "mont_lut.lut.addr:9"]}},
        "overall": {"covered": 10, "total": 12, "percent": 83.33}}
    text = markdown.render(summary, coverage)
    assert text.startswith("## montverif regression `tiny`: ❌ FAILED\n")
    assert "Base seed **20261124** (from the date 2026-11-24)" in text
    assert "| `mont_lut` | ✅ pass | 3 | 0 | 0 |" in text
    assert "| `mont_r2` | ❌ fail | 0 | 3 | 0 |" in text
    bucket = summary["buckets"][0]
    assert f"     {bucket['repro']}\n" in text and "--seed " in bucket["repro"]
    assert "| `mont_lut` | 10 / 12 | 83.3 % ❌ | 100 % | `lut.addr:5`, `lut.addr:9` |" in text
    # a list without goals (smoke) shows a shortfall without failing it
    assert "| 83.3 % (below goal) |" in markdown.render(summary, coverage | {"enforce": False})
    # the command line prints the same from the folder (no coverage merged: says so)
    out = subprocess.run([sys.executable, "-m", "montverif.regress.cli", "report",
                          str(tmp_path / "out"), "--markdown"], capture_output=True, text=True,
                         check=False, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "| `mont_r2` | ❌ fail | 0 | 3 | 0 |" in out.stdout


def test_markdown_of_a_folder_without_summary_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "montverif.regress.cli", "report",
                          str(tmp_path), "--markdown"], capture_output=True, text=True,
                         check=False, cwd=ROOT)
    assert out.returncode == 2 and out.stderr.startswith("error: ") \
        and out.stderr.count("\n") == 1


# --- the CI scripts ---------------------------------------------------------------------------
def _shard(tmp_path: Path, index: int, seed: str) -> Path:
    lists = tmp_path / "lists.toml"
    lists.write_text(LIST)
    out = tmp_path / f"shard-{index}"
    argv = ["--lists", str(lists), "regress", "--list", "tiny", "--jobs", "1", "--shard",
            f"{index}/2", "--seed", seed, "--out", str(out)]
    assert regress_cli.main(argv, launcher=FakeLauncher(fail=("mont_r2",)),
                            results_root=tmp_path / "results") in (0, 1)
    return out


def _merge_script(tmp_path: Path, *shards: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "step.md"),
           "HISTORY": str(tmp_path / "history.jsonl")}
    return subprocess.run(["bash", str(ROOT / "ci" / "nightly-merge.sh"), str(tmp_path / "night"),
                           *map(str, shards)], capture_output=True, text=True, check=False,
                          env=env)


def test_the_merge_script_writes_the_job_summary(tmp_path: Path) -> None:
    """Two shards of one night (the same date seed) merge into one regression whose Markdown
    summary lands in the job summary, with the night's seed and the failures' repros."""
    shards = [_shard(tmp_path, i, "date:2026-11-24") for i in (1, 2)]
    res = _merge_script(tmp_path, *shards)
    assert res.returncode == 1, res.stdout + res.stderr  # mont_r2's runs fail
    page = (tmp_path / "step.md").read_text()
    assert page == (tmp_path / "night" / "summary.md").read_text()
    assert "Base seed **20261124** (from the date 2026-11-24)" in page
    assert "| `mont_r2` | ❌ fail | 0 | 3 | 0 |" in page and "--seed " in page
    assert len((tmp_path / "history.jsonl").read_text().splitlines()) == 1


def test_shards_of_two_nights_are_not_merged(tmp_path: Path) -> None:
    shards = [_shard(tmp_path, 1, "date:2026-11-24"), _shard(tmp_path, 2, "date:2026-11-25")]
    res = _merge_script(tmp_path, *shards)
    assert res.returncode == 2
    assert [ln for ln in res.stderr.splitlines() if ln.startswith("error:")] == [
        "error: shards of different regressions: tiny (seed 20261124), tiny (seed 20261125)"]
    assert not (tmp_path / "step.md").exists()


def test_the_shard_script_refuses_bad_arguments() -> None:
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-shard.sh"), "1"],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 2 and res.stderr == "error: ci/nightly-shard.sh I K [SEED] [OUT]\n"


# --- the printed repro reproduces the failure (real simulations) ----------------------------
@pytest.mark.sim
def test_the_printed_repro_reproduces_a_failure(tmp_path: Path) -> None:
    """A fault build fails in a regression; its recorded repro, run as printed (through the
    real command line), fails with the same first error."""
    runs = [RunSpec(BuildSpec("mont_r2", 8, sim="icarus", fault=True), seed=4242, txns=6,
                    tests=("RandomTest",))]
    reg = runner.regress(launchers.LocalLauncher(), "fault", runs,
                         scheduler.ScheduleOptions(1, False, 0), tmp_path / "reg", 20261124)
    report_write.write_all(reg)
    record = json.loads((tmp_path / "reg" / "summary.json").read_text())["runs"][0]
    assert record["status"] == "FAIL" and record["first_error"]
    assert f"  repro: {record['repro']}\n" in format_summary(reg) + "\n"  # as printed
    argv = shlex.split(record["repro"])
    assert argv[0] == "montverif" and argv[argv.index("--seed") + 1] == "4242"
    montverif = Path(sys.executable).parent / "montverif"
    res = subprocess.run([str(montverif), *argv[1:], "--out", str(tmp_path / "repro")],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    assert res.returncode == 1, res.stdout + res.stderr
    again = json.loads((tmp_path / "repro" / "outcome.json").read_text())
    assert again["first_error"] == record["first_error"]


# --- the nightly's long tests (ci/nightly-tests.sh, make test-nightly) -----------------------
@pytest.mark.parametrize(("args", "why"), [
    (("a", "1/2", "extra"), ""),
    (("a", "two"), ": shard 'two' is not I/K"),
    (("a", "3/2"), ": shard 3/2: I above K"),
    (("a", "0/2"), ": shard '0/2' is not I/K"),
])
def test_the_tests_script_refuses_bad_arguments(args: tuple[str, ...], why: str) -> None:
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-tests.sh"), *args],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 2 and res.stderr == f"error: ci/nightly-tests.sh [OUT [I/K]]{why}\n"


def test_the_nightly_runs_the_long_tests_and_uploads_their_junit() -> None:
    flow = (ROOT / ".github" / "workflows" / "nightly.yml").read_text()
    job = flow[flow.index("\n  tests:\n"):]
    job = job[:job.index("\n  # ", 1)]
    assert "shard: [1, 2, 3]" in job
    assert ('run: ci/nightly-tests.sh "nightly-tests-${{ matrix.shard }}" '
            '"${{ matrix.shard }}/3"') in job
    assert "nightly-tests-${{ matrix.shard }}/junit.xml" in job
    makefile = (ROOT / "Makefile").read_text()
    assert '-m "$(TEST_MARKS)"' in makefile and "TEST_MARKS ?= not nightly" in makefile
    assert "-m nightly $(if $(TEST_SHARD),--test-shard $(TEST_SHARD))" in makefile


@pytest.mark.nightly(seconds=20)
@pytest.mark.sim
@pytest.mark.synth  # the script's set-up (ci/setup.sh) checks the synthesis tools
def test_the_tests_script_runs_a_nightly_test_and_writes_its_junit(tmp_path: Path) -> None:
    """One long test (a design's second [test] point) through the script: exit 0 and the
    JUnit XML names it; `make test`'s selection leaves it out."""
    node = "verif/tests/test_designs_sim.py::test_icarus[mont_r2-n97-b8]"
    env = {k: v for k, v in os.environ.items() if k != "MAKEFLAGS"}
    env["PYTEST_ARGS"] = f"-q -p no:cacheprovider '{node}'"
    out = tmp_path / "tests"
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-tests.sh"), str(out)], cwd=ROOT,
                         env=env, capture_output=True, text=True, check=False, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "1 passed" in (out / "pytest.txt").read_text()
    assert 'name="test_icarus[mont_r2-n97-b8]"' in (out / "junit.xml").read_text()
    quick = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "--collect-only", "-m", "not nightly", node], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert "1 deselected" in quick.stdout, quick.stdout
    env["PYTEST_ARGS"] = "-q -p no:cacheprovider verif/tests/test_designs_sim.py::nowhere"
    missing = subprocess.run(["bash", str(ROOT / "ci" / "nightly-tests.sh"), str(out)], cwd=ROOT,
                             env=env, capture_output=True, text=True, check=False, timeout=900)
    assert missing.returncode == 1, missing.stdout[-2000:] + missing.stderr[-2000:]


def test_every_sharded_job_runs_each_of_its_shards_once() -> None:
    """A job with a `shard` matrix tells its script I/K with K the matrix's size, and names
    its artifact by the shard (the merge downloads every shard's)."""
    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "nightly.yml").read_text())
    sharded = {name: job for name, job in flow["jobs"].items()
               if "shard" in job.get("strategy", {}).get("matrix", {})}
    assert {"shard", "tests", "formal"} <= set(sharded)
    for name, job in sharded.items():
        count = len(job["strategy"]["matrix"]["shard"])
        assert job["strategy"]["matrix"]["shard"] == list(range(1, count + 1)), name
        runs = " ".join(step.get("run", "") for step in job["steps"])
        shard = r'"\$\{\{ matrix\.shard \}\}'
        told = re.findall(shard + r'/(\d+)"|' + shard + r'" "\$(\w+)"', runs)
        assert told, name
        for k, var in told:
            assert int(k or flow["env"][var]) == count, name
        uploads = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload")]
        assert uploads and all("${{ matrix.shard }}" in s["with"]["name"] for s in uploads), name
