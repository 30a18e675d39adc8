"""mont_r4 (radix-4 Montgomery, models/mont_r4.py) against gmpy2 and independent derivations."""

from __future__ import annotations

import random

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models import ref
from montverif.models.mont_r4 import (
    TABLE_BINS,
    Step,
    cycles,
    digits,
    fin,
    m_prime,
    mont_r4,
    mont_r4_steps,
    quotient_digit,
    table_address,
)
from montverif.models.result import ModelInputError
from montverif.models.tests.bad_inputs import BAD_INPUTS
from montverif.spec.designs import load_design

BASE = settings(database=None, deadline=None)
DESIGN = load_design("mont_r4")  # its descriptor: widths, R, cycles
ALL_ADDRESSES = set(range(TABLE_BINS))


def reference(x: int, y: int, m: int, n: int) -> int:
    """X*Y*R^-1 mod M with R = 4^ceil(n/2), from gmpy2's modular inverse."""
    r = gmpy2.mpz(4) ** digits(n)
    return int(x * y * gmpy2.invert(r, m) % m) if m > 1 else 0


def quotient(x: int, y: int, m: int, n: int) -> int:
    """Q = -X*Y*M^-1 mod 4^K: its base-4 digits are the q_i of the loop, since X*Y + Q*M must
    be divisible by 4^K (independent of the model's loop)."""
    mod = 4 ** digits(n)
    return (-x * y * pow(m, -1, mod)) % mod


def check(x: int, y: int, m: int, n: int) -> None:
    """One operation: every Result field, and every loop step against the closed forms."""
    k = digits(n)
    r = mont_r4(x, y, m, n)
    assert r.algo == "mont_r4" and r.n == n
    assert r.p == reference(x, y, m, n) == ref.mont_product(x, y, m, 2 * k), (x, y, m, n)
    assert r.cycles == k + 2
    assert r.unreduced is None and r.s is not None and r.c is not None
    assert 0 <= r.s < 2 ** (n + 1) and 0 <= r.c < 2 ** (n + 1)  # N+1-bit registers
    q = quotient(x, y, m, n)
    assert r.s + r.c == (x * y + q * m) >> (2 * k)  # the unreduced P, below 2M
    assert r.s + r.c < 2 * m and r.p == (r.s + r.c) % m
    steps = mont_r4_steps(x, y, m, n)
    assert [sp.i for sp in steps] == list(range(k))
    hist: dict[int, int] = {}
    for sp in steps:
        x_i, q_i = (x >> 2 * sp.i) & 3, (q >> 2 * sp.i) & 3
        assert (sp.x_i, sp.q_i, sp.address) == (x_i, q_i, table_address(x_i, q_i))
        hist[sp.address] = hist.get(sp.address, 0) + 1
        low = 4 ** (sp.i + 1)  # T after i+1 digits: (X_low*Y + Q_low*M) / 4^(i+1)
        assert sp.t == ((x % low) * y + (q % low) * m) // low
        assert sp.t < 2 * m, (x, y, m, n, sp)  # the bound, every iteration
        assert sp.cin in (0, 1) and sp.s < 2**n and sp.c < 2 ** (n + 1)
    assert r.lut == hist and sum(r.lut.values()) == k
    assert (r.s, r.c) == fin(steps[-1].s, steps[-1].c, steps[-1].cin)


@st.composite
def operands(draw: st.DrawFn, widths: st.SearchStrategy[int]) -> tuple[int, int, int, int]:
    """(x, y, m, n): odd m < 2^n, full-width or shorter, x, y < m, edges mixed in."""
    n = draw(widths)
    if draw(st.booleans()):
        m = draw(st.integers(2 ** (n - 1), 2**n - 1)) | 1
    else:
        m = draw(st.integers(1, 2 ** (n - 1) - 1)) | 1
    edge = st.sampled_from([0, 1, m - 1]).filter(lambda v: v < m)
    x = draw(st.one_of(st.integers(0, m - 1), edge))
    y = draw(st.one_of(st.integers(0, m - 1), edge))
    return x, y, m, n


@pytest.mark.parametrize("n", [4, 5, 6])
def test_exhaustive_small(n: int) -> None:
    """Every odd M < 2^min(n, 5) (all of them at n = 4 and 5; at n = 6 the same moduli, with
    one more digit), every X, Y < M: P against gmpy2's X*Y*R^-1 mod M."""
    for m in range(1, 2 ** min(n, 5), 2):
        rinv = pow(4 ** digits(n), -1, m) if m > 1 else 0
        for x in range(m):
            for y in range(m):
                r = mont_r4(x, y, m, n)
                assert r.p == x * y * rinv % m, (x, y, m, n)
                assert r.s is not None and r.c is not None
                assert r.s + r.c < 2 * m and (r.s + r.c) % m == r.p


@pytest.mark.parametrize("n", [5, 6])
def test_exhaustive_steps(n: int) -> None:
    """The same operands through every per-step check (bound, T, digits, histogram)."""
    for m in range(1, 32, 2):
        for x in range(m):
            for y in range(m):
                check(x, y, m, n)


@settings(BASE, max_examples=400)
@given(operands(st.integers(DESIGN.min_n, 64)))
def test_random_small(args: tuple[int, int, int, int]) -> None:
    check(*args)


