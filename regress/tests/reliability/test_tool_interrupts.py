"""Interrupts of the commands that start tools (issue 59, item 1): Ctrl-C or SIGTERM of
`formal`, `synth`, `mutate`, `closure` ends every tool the command started (SBY and its
solvers, which detach into sessions of their own; Yosys; the simulations and compilers) at
once, and the command with one `interrupted:` line and exit code 130, its results folder
marked interrupted; SIGKILL of the command takes its tools along too. Before, Ctrl-C of
`formal` waited for SBY to end on its own, SIGTERM left yosys-smtbmc and boolector running,
`synth`, `mutate` and `closure` printed a KeyboardInterrupt traceback."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from montverif.regress.tests.reliability.helpers import (
    ends,
    interrupted_once,
    montverif,
    sim_started,
    stamp_state,
    wait_for,
    working_in,
)
from montverif.regress.tests.testshard import standins

# the slowest proof of the project (mont_dual's core, BMC to depth 37: minutes)
LONG_PROOF = ("formal", "--dut", "mont_dual")


def _solving(folder: Path) -> bool:
    return any("boolector" in cmd or "smtbmc" in cmd for cmd in working_in(folder))


@pytest.mark.formal
@pytest.mark.parametrize("sig", standins([signal.SIGINT, signal.SIGTERM, signal.SIGKILL],
                                         [signal.SIGKILL], seconds=6))
def test_an_interrupted_proof_ends_sby_and_its_solvers(tmp_path: Path,
                                                       sig: signal.Signals) -> None:
    folder = tmp_path / "proof"
    proc = montverif(*LONG_PROOF, "--out", str(folder))
    wait_for(lambda: _solving(folder), 300, "SBY's solver to start")
    t0 = time.monotonic()
    code, _, err = ends(proc, sig, timeout_s=30)
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL
    else:
        interrupted_once(code, err)
        assert time.monotonic() - t0 < 15  # not waiting for the proof to end on its own
        assert stamp_state(folder) == "interrupted"
    wait_for(lambda: not working_in(folder), 15, "SBY and its solvers to end")


@pytest.mark.formal
def test_an_interrupted_set_of_proofs_ends_them_all_at_once(tmp_path: Path) -> None:
    """`formal --points --jobs 2`: both running proofs end, the ones not started never do."""
    folder = tmp_path / "points"
    proc = montverif("formal", "--points", "--dut", "mont_dual", "--jobs", "2",
                     "--out", str(folder))
    wait_for(lambda: _solving(folder), 300, "a solver to start")
    t0 = time.monotonic()
    code, _, err = ends(proc, signal.SIGINT, timeout_s=30)
    interrupted_once(code, err)
    assert time.monotonic() - t0 < 15
    wait_for(lambda: not working_in(folder), 15, "every proof's tools to end")
    assert stamp_state(folder) == "interrupted"


@pytest.mark.synth
def test_a_terminated_synthesis_ends_yosys(tmp_path: Path) -> None:
    folder = tmp_path / "synth"
    proc = montverif("synth", "run", "--dut", "mont_lut", "--n", "1024", "--out", str(folder))
    wait_for(lambda: bool(working_in(folder)), 300, "Yosys to start")
    code, _, err = ends(proc, signal.SIGTERM, timeout_s=30)
    interrupted_once(code, err)
    wait_for(lambda: not working_in(folder), 15, "Yosys to end")
    assert stamp_state(folder) == "interrupted"
    assert not (folder / "synth.json").exists()  # no result from a cut-short synthesis


def _runs_started(folder: Path) -> bool:
    runs = folder / "runs"
    return runs.is_dir() and any(sim_started(run) for run in runs.iterdir() if run.is_dir())


@pytest.mark.sim
def test_an_interrupted_mutation_campaign_ends_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "mutate"
    proc = montverif("mutate", "--dut", "mont_lut", "--mutants", "60", "--jobs", "2",
                     "--out", str(folder))
    wait_for(lambda: _runs_started(folder), 300, "the mutants' runs to start")
    code, _, err = ends(proc, signal.SIGINT, timeout_s=30)
    interrupted_once(code, err)
    assert stamp_state(folder) == "interrupted"
    assert not (folder / "mutants.json").exists()  # no score from a cut-short campaign


@pytest.mark.sim
def test_an_interrupted_closure_ends_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "closure"
    proc = montverif("closure", "run", "--dut", "mont_lut", "--n", "1024", "--sim", "icarus",
                     "--budget-seeds", "40", "--out", str(folder))
    wait_for(lambda: _runs_started(folder), 300, "the closure's runs to start")
    code, _, err = ends(proc, signal.SIGINT, timeout_s=30)
    interrupted_once(code, err)
    assert stamp_state(folder) == "interrupted"


@pytest.mark.sim
def test_an_interrupted_benchmark_ends_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "bench"
    proc = montverif("bench", "--designs", "mont_lut", "--widths", "256", "--sims", "icarus",
                     "--repeat", "3", "--out", str(folder))
    wait_for(lambda: (folder / ".montverif.json").is_file(), 120, "the benchmark to start")
    time.sleep(3)  # into its measurements
    code, _, err = ends(proc, signal.SIGINT, timeout_s=30)
    interrupted_once(code, err)
    # it writes its figures at the end: a folder it had written nothing into is gone
    assert not folder.exists()
