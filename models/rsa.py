"""Model of the RSA exponentiation core (hdl/rsa/rsa_core.sv; Michalski-Buell 2006, Alg. 4).

Right-to-left binary exponentiation in the Montgomery domain with two multipliers working at
once (Units = 2) or one running a step's products in turn (Units = 1, A*S first); the model
lists every product of every step exactly as the RTL issues them (A <- A*S, S <- S*S),
computes each one with gmpy2 (the multipliers themselves are modelled bit by bit in
models/mont.py, scalable.py and vhr.py and verified on their own), and counts the core's
cycles: (multiplications one after the other) * (multiplier cycles + 1). The host
precomputations are here too: R2 = R^2 mod M with the R of the multiplier inside, and MP
(m' = -M^-1 mod 2^N, or M-hat for mont_qp).

Lazy = 1 (mont_qp only, Jiang-Harris's use of the multiplier): the products stay in Orup's
range, unreduced, on a multiplier without its reducer, N + 2V + 2 bits wide rounded up to
whole W-bit words; each is then computed bit for bit by models/vhr.py (its value is the
multiplier's, not the residue), and the core reduces FROM's itself (final_reduction).

Mult = 6 (inter_lut, Amanor's optimised interleaved multiplier) computes X*Y mod M: no
Montgomery domain (R = 1), so neither TO's products nor FROM's (the thesis's section 6.5:
1536 multiplications where a Montgomery multiplier needs 1 + 1536 + 1); the loop starts
from A = 1 mod M and S = X, and its last A is P.

Mult = 7, 8 (mm42, mm42_u2: Gajbhiye's MM42) take and give carry-save pairs, which the core
chains as they are: every value of the chain (operands and products) is a pair packed
{half 2, half 1}, each half N + 1 bits, computed bit for bit by models/mm42.py; only
FROM's product is reduced, by the multiplier itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gmpy2

from montverif.models import mm42
from montverif.models.result import ModelInputError, Result, short_hex
from montverif.models.scalable import mwrkmm_check, mwrkmm_cycles, mwrkmm_pmax, mwrkmm_shape
from montverif.models.vhr import Geometry, guard_bits, lazy_product
from montverif.models.vhr import check as qp_check
from montverif.models.vhr import mhat as qp_mhat

# Mult parameter -> (multiplier, its busy cycles for width n and the build's V, W, P):
# rsa_mont_mult.sv. The word-based multipliers (4, 5) take V, W, P; the bit-serial ones ignore
# them.
MULTS: dict[int, tuple[str, Callable[..., int]]] = {
    0: ("mont_lut", lambda n, **_p: n + 2),
    1: ("mont_csa", lambda n, **_p: n + 1),
    2: ("mont_csa_u2", lambda n, **_p: -(-n // 2) + 1),
    3: ("mont_lut_u2", lambda n, **_p: -(-n // 2) + 2),
    4: ("mwrkmm", lambda n, V, W, P, PeLatency=3: mwrkmm_cycles(n, V, W, P, PeLatency)),
    5: ("mont_qp", lambda n, V, W, P, PeLatency=3: Geometry(n, V, W, P).cycles),
    6: ("inter_lut", lambda n, **_p: n + 9),
    7: ("mm42", lambda n, **_p: mm42.iterations(n + 1) + mm42.OVERHEAD),
    8: ("mm42_u2", lambda n, **_p: mm42.iterations_u2(n + 1) // 2 + mm42.OVERHEAD),
}
PAIR_MULTS = (7, 8)  # carry-save pairs in and out, chained as they are (N + 1-bit halves)
PAIR_MODELS = {7: mm42.mm42, 8: mm42.mm42_u2}
DIRECT_MULTS = (6,)  # X*Y mod M, no Montgomery domain: no TO or FROM products (R = 1)
WORD_MULTS = (4, 5)  # the multipliers that read V, W, P and the MP register (mwrkmm PeLatency)
DEFAULT_VWP = {"V": 16, "W": 16, "P": 1}  # rsa_core.sv defaults
CAPTURE_CYCLES = 1  # StCap: take both products and start the next step (Units = 1: or the
# second product of the step)
UNITS = (1, 2)  # Units: multipliers (2: a step's products at once; 1: one after the other)
# The word-based multipliers at the papers' own RSA configurations: Michalski-Buell's MWRkMM
# unit (v = 17, w = 16, section 7) with its most PEs at the width, p_max (eq. 13: 20 at 1024
# bits, as the paper's core, 40 at 2048), and Jiang-Harris's radix 2^16 unit with 16 PEs x 16
# bits (section V, Table 1).
MWRKMM_V, MWRKMM_W = 17, 16
MONT_QP_VWP = {"V": 16, "W": 16, "P": 16}


def paper_configs(n: int) -> list[dict[str, int]]:
    """The core's multiplier options at width n as the papers configure them: every `Mult`
    (paper_params), Michalski-Buell's subpipelined core (section 7: mwrkmm with latency-4
    PEs, as many as fit, 15 at 1024 bits), Jiang-Harris's exponentiation on one
    multiplier (paper_one_unit: Units = 1), and their unit used as they use it, its products
    unreduced (Lazy = 1), with two multipliers and with one."""
    sub = {"Mult": 4, "V": MWRKMM_V, "W": MWRKMM_W, "P": mwrkmm_pmax(n, MWRKMM_V, 4),
           "PeLatency": 4}
    lazy = [{"Mult": 5, **paper_params(5, n), "Lazy": 1}, {**paper_one_unit(n), "Lazy": 1}]
    return [{"Mult": m, **paper_params(m, n)} for m in MULTS] + [sub, paper_one_unit(n), *lazy]


def paper_one_unit(n: int) -> dict[str, int]:
    """Jiang-Harris's exponentiation as the project derives it from section VI and Table 1:
    their radix 2^16 unit of 16 PEs running the 2n products one after the other, the core
    with one multiplier (Units = 1)."""
    return {"Mult": 5, **paper_params(5, n), "Units": 1}


def paper_params(mult: int, n: int) -> dict[str, int]:
    """The parameters beyond N and Mult of the multiplier `mult` inside the core at width n,
    at its paper's configuration (none for the bit-serial multipliers)."""
    if mult == 4:
        return {"V": MWRKMM_V, "W": MWRKMM_W, "P": mwrkmm_pmax(n, MWRKMM_V)}
    if mult == 5:
        return dict(MONT_QP_VWP)
    return {}


