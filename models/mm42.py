"""Bit-accurate models of MM42_Multiplier (Gajbhiye 2018, after its ref. [12]) and of the
same loop unfolded by two.

Operands A = (A1, A2), B = (B1, B2) and the result (S1, S2) are carry-save pairs; the value
of a pair is the sum of its halves. D = (D1, D2) = B1 + B2 + N is precomputed by a 4:2
compressor. Each iteration adds one of (0, 0), (N, 0), (B1, B2), (D1, D2), chosen by
(A_i, q_i) with q_i = (S1_0 + S2_0 + A_i (B1_0 + B2_0)) mod 2, with a 4:2 compressor (two
carry-save adders) and halves both pairs. A_i is bit i of the value A = A1 + A2, produced LSB
first by a one-bit serial adder (full adder + carry flip-flop) over the two shift registers.

Walter's bound: A, B and S stay in [0, 2N) when the loop runs K + 2 iterations (K = n, the
modulus width), so the result is A*B*2^-(n+2) mod N, returned as S1 + S2 < 2N; the hardware
adds the halves and subtracts N once to return P fully reduced. The unfolded model runs an
even number of iterations, 2*ceil((n+2)/2), so for odd n its R is 2^(n+3).

Plain Python ints model the registers exactly; the model asserts every halving drops a zero
and every register stays within its width.
"""

from __future__ import annotations

from models.mont import csa
from models.result import ModelInputError, Result, short_hex

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
    """n >= 2, odd 0 < m < 2^n, every half an n-bit value, A1 + A2 < 2M, B1 + B2 < 2M."""
    args = (("A1", a1), ("A2", a2), ("B1", b1), ("B2", b2), ("M", m), ("n", n))
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
    for name, lo, hi in (("A", a1, a2), ("B", b1, b2)):
        if lo + hi >= 2 * m:
            raise ModelInputError(
                f"{name}1 + {name}2 must be < 2M ({name}1 + {name}2 = {short_hex(lo + hi)}, "
                f"M={short_hex(m)})")


def compress42(s1: int, s2: int, x1: int, x2: int) -> tuple[int, int]:
    """4:2 compressor of two carry-save adders; the outputs sum to s1 + s2 + x1 + x2."""
    t_s, t_c = csa(s1, s2, x1)
    return csa(t_s, t_c, x2)


def selection(a_i: int, q_i: int) -> int:
    """Selection address (A_i << 1) | q_i: 0 -> (0, 0), 1 -> (N, 0), 2 -> B, 3 -> D."""
    return (a_i << 1) | q_i


class _Loop:
    """The registers of the core: S1, S2, the serial adder over A1, A2, the histogram."""

    def __init__(self, a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> None:
        self.n, self.width = n, n + EXTRA_BITS
        self.a1, self.a2, self.a_carry = a1, a2, 0
        d1, d2 = compress42(b1, b2, m, 0)  # PRE cycle
        self.check(d1, d2, "D")
        self.addends = ((0, 0), (m, 0), (b1, b2), (d1, d2))
        self.b0 = (b1 ^ b2) & 1
        self.s1 = self.s2 = 0
        self.lut: dict[int, int] = {}

    def check(self, lo: int, hi: int, what: str) -> None:
        assert lo >> self.width == 0 and hi >> self.width == 0, f"mm42: {what} overflows"

    def next_a_bit(self) -> int:
        """One step of the serial adder: A_i = A1_0 ^ A2_0 ^ carry; shift both right."""
        x, y, c = self.a1 & 1, self.a2 & 1, self.a_carry
        self.a_carry = (x & y) | (x & c) | (y & c)
        self.a1 >>= 1
        self.a2 >>= 1
        return x ^ y ^ c

    def step(self) -> int:
        """One iteration; returns its selection address."""
        a_i = self.next_a_bit()
        q_i = ((self.s1 ^ self.s2) & 1) ^ (a_i & self.b0)
        sel = selection(a_i, q_i)
        x1, x2 = self.addends[sel]
        s, c = compress42(self.s1, self.s2, x1, x2)
        assert (s | c) & 1 == 0, "mm42: halving would drop a one bit"
        self.s1, self.s2 = s >> 1, c >> 1
        self.check(self.s1, self.s2, "S")
        return sel


def _finish(algo: str, loop: _Loop, m: int, cycles: int) -> Result:
    total = loop.s1 + loop.s2
    assert total < 2 * m, f"{algo}: S1 + S2 >= 2M"
    p = total - m if total >= m else total
    return Result(algo, loop.n, p, loop.s1, loop.s2, cycles, loop.lut)


def mm42(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    """MM42_Multiplier: (A1+A2)(B1+B2) 2^-(n+2) mod M, one iteration per clock.

    lut maps the selection address (A_i << 1) | q_i to its hits; cycles = n + 4
    (PRE, n + 2 loop cycles, FIN)."""
    validate(a1, a2, b1, b2, m, n)
    loop = _Loop(a1, a2, b1, b2, m, n)
    for _ in range(iterations(n)):
        sel = loop.step()
        loop.lut[sel] = loop.lut.get(sel, 0) + 1
    return _finish("mm42", loop, m, iterations(n) + OVERHEAD)


def mm42_u2(a1: int, a2: int, b1: int, b2: int, m: int, n: int) -> Result:
    """MM42 unfolded by two: two iterations per clock, 2*ceil((n+2)/2) iterations, so
    R = 2^(n+2) for even n and 2^(n+3) for odd n.

    lut maps the per-clock address (sel_even << 2) | sel_odd (each (A_i << 1) | q_i) to its
    hits; cycles = ceil((n+2)/2) + 2."""
    validate(a1, a2, b1, b2, m, n)
    loop = _Loop(a1, a2, b1, b2, m, n)
    clocks = iterations_u2(n) // 2
    for _ in range(clocks):
        addr = (loop.step() << 2) | loop.step()
        loop.lut[addr] = loop.lut.get(addr, 0) + 1
    return _finish("mm42_u2", loop, m, clocks + OVERHEAD)
