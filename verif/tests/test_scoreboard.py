"""The scoreboard on hand-made bus traffic and done-edge observations: a clean operation
passes; a wrong P, wrong hit counters or an unreachable (illegal) table address fail."""

from __future__ import annotations

import json
import threading
import time

import pytest

from montverif.models.mont import mont_lut
from montverif.models.registry import get_algo
from montverif.models.result import Result
from montverif.spec import regmap
from montverif.spec.designs import load_design
from montverif.verif.bus.item import Burst, Transfer
from montverif.verif.env.coverage import Coverage
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.env.scoreboard import CheckThread, DoneObservation, Scoreboard, json_line

PERIOD, N, BUS_W = 10, 16, 8
X, Y, M = 0x1234, 0x4321, 0x9C41
START_EDGE = 20


def _result(sb: Scoreboard) -> Result:
    """The model's result of the scoreboard's current operation."""
    op = sb.predictor.op
    assert op is not None and op.result is not None
    return op.result


def _make(tmp_path, illegal: tuple[int, ...] = ()) -> Scoreboard:
    rm = regmap.load()
    algo = get_algo("mont_lut")
    pred = LoaderPredictor(rm, load_design("mont_lut"), N, BUS_W, algo.func, PERIOD)
    cov = Coverage(f"sbunit{len(illegal)}{tmp_path.name[-6:]}", 16, illegal)
    return Scoreboard(f"sb_{tmp_path.name}", None, predictor=pred, algo=algo, coverage=cov,
                      log_path=tmp_path / "txns.jsonl")


def _xfer(sb: Scoreboard, edge: int, we: bool, region: str, index: int, data: int) -> None:
    addr = sb.predictor.rm.addr(region, index)
    sb.on_transfer(Transfer(we, addr, data if we else 0, 0 if we else data,
                            edge * PERIOD + 5))


def _start(sb: Scoreboard) -> None:
    edge = 0
    for region, value in (("X", X), ("Y", Y), ("M", M)):
        for i, word in enumerate(regmap.split(value, N, BUS_W)):
            _xfer(sb, edge, True, region, i, word)
            edge += 2
    _xfer(sb, START_EDGE, True, "CTRL", 0, 1)


def _done(sb: Scoreboard, hits: list[int] | None = None, late: int = 0) -> None:
    res = _result(sb)
    model_hits = [res.lut.get(a, 0) for a in range(16)]
    sb.on_done(DoneObservation((START_EDGE + res.cycles + late) * PERIOD + 5,
                               model_hits if hits is None else hits,
                               sum(res.pair) >= M))


def _read_back(sb: Scoreboard, p: int) -> None:
    res = _result(sb)
    edge = START_EDGE + res.cycles + 2
    for region, value, bits in (("P", p, N), ("S", res.pair[0], N + 1), ("C", res.pair[1], N + 1),
                                ("CYCLES", res.cycles, 32)):
        for i, word in enumerate(regmap.split(value, bits, BUS_W)):
            _xfer(sb, edge, False, region, i, word)
            edge += 2


def test_clean_operation_passes(tmp_path):
    sb = _make(tmp_path)
    _start(sb)
    _done(sb)
    _read_back(sb, _result(sb).p)
    assert sb.errors == [] and sb.checked == 1
    sb.check_phase()


def test_wrong_p_fails(tmp_path):
    sb = _make(tmp_path)
    _start(sb)
    _done(sb)
    wrong = _result(sb).p ^ 1
    _read_back(sb, wrong)
    assert any("gmpy2 expects" in e for e in sb.errors)
    with pytest.raises(AssertionError, match="mismatch"):
        sb.check_phase()
    # the log shows what was read back, not the model's value
    assert json.loads((tmp_path / "txns.jsonl").read_text())["p"] == hex(wrong)


def _read_back_bursts(sb: Scoreboard, values: dict[str, int]) -> None:
    """Fast mode: each result register read back as one burst (as the engine publishes)."""
    rm = sb.predictor.rm
    edge = START_EDGE + _result(sb).cycles + 2
    bursts = []
    for region, bits in (("P", N), ("S", N + 1), ("C", N + 1), ("CYCLES", 32)):
        words = regmap.split(values[region], bits, BUS_W)
        ticks = [edge + 2 * k for k in range(len(words))]
        bursts.append(Burst(False, rm.addr(region), [], words, ticks, 5, PERIOD))
        edge += 2 * len(words)
    sb.on_bus(bursts)


