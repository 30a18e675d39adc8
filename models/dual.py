"""Bit-accurate model of mont_dual: Tanimura et al. (ASP-DAC 2008), scalable unified
dual-radix Montgomery multiplier for GF(p) and GF(2^n), FIOS loop.

Mirrors hdl/dual/mont_dual.sv register by register:
- GF(p) (field 0): radix 2^K (K = 16) digits of X; four K x K units in parallel multiply one
  digit by a W = 4K = 64-bit word of Y or M, so the inner loop runs over E = ceil(N/64) words.
  Result X*Y*2^-(K*ceil(N/K)) mod M, fully reduced by a word-serial final subtraction.
- GF(2^n) (field 1): radix x^W digits, one W x W carry-less multiplier, the same FIOS loop.
  Result X(x)*Y(x)*x^-(W*E) mod M(x) with degree < deg M; no final subtraction.
M holds the whole p(x) (degree n, so N >= n + 1); the field degree is deg M.

Per digit i: T1 (u = c_0 + a_i*b_0 mod 2^k), T2 (t_i = u*q mod 2^k), then per word j two
cycles: MA (acc = C_j + a_i*B_j + z) and MB (S = acc + t_i*P_j, write C, carry z). GF(p)
adds E subtraction cycles (SUB) and both fields one FIN cycle.

MP (host-precomputed, models.dual.mp_pack): bits [K-1:0] hold m' = -M^-1 mod 2^K, bits
[K+W-1:K] the GF(2^n) inverse q(x) = M(x)^-1 mod x^W, so one MP serves both fields.
"""

from __future__ import annotations

from montverif.models.mont import final_sub
from montverif.models.result import ModelInputError, Result, short_hex

