"""Whole operations as one request (verif/bus/ops.py): a batch of canonical operations is an
OpScript whose items are the sequence's items one by one; the engine's driver packs it as it
packs those items (the same entries, idle cycles and random draws); the scoreboard checks
what the engine logged of it (ScriptLog) with the same verdicts, log lines, coverage and
messages as the script's done captures and bursts, and falls back to them from the first
operation that did not go as planned."""

from __future__ import annotations

import random
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from montverif.models.registry import get_algo
from montverif.spec import regmap
from montverif.spec.designs import load_design
from montverif.verif.bus.engine import EngineBusDriver, idle_draws
from montverif.verif.bus.engine_layout import OPS_PER_SCRIPT, CaptureLayout
from montverif.verif.bus.item import BusItem, BusRequest, Kind
from montverif.verif.bus.ops import OpScript, PlannedOp, ScriptLog
from montverif.verif.context import SeqContext
from montverif.verif.env import scoreboard
from montverif.verif.env.coverage import Coverage
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.env.scoreboard import DoneObservation, Scoreboard
from montverif.verif.sequences import RandomSeq, forget_simulation_state

PERIOD = 10
ADDR_W = regmap.load().addr_width
# (design, n, bus_w): plain operands, carry-save halves, host-precomputed registers, a field bit
DESIGNS = [("mont_lut", 32, 8), ("mm42", 16, 8), ("mont_qp", 64, 32), ("mont_dual", 97, 32)]
OPS = 2 * OPS_PER_SCRIPT + 1  # a random sequence's operations: two full scripts and one more


def _run(coro: Coroutine[Any, Any, None]) -> None:
    """Run a coroutine that never waits on a simulator (the sends below return at once), as
    the first sequence of a simulation (no irreducible polynomials drawn before it)."""
    forget_simulation_state()
    try:
        coro.send(None)
    except StopIteration:
        return
    raise AssertionError("the coroutine waited")


def _seq(design: str, n: int, bus_w: int, seed: int, batching: bool) -> tuple[RandomSeq,
                                                                             list[BusRequest]]:
    algo = get_algo(load_design(design).model)
    sent: list[BusRequest] = []
    seq = RandomSeq("r", SeqContext(
        n=n, bus_w=bus_w, design=load_design(design), rng=random.Random(seed),
        precompute=lambda m: algo.precomputed(m, n, algo.defaults()),
        has_field=algo.has_field, batching=batching, domain_rng=random.Random(seed + 1)),
        count=OPS)

    async def send(request: BusRequest) -> None:
        sent.append(request)

    seq._send = send  # type: ignore[method-assign]
    return seq, sent


def _shape(items: list[BusItem]) -> list[tuple[object, ...]]:
    return [(i.kind, i.addr, i.count, tuple(i.data) if i.kind is Kind.WRITE else (),
             i.timeout_cycles, i.tight) for i in items]


