"""Fast bus mode: a simulation-only HDL bus host (verif/hdl/mv_bus_engine.sv) runs a script
of bus transfers; Python wakes once per script (up to ops_per_script whole operations: load,
START, wait for done, read back) instead of several times per transfer.

The engine sits in a generated wrapper toplevel next to the design's own toplevel
(verif/bus/engine_layout.py). `EngineBusDriver.send` turns the bus items of a request into a
flat script of entries (one per transfer, one per wait for done), toggles go, awaits the
engine's fin toggle, fills each item's rdata and time_ns from the engine's log and publishes
each item's transfers as one Burst (each word with the time of its ack edge), a script's
bursts in one list, so the predictor and the scoreboard check the same transfers as in pin
mode, a burst at a time. Select it with `BUS=engine` (make sim) or `--bus engine`
(montverif sim).
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from typing import Protocol

from montverif.spec import regmap
from montverif.verif.bus.bfm import hang_error
from montverif.verif.bus.engine_layout import (
    ACK_TIMEOUT_CYCLES,
    DONE_VARS,
    ENGINE_INSTANCE,
    IDLE_W,
    LOG_VAR,
    SCRIPT_VAR,
    EngineError,
    entry_stride,
)
from montverif.verif.bus.handles import Handle
from montverif.verif.bus.item import Burst, BusItem, BusRequest, Kind
from montverif.verif.bus.ops import OpLayout, OpScript, ScriptLog, item_bursts
from montverif.verif.bus.vpi import MemorySignal, open_storage, open_wide, read_uint

KIND_CODE = {Kind.WRITE: 0, Kind.READ: 1, Kind.WAIT_DONE: 2}


def pack_bytes(words: list[int], stride: int) -> bytes:
    """The script's bytes, little endian: `words` holds each entry's low slot, then its high
    slot (stride // 2 bits each)."""
    return struct.pack(f"<{len(words)}{regmap.UINT_FORMAT[stride // 2]}", *words)


def pack_entries(words: list[int], stride: int) -> int:
    """The script as one number (pack_bytes)."""
    return int.from_bytes(pack_bytes(words, stride), "little")


def idle_draws(rng: random.Random, most: int, count: int) -> list[int]:
    """`[rng.randint(0, most) for _ in range(count)]`, the same values from the same draws
    (CPython's randint takes bit_length(most + 1) random bits until they are at most `most`;
    verif/tests/test_ops.py holds the two to each other), without randint's layers of calls:
    a script draws one for each transfer."""
    bound = most + 1
    bits, take = bound.bit_length(), rng.getrandbits
    out = []
    for _ in range(count):
        r = take(bits)
        while r >= bound:
            r = take(bits)
        out.append(r)
    return out


class ScriptProbe(Protocol):
    """Observes the engine's scripts (a measurement probe, verif/env/probes.py)."""

    def script_go(self) -> None:
        """The script was handed to the engine (go toggled)."""

    def script_done(self) -> None:
        """Python resumed at the script's end."""


class EngineBusDriver:
    """Same `send(request)` as the pin driver; every performed transfer goes to `publish`,
    a script's bursts (one per item) in one list.

    The items of one request run as one engine script (longer lists are split at item
    boundaries into scripts of at most `depth` entries)."""

    def __init__(self, top: Handle, period_ns: int, idle_max: int, bus_w: int,
                 publish: Callable[[list[Burst] | ScriptLog], None],
                 on_done: Callable[[int, int], None] | None = None) -> None:
        """`on_done(time_ns, obs)`: each rise of done, as the engine captured it (the time
        of the rising edge and the observation signals packed as in `observed`), called
        after the script it happened in and before that script's bursts are published."""
        self.top, self.period_ns, self.idle_max, self.bus_w = top, period_ns, idle_max, bus_w
        self.publish, self.on_done = publish, on_done
        self.rng = random.Random(random.getrandbits(32))
        self.go = 0
        self.addr_w = regmap.load().addr_width
        self.stride = entry_stride(self.addr_w, bus_w)
        # a slot of an entry as a machine word (the log: cycle, read data; entry by entry)
        self.slot_code, self.slot_bytes = regmap.UINT_FORMAT[self.stride // 2], self.stride // 16
        self._rdata_bytes: bytes | None = None  # the last script's read data (_execute)
        eng = getattr(top, ENGINE_INSTANCE)
        self.script, self.log = getattr(eng, SCRIPT_VAR), getattr(eng, LOG_VAR)
        self.depth = len(self.script) // self.stride
        self.log_bytes = len(self.log) // 8
        # the script and the log in place or as VPI words (None: cocotb's binary strings,
        # MV_VPI=cocotb)
        self.script_io, self.log_io = open_wide(self.script), open_wide(self.log)
        # how they move: "memory" (in place), "words" (VPI words) or "cocotb" (engine.json)
        self.access = ("cocotb" if self.log_io is None else
                       "memory" if isinstance(self.log_io, MemorySignal) else "words")
        self.done_rises, self.done_time, self.done_obs = (getattr(eng, v) for v in DONE_VARS)
        self.rises_seen = 0  # rises of done reported so far
        # the capture's slots (DoneSlots): rise r (counted from 1) sits in (r - 1) % slots
        self.slots = len(self.done_time) // 64
        self.obs_w = len(self.done_obs) // self.slots
        # the inputs (ports and the script), looked up once; each is written only when its
        # value changes
        self.ports = {name: getattr(top, name) for name in (
            "tb_go_i", "tb_len_i", "tb_ack_timeout_i", "tb_done_timeout_i")}
        self.ports[SCRIPT_VAR] = self.script
        self.fin = top.tb_fin_o
        # what Python reads after every script, in place where the simulator allows
        self.read_timeout, self.read_pos, self.read_start, self.read_rises, self.read_times, \
            self.read_obs = (self._reader(h) for h in (
                top.tb_timeout_o, top.tb_pos_o, top.tb_start_o, self.done_rises, self.done_time,
                self.done_obs))
        self.written: dict[str, int] = {}
        self._plain: dict[tuple[int, int], list[int]] = {}  # _words without idle cycles
        # an operation layout's script entries (_template), made once per layout
        # id(layout) -> the layout (kept: its id stays its own) and its template (a frozen
        # dataclass's hash walks every entry: once a script)
        self._templates: dict[int, tuple[OpLayout, list[int], list[bool]]] = {}
        # told when each script goes and when Python resumes at its end (the measurement
        # probes, verif/env/probes.py: the simulator's share of a run, `engine.json`)
        self.probes: list[ScriptProbe] = []
        # called at the end of every script, after its bursts were published (an environment
        # that records more than the bus, mv_product_log, reads it here)
        self.on_script_end: Callable[[], None] | None = None
        self._put("tb_go_i", 0)
        self._put("tb_ack_timeout_i", ACK_TIMEOUT_CYCLES)

    @staticmethod
    def _reader(handle: Handle) -> Callable[[], int]:
        """A function that reads `handle` as an unsigned int: in place (MemorySignal) when
        the simulator allows, else through cocotb (read_uint)."""
        memory = open_storage(handle)
        return memory.read_uint if memory is not None else lambda: read_uint(handle)

    def _put(self, port: str, value: int) -> None:
        if self.written.get(port) != value:
            self.ports[port].value = value
            self.written[port] = value

    def _words(self, item: BusItem) -> list[int]:
        """The item's script entries as slots: each entry's write data, then its kind,
        address and idle cycles (two words an entry, pack_bytes)."""
        kind = item.kind
        if kind is Kind.WAIT_DONE:
            return [0, KIND_CODE[Kind.WAIT_DONE]]
        count = item.count
        # the high slots of consecutive addresses: kind | addr << 2 | idle << (2 + AddrW)
        meta = KIND_CODE[kind] | item.addr << 2
        if self.idle_max:
            draws = idle_draws(self.rng, self.idle_max, count)
            if not item.tight:  # the draws are still made: the random stream stays
                words = [0] * (2 * count)
                if kind is Kind.WRITE:
                    words[0::2] = item.data
                top = 2 + self.addr_w
                words[1::2] = [meta + 4 * k | min(v, (1 << IDLE_W) - 1) << top
                               for k, v in enumerate(draws)]
                return words
        # no idle cycles: the entries of (kind, address, count) are always the same but for
        # a write's data (made once, copied for a write; a read's list is never changed)
        key = (meta, count)
        plain = self._plain.get(key)
        if plain is None:
            plain = self._plain[key] = [0] * (2 * count)
            plain[1::2] = range(meta, meta + 4 * count, 4)
        if kind is Kind.WRITE:
            words = plain.copy()
            words[0::2] = item.data
            return words
        return plain

    async def send(self, request: BusRequest) -> None:
        if isinstance(request, OpScript) and self._fits(request):
            await self._run_ops(request)
            return
        subs = request.items
        chunk: list[BusItem] = []
        words: list[int] = []
        for sub in subs:
            more = self._words(sub)
            if chunk and len(words) + len(more) > 2 * self.depth:
                await self._run(chunk, words)
                chunk, words = [], []
            chunk.append(sub)
            words += more
        if chunk:
            await self._run(chunk, words)

    def _fits(self, script: OpScript) -> bool:
        """Whether the operations fit one script with one done watchdog."""
        return (len(script.ops) * script.layout.length <= self.depth
                and len({op.timeout_cycles for op in script.ops}) == 1)

    def _template(self, layout: OpLayout) -> tuple[list[int], list[bool]]:
        """The high slots of one operation's entries without idle cycles, and which entries
        are transfers (each draws its idle cycles, as `_words` does item by item)."""
        known = self._templates.get(id(layout))
        if known is not None and known[0] is layout:
            return known[1], known[2]
        meta: list[int] = []
        moves: list[bool] = []
        for e in layout.entries:
            if e.kind is Kind.WAIT_DONE:
                meta.append(KIND_CODE[Kind.WAIT_DONE])
                moves.append(False)
            else:
                first = KIND_CODE[e.kind] | e.addr << 2
                meta += range(first, first + 4 * e.count, 4)
                moves += [True] * e.count
        self._templates[id(layout)] = (layout, meta, moves)
        return meta, moves

    def pack_ops(self, script: OpScript) -> list[int]:
        """The script's entries as slots (two an entry, as `_words` makes them item by
        item), from its layout's template: the operations' write data, and each transfer's
        idle cycles drawn in the same order."""
        layout, ops = script.layout, script.ops
        meta, moves = self._template(layout)
        per, writes = layout.length, layout.writes
        transfers = sum(moves)
        words = [0] * (2 * per * len(ops))
        top, cap = 2 + self.addr_w, (1 << IDLE_W) - 1
        for i, op in enumerate(ops):
            base = 2 * per * i
            words[base:base + 2 * writes:2] = op.write_words(layout)
            if self.idle_max:
                draws = iter(idle_draws(self.rng, self.idle_max, transfers))
                words[base + 1:base + 2 * per:2] = [
                    m | min(next(draws), cap) << top if move else m
                    for m, move in zip(meta, moves, strict=True)]
            else:
                words[base + 1:base + 2 * per:2] = meta
        return words

    async def _run_ops(self, script: OpScript) -> None:
        """One engine script of whole operations, packed from their layout's template: the
        same entries, idle cycles and random draws as their items one by one (`_words`).
        What the engine logged goes to `publish` as one ScriptLog; a script that hung is
        handled item by item, as any script."""
        words = self.pack_ops(script)
        self._put("tb_done_timeout_i", script.ops[0].timeout_cycles)
        failed, cycles, rdata, start = await self._execute(words)
        length = len(words) // 2
        if failed < length:  # a hang: the items' transfers up to it, then the watchdog
            self._finish(script.items, failed, cycles, rdata, start)
            return
        try:
            self.publish(ScriptLog(script, cycles, rdata, start, self.period_ns,
                                   self._captures(), self._rdata_bytes))
        finally:
            if self.on_script_end is not None:
                self.on_script_end()

    async def _execute(self, words: list[int]) -> tuple[int, list[int], list[int], int]:
        """Run one script (`words`: two slots an entry) to its end: (entries that completed,
        each entry's cycle, each entry's read data, the script's start time)."""
        length = len(words) // 2  # entries
        assert length <= self.depth, f"{length} entries, engine depth {self.depth}"
        if self.script_io is not None:  # written at once, before go (cocotb's next write)
            self.script_io.write_bytes(pack_bytes(words, self.stride))
        else:
            self._put(SCRIPT_VAR, pack_entries(words, self.stride))
        self._put("tb_len_i", length)
        self.go ^= 1
        self._put("tb_go_i", self.go)
        for probe in self.probes:
            probe.script_go()
        await self.fin.value_change
        for probe in self.probes:
            probe.script_done()
        # fin toggles half a cycle after the script's last falling edge (mv_bus_engine): the
        # log is settled, and this slot may write the next script (no read-only phase)
        failed = self.read_pos() if self.read_timeout() else length
        # entry k: the cycle in its low slot, the read data in its high one (machine words)
        size = min(failed, length) * 2 * self.slot_bytes
        log = (self.log_io.read_bytes(size) if self.log_io is not None
               else read_uint(self.log).to_bytes(self.log_bytes, "little")[:size])
        slots = memoryview(log).cast(self.slot_code)
        high = slots[1::2]
        # the read data as bus words (ScriptLog.rdata_bytes) where a slot is one bus word
        self._rdata_bytes = high.tobytes() if 8 * self.slot_bytes == self.bus_w else None
        return failed, slots[0::2].tolist(), high.tolist(), self.read_start()

    async def _run(self, subs: list[BusItem], words: list[int]) -> None:
        """One engine script (`words`: two slots an entry); fills the sub-items and publishes
        their bursts."""
        waits = {s.timeout_cycles for s in subs if s.kind is Kind.WAIT_DONE}
        assert len(waits) <= 1, f"one done timeout per script, got {sorted(waits)}"
        if waits:
            self._put("tb_done_timeout_i", waits.pop())
        self._finish(subs, *await self._execute(words))

    def _finish(self, subs: list[BusItem], failed: int, cycles: list[int], rdata: list[int],
                start: int) -> None:
        """The script's done captures to `on_done`, then its items filled and their bursts
        published (a hung script's transfers before the hang too, then the watchdog)."""
        if self.on_done is not None:
            self._report_done()
        bursts, hang = item_bursts(subs, cycles, rdata, start, self.period_ns, failed)
        # a hung script's transfers before the hang are checked first: the checkers then
        # know the operation it hung in (hang_error names it)
        if bursts:
            self.publish(bursts)
        if self.on_script_end is not None:
            self.on_script_end()
        if hang is not None:
            raise hang_error(self._hang(*hang))

    def _captures(self) -> list[tuple[int, int]]:
        """The rises of done since the last script, in order (the engine keeps the last
        `slots` of them): (the time of the rising edge, the packed observation)."""
        rises = self.read_rises()
        new = rises - self.rises_seen
        if new == 0:
            return []
        if new > self.slots:
            raise EngineError(f"done rose {new} times between two reads of the engine's "
                              f"capture, which keeps {self.slots}: at most {self.slots} "
                              "operation(s) may end per script (ops_per_script)")
        times, obs = self.read_times(), self.read_obs()
        obs_mask, half = (1 << self.obs_w) - 1, self.period_ns // 2
        found = []
        for rise in range(self.rises_seen + 1, rises + 1):
            slot = (rise - 1) % self.slots
            found.append((((times >> (64 * slot)) & 0xFFFF_FFFF_FFFF_FFFF) - half,
                          (obs >> (self.obs_w * slot)) & obs_mask))
        self.rises_seen = rises
        return found

    def _report_done(self) -> None:
        """The rises of done since the last script to `on_done`, in order."""
        for time_ns, packed in self._captures():
            self.on_done(time_ns, packed)  # type: ignore[misc]

    def _hang(self, sub: BusItem, k: int) -> str:
        """What the watchdog reports for sub-item `sub` hung at its transfer k."""
        if sub.kind is Kind.WAIT_DONE:
            return f"DONE not raised within {sub.timeout_cycles} cycles (hung operation)"
        return (f"no bus ack within {ACK_TIMEOUT_CYCLES} cycles for {sub.kind.value} "
                f"at addr 0x{sub.addr + k:x}")
