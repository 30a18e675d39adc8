"""Coverage steering (verif/steer.py, MV_BIAS) on the sequence generator, no simulator:
the default stimulus is unchanged and a bias really moves the operand distribution
(measured with the coverage classes and the bit-accurate models)."""

from __future__ import annotations

import random

import pytest

from montverif.models.registry import get_algo
from montverif.spec.designs import load_design
from montverif.verif.context import SeqContext
from montverif.verif.operands import modulus_class, operand_class
from montverif.verif.sequences import LoaderSeq
from montverif.verif.steer import Bias, BiasError, above_modulus

N = 32
OPS = 400


def seq(dut: str, seed: int, bias: Bias | None) -> LoaderSeq:
    design = load_design(dut)
    func = get_algo(design.model).model({})
    return LoaderSeq("s", SeqContext(n=N, bus_w=32, design=design, rng=random.Random(seed),
                                     bias=bias, model=lambda x, y, m: func(x, y, m, N)))


def sub_taken(dut: str, x: int, y: int, m: int) -> bool:
    res = get_algo(load_design(dut).model).model({})(x, y, m, N)
    return sum(res.pair) >= m


def test_without_bias_the_stimulus_is_unchanged() -> None:
    plain, hooked = seq("mont_lut", 3, None), seq("mont_lut", 3, None)
    assert [hooked.steered_operands() for _ in range(50)] == \
        [plain.random_operands() for _ in range(50)]


def test_bias_raises_the_share_of_a_rare_cross_bin() -> None:
    """(final subtraction taken, short modulus): rare under plain random stimulus."""
    bias = Bias.parse('{"p": 1.0, "targets": [{"m": "short", "sub": true}]}')
    counts = {}
    for name, b in (("random", None), ("steered", bias)):
        s = seq("mont_lut", 11, b)
        ops = [s.steered_operands() for _ in range(OPS)]
        counts[name] = sum(modulus_class(m, N) == "short" and sub_taken("mont_lut", x, y, m)
                           for x, y, m in ops)
    assert counts["steered"] >= 0.5 * OPS
    assert counts["steered"] > 10 * max(1, counts["random"])


def test_bias_hits_a_rare_table_address() -> None:
    """inter_csa address 4 (the smoke regression hit it once in 58 operations)."""
    algo = get_algo("inter_csa")
    bias = Bias.parse('{"p": 1.0, "tries": 64, "targets": [{"lut": [4]}]}')
    hit = {}
    for name, b in (("random", None), ("steered", bias)):
        s = seq("inter_csa", 5, b)
        ops = [s.steered_operands() for _ in range(100)]
        hit[name] = sum(algo.func(x, y, m, N).lut.get(4, 0) > 0 for x, y, m in ops)
    assert hit["steered"] > 2 * hit["random"] + 10


def test_operand_class_targets() -> None:
    for cls in ("zero", "one", "m_minus_1", "short", "wide"):
        s = seq("mont_lut", 2, Bias.parse(f'{{"p": 1.0, "targets": [{{"x": "{cls}"}}]}}'))
        ops = [s.steered_operands() for _ in range(100)]
        share = sum(operand_class(x, y, m, N) == cls for x, y, m in ops) / len(ops)
        assert share >= 0.8, (cls, share)  # "wide" needs a modulus wider than n/2 bits
    s = seq("mont_lut", 2, Bias.parse('{"p": 1.0, "targets": [{"m": "all_ones"}]}'))
    assert {modulus_class(s.steered_operands()[2], N) for _ in range(20)} == {"all_ones"}


def test_p_sets_the_share_of_steered_operations() -> None:
    s = seq("mont_lut", 4, Bias.parse('{"p": 0.25, "targets": [{"x": "zero"}]}'))
    zeros = sum(s.steered_operands()[0] == 0 for _ in range(2000))
    assert 0.2 * 2000 < zeros < 0.3 * 2000


@pytest.mark.parametrize("text, msg", [
    ("{", "not JSON"), ('{"targets": [{"q": 1}]}', "a target takes"),
    ('{"targets": [{"x": "huge"}]}', "unknown x class"),
    ('{"p": 2, "targets": []}', "p must be 0..1")])
def test_bad_bias_is_a_one_line_error(text: str, msg: str) -> None:
    with pytest.raises(BiasError, match=msg) as exc:
        Bias.parse(text)
    assert "\n" not in str(exc.value)


def test_bias_round_trips_through_json() -> None:
    text = '{"p": 0.5, "tries": 8, "targets": [{"m": "short", "sub": true}, {"lut": [1, 2]}]}'
    bias = Bias.parse(text)
    assert Bias.parse(bias.to_json()) == bias


def test_made_operands_take_the_final_subtraction() -> None:
    """above_modulus: X, Y < M whose Montgomery sum (XY + QM) / R, Q = -XY/M mod R, is M + k
    with k in 1..3, for moduli of every class and R beyond 2^n."""
    rng = random.Random(4)
    for n, r_bits in ((8, 8), (32, 34), (163, 176), (1024, 1024)):
        for m in ((1 << (n - 1)) + 1, (1 << n) - 1, rng.getrandbits(n) | (1 << (n - 1)) | 1):
            made = above_modulus(m, rng, r_bits)
            assert made is not None
            x, y = made
            big = 1 << r_bits
            q = (-x * y * pow(m, -1, big)) % big
            total, rest = divmod(x * y + q * m, big)
            assert rest == 0 and 0 <= x < m and 0 < y < m
            assert m + 1 <= total <= m + 3


def test_a_corner_random_operands_almost_never_reach() -> None:
    """mont_dual at N = 163 (R = 2^176): the final subtraction with M = 2^(n-1) + 1 comes
    about once in 2^13 random operations; steered with made candidates, at once."""
    n, dut = 163, "mont_dual"
    design = load_design(dut)
    func = get_algo(design.model).model({})
    bias = '{"p": 1.0, "tries": 4, "targets": [{"m": "pow2_plus_1", "sub": true}]}'
    hits = {}
    for name, r_bits in (("drawn only", None), ("made", design.r_bits_at(n, {}))):
        b, rng = Bias.parse(bias), random.Random(8)
        ops = [b.operands(rng, n, lambda x, y, m: func(x, y, m, n), lambda: 0, r_bits)
               for _ in range(40)]
        hits[name] = sum((func(x, y, m, n).before_sub or 0) >= m for x, y, m in ops)
    assert hits["made"] == 40 and hits["drawn only"] <= 2
