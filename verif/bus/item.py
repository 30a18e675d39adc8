"""Bus sequence items: one acknowledged transfer, or a wait for the done pin."""

from __future__ import annotations

import enum

from pyuvm import uvm_sequence_item


class Kind(enum.Enum):
    WRITE = "write"
    READ = "read"
    WAIT_DONE = "wait_done"  # block until the done pin is high (watchdog-bounded)


class BusItem(uvm_sequence_item):
    """A request to the bus driver; `rdata` and `time_ns` are filled in by the driver."""

    def __init__(self, name: str = "bus_item", kind: Kind = Kind.READ, addr: int = 0,
                 data: int = 0, timeout_cycles: int = 0) -> None:
        super().__init__(name)
        self.kind = kind
        self.addr = addr
        self.data = data
        self.timeout_cycles = timeout_cycles
        self.rdata = 0
        self.time_ns = 0

    def __str__(self) -> str:
        return f"{self.kind.value} addr=0x{self.addr:x} data=0x{self.data:x} rdata=0x{self.rdata:x}"


class Transfer:
    """One transfer as the monitor saw it on the bus (performed on the edge that raised ack)."""

    __slots__ = ("we", "addr", "wdata", "rdata", "time_ns")

    def __init__(self, we: bool, addr: int, wdata: int, rdata: int, time_ns: int) -> None:
        self.we = we
        self.addr = addr
        self.wdata = wdata
        self.rdata = rdata
        self.time_ns = time_ns

    def __str__(self) -> str:
        kind = f"write 0x{self.wdata:x}" if self.we else f"read 0x{self.rdata:x}"
        return f"@{self.time_ns}ns addr=0x{self.addr:x} {kind}"
