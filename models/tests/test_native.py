"""The native loops (models/native.py) against the Python loops they speed up: every Result
field (P, S, C, cycles, hit counts, boundary ties) and every failed check, per model."""

from __future__ import annotations

import functools
import random
import shutil
from collections.abc import Callable

import pytest

from montverif.models import inter, mm42, mont, native
from montverif.models.result import Result

MULT = {"mont_r2": mont.mont_r2, "inter_r2": inter.inter_r2,
        "mont_csa": mont.mont_csa, "mont_csa_u2": mont.mont_csa_u2,
        "mont_lut": mont.mont_lut, "mont_lut_u2": mont.mont_lut_u2,
        "inter_csa": inter.inter_csa, "inter_lut": inter.inter_lut}
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
        lambda: mont._mont_r2_loop(1, 1 << (n - 1), 3, n),  # Y >= 2M: P outgrows N+1 bits
        lambda: inter._inter_r2_loop(1, 1 << (n + 1), 3, n),  # Y >= 3M
        lambda: mont._mont_csa_loop(5, 3, 1 << 40, n, "mont_csa"),  # even M: odd shift
        lambda: mont._mont_lut_loop(5, 3, 1 << 40, n, "mont_lut"),
        lambda: inter._inter_csa_loop((1 << n) - 1, [0] * 7, 1 << (n + 2), n),  # Y' too wide
        lambda: inter._inter_lut_loop((1 << n) - 1, [1 << (n + 1)] * 8, n),
        lambda: mm42._loop("mm42", 1, 0, 3, 0, 1 << 40, n, mm42.iterations(n)),  # even M
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
