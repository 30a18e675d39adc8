"""models/rsa.py: the RSA core model against gmpy2 and the bit-accurate multiplier models."""

from __future__ import annotations

import random

import gmpy2
import pytest

from montverif.models import rsa
from montverif.models.inter import inter_lut
from montverif.models.mm42 import mm42, mm42_u2
from montverif.models.mont import mont_csa, mont_csa_u2, mont_lut, mont_lut_u2
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError
from montverif.models.scalable import mwrkmm
from montverif.models.vhr import mont_qp

BIT_MODELS = {0: mont_lut, 1: mont_csa, 2: mont_csa_u2, 3: mont_lut_u2, 4: mwrkmm, 5: mont_qp,
              6: inter_lut}
# the word-based multipliers at a legal (V, W, P) for N = 32 (mont_qp: R = 2^(V(N/V + 1)))
VWP = {4: {"V": 8, "W": 4, "P": 2}, 5: {"V": 8, "W": 16, "P": 3}}


def test_precompute_against_gmpy2() -> None:
    rng = random.Random(1)
    for n in (8, 64, 512, 2048):
        m = rng.getrandbits(n) | 1 | (1 << (n - 1))
        assert rsa.r2(m, n) == int(gmpy2.powmod(2, 2 * n, m))
        mp = rsa.mprime(m, n)
        assert (m * mp) % (1 << n) == (1 << n) - 1  # M * m' = -1 mod 2^n
    assert rsa.r2(4, 8) == 0 and rsa.mprime(0, 8) == 0  # refused moduli: nothing to compute


@pytest.mark.parametrize("const_time", [1, 0])
def test_modexp_against_powmod(const_time: int) -> None:
    rng = random.Random(2)
    n = 64
    for _ in range(50):
        m = rng.getrandbits(n) | 1
        x, e = rng.randrange(m), rng.getrandbits(rng.randint(0, n))
        r = rsa.rsa_core(x, e, m, n, ConstTime=const_time)
        assert r.p == int(gmpy2.powmod(x, e, m))
    for e in (0, 1, 2, (1 << n) - 1, 1 << (n - 1)):
        assert rsa.rsa_core(5, e, 7, n).p == int(gmpy2.powmod(5, e, 7))
    assert rsa.rsa_core(0, 0, 1, n).p == 0  # 1 mod 1


@pytest.mark.parametrize("mult", sorted(BIT_MODELS))
def test_products_match_the_bit_accurate_multiplier(mult: int) -> None:
    """Every product the core issues, recomputed by the multiplier's bit-level model (with the
    build's V, W, P for the word-based ones, whose R differs for mont_qp)."""
    n, m = 32, 0xF123_4567
    vwp = VWP.get(mult, {})
    steps = rsa.products(0x1234_5678, 0xA5A5_0001, m, n, Mult=mult, **vwp)
    for step in steps:
        for p in step:
            x = p.x % m  # the bit model's checks want X < M (the RTL only needs X < 2^N)
            assert BIT_MODELS[mult](x, p.y, m, n, **vwp).p == p.p
    result = rsa.rsa_core(0x1234_5678, 0xA5A5_0001, m, n, Mult=mult, **vwp).p
    assert result == pow(0x1234_5678, 0xA5A5_0001, m)
    last = steps[-1][-1] if mult not in rsa.DIRECT_MULTS else [
        q for q in steps[-1] if q.mult == "A"][0]  # interleaved: the last A*S is P
    assert last.p == result


