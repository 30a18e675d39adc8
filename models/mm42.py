"""Bit-accurate models of MM42_Multiplier (Gajbhiye 2018, after its ref. [12]) and of the
same loop unfolded by two.

Operands A = (A1, A2), B = (B1, B2) and the result (S1, S2) are carry-save pairs; the value
of a pair is the sum of its halves. D = (D1, D2) = B1 + B2 + N is precomputed by a 4:2
compressor. Each iteration adds one of (0, 0), (N, 0), (B1, B2), (D1, D2), chosen by
(A_i, q_i) with q_i = (S1_0 + S2_0 + A_i (B1_0 + B2_0)) mod 2, with a 4:2 compressor (two
carry-save adders) and halves both pairs. A_i is bit i of the value A = A1 + A2, produced LSB
first by a one-bit serial adder (full adder + carry flip-flop) over the two shift registers.

Walter's bound: A, B and S stay in [0, 2N) when the loop runs K + 2 iterations (K = n, the
modulus width), so the result is A*B*2^-(n+2) mod N, returned as S1 + S2 < 2N (for any pair
A: S1 + S2 < A*B/2^(n+2) + N < 2N needs only B < 2N, as A < 2^(n+1)); the hardware
adds the halves and subtracts N once to return P fully reduced. The unfolded model runs an
even number of iterations, 2*ceil((n+2)/2), so for odd n its R is 2^(n+3).

Plain Python ints model the registers exactly; the model asserts every halving drops a zero
and every register stays within its width.
"""

from __future__ import annotations

from gmpy2 import mpz

from montverif.models import native
from montverif.models.mont import csa
from montverif.models.result import ModelInputError, Result, short_hex

EXTRA_ITER = 2  # Walter: K + 2 iterations
EXTRA_BITS = 2  # S1, S2, D1, D2 are n + 2 bits (each half <= the pair's value < 3N)
OVERHEAD = 2  # PRE (D = B1 + B2 + N) and FIN (P = S1 + S2, conditional subtraction)


def iterations(n: int) -> int:
    """Loop iterations of mm42: K + 2 (Walter's bound)."""
    return n + EXTRA_ITER