K = 16  # GF(p) digit width: one radix-2^16 unit
UNITS = 4  # parallel units in GF(p)
W = K * UNITS  # word width: the GF(2^n) digit and the unit array's B/P operand width
GFP, GF2N = 0, 1
FIELDS = (GFP, GF2N)
MIN_N = K + W  # MP must hold m' (K bits) and q (W bits)
# observation bins: {field, phase}
PHASES = ("T1", "T2", "MA", "MB")


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def words(n: int) -> int:
    """E: words of W bits in an N-bit operand."""
    return -(-n // W)


def digits(n: int, field: int) -> int:
    """Digits of X the outer loop consumes: ceil(N/K) in GF(p), E in GF(2^n)."""
    return -(-n // K) if field == GFP else words(n)


def r_bits(n: int, field: int = GFP) -> int:
    """log2 R: R = 2^(K*ceil(N/K)) in GF(p), x^(W*ceil(N/W)) in GF(2^n)."""
    return digits(n, field) * (K if field == GFP else W)


def r_bits_gf2(n: int) -> int:
    return r_bits(n, GF2N)


def cycles(n: int, field: int) -> int:
    """Busy cycles: digits*(2 + 2E) + (E subtraction cycles in GF(p)) + 1 FIN."""
    e = words(n)
    return digits(n, field) * (2 + 2 * e) + (e if field == GFP else 0) + 1


def check(n: int) -> None:
    """Illegal widths for the runner (one line)."""
    if n < MIN_N:
        raise ModelInputError(f"mont_dual: N must be at least {MIN_N} (MP packs the {K}-bit m' "
                              f"and the {W}-bit GF(2^n) inverse; got N={n})")


def umul_units(a: int, b: int) -> int:
    """The four K x K units: a (K bits) times the four K-bit digits of b (W bits), the
    partial products aligned and added (K + W bits)."""
    a &= _mask(K)
    return sum((a * ((b >> (K * u)) & _mask(K))) << (K * u) for u in range(UNITS))


def clmul(a: int, b: int) -> int:
    """The W x W carry-less multiplier: XOR of a << i for every set bit i of b (AND array)."""
    out = 0
    for i in range(W):
        if (b >> i) & 1:
            out ^= a << i
    return out


def mp_pack(m: int, n: int, **_params: int) -> int:
    """Host precomputation of MP: m' = -M^-1 mod 2^K in [K-1:0], q = M(x)^-1 mod x^W in
    [K+W-1:K]. Newton iterations (the tests check them against gmpy2 and models.gf2)."""
    check(n)
    if m <= 0 or m % 2 == 0:
        raise ModelInputError(f"mont_dual: MP needs an odd modulus (got {short_hex(m)})")
    inv = 1  # M^-1 mod 2^K: inv *= 2 - M*inv doubles the correct bits
    for _ in range(K.bit_length()):
        inv = (inv * (2 - m * inv)) & _mask(K)
    mp_p = (-inv) & _mask(K)
    q = 1  # M(x)^-1 mod x^W: q <- M*q^2 doubles the correct bits in characteristic 2
    for _ in range(W.bit_length()):
        q = clmul(clmul(q, q) & _mask(W), m & _mask(W)) & _mask(W)
    return mp_p | (q << K)


def validate(x: int, y: int, m: int, n: int, field: int) -> None:
    """What both fields need: M odd (p(0) = 1 in GF(2^n)), M < 2^N, Y < M and any N-bit X (X
    is only scanned, digit by digit: C < X*Y/R + M < 2M in GF(p), deg C < deg M in
    GF(2^n), for Y < M)."""
    for name, v in (("n", n), ("M", m), ("X", x), ("Y", y), ("field", field)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ModelInputError(f"{name} must be an int (got {type(v).__name__})")
    if field not in FIELDS:
        raise ModelInputError(f"field must be 0 (GF(p)) or 1 (GF(2^n)), got {field}")
    check(n)
    if m <= 0 or m % 2 == 0:
        raise ModelInputError(f"modulus M must be odd and > 0 (got {short_hex(m)})")
    if m.bit_length() > n:
        raise ModelInputError(f"modulus M must be < 2^n (M has {m.bit_length()} bits, n={n})")
    if not 0 <= x < 1 << n:
        raise ModelInputError(f"X must be in [0, 2^n) (X={short_hex(x)}, n={n})")
    if not 0 <= y < m:
        raise ModelInputError(f"Y must be in [0, M) (Y={short_hex(y)})")


def _put(c: int, off: int, width: int, value: int) -> int:
    """Register write c[off +: width] = value (value must fit)."""
    assert value >> width == 0, "mont_dual: a register write would drop one bits"
    return (c & ~(_mask(width) << off)) | (value << off)


def mont_dual(x: int, y: int, m: int, n: int, field: int = GFP) -> Result:
    """One operation in the given field (0: GF(p), 1: GF(2^n)); see the module docstring.
    Result.s is C after the loop (before the final subtraction), Result.c is 0; lut counts
    the multiplier phases {field, T1/T2/MA/MB}."""
    validate(x, y, m, n, field)
    e, gfp = words(n), field == GFP
    dig = K if gfp else W
    mp = mp_pack(m, n)
    q = mp & _mask(K) if gfp else mp >> K
    mul = umul_units if gfp else clmul
    lut: dict[int, int] = {}

    def hit(phase: int) -> None:
        addr = (field << 2) | phase
        lut[addr] = lut.get(addr, 0) + 1

    a, c = x, 0  # C: E words + one top bit
    for _ in range(digits(n, field)):
        a_i = a & _mask(dig)
        hit(0)  # T1: u = c_0 + a_i*b_0 mod 2^k
        u0 = (c & _mask(W)) + mul(a_i, y & _mask(W)) if gfp else \
            (c & _mask(W)) ^ mul(a_i, y & _mask(W))
        u = u0 & _mask(dig)
        hit(1)  # T2: t_i = u*q mod 2^k
        t = mul(u, q) & _mask(dig)
        z = 0
        for j in range(e):
            cw = (c >> (W * j)) & _mask(W + 1 if j == e - 1 else W)
            b_j, p_j = (y >> (W * j)) & _mask(W), (m >> (W * j)) & _mask(W)
            hit(2)  # MA
            acc = cw + mul(a_i, b_j) + z if gfp else cw ^ mul(a_i, b_j) ^ z
            hit(3)  # MB
            s = acc + mul(t, p_j) if gfp else acc ^ mul(t, p_j)
            z = s >> W
            if j == 0:
                assert s & _mask(dig) == 0, "mont_dual: the lowest digit of S is not zero"
            if gfp and j == 0:
                c = _put(c, 0, W - K, (s >> K) & _mask(W - K))
            elif gfp and j < e - 1:
                c = _put(c, W * j - K, W, s & _mask(W))
            elif gfp:
                c = _put(c, W * j - K, W + K + 1, s)
            elif j == e - 1:
                c = _put(c, W * (j - 1), 2 * W, s)
            else:
                c = _put(c, W * (j - 1), W, s & _mask(W)) if j else c
        a >>= dig
    if gfp:
        assert c < 2 * m, "mont_dual: C >= 2M after the loop"
        p = final_sub(c, m)
    else:
        assert c.bit_length() < m.bit_length(), "mont_dual: deg C >= deg M after the loop"
        p = c
    # no redundant S, C registers: the loop's C is the value before the final subtraction
    return Result("mont_dual", n, p, None, None, cycles(n, field), lut, unreduced=c)
