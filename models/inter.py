"""Bit-accurate models of the interleaved multipliers (Amanor 2005, Alg. 2, 4, 5): x*y mod m.

The bits of X are processed MSB first. Plain Python ints model the registers exactly; the
models assert every width and range claim the RTL relies on (see docs/interleaved.md).

inter_csa and inter_lut work on a normalised modulus: the RTL shifts M and Y left by
z = n - bitlen(M) before the loop (so 2^(n-1) <= M' < 2^n, the thesis' assumption that M has
n bits) and shifts the reduced result right by z at the end:
X * (Y * 2^z) mod (M * 2^z) = 2^z * (X * Y mod M).
"""

from __future__ import annotations

from gmpy2 import mpz

from montverif.models import native
from montverif.models.mont import validate
from montverif.models.result import ModelInputError, Result

CSA_TABLE_SIZE = 7  # k * 2^n mod M for k = 0..6 (Algorithm 4)
LUT_SIZE = 8  # 2A + I for k = 0..3 and x = 0, 1 (Algorithm 5)
FIN_SUB_STEPS = 4  # conditional subtractions of 8M, 4M, 2M, M after the loop (S + C < 16 M)


def _bits_msb_first(x: int, n: int) -> list[int]:
    """The n low bits of x, MSB first."""
    return [(x >> i) & 1 for i in range(n - 1, -1, -1)]


def normalise(y: int, m: int, n: int) -> tuple[int, int, int]:
    """(z, Y << z, M << z) with z = n - bitlen(M): the shifted modulus has its top bit set."""
    z = n - m.bit_length()
    return z, y << z, m << z


def mod_add(a: int, b: int, m: int) -> int:
    """(a + b) mod m for a, b < m: one adder and one conditional subtraction."""
    assert 0 <= a < m and 0 <= b < m, "mod_add: operands must be below the modulus"
    t = a + b
    return t - m if t >= m else t


def pow2_mod(mn: int, n: int) -> int:
    """2^n mod M' for a normalised modulus 2^(n-1) <= M' < 2^n: 2^n - M', minus M' if needed."""
    assert 1 << (n - 1) <= mn < 1 << n
    h = (1 << n) - mn
    return h - mn if h >= mn else h


def madd_ties(steps: list[tuple[int, int, tuple[int, ...]]], mn: int,
              hits: dict[int, int]) -> frozenset[str]:
    """The table-building modular additions a + b whose sum sat at M' or one below it (the
    adder's compare a + b >= M' met exactly: "madd:eq" / "madd:below"), counted only where
    the loop then reads an entry that addition feeds (its own and those built from it:
    `steps` holds (a, b, those table addresses)); a compare that fails on an entry never
    read changes nothing."""
    ties: set[str] = set()
    for a, b, fed in steps:
        if any(hits.get(e) for e in fed):
            if a + b == mn:
                ties.add("madd:eq")
            elif a + b == mn - 1:
                ties.add("madd:below")
    return frozenset(ties)


def inter_csa_table(y: int, m: int, n: int) -> list[int]:
    """Algorithm 4's table k * 2^n mod M' (k = 0..6) for the normalised modulus of m.

    Built as the RTL does, one modular addition per cycle: a1 = 2^n mod M', ak = a(k-1) + a1.
    """
    _, _, mn = normalise(y, m, n)
    table = [0, pow2_mod(mn, n)]
    for _ in range(2, CSA_TABLE_SIZE):
        table.append(mod_add(table[-1], table[1], mn))
    return table


def lut_address(k: int, x_bit: int) -> int:
    """Table address 2k + x of Algorithm 5 (k = s_n + 2 c_(n+1) + c_n in 0..3, x a bit)."""
    if not (0 <= k <= 3 and x_bit in (0, 1)):
        raise ModelInputError("lut_address: k must be in 0..3 and x a bit")
    return 2 * k + x_bit


