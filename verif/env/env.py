"""The multiplier environment: bus agent, done-pin observer, predictor, scoreboard, coverage."""

from __future__ import annotations

from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.utils import get_sim_time
from pyuvm import ConfigDB, UVMConfigItemNotFound, uvm_analysis_port, uvm_component, uvm_env

from montverif.models.registry import get_algo
from montverif.spec import regmap
from montverif.spec.design import Design
from montverif.verif.bus.agent import BusAgent, BusIf
from montverif.verif.bus.bfm import on_hang
from montverif.verif.bus.engine_layout import CaptureLayout
from montverif.verif.bus.handles import Handle
from montverif.verif.bus.vpi import read_uint
from montverif.verif.config import RunConfig
from montverif.verif.env.coverage import Coverage
from montverif.verif.env.predictor import LoaderPredictor
from montverif.verif.env.probes import make_probes
from montverif.verif.env.scoreboard import DoneObservation, Scoreboard


def _handle(dut: Handle, path: str) -> Handle:
    h = dut
    for part in path.split("."):
        h = getattr(h, part)
    return h


class DoneObserver(uvm_component):
    """Wakes once per operation, at the rising edge of done_o, and reads the core's
    simulation-only observation signals (table-address hit counters, final subtraction).

    In fast mode it does not wake: the bus engine captures the same signals at that edge
    (mv_bus_engine) and its driver hands them to `engine_done` after the script."""

    def build_phase(self) -> None:
        self.ap = uvm_analysis_port("ap", self)
        self.bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        self.design: Design = ConfigDB().get(self, "", "DESIGN")
        # how the signals read at the edge (pin mode) or captured by the engine decode
        self.capture = CaptureLayout.of(self.design.observe)

    def _publish(self, time_ns: float, hits: int, taken: bool | None) -> None:
        self.ap.write(DoneObservation(time_ns, self.capture.lut(hits), taken))

    def engine_done(self, time_ns: int, packed: int) -> None:
        """One rise of done as the bus engine captured it (fast mode)."""
        self.ap.write(DoneObservation(time_ns, *self.capture.decode(packed)))

    async def run_phase(self) -> None:
        if self.bus_if.engine:
            return  # the bus engine captures the observation (engine_done)
        obs = self.design.observe
        dut = self.bus_if.dut_handle()
        hits = _handle(dut, obs.lut_hits) if obs.lut_hits else None
        sub = _handle(dut, obs.sub_taken) if obs.sub_taken else None
        while True:
            await RisingEdge(self.bus_if.done)
            time_ns = get_sim_time("ns")
            await ReadOnly()
            self._publish(time_ns, read_uint(hits) if hits is not None else 0,
                          bool(read_uint(sub)) if sub is not None else None)


def _test_name(component: uvm_env) -> str:
    """The running test's name (BaseTest sets it), "" for a test that does not."""
    try:
        return str(ConfigDB().get(component, "", "TEST"))
    except UVMConfigItemNotFound:
        return ""


class MulEnv(uvm_env):
    def build_phase(self) -> None:
        self.run_cfg: RunConfig = ConfigDB().get(self, "", "RUN")
        self.design: Design = ConfigDB().get(self, "", "DESIGN")
        bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        rm = regmap.load()
        algo = get_algo(self.design.model)
        # the predictor refuses operands outside the domain itself (ERR_RANGE)
        model = algo.model(self.run_cfg.params, domain=False)
        self.predictor = LoaderPredictor(rm, self.design, self.run_cfg.n,
                                         self.run_cfg.bus_w, model,
                                         bus_if.period_ns, has_field=algo.has_field,
                                         secrets=self.run_cfg.secrets(self.design))
        observe = self.design.observe
        self.coverage = Coverage(self.design.name, observe.lut_bins, observe.illegal_bins,
                                 self.design.carry_save_operands,
                                 has_field=algo.has_field, has_sub=bool(observe.sub_taken),
                                 beyond=tuple(r for r, dom in self.design.domain.items()
                                              if dom == "below_2n" and r in ("X", "Y")),
                                 has_range=self.design.has_range_rule)
        self.agent = BusAgent("agent", self)
        self.observer = DoneObserver("observer", self)
        self.scoreboard = Scoreboard("scoreboard", self, predictor=self.predictor, algo=algo,
                                     params=self.run_cfg.params,
                                     coverage=self.coverage,
                                     log_path=self.run_cfg.log_dir / "txns.jsonl",
                                     check_thread=self.run_cfg.check_thread and bus_if.engine,
                                     capture=CaptureLayout.of(observe),
                                     test=_test_name(self))
        # fast mode: the bus traffic of a script is published after the done edge in it
        self.scoreboard.defer_done = bus_if.engine
        self.probes = make_probes(self, self.run_cfg)

    def connect_phase(self) -> None:
        on_hang(self.scoreboard.hang_context)  # a hang names the test and its operation
        self.agent.driver.on_done = self.observer.engine_done  # fast mode: the engine's capture
        self.agent.monitor.ap.connect(self.scoreboard.bus_sub.analysis_export)
        self.observer.ap.connect(self.scoreboard.done_sub.analysis_export)
        if self.probes is not None:
            self.probes.attach(self.agent.driver, self.scoreboard)

    def report_phase(self) -> None:
        self.coverage.export(self.run_cfg.log_dir)
