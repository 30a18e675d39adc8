"""The configuration of one simulation run, as the testbench reads it (`current_run`).

A simulator process that runs one run is configured through environment variables set by
the flow (montverif.regress.flow: simulate starts the simulator, child runs the cocotb
tests), so a cocotb test module needs no arguments of its own. Every variable the project
reads is listed in docs/environment.md. A process that runs several runs one after another
(verif/batch.py) hands each test its run's RunConfig instead (`running`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host import environment as env
from montverif.host.secrets import Secrets
from montverif.spec.design import Design
from montverif.spec.params import format_params, parse_params

CLOCK_PERIOD_NS = 10
# the plusarg that names a batch's plan: a simulator process that runs several runs
# (verif/batch.py, started by regress/flow/batch.py)
BATCH_PLAN_ARG = "mv_runs"
BATCH_MODULE = "montverif.verif.batch"
# a meta-mutant build's run-time selector (regress/mutate/meta.py): a variable of the design's
# top, set at time 0 from the plusarg +MV_MUTANT=<id>; a run that names a mutant writes it
# before each test's reset (verif/mutant.py), so that one process can run several mutants
MUTANT_SELECT = "mv_mut_sel"
MUTANT_PLUSARG = "MV_MUTANT"
NO_MUTANT = -1  # the selector's value for the original


def mutant_plusarg(mutant: int) -> str:
    """The simulator argument that selects one mutant of a meta-mutant model."""
    return f"+{MUTANT_PLUSARG}={mutant}"


@dataclass(frozen=True)
class RunConfig:
    """What one simulation run does: read from MV_* environment variables."""

    dut: str
    n: int
    bus_w: int
    ack_wait: int
    txns: int
    seed: int
    log_dir: Path
    vectors: Path | None
    idle_max: int  # random idle cycles (0..idle_max) the driver inserts before a transfer
    # build parameters beyond N, resolved (defaults included): e.g. {"W": 16, "P": 4}
    params: dict[str, int] = field(default_factory=dict)
    bus: str = "pins"  # "pins": Python drives the bus pins; "engine": the HDL bus engine
    # what toggles clk_i (regress/flow/spec.py clock_source): "tb", the testbench's cocotb
    # Clock; "main", the build's main loop; "hdl", the engine wrapper's delay loop
    clock: str = "tb"
    # the scoreboard checks on a worker thread while the engine's main loop runs without the
    # GIL (Verilator engine builds with a spare core: regress/flow/simulate.py decides)
    check_thread: bool = False
    # the measurement probes (verif/env/probes.py: throughput.json, engine.json, read by
    # `make bench`) are attached; MV_MEASURE=0 leaves them out
    measure: bool = True
    # the design's secret operands in clear (--keep-secrets); else every log shows their
    # digests (montverif.host.secrets)
    keep_secrets: bool = False
    # coverage steering (verif/steer.py): the MV_BIAS JSON of the run's stimulus, "" = none
    bias: str = ""
    # the mutant a meta-mutant build runs (NO_MUTANT: the original); None: not such a build
    mutant: int | None = None

    def secrets(self, design: Design) -> Secrets:
        """How this run writes the design's secret registers."""
        return Secrets.of(design.secret, self.n, self.keep_secrets)

    @staticmethod
    def from_env() -> RunConfig:
        vectors = env.VECTORS.get() or None
        return RunConfig(
            dut=env.DUT.get("mont_lut"),
            n=env.N.get_int(32),
            bus_w=env.BUSW.get_int(32),
            ack_wait=env.ACK_WAIT.get_int(0),
            txns=env.TXNS.get_int(50),
            seed=int(env.COCOTB_RANDOM_SEED.get(env.SEED.get("1"))),
            log_dir=Path(env.LOG_DIR.get(".")),
            vectors=Path(vectors) if vectors else None,
            idle_max=env.IDLE_MAX.get_int(2),
            params=_int_params(env.PARAMS.get()),
            bus=env.BUS.get("pins"),
            clock=env.CLOCK.get("tb"),
            check_thread=env.CHECK_THREAD.equals("1", "0"),
            measure=not env.MEASURE.equals("0", "1"),
            keep_secrets=env.KEEP_SECRETS.equals("1", "0"),
            bias=env.BIAS.get(),
            mutant=env.MUTANT.get_int(NO_MUTANT) if env.MUTANT.lookup() else None,
        )

    def to_dict(self) -> dict[str, object]:
        """As JSON holds it (verif/batch.py's plan): from_dict reads it back."""
        out = dataclasses.asdict(self)
        out["log_dir"] = str(self.log_dir)
        out["vectors"] = str(self.vectors) if self.vectors else None
        return out

    @staticmethod
    def from_dict(raw: dict) -> RunConfig:
        vectors = raw.get("vectors")
        return RunConfig(**(raw | {"log_dir": Path(raw["log_dir"]),
                                   "vectors": Path(vectors) if vectors else None,
                                   "params": {k: int(v) for k, v in raw["params"].items()}}))

    def to_env(self) -> dict[str, str]:
        out = {
            env.DUT.name: self.dut,
            env.N.name: str(self.n),
            env.BUSW.name: str(self.bus_w),
            env.ACK_WAIT.name: str(self.ack_wait),
            env.TXNS.name: str(self.txns),
            env.SEED.name: str(self.seed),
            env.LOG_DIR.name: str(self.log_dir),
            env.IDLE_MAX.name: str(self.idle_max),
            env.CHECK_THREAD.name: "1" if self.check_thread else "0",
        }
        if self.vectors:
            out[env.VECTORS.name] = str(self.vectors)
        if self.params:
            out[env.PARAMS.name] = format_params(self.params)
        if self.bus != "pins":
            out[env.BUS.name] = self.bus
        if self.clock != "tb":
            out[env.CLOCK.name] = self.clock
        if not self.measure:
            out[env.MEASURE.name] = "0"
        # always set: a value left in the caller's environment never decides it
        out[env.KEEP_SECRETS.name] = "1" if self.keep_secrets else "0"
        if self.bias:
            out[env.BIAS.name] = self.bias
        if self.mutant is not None:
            out[env.MUTANT.name] = str(self.mutant)
        return out


# the run whose test runs now, in a process that runs several (verif/batch.py sets it)
_CURRENT: list[RunConfig] = []


def current_run() -> RunConfig:
    """The configuration of the run whose test runs now: the one `running` gives, else the
    process's own (its environment: one run per process)."""
    return _CURRENT[-1] if _CURRENT else RunConfig.from_env()


@contextmanager
def running(cfg: RunConfig) -> Iterator[RunConfig]:
    """`current_run()` is `cfg` inside the block."""
    _CURRENT.append(cfg)
    try:
        yield cfg
    finally:
        _CURRENT.pop()


def _int_params(text: str) -> dict[str, int]:
    """MV_PARAMS: the build's resolved parameters, every value an integer."""
    return {k: int(v) for k, v in parse_params(text).items()}
