"""MM42_Multiplier models (Gajbhiye 2018) vs. gmpy2 and an independent value recurrence."""

from __future__ import annotations

import random

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models.mm42 import (
    EXTRA_BITS,
    OVERHEAD,
    compress42,
    iterations,
    iterations_u2,
    mm42,
    mm42_u2,
    selection,
    validate,
)
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError, Result
from montverif.models.tests.test_mont import assert_same
from montverif.regress.tests.testshard import standins

BASE = settings(database=None, deadline=None)
MODELS = {"mm42": (mm42, iterations), "mm42_u2": (mm42_u2, iterations_u2)}


def expected_p(a: int, b: int, m: int, k: int) -> int:
    """a*b*2^-k mod m with gmpy2 (independent of the models)."""
    if m == 1:
        return 0
    return int(gmpy2.mpz(a) * b * gmpy2.invert(gmpy2.mpz(2) ** k, m) % m)


def value_selections(a: int, b: int, m: int, k: int) -> list[int]:
    """The (A_i, q_i) sequence of the algorithm on plain values (no carry-save): q_i is the
    parity of S + A_i*B, S <- (S + A_i*B + q_i*M) / 2."""
    s, out = 0, []
    for i in range(k):
        a_i = (a >> i) & 1
        q_i = (s + a_i * b) & 1
        out.append((a_i << 1) | q_i)
        s = (s + a_i * b + q_i * m) >> 1
    return out


