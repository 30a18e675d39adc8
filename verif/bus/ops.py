"""Whole operations as one request: what a sequence hands over when every operation of a
batch is the canonical one (load registers, START, wait for done, read every result back).

An `OpLayout` is the bus entries of one such operation for one set of loaded registers
(the writes, START, the wait, the reads of P, S, C, CYCLES and STATUS), made once per set;
a `PlannedOp` is one operation's register values and START word; an `OpScript` holds a
batch of them. It is a BusRequest: its `items` are the bus items the sequence would have
made one by one (built only when asked for: pin mode, a fallback), so every driver performs
it; the engine's driver packs it from the layout instead (verif/bus/engine.py) and
publishes what the engine logged as one `ScriptLog`, which the scoreboard checks whole or
replays burst by burst (verif/env/scoreboard.py).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from pyuvm import uvm_sequence_item

from montverif.spec import regmap
from montverif.verif.bus.item import Burst, BusItem, BusRequest, Kind

RESULT_READS = ("P", "S", "C", "CYCLES")  # read back whole, in this order, then STATUS


@dataclass(frozen=True)
class TransferRun:
    """`count` transfers of one kind at consecutive addresses (a wait for done: count 1)."""

    kind: Kind
    addr: int
    count: int
    region: str  # the register (CTRL for START, "" for the wait)


@dataclass(frozen=True)
class OpLayout:
    """The entries of one canonical operation: the loaded registers (in order), START, the
    wait for done, the result registers and STATUS."""

    loads: tuple[str, ...]
    entries: tuple[TransferRun, ...]
    n: int
    bus_w: int

    @staticmethod
    def make(rm: regmap.RegMap, loads: tuple[str, ...], reads: tuple[tuple[str, int], ...],
             n: int, bus_w: int) -> OpLayout:
        """`reads`: each result register read back with its words, in read order."""
        per = regmap.words(n, bus_w)
        entries = [TransferRun(Kind.WRITE, rm.addr(r), per, r) for r in loads]
        entries.append(TransferRun(Kind.WRITE, rm.addr("CTRL"), 1, "CTRL"))
        entries.append(TransferRun(Kind.WAIT_DONE, 0, 1, ""))
        entries += [TransferRun(Kind.READ, rm.addr(r), count, r) for r, count in reads]
        entries.append(TransferRun(Kind.READ, rm.addr("STATUS"), 1, "STATUS"))
        return OpLayout(loads, tuple(entries), n, bus_w)

    @property
    def load_words(self) -> int:
        """Words written to each loaded register."""
        return regmap.words(self.n, self.bus_w)

    @property
    def writes(self) -> int:
        """Write transfers of one operation (the loaded words and START): they come first."""
        return sum(e.count for e in self.entries if e.kind is Kind.WRITE)

    @property
    def length(self) -> int:
        """Engine entries of one operation (one per transfer, one for the wait)."""
        return sum(e.count for e in self.entries)


@dataclass
class PlannedOp:
    """One canonical operation: the loaded registers' values (the layout's order), the START
    word and the done watchdog."""

    values: dict[str, int]
    ctrl: int
    timeout_cycles: int
    _words: list[int] | None = field(default=None, repr=False)

    def write_words(self, layout: OpLayout) -> list[int]:
        """Every word the operation writes, in bus order (the loads, then START); made once."""
        if self._words is None:
            n, bus_w = layout.n, layout.bus_w
            words: list[int] = []
            for region in layout.loads:
                words += regmap.split(self.values[region], n, bus_w)
            words.append(self.ctrl)
            self._words = words
        return self._words

    def loads(self, layout: OpLayout) -> dict[str, list[int]]:
        """The words written to each loaded register."""
        words, per = self.write_words(layout), layout.load_words
        return {r: words[k * per:(k + 1) * per] for k, r in enumerate(layout.loads)}

    def items(self, layout: OpLayout) -> list[BusItem]:
        """The bus items a sequence sends for the operation (LoaderSeq.run_operation)."""
        n, bus_w = layout.n, layout.bus_w
        out: list[BusItem] = []
        for e in layout.entries:
            if e.kind is Kind.WAIT_DONE:
                out.append(BusItem(Kind.WAIT_DONE, timeout_cycles=self.timeout_cycles))
            elif e.kind is Kind.READ:
                out.append(BusItem(Kind.READ, e.addr, count=e.count))
            elif e.region == "CTRL":
                out.append(BusItem(Kind.WRITE, e.addr, [self.ctrl]))
            else:
                out.append(BusItem(Kind.WRITE, e.addr,
                                   regmap.split(self.values[e.region], n, bus_w)))
        return out


class OpScript(BusRequest):
    """A batch of canonical operations of one layout, handed over as one request."""

    def __init__(self, layout: OpLayout, ops: list[PlannedOp], name: str = "op_script"
                 ) -> None:
        uvm_sequence_item.__init__(self, name)
        assert ops, "an operation script of no operations"
        self.layout, self.ops = layout, ops
        self._items = None

    @property
    def items(self) -> list[BusItem]:
        """The operations' bus items, made once when first asked for."""
        if self._items is None:
            self._items = [item for op in self.ops for item in op.items(self.layout)]
        return self._items

    def __str__(self) -> str:
        return f"{len(self.ops)} operation(s) of {', '.join(self.layout.loads)}"


