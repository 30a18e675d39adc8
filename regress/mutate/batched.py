"""The runs of mutants selected in shared (meta-mutant) models, several to a simulator process
(regress/flow/batch.py): the runs of one build are split into one batch per worker, and the
batches run in parallel. A run then costs its tests, not a process, the imports and the
pyuvm set-up of its own (about 0.45 s each in a campaign's thousands of runs).

Each test resets the DUT, and each run writes its mutant into the model's selector before
that reset (verif/mutant.py), but registers without a reset keep what the run before left
there. So a run that fails after another run in its process is run again in a process of its
own, and that run's verdict stands: every failure a campaign reports (a kill, a difference
from the original) is what the mutant does from power-up, and its folder holds that run. A
failure in the batch that does not come back alone is kept in the outcome's extra
(`failed_in_batch`). (An equivalence run that passes with another transaction log than the
original's is run again alone by the engine, which compares the logs.)"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from montverif.regress.flow import simulate
from montverif.regress.flow.batch import batch_key, execute_batch
from montverif.regress.flow.spec import Outcome, RunSpec

FAILED_IN_BATCH = "failed_in_batch"
FLOW_ERROR = "flow_error"  # the flow itself failed (the run has no verdict)


def chunks(runs: Sequence[tuple[RunSpec, Path]], workers: int
           ) -> list[list[tuple[int, RunSpec, Path]]]:
    """The runs (with their index) in batches: those of one build and plusargs together, each
    model's split into `workers` parts of about equal size, in the given order; a run that
    cannot share a process is a batch of its own."""
    groups: dict[object, list[tuple[int, RunSpec, Path]]] = {}
    alone: list[list[tuple[int, RunSpec, Path]]] = []
    for i, (run, log_dir) in enumerate(runs):
        key = batch_key(run)
        if key is None:
            alone.append([(i, run, log_dir)])
        else:
            groups.setdefault(key, []).append((i, run, log_dir))
    out: list[list[tuple[int, RunSpec, Path]]] = []
    for members in groups.values():
        size = math.ceil(len(members) / max(1, workers))
        out += [members[k:k + size] for k in range(0, len(members), size)]
    return out + alone


def run_batched(runs: Sequence[tuple[RunSpec, Path]], workers: int) -> list[Outcome]:
    """Every (run, log folder), batched (chunks) on `workers` threads; their Outcomes in the
    given order, each failure after the first run of its batch confirmed alone."""
    results: list[Outcome | None] = [None] * len(runs)

    def one(batch: list[tuple[int, RunSpec, Path]]) -> None:
        try:
            outcomes = execute_batch([(run, log_dir) for _, run, log_dir in batch])
        except Exception as exc:  # the flow broke: no verdict for any run of the batch
            text = f"{type(exc).__name__}: {exc}"[:200]
            for i, run, log_dir in batch:
                results[i] = Outcome(run, False, log_dir, first_error=text,
                                     extra={FLOW_ERROR: text})
            return
        for k, ((i, run, log_dir), outcome) in enumerate(zip(batch, outcomes, strict=True)):
            if k > 0 and not outcome.passed and not outcome.interrupted:
                alone = simulate.execute(run, log_dir, quiet=True)
                alone.wall_s += outcome.wall_s
                if alone.passed:
                    alone.extra[FAILED_IN_BATCH] = outcome.first_error
                outcome = alone
            results[i] = outcome

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        list(pool.map(one, chunks(runs, workers)))
    done = [r for r in results if r is not None]
    assert len(done) == len(runs)
    return done
