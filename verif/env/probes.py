"""Measurement probes: what `make bench` reads of a run, measured from outside the checkers.

Made by the environment only when the run wants measurement (RunConfig.measure, on unless
MV_MEASURE=0; `make_probes`, then `Probes.attach`):

* ThroughputProbe observes the scoreboard (Scoreboard.probes) and writes `throughput.json`:
  the run's steady rate, without its set-up and report.
* EngineProbe observes the fast mode's engine driver (BusDriver.script_probes) and writes
  `engine.json`: the simulator's share of the run.

regress/bench/points.py reads both files.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from pyuvm import uvm_component

from montverif.verif.bus.agent import BusDriver
from montverif.verif.config import RunConfig
from montverif.verif.env.scoreboard import Scoreboard

THROUGHPUT_JSON = "throughput.json"
ENGINE_JSON = "engine.json"


class ThroughputProbe:
    """The checks after the first publication that completed one, over the time from the end
    of that publication to the last check. A publication may complete several operations at
    once (fast mode: a script's), so timing from the first check would count the others in
    its publication without their time. Called in the scoreboard's checking thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.window: tuple[float, int] | None = None  # (time, checks) at the window's start
        self.last_check_s = 0.0

    def published(self, checked: int) -> None:
        if self.window is None and checked:
            self.window = (time.perf_counter(), checked)

    def operation_checked(self) -> None:
        self.last_check_s = time.perf_counter()

    def checks_done(self, checked: int, check_thread: bool, whole: int) -> None:
        start, before = self.window or (self.last_check_s, checked)
        self.path.write_text(json.dumps(
            {"checked": checked, "steady_checks": checked - before,
             "span_s": round(max(0.0, self.last_check_s - start), 6),
             "check_thread": check_thread, "whole": whole}) + "\n")


class EngineProbe:
    """Wall time from each script's go to Python's resumption at its end (the simulator's
    share of the run; the rest is Python) and the scripts run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sim_s = 0.0
        self.scripts = 0
        self._go = 0.0

    def script_go(self) -> None:
        self._go = time.perf_counter()

    def script_done(self) -> None:
        self.sim_s += time.perf_counter() - self._go
        self.scripts += 1

    def write(self, access: str) -> None:
        """engine.json; `access`: how the script and the log moved (EngineBusDriver)."""
        record = {"scripts": self.scripts, "sim_s": round(self.sim_s, 6), "vpi": access}
        self.path.write_text(json.dumps(record) + "\n")


class Probes(uvm_component):
    """A run's measurement probes: made in the environment's build_phase when the run wants
    measurement (RunConfig.measure), attached in its connect_phase."""

    def __init__(self, name: str, parent: uvm_component, log_dir: Path) -> None:
        super().__init__(name, parent)
        self.throughput = ThroughputProbe(log_dir / THROUGHPUT_JSON)
        self.engine = EngineProbe(log_dir / ENGINE_JSON)
        self.driver: BusDriver | None = None

    def attach(self, driver: BusDriver, scoreboard: Scoreboard) -> None:
        """Observe `scoreboard`'s checks and the scripts of `driver`'s engine (fast mode:
        made at the start of the simulation, it takes the driver's probes then)."""
        scoreboard.probes.append(self.throughput)
        driver.script_probes.append(self.engine)
        self.driver = driver

    def report_phase(self) -> None:
        engine = self.driver.engine if self.driver is not None else None
        if engine is not None:  # fast mode: the simulator's share of the run
            self.engine.write(engine.access)


def make_probes(parent: uvm_component, run: RunConfig) -> Probes | None:
    """The run's probes under `parent` (build_phase), None when it wants no measurement."""
    return Probes("probes", parent, run.log_dir) if run.measure else None