def iterations_u2(n: int) -> int:
    """Loop iterations of mm42_u2: K + 2 rounded up to even (two per clock)."""
    return 2 * -(-(n + EXTRA_ITER) // 2)


def validate(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> None:
    """n >= 2, odd 0 < m < 2^n, every half an n-bit value, B1 + B2 < 2M. A = A1 + A2 is only
    scanned (n + 2 iterations cover its n + 1 bits), so it may be any pair: S < A B / 2^r + M
    < 2M needs only B < 2M (Walter: every iteration stays below B + M < 3M).
    Messages name the operands as the register map, vector files and `montverif models run`
    do (X, X2, Y, Y2 for the paper's A1, A2, B1, B2)."""
    args = (("X", a1), ("X2", a2), ("Y", b1), ("Y2", b2), ("M", m), ("n", n))
    for name, v in args:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ModelInputError(f"{name} must be an int (got {type(v).__name__})")
    if n < 2:
        raise ModelInputError(f"n must be >= 2 (got {n})")
    if m <= 0 or m % 2 == 0:
        raise ModelInputError(f"modulus M must be odd and > 0 (got {short_hex(m)})")
    if m.bit_length() > n:
        raise ModelInputError(f"modulus M must be < 2^n (M has {m.bit_length()} bits, n={n})")
    for name, v in args[:4]:
        if v < 0 or v >> n:
            raise ModelInputError(f"{name} must be in [0, 2^n) (got {short_hex(v)}, n={n})")
    if b1 + b2 >= 2 * m:
        raise ModelInputError(f"Y + Y2 must be < 2M (Y + Y2 = {short_hex(b1 + b2)}, "
                              f"M={short_hex(m)})")


def compress42(s1: int, s2: int, x1: int, x2: int) -> tuple[int, int]:
    """4:2 compressor of two carry-save adders; the outputs sum to s1 + s2 + x1 + x2."""
    t_s, t_c = csa(s1, s2, x1)
    return csa(t_s, t_c, x2)


def selection(a_i: int, q_i: int) -> int:
    """Selection address (A_i << 1) | q_i: 0 -> (0, 0), 1 -> (N, 0), 2 -> B, 3 -> D."""
    return (a_i << 1) | q_i


def _loop(algo: str, a1: int, a2: int, b1: int, b2: int, m: int, n: int,
          iters: int) -> tuple[int, int, bytes]:
    """PRE and `iters` loop iterations of the core: the final (S1, S2) and the selection
    address (A_i << 1) | q_i of each iteration (one byte each).

    After PRE the native loop (models/native.py) runs where it is built; the Python loop is
    the reference. Its hot path: compress42, csa and selection are inlined, S1 and S2 are
    gmpy2 mpz (cheaper wide bit operations), and a CSA with a zero addend is written as the
    half adder it is (s ^ c, (s & c) << 1). The serial adder's output bits
    A_i (full adder + carry flip-flop over A1, A2, LSB first) are the bits of A1 + A2, taken
    at once. The second CSA's carry is kept as its majority: its << 1 and the halving cancel.
    """
    width = n + EXTRA_BITS
    d1, d2 = compress42(b1, b2, m, 0)  # PRE cycle
    assert d1 >> width == 0 and d2 >> width == 0, f"{algo}: D overflows"
    b0 = (b1 ^ b2) & 1
    fast = native.mm42_loop(algo, a1 + a2, [0, m, b1, d1], [0, 0, b2, d2], b0, n, iters)
    if fast is not None:  # the native loop (models/native.py); the Python loop below is the
        return fast  # reference
    x1s = [mpz(0), mpz(m), mpz(b1), mpz(d1)]  # (x1, x2) of selections 0..3, x2 = 0 for
    x2s = [mpz(0), mpz(0), mpz(b2), mpz(d2)]  # 0 and 1
    top = mpz(1) << width
    s = c = mpz(0)  # S1, S2
    sels: list[int] = []
    for a_i in format(a1 + a2, f"0{iters}b")[::-1]:  # A1 + A2 < 2^(n+1) <= 2^iters
        q_i = s.is_odd() ^ c.is_odd()  # (S1_0 + S2_0 + A_i (B1_0 + B2_0)) mod 2
        sel = (2 | (q_i ^ b0)) if a_i == "1" else int(q_i)
        sels.append(sel)
        if sel:  # CSA 1: + X1
            x1 = x1s[sel]
            t = s ^ c
            s, c = t ^ x1, ((s & c) | (t & x1)) << 1
        else:
            s, c = s ^ c, (s & c) << 1
        if sel >= 2:  # CSA 2: + X2
            x2 = x2s[sel]
            t = s ^ c
            s, c = t ^ x2, (s & c) | (t & x2)
        else:
            s, c = s ^ c, s & c
        assert s.is_even(), f"{algo}: halving would drop a one bit"
        s >>= 1
        assert s < top and c < top, f"{algo}: S overflows"
    return int(s), int(c), bytes(sels)


def _finish(algo: str, n: int, s1: int, s2: int, m: int, cycles: int,
            lut: dict[int, int]) -> Result:
    total = s1 + s2
    assert total < 2 * m, f"{algo}: S1 + S2 >= 2M"
    p = total - m if total >= m else total
    return Result(algo, n, p, s1, s2, cycles, lut)


def _histogram(keys: bytes, bins: int) -> dict[int, int]:
    return {k: h for k in range(bins) if (h := keys.count(k))}  # bytes.count: no Python loop


def mm42(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    """MM42_Multiplier: (A1+A2)(B1+B2) 2^-(n+2) mod M, one iteration per clock.

    lut maps the selection address (A_i << 1) | q_i to its hits; cycles = n + 4
    (PRE, n + 2 loop cycles, FIN)."""
    validate(a1, a2, b1, b2, m, n)
    s1, s2, sels = _loop("mm42", a1, a2, b1, b2, m, n, iterations(n))
    return _finish("mm42", n, s1, s2, m, iterations(n) + OVERHEAD, _histogram(sels, 4))


def mm42_u2(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    """MM42 unfolded by two: two iterations per clock, 2*ceil((n+2)/2) iterations, so
    R = 2^(n+2) for even n and 2^(n+3) for odd n.

    lut maps the per-clock address (sel_even << 2) | sel_odd (each (A_i << 1) | q_i) to its
    hits; cycles = ceil((n+2)/2) + 2."""
    validate(a1, a2, b1, b2, m, n)
    s1, s2, sels = _loop("mm42_u2", a1, a2, b1, b2, m, n, iterations_u2(n))
    # each clock's address (even << 2) | odd, for all clocks at once: the selections are
    # bytes below 4, so shifting the even ones' bytes as one number moves no bit into the
    # next byte, and or-ing the odd ones' in carries nothing
    even, odd = sels[0::2], sels[1::2]
    assert len(even) == len(odd), "mm42_u2: an odd number of iterations"
    pairs = ((int.from_bytes(even, "little") << 2) | int.from_bytes(odd, "little")
             ).to_bytes(len(even), "little")
    clocks = iterations_u2(n) // 2
    return _finish("mm42_u2", n, s1, s2, m, clocks + OVERHEAD, _histogram(pairs, 16))
