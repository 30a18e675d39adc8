"""mont_pipe (the pipelined radix-2^K Montgomery multiplier, models/mont_pipe.py) against gmpy2
and against closed forms of every stage's registers."""

from __future__ import annotations

import random
from typing import Any

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models import ref
from montverif.models.mont_pipe import (
    K_MAX,
    Stage,
    check,
    digits,
    final,
    latency,
    m_prime,
    mont_pipe,
    mont_pipe_stages,
    newton_steps,
    quotient_digit,
    r_bits,
    register_bits,
    stage,
)
from montverif.models.result import ModelInputError
from montverif.models.tests.bad_inputs import BAD_INPUTS

BASE = settings(database=None, deadline=None)
KS = (1, 2, 3, 4, 8)  # the digit sizes checked exhaustively (the RTL's at least 1, 2, 4, 8)


def reference(x: int, y: int, m: int, n: int, k: int) -> int:
    """X*Y*R^-1 mod M with R = 2^(K*ceil(n/K)), from gmpy2's modular inverse."""
    r = gmpy2.mpz(2) ** (k * digits(n, k))
    return int(x * y * gmpy2.invert(r, m) % m) if m > 1 else 0


def quotient(x: int, y: int, m: int, n: int, k: int) -> int:
    """Q = -X*Y*M^-1 mod 2^(K*D): its base-2^K digits are the q_i of the stages, since
    X*Y + Q*M must be divisible by 2^(K*D) (independent of the model's stages)."""
    mod = 1 << (k * digits(n, k))
    return (-x * y * pow(m, -1, mod)) % mod


def check_op(x: int, y: int, m: int, n: int, k: int) -> None:
    """One operation: the Result, and every stage against the closed forms."""
    d = digits(n, k)
    r = mont_pipe(x, y, m, n, K=k)
    assert r.algo == "mont_pipe" and r.n == n
    assert r.p == reference(x, y, m, n, k) == ref.mont_product(x, y, m, k * d), (x, y, m, n, k)
    assert r.cycles == latency(n, k) == d + 2
    assert r.s is None and r.c is None and r.lut == {}
    q = quotient(x, y, m, n, k)
    assert r.unreduced == (x * y + q * m) >> (k * d)  # T after the last digit, below 2M
    assert r.unreduced is not None and r.unreduced < 2 * m and r.p == r.unreduced % m
    assert r.before_sub == r.unreduced
    stages = mont_pipe_stages(x, y, m, n, K=k)
    assert [sp.i for sp in stages] == list(range(d))
    mask = (1 << k) - 1
    for sp in stages:
        x_i, q_i = (x >> k * sp.i) & mask, (q >> k * sp.i) & mask
        assert (sp.x_i, sp.q_i) == (x_i, q_i)
        low = 1 << k * (sp.i + 1)  # T after i+1 digits: (X_low*Y + Q_low*M) / 2^(K(i+1))
        assert sp.acc == ((x % low) * y + (q % low) * m) // low
        assert sp.acc < 2 * m, (x, y, m, n, k, sp)  # the bound, every stage
        assert sp.s >> (n + 1) == 0 and sp.c >> (n + 1) == 0
        assert sp.q_i == quotient_digit(sp.t, m_prime(m, k), k)
    assert stages[-1].acc == r.unreduced


