"""pyuvm bus agent: sequencer, driver and monitor around the cocotb-bus BFMs.

The agent finds its pins through the ConfigDB key "BUS_IF", a BusIf built by the test.
Any later DUT behind mv_bus_loader reuses it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyuvm import ConfigDB, uvm_agent, uvm_analysis_port, uvm_driver, uvm_monitor, uvm_sequencer

from montverif.host import environment
from montverif.host.secrets import HIDDEN
from montverif.spec import regmap
from montverif.spec.design import Design
from montverif.verif.bus.bfm import LoaderBusDriver, LoaderBusMonitor
from montverif.verif.bus.engine import EngineBusDriver, ScriptProbe
from montverif.verif.bus.handles import Handle
from montverif.verif.bus.item import Burst, BusRequest, Transfer
from montverif.verif.bus.ops import ScriptLog
from montverif.verif.config import RunConfig


@dataclass
class BusIf:
    """The pins the agent needs."""

    dut: Handle
    clock: Handle
    done: Handle
    period_ns: int
    idle_max: int = 0
    engine: bool = False  # fast mode: the HDL bus engine performs the transfers
    bus_w: int = 32

    def dut_handle(self) -> Handle:
        """The design's own toplevel (inside the engine wrapper in fast mode)."""
        return self.dut.u_dut if self.engine else self.dut


class BusDriver(uvm_driver):
    def build_phase(self) -> None:
        self.bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        # fast mode: where the engine's capture of each done rise goes (time_ns, packed
        # observation signals); an environment with a done observer connects it
        self.on_done: Callable[[int, int], None] | None = None
        # fast mode: the engine's script observers (measurement probes, verif/env/probes.py)
        self.script_probes: list[ScriptProbe] = []
        # fast mode: where each script's bursts go (None: the monitor's publish) and what is
        # called at the end of every script (an environment that orders more than the bus
        # traffic by time, verif/env/rsa_capture.py)
        self.publish_to: Callable[[list[Burst] | ScriptLog], None] | None = None
        self.on_script_end: Callable[[], None] | None = None

    def start_of_simulation_phase(self) -> None:
        bif = self.bus_if
        if bif.engine:
            monitor: BusMonitor = ConfigDB().get(self, "", "BUS_MONITOR")
            self.bfm = EngineBusDriver(bif.dut, bif.period_ns, bif.idle_max, bif.bus_w,
                                       self.publish_to or monitor.publish, self.on_done)
            self.bfm.probes = self.script_probes
            self.bfm.on_script_end = self.on_script_end
        else:
            self.bfm = LoaderBusDriver(bif.dut, bif.clock, bif.done, bif.period_ns,
                                       bif.idle_max)

    async def run_phase(self) -> None:
        while True:
            item: BusRequest = await self.seq_item_port.get_next_item()
            await self.bfm.send(item)
            self.seq_item_port.item_done()

    @property
    def engine(self) -> EngineBusDriver | None:
        """The engine's driver (fast mode, from the start of the simulation), else None."""
        bfm = getattr(self, "bfm", None)
        return bfm if isinstance(bfm, EngineBusDriver) else None


class BusMonitor(uvm_monitor):
    """Publishes every observed Transfer (pin mode), or each script's list of Bursts (fast
    mode), on `ap`."""

    def build_phase(self) -> None:
        self.ap = uvm_analysis_port("ap", self)
        self.bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")

    def start_of_simulation_phase(self) -> None:
        # fast mode: the engine driver publishes the transfers the HDL engine logged
        if not self.bus_if.engine:
            self.bfm = LoaderBusMonitor(self.bus_if.dut, self.bus_if.clock,
                                        callback=self.publish)
        # MV_BUS_LOG=path: every published transfer, one line each, without its time (the
        # tests compare pin mode, the engine item by item and the engine's scripts)
        path = environment.BUS_LOG.lookup()
        self.bus_log = open(path, "a") if path else None  # flushed per write
        # the words of the design's secret registers (montverif.host.secrets) are left out:
        # the addresses they are written at
        self._secret: frozenset[int] = frozenset()
        if self.bus_log is not None:
            run: RunConfig = ConfigDB().get(self, "", "RUN")
            design: Design = ConfigDB().get(self, "", "DESIGN")
            secrets = run.secrets(design)
            if secrets.redacting:
                rm = regmap.load()
                self._secret = frozenset(rm.addr(r, i) for r in secrets.registers
                                         for i in range(1 << rm.index_width))

    def _bus_line(self, t: Transfer) -> str:
        data = t.wdata if t.we else t.rdata
        shown = HIDDEN if t.addr in self._secret else f"{data:x}"
        return f"{'W' if t.we else 'R'} {t.addr:x} {shown}\n"

    def publish(self, transfer: Transfer | list[Burst] | ScriptLog) -> None:
        """One transfer (pin mode), or a script's bursts or its log of whole operations
        (fast mode: one write for all)."""
        if self.bus_log is not None:
            bursts = transfer.bursts() if isinstance(transfer, ScriptLog) else transfer
            words = ([t for b in bursts for t in b.transfers()]
                     if isinstance(bursts, list) else [bursts])
            self.bus_log.writelines(self._bus_line(t) for t in words)
            self.bus_log.flush()
        self.ap.write(transfer)

    def final_phase(self) -> None:
        if self.bus_log is not None:
            self.bus_log.close()


class BusAgent(uvm_agent):
    def build_phase(self) -> None:
        self.seqr = uvm_sequencer("seqr", self)
        self.driver = BusDriver.create("driver", self)
        self.monitor = BusMonitor.create("monitor", self)
        ConfigDB().set(None, "*", "BUS_SEQR", self.seqr)
        ConfigDB().set(None, "*", "BUS_MONITOR", self.monitor)

    def connect_phase(self) -> None:
        self.driver.seq_item_port.connect(self.seqr.seq_item_export)
