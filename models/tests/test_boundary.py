"""Boundary events of the final reductions (Result.ties / boundary_events): the operations
CornerTest steers at so that an off-by-one or >=/> mutant of a compare is caught."""

from __future__ import annotations

import random

from montverif.models.inter import (
    final_reduce,
    final_reduce_ties,
    inter_csa,
    inter_lut,
    normalise,
    pow2_mod,
)
from montverif.models.mont import mont_lut


def test_fin_chain_reports_the_compare_met_at_its_bound() -> None:
    mn = 0b1101
    assert final_reduce_ties(2 * mn - 1, mn, 0) == (mn - 1, frozenset({"fin1:below"}))
    assert final_reduce_ties(3 * mn, mn, 0)[1] == frozenset({"fin0:eq"})
    assert final_reduce_ties(8 * mn, mn, 0)[1] == frozenset({"fin3:eq"})
    assert final_reduce_ties(5, mn, 0)[1] == frozenset()
    mn, z = 0b1101 << 2, 2
    rng = random.Random(5)
    for _ in range(500):  # the events never change the result
        v = rng.randrange(16 * mn) & ~3
        assert final_reduce_ties(v, mn, z)[0] == final_reduce(v, mn, z) == (v % mn) >> z


def test_model_events_follow_the_values() -> None:
    rng = random.Random(2)
    seen: set[str] = set()
    for _ in range(3000):
        m = rng.randrange(3, 256, 2)
        x, y = rng.randrange(m), rng.randrange(m)
        res = inter_csa(x, y, m, 8)
        seen |= res.ties | inter_lut(x, y, m, 8).ties
        assert all(e.startswith(("fin", "madd")) for e in res.ties)
        r = mont_lut(x, y, m, 8)
        before = sum(r.pair)
        assert ("sub:eq" in r.boundary_events(m)) == (before == m)
        assert ("sub:below" in r.boundary_events(m)) == (before == m - 1)
    assert {"fin0:below", "fin1:below", "fin1:eq", "madd:eq", "madd:below"} <= seen


def test_table_ties_count_only_entries_the_loop_reads() -> None:
    """A table addition at its compare bound counts only when the loop reads an entry built
    from it (inter_lut: t2 feeds every entry but t0 and t1)."""
    rng = random.Random(3)
    verdicts = set()
    for _ in range(3000):
        m = rng.randrange(3, 256, 2)
        x, y = rng.randrange(m), rng.randrange(m)
        res = inter_lut(x, y, m, 8)
        _, _, mn = normalise(y, m, 8)
        h = pow2_mod(mn, 8)
        if h + h == mn - 1:  # t2's addition one below M'
            used = any(res.lut.get(a) for a in range(2, 8))
            assert ("madd:below" in res.ties) == used
            verdicts.add(used)
    assert verdicts == {True, False}  # both kinds of operation were met
