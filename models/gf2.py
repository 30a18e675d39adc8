"""Independent GF(2)[x] polynomial arithmetic: the reference for the binary-field models.

Written differently from the bit-level model (models/dual.py, which mirrors the RTL's
AND-XOR carry-less multiplier word by word): here a polynomial is a Python int whose bit k
is the coefficient of x^k, products use a 4-bit windowed table (Horner over nibbles of the
second factor, most significant first), reduction is long division from the top, inverses
come from the extended Euclidean algorithm, and Montgomery's x^-r is the inverse of x^r
mod p(x). Rabin's test decides irreducibility.

NIST FIPS 186-4 (appendix D.1.3) binary-field reduction polynomials are listed in NIST_POLYS.
"""

from __future__ import annotations

from montverif.models.result import ModelInputError

# FIPS 186-4, D.1.3: the reduction polynomials of the fields of curves B/K-163..571 (exponents)
_NIST_TERMS: dict[str, tuple[int, ...]] = {
    "B-163": (163, 7, 6, 3, 0),
    "B-233": (233, 74, 0),
    "B-283": (283, 12, 7, 5, 0),
    "B-409": (409, 87, 0),
    "B-571": (571, 10, 5, 2, 0),
}


def from_terms(terms: tuple[int, ...]) -> int:
    """Polynomial sum of x^k for k in terms."""
    out = 0
    for k in terms:
        out ^= 1 << k
    return out


NIST_POLYS: dict[str, int] = {name: from_terms(t) for name, t in _NIST_TERMS.items()}


def degree(a: int) -> int:
    """Degree of a (-1 for the zero polynomial)."""
    return a.bit_length() - 1


