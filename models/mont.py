"""Bit-accurate models of the Montgomery multiplier RTL (Amanor 2005, Alg. 1a/1b/3).

Plain Python ints model the registers exactly: the RTL registers are wide enough
that nothing overflows. Every right shift is checked to drop a zero bit.
"""

from __future__ import annotations

from models.result import ModelInputError, Result, short_hex


def final_sub(p: int, m: int) -> int:
    """The FIN cycle of the designs: one conditional subtraction (P < 2M before it)."""
    return p - m if p >= m else p


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


def sel_address(x_i: int, q_i: int) -> int:
    """Selection address (x_i << 1) | q_i of Algorithms 1a/1b (q_i: add M this iteration)."""
    if (x_i | q_i) not in (0, 1):
        raise ModelInputError("sel_address: x_i, q_i must be bits (0 or 1)")
    return (x_i << 1) | q_i


def mont_r2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1a: radix-2 Montgomery with a carry-propagate adder.

    Mirrors hdl/mont/mont_r2.sv: one loop cycle per bit of X (steps 3-5: P + x_i*Y, then
    + q_i*M with q_i the LSB after step 3, then the shift), one FIN cycle for the
    conditional subtraction: n + 1 cycles. ``lut`` counts the selection (x_i, q_i).
    """
    validate(x, y, m, n)
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
        assert p < 2 * m, "mont_r2: P outgrew its N+1-bit register"
    return Result("mont_r2", n, final_sub(p, m), None, None, n + 1, lut, unreduced=p)


def mont_csa(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b: Montgomery with two carry-save adders per iteration.

    Mirrors hdl/mont/mont_csa.sv: one loop cycle per bit of X (CSA 1 adds x_i*Y, CSA 2 adds
    s_0'*M with s_0' the LSB of CSA 1's sum, both halves shift), one FIN cycle for P = S + C
    and the conditional subtraction: n + 1 cycles. S and C stay below 2^n (n-bit
    registers). ``lut`` counts the selection (x_i, s_0').
    """
    validate(x, y, m, n)
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
    y_bit = lut_address(0, y & 1, 0, 0)
    hits = [0] * 16
    s = c = 0
    # The loop is the hot path of a simulation's checking: lut_address and csa are inlined
    # (same arithmetic; test_mont checks it against them). Sum and carry are both even
    # after the table add, so the shift by one keeps the sum's and drops the carry's shift.
    for xi in _bits_lsb_first(x, n):
        addr = (8 if xi == "1" else 0) | y_bit | ((s & 1) << 1) | (c & 1)
        hits[addr] += 1
        t = table[addr]
        s_sum = s ^ c ^ t
        assert s_sum & 1 == 0, "mont_lut: shift would drop a one bit"
        s, c = s_sum >> 1, (s & c) | (s & t) | (c & t)  # (a^b^d)>>1, (majority<<1)>>1
    p = final_sub(s + c, m)
    return Result("mont_lut", n, p, s, c, n + 2, {a: h for a, h in enumerate(hits) if h})


# --- Gajbhiye (2018): Algorithms 1b and 3 unfolded by J = 2 -----------------------------
#
# Two loop iterations per clock cycle; for odd n the last loop cycle does one iteration
# (a half step, the second stage is bypassed), so R = 2^n exactly. Loop cycles:
# ceil(n / 2). The arithmetic is that of the non-unfolded algorithms, iteration by
# iteration, so S, C and P equal mont_csa's / mont_lut's.

U2_STAGE_BINS_CSA = 4  # selection address per stage of mont_csa_u2: {x_i, q}
U2_STAGE_BINS_LUT = 16  # table address per stage of mont_lut_u2: {x_i, y_0, s_0, c_0}


def _u2_pairs(x: int, n: int) -> list[str]:
    """The bits of X, LSB first, two per loop cycle (the last one alone for odd n)."""
    bits = _bits_lsb_first(x, n)
    return [bits[k : k + 2] for k in range(0, n, 2)]


def _check_red(name: str, s: int, c: int, width: int) -> None:
    """The redundant pair fits the RTL's `width`-bit S and C registers."""
    assert 0 <= s < 2**width and 0 <= c < 2**width, f"{name}: S/C outgrew {width} bits"


def mont_csa_u2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b unfolded by 2: four CSAs in series, two bits of X per cycle.

    Selection hits: per stage j (0, 1) the address 4*j + sel_address(x_i, q), q the LSB
    of the first CSA's sum (the s_0 of step (4)) that selects M. S and C stay N bits.
    """
    validate(x, y, m, n)
    s = c = 0
    hits: dict[int, int] = {}
    for pair in _u2_pairs(x, n):
        for stage, xb in enumerate(pair):
            xi = 1 if xb == "1" else 0
            s, c = csa(s, c, y if xi else 0)
            q = s & 1
            addr = U2_STAGE_BINS_CSA * stage + sel_address(xi, q)
            hits[addr] = hits.get(addr, 0) + 1
            s, c = csa(s, c, m if q else 0)
            assert (s | c) & 1 == 0, "mont_csa_u2: shift would drop a one bit"
            s >>= 1
            c >>= 1
            _check_red("mont_csa_u2", s, c, n)  # N-bit registers
    p = final_sub(s + c, m)
    return Result("mont_csa_u2", n, p, s, c, (n + 1) // 2 + 1, hits)


def mont_lut_u2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 3 unfolded by 2: two table lookups and two CSAs in series per cycle.

    Table hits: per stage j (0, 1) the address 16*j + lut_address(x_i, y_0, s_0, c_0);
    stage 1 is addressed by x_(i+1) and the LSBs of stage 0's shifted output.
    """
    validate(x, y, m, n)
    table = mont_lut_table(y, m)
    y_0 = y & 1
    s = c = 0
    hits: dict[int, int] = {}
    for pair in _u2_pairs(x, n):
        for stage, xb in enumerate(pair):
            addr = lut_address(1 if xb == "1" else 0, y_0, s & 1, c & 1)
            key = U2_STAGE_BINS_LUT * stage + addr
            hits[key] = hits.get(key, 0) + 1
            s, c = csa(s, c, table[addr])
            assert (s | c) & 1 == 0, "mont_lut_u2: shift would drop a one bit"
            s >>= 1
            c >>= 1
            _check_red("mont_lut_u2", s, c, n + 1)  # N+1 bits
    p = final_sub(s + c, m)
    return Result("mont_lut_u2", n, p, s, c, (n + 1) // 2 + 2, hits)
