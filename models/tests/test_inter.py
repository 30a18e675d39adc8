"""Bit-accurate interleaved models (Amanor Alg. 2, 4, 5) vs. gmpy2 and the derivations."""

from __future__ import annotations

import random

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models import ref
from montverif.models.inter import (
    CSA_TABLE_SIZE,
    LUT_SIZE,
    final_reduce,
    final_reduce_ties,
    inter_csa,
    inter_csa_cycles,
    inter_csa_table,
    inter_lut,
    inter_lut_cycles,
    inter_lut_table,
    inter_r2,
    lut_address,
    lut_k,
    madd_ties,
    normalise,
    pow2_mod,
)
from montverif.models.mont import csa, validate
from montverif.models.registry import ModelFunc, get_algo, reference
from montverif.models.result import ModelInputError, Result
from montverif.models.tests.test_mont import agree, big_operands
from montverif.regress.tests.testshard import standins

MODELS: list[ModelFunc] = [inter_r2, inter_csa, inter_lut]
CYCLES = {"inter_r2": 0, "inter_csa": 8, "inter_lut": 9}  # cycles - n
LUT_BINS = {"inter_r2": 3, "inter_csa": CSA_TABLE_SIZE, "inter_lut": LUT_SIZE}
ILLEGAL = {"inter_r2": set(), "inter_csa": {6}, "inter_lut": set()}
SC_BOUND = {"inter_csa": 7, "inter_lut": 5}  # S + C < bound * 2^n after the loop
BASE = settings(database=None, deadline=None)


