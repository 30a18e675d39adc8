"""Bit-accurate models of the scalable word-based Montgomery multipliers (Michalski-Buell).

mwr2mm: Tenca-Koc MWR2MM (Michalski-Buell Algorithm 1): X scanned bit by bit, Y, M and S in
e = ceil((N+1)/W) words of W bits; one job (bit x_i) per processing element (PE), one word per
clock, PE i+1 two clocks behind PE i (latency 2), P PEs in a ring with e - 2P delay registers.

mwrkmm: MWRkMM (Algorithm 2): X scanned in W-bit digits, Y, M and S in n = floor(N/V) + 2
words of V bits (the top word of Y and M is zero); each job first reduces S by u' M with
u' = m' S(0) mod 2^W, shifts right by W and then adds x_i Y; N/W + 1 jobs (the last digit is
zero); PE latency 3 (4 subpipelined), n - 3P (n - 4P) delay registers; the PE adds with two
carry-propagate adders or with section 5.2's carry-save tree and one carry-propagate adder
(PeAdder = 1): the same words in the same clocks, only the carries the observation sees differ.

Both mirror hdl/scalable/<design>.sv word for word: the result P (the final word-serial
subtraction of M done), the cycle count of the RTL schedule and the observation histogram
(address 2 * (PE mod 8) + carry_nonzero, one count per word step that emits a word of S).
"""

from __future__ import annotations

from montverif.models import native
from montverif.models.mont import final_sub, validate
from montverif.models.result import ModelInputError, Result

OBS_PE_SLOTS = 8  # observation addresses: PE index mod 8, times carry zero / non-zero
OBS_BINS = 2 * OBS_PE_SLOTS


def _obs_addr(pe: int, carry_nonzero: bool) -> int:
    return 2 * (pe % OBS_PE_SLOTS) + int(carry_nonzero)


def _words(value: int, width: int, count: int) -> list[int]:
    mask = (1 << width) - 1
    return [(value >> (width * j)) & mask for j in range(count)]


def _join(words: list[int], width: int) -> int:
    return sum(w << (width * j) for j, w in enumerate(words))


# --- MWR2MM ------------------------------------------------------------------------------