@settings(BASE, max_examples=10)
@given(operands(st.sampled_from([1024, 2047])))
def test_random_wide(args: tuple[int, int, int, int]) -> None:
    check(*args)


@pytest.mark.parametrize("n", [1024, 2047])
def test_seeded_wide(n: int) -> None:
    rng = random.Random(4 * n + 1)
    for m in (rng.getrandbits(n) | 1 | 1 << (n - 1), rng.getrandbits(n - 37) | 1, 2**n - 1):
        for x, y in ((rng.randrange(m), rng.randrange(m)), (m - 1, m - 1), (0, m - 1)):
            check(x, y, m, n)


@pytest.mark.parametrize("n", [4, 5, 8, 31, 32, 97, 1024, 2047])
def test_corner_cases(n: int) -> None:
    check(0, 0, 1, n)
    for m in sorted({2 ** (n - 1) + 1, 2**n - 1, 3, 5, 7}):
        vals = sorted({0, 1, m // 3, m - 2, m - 1})
        for x in vals:
            for y in vals:
                check(x, y, m, n)


# Table addresses {x_i, q_i}: all 16 are reachable for every n >= 4. Derivation: in the first
# iteration T = 0, so t = x_0*Y mod 4; for an odd digit, Y mod 4 takes every value (Y < M,
# M >= 5) and q = t*m' with m' a unit mod 4, so (1, q) and (3, q) occur for all four q; the
# digits 0 and 2 need T mod 4 to vary, which the later iterations give (witnesses below, at
# n = 4). Monotone in n: (X, Y, M) legal at n is legal at n + 1, whose first ceil(n/2)
# iterations are the same and whose extra ones only add zero digits. Confirmed below by
# enumeration of every odd M < 2^n, X, Y < M at n = 4, 5, 6: no illegal bins.
WITNESSES = {  # address: (x, y, m, iteration), n = 4
    0: (0, 0, 1, 0), 1: (1, 1, 3, 1), 2: (1, 2, 3, 1), 3: (1, 4, 5, 1),
    4: (1, 0, 3, 0), 5: (1, 1, 3, 0), 6: (1, 2, 3, 0), 7: (1, 1, 5, 0),
    8: (2, 0, 3, 0), 9: (9, 1, 11, 1), 10: (2, 1, 3, 0), 11: (9, 3, 11, 1),
    12: (3, 0, 5, 0), 13: (3, 1, 5, 0), 14: (3, 2, 5, 0), 15: (3, 3, 5, 0),
}


@pytest.mark.parametrize("n", [4, 5, 6])
def test_reachable_addresses(n: int) -> None:
    reached: set[int] = set()
    for m in range(1, 2**n, 2):
        for x in range(m):
            for y in range(m):
                reached.update(mont_r4(x, y, m, n).lut)
    assert reached == ALL_ADDRESSES


@pytest.mark.parametrize("n", [4, 5, 64, 1024])
def test_address_witnesses(n: int) -> None:
    for addr, (x, y, m, i) in WITNESSES.items():
        assert mont_r4_steps(x, y, m, n)[i].address == addr


@pytest.mark.parametrize("n", [*range(DESIGN.min_n, 40), 97, 1024, 1025, 2047, 2048])
def test_cycles_and_r(n: int) -> None:
    """The descriptor's R and cycle formulas against the model's loop."""
    k = (n + 1) // 2
    assert digits(n) == k and DESIGN.r_bits_at(n, {}) == 2 * k in (n, n + 1)
    assert cycles(n) == k + 2 == mont_r4(1, 1, 3, n).cycles == DESIGN.cycles_at(n, {})
    assert len(mont_r4_steps(2**n - 2, 1, 2**n - 1, n)) == k


def test_m_prime_and_quotient_digit() -> None:
    for m in range(1, 64, 2):
        mp = m_prime(m)
        assert mp == -pow(m, -1, 4) % 4 and (m * mp) % 4 == 3
        for t in range(4):
            q = quotient_digit(t, m)
            assert q == t * mp % 4 and (t + q * m) % 4 == 0
    with pytest.raises(ModelInputError):
        m_prime(4)
    with pytest.raises(ModelInputError):
        quotient_digit(4, 3)


def test_table_address() -> None:
    assert [table_address(a >> 2, a & 3) for a in range(16)] == list(range(16))
    for bad in ((4, 0), (0, 4), (-1, 0)):
        with pytest.raises(ModelInputError):
            table_address(*bad)


@BASE
@given(st.integers(0, 2**80), st.integers(0, 2**80), st.integers(0, 1))
def test_fin_fold(s: int, c: int, cin: int) -> None:
    s2, c2 = fin(s, c, cin)
    assert s2 + c2 == s + c + cin and c2 & 1 == cin


def test_step_t() -> None:
    assert Step(0, 1, 2, 6, 5, 7, 1).t == 13


@pytest.mark.parametrize(
    ("x", "y", "m", "n", "match"),
    [
        *BAD_INPUTS,
        (1, 1, 7, 8.0, "n must be an int"),
    ],
)
def test_bad_input(x: int, y: int, m: int, n: int, match: str) -> None:
    for call in (mont_r4, mont_r4_steps):
        with pytest.raises(ModelInputError, match=match) as info:
            call(x, y, m, n)
        assert "\n" not in str(info.value)
