"""Carry-save operands (X2, Y2; designs such as mm42): register map, predictor range rule,
vector files and the sequences' splitting of X into X + X2."""

from __future__ import annotations

import json
import random

import pytest

from montverif.models.mm42 import mm42
from montverif.models.mont import mont_lut
from montverif.spec import regmap
from montverif.spec.designs import load_design
from montverif.verif.bus.item import Transfer
from montverif.verif.context import SeqContext
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.sequences import LoaderSeq
from montverif.verif.vectors import VectorError, load_vectors

PERIOD = 10
N, BUS_W = 16, 8


def _predictor(design: str) -> LoaderPredictor:
    rm = regmap.load()
    model = mm42 if design == "mm42" else mont_lut
    return LoaderPredictor(rm, load_design(design), N, BUS_W, model, PERIOD)


def _write(p: LoaderPredictor, edge: int, region: str, value: int) -> int:
    for i, word in enumerate(regmap.split(value, N, BUS_W)):
        assert p.observe(Transfer(True, p.rm.addr(region, i), word, 0,
                                  edge * PERIOD + 5)) is None
        edge += 2
    return edge


def _err(p: LoaderPredictor, edge: int) -> str:
    return p.rm.error_name(p.rm.fields["STATUS"]["ERR"].get(p.expected_read("STATUS", 0, edge)))


def test_regmap_design_entries():
    rm = regmap.load()
    for name in ("mm42", "mm42_u2"):
        d = load_design(name)
        assert d.operands == ("X", "X2", "Y", "Y2", "M") and d.below_modulus == ()
        assert d.carry_save_operands == (("X", "X2"), ("Y", "Y2"))
        precomputed_or_rsa = ("MP", "MHAT", "R2", "E")
        assert all(d.maps(r) for r in rm.regions.values() if r.name not in precomputed_or_rsa)
    lut = load_design("mont_lut")
    assert not lut.maps(rm.regions["X2"]) and not lut.maps(rm.regions["Y2"])
    assert lut.maps(rm.regions["X"]) and lut.carry_save_operands == ()


def test_out_of_range_rule():
    d = load_design("mm42")
    m = 1001
    ok = {"X": 1000, "X2": 1001, "Y": 0, "Y2": 2 * m - 1, "M": m}
    assert not d.out_of_range(ok)
    assert not d.out_of_range(ok | {"X2": 1002})  # X + X2 = 2M: X's domain is any pair
    assert d.out_of_range(ok | {"Y": 1})  # Y + Y2 = 2M: outside Y's (below 2M)
    lut = load_design("mont_lut_u2")
    assert lut.out_of_range({"X": 0, "Y": m, "M": m})
    assert not lut.out_of_range({"X": m, "Y": m - 1, "M": m})  # X >= M: in its domain
    # mont_lut's Y may be any N-bit value (Amanor's domain), X and Y both past M
    assert not load_design("mont_lut").out_of_range({"X": m, "Y": m, "M": m})


def test_predictor_halves_range_and_mapping():
    p = _predictor("mm42")
    m = 40001
    edge = _write(p, 0, "M", m)
    edge = _write(p, edge, "Y", m)
    edge = _write(p, edge, "Y2", m)  # Y + Y2 = 2M: refused
    assert p.observe(Transfer(True, p.rm.addr("CTRL"), 1, 0, edge * PERIOD + 5)) is None
    assert _err(p, edge + 1) == "ERR_RANGE"
    edge = _write(p, edge + 2, "Y2", m - 1)  # 2M - 1: accepted
    edge = _write(p, edge, "X", 65535)
    edge = _write(p, edge, "X2", 65535)  # X + X2 > 2M: X's domain is any pair
    assert p.observe(Transfer(True, p.rm.addr("CTRL"), 1, 0, edge * PERIOD + 5)) is None
    assert _err(p, edge + 1) == "ERR_NONE" and p.op is not None
    assert p.op.operands == {"X": 65535, "X2": 65535, "Y": m, "Y2": m - 1, "M": m}
    assert p.op.result == mm42(65535, 65535, m, m - 1, m, N)
    assert p.expected_read("Y2", 0, edge + 1) == (m - 1) & 0xFF