def inter_lut_table(y: int, m: int, n: int) -> list[int]:
    """Algorithm 5's 8-entry table for the normalised modulus: entry 2k + x holds
    (k * 2^(n+1) + x * Y') mod M' = (2 * (k * 2^n mod M') + x * Y') mod M'.

    Built as the RTL does (one modular addition per cycle): h = 2^n mod M', t2 = h + h,
    t4 = t2 + t2, t6 = t4 + t2, t(2k+1) = t(2k) + Y'.
    """
    _, yn, mn = normalise(y, m, n)
    h = pow2_mod(mn, n)
    t = [0] * LUT_SIZE
    t[1] = yn
    t[2] = mod_add(h, h, mn)
    t[4] = mod_add(t[2], t[2], mn)
    t[6] = mod_add(t[4], t[2], mn)
    for k in (1, 2, 3):
        t[2 * k + 1] = mod_add(t[2 * k], yn, mn)
    return t


def final_reduce(v: int, mn: int, z: int) -> int:
    """FIN cycle: v < 16 M' -> v mod M' by subtracting 8M', 4M', 2M', M' where they fit,
    then undo the normalisation (shift right by z, dropping zeros)."""
    return final_reduce_ties(v, mn, z)[0]


def final_reduce_ties(v: int, mn: int, z: int) -> tuple[int, frozenset[str]]:
    """final_reduce, and the FIN compares met exactly at their bound or one below it
    ("fin<j>:eq" / "fin<j>:below" for the compare with 2^j M')."""
    assert 0 <= v < (1 << FIN_SUB_STEPS) * mn, "final_reduce: S + C exceeds 16 M'"
    ties = set()
    for j in range(FIN_SUB_STEPS - 1, -1, -1):
        bound = mn << j
        if v in (bound, bound - 1):
            ties.add(f"fin{j}:{'eq' if v == bound else 'below'}")
        if v >= bound:
            v -= bound
    assert v % (1 << z) == 0, "final_reduce: the shift back would drop a one bit"
    return v >> z, frozenset(ties)


