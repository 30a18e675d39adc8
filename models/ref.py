"""Golden references computed with gmpy2 (independent of the bit-level models)."""

from __future__ import annotations

import gmpy2

from montverif.models.result import ModelInputError, short_hex


def _int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelInputError(f"{name} must be an int (got {type(value).__name__})")
    return value


def _nonneg(name: str, value: object) -> int:
    v = _int(name, value)
    if v < 0:
        raise ModelInputError(f"{name} must be >= 0 (got {v})")
    return v


def _modulus(m: object, *, odd: bool) -> int:
    v = _int("modulus M", m)
    if v <= 0:
        raise ModelInputError(f"modulus M must be > 0 (got {short_hex(v)})")
    if odd and v % 2 == 0:
        raise ModelInputError(f"modulus M must be odd (got {short_hex(v)})")
    return v


def is_mont_product(p: int, x: int, y: int, m: int, n: int) -> bool:
    """p == mont_product(x, y, m, n), without the inverse of 2^n: p is below m and
    p 2^n = x y (mod m) (2^n is invertible mod an odd m, so the residue is unique)."""
    m = _modulus(m, odd=True)
    if not 0 <= p < m or n < m.bit_length():
        return p == mont_product(x, y, m, n)  # its checks and errors
    x, y = _nonneg("X", x), _nonneg("Y", y)
    return gmpy2.f_mod((gmpy2.mpz(p) << n) - gmpy2.mpz(x) * y, m) == 0


def is_mont_congruent(p: int, x: int, y: int, m: int, n: int) -> bool:
    """p >= 0 and p 2^n = x y (mod m): p congruent to mont_product(x, y, m, n), reduced or
    not (a design whose Y may reach past M promises its own bound: registry's promise)."""
    m = _modulus(m, odd=True)
    if n < m.bit_length():
        return mont_product(x, y, m, n) < 0  # its checks and errors (never True)
    p, x, y = _nonneg("P", p), _nonneg("X", x), _nonneg("Y", y)
    return gmpy2.f_mod((gmpy2.mpz(p) << n) - gmpy2.mpz(x) * y, m) == 0


def mont_product(x: int, y: int, m: int, n: int) -> int:
    """x*y*2^-n mod m (m odd, n >= bit length of m)."""
    x, y = _nonneg("X", x), _nonneg("Y", y)
    m = _modulus(m, odd=True)
    n = _nonneg("n", n)
    if n < m.bit_length():
        raise ModelInputError(
            f"n must be >= bit length of M ({m.bit_length()}), got {n}"
        )
    rinv = gmpy2.invert(gmpy2.mpz(1) << n, m)
    return int(gmpy2.f_mod(gmpy2.mpz(x) * y * rinv, m))


def inter_product(x: int, y: int, m: int) -> int:
    """x*y mod m (m > 0)."""
    x, y = _nonneg("X", x), _nonneg("Y", y)
    m = _modulus(m, odd=False)
    return int(gmpy2.f_mod(gmpy2.mpz(x) * y, m))


def modexp(base: int, exp: int, m: int) -> int:
    """base^exp mod m via gmpy2.powmod (m > 0, exp >= 0)."""
    base, exp = _nonneg("base", base), _nonneg("exponent", exp)
    m = _modulus(m, odd=False)
    return int(gmpy2.powmod(base, exp, m))


def r2_mod(m: int, n: int) -> int:
    """R^2 mod m with R = 2^n (m odd)."""
    m = _modulus(m, odd=True)
    n = _nonneg("n", n)
    return int(gmpy2.powmod(2, 2 * n, m))


def m_prime(m: int, w: int) -> int:
    """-m^-1 mod 2^w (m odd, w >= 1)."""
    m = _modulus(m, odd=True)
    w = _nonneg("w", w)
    if w < 1:
        raise ModelInputError(f"w must be >= 1 (got {w})")
    mod = gmpy2.mpz(1) << w
    return int(gmpy2.f_mod(-gmpy2.invert(m, mod), mod))