@dataclass(frozen=True)
class Product:
    """One product as a multiplier computes it: x*y*R^-1 mod m (R = 2^r_bits; 1 for the
    interleaved multiplier)."""

    mult: str  # "A" or "S"
    step: int  # 0 = TO, 1..L = LOOP, L+1 = FROM
    x: int
    y: int
    p: int


def width(n: int, Mult: int = 0, V: int = 16, W: int = 16, Lazy: int = 0,
          **_params: int) -> int:
    """Bits of A, S and the multipliers inside: N, or with Lazy N + 2V + 2 (mont_qp's guard
    bits: models/vhr.py guard_bits) rounded up to whole W-bit words (the final reduction
    works a word at a time), or a pair of (N + 1)-bit halves (MM42)."""
    if Mult in PAIR_MULTS:
        return 2 * (n + 1)
    return -(-(n + guard_bits(V)) // W) * W if Lazy and Mult == 5 else n


def final_reduction(value: int, m: int, V: int) -> int:
    """Lazy: rsa_core's own reduction of FROM's product (at most 2^2V M): 2V + 1 restoring
    steps, M << s subtracted unless that is negative, s = 2V .. 0."""
    assert value < m << (2 * V + 1), "rsa_core: FROM's product not below 2^(2V+1) M"
    for s in range(2 * V, -1, -1):
        if value >= m << s:
            value -= m << s
    assert value < m, "rsa_core: FROM's product not reduced by 2V + 1 steps"
    return value


def reduction_cycles(n: int, Mult: int = 0, V: int = 16, W: int = 16, Lazy: int = 0,
                     **_params: int) -> int:
    """Lazy: the clocks of the final reduction, 2V + 1 steps of a word each of the NI / W
    words and a select clock; 0 otherwise."""
    if not (Lazy and Mult == 5):
        return 0
    return (2 * V + 1) * (width(n, Mult, V, W, Lazy) // W + 1)


def check(n: int, Mult: int = 0, ConstTime: int = 1, V: int = 16, W: int = 16,
          P: int = 1, PeLatency: int = 3, Units: int = 2, Lazy: int = 0) -> None:
    if Mult not in MULTS:
        raise ModelInputError(f"rsa_core: Mult must be one of {sorted(MULTS)} "
                              f"({', '.join(f'{k}={v[0]}' for k, v in MULTS.items())}); "
                              f"got {Mult}")
    if ConstTime not in (0, 1):
        raise ModelInputError(f"rsa_core: ConstTime must be 0 or 1 (got {ConstTime})")
    if Units not in UNITS:
        raise ModelInputError(f"rsa_core: Units must be 1 or 2 (multipliers; got {Units})")
    if Lazy not in (0, 1) or (Lazy and Mult != 5):
        raise ModelInputError(f"rsa_core: Lazy must be 0, or 1 with Mult=5 (mont_qp, whose "
                              f"results can stay unreduced; got Lazy={Lazy}, Mult={Mult})")
    if n < 8:
        raise ModelInputError(f"rsa_core: N must be at least 8 (got {n})")
    try:
        if Mult == 4:
            mwrkmm_check(n, V, W, P, PeLatency)
        elif Mult == 5:
            qp_check(width(n, Mult, V, W, Lazy), V, W, P)
        if PeLatency != 3 and Mult != 4:
            raise ModelInputError(f"PeLatency={PeLatency}: only mwrkmm (Mult=4) has a PE "
                                  "latency to choose")
    except ModelInputError as exc:
        raise ModelInputError(f"rsa_core with Mult={Mult}: {exc}") from None


# (V, W, P) of the word-based multipliers when a build selects them for a small N (the
# mutation flow builds at N = 8): legal for both from N = 8 upward
SMALL_VWP = {4: {"V": 8, "W": 4, "P": 1}, 5: {"V": 4, "W": 8, "P": 2}}


def block_params(label: str) -> dict[str, int] | None:
    """Build parameters that elaborate rsa_mont_mult.sv's generate block `label`
    (g_<multiplier>) or rsa_core.sv's g_one (the one multiplier, Units = 1), None for any
    other block (g_two is the default)."""
    if label == "g_one":
        return {"Units": 1}
    if label == "g_mm42_pair":  # the pair wiring both MM42 blocks share: mm42 builds it
        return {"Mult": 7}
    for mult, (name, _) in MULTS.items():
        if label == f"g_{name}":
            return {"Mult": mult} | SMALL_VWP.get(mult, {})
    return None


def shape(n: int, Mult: int = 0, V: int = 16, W: int = 16, P: int = 1, PeLatency: int = 3,
          **_params: int) -> tuple[int, ...]:
    """[model] shape: with Mult = mwrkmm, that multiplier's ring delay line
    (scalable.mwrkmm_shape); the other multipliers elaborate the same with any N."""
    return mwrkmm_shape(n, V, W, P, PeLatency) if mult_name(Mult) == "mwrkmm" else ()


def mult_name(mult: int) -> str:
    return MULTS[mult][0]


def mult_cycles(mult: int, n: int, V: int = 16, W: int = 16, P: int = 1,
                PeLatency: int = 3, Lazy: int = 0, **_params: int) -> int:
    """The multiplier's cycles for one product at the core's width n (Lazy: an unreduced
    product of the wider multiplier, 2V restoring steps fewer)."""
    if Lazy and mult == 5:
        return Geometry(width(n, mult, V, W, Lazy), V, W, P).raw_cycles
    return MULTS[mult][1](n, V=V, W=W, P=P, PeLatency=PeLatency)


def r_bits(n: int, Mult: int = 0, V: int = 16, W: int = 16, P: int = 1, Lazy: int = 0,
           **_params: int) -> int:
    """log2 R of the multiplier inside: N for all but mont_qp (V (ceil(NI/V) + 1), NI its
    width: width()) and the interleaved one (0: no Montgomery domain)."""
    if Mult in DIRECT_MULTS:
        return 0
    if Mult in PAIR_MULTS:  # the multiplier's iterations at its width N + 1
        return mm42.iterations(n + 1) if Mult == 7 else mm42.iterations_u2(n + 1)
    return Geometry(width(n, Mult, V, W, Lazy), V, W, P).r_bits if Mult == 5 else n


def r2(m: int, n: int, **params: int) -> int:
    """R^2 mod M with the R of the multiplier inside (host precomputation, register R2); 0 for
    an even or zero M (which the core refuses anyway)."""
    if m <= 0 or m % 2 == 0:
        return 0
    return int(gmpy2.powmod(2, 2 * r_bits(n, **params), m))


def mprime(m: int, n: int, Mult: int = 0, V: int = 16, **_params: int) -> int:
    """Register MP: the reduction constant of the multiplier inside. m' = -M^-1 mod 2^n (the
    bit-serial multipliers use bit 0, mwrkmm its low W bits = -M^-1 mod 2^W); for mont_qp
    Jiang-Harris's M-hat = ((m' mod 2^2V) M + 1) / 2^2V (models/vhr.py). 0 for an even or
    zero M (no inverse; the core refuses such a modulus)."""
    if m <= 0 or m % 2 == 0:
        return 0
    if Mult == 5:
        return qp_mhat(m, n, V)
    return int((-gmpy2.invert(m, gmpy2.mpz(1) << n)) % (gmpy2.mpz(1) << n))


def _validate(x: int, e: int, m: int, n: int) -> None:
    for name, v in (("X", x), ("E", e), ("M", m), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ModelInputError(f"{name} must be an int (got {type(v).__name__})")
    if m <= 0 or m % 2 == 0:
        raise ModelInputError(f"modulus M must be odd and > 0 (got {short_hex(m)})")
    if m.bit_length() > n:
        raise ModelInputError(f"modulus M must be < 2^n (M has {m.bit_length()} bits, n={n})")
    if not 0 <= x < m:
        raise ModelInputError(f"X must be < M (X={short_hex(x)}, M={short_hex(m)})")
    if not 0 <= e < 1 << n:
        # E is the private exponent (the descriptor's `secret`): its value is never quoted
        raise ModelInputError(f"E must fit in n={n} bits (got a {e.bit_length()}-bit value)"
                              if e >= 0 else "E must not be negative")


def products(x: int, e: int, m: int, n: int, ConstTime: int = 1,
             **params: int) -> list[list[Product]]:
    """Every step of the core: the products it issues (A first), in RTL order (with one
    multiplier, Units = 1, the order it runs them in); params are the other build parameters
    (Mult, V, W, P: the multiplier's R)."""
    return _chain(x, e, m, n, ConstTime, **params)[0]


def _multiplier(m: int, n: int, **params: int) -> Callable[[int, int], tuple[int, int]]:
    """The multiplier inside as the chain sees it: (a, b) -> (its product, that product
    reduced): the residue a*b*R^-1 mod M; with Lazy mont_qp's own unreduced value; with MM42
    the multiplier's own pair (models/mm42.py at width n + 1) and its reduced P."""
    mult = params.get("Mult")
    if mult in PAIR_MULTS:
        model = PAIR_MODELS[int(mult)]

        def mm42_product(a: int, b: int) -> tuple[int, int]:
            res = model(*pair(a, n), *pair(b, n), m, n + 1)
            assert res.s is not None and res.c is not None
            return res.s | res.c << (n + 1), res.p
        return mm42_product
    if params.get("Lazy") and mult == 5:
        def lazy(a: int, b: int) -> tuple[int, int]:  # the multiplier's own value, unreduced
            v = lazy_product(a, b, m, width(n, **params), params.get("V", 16),
                             params.get("W", 16), params.get("P", 1))
            return v, v
        return lazy
    rb = r_bits(n, **params)
    rinv = gmpy2.invert(gmpy2.mpz(1) << rb, m) if m > 1 else gmpy2.mpz(0)

    def residue(a: int, b: int) -> tuple[int, int]:
        v = int(gmpy2.f_mod(gmpy2.mpz(a) * b * rinv, m))
        return v, v
    return residue


def _chain(x: int, e: int, m: int, n: int, ConstTime: int = 1,
           **params: int) -> tuple[list[list[Product]], int]:
    """products() and the core's P before any final reduction of its own (Lazy): FROM's
    product (MM42: reduced by the multiplier), or with the interleaved multiplier (no FROM)
    the last A."""
    _validate(x, e, m, n)
    product = _multiplier(m, n, **params)

    def mont(a: int, b: int) -> int:
        return product(a, b)[0]

    direct = params.get("Mult") in DIRECT_MULTS
    rr = r2(m, n, **params)
    steps: list[list[Product]] = []
    if direct:
        a, s = 1 % m, x
    else:
        a, s = mont(1, rr), mont(x, rr)
        steps.append([Product("A", 0, 1, rr, a), Product("S", 0, x, rr, s)])
    loop = n if ConstTime else e.bit_length()
    for k in range(loop):
        bit, rest = (e >> k) & 1, e >> (k + 1)
        step: list[Product] = []
        if ConstTime or bit:
            pa = mont(a, s)
            step.append(Product("A", k + 1, a, s, pa))
            a = pa if bit else a
        if ConstTime or rest:
            ps = mont(s, s)
            step.append(Product("S", k + 1, s, s, ps))
            s = ps
        steps.append(step)
    if direct:
        return steps, a
    last, p = product(1, a)
    steps.append([Product("A", loop + 1, 1, a, last)])
    return steps, p


def pair(packed: int, n: int) -> tuple[int, int]:
    """MM42: a packed pair's halves (half 1, half 2), each n + 1 bits."""
    return packed & ((1 << (n + 1)) - 1), packed >> (n + 1)


def multiplications(e: int, n: int, ConstTime: int = 1, Units: int = 2,
                    direct: bool = False) -> int:
    """Multiplication times one after the other: a step's with two multipliers (N + 2 in
    constant time, bitlen(E) + 2 without), each product's with one (2N + 3 in constant time:
    two in TO and each LOOP step, one in FROM; without constant time A*S only for a one bit
    and S*S only while higher bits remain). `direct` (the interleaved multiplier): no TO or
    FROM, two steps and three products fewer."""
    if Units == 2:
        return (n if ConstTime else e.bit_length()) + (0 if direct else 2)
    if ConstTime:
        return 2 * n + (0 if direct else 3)
    length = e.bit_length()
    return bin(e).count("1") + max(length - 1, 0) + (0 if direct else 3)


def rsa_cycles(e: int, n: int, Mult: int = 0, ConstTime: int = 1, Units: int = 2,
               **vwp: int) -> int:
    """(multiplications) * (Lm + 1), and with Lazy the final reduction's clocks. With the
    interleaved multiplier and no product (E = 0 without constant time) the START edge goes
    to the capture: one cycle."""
    times = multiplications(e, n, ConstTime, Units, Mult in DIRECT_MULTS)
    return (max(times * (mult_cycles(Mult, n, **vwp) + CAPTURE_CYCLES), CAPTURE_CYCLES)
            + reduction_cycles(n, Mult, **vwp))


def rsa_core(x: int, e: int, m: int, n: int, Mult: int = 0,
             ConstTime: int = 1, V: int = 16, W: int = 16, P: int = 1,
             PeLatency: int = 3, Units: int = 2, Lazy: int = 0) -> Result:
    """P = X^E mod M as the core computes it (E = 0 gives 1 mod M)."""
    check(n, Mult, ConstTime, V, W, P, PeLatency, Units, Lazy)
    p = _chain(x, e, m, n, ConstTime, Mult=Mult, V=V, W=W, P=P, Lazy=Lazy)[1]
    if Lazy:  # FROM's product left unreduced by the multiplier: the core's own reduction
        p = final_reduction(p, m, V)
    return Result("rsa_core", n, p, None, None,
                  rsa_cycles(e, n, Mult, ConstTime, Units, V=V, W=W, P=P,
                             PeLatency=PeLatency, Lazy=Lazy), {})
