"""mont_dual model (Tanimura 2008) against gmpy2 (GF(p)) and the independent GF(2)[x]
implementation models.gf2 (GF(2^n)); host precomputation; the GF(2)[x] reference itself."""

from __future__ import annotations

import random

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models import gf2, ref
from montverif.models.dual import (
    GF2N,
    GFP,
    MIN_N,
    K,
    W,
    clmul,
    cycles,
    mont_dual,
    mp_pack,
    r_bits,
    umul_units,
    words,
)
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError

BASE = settings(database=None, deadline=None)
INFO = get_algo("mont_dual")


def expected(x: int, y: int, m: int, n: int, field: int) -> int:
    """gmpy2 for GF(p), models.gf2 for GF(2^n), R from the paper's digit counts."""
    if field == GFP:
        return ref.mont_product(x, y, m, K * (-(-n // K)))
    return gf2.mont_product(x, y, m, W * (-(-n // W)))


def run_check(x: int, y: int, m: int, n: int, field: int) -> None:
    r = mont_dual(x, y, m, n, field)
    assert r.p == expected(x, y, m, n, field), (hex(x), hex(y), hex(m), n, field)
    assert r.p == reference(INFO, x, y, m, n, field=field)
    assert r.cycles == cycles(n, field)
    assert r.s is None and r.c is None and r.unreduced is not None  # no S, C registers
    if field == GFP:
        assert r.unreduced < 2 * m and r.unreduced % m == r.p
    else:  # no final subtraction: the loop's C is the result, of degree < deg M
        assert r.unreduced == r.p and r.p.bit_length() < m.bit_length()
    e = words(n)
    digits = -(-n // (K if field == GFP else W))
    base = field << 2
    assert r.lut == {base: digits, base + 1: digits, base + 2: digits * e, base + 3: digits * e}


# --- exhaustive small moduli (N = 80, the smallest build) -----------------------------------
def test_exhaustive_gfp_small_moduli() -> None:
    for m in range(1, 24, 2):
        for x in range(m):
            for y in range(m):
                run_check(x, y, m, MIN_N, GFP)


def test_exhaustive_gf2n_small_polynomials() -> None:
    """Every p(x) with p(0) = 1 of degree <= 4 below 24, every pair of operands below it."""
    for m in range(1, 24, 2):
        for x in range(m):
            for y in range(m):
                run_check(x, y, m, MIN_N, GF2N)


# --- NIST and random irreducible polynomials ------------------------------------------------
@pytest.mark.parametrize("name,n", [("B-163", 164), ("B-163", 256), ("B-233", 233 + 1),
                                    ("B-233", 256), ("B-283", 284), ("B-283", 320)])
def test_nist_polynomials(name: str, n: int) -> None:
    p = gf2.NIST_POLYS[name]
    rng = random.Random(name + str(n))
    deg = gf2.degree(p)
    for x, y in [(0, 1), (1, 1), ((1 << deg) - 1, (1 << deg) - 1)] + [
            (rng.getrandbits(deg), rng.getrandbits(deg)) for _ in range(20)]:
        run_check(x, y, p, n, GF2N)


def test_montgomery_domain_round_trip_b163() -> None:
    """a*R * b*R * R^-1 = a*b*R: multiplying in the Montgomery domain of GF(2^163)."""
    p, n = gf2.NIST_POLYS["B-163"], 256
    r = r_bits(n, GF2N)
    rng = random.Random(163)
    for _ in range(10):
        a, b = rng.getrandbits(163), rng.getrandbits(163)
        a_m, b_m = gf2.mod(a << r, p), gf2.mod(b << r, p)
        assert mont_dual(a_m, b_m, p, n, GF2N).p == gf2.mod(gf2.mul(a, b) << r, p)


@pytest.mark.parametrize("n", [163, 233, 256])
def test_random_irreducible(n: int) -> None:
    rng = random.Random(n)
    for deg in (n - 1, rng.randint(2, n - 1)):
        p = gf2.random_irreducible(deg, rng)
        assert gf2.degree(p) == deg and gf2.is_irreducible(p)
        for _ in range(5):
            run_check(rng.getrandbits(deg), rng.getrandbits(deg), p, n, GF2N)


# --- property tests ---------------------------------------------------------------------------
@st.composite
def operands(draw: st.DrawFn) -> tuple[int, int, int, int, int]:
    n = draw(st.sampled_from([80, 96, 127, 128, 129, 160, 163, 192, 233, 256, 300]))
    field = draw(st.sampled_from([GFP, GF2N]))
    m = draw(st.integers(1, (1 << n) - 1)) | 1
    if draw(st.booleans()):  # full-width modulus
        m |= 1 << (n - 1)
    x = draw(st.integers(0, m - 1))
    y = draw(st.sampled_from([0, 1 % m, m - 1, x])) if draw(st.booleans()) else \
        draw(st.integers(0, m - 1))
    return x, y, m, n, field


@BASE
@given(operands())
def test_property_both_fields(ops: tuple[int, int, int, int, int]) -> None:
    run_check(*ops)


# --- host precomputation (MP) -----------------------------------------------------------------
@BASE
@given(st.integers(0, (1 << 255) - 1), st.sampled_from([80, 163, 256]))
def test_mp_pack(m: int, n: int) -> None:
    m = (m % (1 << n)) | 1
    mp = mp_pack(m, n)
    assert mp < 1 << (K + W) <= 1 << n
    m_prime, q = mp & ((1 << K) - 1), mp >> K
    assert m_prime == int(-gmpy2.invert(m, 1 << K) % (1 << K))  # gmpy2
    assert (m * m_prime + 1) % (1 << K) == 0
    assert q == gf2.inverse_mod_xk(m, W)  # extended Euclid
    assert gf2.mod(gf2.mul(q, m), 1 << W) == 1


def test_mp_needs_odd_modulus_and_width() -> None:
    with pytest.raises(ModelInputError, match="odd"):
        mp_pack(6, 96)
    with pytest.raises(ModelInputError, match=r"^mont_dual: N must be at least 80"):
        mp_pack(7, 64)


# --- the two multipliers --------------------------------------------------------------------
@BASE
@given(st.integers(0, (1 << W) - 1), st.integers(0, (1 << W) - 1))
def test_units_and_carry_less_multiplier(a: int, b: int) -> None:
    assert umul_units(a, b) == (a % (1 << K)) * b  # four K x K units = one K x W product
    assert clmul(a, b) == gf2.mul(a, b)


# --- cycles vs the paper ----------------------------------------------------------------------
def test_cycles_at_256_bits() -> None:
    assert cycles(256, GFP) == 165  # the paper's figure
    assert cycles(256, GF2N) == 41  # the paper says 45 (docs/dual.md)
    assert mont_dual(3, 5, (1 << 255) + 1, 256, GFP).cycles == 165
    assert mont_dual(3, 5, gf2.NIST_POLYS["B-233"], 256, GF2N).cycles == 41


# --- bad input, one line each ---------------------------------------------------------------
@pytest.mark.parametrize("args,match", [
    ((1, 2, 7, 64, GFP), "N must be at least 80"),
    ((1, 2, 8, 96, GFP), "odd"),
    ((2, 7, 7, 96, GF2N), r"Y must be in \[0, M\)"),
    ((1 << 96, 2, 7, 96, GFP), r"X must be in \[0, 2\^n\)"),
    ((1, 2, 7, 96, 2), "field must be 0"),
    ((1, 2, 1 << 100 | 1, 96, GFP), "< 2\\^n"),
])
def test_bad_input(args: tuple[int, ...], match: str) -> None:
    with pytest.raises(ModelInputError, match=match) as info:
        mont_dual(*args)
    assert "\n" not in str(info.value)


def test_registry_entry() -> None:
    assert INFO.has_field and INFO.field1_kind == "mont_gf2"
    assert INFO.precomputed(0x11B, 96, {}) == {"MP": mp_pack(0x11B, 96)}
    with pytest.raises(ModelInputError, match="at least 80"):
        INFO.resolve(32)
    with pytest.raises(ModelInputError, match="no field 1"):
        reference(get_algo("mont_lut"), 1, 2, 7, 8, field=1)
    assert INFO.run({}, 5, 7, 0x11B, 96, field=1).p == gf2.mont_product(5, 7, 0x11B, 128)


# --- the independent GF(2)[x] implementation --------------------------------------------------
def _schoolbook(a: int, b: int) -> int:
    """Product from coefficient lists (a third way, for checking gf2.mul)."""
    ca = [(a >> i) & 1 for i in range(a.bit_length())]
    cb = [(b >> i) & 1 for i in range(b.bit_length())]
    out = [0] * (len(ca) + len(cb))
    for i, u in enumerate(ca):
        for j, v in enumerate(cb):
            out[i + j] ^= u & v
    return sum(c << k for k, c in enumerate(out))


@BASE
@given(st.integers(0, 1 << 200), st.integers(0, 1 << 200), st.integers(1, 1 << 120))
def test_gf2_arithmetic(a: int, b: int, p: int) -> None:
    assert gf2.mul(a, b) == _schoolbook(a, b)
    assert gf2.square(a) == gf2.mul(a, a)
    q, r = gf2.divmod_poly(a, p)
    assert gf2.mul(q, p) ^ r == a and gf2.degree(r) < gf2.degree(p)
    assert gf2.mod(a, p) == r
    if gf2.gcd(a, p) == 1 and gf2.degree(p) > 0:
        assert gf2.mulmod(gf2.inverse(a, p), a, p) == 1


@pytest.mark.parametrize("test", [gf2.is_irreducible, gf2.is_irreducible_rabin])
def test_irreducible_counts_match_gauss(test) -> None:
    """Ben-Or's and Rabin's tests each find exactly the number of irreducibles Gauss's formula
    gives, and the known small ones."""
    for n in range(1, 12):
        found = sum(test(p) for p in range(1 << n, 1 << (n + 1)))
        assert found == gf2.count_irreducible(n), n
    assert [p for p in range(2, 16) if test(p)] == [2, 3, 7, 11, 13]


def test_ben_or_agrees_with_rabin() -> None:
    """The two tests agree on random polynomials of degree 12..200 and on products of two
    irreducibles (the reducible candidates with no small factor, which Ben-Or rejects
    late), and random_irreducible finds the same polynomial with either test (a seed's
    stimulus does not depend on which test ran)."""
    rng = random.Random(7)
    verdicts = []
    for _ in range(300):
        deg = rng.randint(12, 200)
        p = (1 << deg) | rng.getrandbits(deg) | 1
        verdicts.append(gf2.is_irreducible(p))
        assert verdicts[-1] == gf2.is_irreducible_rabin(p), hex(p)
    assert 0 < sum(verdicts) < len(verdicts)  # both verdicts were compared
    for d1, d2 in ((13, 17), (31, 31), (40, 61)):
        f, g = gf2.random_irreducible(d1, rng), gf2.random_irreducible(d2, rng)
        assert not gf2.is_irreducible(gf2.mul(f, g)) and not gf2.is_irreducible_rabin(
            gf2.mul(f, g))
    for deg in (9, 64, 163):
        fast = gf2.random_irreducible(deg, random.Random(deg))
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(gf2, "is_irreducible", gf2.is_irreducible_rabin)
            assert gf2.random_irreducible(deg, random.Random(deg)) == fast
    assert [p for p in range(2, 16) if gf2.is_irreducible(p)] == [2, 3, 7, 11, 13]
    assert gf2.is_irreducible(0x11B)  # AES
    assert not gf2.is_irreducible(gf2.mul(0x11B, 0x11B))
    for p in gf2.NIST_POLYS.values():
        assert gf2.is_irreducible(p)
    assert not gf2.is_irreducible(gf2.NIST_POLYS["B-163"] ^ 0b10)  # x^163+x^7+x^6+x^3+x+1


def test_irreducible_by_brute_force_small() -> None:
    """Degree <= 9: irreducible iff no factor of degree 1..deg/2 divides it."""
    for p in range(2, 1 << 10):
        d = gf2.degree(p)
        brute = all(gf2.mod(p, f) != 0 for f in range(2, 1 << (d // 2 + 1)))
        assert gf2.is_irreducible(p) == brute, p


def test_gf2_mont_product_definition() -> None:
    p = 0x11B
    for a in range(0, 256, 7):
        for b in range(0, 256, 11):
            c = gf2.mont_product(a, b, p, 128)
            assert gf2.mulmod(c, gf2.mod(1 << 128, p), p) == gf2.mulmod(a, b, p)
    assert gf2.mont_product(0, 5, 1, 64) == 0
    with pytest.raises(ModelInputError, match="p\\(0\\) = 1"):
        gf2.mont_product(1, 1, 0x11A, 64)
