"""Signal-level driver and monitor of the loader bus, built on cocotb-bus.

Protocol (see hdl/common/mv_bus_loader.sv): the host holds req/we/addr/wdata until ack rises;
the loader performs the transfer on that edge and holds rdata while ack is high. Neither
class wakes on every clock: each transfer costs a few awaits on ack and clock edges, and the
done pin is awaited by its edge.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import cocotb
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time
from cocotb_bus.drivers import BusDriver
from cocotb_bus.monitors import BusMonitor

from montverif.verif.bus.handles import Handle
from montverif.verif.bus.item import BusItem, BusRequest, Kind, Transfer

SIGNALS = {"req": "req_i", "we": "we_i", "addr": "addr_i", "wdata": "wdata_i",
           "ack": "ack_o", "rdata": "rdata_o"}


class WatchdogError(AssertionError):
    """The DUT did not answer in time: a hung transfer or an operation that never finished.
    The message reads "watchdog: <what>" (the prefix is added here, so log scanners do not
    mistake a traceback's source line for the message)."""

    def __init__(self, what: str) -> None:
        super().__init__("watchdog: " + what)


# What the checkers say of a hang (the test and the operation it hung in), and what they
# record of it; set by the env of the test that runs (verif/env/env.py), one at a time.
_hang_context: list[Callable[[], str]] = []


def on_hang(context: Callable[[], str]) -> None:
    """`context()` names where a hang happened, for every watchdog from now on."""
    _hang_context[:] = [context]


def hang_error(what: str) -> WatchdogError:
    """The watchdog's error for `what`, prefixed with where it happened (on_hang)."""
    where = _hang_context[0]() if _hang_context else ""
    return WatchdogError(f"{where}: {what}" if where else what)


class LoaderBusDriver(BusDriver):
    """Drives BusItems onto the pins, with optional random idle cycles before each transfer.

    A transfer costs two awaits: the rising edge of ack (the loader performed it) and the
    following falling clock edge, where rdata is still held and the next request is driven.
    Hangs are caught by one watchdog task that wakes every `WATCH_CYCLES` clocks, not by a
    timer per transfer.
    """

    _signals = SIGNALS
    WATCH_CYCLES = 4096

    def __init__(self, dut: Handle, clock: Handle, done: Handle,
                 period_ns: int, idle_max: int = 0, ack_timeout_cycles: int = 256) -> None:
        super().__init__(dut, "bus", clock)
        self.done = done
        self.period_ns = period_ns
        self.idle_max = idle_max
        self.ack_timeout_cycles = ack_timeout_cycles
        self.rng = random.Random(random.getrandbits(32))
        self.bus.req.value = 0
        self.bus.we.value = 0
        self.bus.addr.value = 0
        self.bus.wdata.value = 0
        self._aligned = False
        self._waiting: tuple[float, str] | None = None  # (deadline ns, what) while blocked
        cocotb.start_soon(self._watchdog())

    async def _watchdog(self) -> None:
        while True:
            await Timer(self.WATCH_CYCLES * self.period_ns, "ns")
            if self._waiting and get_sim_time("ns") > self._waiting[0]:
                raise hang_error(self._waiting[1])

    async def _driver_send(self, transaction: BusRequest, sync: bool = True,
                           **kwargs: object) -> None:
        for item in transaction.items:  # one after another
            await self._send_item(item)

    async def _send_item(self, transaction: BusItem) -> None:
        if not self._aligned:
            await FallingEdge(self.clock)
            self._aligned = True
        if transaction.kind is Kind.WAIT_DONE:
            await self._wait_done(transaction)
            return
        bus, write = self.bus, transaction.kind is Kind.WRITE
        transaction.rdata = []
        for k in range(transaction.count):
            idle = self.rng.randint(0, self.idle_max) if self.idle_max else 0
            if idle and not transaction.tight:
                bus.req.value = 0
                await ClockCycles(self.clock, idle, rising=False)
            bus.we.value = int(write)
            bus.addr.value = transaction.addr + k
            bus.wdata.value = transaction.data[k] if write else 0
            bus.req.value = 1
            self._waiting = (get_sim_time("ns") + self.ack_timeout_cycles * self.period_ns,
                             f"no bus ack within {self.ack_timeout_cycles} cycles for "
                             f"{transaction.kind.value} at addr 0x{transaction.addr + k:x}")
            await RisingEdge(bus.ack)
            transaction.time_ns = get_sim_time("ns")
            await FallingEdge(self.clock)  # rdata is held while ack is high
            if not write:
                transaction.rdata.append(int(bus.rdata.value))
        self._waiting = None
        bus.req.value = 0

    async def _wait_done(self, item: BusItem) -> None:
        if not int(self.done.value):
            self._waiting = (get_sim_time("ns") + item.timeout_cycles * self.period_ns,
                             f"DONE not raised within {item.timeout_cycles} cycles "
                             "(hung operation)")
            await RisingEdge(self.done)
            self._waiting = None
            await FallingEdge(self.clock)
        item.time_ns = get_sim_time("ns")


class LoaderBusMonitor(BusMonitor):
    """Reports every completed transfer as a Transfer, time-stamped with its ack edge."""

    _signals = SIGNALS

    def __init__(self, dut: Handle, clock: Handle, callback: object = None) -> None:
        super().__init__(dut, "bus", clock, callback=callback)

    async def _monitor_recv(self) -> None:
        bus = self.bus
        while True:
            await RisingEdge(bus.ack)
            time_ns = get_sim_time("ns")
            await ReadOnly()
            self._recv(Transfer(bool(int(bus.we.value)), int(bus.addr.value),
                                int(bus.wdata.value), int(bus.rdata.value), time_ns))