class ScriptLog:
    """What the engine logged of an OpScript that ran to its end: each entry's cycle (falling
    edges since the script started) and read data, the script's start time, and the rises
    of done it captured (time of the rising edge, packed observation), in order."""

    __slots__ = ("script", "cycles", "rdata", "start_ns", "period_ns", "captures", "_bytes")

    def __init__(self, script: OpScript, cycles: list[int], rdata: list[int], start_ns: int,
                 period_ns: int, captures: list[tuple[int, int]],
                 rdata_bytes: bytes | None = None) -> None:
        """`rdata_bytes`: `rdata` as little-endian words of the script's bus width, where
        the engine's log holds them so (made from `rdata` when first asked for otherwise)."""
        self.script, self.cycles, self.rdata = script, cycles, rdata
        self.start_ns, self.period_ns, self.captures = start_ns, period_ns, captures
        self._bytes = rdata_bytes

    def rdata_bytes(self) -> bytes | None:
        """Every entry's read data as one little-endian bus word each (bus words of 8, 16, 32
        or 64 bits; None for other widths): a whole register's words compare as one slice."""
        if self._bytes is None:
            code = regmap.UINT_FORMAT.get(self.script.layout.bus_w)
            if code is None:
                return None
            self._bytes = struct.pack(f"<{len(self.rdata)}{code}", *self.rdata)
        return self._bytes

    def bursts(self) -> list[Burst]:
        """The script's transfers as the engine driver publishes any script (one Burst per
        item); fills the items' rdata and times as that driver does."""
        return item_bursts(self.script.items, self.cycles, self.rdata, self.start_ns,
                           self.period_ns, len(self.cycles))[0]


def item_bursts(items: list[BusItem], cycles: list[int], rdata: list[int], start_ns: int,
                period_ns: int, done: int) -> tuple[list[Burst], tuple[BusItem, int] | None]:
    """The Bursts of a script's items whose first `done` entries ran (entry k: cycles[k],
    rdata[k]), each item's rdata and time_ns filled, and where it hung (the item and its
    transfers that completed; None: it ran to its end). A transfer was acked half a cycle
    before its log time."""
    ack0 = start_ns - period_ns // 2
    bursts: list[Burst] = []
    k = 0  # entry index
    for sub in items:
        if sub.kind is Kind.WAIT_DONE:
            if k >= done:
                return bursts, (sub, 0)
            sub.time_ns = start_ns + cycles[k] * period_ns
            k += 1
            continue
        count = sub.count
        if k + count > done:
            return bursts, (sub, done - k)
        if sub.kind is Kind.WRITE:
            burst = Burst(True, sub.addr, sub.data, [], cycles[k:k + count], ack0, period_ns)
        else:
            sub.rdata = rdata[k:k + count]
            burst = Burst(False, sub.addr, [], sub.rdata, cycles[k:k + count], ack0,
                          period_ns)
        sub.time_ns = burst.last_ns
        bursts.append(burst)
        k += count
    return bursts, None
