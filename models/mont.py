"""Bit-accurate models of the Montgomery multiplier RTL (Amanor 2005, Alg. 1a/1b/3).

Plain Python ints model the registers exactly: the RTL registers are wide enough
that nothing overflows. Every right shift is checked to drop a zero bit.
"""

from __future__ import annotations

from gmpy2 import mpz

from montverif.models import native
from montverif.models.result import ModelInputError, Result, short_hex


def final_sub(p: int, m: int) -> int:
    """The FIN cycle of the designs: one conditional subtraction (P < 2M before it gives a
    fully reduced P; P < Y + M, of a Y at or above M, gives P < max(Y, M))."""
    return p - m if p >= m else p


def validate(x: int, y: int, m: int, n: int, *, wide_y: bool = False) -> None:
    """Check model operands: n >= 2, m odd, 0 < m < 2^n, 0 <= x < 2^n and 0 <= y < m, or
    with `wide_y` 0 <= y < 2^n.

    What the algorithms need: X is only scanned, bit by bit (or digit by digit), so any n-bit
    X works; Y enters every iteration, whose value stays below Y + M. Amanor's three
    (Algorithms 1a, 1b, 3: mont_r2, mont_csa, mont_lut) hold that for any n-bit Y in their
    n + 1-bit registers (wide_y) and end below max(Y, M); the others keep it below 2M, so
    Y < M. A design's own domain is its descriptor's (montverif.models.registry checks
    it)."""
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
    if x >> n:
        raise ModelInputError(f"X must be < 2^n (X={short_hex(x)}, n={n})")
    if wide_y:
        if y >> n:
            raise ModelInputError(f"Y must be < 2^n (Y={short_hex(y)}, n={n})")
    elif y >= m:
        raise ModelInputError(f"Y must be < M (Y={short_hex(y)}, M={short_hex(m)})")


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
    conditional subtraction: n + 1 cycles. ``lut`` counts the selection (x_i, q_i). Any
    n-bit Y: P < Y + M in the loop, below max(Y, M) after the subtraction.
    """
    validate(x, y, m, n, wide_y=True)
    p, hits = _mont_r2_loop(x, y, m, n)
    lut = {a: h for a, h in enumerate(hits) if h}
    return Result("mont_r2", n, final_sub(p, m), None, None, n + 1, lut, unreduced=p)


def _mont_r2_loop(x: int, y: int, m: int, n: int) -> tuple[int, list[int]]:
    """Algorithm 1a's n iterations: the native loop (models/native.py) where it is built,
    else the Python loop below (the reference)."""
    fast = native.mont_r2_loop(x, y, m, n)
    return fast if fast is not None else _mont_r2_loop_py(x, y, m, n)


def _mont_r2_loop_py(x: int, y: int, m: int, n: int) -> tuple[int, list[int]]:
    """Algorithm 1a's n iterations: P before the final subtraction and the hits of the
    selection address (x_i << 1) | q_i.

    Hot path where the native loop is off: P is a gmpy2 mpz (cheaper wide arithmetic),
    sel_address is inlined and the hits are counted in a list.
    """
    ym, mm, bound = mpz(y), mpz(m), mpz(1) << (n + 1)  # P < Y + M < 2^(n+1) for an n-bit Y
    p = mpz(0)
    hits = [0] * 4
    for xi in _bits_lsb_first(x, n):
        addr = 0
        if xi == "1":
            p += ym  # step 3
            addr = 2
        if p.is_odd():  # q_i: p_0 after step 3
            p += mm  # step 4
            addr |= 1
        hits[addr] += 1
        assert p.is_even(), "mont_r2: shift would drop a one bit"
        p >>= 1  # step 5
        assert p < bound, "mont_r2: P outgrew its N+1-bit register"
    return int(p), hits


def _mont_csa_loop(x: int, y: int, m: int, n: int, name: str) -> tuple[int, int, list[int]]:
    """Algorithm 1b's n iterations: the native loop (models/native.py) where it is built,
    else the Python loop below (the reference)."""
    fast = native.mont_csa_loop(x, y, m, n, name)
    return fast if fast is not None else _mont_csa_loop_py(x, y, m, n, name)


def _mont_csa_loop_py(x: int, y: int, m: int, n: int, name: str
                      ) -> tuple[int, int, list[int]]:
    """Algorithm 1b's n iterations (the loop of mont_csa and mont_csa_u2): the final S, C
    and the hits of 4 * (i % 2) + sel_address(x_i, q_i) (iteration i runs in stage i % 2
    of the unfolded design).

    Hot path where the native loop is off: csa and sel_address are inlined, S and C are
    gmpy2 mpz (cheaper wide bit operations), a CSA with a zero addend is written as the
    half adder it is (s ^ c, (s & c) << 1), and CSA 2's carry is kept as the majority: its
    << 1 and the shift by one cancel.
    """
    ym, mm, top = mpz(y), mpz(m), mpz(1) << n
    s = c = mpz(0)
    hits = [0] * (2 * U2_STAGE_BINS_CSA)
    stage = 0
    for xi in _bits_lsb_first(x, n):
        if xi == "1":  # CSA 1: S + C + x_i*Y
            t = s ^ c
            s, c = t ^ ym, ((s & c) | (t & ym)) << 1
            addr = stage | 2
        else:
            s, c = s ^ c, (s & c) << 1
            addr = stage
        if s.is_odd():  # CSA 2: + q*M, q the s_0 of CSA 1 (its carry has a zero LSB)
            t = s ^ c
            s, c = t ^ mm, (s & c) | (t & mm)
            addr |= 1
        else:
            s, c = s ^ c, s & c
        hits[addr] += 1
        assert s.is_even(), f"{name}: shift would drop a one bit"
        s >>= 1  # step 5 (c: see above)
        assert s < top and c < top, f"{name}: S or C outgrew its N-bit register"
        stage ^= U2_STAGE_BINS_CSA
    return int(s), int(c), hits


def mont_csa(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b: Montgomery with two carry-save adders per iteration.

    Mirrors hdl/mont/mont_csa.sv: one loop cycle per bit of X (CSA 1 adds x_i*Y, CSA 2 adds
    s_0'*M with s_0' the LSB of CSA 1's sum, both halves shift), one FIN cycle for P = S + C
    and the conditional subtraction: n + 1 cycles. S and C stay below 2^n (n-bit
    registers, for any n-bit Y). ``lut`` counts the selection (x_i, s_0').
    """
    validate(x, y, m, n, wide_y=True)
    s, c, hits = _mont_csa_loop(x, y, m, n, "mont_csa")
    folded = [h + hits[U2_STAGE_BINS_CSA + a] for a, h in enumerate(hits[:U2_STAGE_BINS_CSA])]
    p = final_sub(s + c, m)
    return Result("mont_csa", n, p, s, c, n + 1, {a: h for a, h in enumerate(folded) if h})


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


