"""The survivors' equivalence vectors: exhaustive over small operands, full-width ones, the
model's boundary vectors, and the share of them a point beyond the campaign's own gets."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import product
from pathlib import Path

from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.flow.spec import design_tb
from montverif.regress.flow.vectors import vector_keys
from montverif.regress.mutate.mutant_run import vector_run
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.mutate.state import Campaign
from montverif.regress.regression.shards import run_cost
from montverif.spec.design import Design
from montverif.verif.steer import boundary_operands

EQ_MIN_VECTORS = 100  # vectors at a point beyond the campaign's own, whatever the budget


def exhaustive_vectors(design: Design, bits: int) -> list[dict[str, str]]:
    """Every odd modulus M < 2^bits and every operand combination of the design's domain
    (operands below M range over 0..M-1, a carry-save group below 2M over 0..2M-1 with its
    second half 0, others over 0..2^bits-1)."""
    d = design
    halves = {h for g in d.carry_save_operands for h in g[1:]}
    bases = {g[0] for g in d.range_groups}  # the group's sum must stay below 2M
    out = []
    for m in range(1, 1 << bits, 2):
        ranges = [range(m) if r in d.below_modulus else range(1) if r in halves
                  else range(2 * m) if r in bases else range(1 << bits)
                  for r in d.operands[:-1]]
        for values in product(*ranges):
            vec = {r.lower(): str(v) for r, v in zip(d.operands[:-1], values, strict=True)}
            vec[d.modulus.lower()] = str(m)
            out.append(vec)
    return out


def wide_vectors(design: Design, n: int, count: int, seed: int) -> list[dict[str, str]]:
    """`count` full-width vectors (the exhaustive set only reaches small values): moduli in
    the top half of N bits (2^(N-1)+1 and 2^N-1 among them), operands from 0, 1, M-2, M-1 and
    random values. Deterministic in seed."""
    d = design
    halves = {h for g in d.carry_save_operands for h in g[1:]}
    bases = {g[0] for g in d.range_groups}
    rng = random.Random(seed)
    top = (1 << n) - 1
    out = []
    for i in range(count):
        m = (top, (1 << (n - 1)) + 1)[i % 2] if i < 8 else rng.randrange(1 << (n - 1), 1 << n) | 1

        def pick(reg: str, m: int = m) -> int:
            if reg in halves:
                return 0
            limit = (m if reg in d.below_modulus else min(2 * m, 1 << n) if reg in bases
                     else 1 << n)
            return rng.choice((0, 1, max(limit - 2, 0), limit - 1, rng.randrange(limit)))

        vec = {r.lower(): str(pick(r)) for r in d.operands[:-1]}
        vec[d.modulus.lower()] = str(m)
        out.append(vec)
    return out


def spread(groups: list[list[dict[str, str]]]) -> list[dict[str, str]]:
    """The groups' vectors in one list, interleaved in proportion to the groups' sizes (each
    in its own order): any first part of it holds about its share of every group."""
    keyed = [((i + 0.5) / len(g), k, i) for k, g in enumerate(groups) for i in range(len(g))]
    return [groups[k][i] for _, k, i in sorted(keyed)]


def boundary_vectors(design: Design, n: int, seed: int, tries: int = 20000,
                     per_event: int = 8, params: tuple[tuple[str, int], ...] = ()
                     ) -> list[dict[str, str]]:
    """Full-width vectors at the final reductions' bounds (Result.boundary_events: a compare
    met at its bound or one below it), found with the bit-accurate model: a mutant that only
    differs there (an off-by-one of a FIN compare) is rare among random vectors."""
    d = design
    if d.carry_save_operands or len(d.operands) != 3:
        return []
    algo = get_algo(design.model)
    try:
        func = algo.model(algo.resolve(n, dict(params)))
    except ModelInputError:  # a design the model cannot run at n: no extra vectors
        return []
    rng = random.Random(seed)
    ops = boundary_operands(lambda x, y, m: func(x, y, m, n), rng,
                            lambda: rng.randrange(3, 1 << n, 2), tries, per_event)
    a, b, mod = (r.lower() for r in d.operands)
    return [{a: str(x), b: str(y), mod: str(m)} for x, y, m in ops]


def eq_plan(c: Campaign) -> tuple[int, int] | str:
    """(width N the equivalence runs are built at, operand bits) or why there is none."""
    d = c.design
    loader = design_tb(c.dut)[2]
    if loader is not None and vector_keys(c.dut) is None:
        return f"not checked: {c.dut} has its own vector format"
    n = max(d.min_n, 1)
    bits = min(c.options.eq_bits, n)
    while bits > 1 and len(exhaustive_vectors(d, bits)) > c.options.eq_max:
        bits -= 1
    return n, bits


def eq_label(n: int, bits: int, wide: int) -> str:
    if bits >= n:
        return f"exhaustive at N={n}, results read after reset and CLEAR"
    return (f"at N={n}: exhaustive over every odd M < 2^{bits} and the operands of the "
            "design's domain, "
            f"plus {wide} full-width vectors and the model's boundary vectors, results "
            "read after reset and CLEAR")


def point_vectors(c: Campaign, p: ParamPoint, bits: int) -> list[dict[str, str]]:
    """The equivalence vectors at a point beyond the campaign's own: the exhaustive set over
    `bits`-bit operands, full-width and boundary vectors at its N, cut (special moduli and
    boundary vectors first, then a deterministic sample) to what the budget allows."""
    special = wide_vectors(c.design, p.n, c.options.eq_wide, c.options.seed)
    first = special[:8] + boundary_vectors(c.design, p.n, c.options.seed, params=p.params)
    rest = special[8:] + exhaustive_vectors(c.design, bits)
    run = vector_run(c, "", p, Path("-"))
    per_op = (run_cost(replace(run, txns=1000)) - run_cost(replace(run, txns=0))) / 1000
    keep = max(EQ_MIN_VECTORS, int(c.options.point_vectors_s / per_op)) if per_op > 0 \
        else len(first) + len(rest)
    if len(first) + len(rest) <= keep:
        return first + rest
    return (first + random.Random(c.options.seed).sample(rest, max(keep - len(first), 0)))[:keep]
