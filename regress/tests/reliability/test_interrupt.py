"""Interruptions: any end of the runner (SIGINT, SIGTERM, SIGKILL) ends the whole simulation,
prints one line (where the runner lives to print it) and marks the run folder interrupted;
what finished before the interrupt is kept, and `--resume` does only the rest."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest

from montverif.regress.cli import regress as regress_cli
from montverif.regress.flow import simulate
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.regression import scheduler
from montverif.regress.tests.reliability.helpers import (
    alive_in,
    child_sessions,
    ends,
    montverif,
    regress,
    sim_started,
    wait_for,
)

# a simulation that runs for minutes (Icarus, N = 4096, every test)
LONG = ("sim", "--dut", "mont_lut", "--n", "4096", "--sim", "icarus", "--txns", "30")


@pytest.mark.sim
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_sim_ends_its_simulation(tmp_path: Path, sig: signal.Signals) -> None:
    folder = tmp_path / "run"
    proc = montverif(*LONG, "--out", str(folder))
    wait_for(lambda: sim_started(folder), 300, "the simulation to start")
    sessions = child_sessions(folder)
    assert len(sessions) == 1
    code, out, err = ends(proc, sig)
    assert code == 130, out + err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    wait_for(lambda: not alive_in(*sessions), 10, "the simulator to end")
    outcome = json.loads((folder / "outcome.json").read_text())
    assert outcome["interrupted"] and not outcome["passed"]


@pytest.mark.sim
def test_a_killed_runner_takes_its_simulation_along(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    proc = montverif(*LONG, "--out", str(folder))
    wait_for(lambda: sim_started(folder), 300, "the simulation to start")
    sessions = child_sessions(folder)
    assert len(sessions) == 1
    code, _, _ = ends(proc, signal.SIGKILL)
    assert code == -signal.SIGKILL
    wait_for(lambda: not alive_in(*sessions), 15, "the orphaned simulation to end")
    outcome = json.loads((folder / "outcome.json").read_text())
    assert outcome["interrupted"] and not outcome["passed"]


SHORT_AND_LONG = """
[mixed]
description = "short runs beside one that would run for minutes"
[[mixed.entry]]
dut = "mont_lut"
widths = [4096]
bus_widths = [32]
simulators = ["icarus"]
seeds = 1
txns = 30
[[mixed.entry]]
dut = "mont_r2"
widths = [64]
bus_widths = [32]
simulators = ["verilator"]
seeds = 3
txns = 10
"""


@pytest.mark.sim
def test_an_interrupted_regression_is_partial_and_resumes(tmp_path: Path) -> None:
    lists = tmp_path / "lists.toml"
    lists.write_text(SHORT_AND_LONG)
    out, hist = tmp_path / "out", tmp_path / "history.jsonl"
    args = ("--lists", str(lists), "regress", "--list", "mixed", "--jobs", "2", "--out",
            str(out), "--history", str(hist), "--rerun-waves", "0")
    proc = regress(tmp_path / "results", *args)

    def state() -> tuple[list[Path], list[Path]]:
        done = sorted(out.glob("runs/*/result.json"))
        running = [d for d in out.glob("runs/mont_lut-*") if sim_started(d)]
        return done, running

    wait_for(lambda: len(state()[0]) >= 3 and bool(state()[1]), 600,
             "the short runs to finish while the long one runs")
    long_dir = state()[1][0]
    sessions = child_sessions(long_dir)
    code, stdout, err = ends(proc, signal.SIGINT, 120)
    assert code == 130, stdout + err
    assert "Traceback" not in err
    wait_for(lambda: not any(alive_in(s) for s in sessions), 10, "the simulator to end")
    assert json.loads((long_dir / "outcome.json").read_text())["interrupted"]
    assert not (long_dir / "result.json").exists()  # not finished: --resume runs it again
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"] == "interrupted" and summary["passed"] == 3
    line = json.loads(hist.read_text().splitlines()[-1])
    assert line["partial"].startswith("interrupted: 3 of 4 runs")
    assert line["pass_rate"] is None and line["coverage_pct"] is None
    assert "partial regression" in (out / "report.html").read_text()

    # resumed with another list: refused, nothing of the folder rewritten
    other = tmp_path / "other.toml"
    other.write_text(SHORT_AND_LONG.replace("seeds = 3", "seeds = 2"))
    before = {p: p.read_bytes() for p in (out / "summary.json", out / "junit.xml")}
    again = regress(tmp_path / "results", "--lists", str(other), "regress", "--list", "mixed",
                    "--out", str(out), "--resume", "--history", str(hist))
    o2, e2 = again.communicate(timeout=120)
    assert again.returncode == 2, o2 + e2
    assert e2.startswith("error: --resume: results folder") and len(e2.splitlines()) == 1
    assert all(p.read_bytes() == data for p, data in before.items())


class Slow:
    """A launcher whose runs take a while and pass; the first run interrupts the regression
    (SIGINT to this process) while it and another run are under way."""

    def __init__(self, interrupt: bool) -> None:
        self.interrupt, self.ran = interrupt, 0
        self.lock = threading.Lock()

    def check(self, run: RunSpec) -> None:
        pass

    def build(self, spec: BuildSpec) -> float:
        return 0.0

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        with self.lock:
            self.ran += 1
            first = self.ran == 1
        if first and self.interrupt:
            threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,)).start()
        log_dir.mkdir(parents=True, exist_ok=True)
        time.sleep(1.0)  # the interrupt comes meanwhile; the run still ends by itself
        return Outcome(run, True, log_dir, tests=5, wall_s=1.0)


def _regress_in_process(tmp_path: Path, launcher: Slow, *extra: str) -> int:
    lists = tmp_path / "lists.toml"
    lists.write_text(SHORT_AND_LONG)
    return regress_cli.main(["--lists", str(lists), "regress", "--list", "mixed", "--jobs", "2",
                             "--out", str(tmp_path / "out"), "--history",
                             str(tmp_path / "h.jsonl"), *extra], launcher=launcher,
                            results_root=tmp_path / "results")


@pytest.mark.sim
def test_runs_that_finish_during_an_interrupt_are_kept(tmp_path: Path) -> None:
    """The scheduler's side: runs under way at the interrupt that end by themselves are saved
    (result.json) like any other, so --resume does not run them again; the resumed summary's
    wall time counts every attempt."""
    assert _regress_in_process(tmp_path, Slow(interrupt=True)) == 130
    kept = sorted(p.parent.name for p in (tmp_path / "out").glob("runs/*/result.json"))
    assert len(kept) == 2  # the two under way at the interrupt, both finished and saved
    first = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert first["passed"] == 2 and first["skipped"] == 2 and first["wall_s"] >= 1.0
    resumed = Slow(interrupt=False)
    assert _regress_in_process(tmp_path, resumed, "--resume") == 0
    assert resumed.ran == 2  # only the two not run before
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["passed"] == 4 and summary["stopped"] == ""
    assert summary["wall_s"] >= first["wall_s"] + 1.0  # both attempts
    lines = [json.loads(x) for x in (tmp_path / "h.jsonl").read_text().splitlines()]
    assert [bool(x.get("partial")) for x in lines] == [True, False]


@pytest.mark.sim
def test_no_simulation_starts_after_an_interrupt(tmp_path: Path, ctrl_c: None) -> None:
    """A worker that runs simulations one after another (as a mutation campaign does) starts
    none after Ctrl-C: the running one is ended and the next ones come back interrupted
    without running; once the pool has returned, simulations start again."""
    runs = [RunSpec(BuildSpec("mont_r2", 8, sim="icarus"), seed=s, txns=400) for s in (1, 2, 3)]
    got: list[Outcome] = []

    def campaign(_item: int) -> int:
        for run in runs:
            got.append(simulate.execute(run, tmp_path / f"s{run.seed}"))
        return len(got)

    def interrupt() -> None:
        wait_for(lambda: sim_started(tmp_path / "s1"), 300, "the first simulation")
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    _, stopped = scheduler.parallel(campaign, [0], 1, lambda _i, _n: True)
    assert stopped == "interrupted"
    assert [o.interrupted for o in got] == [True, True, True]
    assert got[1].wall_s == got[2].wall_s == 0.0  # never started
    assert not (tmp_path / "s2" / "sim.log").exists()
    again = simulate.execute(RunSpec(BuildSpec("mont_r2", 8, sim="icarus"), seed=4, txns=2,
                                     tests=("RandomTest",)), tmp_path / "s4")
    assert again.passed and not again.interrupted
