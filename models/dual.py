"""Bit-accurate model of mont_dual: Tanimura et al. (ASP-DAC 2008), scalable unified
dual-radix Montgomery multiplier for GF(p) and GF(2^n), FIOS loop.

Mirrors hdl/dual/mont_dual.sv register by register, with its parameters K and Units
(defaults 16 and 4: the paper's four radix-2^16 units and 64-bit carry-less multiplier):
- GF(p) (field 0): radix 2^K digits of X; Units K x K units in parallel multiply one digit by
  a W = K*Units-bit word of Y or M, so the inner loop runs over E = ceil(N/W) words.
  Result X*Y*2^-(K*ceil(N/K)) mod M, fully reduced by a word-serial final subtraction.
- GF(2^n) (field 1): radix x^W digits, one W x W carry-less multiplier, the same FIOS loop.
  Result X(x)*Y(x)*x^-(W*E) mod M(x) with degree < deg M; no final subtraction.
M holds the whole p(x) (degree n, so N >= n + 1); the field degree is deg M.

Per digit i: T1 (u = c_0 + a_i*b_0 mod 2^k), T2 (t_i = u*q mod 2^k), then per word j two
cycles: MA (acc = C_j + a_i*B_j + z) and MB (S = acc + t_i*P_j, write C, carry z). GF(p)
adds E subtraction cycles (SUB) and both fields one FIN cycle.

MP (host-precomputed, models.dual.mp_pack): bits [K-1:0] hold m' = -M^-1 mod 2^K, bits
[K+W-1:K] the GF(2^n) inverse q(x) = M(x)^-1 mod x^W, so one MP serves both fields.
Legal (check, the RTL's $fatal): K >= 1, W >= K + 2 (the GF(p) carry z and S fit the RTL's
W-bit z and 2W-bit accumulator), N >= K + W.
"""

from __future__ import annotations

from montverif.models import native
from montverif.models.mont import final_sub
from montverif.models.result import ModelInputError, Result, short_hex

K = 16  # GF(p) digit width: one radix-2^16 unit (the paper's; the default of parameter K)
UNITS = 4  # parallel units in GF(p) (the paper's; the default of parameter Units)
W = K * UNITS  # word width: the GF(2^n) digit and the unit array's B/P operand width
GFP, GF2N = 0, 1
FIELDS = (GFP, GF2N)
MIN_N = K + W  # MP must hold m' (K bits) and q (W bits)
# observation bins: {field, phase}
PHASES = ("T1", "T2", "MA", "MB")


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def min_n(K: int = K, Units: int = UNITS) -> int:
    """The narrowest N: MP packs the K-bit m' and the W-bit GF(2^n) inverse."""
    return K + K * Units


