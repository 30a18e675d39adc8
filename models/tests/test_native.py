"""The native loops (models/native.py) against the Python loops they speed up: every Result
field (P, S, C, cycles, hit counts, boundary ties) and every failed check, per model."""

from __future__ import annotations

import functools
import random
import shutil
from collections.abc import Callable

import pytest

from montverif.models import dual, inter, mm42, mont, mont_pipe, mont_r4, native, scalable, vhr
from montverif.models.result import Result
from montverif.regress.tests.testshard import standins

MULT = {"mont_r2": mont.mont_r2, "inter_r2": inter.inter_r2,
        "mont_csa": mont.mont_csa, "mont_csa_u2": mont.mont_csa_u2,
        "mont_lut": mont.mont_lut, "mont_lut_u2": mont.mont_lut_u2,
        "inter_csa": inter.inter_csa, "inter_lut": inter.inter_lut, "mont_r4": mont_r4.mont_r4}
CARRY_SAVE = {"mm42": mm42.mm42, "mm42_u2": mm42.mm42_u2}
WIDE = (7, 31, 63, 64, 65, 127, 128, 129, 255, 1024, 2048)


def python_only(monkeypatch: pytest.MonkeyPatch, call: Callable[[], object]) -> object:
    """`call` with the native loops off (the Python reference loops run)."""
    with monkeypatch.context() as patch:
        patch.setattr(native, "LIB", None)
        return call()


def same(monkeypatch: pytest.MonkeyPatch, model: Callable[..., Result], *args: int) -> None:
    fast = model(*args)
    slow = python_only(monkeypatch, lambda: model(*args))
    assert fast == slow, f"{model.__name__}{args}: native {fast} != Python {slow}"


def test_the_native_loops_are_built_where_there_is_a_compiler():
    if shutil.which("cc") or shutil.which("gcc"):
        assert native.LIB is not None, native.why_not


def moduli(n: int, rng: random.Random, count: int) -> list[int]:
    """Odd moduli of n bits or fewer: the corners (2^n - 1, 2^(n-1) + 1, short) and random."""
    corners = [(1 << n) - 1, (1 << (n - 1)) + 1, (1 << max(1, n - 3)) + 1, 3]
    return [m for m in corners if m < 1 << n] + [
        rng.getrandbits(n) | 1 | (1 << (n - 1)) for _ in range(count)]


