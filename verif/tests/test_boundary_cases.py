"""CornerTest's boundary operations (verif/sequences.py CornerSeq.boundary_cases): legal for
every design and width, whatever the random moduli (a modulus of 1 once crashed them), and
the model-checked ones reach every boundary event the model reports."""

from __future__ import annotations

import random

import pytest

from montverif.models.registry import get_algo
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import known_designs, load_design
from montverif.verif.context import SeqContext
from montverif.verif.sequences import CornerSeq


def _seq(name: str, n: int, seed: int) -> CornerSeq:
    design = load_design(name)
    algo = get_algo(design.model)
    func = algo.model(algo.resolve(n, {}))

    def model(x: int, y: int, m: int):
        return func(x, 0, y, 0, m, n) if algo.halves else func(x, y, m, n)

    return CornerSeq("c", SeqContext(n=n, bus_w=32, design=load_design(name),
                                     rng=random.Random(seed), model=model))


# each seed a fresh modulus per case (8,000 model runs at 8): 4 seeds in make test (its fast
# tier), 12 in the nightly
@pytest.mark.parametrize("seeds", standins([4, 12], [4], ids=lambda k: f"{k}-seeds"))
@pytest.mark.parametrize("name", ["mont_r2", "mont_lut", "inter_csa", "mm42"])
def test_boundary_cases_are_legal_operations(name: str, seeds: int) -> None:
    for n in (8, 9, 33):
        for seed in range(seeds):
            seq = _seq(name, n, seed)
            for x, y, m in seq.boundary_cases():
                assert m % 2 == 1 and 0 < m < 1 << n, (name, n, seed, m)
                assert 0 <= x < m and 0 <= y < m, (name, n, seed, x, y, m)


def test_model_checked_cases_cover_the_fin_bounds() -> None:
    seq = _seq("inter_csa", 8, 1)
    moduli = list(range(3, 256, 2))
    events: set[str] = set()
    for x, y, m in seq.model_boundary_cases(moduli):
        events |= seq.model(x, y, m).boundary_events(m)  # type: ignore[misc]
    assert {"fin0:eq", "fin0:below", "fin1:below"} <= events
    assert "rsa_core" in known_designs()  # the RSA core has its own sequences


def test_corner_cases_reach_s_plus_c_at_8m() -> None:
    """inter_csa's first FIN compare (S + C >= 8M') met exactly needs X * Y = 0 mod M with
    X, Y non-zero (a composite M): a mutant `>= 8M' + 1` survived the nightly without it."""
    for seed in range(3):
        seq = _seq("inter_csa", 8, seed)
        events: set[str] = set()
        for x, y, m in seq.boundary_cases():
            events |= seq.model(x, y, m).boundary_events(m)  # type: ignore[misc]
        assert "fin3:eq" in events, seed
