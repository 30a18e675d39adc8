"""gmpy2 references vs. independent plain-Python computation."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from montverif.models import gf2, ref, registry
from montverif.models.result import ModelInputError

MODULI = [1, 3, 5, 7, 0xFB, 0x8001, 2**61 - 1, 2**127 - 1, 2**255 - 19, (1 << 1023) | 1]
OPERANDS = [(0, 0), (1, 1), (2, 3), (12345, 67890), (2**100 + 7, 2**90 + 3)]


def _n_for(m: int) -> list[int]:
    b = m.bit_length()
    return [b, b + 1, max(b, 64)]


@pytest.mark.parametrize("m", MODULI)
def test_mont_product(m: int) -> None:
    for n in _n_for(m):
        rinv = pow(2**n, -1, m) if m > 1 else 0
        for a, b in OPERANDS:
            x, y = a % m, b % m
            p = ref.mont_product(x, y, m, n)
            assert type(p) is int
            assert p == x * y * rinv % m
            assert (p << n) % m == x * y % m


@pytest.mark.parametrize("m", MODULI + [2, 10, 2**64])
def test_inter_product(m: int) -> None:
    for x, y in OPERANDS:
        p = ref.inter_product(x, y, m)
        assert type(p) is int
        assert p == x * y % m


@pytest.mark.parametrize("m", MODULI + [2, 10, 2**64])
def test_modexp(m: int) -> None:
    for base, exp in [
        (0, 0),
        (0, 5),
        (3, 0),
        (2, 10),
        (7, 2**64 + 1),
        (2**80 + 1, 65537),
    ]:
        r = ref.modexp(base, exp, m)
        assert type(r) is int
        assert r == pow(base, exp, m)


@pytest.mark.parametrize("m", MODULI)
def test_r2_mod(m: int) -> None:
    for n in _n_for(m):
        r = ref.r2_mod(m, n)
        assert type(r) is int
        assert r == (1 << (2 * n)) % m


@pytest.mark.parametrize("m", MODULI)
@pytest.mark.parametrize("w", [1, 2, 16, 32, 64, 1024])
def test_m_prime(m: int, w: int) -> None:
    mp = ref.m_prime(m, w)
    assert type(mp) is int
    assert 0 <= mp < 2**w
    assert mp == -pow(m, -1, 2**w) % 2**w
    assert (m * mp + 1) % 2**w == 0


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ref.mont_product(1, 1, 10, 8), "odd"),
        (lambda: ref.mont_product(1, 1, 0, 8), "> 0"),
        (lambda: ref.mont_product(1, 1, -3, 8), "> 0"),
        (lambda: ref.mont_product(1, 1, 0x1FF, 8), "bit length"),
        (lambda: ref.mont_product(-1, 1, 7, 8), ">= 0"),
        (lambda: ref.mont_product(1, 1, 7.0, 8), "int"),  # type: ignore[arg-type]
        (lambda: ref.inter_product(1, 1, 0), "> 0"),
        (lambda: ref.modexp(2, -1, 7), ">= 0"),
        (lambda: ref.modexp(2, 3, 0), "> 0"),
        (lambda: ref.r2_mod(8, 8), "odd"),
        (lambda: ref.r2_mod(7, -1), ">= 0"),
        (lambda: ref.m_prime(6, 8), "odd"),
        (lambda: ref.m_prime(7, 0), ">= 1"),
        (lambda: ref.m_prime(True, 8), "int"),
    ],
)
def test_bad_input(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ModelInputError, match=match) as info:
        call()
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)


def test_mont_product_congruence_agrees_with_the_value():
    """is_mont_product(p, ...) is p == mont_product(...): the value, off by one either way,
    off by M, negative, and M or above."""
    rng = random.Random(11)
    for n in (8, 17, 64, 1024):
        for _ in range(40):
            m = rng.getrandbits(n) | 1 | (1 << (n - 1)) if rng.random() < 0.8 else \
                rng.getrandbits(n // 2 + 1) | 1
            x, y = rng.randrange(2 * m), rng.randrange(2 * m)
            p = ref.mont_product(x, y, m, n)
            for cand in (p, p + 1, p - 1, p + m, p - m, m, m - 1, 0):
                assert ref.is_mont_product(cand, x, y, m, n) == (cand == p), (n, cand - p)


def test_binary_field_congruence_agrees_with_the_value():
    """gf2.is_mont_product(q, ...) is q == gf2.mont_product(...): the value, a bit off at
    the bottom and at the top of its degree, with M added, M itself, negative; bad operands
    raise the same error."""
    rng = random.Random(14)
    for n in (1, 8, 17, 64, 256):
        for _ in range(40):
            m = rng.getrandbits(n) | 1 if rng.random() < 0.9 else 1
            r = rng.choice((n, n + 2, 0))
            a, b = rng.getrandbits(n + 1), rng.getrandbits(n + 1)
            q = gf2.mont_product(a, b, m, r)
            top = 1 << max(m.bit_length() - 2, 0)
            for cand in (q, q ^ 1, q ^ top, q ^ m, m, -1, 0):
                assert gf2.is_mont_product(cand, a, b, m, r) == (cand == q), (n, m, r, cand)
    for args, match in (((1, 1, 4, 3), "p\\(0\\) = 1"), ((1, -1, 3, 3), "Y must be"),
                        ((1, 1, 3, True), "r must be")):
        for call in (gf2.mont_product, lambda *a: gf2.is_mont_product(0, *a)):
            with pytest.raises(ModelInputError, match=match):
                call(*args)


def test_matches_reference_is_the_reference_for_every_algorithm():
    """The registry's check gives the reference's verdict for every kind and field."""
    rng = random.Random(12)
    n = 16
    m = rng.getrandbits(n) | 1 | (1 << (n - 1))
    for info in registry.ALGOS.values():
        args: tuple[int, ...]
        if info.kind == "modexp":
            args = (rng.randrange(m), rng.getrandbits(8) | 1, m, n)
        elif info.halves:
            args = (rng.randrange(m), rng.randrange(m), rng.randrange(m), 0, m, n)
        else:
            args = (rng.randrange(m), rng.randrange(m), m, n)
        for field in (0, 1) if info.has_field else (0,):
            p = registry.reference(info, *args, field=field)
            for cand in (p, p ^ 1, p + m):
                assert registry.matches_reference(info, cand, *args, field=field) == \
                    (cand == p), (info.name, field, cand - p)


def test_reference_check_is_matches_reference_for_every_algorithm():
    """registry.reference_check (R worked out once, the congruence at once) gives
    matches_reference's verdict for every kind and field, on the product and on values off
    by a bit, by M, negative and at M (these go through matches_reference itself), and for
    an operand far above M."""
    rng = random.Random(13)
    for n in (16, 130):
        m = rng.getrandbits(n) | 1 | (1 << (n - 1))
        for info in registry.ALGOS.values():
            args: tuple[int, ...]
            if info.halves:
                args = (rng.randrange(m), rng.randrange(m), rng.randrange(m), 0, m)
            else:
                args = (rng.randrange(m), rng.randrange(m), m)
            params = info.defaults()
            for field in (0, 1) if info.has_field else (0,):
                check = registry.reference_check(info, n, field, params)
                p = registry.reference(info, *args, n, field=field, **params)
                for cand in (p, p ^ 1, p + m, p - m, m, -1):
                    want = registry.matches_reference(info, cand, *args, n, field=field,
                                                      **params)
                    assert check(cand, args) == want == (cand == p), (info.name, field, cand)
                # the last operand but M far above M (M 2^n more): the same verdict
                wide = (*args[:-2], args[-2] + (m << n), args[-1])
                ref_p = registry.reference(info, *wide, n, field=field, **params)
                assert check(ref_p, wide) and not check(ref_p ^ 1, wide), info.name