def operands(m: int, rng: random.Random) -> list[int]:
    return sorted({0, 1 % m, m - 1, (m - 1) // 2, rng.randrange(m), rng.randrange(m)})


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
@pytest.mark.parametrize("name", sorted(MULT))
def test_multipliers_agree(name, monkeypatch):
    model, rng = MULT[name], random.Random(name)
    for n in range(2, 6):  # every odd modulus, every operand pair
        for m in range(1, 1 << n, 2):
            for x in range(m):
                for y in range(m):
                    same(monkeypatch, model, x, y, m, n)
    for n in WIDE:
        for m in moduli(n, rng, 3):
            for x in operands(m, rng):
                same(monkeypatch, model, x, rng.randrange(m), m, n)


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
@pytest.mark.parametrize("name", sorted(CARRY_SAVE))
def test_carry_save_multipliers_agree(name, monkeypatch):
    model, rng = CARRY_SAVE[name], random.Random(name)

    def split(v: int, n: int) -> tuple[int, int]:  # a carry-save pair of n-bit halves
        lo = rng.randrange(max(0, v - (1 << n) + 1), min(v, (1 << n) - 1) + 1)
        return lo, v - lo

    for n in (2, 3, 4, 5, *WIDE):
        for m in moduli(n, rng, 2) if n > 5 else range(1, 1 << n, 2):
            for a in operands(2 * m, rng):
                same(monkeypatch, model, *split(a, n), *split(rng.randrange(2 * m), n), m, n)


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
def test_failed_checks_say_the_same(monkeypatch):
    """Inputs the models refuse never reach the loops; fed to the loops directly, a broken
    invariant fails with the Python loop's message in both."""
    n = 70
    cases: list[Callable[[], object]] = [
        lambda: mont._mont_r2_loop(5, 3, 1 << 40, n),  # even M: odd shift
        lambda: mont._mont_r2_loop((1 << n) - 1, 5 << (n - 1), 3, n),  # Y wider than n bits
        lambda: inter._inter_r2_loop(1, 1 << (n + 1), 3, n),  # Y >= 3M
        lambda: mont._mont_csa_loop(5, 3, 1 << 40, n, "mont_csa"),  # even M: odd shift
        lambda: mont._mont_lut_loop(5, 3, 1 << 40, n, "mont_lut"),
        lambda: inter._inter_csa_loop((1 << n) - 1, [0] * 7, 1 << (n + 2), n),  # Y' too wide
        lambda: inter._inter_lut_loop((1 << n) - 1, [1 << (n + 1)] * 8, n),
        lambda: mm42._loop("mm42", 1, 0, 3, 0, 1 << 40, n, mm42.iterations(n)),  # even M
        lambda: mont_r4._loop(5, 3, 1 << 40, n),  # even M: S2 + C2 not a multiple of 4
        lambda: mont_r4._loop(1, 1 << (n - 1), 3, n),  # Y >= 2M: T reaches 2M
        lambda: mont_r4._loop((1 << n) - 1, 1 << 80, (1 << 80) + 1, n),  # M too wide for S, C
    ]
    for case in cases:
        with pytest.raises(AssertionError) as fast:
            case()
        with pytest.raises(AssertionError) as slow:
            python_only(monkeypatch, case)
        assert str(fast.value) == str(slow.value) != ""


def test_the_python_loops_run_where_native_is_off(monkeypatch):
    monkeypatch.setattr(native, "LIB", None)
    assert native.mont_csa_loop(1, 1, 3, 2, "mont_csa") is None
    assert mont.mont_csa(1, 1, 3, 2).p == pow(2, -2, 3)  # 1 * 1 * 2^-2 mod 3


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
@pytest.mark.parametrize("margin", [56, 8, 2])
def test_inter_r2_a_word_at_a_time_agrees_at_any_margin(margin, monkeypatch):
    """mv_inter_r2_words against the Python loop. Its fractions decide a word of X at once
    unless an iteration comes within 2^-margin of a whole number, which sends the word to the
    exact bit loop: margin 56 decides (nearly) every word by the fractions, 8 sends about
    four in ten to the bit loop, 2 nearly all; P and the hits must not change."""
    monkeypatch.setattr(native, "INTER_R2_MARGIN", margin)
    rng = random.Random(margin)
    for n in (5, 63, 64, 65, 127, 129, 256, 1024, 2048):
        for m in moduli(n, rng, 4):
            for x in operands(m, rng):
                y = rng.randrange(m)
                fast = native.inter_r2_loop(x, y, m, n)
                assert fast == python_only(monkeypatch, functools.partial(
                    inter._inter_r2_loop, x, y, m, n)), (n, m, x, y)


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
def test_inter_r2_words_refuses_a_margin_beyond_its_error_and_y_not_below_m():
    n, count = 64, native.limb_count(66)
    lim = [native.limbs(v, count) for v in (1, 1, 3)]
    r = native.limbs((1 << (n + native.RECIPROCAL_EXTRA)) // 3, 4)
    lib = native.LIB
    assert lib is not None
    for margin, code in ((0, 4), (61, 4), (60, 0)):
        assert lib.mv_inter_r2_words(n, count, *lim, r, 4, margin, native.out(count),
                                     native.hits(3)) == code
    assert lib.mv_inter_r2_words(n, count, lim[0], native.limbs(3, count), lim[2], r, 4,
                                 56, native.out(count), native.hits(3)) == 5


# --- the word-serial loops (wordserial.c) ----------------------------------------------------
# (model, its build parameters at each point): the defaults, the papers' configurations, the
# bounds of the native words (V = W = 32, K * Units = 64) and the narrowest legal ones
WORD_SERIAL: dict[str, tuple[Callable[..., Result], list[dict[str, int]]]] = {
    "mont_qp": (vhr.mont_qp, [dict(V=8, W=16, P=2), dict(V=16, W=16, P=16), dict(V=1, W=1, P=1),
                              dict(V=2, W=4, P=3), dict(V=32, W=32, P=2), dict(V=5, W=17, P=7)]),
    "mwr2mm": (scalable.mwr2mm, [dict(W=8, P=1), dict(W=2, P=1), dict(W=16, P=3),
                                 dict(W=60, P=1)]),
    "mwrkmm": (scalable.mwrkmm, [dict(V=8, W=1, P=1), dict(V=17, W=1, P=5), dict(V=16, W=16, P=1),
                                 dict(V=32, W=32, P=1), dict(V=5, W=3, P=2, PeLatency=4),
                                 # section 5.2's addition unit: its carries decide the bins
                                 dict(V=8, W=4, P=2, PeAdder=1), dict(V=17, W=16, P=3, PeAdder=1),
                                 dict(V=4, W=1, P=1, PeAdder=1)]),
}


MAX_WORDS = 256  # the most W-bit words of a wide check


def _legal(name: str, n: int, params: dict[str, int]) -> bool:
    """Whether the model takes this point (its own checks: a point too narrow is skipped)."""
    check = {"mont_qp": lambda: vhr.check(n, **params),
             "mwr2mm": lambda: scalable.mwr2mm_check(n, **params),
             "mwrkmm": lambda: scalable.mwrkmm_check(n, **params)}[name]
    try:
        check()
    except Exception:
        return False
    return True


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
# mont_qp and mwr2mm (the Python reference at wide N: seconds each) in the nightly
@pytest.mark.parametrize("name", standins(sorted(WORD_SERIAL), ["mwrkmm"], seconds=10))
def test_word_serial_loops_agree(name, monkeypatch):
    """Every point: every odd modulus and operand pair at N = 2..5, corners and random
    operands at wide N; the Result (P, the unreduced value, cycles, every bin) must match.
    A wide N runs where it is at most 256 words of the point's W: the Python reference's
    time grows with the square of the word count (mont_qp at W = 1 took 17 s at N = 1024),
    and 256 one-bit words already cross every word boundary the native loop has."""
    model, points = WORD_SERIAL[name]
    rng = random.Random(name)
    checked = 0
    for params in points:
        for n in (2, 3, 4, 5):
            if not _legal(name, n, params):
                continue
            for m in range(1, 1 << n, 2):
                for x in range(1 << n):
                    for y in range(m):
                        same(monkeypatch, functools.partial(model, **params), x, y, m, n)
                        checked += 1
        for n in (31, 64, 97, 256, 1024):
            if not _legal(name, n, params) or n > MAX_WORDS * params["W"]:
                continue
            for m in moduli(n, rng, 2):
                for x in (*operands(m, rng), (1 << n) - 1):
                    same(monkeypatch, functools.partial(model, **params), x,
                         rng.randrange(m), m, n)
                    checked += 1
    assert checked > 300


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
# K = 1 and 2 run many words through the Python reference (seconds): nightly
@pytest.mark.parametrize("K, units", standins([(16, 4), (1, 3), (2, 2), (8, 8), (4, 3), (17, 3)],
                                              lambda p: p[0] > 2, unpack=True, seconds=10))
def test_mont_dual_loop_agrees_in_both_fields(K, units, monkeypatch):
    """mont_dual at the paper's configuration, the formal points' narrow ones and the widest
    native word (K * Units = 64): both fields, every Result field, and MP's GF(2^n) inverse."""
    rng = random.Random(K * 100 + units)
    w = K * units
    low = dual.min_n(K, units)
    for n in sorted({low, low + 1, low + 7, 2 * w + 3, 256}):
        for field in dual.FIELDS:
            for m in moduli(n, rng, 3):
                for x in (*operands(m, rng), (1 << n) - 1):
                    same(monkeypatch, functools.partial(dual.mont_dual, field=field, K=K,
                                                        Units=units),
                         x, rng.randrange(m), m, n)
                packed = functools.partial(dual.mp_pack, m, n, K, units)
                assert packed() == python_only(monkeypatch, packed)


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
def test_word_serial_checks_fail_alike(monkeypatch):
    """A broken invariant (inputs the models refuse, fed to the loops) fails with the Python
    loop's message in both."""
    n = 40
    g, top = vhr.Geometry(n, 8, 16, 2), (1 << n) - 1
    q = dual.mp_pack(0xF00000001, n, 4, 3) & 0xF
    pairs: list[tuple[Callable[[], object], Callable[[], object]]] = [
        (lambda: native.mont_qp_loop(top, top, 1 << 63, n, 8, 16, 2),  # M-hat too wide
         lambda: vhr._loop(top, top, 1 << 63, g)),
        (lambda: native.mwr2mm_loop(5, 3, 1 << 30, n, 8, 1),  # even M: a one bit shifted out
         lambda: scalable._mwr2mm_loop(5, 3, 1 << 30, n, 8, 1)),
        (lambda: native.mwrkmm_loop(5, 3, 0xF00000001, 2, n, 8, 4, 1),  # a wrong m'
         lambda: scalable._mwrkmm_loop(5, 3, 0xF00000001, 2, n, 8, 4, 1)),
        (lambda: native.mwrkmm_loop(5, 3, 0xF00000001, 2, n, 8, 4, 1, 1),  # the same, CSA unit
         lambda: scalable._mwrkmm_loop(5, 3, 0xF00000001, 2, n, 8, 4, 1, 1)),
        (lambda: native.mont_dual_loop(5, 3, 0xF00000001, q ^ 1, n, 0, 4, 3),  # a wrong m'
         lambda: dual._loop(5, 3, 0xF00000001, q ^ 1, n, 0, 4, 3)),
        (lambda: native.mont_dual_loop(5, 3, 0xF00000001, 2, n, 1, 4, 3),  # a wrong q(x)
         lambda: dual._loop(5, 3, 0xF00000001, 2, n, 1, 4, 3)),
    ]
    for fast_call, slow_call in pairs:
        with pytest.raises(AssertionError) as fast:
            fast_call()
        with pytest.raises(AssertionError) as slow:
            slow_call()
        assert str(fast.value) == str(slow.value) != ""


def test_word_serial_models_keep_their_python_loops_beyond_the_native_words():
    """Words wider than the C loops take (W > 32 in mont_qp) are left to the Python loop."""
    assert native.mont_qp_loop(1, 1, 1, 64, 33, 33, 1) is None
    assert native.mont_dual_loop(1, 1, 3, 1, 200, 0, 33, 2) is None
    assert vhr.mont_qp(3, 5, 7, 64, V=33, W=33, P=1).p == 3 * 5 * pow(2, -vhr.r_bits(
        64, 33, 33, 1), 7) % 7


def _pipe_python(x: int, y: int, m: int, n: int, K: int) -> tuple[int, int]:
    last = mont_pipe._stages(x, y, m, n, K)[-1]
    return last.s, last.c


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
@pytest.mark.parametrize("K", [1, 2, 3, 4, 8, 17, 48])
def test_mont_pipe_stages_agree(K, monkeypatch):
    """mv_mont_pipe's last (S, C) against the Python stages, every operand pair of every odd
    modulus at small widths, then random and corner operands up to 2048 bits; and the model's
    Result either way."""
    rng = random.Random(K)
    for n in range(2, 6):
        for m in range(3, 1 << n, 2):
            for x in range(1 << n):
                for y in range(m):
                    assert native.mont_pipe_loop(x, y, m, mont_pipe.m_prime(m, K), n, K) == \
                        _pipe_python(x, y, m, n, K), (n, K, x, y, m)
    for n in WIDE:
        for m in moduli(n, rng, 3):
            for x in (0, (1 << n) - 1, rng.getrandbits(n)):
                same(monkeypatch, mont_pipe.mont_pipe, x, rng.randrange(m), m, n, K)


@pytest.mark.skipif(native.LIB is None, reason="native loops not built")
def test_mont_pipe_checks_fail_alike(monkeypatch):
    """Operands outside the domain, fed to the stages directly, break an invariant with the
    same message in C and in Python."""
    for x, y, m, n, K in (((1 << 70) - 1, 1 << 70, 3, 70, 4),  # Y >= 2M: T reaches 2M
                          ((1 << 70) - 1, 1 << 90, 3, 70, 4),  # Y too wide: S, C outgrow
                          ((1 << 70) - 1, (1 << 74) - 1, 3, 70, 4),  # a carry out
                          (3, 512, 5, 8, 2)):  # Y >= M, K = 2
        mp = mont_pipe.m_prime(m, K)
        with pytest.raises(AssertionError) as fast:
            native.mont_pipe_loop(x, y, m, mp, n, K)
        with pytest.raises(AssertionError) as slow:
            python_only(monkeypatch, functools.partial(_pipe_python, x, y, m, n, K))
        assert str(fast.value) == str(slow.value) != ""
