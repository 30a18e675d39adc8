"""Bit-accurate model of mont_r4 (hdl/mont/mont_r4.sv): radix-4 Montgomery multiplication
with a carry-save accumulator and a table of the multiples {0, Y, 2Y, 3Y}, {0, M, 2M, 3M}.

Radix-2^k Montgomery with k = 2 (Koc, Acar and Kaliski, IEEE Micro 16(3), 1996; Blum and
Paar, IEEE Trans. Computers 50(7), 2001; Orup, ARITH-12, 1995): P = X*Y*R^-1 mod M with
R = 4^K = 2^(2*ceil(n/2)), K = ceil(n/2) digit iterations (for odd n, X is padded with a
zero bit to 2K bits, so R = 2^(n+1)). Plain Python ints (no gmpy2) model the registers
exactly in mont_r4_steps, the reference; every loop step checks the invariants the RTL relies
on. The model runs the same loop in C (models/native/bitserial.c, mv_mont_r4) where
models/native.py could build it, 20 to 30 times faster: the same registers, hits and failed
checks (models/tests/test_native.py).

Per loop cycle, with the registers S, C (n+1 bits) and the pending carry cin (1 bit),
T = S + C + cin, digit x_i = bits 2i+1..2i of X:

    CSA 1:  S1 = S ^ C ^ A, C1 = maj(S, C, A) << 1 | cin      A = x_i * Y (from the table)
    t = (S1 + C1) mod 4 = (T + x_i*Y) mod 4                   two-bit adder on the low bits
    q_i = t * m' mod 4, m' = -M^-1 mod 4 = 3 if M mod 4 = 1 else 1 (from M's bit 1)
    CSA 2:  S2 = S1 ^ C1 ^ B, C2 = maj(S1, C1, B) << 1        B = q_i * M (from the table)
    S2 + C2 = 0 mod 4, so S2[0] = 0 and S2[1] = C2[1]: the two low bits sum to 4 * S2[1]
    S := S2 >> 2, C := C2 >> 2, cin := S2[1]                  T := (T + x_i*Y + q_i*M) / 4

The FIN cycle adds P = S + C + cin, subtracts M once if P >= M, and folds cin into the
exposed pair with CSA 1 on a zero digit (X is exhausted): S := S ^ C, C := (S & C) << 1 | cin,
so the final S + C is the unreduced P. Cycles: 1 (PRE: 3Y, 3M) + K (loop) + 1 (FIN).
"""

from __future__ import annotations

from dataclasses import dataclass

from montverif.models import native
from montverif.models.mont import final_sub, validate
from montverif.models.result import ModelInputError, Result

NAME = "mont_r4"
TABLE_BINS = 16  # table address (x_i << 2) | q_i


def digits(n: int) -> int:
    """K = ceil(n/2): the loop's digit iterations (X padded to 2K bits)."""
    return (n + 1) // 2


def cycles(n: int) -> int:
    """Cycles from the start edge to the edge busy falls: PRE + K loop cycles + FIN."""
    return digits(n) + 2


def m_prime(m: int) -> int:
    """m' = -M^-1 mod 4 of an odd M, as the RTL derives it from M's bit 1: {~m_1, 1}."""
    if m % 2 == 0:
        raise ModelInputError("m_prime: M must be odd")
    return (((m >> 1) & 1) ^ 1) << 1 | 1


def quotient_digit(t: int, m: int) -> int:
    """q = t * m' mod 4 in the RTL's gates: q_0 = t_0, q_1 = t_1 ^ (t_0 & ~m_1)."""
    if not 0 <= t < 4:
        raise ModelInputError("quotient_digit: t must be in 0..3")
    t0, t1, m1 = t & 1, t >> 1, (m >> 1) & 1
    return (t1 ^ (t0 & (m1 ^ 1))) << 1 | t0


def table_address(x_i: int, q_i: int) -> int:
    """Table address (x_i << 2) | q_i: the Y multiple and the M multiple of one iteration."""
    if not (0 <= x_i < 4 and 0 <= q_i < 4):
        raise ModelInputError("table_address: x_i, q_i must be radix-4 digits (0..3)")
    return (x_i << 2) | q_i