@st.composite
def operands(draw: st.DrawFn, widths: st.SearchStrategy[int]) -> tuple[int, int, int, int]:
    """(x, y, m, n): odd m < 2^n, full-width or shorter; x < 2^n, y < m; edges mixed in."""
    n = draw(widths)
    if draw(st.booleans()):
        m = draw(st.integers(2 ** (n - 1), 2**n - 1)) | 1
    else:
        m = draw(st.integers(1, 2 ** (n - 1) - 1)) | 1
    x = draw(st.one_of(st.integers(0, 2**n - 1), st.sampled_from([0, 1, m - 1, 2**n - 1])))
    y = draw(st.one_of(st.integers(0, m - 1), st.sampled_from([0, m - 1])))
    return x, y, m, n


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("n", [4, 5, 6])
def test_exhaustive_small(n: int, k: int) -> None:
    """Every odd M < 2^n, every X < 2^n (the whole domain: X need not be below M), every
    Y < M: P against gmpy2's X*Y*R^-1 mod M, T below 2M."""
    rbits = r_bits(n, k)
    for m in range(1, 2**n, 2):
        rinv = pow(2**rbits, -1, m) if m > 1 else 0
        for x in range(2**n):
            for y in range(m):
                r = mont_pipe(x, y, m, n, K=k)
                assert r.p == x * y * rinv % m, (x, y, m, n, k)
                assert r.unreduced is not None and r.unreduced < 2 * m


@pytest.mark.parametrize("k", [1, 2, 4])
def test_exhaustive_stages(k: int) -> None:
    """n = 5: every operand through every per-stage check (digits, q_i, T, the bound)."""
    for m in range(1, 32, 2):
        for x in range(32):
            for y in range(m):
                check_op(x, y, m, 5, k)


@settings(BASE, max_examples=300)
@given(operands(st.integers(4, 64)), st.sampled_from([1, 2, 3, 4, 5, 7, 8, 16]))
def test_random_small(args: tuple[int, int, int, int], k: int) -> None:
    check_op(*args, k)


@settings(BASE, max_examples=12)
@given(operands(st.sampled_from([256, 384])), st.sampled_from([1, 2, 4, 8, 16, 48]))
def test_random_wide(args: tuple[int, int, int, int], k: int) -> None:
    check_op(*args, k)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("n", [256, 384])
def test_seeded_wide(n: int, k: int) -> None:
    """Seeded operands at the pairing / zero-knowledge widths, edges included."""
    rng = random.Random(n * 64 + k)
    for m in (rng.getrandbits(n) | 1 | 1 << (n - 1), rng.getrandbits(n - 37) | 1, 2**n - 1):
        for x, y in ((rng.getrandbits(n), rng.randrange(m)), (2**n - 1, m - 1), (0, m - 1),
                     (m - 1, m - 1)):
            check_op(x, y, m, n, k)