def check(name: str, a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    func, iters = MODELS[name]
    r = func(a1, a2, b1, b2, m, n)
    a, b, k = a1 + a2, b1 + b2, iters(n)
    assert r.algo == name and r.n == n
    assert r.p == expected_p(a, b, m, k), (name, a1, a2, b1, b2, m, n)
    assert r.p == reference(get_algo(name), a1, a2, b1, b2, m, n)
    assert r.s is not None and r.c is not None
    assert r.s + r.c < 2 * m and (r.s + r.c) % m == r.p
    assert 0 <= r.s < 2 ** (n + 2) and 0 <= r.c < 2 ** (n + 2)
    sels = value_selections(a, b, m, k)
    if name == "mm42":
        assert r.cycles == n + 4
        hist = {s: sels.count(s) for s in set(sels)}
    else:
        assert r.cycles == -(-(n + 2) // 2) + 2
        pairs = [(sels[i] << 2) | sels[i + 1] for i in range(0, k, 2)]
        hist = {p: pairs.count(p) for p in set(pairs)}
    assert r.lut == hist
    return r


def splits(v: int, n: int) -> list[tuple[int, int]]:
    """Every (lo, hi) with lo + hi = v and both halves n-bit."""
    top = 2**n - 1
    return [(lo, v - lo) for lo in range(max(0, v - top), min(v, top) + 1)]


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("n", [2, 3])
def test_exhaustive_all_splits(name: str, n: int) -> None:
    """Every odd M < 2^n, every A, B < 2M, every way to split them into two n-bit halves."""
    for m in range(1, 2**n, 2):
        for a in range(2 * m):
            for b in range(2 * m):
                for a1, a2 in splits(a, n):
                    for b1, b2 in splits(b, n):
                        check(name, a1, a2, b1, b2, m, n)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("n", standins([4, 5], [4], seconds=5))  # N = 5 in the nightly
def test_exhaustive_values(name: str, n: int) -> None:
    """Every odd M < 2^n and every A, B < 2M, split three ways (low half full, even split,
    high half full)."""
    for m in range(1, 2**n, 2):
        for a in range(2 * m):
            sa = splits(a, n)
            for b in range(2 * m):
                sb = splits(b, n)
                for k in {0, len(sa) // 2, len(sa) - 1}:
                    a1, a2 = sa[k]
                    b1, b2 = sb[k * (len(sb) - 1) // max(1, len(sa) - 1)]
                    check(name, a1, a2, b1, b2, m, n)


# Selection reachability, by exhaustive enumeration over every odd M < 2^n and A, B < 2M
# (the selection sequence depends on the values A, B, M only, not on how they are split):
# mm42's four addresses (A_i, q_i) all occur from n = 2; mm42_u2's sixteen per-clock
# addresses (sel_even, sel_odd) all occur from n = 3 (at n = 2, 6 and 7 do not).
REACHABLE_U2 = {2: set(range(16)) - {6, 7}, 3: set(range(16)), 4: set(range(16)),
                5: set(range(16))}


@pytest.mark.parametrize("n", sorted(REACHABLE_U2))
def test_selection_reachability(n: int) -> None:
    r1: set[int] = set()
    r2: set[int] = set()
    for m in range(1, 2**n, 2):
        for a in range(2 * m):
            for b in range(2 * m):
                a1, b1 = min(a, 2**n - 1), min(b, 2**n - 1)
                r1 |= mm42(a1, a - a1, b1, b - b1, m, n).lut.keys()
                r2 |= mm42_u2(a1, a - a1, b1, b - b1, m, n).lut.keys()
    assert r1 == {0, 1, 2, 3}
    assert r2 == REACHABLE_U2[n]


def test_selection_reasoning() -> None:
    """Why all four (A_i, q_i) occur: q_i is the parity of S + A_i B. With M = 3:
    A = 0 gives (0, 0) throughout; A = 1, B = 2 starts with (1, 0) (S + B = 2 is even);
    A = 3, B = 1 gives (1, 1) (S + B = 1), S = 2, (1, 1) (S + B = 3), S = 3, then (0, 1)."""
    assert value_selections(1, 2, 3, 4)[0] == selection(1, 0)
    assert value_selections(3, 1, 3, 4)[:3] == [selection(1, 1), selection(1, 1),
                                                 selection(0, 1)]
    assert value_selections(0, 1, 3, 4) == [selection(0, 0)] * 4


def test_compress42_sum() -> None:
    for v in [(0, 0, 0, 0), (1, 1, 1, 1), (7, 5, 3, 1), (2**64 - 1, 2**64 - 1, 12345, 2**63)]:
        s, c = compress42(*v)
        assert s + c == sum(v) and c & 1 == 0


@st.composite
def operands(draw: st.DrawFn, min_n: int, max_n: int) -> tuple[int, ...]:
    """(a1, a2, b1, b2, m, n): odd m < 2^n, A = a1 + a2 < 2M and B = b1 + b2 < 2M with
    n-bit halves, values and halves from uniform draws and edges (0, M-1, M, 2M-1)."""
    n = draw(st.integers(min_n, max_n))
    top = 2**n - 1
    if draw(st.booleans()):
        m = 2 * draw(st.integers(2 ** (n - 2), 2 ** (n - 1) - 1)) + 1
    else:
        m = 2 * draw(st.integers(0, 2 ** (n - 2) - 1)) + 1
    out: list[int] = []
    for _ in range(2):
        v = draw(st.one_of(st.integers(0, 2 * m - 1),
                           st.sampled_from([0, 1, m - 1, m, 2 * m - 1]).filter(
                               lambda x: 0 <= x < 2 * m)))
        lo = draw(st.integers(max(0, v - top), min(v, top)))
        out += [lo, v - lo]
    return (*out, m, n)


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(BASE, max_examples=150)
@given(args=operands(2, 64))
def test_random_small(name: str, args: tuple[int, ...]) -> None:
    check(name, *args)


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(BASE, max_examples=20)
@given(args=operands(65, 2048))
def test_random_large(name: str, args: tuple[int, ...]) -> None:
    check(name, *args)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("n", [8, 32, 97, 1024, 2048])
def test_range_extremes(name: str, n: int) -> None:
    """A + B at 2M - 1 with both halves non-zero, at M, and the largest moduli."""
    for m in (2 ** (n - 1) + 1, 2**n - 1, 2 ** (n - 1) - 1):
        for v in (2 * m - 1, m, m + 1, 1):
            lo = v // 2 if v > 1 else v
            check(name, lo, v - lo, v - lo, lo, m, n)
        if 2 * m - 1 >= 2**n - 1:  # one half all ones
            rest = 2 * m - 1 - (2**n - 1)
            check(name, 2**n - 1, rest, rest, 2**n - 1, m, n)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, 0, 13, 1, 7, 4), "Y \\+ Y2 must be < 2M"),
        ((8, 0, 0, 0, 7, 3), "X must be in \\[0, 2\\^n\\)"),
        ((0, 0, 0, -1, 7, 3), "Y2 must be in"),
        ((0, 0, 0, 0, 8, 4), "odd"),
        ((0, 0, 0, 0, 9, 3), "M must be < 2\\^n"),
        ((0, 0, 0, 0, 1, 1), "n must be >= 2"),
        ((0, 1.0, 0, 0, 7, 3), "X2 must be an int"),
    ],
)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_bad_input(name: str, args: tuple, match: str) -> None:
    with pytest.raises(ModelInputError, match=match) as info:
        MODELS[name][0](*args)
    assert "\n" not in str(info.value)


def test_registry_entries() -> None:
    for name, (_, iters) in MODELS.items():
        info = get_algo(name)
        assert info.halves and info.kind == "mont" and info.has_sc and info.has_lut
        assert info.r_bits(33) == iters(33)
    assert iterations(32) == 34 and iterations_u2(32) == 34 and iterations_u2(97) == 100


