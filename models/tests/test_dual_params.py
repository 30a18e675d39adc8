"""mont_dual's parameters K (the GF(p) digit) and Units (units in parallel; the word and the
GF(2^n) digit are W = K*Units bits): the model at small configurations against gmpy2 and
models.gf2, exhaustively; the legality rules; the descriptor's formulas at the paper's
defaults unchanged from the fixed 16/64 design."""

from __future__ import annotations

import random

import gmpy2
import pytest

from montverif.models import gf2, ref
from montverif.models.dual import GF2N, GFP, check, mont_dual, mp_pack
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import load_design
from montverif.spec.formula import integer

INFO = get_algo("mont_dual")
DESIGN = load_design("mont_dual")

# (K, Units, N): the narrowest widths of the small configurations the simulations and the
# formal points use
SMALL = [(2, 2, 6), (1, 3, 4), (1, 3, 5)]


def r_of(n: int, field: int, k: int, units: int) -> int:
    """log2 R from the algorithm's digit counts: K bits a digit in GF(p), K*Units in GF(2^n)."""
    digit = k if field == GFP else k * units
    return digit * -(-n // digit)


def expected(x: int, y: int, m: int, n: int, field: int, k: int, units: int) -> int:
    r = r_of(n, field, k, units)
    return ref.mont_product(x, y, m, r) if field == GFP else gf2.mont_product(x, y, m, r)


# the widest (K = 2, two units, N = 6: seconds) in the nightly
@pytest.mark.parametrize("k,units,n", standins(SMALL, lambda c: c != (2, 2, 6), unpack=True,
                                               seconds=10))
def test_exhaustive_small_configurations(k: int, units: int, n: int) -> None:
    """Every odd M < 2^N, every Y < M, every N-bit X, both fields: P, the cycles (counted from
    the model's phase hits, against the descriptor's formulas) and the reference registry."""
    params = {"K": k, "Units": units}
    e = -(-n // (k * units))
    for m in range(1, 1 << n, 2):
        for y in range(m):
            for x in range(1 << n):
                for field in (GFP, GF2N):
                    res = mont_dual(x, y, m, n, field, **params)
                    assert res.p == expected(x, y, m, n, field, k, units), (x, y, m, field)
                    # busy cycles = the multiplier phases + E subtractions (GF(p)) + FIN
                    counted = sum(res.lut.values()) + (e if field == GFP else 0) + 1
                    assert res.cycles == counted == DESIGN.cycles_at(n, params, field == GF2N)
    assert reference(INFO, 5, 1, 7, n, field=GFP, **params) == expected(5, 1, 7, n, GFP, k, units)


def test_random_wider_configurations() -> None:
    rng = random.Random(3)
    for k, units, n in [(2, 2, 7), (2, 2, 8), (3, 2, 9), (2, 2, 16), (4, 3, 40), (8, 2, 100),
                        (5, 4, 77)]:
        for _ in range(300):
            m = rng.randrange(1, 1 << n, 2)
            x, y, field = rng.randrange(1 << n), rng.randrange(m), rng.randrange(2)
            res = mont_dual(x, y, m, n, field, K=k, Units=units)
            assert res.p == expected(x, y, m, n, field, k, units)


@pytest.mark.parametrize("k,units", [(1, 3), (2, 2), (3, 2), (5, 4), (16, 4)])
def test_mp_pack_small(k: int, units: int) -> None:
    w, n = k * units, k + k * units
    for m in range(1, 1 << n, 2) if n <= 10 else range(1, 1 << 12, 2):
        mp = mp_pack(m, n, K=k, Units=units)
        assert mp >> (k + w) == 0
        m_prime, q = mp & ((1 << k) - 1), mp >> k
        assert m_prime == int(-gmpy2.invert(m, 1 << k) % (1 << k))
        assert q == gf2.inverse_mod_xk(m, w)


@pytest.mark.parametrize("n,k,units,why", [
    (8, 0, 2, "K must be >= 1"),
    (8, 2, 1, "K*Units must be >= K + 2"),
    (8, 1, 2, "K*Units must be >= K + 2"),
    (5, 2, 2, "N must be at least 6 = K + K*Units"),
    (79, 16, 4, "N must be at least 80 = K + K*Units"),
])
def test_check_refuses(n: int, k: int, units: int, why: str) -> None:
    with pytest.raises(ModelInputError) as info:
        check(n, K=k, Units=units)
    assert why in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ModelInputError):
        mont_dual(1, 0, 3, n, GFP, K=k, Units=units)


@pytest.mark.parametrize("n,k,units", [(6, 2, 2), (4, 1, 3), (9, 3, 2), (80, 16, 4)])
def test_check_accepts_the_narrowest(n: int, k: int, units: int) -> None:
    check(n, K=k, Units=units)
    assert DESIGN.min_n_at({"K": k, "Units": units}) == n


# The descriptor's formulas before K and Units were parameters (16-bit digits, 64-bit words):
# the defaults must give exactly these.
FIXED = {
    "cycles": "ceil(n / 16) * (2 + 2 * ceil(n / 64)) + ceil(n / 64) + 1",
    "cycles_field1": "ceil(n / 64) * (2 + 2 * ceil(n / 64)) + 1",
    "r_bits": "16 * ceil(n / 16)",
    "field1_r_bits": "64 * ceil(n / 64)",
}


def test_defaults_give_the_fixed_formulas() -> None:
    defaults = DESIGN.resolve()
    assert defaults == {"K": 16, "Units": 4}
    assert DESIGN.min_n == DESIGN.min_n_at() == 80
    for n in range(80, 2049):
        assert DESIGN.cycles_at(n, defaults) == integer(FIXED["cycles"], n)
        assert DESIGN.cycles_at(n, defaults, field1=True) == integer(FIXED["cycles_field1"], n)
        assert DESIGN.r_bits_at(n, defaults) == integer(FIXED["r_bits"], n)
        assert DESIGN.r_bits_at(n, defaults, field1=True) == integer(FIXED["field1_r_bits"], n)
    # the paper's 256-bit GF(p) count, and this design's at the NIST and RSA widths
    assert [DESIGN.cycles_at(n, defaults) for n in (163, 256, 1024)] == [92, 165, 2193]
    assert [DESIGN.cycles_at(n, defaults, field1=True) for n in (163, 256, 1024)] == [25, 41, 545]


def test_paper_bounds() -> None:
    """K above 16 or Units above 4 is beyond the paper's hardware (--beyond-paper)."""
    assert DESIGN.beyond_paper({"K": 16, "Units": 4}) == []
    assert DESIGN.beyond_paper({"K": 2, "Units": 2}) == []
    assert DESIGN.beyond_paper({"K": 32, "Units": 4})
    assert DESIGN.beyond_paper({"K": 16, "Units": 8})