def _uniform(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Integers in [lo, hi]: Hypothesis' own (small-biased) mixed with uniform ones."""
    return st.one_of(
        st.integers(lo, hi),
        st.randoms(use_true_random=False).map(lambda r: r.randint(lo, hi)),
    )


@st.composite
def operands(draw: st.DrawFn, min_n: int, max_n: int) -> tuple[int, int, int, int]:
    """(x, y, m, n): odd m < 2^n, full width or shorter (normalisation shift z > 0)."""
    n = draw(st.integers(min_n, max_n))
    if draw(st.booleans()):  # m in [2^(n-1)+1, 2^n-1]
        m = 2 * draw(_uniform(2 ** (n - 2), 2 ** (n - 1) - 1)) + 1
    else:  # m in [1, 2^(n-1)-1]
        m = 2 * draw(_uniform(0, 2 ** (n - 2) - 1)) + 1
    edge = st.sampled_from([0, 1, m - 1]).filter(lambda v: v < m)
    x = draw(st.one_of(_uniform(0, m - 1), edge))
    y = draw(st.one_of(_uniform(0, m - 1), edge))
    return x, y, m, n


def check(model: ModelFunc, x: int, y: int, m: int, n: int) -> None:
    """Run one model and check every Result field against gmpy2 and the derived bounds."""
    r = model(x, y, m, n)
    info = get_algo(r.algo)
    assert info.func is model and info.kind == "inter"
    assert r.n == n
    assert r.p == ref.inter_product(x, y, m) == reference(info, x, y, m, n), (r.algo, x, y, m)
    assert r.cycles == n + CYCLES[r.algo]
    if info.has_sc:
        assert r.s is not None and r.c is not None
        z = n - m.bit_length()
        # S + C is congruent to P * 2^z modulo the normalised modulus M * 2^z
        assert (r.s + r.c) % (m << z) == r.p << z
        assert 0 <= r.s < 2 ** (n + 2) and 0 <= r.c < 2 ** (n + 2)
        assert r.s + r.c < SC_BOUND[r.algo] * 2**n
    else:
        assert r.s is None and r.c is None
    assert sum(r.lut.values()) == n
    assert all(0 <= a < LUT_BINS[r.algo] and h > 0 for a, h in r.lut.items())
    assert not set(r.lut) & ILLEGAL[r.algo]


@settings(BASE, max_examples=200)
@given(operands(2, 64))
def test_models_random_small(args: tuple[int, int, int, int]) -> None:
    for model in MODELS:
        check(model, *args)


@settings(BASE, max_examples=25)
@given(operands(65, 2048))
def test_models_random_large(args: tuple[int, int, int, int]) -> None:
    for model in MODELS:
        check(model, *args)


@pytest.mark.parametrize("n", [2, 3, 8, 32, 97, 1024, 2048])
@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_corner_cases(model: ModelFunc, n: int) -> None:
    check(model, 0, 0, 1, n)
    for m in sorted({1, 3, 2 ** (n - 1) + 1, 2**n - 1}):
        vals = sorted({0, min(1, m - 1), m // 3, max(m - 2, 0), m - 1})
        for x in vals:
            for y in vals:
                check(model, x, y, m, n)


@pytest.mark.parametrize("n", standins(range(2, 7), lambda n: n < 6, seconds=5))  # 6: nightly
@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_exhaustive_small(model: ModelFunc, n: int) -> None:
    for m in range(1, 2**n, 2):
        for x in range(m):
            for y in range(m):
                check(model, x, y, m, n)


def _reached(model: ModelFunc, n: int, pairs: int | None) -> set[int]:
    """Table addresses used over every odd M < 2^n: all X, Y < M (pairs None) or `pairs`
    random (X, Y) per modulus (fixed seed)."""
    rng = random.Random(n)
    reached: set[int] = set()
    for m in range(1, 2**n, 2):
        if pairs is None:
            xys = [(x, y) for x in range(m) for y in range(m)]
        else:
            xys = [(rng.randrange(m), rng.randrange(m)) for _ in range(pairs)]
        for x, y in xys:
            reached.update(model(x, y, m, n).lut)
    return reached


ALL_LUT = set(range(LUT_SIZE))
# inter_lut, by enumeration (n <= 6 here; n = 7 and 8 were enumerated fully once, see
# docs/interleaved.md): all 8 addresses 2k + x occur from n = 5 on.
LUT_REACHABLE = {2: {0, 1}, 3: {0, 1, 2, 3, 4}, 4: {0, 1, 2, 3, 4, 5}, 5: ALL_LUT, 6: ALL_LUT}
# inter_csa: k = S div 2^n + C div 2^n; k = 6 never occurs (proof in docs/interleaved.md),
# k = 5 first appears at n = 8 (witness below).
CSA_REACHABLE = {2: {0}, 3: {0, 1, 2}, 4: {0, 1, 2}, 5: {0, 1, 2, 3}, 6: {0, 1, 2, 3, 4}}


@pytest.mark.parametrize("n", sorted(LUT_REACHABLE))
def test_lut_reachable_exhaustive(n: int) -> None:
    assert _reached(inter_lut, n, None) == LUT_REACHABLE[n]


@pytest.mark.parametrize("n", [7, 8])
def test_lut_reachable_sampled(n: int) -> None:
    """All odd M, 150 random X, Y each: still all 8 addresses."""
    assert _reached(inter_lut, n, 150) == ALL_LUT


@pytest.mark.parametrize("n", sorted(CSA_REACHABLE))
def test_csa_reachable_exhaustive(n: int) -> None:
    assert _reached(inter_csa, n, None) == CSA_REACHABLE[n]


def test_csa_k5_witness() -> None:
    assert 5 in inter_csa(191, 188, 193, 8).lut


@pytest.mark.parametrize("n", [3, 4, 8])
def test_r2_selections_reachable(n: int) -> None:
    assert _reached(inter_r2, n, None if n < 8 else 50) == {0, 1, 2}


TABLE_CASES = [
    (0, 1, 2),
    (0, 1, 8),
    (5, 7, 3),
    (5, 7, 8),
    (100, 129, 8),
    (200, 255, 8),
    (0xAB, 0xFB, 8),
    (2**96 + 2, 2**97 - 1, 97),
    (12345, 2**20 + 7, 97),
]


@pytest.mark.parametrize(("y", "m", "n"), TABLE_CASES)
def test_lut_table_contents(y: int, m: int, n: int) -> None:
    """Entry 2k + x = (2 * (k * 2^n mod M') + x * Y') mod M', computed with gmpy2."""
    z, yn, mn = normalise(y, m, n)
    assert z >= 0 and 2 ** (n - 1) <= mn < 2**n and yn == y * 2**z < mn
    table = inter_lut_table(y, m, n)
    assert len(table) == LUT_SIZE
    big = gmpy2.mpz(2) ** n
    for k in range(4):
        a = int(gmpy2.f_mod(k * big, mn))
        for x in (0, 1):
            assert table[lut_address(k, x)] == int(gmpy2.f_mod(2 * a + x * yn, mn))
            assert 0 <= table[lut_address(k, x)] < mn


@pytest.mark.parametrize(("y", "m", "n"), TABLE_CASES)
def test_csa_table_contents(y: int, m: int, n: int) -> None:
    _, _, mn = normalise(y, m, n)
    table = inter_csa_table(y, m, n)
    assert table == [int(gmpy2.f_mod(k * gmpy2.mpz(2) ** n, mn)) for k in range(7)]


@settings(BASE, max_examples=300)
@given(st.integers(3, 80), st.data())
def test_lut_k_is_overflow(n: int, data: st.DataObject) -> None:
    """The 2-bit address k equals S div 2^n + C div 2^n for any CSA output of the loop."""
    s_old = data.draw(st.integers(0, 2**n - 1))
    c_old = data.draw(st.integers(0, 2**n - 1))
    a = data.draw(st.integers(0, 2**n - 1))
    s = (2 * s_old) ^ (2 * c_old) ^ a
    c = (((2 * s_old) & (2 * c_old)) | ((2 * s_old) & a) | ((2 * c_old) & a)) << 1
    assert lut_k(s, c, n) == (s >> n) + (c >> n) <= 3


def test_lut_address_rejects() -> None:
    with pytest.raises(ModelInputError):
        lut_address(4, 0)
    with pytest.raises(ModelInputError):
        lut_address(0, 2)


def test_final_reduce() -> None:
    mn = 0b1011 << 4  # M = 11, n = 8, z = 4
    for v in range(0, 16 * mn, 16):
        assert final_reduce(v, mn, 4) == (v % mn) >> 4
    with pytest.raises(AssertionError):
        final_reduce(16 * mn, mn, 4)


@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("x", "y", "m", "n", "match"),
    [
        (1, 1, 0x10, 8, r"^modulus M must be odd \(got 0x10\)$"),
        (1, 1, 0x101, 8, "M must be < 2\\^n"),
        (0x200, 1, 0x101, 9, "^X must be < 2\\^n"),
        (1, 0x200, 0x101, 10, "^Y must be < M"),
    ],
)
def test_bad_input(model: ModelFunc, x: int, y: int, m: int, n: int, match: str) -> None:
    with pytest.raises(ModelInputError, match=match):
        model(x, y, m, n)


# --- The models' hot loops against step-by-step references --------------------------------
#
# The models inline csa, lut_k and lut_address and keep the registers as gmpy2 mpz; the
# references are the readable loops they replaced. Every Result field must match.


def _bits_msb_first(x: int, n: int) -> list[int]:
    return [(x >> i) & 1 for i in range(n - 1, -1, -1)]


def _inter_r2_steps(x: int, y: int, m: int, n: int) -> Result:
    validate(x, y, m, n)
    p = 0
    lut: dict[int, int] = {}
    for xi in _bits_msb_first(x, n):
        p = 2 * p + (y if xi else 0)
        assert p < 3 * m
        q = 0
        if p >= m:
            p -= m
            q += 1
        if p >= m:
            p -= m
            q += 1
        assert p < m
        lut[q] = lut.get(q, 0) + 1
    return Result("inter_r2", n, p, None, None, n, lut)


def _inter_csa_steps(x: int, y: int, m: int, n: int) -> Result:
    validate(x, y, m, n)
    z, yn, mn = normalise(y, m, n)
    table = inter_csa_table(y, m, n)
    mask = (1 << n) - 1
    s = c = k = 0
    lut: dict[int, int] = {}
    for xi in _bits_msb_first(x, n):
        lut[k] = lut.get(k, 0) + 1
        s, c = csa(2 * (s & mask), 2 * (c & mask), yn if xi else 0)
        s, c = csa(s, c, 2 * table[k])
        assert s < 1 << (n + 2) and c < 1 << (n + 2), "inter_csa: S, C exceed n + 2 bits"
        k = (s >> n) + (c >> n)  # step (11): A = k * 2^n mod M', used in the next iteration
        assert k < CSA_TABLE_SIZE
    assert s + c < 7 << n
    p, ties = final_reduce_ties(s + c, mn, z)
    ties |= madd_ties([(table[i - 1], table[1], tuple(range(i, CSA_TABLE_SIZE)))
                       for i in range(2, CSA_TABLE_SIZE)], mn, lut)
    return Result("inter_csa", n, p, s, c, inter_csa_cycles(n), lut, ties=ties)


def _inter_lut_steps(x: int, y: int, m: int, n: int) -> Result:
    validate(x, y, m, n)
    z, _, mn = normalise(y, m, n)
    table = inter_lut_table(y, m, n)
    mask = (1 << n) - 1
    bits = _bits_msb_first(x, n)
    addr = lut_address(0, bits[0])  # step (3): A := LookUp(x_(n-1))
    lut: dict[int, int] = {}
    s = c = 0
    for i, _ in enumerate(bits):
        lut[addr] = lut.get(addr, 0) + 1
        s, c = csa(2 * (s & mask), 2 * (c & mask), table[addr])
        k = lut_k(s, c, n)
        assert (s >> n) + (c >> n) == k, "inter_lut: k is not the overflow of S + C"
        next_bit = bits[i + 1] if i + 1 < n else 0
        addr = lut_address(k, next_bit)
    assert s + c < 5 << n
    p, ties = final_reduce_ties(s + c, mn, z)
    h, yn = pow2_mod(mn, n), normalise(y, m, n)[1]
    steps = [(h, h, (2, 3, 4, 5, 6, 7)), (table[2], table[2], (4, 5, 6, 7)),
             (table[4], table[2], (6, 7))]
    ties |= madd_ties(steps + [(table[2 * k], yn, (2 * k + 1,)) for k in (1, 2, 3)], mn, lut)
    return Result("inter_lut", n, p, s, c, inter_lut_cycles(n), lut, ties=ties)


STEPS: dict[str, tuple[ModelFunc, ModelFunc]] = {
    "inter_r2": (inter_r2, _inter_r2_steps),
    "inter_csa": (inter_csa, _inter_csa_steps),
    "inter_lut": (inter_lut, _inter_lut_steps),
}


@settings(BASE, max_examples=400)
@given(operands(2, 300))
def test_inlined_loops(args: tuple[int, int, int, int]) -> None:
    for pair in STEPS.values():
        agree(pair, args)


@pytest.mark.parametrize("args", big_operands(), ids=lambda a: f"n{a[3]}")
@pytest.mark.parametrize("name", sorted(STEPS))
def test_inlined_loops_wide(name: str, args: tuple[int, int, int, int]) -> None:
    agree(STEPS[name], args)
