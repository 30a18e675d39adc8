"""Where builds and runs happen: the `Launcher` protocol, and `LocalLauncher` (this machine)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from montverif.host import tools
from montverif.host.errors import ConfigError
from montverif.host.paths import sim_builds
from montverif.regress.flow import batch, check, simulate
from montverif.regress.flow import build as flow_build
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.verif.vectors import VectorError

INPUT_ERRORS = (ConfigError, VectorError, tools.ToolError)
# the first word of an infrastructure error (a batch system ended the job, not the run itself)
INFRA = "infrastructure"

class Launcher(Protocol):
    """Where builds and runs happen. `LocalLauncher` runs them on this machine; a batch
    system launcher (or a test's fake) only needs these three methods."""

    def check(self, run: RunSpec) -> None:
        """Raise ConfigError / VectorError / ToolError (one line) if the run cannot be done."""

    def build(self, spec: BuildSpec) -> float:
        """Compile one build; seconds spent (0 when up to date); raise with one line if not."""

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        """One simulation run, its logs in log_dir; its build is compiled already."""


# what an array launcher hands back per build: seconds spent, or the one-line error
BuildDone = Callable[[BuildSpec, float, str], bool]
# ... and per run: its Outcome (an exception's text comes back as a failed Outcome)
RunDone = Callable[[RunSpec, Outcome], bool]


@runtime_checkable
class ArrayLauncher(Launcher, Protocol):
    """A launcher that takes many builds or runs at once (a batch system's job arrays) and
    decides itself how many run together. `done` is called on the caller's thread as each
    one finishes; when it returns False (--fail-fast) nothing further is started and what
    was submitted is cancelled. Both return why items were left out ("" if none;
    "interrupted" after an interrupt, whose unfinished runs come back marked interrupted)."""

    def build_many(self, specs: Sequence[BuildSpec], done: BuildDone) -> str:
        """Compile each build once."""

    def run_many(self, runs: Sequence[tuple[RunSpec, Path]], done: RunDone) -> str:
        """Each run (its log folder beside it); its build is compiled already."""


@runtime_checkable
class BatchLauncher(Launcher, Protocol):
    """A launcher that can run several runs of one build in one simulator process."""

    def run_batch(self, runs: Sequence[tuple[RunSpec, Path]]) -> list[Outcome]:
        """The runs (each with its log folder; one build and plusargs: flow.batch.batch_key)
        one after another in as few processes as they allow; their Outcomes in order."""


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
            log = sim_builds() / spec.key / "build.log"
            raise tools.ToolError(f"build of {spec.key} failed ({one_line(exc)}); "
                                  f"see {log}") from None

    def up_to_date(self, spec: BuildSpec) -> bool:
        """Whether the build is there and current (a build would take no time)."""
        return flow_build.up_to_date(spec, check.validate(RunSpec(spec)))

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        # simulate.execute compiles a build again whose sources changed since the build phase
        # (someone edited the HDL); do that here once per build, not in every parallel run.
        with self._lock(run.build.key):
            self.build(run.build)
        return simulate.execute(run, log_dir)

    def run_batch(self, runs: Sequence[tuple[RunSpec, Path]]) -> list[Outcome]:
        with self._lock(runs[0][0].build.key):
            self.build(runs[0][0].build)
        return batch.execute_batch(runs)