def _mont_lut_loop(x: int, y: int, m: int, n: int, name: str) -> tuple[int, int, list[int]]:
    """Algorithm 3's n iterations: the native loop (models/native.py) where it is built, else
    the Python loop below (the reference)."""
    fast = native.mont_lut_loop(x, y, m, n, name)
    return fast if fast is not None else _mont_lut_loop_py(x, y, m, n, name)


def _mont_lut_loop_py(x: int, y: int, m: int, n: int, name: str
                      ) -> tuple[int, int, list[int]]:
    """Algorithm 3's n iterations (the loop of mont_lut and mont_lut_u2): the final S, C
    and the hits of 16 * (i % 2) + lut_address(x_i, y_0, s_0, c_0) (iteration i runs in
    stage i % 2 of the unfolded design). S and C stay below 2^(n+1).

    Hot path where the native loop is off: lut_address and csa are inlined (same
    arithmetic; the tests check it against them), S and C are gmpy2 mpz (cheaper wide bit
    operations). Sum and carry are both even after the table add, so the shift by one keeps
    the sum's and drops the carry's << 1.
    """
    table = [mpz(v) for v in mont_lut_table(y, m)]
    y_bit = lut_address(0, y & 1, 0, 0)
    x_bits = {"0": y_bit, "1": 8 | y_bit}  # x_i and y_0 of the address
    top = mpz(1) << (n + 1)
    s = c = mpz(0)
    hits = [0] * (2 * U2_STAGE_BINS_LUT)
    stage = 0
    for xi in _bits_lsb_first(x, n):
        addr = x_bits[xi] | (2 if s.is_odd() else 0) | (1 if c.is_odd() else 0)
        hits[stage | addr] += 1
        t = table[addr]
        u = s ^ c
        s_sum = u ^ t
        assert s_sum.is_even(), f"{name}: shift would drop a one bit"
        s, c = s_sum >> 1, (s & c) | (u & t)  # (a^b^d) >> 1, (majority << 1) >> 1
        assert s < top and c < top, f"{name}: S or C outgrew N+1 bits"
        stage ^= U2_STAGE_BINS_LUT
    return int(s), int(c), hits