def test_a_wrong_word_in_a_result_burst_is_reported_and_logged(tmp_path):
    """A burst checked as a slice: a wrong S word is the predictor's mismatch, the
    scoreboard's S/C mismatch, and the log shows the S read back."""
    sb = _make(tmp_path)
    _start(sb)
    _done(sb)
    res = _result(sb)
    values = {"P": res.p, "S": res.pair[0] ^ (1 << BUS_W), "C": res.pair[1], "CYCLES": res.cycles}
    _read_back_bursts(sb, values)
    assert any("read S[1]" in e for e in sb.errors)
    assert any("S/C = " in e for e in sb.errors)
    assert sb.checked == 1
    with pytest.raises(AssertionError, match="mismatch"):
        sb.check_phase()
    assert json.loads((tmp_path / "txns.jsonl").read_text())["s"] == hex(values["S"])
    (tmp_path / "clean").mkdir()
    clean = _make(tmp_path / "clean")
    _start(clean)
    _done(clean)
    _read_back_bursts(clean, {"P": res.p, "S": res.pair[0], "C": res.pair[1], "CYCLES": res.cycles})
    assert clean.errors == [] and clean.checked == 1


def test_wrong_hits_and_late_done_fail(tmp_path):
    sb = _make(tmp_path)
    _start(sb)
    res = _result(sb)
    hits = [res.lut.get(a, 0) for a in range(16)]
    hits[0] += 1
    _done(sb, hits, late=1)
    assert any("table-address hits" in e for e in sb.errors)
    assert any("cycles after START" in e for e in sb.errors)


def test_illegal_address_fails(tmp_path):
    sb = _make(tmp_path, illegal=(5,))
    _start(sb)
    res = _result(sb)
    hits = [res.lut.get(a, 0) for a in range(16)]
    hits[5] += 1
    _done(sb, hits)
    assert any("unreachable table/selection address(es) [5]" in e for e in sb.errors)


def test_deferred_done_waits_for_the_bus_traffic_before_it(tmp_path):
    """Fast mode: a script's transfers reach the scoreboard after its done edge. The done
    observation is checked once the predictor has seen the START before it; checked at once
    (pin mode), it would find no operation running."""
    res = mont_lut(X, Y, M, N)
    obs = DoneObservation((START_EDGE + res.cycles) * PERIOD + 5,
                          [res.lut.get(a, 0) for a in range(16)], sum(res.pair) >= M)
    sb = _make(tmp_path)
    sb.defer_done = True
    sb.on_done(obs)  # before the script's transfers are published
    _start(sb)
    assert sb.errors == [] and not sb.observed
    _read_back(sb, res.p)
    assert sb.errors == [] and sb.checked == 1
    sb.check_phase()
    (tmp_path / "eager").mkdir()
    eager = _make(tmp_path / "eager")
    eager.on_done(obs)
    assert any("no operation running" in e for e in eager.errors)


@pytest.mark.parametrize("record", [
    {"op": 3, "x": hex(2**1024 - 5), "start_ns": 10, "p": "0x0", "cycles": 1025},
    {"op": 0, "x": "0x1", "error": "ERR_EVEN_MODULUS", "field": 1},
    {"op": 1, "note": 'quote " and \\ back', "x": '0x"', "flag": True, "none": None},
])
def test_log_lines_are_json(record):
    """txns.jsonl lines: the same text as json.dumps, the hex values written as they are."""
    assert json_line(record) == json.dumps(record)
    assert json.loads(json_line(record)) == record


def test_the_log_shows_operands_and_results_in_hex(tmp_path):
    sb = _make(tmp_path)
    _start(sb)
    _done(sb)
    res = _result(sb)
    _read_back(sb, res.p)
    sb.check_phase()
    line = (tmp_path / "txns.jsonl").read_text()
    rec = json.loads(line)
    assert (rec["x"], rec["y"], rec["m"]) == (hex(X), hex(Y), hex(M))
    assert (rec["p"], rec["s"], rec["c"], rec["cycles"]) == (hex(res.p), hex(res.pair[0]),
                                                            hex(res.pair[1]), res.cycles)
    # the same text as json.dumps of the record, keys in this order
    assert line == json.dumps({
        "op": 0, "x": hex(X), "y": hex(Y), "m": hex(M), "start_ns": START_EDGE * PERIOD,
        "p": hex(res.p), "cycles": res.cycles, "s": hex(res.pair[0]), "c": hex(res.pair[1]),
        "end_ns": (START_EDGE + res.cycles) * PERIOD}) + "\n"


def test_a_refused_operation_is_logged_with_its_error(tmp_path):
    sb = _make(tmp_path)
    for region, value in (("X", X), ("Y", Y), ("M", M - 1)):  # an even modulus
        for i, word in enumerate(regmap.split(value, N, BUS_W)):
            _xfer(sb, 0, True, region, i, word)
    _xfer(sb, START_EDGE, True, "CTRL", 0, 1)
    sb.check_phase()
    assert (tmp_path / "txns.jsonl").read_text() == json.dumps({
        "op": 0, "x": hex(X), "y": hex(Y), "m": hex(M - 1), "start_ns": START_EDGE * PERIOD,
        "error": "ERR_EVEN_MODULUS"}) + "\n"


