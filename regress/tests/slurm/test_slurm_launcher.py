"""The Slurm launcher against a real single-node cluster (conftest.py starts it): part of
the smoke list gives the same verdicts and transaction logs as the local launcher with the
same seeds; a failing seed is bucketed and rerun with waves as locally; a job the cluster
ends is resubmitted once and then reported as an infrastructure error, never as a verdict;
an interrupt cancels what was submitted; bad input is one `error:` line."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.host.paths import ROOT, sim_builds
from montverif.regress.flow.launcher import INFRA, LocalLauncher
from montverif.regress.flow.slurm import SlurmLauncher
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.regression import runner, scheduler
from montverif.regress.regression.diffsim import transactions
from montverif.regress.regression.results import ERROR, FAIL, PASS
from montverif.regress.report import markdown
from montverif.regress.report.text import final_line, format_summary
from montverif.regress.report.write import write_all
from montverif.regress.tests.slurm.cluster import PARTITION, LocalCluster, free_port

pytestmark = pytest.mark.sim
MONTVERIF = str(Path(sys.executable).parent / "montverif")
SUBSET = ["--list", "smoke", "--dut", "mont_r2", "--dut", "inter_r2", "--seeds", "1"]


def _regress(cluster: LocalCluster, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MONTVERIF, "regress", *args], capture_output=True, text=True,
                          env=cluster.env, cwd=ROOT, check=False, timeout=900)


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def _junit_names(folder: Path) -> list[str]:
    root = ET.parse(folder / "junit.xml").getroot()
    return sorted(f"{c.get('classname')}.{c.get('name')}" for c in root.iter("testcase"))


def test_smoke_subset_same_as_local(cluster: LocalCluster, tmp_path: Path) -> None:
    """The same seeds through Slurm and on this machine: the same runs, verdicts, tests,
    transaction logs (timing aside), JUnit names and merged coverage; the Slurm runs ran as
    one job array, two runs per task, on the cluster's node."""
    slurm = _regress(cluster, *SUBSET, "--launcher", "slurm", "--partition", PARTITION,
                     "--runs-per-task", "2", "--out", str(tmp_path / "slurm"))
    local = _regress(cluster, *SUBSET, "--jobs", "2", "--out", str(tmp_path / "local"))
    assert local.returncode == slurm.returncode, slurm.stderr[-2000:]
    a, b = _summary(tmp_path / "local"), _summary(tmp_path / "slurm")
    runs_a = {r["key"]: r for r in a["runs"]}
    runs_b = {r["key"]: r for r in b["runs"]}
    assert sorted(runs_a) == sorted(runs_b) and len(runs_a) == 4
    for key, ra in runs_a.items():
        rb = runs_b[key]
        assert (ra["status"], ra["tests_run"], ra["tests_failed"]) == \
            (rb["status"], rb["tests_run"], rb["tests_failed"]), key
        txa = transactions(Path(ra["log_dir"]))
        assert txa and txa == transactions(Path(rb["log_dir"])), key
    assert _junit_names(tmp_path / "local") == _junit_names(tmp_path / "slurm")
    cov_a = json.loads((tmp_path / "local" / "coverage" / "summary.json").read_text())
    cov_b = json.loads((tmp_path / "slurm" / "coverage" / "summary.json").read_text())
    assert cov_a["overall"]["covered"] == cov_b["overall"]["covered"] > 0
    # really through the cluster: one array of two tasks, each run's result names the node
    assert slurm.stderr.count(": 4 run(s) in 2 task(s)") == 1, slurm.stderr[-2000:]
    (array,) = (tmp_path / "slurm" / "slurm").glob("run-*")
    assert [len(t) for t in json.loads((array / "tasks.json").read_text())["tasks"]] == [2, 2]
    results = sorted(array.glob("result-*.json"))
    assert len(results) == 4
    assert {json.loads(p.read_text())["node"] for p in results} == {cluster.host}