def inter_r2(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 2: P := 2P + x_i Y, then two conditional subtractions of M (n cycles)."""
    validate(x, y, m, n)
    p, hits = _inter_r2_loop(x, y, m, n)
    lut = {q: h for q, h in enumerate(hits) if h}
    return Result("inter_r2", n, p, None, None, n, lut)


def _inter_r2_loop(x: int, y: int, m: int, n: int) -> tuple[int, list[int]]:
    """Algorithm 2's n iterations: the native loop (models/native.py) where it is built,
    else the Python loop below (the reference)."""
    fast = native.inter_r2_loop(x, y, m, n)
    return fast if fast is not None else _inter_r2_loop_py(x, y, m, n)


def _inter_r2_loop_py(x: int, y: int, m: int, n: int) -> tuple[int, list[int]]:
    """Algorithm 2's n iterations, X MSB first: P and the histogram of the Ms subtracted
    (0, 1, 2).

    Hot path where the native loop is off: P is a gmpy2 mpz (cheaper wide arithmetic), the
    hits are counted in a list. The second subtraction can only apply after the first.
    """
    ym, mm, bound = mpz(y), mpz(m), mpz(3 * m)
    p = mpz(0)
    hits = [0] * 3  # selection histogram: how many M were subtracted (0, 1, 2)
    for xi in format(x, f"0{n}b"):  # MSB first (x < 2^n)
        p += p
        if xi == "1":
            p += ym
        assert p < bound, "inter_r2: 2P + x_i Y >= 3M"
        q = 0
        if p >= mm:
            p -= mm
            q = 1
            if p >= mm:
                p -= mm
                q = 2
        hits[q] += 1
    return int(p), hits


def inter_csa_cycles(n: int) -> int:
    """1 (normalise) + 6 (table a1..a6) + n (loop) + 1 (FIN)."""
    return 1 + (CSA_TABLE_SIZE - 1) + n + 1


def _inter_csa_loop(x: int, twice: list[int], yn: int, n: int
                    ) -> tuple[int, int, list[int]]:
    """Algorithm 4's n iterations, X MSB first: the final S, CSA 2's majority h (C = 2h) and
    the histogram of the table address k. The native loop (models/native.py) where it is
    built, else the Python loop (the reference)."""
    fast = native.inter_csa_loop(x, twice, yn, n)
    return fast if fast is not None else _inter_csa_loop_py(x, twice, yn, n)


def _inter_csa_loop_py(x: int, twice_a: list[int], yn: int, n: int
                       ) -> tuple[int, int, list[int]]:
    """The Python loop of _inter_csa_loop (`twice_a`: the addends 2A, k = 0..6).

    Hot path where the native loop is off: csa is inlined, S and C are gmpy2 mpz (cheaper
    wide bit operations), a CSA with a zero addend (x_i = 0, k = 0) is written as the half
    adder it is (s ^ c, (s & c) << 1), and C is kept as CSA 2's majority h (C = 2h; its << 1
    joins the next iteration's doubling)."""
    twice = [mpz(a) for a in twice_a]
    ym, mask, half_mask = mpz(yn), mpz((1 << n) - 1), mpz((1 << (n - 1)) - 1)
    s_top, h_top = mpz(1) << (n + 2), mpz(1) << (n + 1)
    s = h = mpz(0)
    k = 0
    hits = [0] * CSA_TABLE_SIZE  # histogram of the table address k used in each iteration
    for xi in format(x, f"0{n}b"):  # MSB first (x < 2^n)
        hits[k] += 1
        a, b = (s & mask) << 1, (h & half_mask) << 2  # 2 (S mod 2^n), 2 (C mod 2^n)
        if xi == "1":  # CSA 1: + x_i Y'
            t = a ^ b
            s, c = t ^ ym, ((a & b) | (t & ym)) << 1
        else:
            s, c = a ^ b, (a & b) << 1
        if k:  # CSA 2: + 2A
            d = twice[k]
            t = s ^ c
            s, h = t ^ d, (s & c) | (t & d)
        else:
            s, h = s ^ c, s & c
        assert s < s_top and h < h_top, "inter_csa: S, C exceed n + 2 bits"
        # step (11): A = k * 2^n mod M', used in the next iteration; k = S >> n + C >> n
        k = s.bit_test(n) + h.bit_test(n - 1) + 2 * (s.bit_test(n + 1) + h.bit_test(n))
        assert k < CSA_TABLE_SIZE, "inter_csa: k >= 7"
    return int(s), int(h), hits


def inter_csa(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 4: two CSAs per iteration, A = k * 2^n mod M' from the top bits of S, C."""
    validate(x, y, m, n)
    z, yn, mn = normalise(y, m, n)
    table = inter_csa_table(y, m, n)
    s, h, hits = _inter_csa_loop(x, [2 * a for a in table], yn, n)
    c = h << 1
    assert s + c < 7 << n
    p, ties = final_reduce_ties(s + c, mn, z)
    lut = {a: hit for a, hit in enumerate(hits) if hit}
    ties |= madd_ties([(table[i - 1], table[1], tuple(range(i, CSA_TABLE_SIZE)))
                       for i in range(2, CSA_TABLE_SIZE)], mn, lut)
    return Result("inter_csa", n, p, s, c, inter_csa_cycles(n), lut, ties=ties)


def inter_lut_cycles(n: int) -> int:
    """1 (normalise) + 7 (table: h, t2, t4, t6, t3, t5, t7) + n (loop) + 1 (FIN)."""
    return 1 + 7 + n + 1


def lut_k(s: int, c: int, n: int) -> int:
    """k = s_n + 2 c_(n+1) + c_n as the RTL forms it: {c_(n+1) | s_n & c_n, s_n ^ c_n}."""
    s_n, c_n1, c_n = (s >> n) & 1, (c >> (n + 1)) & 1, (c >> n) & 1
    assert s >> (n + 1) == 0, "inter_lut: S has a bit above n"
    assert c >> (n + 2) == 0, "inter_lut: C has a bit above n + 1"
    assert not (s_n and c_n1), "inter_lut: s_n and c_(n+1) are both set"
    return 2 * (c_n1 | (s_n & c_n)) + (s_n ^ c_n)


def _lut_k_by_top_bits() -> list[int]:
    """lut_k for each (s_n, c_(n+1), c_n), indexed 4 s_n + 2 c_(n+1) + c_n; -1 where s_n and
    c_(n+1) are both set (lut_k asserts). Each k is the overflow s_n + 2 c_(n+1) + c_n."""
    ks = []
    for i in range(8):
        s_n, c_top = i >> 2, i & 3
        ks.append(-1 if s_n and c_top >> 1 else lut_k(s_n, c_top, 0))
        assert ks[-1] in (-1, s_n + c_top), "inter_lut: k is not the overflow of S + C"
    return ks


LUT_K_BY_TOP_BITS = _lut_k_by_top_bits()


def _inter_lut_loop(x: int, table_values: list[int], n: int) -> tuple[int, int, list[int]]:
    """Algorithm 5's n iterations, X MSB first: the final S, the CSA's majority h (C = 2h)
    and the table-address histogram. The native loop (models/native.py) where it is built,
    else the Python loop (the reference)."""
    fast = native.inter_lut_loop(x, table_values, LUT_K_BY_TOP_BITS, n)
    return fast if fast is not None else _inter_lut_loop_py(x, table_values, n)


def _inter_lut_loop_py(x: int, table_values: list[int], n: int) -> tuple[int, int, list[int]]:
    """The Python loop of _inter_lut_loop.

    Hot path where the native loop is off: csa, lut_k and lut_address are inlined (lut_k as
    a lookup of the top bits of S and C, LUT_K_BY_TOP_BITS), S and C are gmpy2 mpz (cheaper
    wide bit operations), and C is kept as the CSA's majority h (C = 2h; its << 1 joins the
    next iteration's doubling)."""
    entries = [mpz(v) for v in table_values]
    mask, half_mask = mpz((1 << n) - 1), mpz((1 << (n - 1)) - 1)
    s_top, h_top = mpz(1) << (n + 1), mpz(1) << (n + 1)
    bits = format(x, f"0{n}b")  # MSB first (x < 2^n)
    addr = lut_address(0, int(bits[0]))  # step (3): A := LookUp(x_(n-1))
    hits = [0] * LUT_SIZE
    s = h = mpz(0)
    for next_bit in bits[1:] + "0":  # x_(i-1), 0 after the last iteration
        hits[addr] += 1
        a, b, d = (s & mask) << 1, (h & half_mask) << 2, entries[addr]  # 2 (S, C mod 2^n)
        t = a ^ b
        s, h = t ^ d, (a & b) | (t & d)
        assert s < s_top, "inter_lut: S has a bit above n"
        assert h < h_top, "inter_lut: C has a bit above n + 1"
        # (s_n, c_(n+1), c_n) -> k
        k = LUT_K_BY_TOP_BITS[(s.bit_test(n) << 2) | (h.bit_test(n) << 1) | h.bit_test(n - 1)]
        assert k >= 0, "inter_lut: s_n and c_(n+1) are both set"
        addr = 2 * k + (next_bit == "1")
    return int(s), int(h), hits


def inter_lut(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 5: one CSA per iteration and an 8-entry table of 2A + I values."""
    validate(x, y, m, n)
    z, _, mn = normalise(y, m, n)
    table = inter_lut_table(y, m, n)
    s, h, hits = _inter_lut_loop(x, table, n)
    c = h << 1
    assert s + c < 5 << n
    p, ties = final_reduce_ties(s + c, mn, z)
    h, yn = pow2_mod(mn, n), normalise(y, m, n)[1]
    lut = {a: hit for a, hit in enumerate(hits) if hit}
    steps = [(h, h, (2, 3, 4, 5, 6, 7)), (table[2], table[2], (4, 5, 6, 7)),
             (table[4], table[2], (6, 7))]  # t2, t4, t6 and the odd entries built on them
    ties |= madd_ties(steps + [(table[2 * k], yn, (2 * k + 1,)) for k in (1, 2, 3)], mn, lut)
    return Result("inter_lut", n, p, s, c, inter_lut_cycles(n), lut, ties=ties)
