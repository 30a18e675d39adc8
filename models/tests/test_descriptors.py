"""The descriptors and the models agree: a design's stated cycle count is its model's, at
every test point of its descriptor, and the RSA core's multiplier choices are the model's."""

from __future__ import annotations

import random

import pytest

from montverif.models import rsa
from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.spec.designs import every, load_design

DESIGNS = [d.name for d in every() if d.cycles]


def _points(name: str) -> list[tuple[int, tuple[tuple[str, int], ...]]]:
    """(N, parameters) of the descriptor's test points and its smallest width."""
    d = load_design(name)
    points: list[tuple[int, dict[str, int]]] = [(d.min_n, {})]
    points += [(p.n, dict(d.normalize(p.params))) for p in (*d.test.verilator, *d.test.icarus)]
    return list(dict.fromkeys((n, tuple(sorted(p.items()))) for n, p in points))


@pytest.mark.parametrize("name", DESIGNS)
def test_stated_cycles_are_the_models(name: str) -> None:
    design, algo = load_design(name), get_algo(name)
    rng = random.Random(name)
    checked = 0
    for n, given in _points(name):
        try:
            params = algo.resolve(n, dict(given))
        except ModelInputError:
            continue
        m = rng.getrandbits(n - 1) | (1 << (n - 1)) | 1
        x, y = rng.randrange(m), rng.randrange(m)
        args = (x, 0, y, 0, m, n) if algo.halves else (x, y, m, n)
        for field in ((0, 1) if design.has_field else (0,)):
            cycles = algo.run(params, *args, field=field).cycles
            assert cycles == design.cycles_at(n, params, field1=bool(field)), (n, params, field)
            checked += 1
    assert checked


def test_a_wrong_cycle_formula_is_caught() -> None:
    """The check above fails when the descriptor states another count."""
    import dataclasses

    design = dataclasses.replace(load_design("mont_lut"), cycles="n + 1")
    res = get_algo("mont_lut").run({}, 3, 5, 11, 8)
    assert res.cycles != design.cycles_at(8, {})


def test_rsa_multiplier_choices_are_the_models() -> None:
    choices = load_design("rsa_core").parameters["Mult"].choices
    assert list(choices) == [rsa.MULTS[i][0] for i in sorted(rsa.MULTS)]
    assert all(c in (d.name for d in every()) for c in choices)


def test_rsa_table_at_build_parameters() -> None:
    """rsa_core's [rsa] table: two multipliers by default; its `variants` entry for Units = 1
    (one multiplier) replaces the monitored interface and the wipe and clear lists, and the
    Verilator build makes both sets of signals visible."""
    design = load_design("rsa_core")
    two, one = design.rsa_at({}), design.rsa_at({"Units": 1})
    assert two.mults == ("ma", "ms")
    assert design.rsa_at({"Units": 2, "Mult": 5}) == two
    assert one.mults == ("g_one.mu",) and one.core == two.core and one.width == two.width
    assert "u_core.g_one.t_q" in one.wipe and "u_core.ms_p" not in one.wipe
    assert "u_core.g_one.t_q" in one.clear
    assert {"mu_busy", "mu_x", "t_q", "ma_busy"} <= set(design.probe_leaves())