@pytest.mark.parametrize("n", [4, 5, 8, 13, 16, 31, 64])
@pytest.mark.parametrize("k", KS)
def test_corner_cases(n: int, k: int) -> None:
    check_op(0, 0, 1, n, k)
    for m in sorted({2 ** (n - 1) + 1, 2**n - 1, 3, 5, 7}):
        for x in sorted({0, 1, m // 3, m - 1, 2**n - 1}):
            for y in sorted({0, 1, m // 3, m - 2, m - 1}):
                check_op(x, y, m, n, k)


def test_the_final_subtraction_is_reached_both_ways() -> None:
    """Both outcomes of the output stage occur (T >= M and T < M) at a small width."""
    taken = {mont_pipe(x, y, 13, 4, K=2).unreduced >= 13  # type: ignore[operator]
             for x in range(16) for y in range(13)}
    assert taken == {False, True}


@pytest.mark.parametrize("n", [*range(4, 40), 97, 255, 256, 383, 384, 1024])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 8, 16, 48])
def test_latency_and_r(n: int, k: int) -> None:
    d = -(-n // k)
    assert digits(n, k) == d and r_bits(n, k) == k * d >= n
    assert latency(n, k) == d + 2
    assert len(mont_pipe_stages(2**n - 1, 1, 2**n - 1, n, K=k)) == d


def test_m_prime_newton_lifting() -> None:
    """m' = -M^-1 mod 2^K for every K the RTL takes, with the RTL's number of Newton steps
    (mont_pipe_mprime.sv: 0 for K <= 3, 1 to K = 6, 2 to 12, 3 to 24, 4 to 48)."""
    assert [newton_steps(k) for k in (1, 3, 4, 6, 7, 12, 13, 24, 25, 48)] == \
        [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    rng = random.Random(7)
    moduli = [*range(1, 300, 2), *(rng.getrandbits(64) | 1 for _ in range(200))]
    for k in range(1, K_MAX + 1):
        for m in moduli:
            mp = m_prime(m, k)
            assert 0 <= mp < 2**k and (m * mp) % 2**k == 2**k - 1, (m, k)
    assert [m_prime(m, 2) for m in (1, 3, 5, 7)] == [3, 1, 3, 1]  # mont_r4's {~m_1, 1}
    with pytest.raises(ModelInputError):
        m_prime(4, 4)


def test_one_newton_step_too_few_is_wrong() -> None:
    """The step count is tight: without the last step some M gives a wrong m' (so the RTL's
    table of steps is no larger than it must be, and the check above can fail)."""
    for k in (4, 7, 13, 25):
        mask = (1 << k) - 1
        wrong = 0
        for m in range(1, 1 << 12, 2):
            u = m & mask
            for _ in range(newton_steps(k) - 1):
                u = (u * (2 - m * u)) & mask
            wrong += (m * u) & mask != 1
        assert wrong, k


def test_quotient_digit() -> None:
    for k in (1, 2, 4, 8):
        for m in range(1, 64, 2):
            mp = m_prime(m, k)
            for t in range(2**k):
                q = quotient_digit(t, mp, k)
                assert q == t * mp % 2**k and (t + q * m) % 2**k == 0
    for bad in ((16, 1), (1, 16), (-1, 1)):
        with pytest.raises(ModelInputError):
            quotient_digit(*bad, 4)


@BASE
@given(st.integers(4, 200), st.data())
def test_final_stage(n: int, data: st.DataObject) -> None:
    """The output stage's side-by-side T and T - M: P = T mod M for any S + C < 2M."""
    m = data.draw(st.integers(1, 2**n - 1)) | 1
    total = data.draw(st.integers(0, 2 * m - 1))
    s = data.draw(st.integers(0, total))
    assert final(s, total - s, m, n) == (total % m, total)


def test_a_wrong_quotient_digit_breaks_the_stage_check() -> None:
    """The per-stage checks can fail: a stage given a wrong m' (so a wrong q_i) stops on the
    exact division by 2^K."""
    m, k, n = 11, 4, 8
    with pytest.raises(AssertionError, match="not divisible by 2\\^K"):
        stage(0, 0, 0, 5, 7, m, n=n, K=k, mp=m_prime(m, k) ^ 1)


def test_stage_acc() -> None:
    assert Stage(0, 1, 2, 3, 5, 7).acc == 12


def test_register_bits() -> None:
    """The header's count: N = 384, K = 4, TagW = 8 (D = 96)."""
    bits = register_bits(384, 4, 8)
    assert len(bits) == 96 + 2
    assert (bits[0], bits[1], bits[2], bits[95], bits[96], bits[97]) == \
        (1165, 1931, 1927, 1555, 1163, 393)
    assert sum(bits) == 168306
    assert register_bits(16, 4, 8) == [61, 91, 87, 83, 59, 25]


@pytest.mark.parametrize(
    ("x", "y", "m", "n", "match"),
    [
        *BAD_INPUTS,
        (1, 1, 7, 8.0, "n must be an int"),
        (2**8 - 1, 7, 7, 8, "^Y must be < M"),
    ],
)
def test_bad_input(x: int, y: int, m: int, n: int, match: str) -> None:
    for call in (mont_pipe, mont_pipe_stages):
        with pytest.raises(ModelInputError, match=match) as info:
            call(x, y, m, n)
        assert "\n" not in str(info.value)


@pytest.mark.parametrize(("k", "match"), [(0, "K must be in 1..48"), (49, "K must be in"),
                                          (4.0, "K must be an int"), (True, "K must be an int")])
def test_bad_digit_size(k: Any, match: str) -> None:
    for call in (mont_pipe, mont_pipe_stages):
        with pytest.raises(ModelInputError, match=match):
            call(5, 7, 11, 8, K=k)
    with pytest.raises(ModelInputError, match=match):
        check(8, K=k)
