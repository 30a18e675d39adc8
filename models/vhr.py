"""Bit-accurate model of the quotient-pipelined very-high-radix scalable Montgomery multiplier.

Jiang and Harris, "Quotient Pipelined Very High Radix Scalable Montgomery Multipliers"
(after Orup 1995, quotient pipelining with d = 1): Fig. 2 (algorithm), Fig. 3 (scalable
word loop), Fig. 4/5 (p processing elements, each handling one v-bit digit of X per kernel
cycle and w-bit words of Y, M-hat and Z), section IV.B (latency, Case I / Case II stalls).

Mirrors hdl/vhr/mont_qp.sv word by word and cycle by cycle. Notation (paper):
  f  = ceil(n' / v), n' = n + 2v        iterations i = 0 .. f (f + 1 of them)
  e  = ceil(n / w) + 1 (+1 when w = v)  words of Z, Y, M-hat per iteration
  K  = max(e, 2p + 1)                   clock cycles per kernel cycle (Case I: e, II: 2p+1)
The raw result Z << v + oldreduce lies in [0, M~ + M) with M~ = (M' mod 2^2v) M < 2^2v M;
the design reduces it fully with 2v restoring subtraction steps (M << s, s = 2v-1 .. 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from montverif.models import native
from montverif.models.mont import validate
from montverif.models.result import ModelInputError, Result

MAX_PES = 16  # observation bins of the PEs: bin 0 PE 0's first iteration, 1..15 the others
PE_BINS = MAX_PES - 1  # PE k >= 1 counts in bin 1 + (k - 1) mod 15: any number of PEs

# Observation bins (hdl/vhr/mont_qp.sv, mv_observe): hits per operation
BIN_STALL = MAX_PES  # PE 0 starts a kernel cycle after waiting for the last PE (Case II)
BIN_NO_STALL = MAX_PES + 1  # PE 0 starts a kernel cycle without waiting (Case I)
BIN_CARRY = MAX_PES + 2  # a word step of PE 0 with a non-zero carry digit C
BIN_NO_CARRY = MAX_PES + 3  # a word step of PE 0 with C = 0
BIN_SUB = MAX_PES + 4  # a final-reduction step subtracted M << s
BIN_NO_SUB = MAX_PES + 5  # a final-reduction step did not subtract
OBS_BINS = 24  # 22 and 23 are never used


@dataclass(frozen=True)
class Geometry:
    """Derived sizes of one build (all from N, V, W, P)."""

    n: int
    v: int
    w: int
    p: int

    @property
    def f(self) -> int:
        """Index of the last iteration: ceil(n' / v), n' = n + 2v."""
        return -(-(self.n + 2 * self.v) // self.v)

    @property
    def e(self) -> int:
        """Words of Z per iteration (the paper's e, plus one when w = v)."""
        return -(-self.n // self.w) + 1 + (1 if self.w == self.v else 0)

    @property
    def kernel(self) -> int:
        """Clock cycles between kernel-cycle starts of PE 0 (Case I: e; Case II: 2p + 1)."""
        return max(self.e, 2 * self.p + 1)

    @property
    def stall(self) -> bool:
        """Case II: PE 0 waits for the first word of the last PE."""
        return self.kernel > self.e

    @property
    def last_pe(self) -> int:
        return self.f % self.p

    @property
    def r_bits(self) -> int:
        """R = 2^(v (f + 1) - 2v): f + 1 digit iterations minus the built-in 2^2v scaling."""
        return self.v * (self.f - 1)

    @property
    def raw_cycles(self) -> int:
        """Busy cycles without the reducer (Reduce = 0): the last PE's start, e words,
        2 register stages."""
        return (self.f // self.p) * self.kernel + 2 * self.last_pe + self.e + 2

    @property
    def cycles(self) -> int:
        """Busy cycles: raw_cycles and the 2v reduction steps."""
        return self.raw_cycles + 2 * self.v

    @property
    def paper_cycles(self) -> int:
        """Eq. (2) / (3): k (e or 2p+1) + e + 2 (f mod p), k = floor(f / p)."""
        return (self.f // self.p) * self.kernel + self.e + 2 * self.last_pe


def check(n: int, V: int = 8, W: int = 16, P: int = 2) -> None:
    """Raise ModelInputError (one line) for an illegal (N, V, W, P)."""
    if n < 2:
        raise ModelInputError(f"mont_qp: N must be >= 2 (got {n})")
    if V < 1:
        raise ModelInputError(f"mont_qp: V must be >= 1 (got V={V})")
    if W < V:
        raise ModelInputError(f"mont_qp: V must not exceed W (got V={V}, W={W})")
    g = Geometry(n, V, W, max(P, 1))
    if not 1 <= P <= g.f + 1:
        raise ModelInputError(f"mont_qp: P must be 1..{g.f + 1} for N={n}, V={V} "
                              f"(f + 1 = {g.f + 1} iterations; got P={P})")


def r_bits(n: int, V: int = 8, W: int = 16, P: int = 2) -> int:
    check(n, V, W, P)
    return Geometry(n, V, W, P).r_bits


def mhat(m: int, n: int, V: int = 8, W: int = 16, P: int = 2) -> int:
    """Host precomputation: M-hat = ((M' mod 2^2v) M + 1) / 2^2v, M' = -M^-1 mod 2^2v."""
    if m <= 0 or m % 2 == 0:
        raise ModelInputError(f"mont_qp: M-hat needs an odd modulus > 0 (got {m})")
    mod = 1 << (2 * V)
    mp = (-pow(m, -1, mod)) % mod
    mtilde = mp * m
    assert (mtilde + 1) % mod == 0
    return (mtilde + 1) >> (2 * V)


def _words(value: int, w: int, count: int) -> list[int]:
    mask = (1 << w) - 1
    return [(value >> (w * j)) & mask for j in range(count)]


def fig2_raw(x: int, y: int, m: int, n: int, v: int) -> int:
    """Fig. 2 without words (reference for the scalable loop): Z << v + oldreduce."""
    f = -(-(n + 2 * v) // v)
    mh = mhat(m, n, v)
    z = oldreduce = 0
    for i in range(f + 1):
        reduce = z & ((1 << v) - 1)
        z = (z >> v) + oldreduce * mh + ((x >> (v * i)) & ((1 << v) - 1)) * y
        oldreduce = reduce
    return (z << v) + oldreduce


def mont_qp(x: int, y: int, m: int, n: int, V: int = 8, W: int = 16,
            P: int = 2) -> Result:
    """Fig. 3 on e words per iteration, p PEs; P = X*Y*2^-r_bits mod M fully reduced.

    ``lut`` holds the observation bins of the RTL (see the BIN_* constants): bins 0..15
    count the iterations the PEs ran (bin 0 only PE 0's first one, its later kernel-cycle
    starts go to BIN_STALL / BIN_NO_STALL; PE k >= 1 in bin 1 + (k - 1) mod 15, so beyond 16
    PEs a bin counts several), then PE 0's carry digits and the reduction steps.
    """
    validate(x, y, m, n)
    check(n, V, W, P)
    g = Geometry(n, V, W, P)
    raw, hits = unreduced(x, y, m, g)
    return Result("mont_qp", n, reduce_fully(raw, m, V, hits), None, None, g.cycles, hits)


def unreduced(x: int, y: int, m: int, g: Geometry) -> tuple[int, dict[int, int]]:
    """Fig. 3's f + 1 iterations (the native loop where it is built): the raw result
    Z << v + oldreduce in Orup's range, and the bins of the iterations and PE 0's carries;
    x, y below 2^n, m odd."""
    mh = mhat(m, g.n, g.v)
    fast = native.mont_qp_loop(x, y, mh, g.n, g.v, g.w, g.p)
    if fast is None:
        return _loop(x, y, mh, g)
    z_value, oldreduce, counts = fast  # the same loop in C (models/native/wordserial.c)
    return (z_value << g.v) + oldreduce, {a: h for a, h in enumerate(counts) if h}


def reduce_fully(raw: int, m: int, V: int, hits: dict[int, int]) -> int:
    """The 2v restoring steps (M << s subtracted unless negative, s = 2v-1 .. 0), counted in
    `hits`: raw below 2^2v M becomes raw mod M."""
    assert raw < (m << (2 * V)), "mont_qp: raw result not below 2^2v M"
    for s in range(2 * V - 1, -1, -1):
        if raw >= m << s:
            raw -= m << s
            hits[BIN_SUB] = hits.get(BIN_SUB, 0) + 1
        else:
            hits[BIN_NO_SUB] = hits.get(BIN_NO_SUB, 0) + 1
    assert raw < m
    return raw


def guard_bits(V: int) -> int:
    """Bits a lazy multiplier is wider than its modulus: with M < 2^(n - 2V - 2), every raw
    result of operands below 2^n stays below 2^n (X Y / 2^(V (f - 1)) < 2^(n - V) and
    M~ + M <= 2^2V M), so unreduced results can feed each other (rsa_core's Lazy mode)."""
    return 2 * V + 2


def lazy_product(x: int, y: int, m: int, n: int, V: int, W: int, P: int) -> int:
    """One product of an n-bit mont_qp without its reducer (Reduce = 0, rsa_core's Lazy
    mode): x, y below 2^n, M below 2^(n - guard_bits(V)); the raw result (Orup's range,
    asserted below 2^n)."""
    if not (0 <= x < 1 << n and 0 <= y < 1 << n):
        raise ModelInputError(f"mont_qp: a lazy product's operands must be below 2^{n}")
    if m <= 0 or m % 2 == 0 or m.bit_length() > n - guard_bits(V):
        raise ModelInputError(f"mont_qp: a lazy product needs an odd M below "
                              f"2^{n - guard_bits(V)} (N - 2V - 2)")
    raw, _ = unreduced(x, y, m, Geometry(n, V, W, P))
    assert raw >> n == 0, "mont_qp: an unreduced result outgrew N bits"
    return raw


def _loop(x: int, y: int, mh: int, g: Geometry) -> tuple[int, dict[int, int]]:
    """Fig. 3's f + 1 iterations of e words (the reference of the native loop): Z << v +
    oldreduce, and the bins of the iterations and of PE 0's carries."""
    V, W, P = g.v, g.w, g.p
    e, vmask, wmask = g.e, (1 << V) - 1, (1 << W) - 1
    yw, mw = _words(y, W, e), _words(mh, W, e)
    hits: dict[int, int] = {}

    def hit(addr: int) -> None:
        hits[addr] = hits.get(addr, 0) + 1

    z = [0] * e
    oldreduce = 0
    for i in range(g.f + 1):
        k = i % P
        if k:
            hit(1 + (k - 1) % PE_BINS)
        elif i == 0:
            hit(0)
        else:
            hit(BIN_STALL if g.stall else BIN_NO_STALL)
        x_i = (x >> (V * i)) & vmask
        reduce = z[0] & vmask
        carry = 0
        new = [0] * e
        for j in range(e):
            upper = z[j + 1] if j + 1 < e else 0
            shifted = (((upper << W) | z[j]) >> V) & wmask
            s = shifted + oldreduce * mw[j] + x_i * yw[j] + carry
            new[j], carry = s & wmask, s >> W
            assert carry < 1 << (V + 1), "mont_qp: carry digit outgrew v + 1 bits"
            if k == 0:
                hit(BIN_CARRY if carry else BIN_NO_CARRY)
        assert carry == 0, "mont_qp: Z outgrew e words"
        z, oldreduce = new, reduce
    return (sum(wd << (W * j) for j, wd in enumerate(z)) << V) + oldreduce, hits
