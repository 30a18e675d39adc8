"""Runs of mutants in shared builds, several to a simulator process (regress/mutate/batched.py,
verif/mutant.py): how they are split into batches, that a failure after another run in its
process is confirmed alone, that a failure's time is the run's own (not the batch's), and,
on both simulators and both bus modes, that every run of a batch (mutants, the original
between them, a mutant again) gives the verdict, the transaction log and the first error it
gives in a process of its own."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.host import paths
from montverif.regress.flow import batch as flow_batch
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import simulate
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.mutate import batched, meta, mutant_run, sharing, state
from montverif.regress.mutate import sites as msites
from montverif.regress.regression.diffsim import transactions
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import load_design


def _runs(tmp_path: Path, model: str, count: int, **build: object) -> list[tuple[RunSpec, Path]]:
    b = BuildSpec("mont_csa", 8, overlay=str(tmp_path / model), **build)  # type: ignore[arg-type]
    return [(RunSpec(b, seed=1, mutant=i), tmp_path / f"{model}-{i}") for i in range(count)]


def test_chunks_keep_a_model_together_and_split_it_per_worker(tmp_path: Path) -> None:
    a = _runs(tmp_path, "a", 5)
    b = _runs(tmp_path, "b", 2)
    waves = _runs(tmp_path, "w", 2, waves=True)  # one waveform per process: never batched
    runs = [a[0], b[0], *a[1:], waves[0], b[1], waves[1]]
    one = batched.chunks(runs, 1)
    assert [[i for i, _, _ in c] for c in one] == [[0, 2, 3, 4, 5], [1, 7], [6], [8]]
    two = batched.chunks(runs, 2)
    assert [[i for i, _, _ in c] for c in two] == [[0, 2, 3], [4, 5], [1], [7], [6], [8]]


def _fake(monkeypatch: pytest.MonkeyPatch, in_batch: dict[int, bool], alone: dict[int, bool],
          raises: bool = False) -> list[str]:
    """execute_batch and simulate.execute that pass or fail run `mutant` as told."""
    calls: list[str] = []

    def outcome(run: RunSpec, log_dir: Path, passed: bool) -> Outcome:
        return Outcome(run, passed, log_dir, tests=2, failed=0 if passed else 1,
                       first_error="" if passed else f"MISMATCH {run.mutant}", wall_s=1.0)

    def execute_batch(runs: list[tuple[RunSpec, Path]]) -> list[Outcome]:
        calls.append("batch " + " ".join(str(r.mutant) for r, _ in runs))
        if raises:
            raise RuntimeError("boom")
        return [outcome(r, d, in_batch[r.mutant or 0]) for r, d in runs]

    def execute(run: RunSpec, log_dir: Path, quiet: bool = False) -> Outcome:
        calls.append(f"alone {run.mutant}")
        return outcome(run, log_dir, alone[run.mutant or 0])

    monkeypatch.setattr(batched, "execute_batch", execute_batch)
    monkeypatch.setattr(simulate, "execute", execute)
    return calls


def test_a_failure_after_another_run_is_confirmed_alone(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # 0 fails first in its process: no rerun; 2 fails in the batch and alone: the alone run's
    # verdict; 3 fails only in the batch: it passes, and the batch's failure is kept
    calls = _fake(monkeypatch, {0: False, 1: True, 2: False, 3: False},
                  {0: False, 1: True, 2: False, 3: True})
    out = batched.run_batched(_runs(tmp_path, "m", 4), 1)
    assert calls == ["batch 0 1 2 3", "alone 2", "alone 3"]
    assert [o.passed for o in out] == [False, True, False, True]
    assert [o.run.mutant for o in out] == [0, 1, 2, 3]
    assert out[2].first_error == "MISMATCH 2" and out[2].wall_s == 2.0
    assert out[3].extra == {batched.FAILED_IN_BATCH: "MISMATCH 3"}
    assert batched.FAILED_IN_BATCH not in out[2].extra


def test_a_broken_flow_leaves_the_batch_without_verdicts(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(monkeypatch, {}, {}, raises=True)
    out = batched.run_batched(_runs(tmp_path, "m", 3), 2)
    assert [o.extra for o in out] == [{batched.FLOW_ERROR: "RuntimeError: boom"}] * 3
    probe = msites.Mutant(0, msites.all_sites(load_design("mont_csa"))[0])
    mutant_run.classify(probe, out[0])  # never counted as killed
    assert (probe.status, probe.reason) == ("error", "RuntimeError: boom")


def test_a_batched_runs_failure_time_is_its_own(tmp_path: Path) -> None:
    """A batch's later run reports an RTL assertion at the batch's simulated time; its first
    error (outcome.json, a mutant's reason) gives the run's own time, as alone: the batch's
    less the run's time origin (its first clock edge) plus the first run's (the simulator
    wrote both to the progress file, verif/batch.py)."""
    batch_dir = tmp_path / "batch"
    batch_dir.mkdir()
    runs = _runs(tmp_path, "m", 3)
    for _, log_dir in runs:
        log_dir.mkdir()
    where = "mv_tb_mont_csa_top.u_dut.u_core.SumBelowYM_A (mont_csa.sv:107)"
    # alone, this mutant fails at 1,060 ns; in the batch its run starts 358,800 ns later (a
    # clock whose first edge a run counts at 10 ns, in the batch's first run as alone)
    (runs[0][1] / "sim.log").write_text("ok\n")
    (runs[1][1] / "sim.log").write_text(
        f"[359860000] %Error: mont_csa.sv:107: Assertion failed in {where}: "
        f"ASSERT FAILED SumBelowYM_A @ 359860000 ps: {where}\n")
    (runs[2][1] / "sim.log").write_text(  # a scoreboard's time (cocotb's, a float)
        "MISMATCH RandomTest @538410.0ns: done rose with no operation running\n")
    (batch_dir / "progress").write_text(
        "start 0 1 100.0\norigin 0 10000000\n"
        "start 1 1 101.0\norigin 1 358810000000\n"
        "start 2 1 102.0\norigin 2 538210000000\n")
    cases = "".join(
        f'<testcase classname="montverif.verif.tb_mult.run{i + 1}" name="RandomTest">'
        + ("" if i == 0 else '<failure message="failed"/>') + "</testcase>"
        for i in range(3))
    (batch_dir / "results.xml").write_text(f"<testsuites><testsuite>{cases}</testsuite>"
                                           "</testsuites>")
    progress = flow_batch._Progress(batch_dir / "progress")
    out = flow_batch._outcomes(runs, load_design("mont_csa"), 0.0, batch_dir, progress,
                               100.0, 0, False, False)
    assert [o.passed for o in out] == [True, False, False]
    assert out[1].first_error == f"ASSERT FAILED SumBelowYM_A @ 1060000 ps: {where}"
    assert out[2].first_error == "MISMATCH RandomTest @210.0ns: done rose with no operation " \
        "running"
    assert json.loads((runs[1][1] / "outcome.json").read_text())["first_error"] == \
        out[1].first_error
    # the times as the forms give them; a time before the origin (none is) stays
    rebase = flow_batch.rebase_times
    assert rebase("@ 87890000 ps", 87_680_000_000) == "@ 210000 ps"
    assert rebase("@87890.00199999999ns", 87_680_002_000) == "@210.0ns"
    assert rebase("@1.5us, @2000ns", 1_000_000_000) == "@0.5us, @1000ns"
    assert rebase("@5ns", 10_000_000) == "@5ns"
    assert rebase("@ 1060000 ps", 0) == "@ 1060000 ps"


def _site(sites: list, ending: str, file: str = "hdl/mont/mont_csa.sv",
          after: str = "") -> int:
    text = (paths.ROOT / file).read_text()
    start = text.index(after) if after else 0
    return next(i for i, s in enumerate(sites) if s.file == file and s.start > start
                and s.description.endswith(ending))


@pytest.mark.nightly(seconds=20)
@pytest.mark.sim
@pytest.mark.parametrize(("sim", "bus"), standins([("verilator", "engine"), ("icarus", "pins")],
                                                  [("verilator", "engine")], seconds=25,
                                                  unpack=True))
def test_each_run_of_a_batch_is_the_run_alone(tmp_path: Path, sim: str, bus: str) -> None:
    """mont_csa at N = 8: a sum bit with & for ^ (killed), the majority's | as ^ (equivalent)
    and CLEAR setting S to all ones (survives the smoke tests; S is then all ones until the
    next reset), in one build; the batch runs them with the original between and after them,
    and each run's verdict and transaction log equal those of the same run alone. The runs
    stop at their first failure, as a campaign's do: alone, a killed run's log ends with its
    failing test; in the batch, which never stops early, it goes on and the runs after it
    still run."""
    design = load_design("mont_csa")
    sites = msites.all_sites(design)
    ids = [_site(sites, "'s_q ^ c_q' -> 's_q & c_q'"),
           _site(sites, "'(s_q & c_q) | (s_q & xy)' -> '(s_q & c_q) ^ (s_q & xy)'"),
           _site(sites, "'s_q <= '0;' -> 's_q <= '1;'", "hdl/common/mv_sc_regs.sv",
                 "if (clear_i)")]
    members = []
    for i in ids:
        g = meta.guard((paths.ROOT / sites[i].file).read_text(), sites[i])
        assert isinstance(g, meta.Guard)
        members.append((msites.Mutant(i, sites[i]), g))
    opts = state.CampaignOptions(n=8, sim=sim)
    camp = state.Campaign("mont_csa", design, opts, tmp_path, len(sites), [])
    sharing.write_meta_overlay(camp, tmp_path / "model", members)
    b = BuildSpec("mont_csa", 8, sim=sim, overlay=str(tmp_path / "model"), bus=bus)
    assert b.selects_mutants(design)
    try:
        flow_build.build(b, design)
        base = RunSpec(b, seed=3, txns=6, tests=("RandomTest", "CornerTest"),
                       stop_at_failure=True)
        order = [ids[0], None, ids[1], ids[2], None, ids[0], ids[2]]
        runs = [(replace(base, mutant=m), tmp_path / f"batch-{k}") for k, m in enumerate(order)]
        together = flow_batch.execute_batch(runs)
        alone = [simulate.execute(run, tmp_path / f"alone-{k}", quiet=True)
                 for k, (run, _) in enumerate(runs)]
    finally:
        mutant_run.remove_build(b.key)
    verdicts = [o.passed for o in together]
    assert verdicts == [False, True, True, True, True, False, True]
    assert verdicts == [o.passed for o in alone]
    # killed on the scoreboard, or first by the core's own loop bound (S + C < Y + M)
    assert together[0].first_error.startswith(("MISMATCH", "ASSERT FAILED SumBelowYM_A")), \
        together[0].first_error
    for k, (mine, own) in enumerate(zip(together, alone, strict=True)):
        logs = transactions(mine.log_dir), transactions(own.log_dir)
        assert logs[0] is not None and logs[1] is not None, (k, order[k])
        if own.passed:
            assert logs[0] and logs[0] == logs[1], (k, order[k])
        else:  # alone it stopped after its failing test; the batch ran CornerTest too (a
            # core assertion in the first operation of each leaves both logs empty)
            assert len(logs[1]) <= len(logs[0]) and logs[1] == logs[0][:len(logs[1])], k
        # the same failure at the same time (an assertion's time is rebased from the
        # batch's simulated time to the run's own)
        assert mine.first_error == own.first_error, (k, order[k])
    assert together[1].tests == 2 and (tmp_path / "batch-6" / "txns.jsonl").is_file()