def test_predictor_x2_unmapped_without_halves():
    p = _predictor("mont_lut")
    assert p.observe(Transfer(True, p.rm.addr("X2"), 5, 0, 5)) is None
    assert _err(p, 1) == "ERR_UNMAPPED"
    assert p.expected_read("Y2", 0, 2) == 0


def test_vectors_with_halves(tmp_path):
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"vectors": [{"x": "5", "x2": "8", "y": "3", "m": "7"}]}))
    design = load_design("mm42")
    args = (design.operands, design.below_modulus, design.carry_save_operands,
            design.range_groups)
    got = load_vectors(path, N, *args)
    assert got == [(5, 8, 3, 0, 7)]  # Y2 left out: 0
    # X + X2 >= 2M is in mm42's domain (its A is only scanned), Y + Y2 >= 2M is not
    path.write_text(json.dumps({"vectors": [{"x": "7", "x2": "7", "y": "3", "m": "7"}]}))
    assert load_vectors(path, N, *args) == [(7, 7, 3, 0, 7)]
    path.write_text(json.dumps({"vectors": [{"x": "1", "y": "7", "y2": "7", "m": "7"}]}))
    with pytest.raises(VectorError, match="Y \\+ Y2 must be below 2M"):
        load_vectors(path, N, *args)


@pytest.mark.parametrize("n", [8, 32, 97])
def test_sequence_splits_operands(n):
    rng = random.Random(n)
    seq = LoaderSeq("t", SeqContext(n=n, bus_w=32, design=load_design("mm42"), rng=rng))
    top = (1 << n) - 1
    ge_m = both = beyond = 0
    for _ in range(400):
        m = rng.getrandbits(n - 1) | (1 << (n - 1)) | 1
        x, y = rng.randrange(m), rng.randrange(m)
        values, regions = seq.with_halves({"X": x, "Y": y, "M": m}, ("X", "M"))
        assert regions == ["X", "M", "X2"]  # loading X loads X2
        for base, half, v in (("X", "X2", x), ("Y", "Y2", y)):
            total = values[base] + values[half]
            assert 0 <= values[base] <= top and 0 <= values[half] <= top
            if base == "X" and total >= 2 * m:  # X's domain: any pair (drawn from [2M, ..))
                beyond += 1
                continue
            assert total in (v, v + m) and total < 2 * m
            ge_m += total >= m
            both += values[base] > 0 and values[half] > 0
        assert not seq.refused(values)
    # the upper half of the range, both halves non-zero, X beyond the old rule a quarter
    assert ge_m > 150 and both > 450 and 60 < beyond < 140
    given = {"X": 1, "X2": 2, "Y": 3, "Y2": 4, "M": 7}
    assert seq.with_halves(given, None)[0] == given  # halves given: untouched
    plain = LoaderSeq("p", SeqContext(n=n, bus_w=32, design=load_design("mont_lut"),
                                      rng=rng))
    assert plain.with_halves({"X": 1, "Y": 2, "M": 3}, ("X",)) == ({"X": 1, "Y": 2, "M": 3},
                                                                   ["X"])


def test_corner_halves_cases():
    from montverif.verif.sequences import CornerSeq

    n = 16
    seq = CornerSeq("c", SeqContext(n=n, bus_w=8, design=load_design("mm42"),
                                    rng=random.Random(1)))
    cases = seq.halves_cases()
    assert all(set(c) == {"X", "X2", "Y", "Y2", "M"} for c in cases)
    assert all(not seq.refused(c) for c in cases)
    sums = {c["X"] + c["X2"] - 2 * c["M"] for c in cases}
    assert -1 in sums  # X + X2 = 2M - 1
    assert any(c["X"] and c["X2"] and c["X"] + c["X2"] == 2 * c["M"] - 1 for c in cases)
    assert any(c["X"] == (1 << n) - 1 for c in cases)  # one half all ones
