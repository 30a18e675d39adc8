"""The RSA scoreboard on hand-made traffic: the exact product stream of Algorithm 4 passes;
a wrong product, a product with operands off Algorithm 4's chain (a core bug with correct
multipliers), a missing product and a register left un-wiped each fail. With one multiplier
(Units = 1) the stream is its products in the order it runs them: that order passes, the
same products with a step's two swapped fail."""

from __future__ import annotations

import dataclasses
import itertools

from montverif.models import rsa as rsa_model
from montverif.models.mont import final_sub
from montverif.models.registry import get_algo
from montverif.models.result import Result
from montverif.spec import regmap
from montverif.spec.designs import load_design
from montverif.verif.bus.item import Transfer
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.env.rsa_coverage import RsaCoverage
from montverif.verif.env.rsa_env import RsaScoreboard
from montverif.verif.env.rsa_items import MultTxn, WipeObservation

PERIOD, N, BUS_W = 10, 16, 16
X, E, M = 0x1234, 0b1011_0000_0000_0101, 0x9C41
START_EDGE = 40
_ids = itertools.count()


def _result(sb: RsaScoreboard) -> Result:
    """The model's result of the scoreboard's current operation."""
    op = sb.predictor.op
    assert op is not None and op.result is not None
    return op.result


def _make(tmp_path, **given: int) -> RsaScoreboard:
    rm = regmap.load()
    algo = get_algo("rsa_core")
    params = algo.resolve(N, given)
    pred = LoaderPredictor(rm, load_design("rsa_core"), N, BUS_W, algo.model(params), PERIOD)
    cov = RsaCoverage(f"rsasb{next(_ids)}{tmp_path.name[-6:]}", True)
    sb = RsaScoreboard(f"rsasb_{tmp_path.name}", None, predictor=pred, algo=algo,
                       coverage=cov, params=params, log_path=tmp_path / "txns.jsonl")
    edge = 0
    values = {"X": X, "E": E, "M": M} | algo.precomputed(M, N, params)
    for region, value in values.items():
        sb.on_transfer(Transfer(True, rm.addr(region), value, 0, edge * PERIOD + 5))
        edge += 2
    sb.on_transfer(Transfer(True, rm.addr("CTRL"), 1, 0, START_EDGE * PERIOD + 5))
    assert pred.op is not None and pred.op.error == "ERR_NONE"
    return sb


def _stream() -> list[MultTxn]:
    out = []
    for step in rsa_model.products(X, E, M, N):
        for p in step:
            out.append(MultTxn(p.mult, p.x, p.y, M, p.p, p.p, 0, 0, 0))
    return out


def _wipe(sb: RsaScoreboard, left: int = 0) -> None:
    cycles = _result(sb).cycles
    sb.on_wipe(WipeObservation((START_EDGE + cycles) * PERIOD + 5, {"u_core.a0_q": left}))


def test_exact_stream_passes(tmp_path) -> None:
    sb = _make(tmp_path)
    for t in _stream():
        sb.on_product(t)
    _wipe(sb)
    assert sb.errors == [] and sb.products_checked == 2 * N + 3


def test_wrong_product_fails(tmp_path) -> None:
    sb = _make(tmp_path)
    stream = _stream()
    bad = stream[7]
    stream[7] = dataclasses.replace(bad, p=(bad.p + 1) % M, s=(bad.p + 1) % M)
    for t in stream:
        sb.on_product(t)
    assert any("gmpy2 x*y*2^-16" in e for e in sb.errors), sb.errors


def test_operands_off_the_chain_fail(tmp_path) -> None:
    """A core that kept A*S for a zero bit: every product is right for its operands, but the
    operands are not Algorithm 4's."""
    sb = _make(tmp_path)
    steps = rsa_model.products(X, E | 2, M, N)  # bit 1 of E is 0: the stream of E | 2
    for step in steps:
        for p in step:
            sb.on_product(MultTxn(p.mult, p.x, p.y, M, p.p, p.p, 0, 0, 0))
    assert any("Algorithm 4 expects" in e for e in sb.errors), sb.errors


def test_missing_product_and_unwiped_register_fail(tmp_path) -> None:
    sb = _make(tmp_path)
    for t in _stream()[:-1]:
        sb.on_product(t)
    _wipe(sb, left=0x55)
    assert any("multiplier A ran" in e for e in sb.errors), sb.errors
    assert any("not wiped" in e for e in sb.errors), sb.errors


def test_final_subtraction_is_checked(tmp_path) -> None:
    sb = _make(tmp_path)
    t = _stream()[0]
    sb.on_product(dataclasses.replace(t, s=t.p + M + 1, c=0))  # S + C reduced once != P
    assert final_sub(t.p + M + 1, M) != t.p
    assert any("reduced once" in e for e in sb.errors), sb.errors


def _one_unit(stream: list[MultTxn]) -> list[MultTxn]:
    """The stream as the one multiplier of a Units = 1 core reports it."""
    return [dataclasses.replace(t, mult="U") for t in stream]


def test_one_multiplier_stream_passes(tmp_path) -> None:
    sb = _make(tmp_path, Units=1)
    assert _result(sb).cycles == (2 * N + 3) * (N + 3)  # mont_lut: one product at a time
    for t in _one_unit(_stream()):
        sb.on_product(t)
    _wipe(sb)
    assert sb.errors == [] and sb.products_checked == 2 * N + 3


def _sub(tmp_path, tag: str):
    """A folder of its own for a second scoreboard in one test (names are unique)."""
    path = tmp_path / f"{tmp_path.name}_{tag}"
    path.mkdir()
    return path


def test_one_multiplier_out_of_order_or_short_fails(tmp_path) -> None:
    """S*S before A*S in a step (a core that squares first would hand A*S the new S), a
    missing product, and a product reported as one of two multipliers the core lacks."""
    stream = _one_unit(_stream())
    swapped = stream[:2] + [stream[3], stream[2]] + stream[4:]  # LOOP step 1's two products
    sb = _make(_sub(tmp_path, "order"), Units=1)
    for t in swapped:
        sb.on_product(t)
    assert any("multiplier U product 2, A's" in e and "Algorithm 4 expects" in e
               for e in sb.errors), sb.errors
    sb = _make(_sub(tmp_path, "short"), Units=1)
    for t in stream[:-1]:
        sb.on_product(t)
    _wipe(sb)
    assert any("multiplier U ran 34 products, Algorithm 4 needs 35" in e
               for e in sb.errors), sb.errors
    sb = _make(_sub(tmp_path, "two"), Units=1)
    sb.on_product(_stream()[0])
    assert any("does not have (U)" in e for e in sb.errors), sb.errors
