"""Batching in the sequences (LoaderSeq.batch): an operation goes out as one BusRequest,
while sequences that decide on a read's value (status polling, the error checks) still send
their reads one by one. The sequences run here against a loader model in pure Python (the
predictor answers the reads), so the test needs no simulator."""

from __future__ import annotations

import asyncio
import random

import pytest

from montverif.models.mont import mont_lut
from montverif.spec import regmap
from montverif.spec.designs import known_designs, load_design
from montverif.verif.bus.item import BusItem, BusRequest, Kind, Transfer
from montverif.verif.context import SeqContext
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.sequences import ErrorSeq, LoaderSeq, StatusWhileBusySeq

PERIOD, N, BUS_W = 10, 16, 8


class ModelBus:
    """Performs items on the loader model: a transfer per edge, a wait for done jumps to the
    end of the running operation; reads return what the loader would return."""

    def __init__(self) -> None:
        self.rm = regmap.load()
        self.pred = LoaderPredictor(self.rm, load_design("mont_lut"), N, BUS_W, mont_lut,
                                    PERIOD)
        self.edge = 0
        self.sent: list[BusRequest] = []  # what the sequence handed to the sequencer

    def perform(self, request: BusRequest) -> None:
        self.sent.append(request)
        for item in request.items:
            self._one(item)

    def _one(self, item: BusItem) -> None:
        if item.kind is Kind.WAIT_DONE:
            op = self.pred.op
            if op is not None and op.result is not None:
                self.edge = max(self.edge, op.end_edge + 1)
            return
        item.rdata = []
        for k in range(item.count):
            self.edge += 1
            addr, time_ns = item.addr + k, self.edge * PERIOD + PERIOD // 2
            if item.kind is Kind.WRITE:
                assert self.pred.observe(Transfer(True, addr, item.data[k], 0, time_ns)) is None
                continue
            region, index = self.rm.decode(addr)
            word = self.pred.expected_read(None if region is None else region.name, index,
                                           self.edge)
            assert self.pred.observe(Transfer(False, addr, 0, word, time_ns)) is None
            item.rdata.append(word)


def _run(cls: type[LoaderSeq], *args: object) -> ModelBus:
    bus = ModelBus()

    class Seq(cls):  # type: ignore[valid-type, misc]
        async def _send(self, request: BusRequest) -> None:
            bus.perform(request)

    seq = Seq("seq", SeqContext(n=N, bus_w=BUS_W, design=load_design("mont_lut"),
                                rng=random.Random(5)), *args)
    asyncio.run(seq.body())
    return bus


def _kinds(request: BusRequest) -> list[tuple[str, str]]:
    rm = regmap.load()
    return [(i.kind.value, "" if i.kind is Kind.WAIT_DONE else _region(rm, i.addr))
            for i in request.items]


def _region(rm: regmap.RegMap, addr: int) -> str:
    region = rm.decode(addr)[0]
    assert region is not None, f"0x{addr:x} is unmapped"
    return region.name


class OneOp(LoaderSeq):
    async def body(self) -> None:
        m = self.random_modulus()
        await self.multiply(3 % m, 5 % m, m)
        await self.run_operation({"X": 1, "Y": 1, "M": 4})  # even modulus: refused


def test_an_operation_is_one_script_item():
    bus = _run(OneOp)
    assert len(bus.sent) == 2
    assert _kinds(bus.sent[0]) == [
        ("write", "X"), ("write", "Y"), ("write", "M"), ("write", "CTRL"), ("wait_done", ""),
        ("read", "P"), ("read", "S"), ("read", "C"), ("read", "CYCLES"), ("read", "STATUS")]
    assert _kinds(bus.sent[1]) == [("write", "X"), ("write", "Y"), ("write", "M"),
                                   ("write", "CTRL"), ("read", "STATUS")]
    # every item was performed and filled as if sent alone
    p = bus.sent[0].items[5]
    result = bus.pred.ops[0].result
    assert result is not None and regmap.join(p.rdata, BUS_W) == result.p


def test_status_polling_is_not_batched():
    """StatusWhileBusySeq decides on every STATUS it reads: each read is its own item (a
    batched read has no value yet: read() refuses inside a batch)."""
    bus = _run(StatusWhileBusySeq, 2)
    assert all(len(r.items) == 1 for r in bus.sent)
    status = regmap.load().addr("STATUS")
    polls = [r.items[0] for r in bus.sent
             if r.items[0].kind is Kind.READ and r.items[0].addr == status]
    assert len(polls) > 4  # it polled until DONE, operation by operation
    assert len(bus.pred.ops) == 2