def test_only_stale_builds_are_submitted(cluster: LocalCluster, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A model that is up to date is reported at once (0 s) without a job; a stale one is
    built by a job; built, it is not submitted again."""
    built, stale = BuildSpec("mont_r2", 10, sim="icarus"), BuildSpec("mont_r2", 12, sim="icarus")
    LocalLauncher().build(built)
    shutil.rmtree(sim_builds() / stale.key, ignore_errors=True)
    launcher = SlurmLauncher(PARTITION, work_dir=tmp_path / "slurm", poll_s=0.3)
    got: dict[str, float] = {}

    def done(spec: BuildSpec, seconds: float, error: str) -> bool:
        assert not error, error
        got[spec.key] = seconds
        return True

    assert launcher.build_many([built, stale], done) == ""
    assert got[built.key] == 0.0 and got[stale.key] > 0.0
    assert capsys.readouterr().err.count(": 1 build(s) in 1 task(s)") == 1
    assert launcher.build_many([built, stale], done) == ""
    assert got[stale.key] == 0.0 and "slurm: job" not in capsys.readouterr().err


@pytest.mark.nightly(seconds=15)
def test_failure_is_bucketed_and_rerun_with_waves(cluster: LocalCluster, tmp_path: Path) -> None:
    """A fault build fails through Slurm as it does locally: FAIL with its first error and
    repro, its traced rerun fails the same way and leaves waves; the good seed passes."""
    runs = [RunSpec(BuildSpec("mont_r2", 8, sim="icarus", fault=True), seed=4242, txns=6,
                    tests=("RandomTest",)),
            RunSpec(BuildSpec("mont_r2", 8, sim="icarus"), seed=4242, txns=6,
                    tests=("RandomTest",))]
    out = tmp_path / "reg"
    launcher = SlurmLauncher(PARTITION, work_dir=out / "slurm", poll_s=0.3)
    reg = runner.regress(launcher, "fault", runs, scheduler.ScheduleOptions(2, False, 1), out, 7)
    write_all(reg)
    bad, good = reg.results
    assert (bad.status, good.status) == (FAIL, PASS)
    assert bad.first_error and bad.rerun is not None and bad.rerun.same_as(bad.first_error)
    assert bad.rerun.waves is not None and bad.rerun.waves.stat().st_size > 0
    summary = _summary(out)
    assert summary["buckets"] and summary["buckets"][0]["count"] == 1
    assert f"  repro: {bad.run.repro()}" in format_summary(reg)


def _killer(cluster: LocalCluster, kills: list[Callable[[str], None]]) -> threading.Thread:
    """A thread that ends the next running run task with each of `kills` in turn (the
    cluster's own ways of ending a job), one task per kill."""
    def watch() -> None:
        deadline = time.monotonic() + 300
        seen: set[str] = set()
        while kills and time.monotonic() < deadline:
            got = subprocess.run(["squeue", "-h", "-r", "-o", "%i %j %T"], capture_output=True,
                                 text=True, env=cluster.env, check=False).stdout
            for line in got.splitlines():
                task, name, state = line.split()
                if name.startswith("mv-run") and state == "RUNNING" and task not in seen:
                    time.sleep(1.0)  # inside the simulation
                    seen.add(task)
                    kills.pop(0)(task)
                    break
            time.sleep(0.1)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _cancel(cluster: LocalCluster) -> Callable[[str], None]:
    def kill(task: str) -> None:
        subprocess.run(["scancel", task], env=cluster.env, check=True)
    return kill


def _node_failure(cluster: LocalCluster) -> Callable[[str], None]:
    """The node goes down under the job (NODE_FAIL); its slurmd registers again and the
    cluster (ReturnToService=2) takes it back."""
    def kill(_task: str) -> None:
        cluster.scontrol("update", f"NodeName={cluster.host}", "State=DOWN",
                         "Reason=montverif-test")
        deadline = time.monotonic() + 60
        while cluster.sinfo_state() != "idle" and time.monotonic() < deadline:
            time.sleep(0.5)
    return kill


def _one_run(tmp_path: Path) -> tuple[list[RunSpec], Path, SlurmLauncher]:
    # long enough that _killer's kill, a second after the task starts running, lands inside
    # the simulation on a fast machine too (300 operations took 0.6 s, and the kill missed)
    runs = [RunSpec(BuildSpec("mont_r2", 32), seed=11, txns=4000, tests=("RandomTest",))]
    out = tmp_path / "reg"
    return runs, out, SlurmLauncher(PARTITION, work_dir=out / "slurm", poll_s=0.3)


@pytest.mark.nightly(seconds=10)
def test_job_the_cluster_ends_twice_is_an_infrastructure_error(cluster: LocalCluster,
                                                                tmp_path: Path) -> None:
    """Cancelled, resubmitted, then lost with its node: ERROR (no verdict) naming both,
    an `error` of type infrastructure in JUnit, counted apart in the last line."""
    runs, out, launcher = _one_run(tmp_path)
    killer = _killer(cluster, [_cancel(cluster), _node_failure(cluster)])
    reg = runner.regress(launcher, "infra", runs, scheduler.ScheduleOptions(1, False, 3), out, 7)
    killer.join(timeout=60)
    write_all(reg)
    (res,) = reg.results
    assert res.status == ERROR and not reg.passed, res.first_error
    assert res.first_error.startswith(INFRA) and "CANCELLED" in res.first_error
    assert "NODE_FAIL" in res.first_error
    assert res.rerun is None  # no wave rerun of an infrastructure error
    assert final_line(reg) == "0 passed, 0 failed, 1 infrastructure error(s)"
    errors = [e for e in ET.parse(out / "junit.xml").getroot().iter("error")]
    assert errors and {e.get("type") for e in errors} == {"infrastructure"}
    assert _summary(out)["errors"] == 1 and _summary(out)["failed"] == 0
    page = markdown.render_folder(out)
    assert "INCOMPLETE" in page and "1 infrastructure error(s)" in page
    assert 'data-status="ERROR"' in (out / "report.html").read_text()


@pytest.mark.nightly(seconds=15)
def test_task_ended_once_is_resubmitted_and_passes(cluster: LocalCluster,
                                                   tmp_path: Path) -> None:
    """A task of two runs cancelled inside its first run: the runs it had not finished are
    resubmitted (a task each) and pass, each naming the cancelled attempt."""
    runs, out, _ = _one_run(tmp_path)
    runs.append(replace(runs[0], seed=12))
    launcher = SlurmLauncher(PARTITION, work_dir=out / "slurm", poll_s=0.3, runs_per_task=2)
    killer = _killer(cluster, [_cancel(cluster)])
    reg = runner.regress(launcher, "retry", runs, scheduler.ScheduleOptions(1, False, 3), out, 7)
    killer.join(timeout=60)
    write_all(reg)
    assert [r.status for r in reg.results] == [PASS, PASS]
    retried = [r for r in reg.results if r.retried]
    assert retried and all("CANCELLED" in r.retried for r in retried)
    assert {r["key"]: r["retried"] for r in _summary(out)["runs"]} == \
        {r.run.key: r.retried for r in reg.results}


def test_interrupt_cancels_the_submitted_jobs(cluster: LocalCluster, tmp_path: Path) -> None:
    """Ctrl-C while the runs are queued and running: exit 130, none of its jobs left in the
    queue, each cancelled."""
    proc = subprocess.Popen([MONTVERIF, "regress", *SUBSET[:-1], "4", "--launcher", "slurm",
                             "--out", str(tmp_path / "int")], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, env=cluster.env, cwd=ROOT)
    assert proc.stderr is not None
    jobs: list[str] = []
    for line in proc.stderr:
        if line.startswith("slurm: job ") and " run(s) in " in line:
            jobs.append(line.split()[2].rstrip(":"))
            break
    assert jobs, "no run array was submitted"
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    rest = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, rest[-2000:]
    assert "cancelled the Slurm jobs" in rest
    queued = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True,
                            env=cluster.env, check=True).stdout.split()
    assert not queued
    states = cluster.scontrol("-o", "show", "job", jobs[0])
    assert "JobState=CANCELLED" in states


@pytest.mark.nightly(seconds=20)
def test_bad_input_is_one_error_line(cluster: LocalCluster, tmp_path: Path) -> None:
    unknown = _regress(cluster, *SUBSET, "--launcher", "slurm", "--partition", "nope",
                       "--out", str(tmp_path / "x"))
    assert unknown.returncode == 2
    assert unknown.stderr == f"error: unknown Slurm partition 'nope' (the cluster has: " \
                             f"{PARTITION})\n"
    local = _regress(cluster, *SUBSET, "--partition", PARTITION, "--out", str(tmp_path / "y"))
    assert (local.returncode, local.stderr) == (
        2, "error: --partition, --slurm-opt and --runs-per-task need --launcher slurm\n")
    # a controller that does not answer: the cluster's configuration on another port
    conf = tmp_path / "gone.conf"
    conf.write_text(re.sub(r"SlurmctldPort=\d+", f"SlurmctldPort={free_port()}",
                           cluster.conf.read_text()))
    gone = subprocess.run([MONTVERIF, "regress", *SUBSET, "--launcher", "slurm", "--out",
                           str(tmp_path / "z")], capture_output=True, text=True, cwd=ROOT,
                          env=cluster.env | {"SLURM_CONF": str(conf)}, check=False)
    assert gone.returncode == 2 and gone.stderr.startswith(
        "error: cannot reach the Slurm controller: ") and gone.stderr.count("\n") == 1
