"""Runs packed into batches, each run by one simulator process one after another
(regress/flow/batch.py): runs of one build (and plusargs) only, at most `per_sim` runs, and
no batch estimated longer than a share of the list's work, so that the parallel jobs stay
balanced (the scheduler starts the longest batches first). A run that cannot share a process
(waves, code coverage) is a batch of its own."""

from __future__ import annotations

from collections.abc import Sequence

from montverif.regress.flow.batch import batch_key
from montverif.regress.flow.spec import RunSpec
from montverif.regress.regression.shards import COST_START_S, run_cost

# batches per job the list's estimated work is cut into at least: the last batch to finish
# runs past the others by about 1/SLICES of a job's share at most
SLICES = 4
DEFAULT_PER_SIM = 8  # runs per simulator process (`montverif regress --runs-per-sim`)
# what a run costs in a batch beside its operations: its share of the set-up, its reset, its
# reports and outcome (the start-up, COST_START_S, is paid once per batch)
COST_IN_BATCH_S = 0.5


def _in_batch(run: RunSpec) -> float:
    """Estimated seconds a run adds to a batch."""
    return run_cost(run) - COST_START_S + COST_IN_BATCH_S


def batch_cost(batch: Sequence[RunSpec]) -> float:
    """Estimated seconds of a batch: one start-up, then what each run adds (a batch of one
    run costs what the run costs alone)."""
    return COST_START_S - COST_IN_BATCH_S + sum(map(_in_batch, batch))


def pack(runs: Sequence[RunSpec], jobs: int, per_sim: int) -> list[tuple[RunSpec, ...]]:
    """The runs in batches, the longest (estimated) first; within a batch, its runs longest
    first. Each batch holds at most per_sim runs (1: a batch per run), and runs adding no
    more than 1/(jobs x SLICES) of the list's estimated work (as batched)."""
    if per_sim <= 1:
        return [(r,) for r in sorted(runs, key=run_cost, reverse=True)]
    groups: dict[object, list[RunSpec]] = {}
    batches: list[tuple[RunSpec, ...]] = []
    for run in runs:
        key = batch_key(run)
        if key is None:
            batches.append((run,))
        else:
            groups.setdefault(key, []).append(run)
    work = sum(map(run_cost, (b[0] for b in batches))) + sum(
        COST_START_S - COST_IN_BATCH_S + sum(map(_in_batch, g)) for g in groups.values())
    cap = work / (max(1, jobs) * SLICES)
    for group in groups.values():
        current: list[RunSpec] = []
        for run in sorted(group, key=run_cost, reverse=True):
            if current and (len(current) >= per_sim
                            or sum(map(_in_batch, current)) + _in_batch(run) > cap):
                batches.append(tuple(current))
                current = []
            current.append(run)
        batches.append(tuple(current))
    return sorted(batches, key=batch_cost, reverse=True)