def mwr2mm_words(n: int, W: int) -> int:
    """e = ceil((N + 1) / W): words of S, Y and M (one extra bit for S < 2M)."""
    return -(-(n + 1) // W)


def mwr2mm_pmax(n: int, W: int) -> int:
    """Most PEs that do not stall: a PE is busy e clocks per bit and PEs start 2 clocks apart."""
    return max(1, mwr2mm_words(n, W) // 2)


def mwr2mm_check(n: int, W: int, P: int) -> None:
    """Legal (N, W, P): 2 <= W <= N (at least two words), 1 <= P <= p_max = floor(e / 2)."""
    if W < 2:
        raise ModelInputError(f"mwr2mm: W must be >= 2 (got W={W})")
    if W > n:
        raise ModelInputError(f"mwr2mm: W={W} must be <= N={n} (at least two words)")
    pmax = mwr2mm_pmax(n, W)
    if not 1 <= P <= pmax:
        raise ModelInputError(f"mwr2mm: P={P} must be in 1..p_max={pmax} "
                              f"(p_max = floor(e/2), e = ceil((N+1)/W) = {mwr2mm_words(n, W)})")


def ring_shape(words: int, pes: int, latency: int) -> tuple[int, ...]:
    """What hdl/scalable/scalable_frame.sv elaborates differently with N: its ring's delay
    line of words - latency * P registers (scalable_delay.sv), as none (a wire), one
    register, or a chain of them (0, 1, 2)."""
    return (min(max(words - latency * pes, 0), 2),)


def mwr2mm_shape(n: int, W: int = 8, P: int = 1) -> tuple[int, ...]:
    """[model] shape: the ring delay line, e - 2P registers (ring_shape)."""
    return ring_shape(mwr2mm_words(n, W), P, 2)


def mwr2mm_cycles(n: int, W: int, P: int) -> int:
    """Busy clocks of hdl/scalable/mwr2mm.sv: bit i = rP + k starts on PE k at r*e + 2k, the
    last bit's words leave its PE at T + 2 .. T + e + 1, then one FIN clock."""
    e = mwr2mm_words(n, W)
    rounds = -(-n // P)
    return rounds * e + 2 * ((n - 1) % P) + 3


def mwr2mm(x: int, y: int, m: int, n: int, W: int = 8, P: int = 1) -> Result:
    """Algorithm 1 (MWR2MM), word by word as each PE computes it.

    Per bit x_i: (C, S(0)) = x_i Y(0) + S(0); q = S(0)_0 selects M; then for every word
    (C, S(j)) = C + x_i Y(j) + q M(j) + S(j) and S(j-1) = (S(j)_0, S(j-1)_{W-1:1});
    S(e-1) = (C, S(e-1)_{W-1:1}). C is at most 2 (two bits).
    """
    validate(x, y, m, n)
    mwr2mm_check(n, W, P)
    fast = native.mwr2mm_loop(x, y, m, n, W, P)
    if fast is not None:  # the same loop in C (models/native/wordserial.c)
        total, hits = fast[0], {a: h for a, h in enumerate(fast[1]) if h}
    else:
        total, hits = _mwr2mm_loop(x, y, m, n, W, P)
    assert total < 2 * m, "mwr2mm: S >= 2M before the final subtraction"
    return Result("mwr2mm", n, final_sub(total, m), None, None, mwr2mm_cycles(n, W, P), hits,
                  unreduced=total)


def _mwr2mm_loop(x: int, y: int, m: int, n: int, W: int, P: int
                 ) -> tuple[int, dict[int, int]]:
    """Algorithm 1's n bits of e words (the reference of the native loop): S and the bins."""
    e = mwr2mm_words(n, W)
    mask = (1 << W) - 1
    yw, mw = _words(y, W, e), _words(m, W, e)
    s = [0] * e
    hits: dict[int, int] = {}
    for i in range(n):
        pe = i % P
        x_i = (x >> i) & 1
        new = [0] * e
        c = q = prev = 0
        for j in range(e):
            t = s[j] + (yw[j] if x_i else 0)
            if j == 0:
                q = t & 1
            t += c + (mw[j] if q else 0)
            c, word = t >> W, t & mask
            assert c <= 2, "mwr2mm: carry outgrew two bits"
            addr = _obs_addr(pe, c != 0)
            hits[addr] = hits.get(addr, 0) + 1
            if j == 0:
                assert word & 1 == 0, "mwr2mm: the shift would drop a one bit"
            else:
                new[j - 1] = ((word & 1) << (W - 1)) | (prev >> 1)
            prev = word
        assert c <= 1, "mwr2mm: the top word's carry must be one bit"
        new[e - 1] = (c << (W - 1)) | (prev >> 1)
        s = new
    return _join(s, W), hits


# --- MWRkMM ------------------------------------------------------------------------------


def mwrkmm_words(n: int, V: int) -> int:
    """n_w = floor(N / V) + 2 operand words (the paper's n; the top word of Y and M is 0)."""
    return n // V + 2


def mwrkmm_pmax(n: int, V: int, PeLatency: int = 3) -> int:
    """Eq. (13): p_max = floor((floor(N/V) + 2) / 3) with PE latency 3; the subpipelined PE
    (latency 4, section 7) fits floor(n_w / 4): the paper's 15 PEs at 1024 bits, v = 17."""
    return mwrkmm_words(n, V) // PeLatency


def mwrkmm_check(n: int, V: int, W: int, P: int, PeLatency: int = 3, PeAdder: int = 0) -> None:
    """Legal (N, V, W, P, PeLatency, PeAdder): 1 <= W <= V (section 6.1, 2), W divides N
    (ibid.), V <= N, PeLatency 3 or 4 (section 7), PeAdder 0 or 1 (section 5.2),
    1 <= P <= p_max (eq. 13)."""
    if PeLatency not in (3, 4):
        raise ModelInputError(f"mwrkmm: PeLatency={PeLatency} must be 3 or 4 (section 7: the "
                              "PE of latency 3 and the subpipelined one)")
    if PeAdder not in (0, 1):
        raise ModelInputError(f"mwrkmm: PeAdder={PeAdder} must be 0 or 1 (two carry-propagate "
                              "adders, or section 5.2's carry-save tree and one)")
    if W < 1:
        raise ModelInputError(f"mwrkmm: W must be >= 1 (got W={W})")
    if W > V:
        raise ModelInputError(f"mwrkmm: W={W} must be <= V={V} (the paper requires w <= v)")
    if n % W:
        raise ModelInputError(f"mwrkmm: W={W} must divide N={n} (the paper requires it)")
    if V > n:
        raise ModelInputError(f"mwrkmm: V={V} must be <= N={n}")
    pmax = mwrkmm_pmax(n, V, PeLatency)
    if not 1 <= P <= pmax:
        raise ModelInputError(f"mwrkmm: P={P} must be in 1..p_max={pmax} "
                              f"(eq. 13: p_max = floor((floor(N/V)+2)/{PeLatency}))")


def mwrkmm_block_params(label: str) -> dict[str, int] | None:
    """Build parameters that elaborate mwrkmm_pe.sv's generate block `label` (mutation,
    docs/mutation.md): g_csa, section 5.2's addition unit, needs PeAdder = 1; None for any
    other block (g_cpa2 is the default's)."""
    return {"PeAdder": 1} if label == "g_csa" else None


def mwrkmm_shape(n: int, V: int = 8, W: int = 1, P: int = 1, PeLatency: int = 3,
                 PeAdder: int = 0) -> tuple[int, ...]:
    """[model] shape: the ring delay line, n_w - PeLatency * P registers (ring_shape)."""
    return ring_shape(mwrkmm_words(n, V), P, PeLatency)


def mwrkmm_jobs(n: int, W: int) -> int:
    """N/W + 1 digit jobs: the last digit of X is zero (Algorithm 2, i = 0..p)."""
    return n // W + 1


def mwrkmm_cycles(n: int, V: int, W: int, P: int, PeLatency: int = 3) -> int:
    """Busy clocks of hdl/scalable/mwrkmm.sv with PE latency L: job i = rP + k has its
    state-A clock at r*n_w + Lk, its words leave the PE at T + L .. T + n_w + L - 1, then one
    FIN clock."""
    nw = mwrkmm_words(n, V)
    jobs = mwrkmm_jobs(n, W)
    rounds = -(-jobs // P)
    return (rounds - 1) * nw + PeLatency * ((jobs - 1) % P) + nw + PeLatency + 1


def mwrkmm_mprime(m: int, n: int, V: int = 8, W: int = 1, P: int = 1,
                  PeLatency: int = 3, PeAdder: int = 0) -> int:
    """Host precomputation m' = -M^-1 mod 2^W (eq. 10 with R = 2^W: u' needs W bits)."""
    if m <= 0 or m % 2 == 0:
        raise ModelInputError("mwrkmm: m' needs an odd modulus M > 0")
    return (-pow(m, -1, 1 << W)) % (1 << W)


def mwrkmm(x: int, y: int, m: int, n: int, V: int = 8, W: int = 1,
           P: int = 1, PeLatency: int = 3, PeAdder: int = 0) -> Result:
    """Algorithm 2 (MWRkMM), word by word as each PE computes it.

    Per job i: u' = m' S(0) mod 2^W; (Cum, Pum(j)) = u' M(j);
    (Cmod, Smod(j)) = Cmod + S(j) + Cum + Pum(j); S'(j-1) = (Smod(j)_{W-1:0}, Smod(j-1)_{V-1:W});
    (Cxy, Pxy(j-1)) = x_i Y(j-1); (Cadd, S(j-1)) = S'(j-1) + Pxy(j-1) + Cxy + Cadd,
    for j = 0 .. n_w (S(n_w) = M(n_w) = Y(n_w - 1) = 0). The PE latency (3, or 4 for the
    subpipelined PE) changes the clocks only, not a word. PeAdder = 1 (section 5.2's
    carry-save tree and one carry-propagate adder, hdl/scalable/mwrkmm_pe.sv) gives the same
    words; its observation bins count its own carries (_CsaPe), in the native loop too.
    """
    validate(x, y, m, n)
    mwrkmm_check(n, V, W, P, PeLatency, PeAdder)
    nw = mwrkmm_words(n, V)
    mp = mwrkmm_mprime(m, n, V, W, P)
    assert (y | m) >> (V * (nw - 1)) == 0, "mwrkmm: the top operand word must be zero"
    fast = native.mwrkmm_loop(x, y, m, mp, n, V, W, P, PeAdder)
    if fast is not None:  # the same loop in C (models/native/wordserial.c)
        total, hits = fast[0], {a: h for a, h in enumerate(fast[1]) if h}
    else:
        total, hits = _mwrkmm_loop(x, y, m, mp, n, V, W, P, PeAdder)
    assert total < 2 * m, "mwrkmm: S >= 2M before the final subtraction"
    return Result("mwrkmm", n, final_sub(total, m), None, None,
                  mwrkmm_cycles(n, V, W, P, PeLatency), hits,
                  unreduced=total)


def _maj(a: int, b: int, c: int) -> int:
    """The carries of a row of 3:2 compressors (before their shift)."""
    return (a & b) | (a & c) | (b & c)


class _CsaPe:
    """The carries of section 5.2's addition unit (PeAdder = 1) over one job, clock for clock
    as hdl/scalable/mwrkmm_pe.sv's g_csa keeps them: the reduction S(j) + Pum(j) + Cum in
    carry-save form (Ra, Rb and the overflow bit k), the alignment of both vectors, the
    word-0 carry z and the CPA's carry Cadd of the S + xY tree."""

    def __init__(self, V: int, W: int) -> None:
        self.V, self.W = V, W
        self.vmask, self.wmask = (1 << V) - 1, (1 << W) - 1
        self.ra = self.rb = self.k = self.z = self.cadd = 0

    def reduce(self, j: int, s_j: int, pum: int, cum: int, last: bool) -> int:
        """Word j of the reduction in carry-save form; returns k(j+1), the bit that leaves
        it (0 at step n_w: Cum and k alone, no compressor). Word 0 also gives z."""
        if last:
            ra, rb, k_next = cum, self.k, 0
        else:
            cum, k = (0, 0) if j == 0 else (cum, self.k)
            ra = s_j ^ pum ^ cum
            car = (_maj(s_j, pum, cum) << 1) | k
            rb, k_next = car & self.vmask, car >> self.V
        if j == 0:
            low_a, low_b = ra & self.wmask, rb & self.wmask
            self.z = int((low_a | low_b) != 0)
            assert low_a + low_b == self.z << self.W, "mwrkmm: word 0's low W bits are not 0"
            self.cadd = 0
        self.align = (((ra & self.wmask) << (self.V - self.W)) | (self.ra >> self.W),
                      ((rb & self.wmask) << (self.V - self.W)) | (self.rb >> self.W))
        self.ra, self.rb, self.k = ra, rb, k_next
        return k_next

    def add(self, pxy: int, cxy: int) -> int:
        """The S + xY tree and the CPA: the S word; keeps Cadd (at most 3)."""
        a, b = self.align
        t = a + b + pxy + cxy + self.cadd + self.z
        self.z = 0
        word, self.cadd = t & self.vmask, t >> self.V
        assert self.cadd <= 3, "mwrkmm: the CSA unit's Cadd outgrew two bits"
        return word


def _mwrkmm_loop(x: int, y: int, m: int, mp: int, n: int, V: int, W: int, P: int,
                 PeAdder: int = 0) -> tuple[int, dict[int, int]]:
    """Algorithm 2's N/W + 1 jobs of n_w words (the reference of the native loop): S and
    the bins. PeAdder = 1: the CSA unit's words are checked against these and its carries
    decide the bins."""
    nw = mwrkmm_words(n, V)
    vmask, wmask = (1 << V) - 1, (1 << W) - 1
    yw, mw = _words(y, V, nw), _words(m, V, nw)
    s = [0] * nw
    hits: dict[int, int] = {}
    for i in range(mwrkmm_jobs(n, W)):
        pe = i % P
        x_i = (x >> (W * i)) & wmask  # the last digit is 0 (X < 2^N)
        u = (mp * s[0]) & wmask
        new = [0] * nw
        cmod = cum = cxy = cadd = smod_prev = 0
        csa = _CsaPe(V, W) if PeAdder else None
        for j in range(nw + 1):
            s_j = s[j] if j < nw else 0
            m_j = mw[j] if j < nw else 0
            prod = u * m_j
            t = cmod + s_j + cum + (prod & vmask)
            k_next = csa.reduce(j, s_j, prod & vmask, cum, j == nw) if csa else 0
            smod, cmod, cum = t & vmask, t >> V, prod >> V
            assert cmod <= 2, "mwrkmm: Cmod outgrew two bits (eq. 12)"
            if j == 0:
                assert smod & wmask == 0, "mwrkmm: u' M did not clear the low digit"
            else:
                shifted = ((smod & wmask) << (V - W)) | (smod_prev >> W)
                pxy = x_i * yw[j - 1]
                t2 = shifted + (pxy & vmask) + cxy + cadd
                new[j - 1], cadd = t2 & vmask, t2 >> V
                assert cadd <= 2, "mwrkmm: Cadd outgrew two bits"
                carry_nz = (cmod | cadd) != 0
                if csa:
                    word = csa.add(pxy & vmask, cxy)
                    assert word == new[j - 1], "mwrkmm: the CSA unit's word differs"
                    carry_nz = (k_next | csa.cadd) != 0
                cxy = pxy >> V
                addr = _obs_addr(pe, carry_nz)
                hits[addr] = hits.get(addr, 0) + 1
            smod_prev = smod
        assert cmod == cum == cxy == cadd == 0, "mwrkmm: S outgrew n_w words"
        assert not csa or csa.k == csa.cadd == 0, "mwrkmm: S outgrew n_w words (CSA unit)"
        s = new
    return _join(s, V), hits
