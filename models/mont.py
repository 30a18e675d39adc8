"""Bit-accurate models of the Montgomery multiplier RTL (Amanor 2005, Alg. 1a/1b/3).

Plain Python ints model the registers exactly: the RTL registers are wide enough
that nothing overflows. Every right shift is checked to drop a zero bit.
"""

from __future__ import annotations

from models.result import ModelInputError, Result, short_hex


def validate(x: int, y: int, m: int, n: int) -> None:
    """Check model operands: n >= 2, m odd, 0 < m < 2^n, 0 <= x, y < m."""
    for name, v in (("n", n), ("M", m), ("X", x), ("Y", y)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ModelInputError(f"{name} must be an int (got {type(v).__name__})")
    if n < 2:
        raise ModelInputError(f"n must be >= 2 (got {n})")
    if m <= 0:
        raise ModelInputError(f"modulus M must be > 0 (got {short_hex(m)})")
    if m % 2 == 0:
        raise ModelInputError(f"modulus M must be odd (got {short_hex(m)})")
    if m.bit_length() > n:
        raise ModelInputError(
            f"modulus M must be < 2^n (M has {m.bit_length()} bits, n={n})"
        )
    for name, v in (("X", x), ("Y", y)):
        if v < 0:
            raise ModelInputError(f"{name} must be >= 0 (got {v})")
        if v >= m:
            raise ModelInputError(
                f"{name} must be < M ({name}={short_hex(v)}, M={short_hex(m)})"
            )


def _bits_lsb_first(x: int, n: int) -> str:
    """The n low bits of x as a '0'/'1' string, LSB first."""
    return format(x, f"0{n}b")[::-1]


def csa(a: int, b: int, d: int) -> tuple[int, int]:
    """Carry-save add: (a^b^d, majority(a,b,d) << 1); the two outputs sum to a+b+d."""
    return a ^ b ^ d, ((a & b) | (a & d) | (b & d)) << 1


def mont_r2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1a: radix-2 Montgomery with a carry-propagate adder."""
    validate(x, y, m, n)
    p = 0
    for xi in _bits_lsb_first(x, n):
        if xi == "1":
            p += y
        if p & 1:
            p += m
        assert p & 1 == 0, "mont_r2: shift would drop a one bit"
        p >>= 1
    if p >= m:
        p -= m
    return Result("mont_r2", n, p, None, None, n + 1, {})


def mont_csa(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b: Montgomery with two carry-save adders per iteration."""
    validate(x, y, m, n)
    s = c = 0
    for xi in _bits_lsb_first(x, n):
        s, c = csa(s, c, y if xi == "1" else 0)
        s, c = csa(s, c, m if s & 1 else 0)
        assert (s | c) & 1 == 0, "mont_csa: shift would drop a one bit"
        s >>= 1
        c >>= 1
    p = s + c
    if p >= m:
        p -= m
    return Result("mont_csa", n, p, s, c, n + 1, {})


def lut_address(x_i: int, y_0: int, s_0: int, c_0: int) -> int:
    """Table address (x_i << 3) | (y_0 << 2) | (s_0 << 1) | c_0 of Algorithm 3."""
    if (x_i | y_0 | s_0 | c_0) not in (0, 1):
        raise ModelInputError("lut_address: x_i, y_0, s_0, c_0 must be bits (0 or 1)")
    return (x_i << 3) | (y_0 << 2) | (s_0 << 1) | c_0


def mont_lut_table(y: int, m: int) -> list[int]:
    """The 16-entry table of Algorithm 3, indexed by lut_address (R = Y + M).

    Entries follow steps (3)-(6) using the address bit y_0; the half whose y_0
    differs from the LSB of Y is never addressed.
    """
    r = y + m
    table: list[int] = []
    for addr in range(16):
        x_i, y_0, s_0, c_0 = addr >> 3, (addr >> 2) & 1, (addr >> 1) & 1, addr & 1
        if not x_i:
            table.append(0 if s_0 == c_0 else m)
        else:
            table.append(y if (s_0 ^ c_0 ^ y_0) == 0 else r)
    return table


def mont_lut(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 3: faster Montgomery, one CSA + table {0, M, Y, Y+M}."""
    validate(x, y, m, n)
    table = mont_lut_table(y, m)
    y_0 = y & 1
    lut: dict[int, int] = {}
    s = c = 0
    for xi in _bits_lsb_first(x, n):
        addr = lut_address(1 if xi == "1" else 0, y_0, s & 1, c & 1)
        lut[addr] = lut.get(addr, 0) + 1
        s, c = csa(s, c, table[addr])
        assert (s | c) & 1 == 0, "mont_lut: shift would drop a one bit"
        s >>= 1
        c >>= 1
    p = s + c
    if p >= m:
        p -= m
    return Result("mont_lut", n, p, s, c, n + 2, lut)
