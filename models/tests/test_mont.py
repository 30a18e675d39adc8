"""Bit-accurate Montgomery models vs. the gmpy2 reference."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models import ref
from montverif.models.mont import (
    _bits_lsb_first,
    csa,
    final_sub,
    lut_address,
    mont_csa,
    mont_lut,
    mont_lut_table,
    mont_r2,
    sel_address,
    validate,
)
from montverif.models.registry import ALGOS, ModelFunc, get_algo, reference
from montverif.models.result import ModelInputError, Result
from montverif.models.tests.bad_inputs import BAD_INPUTS

MODELS: list[ModelFunc] = [mont_r2, mont_csa, mont_lut]
CYCLES = {"mont_r2": 1, "mont_csa": 1, "mont_lut": 2}  # cycles - n
BASE = settings(database=None, deadline=None)
SEL_BINS = {"mont_r2": 4, "mont_csa": 4}  # selection address (x_i << 1) | q_i


# the models' bad inputs: any n-bit Y is theirs (Y >= M included), a wider one is refused
WIDE_Y_BAD = [b if "Y must be < M" not in str(b[4]) else (1, 0x400, 0x101, 10, r"^Y must be < 2\^n")
              for b in BAD_INPUTS]


def check(model: ModelFunc, x: int, y: int, m: int, n: int) -> None:
    """Run one model and check every Result field against the reference: P the Montgomery
    product, fully reduced for Y < M; for Y >= M congruent to it and below max(Y, M), the
    one subtraction of T = (X*Y + Q*M) / 2^n (Q from M's inverse, not from the loops)."""
    r = model(x, y, m, n)
    info = get_algo(r.algo)
    assert info.func is model
    assert r.n == n
    t = (x * y + quotient_bits(x, y, m, n) * m) >> n
    assert t < y + m and r.p == (t - m if t >= m else t), (r.algo, x, y, m, n)
    assert r.p % m == ref.mont_product(x, y, m, n) and r.p < max(y, m)
    if y < m:
        assert r.p == ref.mont_product(x, y, m, n), (r.algo, x, y, m, n)
    assert r.cycles == n + CYCLES[r.algo]
    if info.has_sc:
        assert r.s is not None and r.c is not None
        assert (r.s + r.c) % m == r.p % m and r.s + r.c == t
        assert r.s + r.c < y + m
        assert 0 <= r.s < 2**n and 0 <= r.c < 2**n  # n-bit S/C registers after shift
    else:
        assert r.s is None and r.c is None
    if info.has_lut and r.algo in SEL_BINS:  # mont_r2, mont_csa: selection (x_i, q_i)
        assert sum(r.lut.values()) == n
        assert all(0 <= a < SEL_BINS[r.algo] and h > 0 for a, h in r.lut.items())
        assert r.lut == expected_selections(x, y, m, n)
        if info.has_sc:  # the loop's S + C is Algorithm 1a's P before the subtraction
            assert r.s is not None and r.c is not None
            assert r.s + r.c == (x * y + quotient_bits(x, y, m, n) * m) >> n
    elif info.has_lut:
        assert sum(r.lut.values()) == n
        assert all(0 <= a < 16 and h > 0 for a, h in r.lut.items())
        assert all((a >> 2) & 1 == y & 1 for a in r.lut)  # y_0 address bit is Y's LSB
    else:
        assert r.lut == {}


def quotient_bits(x: int, y: int, m: int, n: int) -> int:
    """Q = -X*Y*M^-1 mod 2^n: bit i is the q_i (add M) of Algorithms 1a/1b, since
    X*Y + Q*M must be divisible by 2^n (independent of the models' loops)."""
    return (-x * y * pow(m, -1, 2**n)) % 2**n


def expected_selections(x: int, y: int, m: int, n: int) -> dict[int, int]:
    """Histogram of the selection (x_i << 1) | q_i over the n iterations, from Q."""
    q = quotient_bits(x, y, m, n)
    hist: dict[int, int] = {}
    for i in range(n):
        a = (((x >> i) & 1) << 1) | ((q >> i) & 1)
        hist[a] = hist.get(a, 0) + 1
    return hist


def _uniform(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Integers in [lo, hi]: Hypothesis' own (small-biased) mixed with uniform ones."""
    return st.one_of(
        st.integers(lo, hi),
        st.randoms(use_true_random=False).map(lambda r: r.randint(lo, hi)),
    )


@st.composite
def operands(draw: st.DrawFn, min_n: int, max_n: int, wide_y: bool = False
             ) -> tuple[int, int, int, int]:
    """(x, y, m, n): odd m < 2^n with the top bit set or clear, x, y < m; with `wide_y` (a
    third of the time, where M leaves room) m <= y < 2^n."""
    n = draw(st.integers(min_n, max_n))
    if draw(st.booleans()):  # m in [2^(n-1)+1, 2^n-1]
        m = 2 * draw(_uniform(2 ** (n - 2), 2 ** (n - 1) - 1)) + 1
    else:  # m in [1, 2^(n-1)-1]
        m = 2 * draw(_uniform(0, 2 ** (n - 2) - 1)) + 1
    edge = st.sampled_from([0, 1, m - 1]).filter(lambda v: v < m)
    x = draw(st.one_of(_uniform(0, m - 1), edge))
    below = st.one_of(_uniform(0, m - 1), edge)
    y = draw(st.one_of(below, below, _uniform(m, 2**n - 1)) if wide_y and m < 2**n - 1
             else below)
    return x, y, m, n


@settings(BASE, max_examples=200)
@given(operands(2, 64, wide_y=True))
def test_models_random_small(args: tuple[int, int, int, int]) -> None:
    for model in MODELS:
        check(model, *args)


@settings(BASE, max_examples=25)
@given(operands(65, 2048, wide_y=True))
def test_models_random_large(args: tuple[int, int, int, int]) -> None:
    for model in MODELS:
        check(model, *args)


@pytest.mark.parametrize("n", [2, 3, 8, 32, 97, 1024, 2048])
@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_corner_cases(model: ModelFunc, n: int) -> None:
    check(model, 0, 0, 1, n)
    for m in sorted({2 ** (n - 1) + 1, 2**n - 1}):
        vals = sorted({0, 1, m // 3, m - 2, m - 1})
        wide = sorted({m, m + 1, 2**n - 2, 2**n - 1} - {2**n})  # Y >= M: the registers hold it
        for x in vals:
            for y in vals + wide:
                check(model, x, y, m, n)


@pytest.mark.parametrize("n", range(2, 7))
@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_exhaustive_small(model: ModelFunc, n: int) -> None:
    rinv = {m: pow(2**n, -1, m) if m > 1 else 0 for m in range(1, 2**n, 2)}
    for m, ri in rinv.items():
        for x in range(m):
            for y in range(2**n):  # Y >= M too: P below max(Y, M), fully reduced for Y < M
                r = model(x, y, m, n)
                assert r.p % m == x * y * ri % m and r.p < max(y, m), (x, y, m, n)
                assert y >= m or r.p == x * y * ri % m, (x, y, m, n)
                if r.s is not None and r.c is not None:
                    assert (r.s + r.c) % m == r.p % m and r.s + r.c < y + m


ALL_ADDRESSES = set(range(16))
# Derived by exhaustive enumeration: at n = 2 only M in {1, 3} exist; at n = 3
# addresses 5 and 13 (y_0 = 1, s_0 = 0, c_0 = 1) never occur; from n = 4 on all 16 do.
REACHABLE = {
    2: {0, 2, 4, 8, 12},
    3: ALL_ADDRESSES - {5, 13},
    4: ALL_ADDRESSES,
    5: ALL_ADDRESSES,
    6: ALL_ADDRESSES,
}


@pytest.mark.parametrize("n", sorted(REACHABLE))
def test_lut_reachable_addresses(n: int) -> None:
    reached: set[int] = set()
    for m in range(1, 2**n, 2):
        for x in range(m):
            for y in range(m):
                reached.update(mont_lut(x, y, m, n).lut)
    assert reached == REACHABLE[n]


@pytest.mark.parametrize(
    ("y", "m"),
    [
        (0, 1),
        (0, 3),
        (1, 3),
        (2, 3),
        (4, 7),
        (5, 7),
        (0xAB, 0xFB),
        (2**96 + 2, 2**97 - 1),
    ],
)
def test_lut_table_steps(y: int, m: int) -> None:
    table = mont_lut_table(y, m)
    assert len(table) == 16
    for addr in range(16):
        x_i, y_0, s_0, c_0 = addr >> 3, (addr >> 2) & 1, (addr >> 1) & 1, addr & 1
        assert lut_address(x_i, y_0, s_0, c_0) == addr
        chosen = []  # Algorithm 3 steps (3)-(6), exactly one applies
        if s_0 == c_0 and not x_i:
            chosen.append(0)
        if s_0 != c_0 and not x_i:
            chosen.append(m)
        if not (s_0 ^ c_0 ^ y_0) and x_i:
            chosen.append(y)
        if (s_0 ^ c_0 ^ y_0) and x_i:
            chosen.append(y + m)
        assert chosen == [table[addr]]
        if y_0 == y & 1:  # design invariant on the addressable half: S + C + I even
            assert (s_0 + c_0 + table[addr]) % 2 == 0
            assert table[addr] - x_i * y in (0, m)


# Selection (x_i, q_i) of mont_r2/mont_csa, derived by exhaustive enumeration: all four
# occur from n = 2 on (e.g. M = 3: X = 1, Y = 1 gives (1, 1) then (0, 0); X = 1, Y = 2
# gives (1, 0) then (0, 1)).
@pytest.mark.parametrize("n", range(2, 7))
@pytest.mark.parametrize("model", [mont_r2, mont_csa], ids=lambda f: f.__name__)
def test_sel_reachable(model: ModelFunc, n: int) -> None:
    reached: set[int] = set()
    for m in range(1, 2**n, 2):
        for x in range(m):
            for y in range(m):
                r = model(x, y, m, n)
                assert r.lut == expected_selections(x, y, m, n), (x, y, m, n)
                reached.update(r.lut)
    assert reached == {0, 1, 2, 3}


@settings(BASE, max_examples=50)
@given(operands(2, 1024, wide_y=True))
def test_r2_csa_same_selections(args: tuple[int, int, int, int]) -> None:
    """Algorithm 1b's S + C follows Algorithm 1a's P, so both select alike."""
    r2, rc = mont_r2(*args), mont_csa(*args)
    assert r2.lut == rc.lut and r2.p == rc.p


def test_sel_address() -> None:
    assert [sel_address(a >> 1, a & 1) for a in range(4)] == [0, 1, 2, 3]
    with pytest.raises(ModelInputError):
        sel_address(2, 0)
    with pytest.raises(ModelInputError):
        sel_address(0, -1)


def test_lut_address_rejects_non_bits() -> None:
    with pytest.raises(ModelInputError):
        lut_address(2, 0, 0, 0)
    with pytest.raises(ModelInputError):
        lut_address(0, 0, -1, 0)


@settings(BASE, max_examples=100)
@given(st.integers(0, 2**300), st.integers(0, 2**300), st.integers(0, 2**300))
def test_csa(a: int, b: int, d: int) -> None:
    s, c = csa(a, b, d)
    assert s + c == a + b + d
    assert s == a ^ b ^ d
    assert c & 1 == 0


@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("x", "y", "m", "n", "match"), WIDE_Y_BAD)
def test_bad_input(
    model: ModelFunc, x: int, y: int, m: int, n: int, match: str
) -> None:
    with pytest.raises(ModelInputError, match=match) as info:
        model(x, y, m, n)
    assert "\n" not in str(info.value)


def _legal(info, n: int) -> bool:
    try:
        info.resolve(n)
    except ModelInputError:
        return False
    return True


def test_registry() -> None:
    assert set(ALGOS) >= {"mont_r2", "mont_csa", "mont_lut"}
    for name, info in ALGOS.items():
        assert info.name == name and info.kind in ("mont", "inter")
        assert info.summary and "\n" not in info.summary
        if info.kind not in ("mont", "inter"):
            continue  # e.g. the RSA core's modexp: tested in its own file
        # the smallest width the design's default parameters allow
        n = next(n for n in (3, 8, 16, 32, 64, 80) if _legal(info, n))
        params = info.resolve(n)
        args = (5, 0, 6, 0, 7, n) if info.halves else (5, 6, 7, n)  # halves: (x1, x2, y1, y2)
        r = info.model(params)(*args)
        assert r.algo == name and r.p == reference(info, *args, **params)
        assert (r.s is not None) == info.has_sc and bool(r.lut) == info.has_lut
    with pytest.raises(
        ModelInputError,
        match=r"^unknown algorithm 'foo' \(known: " + ", ".join(sorted(ALGOS)) + r"\)$",
    ):
        get_algo("foo")


# --- The models' hot loops against step-by-step references ------------------------------
#
# The models inline csa, sel_address and lut_address in their loops and keep the registers
# as gmpy2 mpz (one call per checked operation in a simulation). The references below are
# the readable loops they replaced, one helper call per step; every Result field must match.


def assert_same(fast: Result, slow: Result, m: int) -> None:
    """Every field of two Results equal, with the same Python types (int, not mpz)."""
    for f in dataclasses.fields(Result):
        a, b = getattr(fast, f.name), getattr(slow, f.name)
        assert a == b, (fast.algo, f.name, a, b)
        assert type(a) is type(b), (fast.algo, f.name, type(a), type(b))
    assert fast.boundary_events(m) == slow.boundary_events(m)


def agree(pair: tuple[ModelFunc, ModelFunc], args: tuple[int, ...]) -> None:
    """The fast model and its step-by-step reference give the same Result on args."""
    fast, slow = pair
    assert_same(fast(*args), slow(*args), args[2])


def big_operands(wide_y: bool = False) -> list[tuple[int, int, int, int]]:
    """A few fixed operand sets at n = 1024 and 2048: full-width and shorter moduli, random
    and extreme X, Y (with `wide_y`, Y >= M too)."""
    rng = random.Random(20240607)
    cases = []
    for n in (1024, 1024, 1025, 2048):
        for m in (rng.getrandbits(n) | 1 | 1 << (n - 1), rng.getrandbits(n - 37) | 1):
            cases.append((rng.randrange(m), rng.randrange(m), m, n))
            cases.append((m - 1, m - 1, m, n))
            if wide_y:
                cases.append((rng.randrange(m), rng.randrange(m, 2**n), m, n))  # Y >= M
                cases.append((2**n - 1, 2**n - 1, m, n))
    return cases


def _mont_r2_steps(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1a step by step (the model inlines sel_address)."""
    validate(x, y, m, n, wide_y=True)
    p = 0
    lut: dict[int, int] = {}
    for xi in _bits_lsb_first(x, n):
        x_i = 1 if xi == "1" else 0
        p += y if x_i else 0  # step 3
        q_i = p & 1  # p_0 after step 3
        addr = sel_address(x_i, q_i)
        lut[addr] = lut.get(addr, 0) + 1
        p += m if q_i else 0  # step 4
        assert p & 1 == 0, "mont_r2: shift would drop a one bit"
        p >>= 1  # step 5
        assert p < 2 ** (n + 1), "mont_r2: P outgrew its N+1-bit register"
    return Result("mont_r2", n, final_sub(p, m), None, None, n + 1, lut, unreduced=p)


def _mont_csa_steps(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b step by step through csa and sel_address (the model inlines both)."""
    validate(x, y, m, n, wide_y=True)
    s = c = 0
    lut: dict[int, int] = {}
    for xi in _bits_lsb_first(x, n):
        x_i = 1 if xi == "1" else 0
        s, c = csa(s, c, y if x_i else 0)  # step 3
        q_i = s & 1  # s_0 of CSA 1 (its carry has a zero LSB)
        addr = sel_address(x_i, q_i)
        lut[addr] = lut.get(addr, 0) + 1
        s, c = csa(s, c, m if q_i else 0)  # step 4
        assert (s | c) & 1 == 0, "mont_csa: shift would drop a one bit"
        s >>= 1  # step 5
        c >>= 1
        assert s < 2**n and c < 2**n, "mont_csa: S or C outgrew its N-bit register"
    p = final_sub(s + c, m)
    return Result("mont_csa", n, p, s, c, n + 1, lut)


def _mont_lut_steps(x: int, y: int, m: int, n: int) -> tuple[int, int, dict[int, int]]:
    """Algorithm 3 step by step through lut_address and csa (the model inlines both)."""
    table, s, c = mont_lut_table(y, m), 0, 0
    hits: dict[int, int] = {}
    for i in range(n):
        addr = lut_address((x >> i) & 1, y & 1, s & 1, c & 1)
        hits[addr] = hits.get(addr, 0) + 1
        s, c = csa(s, c, table[addr])
        s, c = s >> 1, c >> 1
    return s, c, hits


def _mont_lut_result_steps(x: int, y: int, m: int, n: int) -> Result:
    validate(x, y, m, n, wide_y=True)
    s, c, hits = _mont_lut_steps(x, y, m, n)
    return Result("mont_lut", n, final_sub(s + c, m), s, c, n + 2, hits)


STEPS: dict[str, tuple[ModelFunc, ModelFunc]] = {
    "mont_r2": (mont_r2, _mont_r2_steps),
    "mont_csa": (mont_csa, _mont_csa_steps),
    "mont_lut": (mont_lut, _mont_lut_result_steps),
}


@BASE
@given(operands(2, 300, wide_y=True))
def test_inlined_loops(args: tuple[int, int, int, int]) -> None:
    for pair in STEPS.values():
        agree(pair, args)


@pytest.mark.parametrize("args", big_operands(wide_y=True), ids=lambda a: f"n{a[3]}")
@pytest.mark.parametrize("name", sorted(STEPS))
def test_inlined_loops_wide(name: str, args: tuple[int, int, int, int]) -> None:
    agree(STEPS[name], args)

