"""Several runs of one build in one simulator process (regress/flow/batch.py, verif/batch.py):
the same per-run results as each run in a process of its own, a hang or a crash reported on
the run it happened in (the runs after it rerun in a fresh process), a broken DUT failing
every run, an interrupt ending the batch; and how the scheduler packs runs into batches
(regress/regression/packing.py)."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.regress.flow.batch import batch_key, execute_batch
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.regression import scheduler
from montverif.regress.regression.packing import batch_cost, pack
from montverif.regress.regression.shards import run_cost
from montverif.regress.tests.reliability.helpers import child_sessions, sim_started, wait_for

MODEL = BuildSpec("mont_r2", 8, sim="icarus")
TIMING = {"start_ns", "end_ns", "wall_s", "time_ns"}
STEER = '{"p": 1.0, "targets": [{"m": "short", "sub": true}]}'


def _txns(folder: Path) -> list[dict[str, object]]:
    lines = (folder / "txns.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in TIMING}
            for line in lines if line.strip()]


def _same_run(alone: Path, batched: Path) -> None:
    """Verdict, tests, first error, repro, transaction log and coverage of two folders."""
    a, b = (json.loads((f / "outcome.json").read_text()) for f in (alone, batched))
    for key in ("passed", "tests", "failed", "first_error", "repro", "key"):
        assert a[key] == b[key], (key, a[key], b[key])
    assert _txns(alone) == _txns(batched)
    assert json.loads((alone / "coverage.json").read_text()) == \
        json.loads((batched / "coverage.json").read_text())


# Icarus driving the pins; Verilator with the bus engine (its C++ main loop and HDL engine
# keep state across tests: the script memory, the cycle count)
@pytest.mark.parametrize("model", [MODEL, BuildSpec("mont_lut", 32, 32, "verilator", bus="engine")],
                         ids=["icarus-pins", "verilator-engine"])
@pytest.mark.sim
def test_a_batch_gives_each_run_the_results_it_has_alone(tmp_path: Path, model: BuildSpec
                                                         ) -> None:
    # the first run steers its stimulus (a list entry's `bias`), the others do not
    runs = [RunSpec(model, seed=s, txns=4, bias=STEER if s == 11 else "") for s in (11, 12, 13)]
    batched = execute_batch([(r, tmp_path / f"b{r.seed}") for r in runs])
    assert [o.passed for o in batched] == [True, True, True]
    assert all(o.tests == 5 for o in batched)
    for run in runs:
        execute(run, tmp_path / f"a{run.seed}")
        _same_run(tmp_path / f"a{run.seed}", tmp_path / f"b{run.seed}")
    # each run's log is its own: its five tests, none of another run's (the last one ends
    # with cocotb's summary of the batch)
    for i, run in enumerate(runs, 1):
        log = (tmp_path / f"b{run.seed}" / "sim.log").read_text()
        assert re.findall(r"running \S+\.run(\d+)\.", log) == [str(i)] * 5


@pytest.mark.sim
def test_a_broken_dut_fails_every_run_of_a_batch(tmp_path: Path) -> None:
    broken = replace(MODEL, fault=True)
    runs = [RunSpec(broken, seed=s, txns=4, tests=("RandomTest",)) for s in (21, 22, 23)]
    outcomes = execute_batch([(r, tmp_path / f"b{r.seed}") for r in runs])
    assert [o.passed for o in outcomes] == [False, False, False]
    assert all(o.first_error.startswith("MISMATCH") for o in outcomes), outcomes
    alone = execute(runs[1], tmp_path / "alone")
    assert alone.first_error == outcomes[1].first_error


@pytest.mark.sim
def test_a_hang_fails_its_own_run_and_the_others_pass(tmp_path: Path) -> None:
    """The middle run would run for minutes: its watchdog (started with the run) ends the
    process; the run before keeps its verdict, the one after runs in a fresh process."""
    short = [RunSpec(MODEL, seed=s, txns=3, tests=("RandomTest",), timeout_s=300)
             for s in (31, 33)]
    hang = RunSpec(MODEL, seed=32, txns=200_000, tests=("RandomTest",), timeout_s=5)
    order = [short[0], hang, short[1]]
    outcomes = execute_batch([(r, tmp_path / f"b{r.seed}") for r in order])
    assert [o.passed for o in outcomes] == [True, False, True], [o.first_error for o in outcomes]
    assert outcomes[1].first_error.startswith("watchdog: simulation killed after 5s")
    assert "in RandomTest" in outcomes[1].first_error
    assert outcomes[1].tests == 1 and outcomes[1].failed == 1
    assert 5 <= outcomes[1].wall_s < 60
    record = json.loads((tmp_path / "b32" / "outcome.json").read_text())
    assert record["first_error"] == outcomes[1].first_error
    assert "--seed 32" in record["repro"] and "--timeout 5" in record["repro"]
    # the run after the hang ran in a process of its own: its log starts with cocotb's start
    assert "Initialized cocotb" in (tmp_path / "b33" / "sim.log").read_text()


@pytest.mark.sim
def test_a_crash_fails_the_run_under_way_and_the_rest_rerun(tmp_path: Path) -> None:
    """The simulator dies (SIGKILL) during the second run: that run fails with the cause,
    the first keeps its verdict, the third runs in a fresh process and passes."""
    runs = [RunSpec(MODEL, seed=41, txns=3, tests=("RandomTest",)),
            RunSpec(MODEL, seed=42, txns=200_000, tests=("RandomTest",), timeout_s=120),
            RunSpec(MODEL, seed=43, txns=3, tests=("RandomTest",))]
    folders = [tmp_path / f"b{r.seed}" for r in runs]

    def crash() -> None:
        wait_for(lambda: (folders[1] / "sim.log").exists(), 300, "the second run to start")
        for session in child_sessions(folders[1]):
            os.killpg(session, signal.SIGKILL)

    killer = threading.Thread(target=crash, daemon=True)
    killer.start()
    outcomes = execute_batch(list(zip(runs, folders, strict=True)))
    killer.join()
    assert [o.passed for o in outcomes] == [True, False, True], [o.first_error for o in outcomes]
    assert "killed by signal SIGKILL" in outcomes[1].first_error
    assert not outcomes[1].interrupted


def test_runs_of_one_model_pack_into_bounded_batches() -> None:
    runs = [RunSpec(MODEL, seed=s, txns=4) for s in range(1, 11)]
    other = [RunSpec(BuildSpec("mont_lut", 8, sim="icarus"), seed=s, txns=4) for s in (1, 2)]
    waves = [RunSpec(replace(MODEL, waves=True), seed=s) for s in (1, 2)]
    batches = pack(runs + other + waves, jobs=1, per_sim=4)
    assert sorted(r.key for b in batches for r in b) == sorted(r.key for r in runs + other + waves)
    assert all(len(b) <= 4 for b in batches)
    assert all(len({batch_key(r) for r in b}) == 1 for b in batches)  # one build each
    assert all(len(b) == 1 for b in batches if b[0].build.waves)  # never with waves
    assert [batch_cost(b) for b in batches] == sorted(map(batch_cost, batches), reverse=True)
    # two jobs: the work is cut into at least 4 batches per job, none much above a share
    many = [RunSpec(MODEL, seed=s, txns=4) for s in range(1, 41)]
    two = pack(many, jobs=2, per_sim=40)
    assert len(two) >= 8 and sorted(r.key for b in two for r in b) == sorted(r.key for r in many)
    whole = batch_cost(many)
    assert all(batch_cost(b) <= whole / 8 + run_cost(many[0]) for b in two)
    assert max(map(len, two)) - min(map(len, two)) <= 1
    assert [len(b) for b in pack(many, jobs=2, per_sim=1)] == [1] * 40


@pytest.mark.sim
def test_an_interrupt_ends_a_batch_and_keeps_what_finished(tmp_path: Path,
                                                           ctrl_c: None) -> None:
    """Ctrl-C while the second run of a batch runs: the simulator ends, the first run keeps
    its verdict, the second and the third (never started) are marked interrupted."""
    runs = [RunSpec(MODEL, seed=51, txns=3, tests=("RandomTest",)),
            RunSpec(MODEL, seed=52, txns=200_000, tests=("RandomTest",), timeout_s=120),
            RunSpec(MODEL, seed=53, txns=3, tests=("RandomTest",))]
    folders = [tmp_path / f"b{r.seed}" for r in runs]
    got: list[Outcome] = []

    def batch(_item: int) -> int:
        got.extend(execute_batch(list(zip(runs, folders, strict=True))))
        return len(got)

    def interrupt() -> None:
        wait_for(lambda: sim_started(folders[1]), 300, "the second run to start")
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    _, stopped = scheduler.parallel(batch, [0], 1, lambda _i, _n: True)
    assert stopped == "interrupted"
    assert [o.interrupted for o in got] == [False, True, True]
    assert got[0].passed and got[2].wall_s == 0.0
    for folder in folders[1:]:
        assert json.loads((folder / "outcome.json").read_text())["interrupted"]
    assert not (folders[2] / "sim.log").exists()
