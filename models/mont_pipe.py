"""Bit-accurate model of mont_pipe (hdl/pipe/mont_pipe.sv): a fully pipelined radix-2^K
Montgomery multiplier, one digit iteration per pipeline stage, a new operation every clock.

Radix-2^k Montgomery (Koc, Acar and Kaliski, IEEE Micro 16(3), 1996; the loop as Tanimura et
al. 2008 state it), unrolled into D = ceil(n/K) stages (Gajbhiye and Joshi 2018's unfolding
with J = D): P = X*Y*2^(-K*D) mod M, X < 2^n, Y < M, M odd. Plain Python ints model the
registers exactly, stage by stage, with the RTL's widths (W = n + K + 1 inside a stage,
n + 1 for S and C between stages); every stage checks the invariants the RTL relies on.

The input stage computes m' = -M^-1 mod 2^K by Newton lifting from u_0 = M (m_prime). Digit
stage i, from T = S + C (0 before digit 0) and x_i = bits K*i+K-1..K*i of X:

    chain 1:  K carry-save adders add the rows x_i[j] * 2^j * Y,  (SA, CA), SA + CA = T + x_i*Y
              j = 0..K-1 in order: CA mod 2^K = 0 by the chain's structure
              (hdl/pipe/mont_pipe_stage.sv), so t = SA mod 2^K = (T + x_i*Y) mod 2^K
    q_i = t * m' mod 2^K
    chain 2:  the same with the rows q_i[j] * 2^j * M             (SB, CB) = T + x_i*Y + q_i*M
              CB mod 2^K = 0 again, and SB mod 2^K = 0 since q_i*M = -t mod 2^K
    S' = SB >> K, C' = CB >> K                                     T' = (T + x_i*Y + q_i*M) / 2^K

T < 2M after every stage. The output stage computes T = S + C and T - M side by side and
keeps T - M unless it is negative. Latency (clocks from the one accepting an operation to the
one its result is first valid, without stalls): D + 2 (input stage, D digit stages, output
stage); one operation per clock.

Build parameters take the RTL's names as keywords (K, TagW), as the registry passes a
descriptor's parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from montverif.models import native
from montverif.models.mont import validate
from montverif.models.result import ModelInputError, Result

NAME = "mont_pipe"
K_DEFAULT = 4  # mont_pipe.sv's default digit
K_MAX = 48  # Newton lifting in at most four steps (mont_pipe_mprime.sv)
TAG_W_DEFAULT = 8


def check(n: int, K: int = K_DEFAULT, **_params: int) -> None:
    """Refuse a digit size the RTL does not take (K an int in 1..K_MAX), one line."""
    if isinstance(K, bool) or not isinstance(K, int):
        raise ModelInputError(f"K must be an int (got {type(K).__name__})")
    if not 1 <= K <= K_MAX:
        raise ModelInputError(f"K must be in 1..{K_MAX} (got {K})")


def digits(n: int, K: int = K_DEFAULT) -> int:
    """D = ceil(n/K): the digit iterations, one pipeline stage each."""
    return -(-n // K)


def r_bits(n: int, K: int = K_DEFAULT) -> int:
    """R = 2^(K*D): X padded with zero bits to whole digits."""
    return K * digits(n, K)


def latency(n: int, K: int = K_DEFAULT) -> int:
    """L = ceil(n/K) + 2: clocks from the one accepting an operation to the one its result is
    first on p_o with out_valid_o, without stalls (input stage, D digit stages, output)."""
    return digits(n, K) + 2


def newton_steps(K: int) -> int:
    """The Newton steps mont_pipe_mprime takes: the least s with 3 * 2^s >= K."""
    steps = 0
    while 3 << steps < K:
        steps += 1
    return steps


def m_prime(m: int, K: int = K_DEFAULT) -> int:
    """m' = -M^-1 mod 2^K as mont_pipe_mprime computes it: u_0 = M (right in 3 bits, since
    M*M = 1 mod 8), u := u*(2 - M*u) mod 2^K (each step doubles the right bits), m' = -u."""
    if m % 2 == 0:
        raise ModelInputError("m_prime: M must be odd")
    mask = (1 << K) - 1
    u = m & mask
    for _ in range(newton_steps(K)):
        u = (u * (2 - m * u)) & mask
    return -u & mask


def quotient_digit(t: int, mp: int, K: int = K_DEFAULT) -> int:
    """q_i = t * m' mod 2^K (the stage's K x K low-half product)."""
    if not (0 <= t < 1 << K and 0 <= mp < 1 << K):
        raise ModelInputError(f"quotient_digit: t and m' must be {K}-bit digits")
    return (t * mp) & ((1 << K) - 1)


@dataclass(frozen=True)
class Stage:
    """Digit stage i: its digit x_i, the low digit t of T + x_i*Y, the quotient digit q_i,
    and the registers S, C after it (T' = s + c)."""

    i: int
    x_i: int
    t: int
    q_i: int
    s: int
    c: int

    @property
    def acc(self) -> int:
        """T' = S + C, the accumulator the stage hands on."""
        return self.s + self.c