def test_error_sequence_uses_its_reads():
    """ErrorSeq checks STATUS after every error and X after a write while busy: run against
    the loader model it passes only if those reads are sent (and answered) one by one."""
    bus = _run(ErrorSeq)
    assert [r for r in bus.sent if len(r.items) > 1]  # its final multiply is batched
    status = regmap.load().addr("STATUS")
    assert sum(1 for r in bus.sent for i in r.items
               if len(r.items) == 1 and i.kind is Kind.READ and i.addr == status) >= 8


class ReadInBatch(LoaderSeq):
    async def body(self) -> None:
        async with self.batch():
            await self.write("X", 1)
            await self.read("STATUS")


def test_a_read_value_inside_a_batch_is_refused_and_nothing_is_sent():
    with pytest.raises(RuntimeError, match="not known inside a batch"):
        _run(ReadInBatch)
    bus = ModelBus()

    class Seq(ReadInBatch):
        async def _send(self, request: BusRequest) -> None:
            bus.perform(request)

    seq = Seq("seq", SeqContext(n=N, bus_w=BUS_W, design=load_design("mont_lut"),
                                rng=random.Random(5)))
    with pytest.raises(RuntimeError):
        asyncio.run(seq.body())
    assert bus.sent == []


@pytest.mark.parametrize("name", [d for d in known_designs() if d != "rsa_core"])
def test_the_engine_holds_a_whole_operation_at_2048_bits_on_an_8_bit_bus(name):
    """engine_depth covers the longest script of every design (every operand, its halves and
    precomputed registers, START, the wait, all results and STATUS) in one engine script."""
    from montverif.models.registry import get_algo
    from montverif.spec.designs import load_design
    from montverif.verif.bus.engine_layout import engine_depth

    n, bus_w = 2048, 8
    cfg = load_design(name)
    algo = get_algo(cfg.model)
    sent: list[BusRequest] = []

    class Seq(LoaderSeq):
        async def _send(self, request: BusRequest) -> None:
            sent.append(request)

        async def body(self) -> None:
            x, y, m = 3, 5, (1 << n) - 1
            await self.run_operation({"X": x, "Y": y, "M": m})

    seq = Seq("seq", SeqContext(n=n, bus_w=bus_w, design=cfg, rng=random.Random(1),
                                precompute=lambda m: algo.precomputed(m, n, algo.resolve(n)),
                                has_field=algo.has_field))
    asyncio.run(seq.body())
    [script] = sent
    entries = sum(1 if i.kind is Kind.WAIT_DONE else i.count for i in script.items)
    assert entries == engine_depth(n, cfg, bus_w)


def test_script_groups_keep_every_operation_in_order():
    from montverif.verif.sequences import script_groups

    for size in (1, 4, 16):
        for count in (0, 1, size, size + 1, 3 * size - 1):
            groups = script_groups(list(range(count)), size)
            assert [x for g in groups for x in g] == list(range(count))
            assert all(1 <= len(g) <= size for g in groups)
            assert len(groups) == -(-count // size)


def test_a_script_holds_as_many_operations_as_fit():
    """ops_per_script: OPS_PER_SCRIPT operations where they fit in SCRIPT_ENTRIES entries,
    fewer for long operations, never fewer than MIN_OPS_PER_SCRIPT; the sequences batch that
    many, and the engine keeps that many done captures."""
    from montverif.spec.designs import load_design
    from montverif.verif.bus import engine_layout as layout
    from montverif.verif.context import SeqContext
    from montverif.verif.sequences import LoaderSeq

    seen = set()
    for name, n, bus_w in (("mont_csa", 256, 32), ("mont_csa", 1024, 32), ("mont_csa", 2048, 32),
                           ("mm42", 2048, 8), ("mont_lut", 1024, 16)):
        design = load_design(name)
        ops = layout.ops_per_script(n, design, bus_w)
        depth = layout.engine_depth(n, design, bus_w)
        seen.add(ops)
        assert layout.MIN_OPS_PER_SCRIPT <= ops <= layout.OPS_PER_SCRIPT
        assert ops * depth <= layout.SCRIPT_ENTRIES or ops == layout.MIN_OPS_PER_SCRIPT
        assert ops == layout.OPS_PER_SCRIPT or (ops + 1) * depth > layout.SCRIPT_ENTRIES
        assert layout.script_depth(n, design, bus_w) == ops * depth
        wrapper = layout.emit_wrapper(design.toplevel, {"N": n, "BusW": bus_w, "AckWait": 0},
                                      ops * depth, ops, observe=design.observe)
        assert f".DoneSlots({ops})" in wrapper and f"EngDepth = {ops * depth}" in wrapper
        ctx = SeqContext(n=n, bus_w=bus_w, design=design, rng=random.Random(1))
        assert LoaderSeq("s", ctx).ops_per_script == ops
    assert {layout.OPS_PER_SCRIPT, layout.MIN_OPS_PER_SCRIPT} <= seen and len(seen) >= 3
