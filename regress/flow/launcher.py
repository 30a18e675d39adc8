"""Where builds and runs happen: the `Launcher` protocol, and `LocalLauncher` (this machine)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol

from montverif.regress.flow import build as flow_build
from montverif.regress.flow import check, simulate, tools
from montverif.regress.flow.paths import SIM_BUILDS
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.spec.errors import ConfigError
from montverif.verif.vectors import VectorError

INPUT_ERRORS = (ConfigError, VectorError, tools.ToolError)

class Launcher(Protocol):
    """Where builds and runs happen. `LocalLauncher` runs them on this machine; a batch
    system launcher (or a test's fake) only needs these three methods."""

    def check(self, run: RunSpec) -> None:
        """Raise ConfigError / VectorError / ToolError (one line) if the run cannot be done."""

    def build(self, spec: BuildSpec) -> float:
        """Compile one model; seconds spent (0 when up to date); raise with one line if not."""

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        """One simulation run, its logs in log_dir; its model is built already."""


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class LocalLauncher:
    """Builds and runs on this machine (flow.build, flow.simulate)."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def check(self, run: RunSpec) -> None:
        check.validate(run)

    def build(self, spec: BuildSpec) -> float:
        design = check.validate(RunSpec(spec))
        try:
            return flow_build.build(spec, design)[1]
        except INPUT_ERRORS:
            raise
        except Exception as exc:
            log = SIM_BUILDS / spec.key / "build.log"
            raise tools.ToolError(f"build of {spec.key} failed ({one_line(exc)}); "
                                  f"see {log}") from None

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        # simulate.execute rebuilds a model whose sources changed since the build phase (someone
        # edited the HDL); do that here once per model, not in every parallel run of it.
        with self._lock(run.build.key):
            self.build(run.build)
        return simulate.execute(run, log_dir)