def mont_lut(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 3: faster Montgomery, one CSA + table {0, M, Y, Y+M}; any n-bit Y."""
    validate(x, y, m, n, wide_y=True)
    s, c, hits = _mont_lut_loop(x, y, m, n, "mont_lut")
    folded = [h + hits[U2_STAGE_BINS_LUT + a] for a, h in enumerate(hits[:U2_STAGE_BINS_LUT])]
    p = final_sub(s + c, m)
    return Result("mont_lut", n, p, s, c, n + 2, {a: h for a, h in enumerate(folded) if h})


# --- Gajbhiye (2018): Algorithms 1b and 3 unfolded by J = 2 -----------------------------
#
# Two loop iterations per clock cycle; for odd n the last loop cycle does one iteration
# (a half step, the second stage is bypassed), so R = 2^n exactly. Loop cycles:
# ceil(n / 2). The arithmetic is that of the non-unfolded algorithms, iteration by
# iteration, so S, C and P equal mont_csa's / mont_lut's: the models share their loops.

U2_STAGE_BINS_CSA = 4  # selection address per stage of mont_csa_u2: {x_i, q}
U2_STAGE_BINS_LUT = 16  # table address per stage of mont_lut_u2: {x_i, y_0, s_0, c_0}


def mont_csa_u2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b unfolded by 2: four CSAs in series, two bits of X per cycle.

    Selection hits: per stage j (0, 1) the address 4*j + sel_address(x_i, q), q the LSB
    of the first CSA's sum (the s_0 of step (4)) that selects M. S and C stay N bits.
    """
    validate(x, y, m, n)
    s, c, hits = _mont_csa_loop(x, y, m, n, "mont_csa_u2")
    p = final_sub(s + c, m)
    lut = {a: h for a, h in enumerate(hits) if h}
    return Result("mont_csa_u2", n, p, s, c, (n + 1) // 2 + 1, lut)


def mont_lut_u2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 3 unfolded by 2: two table lookups and two CSAs in series per cycle.

    Table hits: per stage j (0, 1) the address 16*j + lut_address(x_i, y_0, s_0, c_0);
    stage 1 is addressed by x_(i+1) and the LSBs of stage 0's shifted output. S and C stay
    N+1 bits.
    """
    validate(x, y, m, n)
    s, c, hits = _mont_lut_loop(x, y, m, n, "mont_lut_u2")
    p = final_sub(s + c, m)
    lut = {a: h for a, h in enumerate(hits) if h}
    return Result("mont_lut_u2", n, p, s, c, (n + 1) // 2 + 2, lut)