def _rows(s: int, c: int, digit: int, mult: int, K: int, w: int) -> tuple[int, int]:
    """A chain of K carry-save adders adding the rows digit[j] * 2^j * mult to (s, c), j =
    0..K-1 in order, in w bits as the RTL (its dropped carry bit checked to be 0)."""
    for j in range(K):
        row = mult << j if (digit >> j) & 1 else 0
        maj = (s & c) | (s & row) | (c & row)
        assert maj >> (w - 1) == 0, f"{NAME}: a carry out of the stage's {w} bits"
        s, c = s ^ c ^ row, maj << 1
    return s, c


def stage(i: int, s: int, c: int, x_i: int, y: int, m: int, mp: int, n: int, K: int
          ) -> Stage:
    """One digit stage as mont_pipe_stage computes it, with the checks of its invariants."""
    w, mask = n + K + 1, (1 << K) - 1
    sa, ca = _rows(s, c, x_i, y, K, w)
    assert ca & mask == 0, f"{NAME}: stage {i}: chain 1's carry vector's low digit is not 0"
    t = sa & mask
    q_i = quotient_digit(t, mp, K)
    sb, cb = _rows(sa, ca, q_i, m, K, w)
    assert cb & mask == 0, f"{NAME}: stage {i}: chain 2's carry vector's low digit is not 0"
    assert sb & mask == 0, f"{NAME}: stage {i}: T + x_i*Y + q_i*M not divisible by 2^K"
    nxt = Stage(i, x_i, t, q_i, sb >> K, cb >> K)
    assert nxt.s >> (n + 1) == 0 and nxt.c >> (n + 1) == 0, \
        f"{NAME}: stage {i}: S or C outgrew n+1 bits"
    assert nxt.acc < 2 * m, f"{NAME}: stage {i}: T = S + C reached 2M"
    return nxt


def mont_pipe_stages(x: int, y: int, m: int, n: int, K: int = K_DEFAULT) -> list[Stage]:
    """The D digit stages an operation passes, register by register (inputs validated)."""
    validate(x, y, m, n)
    check(n, K)
    return _stages(x, y, m, n, K)


def _stages(x: int, y: int, m: int, n: int, K: int) -> list[Stage]:
    mp = m_prime(m, K)  # the input stage
    s = c = 0
    out: list[Stage] = []
    for i in range(digits(n, K)):
        sp = stage(i, s, c, (x >> (K * i)) & ((1 << K) - 1), y, m, mp, n, K)
        s, c = sp.s, sp.c
        out.append(sp)
    return out


def final(s: int, c: int, m: int, n: int) -> tuple[int, int]:
    """The output stage as mont_pipe_final computes it: (P, T) with T = S + C and P = T - M
    where that is not negative, else T; in n + 1 bits (the top one of T - M its sign), T - M
    as CSA(S, C, ~M) with the + 1 in the free LSB of its carry vector."""
    wd = n + 1
    top = (1 << wd) - 1
    total = (s + c) & top
    nm = ~m & top
    ds, dc = s ^ c ^ nm, (((s & c) | (s & nm) | (c & nm)) << 1 | 1) & top
    diff = (ds + dc) & top
    p = total if diff >> (wd - 1) else diff
    return p & ((1 << n) - 1), total


def mont_pipe(x: int, y: int, m: int, n: int, K: int = K_DEFAULT) -> Result:
    """P = X*Y*2^(-K*ceil(n/K)) mod M, as mont_pipe computes it.

    No redundant pair on the ports: ``s``/``c`` are None and ``unreduced`` is T = S + C after
    the last digit (below 2M), the value the output stage compares with M; ``cycles`` is
    the latency L = ceil(n/K) + 2; ``lut`` is empty (the core observes nothing)."""
    validate(x, y, m, n)
    check(n, K)
    fast = native.mont_pipe_loop(x, y, m, m_prime(m, K), n, K)
    if fast is None:  # no native loop: the stages in Python (the reference)
        last = _stages(x, y, m, n, K)[-1]
        fast = last.s, last.c
    p, total = final(*fast, m, n)
    assert total == sum(fast) < 2 * m, f"{NAME}: T reached 2M after the last digit"
    assert p < m, f"{NAME}: P not reduced"
    return Result(NAME, n, p, None, None, latency(n, K), {}, unreduced=total)


def register_bits(n: int, K: int = K_DEFAULT, TagW: int = TAG_W_DEFAULT) -> list[int]:
    """The flip-flops of each pipeline stage of mont_pipe (without the assertion-only ones):
    the input stage, digit stages 0..D-1, the output stage (D + 2 entries)."""
    check(n, K)
    d = digits(n, K)
    stages = [1 + TagW + K * d + 2 * n + K]  # valid, tag, X, Y, M, m'
    for i in range(d):
        bits = 1 + TagW + 2 * (n + 1) + n  # valid, tag, S, C, M
        if i < d - 1:
            bits += K * (d - 1 - i) + n + K  # the digits still to come, Y, m'
        stages.append(bits)
    stages.append(1 + TagW + n)  # out_valid, tag, P
    return stages