@dataclass(frozen=True)
class Step:
    """One loop cycle: its digit, quotient digit and table address, and the registers S, C,
    cin after its clock edge (T = s + c + cin)."""

    i: int
    x_i: int
    q_i: int
    address: int
    s: int
    c: int
    cin: int

    @property
    def t(self) -> int:
        return self.s + self.c + self.cin


def mont_r4_steps(x: int, y: int, m: int, n: int) -> list[Step]:
    """The K loop cycles of mont_r4, register by register (inputs validated)."""
    validate(x, y, m, n)
    return _steps(x, y, m, n)


def _steps(x: int, y: int, m: int, n: int) -> list[Step]:
    """mont_r4_steps without the input checks (the loop's own checks stay)."""
    ys = (0, y, y << 1, 3 * y)  # PRE: 3Y (and 3M) into registers of n+2 bits
    ms = (0, m, m << 1, 3 * m)
    top = 1 << (n + 1)  # S and C are n+1-bit registers
    s = c = cin = 0
    steps: list[Step] = []
    for i in range(digits(n)):
        x_i = (x >> (2 * i)) & 3
        a = ys[x_i]
        s1 = s ^ c ^ a  # CSA 1, the pending carry in the free LSB of its carry vector
        c1 = ((s & c) | (s & a) | (c & a)) << 1 | cin
        q_i = quotient_digit((s1 + c1) & 3, m)
        b = ms[q_i]
        s2 = s1 ^ c1 ^ b  # CSA 2
        c2 = ((s1 & c1) | (s1 & b) | (c1 & b)) << 1
        assert s2 & 1 == 0 and (s2 >> 1) & 1 == (c2 >> 1) & 1, \
            f"{NAME}: S2 + C2 not divisible by 4"
        s, c, cin = s2 >> 2, c2 >> 2, (s2 >> 1) & 1
        assert s + c + cin < 2 * m, f"{NAME}: T = S + C + cin reached 2M"
        assert s < top and c < top, f"{NAME}: S or C outgrew n+1 bits"
        steps.append(Step(i, x_i, q_i, (x_i << 2) | q_i, s, c, cin))
    return steps


def fin(s: int, c: int, cin: int) -> tuple[int, int]:
    """FIN's carry fold (CSA 1 with a zero digit): the exposed pair, summing to S + C + cin."""
    return s ^ c, (s & c) << 1 | cin


def _loop(x: int, y: int, m: int, n: int) -> tuple[int, int, int, list[int]]:
    """The K loop cycles: the final S, C, cin and the hits of each table address. The native
    loop (models/native.py) where it is built, else mont_r4_steps (the reference)."""
    fast = native.mont_r4_loop(x, y, m, n)
    if fast is not None:
        return fast
    steps = _steps(x, y, m, n)
    hits = [0] * TABLE_BINS
    for sp in steps:
        hits[sp.address] += 1
    last = steps[-1]
    return last.s, last.c, last.cin, hits


def mont_r4(x: int, y: int, m: int, n: int) -> Result:
    """Radix-4 Montgomery: P = X*Y*2^-(2*ceil(n/2)) mod M (R = 4^ceil(n/2)).

    Mirrors hdl/mont/mont_r4.sv: ``s``, ``c`` are the S and C registers after the operation
    (the loop's final pair with its pending carry folded in by FIN: s + c is the value FIN
    compares with M, below 2M); ``lut`` counts the table address (x_i << 2) | q_i per loop
    cycle; cycles = ceil(n/2) + 2.
    """
    validate(x, y, m, n)
    s_k, c_k, cin_k, hits = _loop(x, y, m, n)
    s, c = fin(s_k, c_k, cin_k)
    top = 1 << (n + 1)
    assert s < top and c < top, f"{NAME}: FIN's S or C outgrew n+1 bits"
    lut = {a: h for a, h in enumerate(hits) if h}
    return Result(NAME, n, final_sub(s + c, m), s, c, cycles(n), lut)
