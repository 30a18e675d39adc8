"""Shards of a regression (whole builds per shard, balanced by estimated cost) and the cost
model that also orders the runs, longest first."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from montverif.models.registry import get_algo
from montverif.regress.flow.spec import RunSpec
from montverif.regress.regression.lists import ListError
from montverif.regress.regression.seeds import sim_free_key
from montverif.spec.designs import load_design

MAX_SHARDS = 1000  # --shard I/K: K at most (each shard is a machine's job)


def parse_shard(text: str) -> tuple[int, int]:
    """'i/k' with 1 <= i <= k <= MAX_SHARDS -> (i, k); ListError otherwise."""
    parts = text.split("/")
    if len(parts) != 2 or not all(p.isdigit() and len(p) < 10 for p in parts) or not (
            1 <= int(parts[0]) <= int(parts[1]) <= MAX_SHARDS):
        raise ListError(f"bad shard spec '{text}': expected I/K with 1 <= I <= K <= "
                        f"{MAX_SHARDS}, e.g. 2/4")
    return int(parts[0]), int(parts[1])


# Seconds of a run (fitted to the nightly shards of 2026-11-21 on the 2-core machine): a
# start-up, and per operation a simulator share (cycles x N) and a Python share (~N: the
# bit-accurate model and the per-word bus checking). The RSA core's operation is a whole
# exponentiation (~10 s at N = 256 on Verilator, quadratic in N).
COST_START_S = 3.0


COST_OPS_EXTRA = 25  # the corner, back-to-back, status and error tests' operations


COST_SIM_S = {"verilator": 0.015e-6, "icarus": 1.0e-6}  # per cycle x bit


COST_PY_S = {"verilator": 0.145e-3, "icarus": 0.63e-3}  # per operation x bit


COST_RSA_S = {"verilator": 10.0, "icarus": 40.0}  # per exponentiation at N = 256


@functools.cache
def op_cycles(dut: str, n: int, params: tuple[tuple[str, int], ...]) -> int:
    """The model's cycles of one worst-case operation of a build (4N when unknown)."""
    try:
        algo = get_algo(load_design(dut).model)
        func = algo.model(algo.resolve(n, dict(params)))
        m = (1 << n) - 1
        res = func(m - 1, 0, m - 1, 0, m, n) if algo.halves else func(m - 1, m - 1, m, n)
        return int(res.cycles or 0) or 4 * n
    except Exception:
        return 4 * n


def run_cost(run: RunSpec) -> float:
    """Estimated seconds of a run, to balance shards and start the longest runs first."""
    b = run.build
    if b.dut == "rsa_core":
        return COST_START_S + run.txns * COST_RSA_S[b.sim] * (max(b.n, 32) / 256) ** 2
    ops = run.txns + COST_OPS_EXTRA
    cycles = op_cycles(b.dut, b.n, tuple(sorted(b.params)))
    return COST_START_S + ops * b.n * (cycles * COST_SIM_S[b.sim] + COST_PY_S[b.sim])


def deal(costs: Mapping[str, float], count: int, from_last: bool = False) -> dict[str, int]:
    """Each key to one of `count` shards (0-based): the costliest first, each to the least
    loaded shard, ties to the first one (`from_last`: to the last, so that work dealt this
    way fills other shards than the runs do); the split depends only on the costs."""
    load = [0.0] * count
    owner: dict[str, int] = {}
    for key, cost in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        target = min(range(count), key=lambda i: (load[i], -i if from_last else i))
        owner[key] = target
        load[target] += cost
    return owner


def shard(runs: Sequence[RunSpec], index: int, count: int) -> list[RunSpec]:
    """The runs of shard index/count (1-based). Whole builds go to one shard (each shard
    compiles only its own builds; the runs of a cross-simulator pair stay together); builds are
    dealt largest first to the least loaded shard, so the split depends only on the runs."""
    groups: dict[str, list[RunSpec]] = {}
    for run in runs:
        groups.setdefault(sim_free_key(run.build), []).append(run)
    owner = deal({key: sum(map(run_cost, group)) for key, group in groups.items()}, count)
    return [r for r in runs if owner[sim_free_key(r.build)] == index - 1]