def test_a_burst_across_registers_is_checked_word_by_word(tmp_path):
    """Fast mode: one read burst from STATUS's last (unmapped) word into CYCLES completes
    the operation: each word counts for the register it is in."""
    sb = _make(tmp_path)
    _start(sb)
    _done(sb)
    res = _result(sb)
    edge = START_EDGE + res.cycles + 2
    for region, value in (("P", res.p), ("S", res.pair[0]), ("C", res.pair[1])):
        for i, word in enumerate(regmap.split(value, N + 1 if region != "P" else N, BUS_W)):
            _xfer(sb, edge, False, region, i, word)
            edge += 2
    rm = sb.predictor.rm
    last = (1 << rm.index_width) - 1
    cycles = regmap.split(res.cycles, 32, BUS_W)
    ticks = [edge + 2 * k for k in range(1 + len(cycles))]
    sb.on_bus([Burst(False, rm.addr("STATUS", last), [], [0, *cycles], ticks, 5, PERIOD)])
    assert sb.errors == [] and sb.checked == 1
    sb.check_phase()


def _op_bursts(sb: Scoreboard, base: int) -> tuple[list[Burst], DoneObservation]:
    """One whole operation as the engine publishes it from `base` (an edge): operand
    writes, START, the results read back; and its done observation."""
    rm, res = sb.predictor.rm, mont_lut(X, Y, M, N)
    bursts, edge = [], base

    def burst(we: bool, region: str, words: list[int]) -> None:
        nonlocal edge
        ticks = [edge + 2 * k for k in range(len(words))]
        bursts.append(Burst(we, rm.addr(region), words if we else [], [] if we else words,
                            ticks, 5, PERIOD))
        edge += 2 * len(words)

    for region, value in (("X", X), ("Y", Y), ("M", M)):
        burst(True, region, regmap.split(value, N, BUS_W))
    start = edge
    burst(True, "CTRL", [1])
    edge = start + res.cycles + 2
    s, c = res.pair
    for region, value, bits in (("P", res.p, N), ("S", s, N + 1), ("C", c, N + 1),
                                ("CYCLES", res.cycles, 32)):
        burst(False, region, regmap.split(value, bits, BUS_W))
    return bursts, DoneObservation((start + res.cycles) * PERIOD + 5,
                                   [res.lut.get(a, 0) for a in range(16)], sum(res.pair) >= M)


def test_check_thread_runs_handlers_in_order_and_drain_waits():
    """The checker thread runs what was queued in order; drain returns once all of it ran."""
    seen: list[int] = []

    def slow(item: object) -> None:
        time.sleep(0.05)  # still running when drain is called
        seen.append(item)  # type: ignore[arg-type]

    checker = CheckThread()
    for k in range(5):
        checker.put(slow, k)
    checker.drain()
    assert seen == [0, 1, 2, 3, 4]
    checker.drain()  # a second drain (the thread has ended) returns at once


def test_check_thread_raises_a_handlers_error_in_the_callers_thread():
    """A handler's exception stops the checking and is raised again at the next put (or at
    drain): a model that fails on the worker still fails the test with its own message."""
    ran: list[object] = []

    def handler(item: object) -> None:
        if item == "bad":
            raise AssertionError("mont_lut: shift would drop a one bit")
        ran.append(item)

    checker = CheckThread()
    checker.put(handler, "bad")
    checker.put(handler, "after")  # queued before the worker may have run "bad": skipped
    with pytest.raises(AssertionError, match="shift would drop"):
        checker.drain()
    assert ran == []
    with pytest.raises(AssertionError, match="shift would drop"):
        checker.put(handler, "later")


def test_mismatches_found_on_the_check_thread_are_logged_by_the_main_thread(tmp_path,
                                                                            monkeypatch):
    """On the checker thread a mismatch is kept (never logged there: the logger reads the
    simulator's time) and logged by the next publication or by check_phase, which fails."""
    sb = _make(tmp_path)
    sb.checker = CheckThread()
    logged: list[tuple[str, str]] = []
    monkeypatch.setattr(sb.logger, "error", lambda message: logged.append(
        (threading.current_thread().name, message)))
    sb.build_phase()
    sb.bus_sub.write(Transfer(True, sb.predictor.rm.addr("CTRL"), 1, 0, 5))  # START, M = 0
    with pytest.raises(AssertionError, match="mismatch"):
        sb.done_sub.write(DoneObservation(10 * PERIOD, [], None))
        sb.check_phase()
    assert logged and all(name == threading.main_thread().name for name, _ in logged)
    assert all(message.startswith("MISMATCH") for _, message in logged)