def test_word_multipliers_precompute_for_their_own_r() -> None:
    """R2 follows the R of the multiplier inside; MP is m' (mwrkmm: its low W bits) or M-hat."""
    rng = random.Random(5)
    n = 64
    for _ in range(20):
        m = rng.getrandbits(n) | 1 | (1 << (n - 1))
        qp = {"Mult": 5, "V": 8, "W": 16, "P": 2}
        rb = rsa.r_bits(n, **qp)
        assert rb == 8 * (n // 8 + 1) and rsa.r_bits(n, Mult=4) == n
        assert rsa.r2(m, n, **qp) == int(gmpy2.powmod(2, 2 * rb, m))
        mhat = rsa.mprime(m, n, **qp)
        mp2v = (-pow(m, -1, 1 << 16)) % (1 << 16)
        assert mhat << 16 == mp2v * m + 1 and mhat < m
        mp = rsa.mprime(m, n, Mult=4, V=16, W=8, P=1)
        assert (m * (mp % 256)) % 256 == 255  # m' mod 2^W = -M^-1 mod 2^W


def test_word_multiplier_parameters_are_checked() -> None:
    info = get_algo("rsa_core")
    with pytest.raises(ModelInputError, match="Mult=4: mwrkmm: W=16 must divide N=97"):
        info.resolve(97, {"Mult": 4})
    with pytest.raises(ModelInputError, match="Mult=5: mont_qp: V must not exceed W"):
        info.resolve(64, {"Mult": 5, "V": 32, "W": 16})
    assert info.resolve(97, {"Mult": 0})["W"] == 16  # V, W, P are not checked for Mults 0..3


def test_step_structure_and_cycles() -> None:
    n, e = 16, 0b1011
    ct = rsa.products(3, e, 65521, n, ConstTime=1)
    assert len(ct) == n + 2 and all(len(s) == 2 for s in ct[:-1]) and len(ct[-1]) == 1
    vt = rsa.products(3, e, 65521, n, ConstTime=0)
    assert len(vt) == e.bit_length() + 2
    assert [len(s) for s in vt[1:-1]] == [2, 2, 1, 1]  # bit 2 = 0: S only; last: A only
    for mult in rsa.MULTS:
        vwp = {4: {"V": 8, "W": 4, "P": 1}, 5: {"V": 4, "W": 8, "P": 2}}.get(mult, {})
        lm = rsa.mult_cycles(mult, n, **vwp)
        if mult in rsa.PAIR_MULTS:  # MM42 at the pairs' half width N + 1
            assert rsa.PAIR_MODELS[mult](1, 0, 2, 0, 65521, n + 1).cycles == lm
        else:
            assert BIT_MODELS[mult](1, 2, 65521, n, **vwp).cycles == lm
        domain = 0 if mult in rsa.DIRECT_MULTS else 2  # the TO and FROM steps
        assert rsa.rsa_cycles(0, n, Mult=mult, **vwp) == (n + domain) * (lm + 1)
        assert rsa.rsa_cycles(e, n, Mult=mult, ConstTime=0, **vwp) == (4 + domain) * (lm + 1)


@pytest.mark.parametrize("mult,model", [(7, mm42), (8, mm42_u2)])
def test_mm42_chains_carry_save_pairs_from_product_to_product(mult: int, model: object) -> None:
    """Mult = 7, 8 (Gajbhiye's MM42): every operand and product of the chain is a pair of
    (N + 1)-bit halves, each product the multiplier's own pair on the previous products'
    pairs (no carry-propagate addition between them), its value below 2M and congruent to
    the operands' values times R^-1, with R the multiplier's at width N + 1; P is FROM's
    product reduced by the multiplier."""
    rng = random.Random(11)
    n = 33
    rb = rsa.r_bits(n, Mult=mult)
    assert rsa.width(n, Mult=mult) == 2 * (n + 1)
    assert rb == (n + 3 if mult == 7 else 2 * -(-(n + 3) // 2))
    unreduced = split = 0
    for _ in range(20):
        m = rng.getrandbits(n) | 1 | 1 << (n - 1)
        x, e = rng.randrange(m), rng.getrandbits(n)
        steps = rsa.products(x, e, m, n, Mult=mult)
        assert rsa.rsa_core(x, e, m, n, Mult=mult).p == pow(x, e, m)
        for step in steps:
            for p in step:
                (x1, x2), (y1, y2), (p1, p2) = (rsa.pair(v, n) for v in (p.x, p.y, p.p))
                want = model(x1, x2, y1, y2, m, n + 1)  # type: ignore[operator]
                assert (p1, p2) == (want.s, want.c)
                assert p1 + p2 < 2 * m and (p1 + p2 - (x1 + x2) * (y1 + y2) * pow(
                    2, -rb, m)) % m == 0
                unreduced += p1 + p2 >= m
                split += p1 > 0 and p2 > 0
        # the chain: each step's operands are the pairs the step before produced
        for before, after in zip(steps, steps[1:-1], strict=False):
            s_pair = [q.p for q in before if q.mult == "S"][0]
            assert all(q.y == s_pair for q in after)
    assert unreduced and split  # pairs beyond M and with both halves set do occur
    lm = rsa.mult_cycles(mult, n)
    assert rsa.rsa_cycles(1, n, Mult=mult) == (n + 2) * (lm + 1)


def test_interleaved_multiplier_needs_no_montgomery_domain() -> None:
    """Mult = 6 (inter_lut, X*Y mod M): no TO or FROM step, the loop starts from A = 1 mod M
    and S = X; its last A is P (the thesis's 1536 against 1 + 1536 + 1 multiplications,
    section 6.5); E = 0 without constant time runs no product and takes the capture cycle."""
    n, m, x, e = 16, 65521, 3, 0b1011
    assert rsa.r_bits(n, Mult=6) == 0 and rsa.r2(m, n, Mult=6) == 1
    ct = rsa.products(x, e, m, n, Mult=6)
    assert len(ct) == n and all(len(s) == 2 for s in ct) and ct[0][0].step == 1
    assert (ct[0][0].x, ct[0][0].y, ct[0][1].x, ct[0][1].y) == (1, x, x, x)
    vt = rsa.products(x, e, m, n, Mult=6, ConstTime=0)
    assert [len(s) for s in vt] == [2, 2, 1, 1]
    lm = n + 9
    for units, ct_count, vt_count in ((2, n, 4), (1, 2 * n, 6)):
        assert rsa.rsa_cycles(e, n, Mult=6, Units=units) == ct_count * (lm + 1)
        assert rsa.rsa_cycles(e, n, Mult=6, ConstTime=0, Units=units) == vt_count * (lm + 1)
        count = sum(len(s) for s in rsa.products(x, e, m, n, Mult=6, ConstTime=0))
        assert rsa.multiplications(e, n, 0, units, direct=True) == (4 if units == 2 else count)
    assert rsa.products(x, 0, m, n, Mult=6, ConstTime=0) == []
    assert rsa.rsa_cycles(0, n, Mult=6, ConstTime=0) == 1
    for exp in (0, 1, e, (1 << n) - 1):
        for ct_mode in (1, 0):
            assert rsa.rsa_core(x, exp, m, n, Mult=6, ConstTime=ct_mode).p == pow(x, exp, m)
    assert rsa.rsa_core(0, 0, 1, n, Mult=6).p == 0  # 1 mod 1
    # docs/rsa.md: the thesis's schedule (one multiplier, variable time) for a 1024-bit
    # exponent of weight 512: popcount + bitlen - 1 products of N + 9 + 1 cycles
    e = int("10" * 512, 2)
    assert rsa.multiplications(e, 1024, 0, 1, direct=True) == 512 + 1024 - 1
    assert rsa.rsa_cycles(e, 1024, Mult=6, ConstTime=0, Units=1) == 1535 * 1034


def test_one_multiplier_cycles_count_every_product() -> None:
    """Units = 1: each product takes its multiplication time and the cycle that starts the
    next: 2N + 3 in constant time, the number of products of the step list without; a
    build with another number of multipliers is refused."""
    n, e = 16, 0b1011
    for const_time in (1, 0):
        for exp in (0, 1, e, (1 << n) - 1, 1 << (n - 1)):
            count = sum(len(s) for s in rsa.products(3, exp, 65521, n, ConstTime=const_time))
            assert rsa.multiplications(exp, n, const_time, Units=1) == count
            assert rsa.rsa_cycles(exp, n, ConstTime=const_time, Units=1) == count * (n + 3)
    assert rsa.multiplications(e, n, 1, Units=1) == 2 * n + 3
    assert rsa.rsa_core(3, e, 65521, n, Units=1).p == pow(3, e, 65521)
    # Jiang-Harris's exponentiation: 2n products on their 16-PE radix 2^16 unit, one after
    # the other (the project's derivation from section VI and Table 1); here (2n + 3)(Lm + 1)
    # with Lm = 368 at 1024 bits
    one = rsa.paper_one_unit(1024)
    assert one == {"Mult": 5, "V": 16, "W": 16, "P": 16, "Units": 1}
    assert rsa.rsa_cycles((1 << 1024) - 1, 1024, **one) == 2051 * 369
    with pytest.raises(ModelInputError, match="Units=3 is above its largest value 2"):
        get_algo("rsa_core").resolve(64, {"Units": 3})
    with pytest.raises(ModelInputError, match="Units must be 1 or 2"):
        rsa.check(64, Units=0)


def test_registry_entry() -> None:
    info = get_algo("rsa_core")
    assert info.kind == "modexp" and dict(info.params) == {"Mult": 0, "ConstTime": 1,
                                                         "V": 16, "W": 16, "P": 1, "PeLatency": 3,
                                                         "Units": 2, "Lazy": 0}
    assert reference(info, 3, 5, 7, 8) == pow(3, 5, 7)
    assert set(info.precomputed(7, 8, {})) == {"R2", "MP"}
    with pytest.raises(ModelInputError, match="Mult=9: one of mont_lut, mont_csa"):
        info.resolve(64, {"Mult": 9})
    with pytest.raises(ModelInputError, match="Mult=vhr is not one of mont_lut"):
        info.resolve(64, {"Mult": "vhr"})
    assert info.resolve(64, {"Mult": "mwrkmm", "V": 16, "W": 16, "P": 1})["Mult"] == 4
    with pytest.raises(ModelInputError, match="ConstTime"):
        info.resolve(64, {"ConstTime": 2})


@pytest.mark.parametrize("args,match", [((5, 1, 5, 8), "X must be < M"),
                                        ((1, 1, 4, 8), "odd"),
                                        ((1, 256, 7, 8), "E must fit"),
                                        ((1, 1, 257, 8), "< 2\\^n")])
def test_bad_input(args: tuple[int, ...], match: str) -> None:
    with pytest.raises(ModelInputError, match=match) as info:
        rsa.rsa_core(*args)
    assert "\n" not in str(info.value)