def mul(a: int, b: int) -> int:
    """Carry-less product a(x)*b(x): Horner over the 4-bit nibbles of b, MSB nibble first,
    with a table of a*k for the 16 nibble values k."""
    if a < 0 or b < 0:
        raise ModelInputError("polynomials must be >= 0")
    table = [0] * 16
    for k in range(1, 16):  # a*k for every nibble k, built from a, 2a, 4a, 8a
        low = k & -k
        table[k] = table[k ^ low] ^ (a << (low.bit_length() - 1))
    out = 0
    for shift in range((b.bit_length() + 3) // 4 * 4 - 4, -4, -4):
        out = (out << 4) ^ table[(b >> shift) & 0xF]
    return out


_SPREAD = [int(format(b, "08b").replace("", "0")[:-1] or "0", 2) for b in range(256)]


def square(a: int) -> int:
    """a(x)^2: the bits of a spread to the even positions (a byte table)."""
    out, shift = 0, 0
    while a:
        out |= _SPREAD[a & 0xFF] << shift
        a >>= 8
        shift += 16
    return out


def divmod_poly(a: int, p: int) -> tuple[int, int]:
    """(quotient, remainder) of a(x) / p(x) by long division from the top (p != 0)."""
    if p <= 0:
        raise ModelInputError("division by the zero polynomial")
    dp, q = degree(p), 0
    while degree(a) >= dp:
        shift = degree(a) - dp
        q |= 1 << shift
        a ^= p << shift
    return q, a


def mod(a: int, p: int) -> int:
    """a(x) mod p(x): long division without the quotient."""
    if p <= 0:
        raise ModelInputError("division by the zero polynomial")
    dp = p.bit_length()
    while (da := a.bit_length()) >= dp:
        a ^= p << (da - dp)
    return a


def mulmod(a: int, b: int, p: int) -> int:
    return mod(mul(a, b), p)


def gcd(a: int, b: int) -> int:
    while b:
        a, b = b, mod(a, b)
    return a


def inverse(a: int, p: int) -> int:
    """a(x)^-1 mod p(x) by the extended Euclidean algorithm; raises if gcd(a, p) != 1."""
    r0, r1, s0, s1 = p, mod(a, p), 0, 1
    while r1:
        q, r = divmod_poly(r0, r1)
        r0, r1 = r1, r
        s0, s1 = s1, s0 ^ mul(q, s1)
    if r0 != 1:
        raise ModelInputError(f"polynomial 0x{a:x} has no inverse modulo 0x{p:x}")
    return mod(s0, p)


def powmod(a: int, e: int, p: int) -> int:
    out, a = mod(1, p), mod(a, p)
    while e:
        if e & 1:
            out = mulmod(out, a, p)
        a = mulmod(a, a, p)
        e >>= 1
    return out


def mont_product(a: int, b: int, p: int, r: int) -> int:
    """a(x)*b(x)*x^-r mod p(x), fully reduced (degree < deg p); p(0) must be 1 (p = 1 gives 0)."""
    for name, v in (("X", a), ("Y", b), ("M", p), ("r", r)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ModelInputError(f"{name} must be an int >= 0")
    if p & 1 == 0:
        raise ModelInputError(f"p(x) must have p(0) = 1 (got 0x{p:x})")
    x_r = mod(1 << r, p)
    return mulmod(mulmod(a, b, p), inverse(x_r, p), p)


def is_mont_product(q: int, a: int, b: int, p: int, r: int) -> bool:
    """q == mont_product(a, b, p, r), without the inverse of x^r: q is fully reduced (degree
    below deg p) and q(x) x^r = a(x) b(x) (mod p(x)); x^r is invertible mod p when p(0) = 1,
    so the reduced residue is unique. Bad operands raise as mont_product's do."""
    for name, v in (("X", a), ("Y", b), ("M", p), ("r", r)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ModelInputError(f"{name} must be an int >= 0")
    if p & 1 == 0:
        raise ModelInputError(f"p(x) must have p(0) = 1 (got 0x{p:x})")
    if type(q) is not int:
        return q == mont_product(a, b, p, r)
    if q < 0 or q.bit_length() >= p.bit_length():
        return False  # mont_product's value is reduced: of degree below deg p
    return mod((q << r) ^ mul(a, b), p) == 0


def inverse_mod_xk(p: int, k: int) -> int:
    """p(x)^-1 mod x^k (p(0) = 1), from the extended Euclidean algorithm on x^k."""
    if p & 1 == 0:
        raise ModelInputError(f"p(x) must have p(0) = 1 to be invertible mod x^{k}")
    return inverse(p, 1 << k)


def _prime_factors(n: int) -> list[int]:
    out, d = [], 2
    while d * d <= n:
        if n % d == 0:
            out.append(d)
            while n % d == 0:
                n //= d
        d += 1
    return out + ([n] if n > 1 else [])


def _x_pow_2k(k: int, p: int) -> int:
    """x^(2^k) mod p by k squarings."""
    t = mod(2, p)
    for _ in range(k):
        t = mod(square(t), p)
    return t


def is_irreducible(p: int) -> bool:
    """Ben-Or's test: p of degree n >= 1 is irreducible over GF(2) iff
    gcd(x^(2^i) - x mod p, p) = 1 for i = 1 .. n/2. A reducible p has an irreducible factor
    of some degree d <= n/2 and fails at step d, so a random candidate is mostly rejected
    after a few squarings, where Rabin's test (`is_irreducible_rabin`) always takes n: at
    degree 2047 a random irreducible is found ~10x faster (mont_dual's GF(2^n) stimulus)."""
    n = degree(p)
    if n < 1:
        return False
    x = t = mod(2, p)
    for _ in range(n // 2):
        t = mod(square(t), p)
        if gcd(t ^ x, p) != 1:
            return False
    return True


def is_irreducible_rabin(p: int) -> bool:
    """Rabin's test, the cross-check of `is_irreducible`: p of degree n >= 1 is irreducible
    over GF(2) iff x^(2^n) = x mod p and gcd(x^(2^(n/q)) - x, p) = 1 for every prime q
    dividing n."""
    n = degree(p)
    if n < 1:
        return False
    if _x_pow_2k(n, p) != mod(2, p):
        return False
    return all(gcd(_x_pow_2k(n // q, p) ^ mod(2, p), p) == 1 for q in _prime_factors(n))


def count_irreducible(n: int) -> int:
    """Number of monic irreducible polynomials of degree n over GF(2) (Gauss's formula)."""
    def mobius(d: int) -> int:
        fs = _prime_factors(d)
        if any(d % (f * f) == 0 for f in fs):
            return 0
        return -1 if len(fs) % 2 else 1
    return sum(mobius(d) * 2 ** (n // d) for d in range(1, n + 1) if n % d == 0) // n


# product of the irreducible polynomials of degree 2..8: a cheap pre-filter for the test
_SMALL_FACTORS = 0


def _small_factors() -> int:
    global _SMALL_FACTORS
    if not _SMALL_FACTORS:
        prod = 1
        for cand in range(4, 1 << 9):
            if is_irreducible(cand):
                prod = mul(prod, cand)
        _SMALL_FACTORS = prod
    return _SMALL_FACTORS


def random_irreducible(n: int, rng: object) -> int:
    """A random irreducible polynomial of degree n (rng: random.Random)."""
    if n < 1:
        raise ModelInputError(f"degree must be >= 1 (got {n})")
    if n == 1:
        return 0b11  # x + 1 (x itself has p(0) = 0)
    while True:
        p = (1 << n) | rng.getrandbits(n) | 1  # type: ignore[attr-defined]
        if n > 8 and gcd(_small_factors(), p) != 1:
            continue
        if is_irreducible(p):
            return p
