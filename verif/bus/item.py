"""Bus sequence items: one acknowledged transfer, or a wait for the done pin, and the request
that carries them through the sequencer."""

from __future__ import annotations

import enum

from pyuvm import uvm_sequence_item


class Kind(enum.Enum):
    WRITE = "write"
    READ = "read"
    WAIT_DONE = "wait_done"  # block until the done pin is high (watchdog-bounded)


class BusItem:
    """One bus access: `count` transfers at consecutive word addresses, or a wait for the
    done pin. The driver fills in `rdata` (one word per read transfer) and `time_ns`.

    A plain object, not a sequence item: a sequence makes about ten of them per operation,
    and each pyuvm sequence item builds three cocotb Events (5.5 us a sequence item against
    0.7 us, measured). What goes through the sequencer is a BusRequest holding them."""

    __slots__ = ("kind", "addr", "data", "count", "timeout_cycles", "tight", "rdata", "time_ns")

    def __init__(self, kind: Kind = Kind.READ, addr: int = 0, data: list[int] | None = None,
                 count: int = 1, timeout_cycles: int = 0) -> None:
        self.kind = kind
        self.addr = addr
        self.data = data if data is not None else [0] * count
        self.count = len(self.data) if data is not None else count
        self.timeout_cycles = timeout_cycles
        self.tight = False  # True: the driver inserts no idle cycles before its transfers
        self.rdata: list[int] = []
        self.time_ns: float = 0  # the simulator's time (cocotb: a float)

    def __str__(self) -> str:
        return f"{self.kind.value} addr=0x{self.addr:x} x{self.count} rdata={self.rdata}"


class BusRequest(uvm_sequence_item):
    """What a sequence hands to the sequencer: bus items the driver performs in order, each
    filled as if sent alone (one sequencer hand-shake for all; the fast-mode engine runs them
    as one script)."""

    def __init__(self, items: list[BusItem], name: str = "bus_request") -> None:
        super().__init__(name)
        assert items, "a bus request of no items"
        self._items: list[BusItem] | None = items

    @property
    def items(self) -> list[BusItem]:
        """The items, in the order they are performed."""
        assert self._items is not None
        return self._items

    def __str__(self) -> str:
        if len(self.items) == 1:
            return str(self.items[0])
        return f"script x{len(self.items)}: " + "; ".join(map(str, self.items))


class Transfer:
    """One transfer as the monitor saw it on the bus (performed on the edge that raised ack)."""

    __slots__ = ("we", "addr", "wdata", "rdata", "time_ns")

    def __init__(self, we: bool, addr: int, wdata: int, rdata: int, time_ns: float) -> None:
        self.we = we
        self.addr = addr
        self.wdata = wdata
        self.rdata = rdata
        self.time_ns = time_ns

    def __str__(self) -> str:
        kind = f"write 0x{self.wdata:x}" if self.we else f"read 0x{self.rdata:x}"
        return f"@{self.time_ns}ns addr=0x{self.addr:x} {kind}"


class Burst:
    """The transfers of one bus item at consecutive word addresses, as the fast-mode engine
    logged them (one publication per item instead of one per word). Word k was acked at
    ``base_ns + ticks[k] * step_ns`` (the engine logs cycles: ``times_ns`` is computed only
    when asked for, and ``first_ns`` / ``last_ns`` at once); a write burst has no read data,
    a read burst no write data."""

    __slots__ = ("we", "addr", "wdata", "rdata", "ticks", "base_ns", "step_ns", "first_ns",
                 "last_ns")

    def __init__(self, we: bool, addr: int, wdata: list[int], rdata: list[int],
                 ticks: list[int], base_ns: int = 0, step_ns: int = 1) -> None:
        self.we = we
        self.addr = addr
        self.wdata = wdata
        self.rdata = rdata
        self.ticks, self.base_ns, self.step_ns = ticks, base_ns, step_ns
        self.first_ns = base_ns + ticks[0] * step_ns
        self.last_ns = base_ns + ticks[-1] * step_ns

    @property
    def times_ns(self) -> list[int]:
        """The ack time of each word."""
        base, step = self.base_ns, self.step_ns
        return [base + t * step for t in self.ticks]

    @property
    def count(self) -> int:
        return len(self.ticks)

    def transfers(self) -> list[Transfer]:
        """The same burst word by word."""
        return [Transfer(self.we, self.addr + k, self.wdata[k] if self.we else 0,
                         0 if self.we else self.rdata[k], t)
                for k, t in enumerate(self.times_ns)]

    def __str__(self) -> str:
        kind = "write" if self.we else "read"
        return f"@{self.first_ns}ns addr=0x{self.addr:x} {kind} x{self.count}"