# --- The models' hot loop against the step-by-step core -----------------------------------


class _Loop:
    """The registers of the core, one helper call per step: S1, S2, the serial adder over
    A1, A2, the histogram (the readable loop the models' inlined one replaced)."""

    def __init__(self, a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> None:
        self.n, self.width = n, n + EXTRA_BITS
        self.a1, self.a2, self.a_carry = a1, a2, 0
        d1, d2 = compress42(b1, b2, m, 0)  # PRE cycle
        self.check(d1, d2, "D")
        self.addends = ((0, 0), (m, 0), (b1, b2), (d1, d2))
        self.b0 = (b1 ^ b2) & 1
        self.s1 = self.s2 = 0
        self.lut: dict[int, int] = {}

    def check(self, lo: int, hi: int, what: str) -> None:
        assert lo >> self.width == 0 and hi >> self.width == 0, f"mm42: {what} overflows"

    def next_a_bit(self) -> int:
        """One step of the serial adder: A_i = A1_0 ^ A2_0 ^ carry; shift both right."""
        x, y, c = self.a1 & 1, self.a2 & 1, self.a_carry
        self.a_carry = (x & y) | (x & c) | (y & c)
        self.a1 >>= 1
        self.a2 >>= 1
        return x ^ y ^ c

    def step(self) -> int:
        """One iteration; returns its selection address."""
        a_i = self.next_a_bit()
        q_i = ((self.s1 ^ self.s2) & 1) ^ (a_i & self.b0)
        sel = selection(a_i, q_i)
        x1, x2 = self.addends[sel]
        s, c = compress42(self.s1, self.s2, x1, x2)
        assert (s | c) & 1 == 0, "mm42: halving would drop a one bit"
        self.s1, self.s2 = s >> 1, c >> 1
        self.check(self.s1, self.s2, "S")
        return sel


def _finish_steps(algo: str, loop: _Loop, m: int, cycles: int) -> Result:
    total = loop.s1 + loop.s2
    assert total < 2 * m, f"{algo}: S1 + S2 >= 2M"
    p = total - m if total >= m else total
    return Result(algo, loop.n, p, loop.s1, loop.s2, cycles, loop.lut)


def _mm42_steps(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    validate(a1, a2, b1, b2, m, n)
    loop = _Loop(a1, a2, b1, b2, m, n)
    for _ in range(iterations(n)):
        sel = loop.step()
        loop.lut[sel] = loop.lut.get(sel, 0) + 1
    return _finish_steps("mm42", loop, m, iterations(n) + OVERHEAD)


def _mm42_u2_steps(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    validate(a1, a2, b1, b2, m, n)
    loop = _Loop(a1, a2, b1, b2, m, n)
    clocks = iterations_u2(n) // 2
    for _ in range(clocks):
        addr = (loop.step() << 2) | loop.step()
        loop.lut[addr] = loop.lut.get(addr, 0) + 1
    return _finish_steps("mm42_u2", loop, m, clocks + OVERHEAD)


STEPS = {"mm42": (mm42, _mm42_steps), "mm42_u2": (mm42_u2, _mm42_u2_steps)}


def big_operands() -> list[tuple[int, ...]]:
    """A few fixed operand sets at n = 1024, 1025 and 2048: random and extreme A, B split
    unevenly into their halves, full-width and shorter moduli."""
    rng = random.Random(20240607)
    cases: list[tuple[int, ...]] = []
    for n in (1024, 1025, 2048):
        top = 2**n - 1
        for m in (rng.getrandbits(n) | 1 | 1 << (n - 1), rng.getrandbits(n - 37) | 1):
            for a, b in ((rng.randrange(2 * m), rng.randrange(2 * m)), (2 * m - 1, 2 * m - 1)):
                a1 = rng.randint(max(0, a - top), min(a, top))
                b1 = min(b, top)
                cases.append((a1, a - a1, b1, b - b1, m, n))
    return cases


@settings(BASE, max_examples=150)
@given(args=operands(2, 300))
def test_inlined_loop(args: tuple[int, ...]) -> None:
    for fast, slow in STEPS.values():
        assert_same(fast(*args), slow(*args), args[4])


@pytest.mark.parametrize("args", big_operands(), ids=lambda a: f"n{a[5]}")
@pytest.mark.parametrize("name", sorted(STEPS))
def test_inlined_loop_wide(name: str, args: tuple[int, ...]) -> None:
    fast, slow = STEPS[name]
    assert_same(fast(*args), slow(*args), args[4])