@pytest.mark.parametrize("design,n,bus_w", DESIGNS)
def test_a_batch_of_whole_operations_is_an_op_script_of_the_same_items(design, n, bus_w):
    batched, sent = _seq(design, n, bus_w, 7, batching=True)
    alone, sent_alone = _seq(design, n, bus_w, 7, batching=False)
    _run(batched.body())
    _run(alone.body())
    scripts = [r for r in sent if isinstance(r, OpScript)]
    per = batched.ops_per_script  # OPS operations in scripts of this many, the last shorter
    assert len(scripts) == len(sent) == -(-OPS // per) >= 3
    assert [len(s.ops) for s in scripts] == [min(per, OPS - k) for k in range(0, OPS, per)]
    items = [i for r in sent for i in r.items]
    assert _shape(items) == _shape([i for r in sent_alone for i in r.items])
    assert len(sent_alone) == len(items)  # one item a request without batching
    assert batched.rng.random() == alone.rng.random()  # the same draws were made


def test_a_batch_with_a_refused_operation_sends_its_items():
    """An operation the loader refuses (an even modulus) is no whole operation: the batch
    holding it sends every item in order, the whole operation's expanded in its place."""
    seq, sent = _seq("mont_lut", 32, 8, 3, batching=True)

    async def body() -> None:
        async with seq.batch():
            await seq.multiply(5, 7, 0xF1, field=0)
            await seq.multiply(5, 7, 0xF0, field=0)  # even: refused, STATUS read instead

    _run(body())
    assert len(sent) == 1 and not isinstance(sent[0], OpScript)
    kinds = [i.kind for i in sent[0].items]
    assert kinds.count(Kind.WAIT_DONE) == 1 and kinds[-1] is Kind.READ
    rm = regmap.load()
    assert sent[0].items[-1].addr == rm.addr("STATUS")


@pytest.mark.parametrize("most", [1, 2, 3, 7, 8, 15, 20])
def test_idle_draws_are_randint_draws(most):
    """The driver's idle cycles: the values and the random stream of randint's draws."""
    ours, theirs = random.Random(most), random.Random(most)
    assert idle_draws(ours, most, 500) == [theirs.randint(0, most) for _ in range(500)]
    assert ours.random() == theirs.random()


def _driver(bus_w: int, idle_max: int) -> EngineBusDriver:
    drv = EngineBusDriver.__new__(EngineBusDriver)  # only what packing uses
    drv.idle_max, drv.bus_w, drv.addr_w = idle_max, bus_w, ADDR_W
    drv.rng = random.Random(bus_w)
    drv._plain, drv._templates = {}, {}
    return drv


@pytest.mark.parametrize("idle_max", [0, 3, 20])
@pytest.mark.parametrize("design,n,bus_w", DESIGNS)
def test_the_driver_packs_whole_operations_as_their_items(design, n, bus_w, idle_max):
    seq, sent = _seq(design, n, bus_w, 11, batching=True)
    _run(seq.body())
    script = sent[0]
    assert isinstance(script, OpScript)
    by_items, by_template = _driver(bus_w, idle_max), _driver(bus_w, idle_max)
    words = [w for item in script.items for w in by_items._words(item)]
    assert by_template.pack_ops(script) == words
    assert by_template.rng.random() == by_items.rng.random()


# --- the scoreboard ----------------------------------------------------------------------------
def _board(tmp_path: Path, design: str, n: int, bus_w: int, tag: str) -> Scoreboard:
    d, rm = load_design(design), regmap.load()
    algo = get_algo(d.model)
    pred = LoaderPredictor(rm, d, n, bus_w, algo.model({}, domain=False), PERIOD,
                           has_field=algo.has_field)
    obs = d.observe
    cov = Coverage(f"ops{tag}{tmp_path.name[-8:]}", obs.lut_bins, obs.illegal_bins,
                   d.carry_save_operands, has_field=algo.has_field, has_sub=bool(obs.sub_taken))
    board = Scoreboard(f"sb{tag}_{tmp_path.name}", None, predictor=pred, algo=algo,
                       coverage=cov, log_path=tmp_path / f"{tag}.jsonl", params={},
                       capture=CaptureLayout.of(obs))
    board.defer_done = True  # fast mode
    return board


def _script_log(design: str, n: int, bus_w: int, seed: int, ops: int = 4,
                first_cycle: int = 0) -> ScriptLog:
    """What the engine logs of `ops` whole operations of a correct design: each transfer a
    cycle after the one before, done at the model's edge, every word read as the model's."""
    seq, sent = _seq(design, n, bus_w, seed, batching=True)
    seq.count = ops
    _run(seq.body())
    script = sent[0]
    assert isinstance(script, OpScript)
    d = load_design(design)
    algo = get_algo(d.model)
    pred = LoaderPredictor(regmap.load(), d, n, bus_w, algo.model({}), PERIOD,
                           has_field=algo.has_field)
    cap = CaptureLayout.of(d.observe)
    cycles: list[int] = []
    rdata: list[int] = []
    captures: list[tuple[int, int]] = []
    c = first_cycle
    for planned in script.ops:
        found = pred.plan_start(planned.values, planned.ctrl, c + 1)
        assert found is not None
        _, _, res = found
        for e in script.layout.entries:
            if e.kind is Kind.WRITE:
                for _ in range(e.count):
                    c += 1
                    cycles.append(c)
                    rdata.append(0)
            elif e.kind is Kind.WAIT_DONE:
                end_edge = c - 1 + res.cycles  # START was acked at edge c - 1
                packed = 0
                if cap.hits_at is not None:
                    packed |= sum(h << (a * cap.width) for a, h in res.lut.items()) << cap.hits_at
                if cap.sub_at is not None and res.before_sub is not None:
                    packed |= int(res.before_sub >= planned.values[d.modulus]) << cap.sub_at
                captures.append((end_edge * PERIOD, packed))
                c = end_edge + 2
                cycles.append(c)
                rdata.append(0)
            else:
                words = ([pred.status_done()] if e.region == "STATUS"
                         else pred.expected_words(res, e.region))
                for w in words:
                    c += 1
                    cycles.append(c)
                    rdata.append(w)
    return ScriptLog(script, cycles, rdata, 0, PERIOD, captures)


def _replay(board: Scoreboard, log: ScriptLog) -> None:
    """The script as the driver publishes any script: its captures, then its bursts."""
    fresh = OpScript(log.script.layout, [PlannedOp(dict(o.values), o.ctrl, o.timeout_cycles)
                                         for o in log.script.ops])
    copy = ScriptLog(fresh, log.cycles, log.rdata, log.start_ns, log.period_ns, log.captures)
    assert board.capture is not None
    for time_ns, packed in log.captures:
        board.on_done(DoneObservation(time_ns, *board.capture.decode(packed)))
    board.on_bus(copy.bursts())


def _outcome(board: Scoreboard, tmp_path: Path, tag: str) -> tuple[object, ...]:
    board._log.flush()
    errors = list(board.errors)
    try:
        board.check_phase()
        verdict = "passed"
    except AssertionError as exc:
        verdict = str(exc)
    coverage = {name.split(".", 1)[1]: bins for name, bins in board.coverage.summary().items()}
    return ((tmp_path / f"{tag}.jsonl").read_text(), errors, verdict, board.checked, coverage)


def _compare(tmp_path: Path, design: str, n: int, bus_w: int, logs: list[ScriptLog]
             ) -> tuple[Scoreboard, tuple[object, ...], tuple[object, ...]]:
    whole, bursts = (_board(tmp_path, design, n, bus_w, t) for t in ("whole", "bursts"))
    for log in logs:
        whole.on_bus(log)
        _replay(bursts, log)
    assert bursts.whole == 0
    return whole, _outcome(whole, tmp_path, "whole"), _outcome(bursts, tmp_path, "bursts")


@pytest.mark.parametrize("design,n,bus_w", DESIGNS)
def test_whole_operations_are_checked_as_their_bursts(tmp_path, design, n, bus_w):
    logs = [_script_log(design, n, bus_w, 5)]
    logs.append(_script_log(design, n, bus_w, 6, first_cycle=logs[0].cycles[-1] + 3))
    whole, a, b = _compare(tmp_path, design, n, bus_w, logs)
    assert a == b
    assert whole.whole == 8 and whole.checked == 8 and a[2] == "passed"
    assert len(str(a[0]).splitlines()) == 8


def _corrupt_word(log: ScriptLog, op: int, region: str) -> None:
    layout = log.script.layout
    k = op * layout.length
    for e in layout.entries:
        if e.region == region and e.kind is Kind.READ:
            log.rdata[k] ^= 1
            return
        k += e.count
    raise AssertionError(region)


def _move_done(log: ScriptLog, op: int, cycles: int) -> None:
    time_ns, packed = log.captures[op]
    log.captures[op] = (time_ns + cycles * PERIOD, packed)


def _lie_hits(log: ScriptLog, op: int) -> None:
    time_ns, packed = log.captures[op]
    log.captures[op] = (time_ns, packed ^ 1)  # the first hit counter (or the one flag)


@pytest.mark.parametrize("fault,checked_whole", [
    (lambda log: _corrupt_word(log, 2, "P"), 2),  # a wrong word: replayed from op 2
    (lambda log: _corrupt_word(log, 1, "CYCLES"), 1),
    (lambda log: _corrupt_word(log, 3, "STATUS"), 3),
    (lambda log: _move_done(log, 1, -1), 1),  # done a cycle early
    (lambda log: _move_done(log, 0, 1), 0),  # done a cycle late
    (lambda log: log.captures.pop(2), 2),  # no rise of done
    (lambda log: _lie_hits(log, 1), 4),  # a lying capture: the same check, whole
])
def test_a_broken_operation_gives_the_messages_of_its_bursts(tmp_path, fault, checked_whole):
    design, n, bus_w = "mont_lut", 32, 8
    log = _script_log(design, n, bus_w, 9)
    fault(log)
    whole, a, b = _compare(tmp_path, design, n, bus_w, [log])
    assert a == b
    assert a[2] != "passed" and a[1], "the fault was not caught"
    assert whole.whole == checked_whole


@pytest.mark.parametrize("region", ["P", "S", "C", "CYCLES"])
def test_reads_compared_as_words_or_as_bytes_catch_the_same_word(tmp_path, monkeypatch,
                                                                   region):
    """A wrong word of any result register ends the whole-operation checks at its operation,
    whether the reads compare as one slice of bytes (ScriptLog.rdata_bytes) or as words (a
    bus whose words are no machine word's): the messages of its bursts either way."""
    design, n, bus_w = "mont_csa", 64, 32
    got = []
    for as_bytes in (True, False):
        if not as_bytes:
            monkeypatch.setattr(ScriptLog, "rdata_bytes", lambda self: None)
        log = _script_log(design, n, bus_w, 5)
        _corrupt_word(log, 1, region)
        folder = tmp_path / f"{region}{'b' if as_bytes else 'w'}"
        folder.mkdir()
        whole, a, b = _compare(folder, design, n, bus_w, [log])
        assert a == b and a[2] != "passed" and a[1], "the wrong word was not caught"
        assert whole.whole == 1
        got.append(a)
    assert got[0] == got[1]


def test_a_field_design_fails_in_the_field_it_ran_in(tmp_path):
    """mont_dual (a field bit per operation): a corrupted P in GF(2^n) is reported with its
    field, as its bursts report it."""
    design, n, bus_w = "mont_dual", 97, 32
    log = _script_log(design, n, bus_w, 4)
    _corrupt_word(log, 3, "P")
    _, a, b = _compare(tmp_path, design, n, bus_w, [log])
    assert a == b and a[1]


def test_a_model_that_disagrees_with_gmpy2_fails_as_its_bursts(tmp_path, monkeypatch):
    """Every word read back as the model's, but the model's P is not gmpy2's (here: the
    reference says no to every P): the whole-operation check gives the messages and verdict
    of the bursts, and still checks each operation whole."""
    monkeypatch.setattr(scoreboard, "matches_reference", lambda *a, **k: False)
    monkeypatch.setattr(scoreboard, "reference_check", lambda *a, **k: lambda p, args: False)
    design, n, bus_w = "mont_csa", 32, 8
    whole, a, b = _compare(tmp_path, design, n, bus_w, [_script_log(design, n, bus_w, 3)])
    assert a == b
    errors = a[1]
    assert isinstance(errors, list) and a[2] != "passed"
    assert len(errors) == 8 and "disagrees with gmpy2" in errors[1]
    assert whole.whole == 4