def words(n: int, K: int = K, Units: int = UNITS) -> int:
    """E: words of W = K*Units bits in an N-bit operand."""
    return -(-n // (K * Units))


def digits(n: int, field: int, K: int = K, Units: int = UNITS) -> int:
    """Digits of X the outer loop consumes: ceil(N/K) in GF(p), E in GF(2^n)."""
    return -(-n // K) if field == GFP else words(n, K, Units)


def r_bits(n: int, field: int = GFP, K: int = K, Units: int = UNITS) -> int:
    """log2 R: R = 2^(K*ceil(N/K)) in GF(p), x^(W*ceil(N/W)) in GF(2^n)."""
    return digits(n, field, K, Units) * (K if field == GFP else K * Units)


def r_bits_gf2(n: int, K: int = K, Units: int = UNITS) -> int:
    return r_bits(n, GF2N, K, Units)


def cycles(n: int, field: int, K: int = K, Units: int = UNITS) -> int:
    """Busy cycles: digits*(2 + 2E) + (E subtraction cycles in GF(p)) + 1 FIN."""
    e = words(n, K, Units)
    return digits(n, field, K, Units) * (2 + 2 * e) + (e if field == GFP else 0) + 1


def check(n: int, K: int = K, Units: int = UNITS) -> None:
    """Illegal parameter combinations for the runner (one line), the RTL's rules."""
    for name, v in (("K", K), ("Units", Units)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ModelInputError(f"mont_dual: {name} must be an int (got {type(v).__name__})")
    if K < 1:
        raise ModelInputError(f"mont_dual: K must be >= 1 (got K={K})")
    if K * Units < K + 2:
        raise ModelInputError(f"mont_dual: K*Units must be >= K + 2: the GF(p) carry between "
                              f"words takes K + 2 bits of a word (got K={K}, Units={Units})")
    if n < min_n(K, Units):
        raise ModelInputError(f"mont_dual: N must be at least {min_n(K, Units)} = K + K*Units "
                              f"(MP packs the {K}-bit m' and the {K * Units}-bit GF(2^n) "
                              f"inverse; got N={n}, K={K}, Units={Units})")


def umul_units(a: int, b: int, K: int = K, Units: int = UNITS) -> int:
    """The Units K x K units: a (K bits) times the Units K-bit digits of b (W bits), the
    partial products aligned and added (K + W bits)."""
    a &= _mask(K)
    return sum((a * ((b >> (K * u)) & _mask(K))) << (K * u) for u in range(Units))


def clmul(a: int, b: int, w: int = W) -> int:
    """The w x w carry-less multiplier: XOR of a << i for every set bit i of b (AND array)."""
    out = 0
    for i in range(w):
        if (b >> i) & 1:
            out ^= a << i
    return out


def mp_pack(m: int, n: int, K: int = K, Units: int = UNITS, **_params: int) -> int:
    """Host precomputation of MP: m' = -M^-1 mod 2^K in [K-1:0], q = M(x)^-1 mod x^W in
    [K+W-1:K]. Newton iterations (the tests check them against gmpy2 and models.gf2)."""
    check(n, K, Units)
    w = K * Units
    if m <= 0 or m % 2 == 0:
        raise ModelInputError(f"mont_dual: MP needs an odd modulus (got {short_hex(m)})")
    inv = 1  # M^-1 mod 2^K: inv *= 2 - M*inv doubles the correct bits
    for _ in range(K.bit_length()):
        inv = (inv * (2 - m * inv)) & _mask(K)
    mp_p = (-inv) & _mask(K)
    fast = native.gf2_inverse(m, w)  # the same iterations in C (models/native/wordserial.c)
    q = 1 if fast is None else fast
    # M(x)^-1 mod x^W: q <- M*q^2 doubles the correct bits in characteristic 2
    for _ in range(w.bit_length() if fast is None else 0):
        q = clmul(clmul(q, q, w) & _mask(w), m & _mask(w), w) & _mask(w)
    return mp_p | (q << K)


def validate(x: int, y: int, m: int, n: int, field: int, K: int = K,
             Units: int = UNITS) -> None:
    """What both fields need: M odd (p(0) = 1 in GF(2^n)), M < 2^N, Y < M and any N-bit X (X
    is only scanned, digit by digit: C < X*Y/R + M < 2M in GF(p), deg C < deg M in
    GF(2^n), for Y < M)."""
    for name, v in (("n", n), ("M", m), ("X", x), ("Y", y), ("field", field)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ModelInputError(f"{name} must be an int (got {type(v).__name__})")
    if field not in FIELDS:
        raise ModelInputError(f"field must be 0 (GF(p)) or 1 (GF(2^n)), got {field}")
    check(n, K, Units)
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


def mont_dual(x: int, y: int, m: int, n: int, field: int = GFP, K: int = K,
              Units: int = UNITS) -> Result:
    """One operation in the given field (0: GF(p), 1: GF(2^n)); see the module docstring.
    Result.s is C after the loop (before the final subtraction), Result.c is 0; lut counts
    the multiplier phases {field, T1/T2/MA/MB}."""
    validate(x, y, m, n, field, K, Units)
    e, gfp = words(n, K, Units), field == GFP
    mp = mp_pack(m, n, K, Units)
    q = mp & _mask(K) if gfp else mp >> K
    count = digits(n, field, K, Units)
    # the multiplier phases {field, T1/T2/MA/MB}: T1 and T2 once a digit, MA and MB once a word
    lut = {(field << 2) | phase: count * (1 if phase < 2 else e) for phase in range(4)}
    fast = native.mont_dual_loop(x, y, m, q, n, field, K, Units)
    c = _loop(x, y, m, q, n, field, K, Units) if fast is None else fast
    if gfp:
        assert c < 2 * m, "mont_dual: C >= 2M after the loop"
        p = final_sub(c, m)
    else:
        assert c.bit_length() < m.bit_length(), "mont_dual: deg C >= deg M after the loop"
        p = c
    # no redundant S, C registers: the loop's C is the value before the final subtraction
    return Result("mont_dual", n, p, None, None, cycles(n, field, K, Units), lut, unreduced=c)


def _loop(x: int, y: int, m: int, q: int, n: int, field: int, K: int, Units: int) -> int:
    """The FIOS loop, register by register (the reference of the native loop): C after it."""
    w = K * Units
    e, gfp = words(n, K, Units), field == GFP
    dig = K if gfp else w

    def mul(a: int, b: int) -> int:
        return umul_units(a, b, K, Units) if gfp else clmul(a, b, w)

    a, c = x, 0  # C: E words + one top bit
    for _ in range(digits(n, field, K, Units)):
        a_i = a & _mask(dig)
        # T1: u = c_0 + a_i*b_0 mod 2^k
        u0 = (c & _mask(w)) + mul(a_i, y & _mask(w)) if gfp else \
            (c & _mask(w)) ^ mul(a_i, y & _mask(w))
        u = u0 & _mask(dig)
        # T2: t_i = u*q mod 2^k
        t = mul(u, q) & _mask(dig)
        z = 0
        for j in range(e):
            cw = (c >> (w * j)) & _mask(w + 1 if j == e - 1 else w)
            b_j, p_j = (y >> (w * j)) & _mask(w), (m >> (w * j)) & _mask(w)
            # MA, then MB
            acc = cw + mul(a_i, b_j) + z if gfp else cw ^ mul(a_i, b_j) ^ z
            s = acc + mul(t, p_j) if gfp else acc ^ mul(t, p_j)
            # the RTL's registers: the 2W-bit accumulator and S, the W-bit carry z
            assert s >> (2 * w) == 0, "mont_dual: S does not fit the 2W-bit accumulator"
            z = s >> w
            if j == 0:
                assert s & _mask(dig) == 0, "mont_dual: the lowest digit of S is not zero"
            if gfp and j == 0:
                c = _put(c, 0, w - K, (s >> K) & _mask(w - K))
            elif gfp and j < e - 1:
                c = _put(c, w * j - K, w, s & _mask(w))
            elif gfp:
                c = _put(c, w * j - K, w + K + 1, s)
            elif j == e - 1:
                c = _put(c, w * (j - 1), 2 * w, s)
            else:
                c = _put(c, w * (j - 1), w, s & _mask(w)) if j else c
        a >>= dig
    return c
