"""What one compiled build (BuildSpec) and one simulation run (RunSpec) are, and what a run
gave (Outcome). Keys name build and run folders; `repro()` is the command that runs a seed
again."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host import environment
from montverif.models.registry import get_algo
from montverif.spec import top
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design
from montverif.spec.sections import Testbench
from montverif.verif.bus import engine_layout
from montverif.verif.config import MUTANT_PLUSARG, mutant_plusarg

TIMESCALE = ("1ns", "1ps")  # (unit, precision) of every build and run
UNIT_NS = {"fs": 1e-6, "ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}  # time units
TEST_MODULE = "montverif.verif.tb_mult"
ALL_TESTS = ("RandomTest", "CornerTest", "BackToBackTest", "StatusWhileBusyTest", "ErrorTest")
VECTOR_TESTS = ("VectorTest",)
# a streaming design's vector file at one operation a clock (verif/tb_stream.py; `make bench`)
STREAM_VECTOR_TESTS = ("VectorFullRateTest",)
DEFAULT_TIMEOUT_S = 1800
BUS_MODES = ("pins", "engine")


def design_tb(dut: str) -> tuple[str, tuple[str, ...], str | None]:
    """The design's testbench: (cocotb test module, default tests, vector loader "mod:func"),
    from its descriptor's [testbench] (module, tests, vector_loader); the multiplier
    testbench (TEST_MODULE, ALL_TESTS, verif.vectors) by default."""
    tb = load_design(dut).testbench if dut in known_designs() else Testbench()
    return tb.module or TEST_MODULE, tb.tests or ALL_TESTS, tb.vector_loader or None


def has_engine(dut: str) -> bool:
    """Whether the design's testbench runs in the fast bus mode: the multiplier testbench,
    and a testbench of its own whose descriptor says so ([testbench] engine = true: the RSA
    core's)."""
    tb = load_design(dut).testbench if dut in known_designs() else Testbench()
    return tb.engine if tb.engine is not None else design_tb(dut)[0] == TEST_MODULE


def with_design_tests(run: RunSpec) -> RunSpec:
    """A run asking for the default tests (ALL_TESTS) gets its design's own default list."""
    if run.tests != ALL_TESTS:
        return run
    return dataclasses.replace(run, tests=design_tb(run.build.dut)[1])


def engine_hdl_clock() -> bool:
    """Verilator builds toggle clk_i in their own main loop (verif/bus/engine_main.cpp, no
    --timing); MV_ENGINE_CLOCK=hdl keeps the earlier builds, for comparison: an engine build's
    wrapper makes its clock with an HDL delay loop, and a pins build's testbench starts
    cocotb's Clock, both under cocotb's own main."""
    return environment.ENGINE_CLOCK.equals("hdl", "main")


def clock_source(b: BuildSpec) -> str:
    """What toggles the build's clk_i: "main", the build's own main loop
    (verif/bus/engine_main.cpp: Verilator, every bus mode), "hdl", the engine wrapper's delay
    loop (Icarus engine builds, MV_ENGINE_CLOCK=hdl), or "tb", the testbench's cocotb Clock
    (Icarus pins builds, MV_ENGINE_CLOCK=hdl). The main loop runs a time slot in which no
    callback is due without cocotb's protocol: a pins run's Python waits on events (ack,
    done, busy) while a core computes, and those cycles run at the build's own speed."""
    if b.sim == "verilator" and not engine_hdl_clock():
        return "main"
    return "hdl" if b.bus == "engine" else "tb"


@dataclass(frozen=True)
class BuildSpec:
    """What one compiled build is: shared by every seed that uses it."""

    dut: str
    n: int
    bus_w: int = 32
    sim: str = "verilator"
    ack_wait: int = 0
    fault: bool = False
    waves: bool = False
    # build parameters beyond N as given (e.g. (("P", 2), ("W", 8))); defaults fill the rest
    params: tuple[tuple[str, int], ...] = ()
    # "pins": Python drives the bus pins; "engine": the simulation-only HDL bus engine does
    # (verif/bus/engine.py), Python wakes about once per operation (one engine script)
    bus: str = "pins"
    # Verilator line + toggle coverage (coverage.dat per run, regress/coverage/code.py)
    coverage: bool = False
    # a folder whose files replace the design's sources of the same name (mutation testing,
    # regress/mutate/); its name and a digest of its path go into the key, so each overlay
    # is its own build: two campaigns run at once (parallel jobs, parallel tests) with the
    # same mutant number never build in, or remove, each other's folder
    overlay: str = ""

    @property
    def key(self) -> str:
        parts = [self.dut, f"n{self.n}"] + [f"{k}{v}" for k, v in self.params]
        if self.overlay:
            where = hashlib.sha256(str(Path(self.overlay).resolve()).encode()).hexdigest()
            parts += [Path(self.overlay).name, where[:8]]
        parts += [f"b{self.bus_w}"]
        parts += [f"w{self.ack_wait}"] if self.ack_wait else []
        parts += ["fault"] if self.fault else []
        parts += ["waves"] if self.waves else []
        parts += ["eng"] if self.bus == "engine" else []
        # the builds under cocotb's main (MV_ENGINE_CLOCK=hdl) in folders of their own
        parts += ["hdlclk"] if engine_hdl_clock() and (
            self.bus == "engine" or self.sim == "verilator") else []
        parts += ["cov"] if self.coverage else []
        return "-".join(parts + [self.sim])

    def toplevel(self, design: Design) -> str:
        return engine_layout.wrapper_name(design.toplevel) if self.bus == "engine" else \
            design.toplevel

    def selects_mutants(self, design: Design) -> bool:
        """Whether this is a mutation campaign's meta-mutant build, whose top holds the
        selector of its mutants (regress/mutate/meta.py): its overlay has a copy of the top."""
        return bool(self.overlay) and (Path(self.overlay) / top.path(design).name).is_file()

    def sources(self, design: Design) -> list[Path]:
        """The design's sources, each replaced by the overlay's file of the same name."""
        sources = top.sources(design)
        if not self.overlay:
            return sources
        over = Path(self.overlay)
        return [over / s.name if (over / s.name).is_file() else s for s in sources]

    def design_params(self, design: Design) -> dict[str, int]:
        """The parameters beyond N, defaults included (raises ModelInputError if illegal)."""
        return get_algo(design.model).resolve(self.n, dict(self.params))

    def parameters(self, design: Design) -> dict[str, int]:
        params = {"N": self.n, "BusW": self.bus_w, "AckWait": self.ack_wait}
        params |= self.design_params(design)
        return params | dict(design.fault_params if self.fault else {})


def _params_text(b: BuildSpec) -> str:
    """A build's parameters as a command line writes them (a choice by its name)."""
    design = load_design(b.dut) if b.dut in known_designs() else None
    return ",".join(f"{k}={design.param_text(k, v) if design else v}" for k, v in b.params)


def vectors_tag(vectors: str) -> str:
    """A vector file in a run key: its name and a digest of its path, so that a replay never
    shares (and overwrites) the folder of a random run with the same seed, nor another
    file's."""
    path = Path(vectors).resolve()
    where = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    return f"{re.sub(r'[^A-Za-z0-9_.]+', '', path.stem)}-{where}"


@dataclass(frozen=True)
class RunSpec:
    build: BuildSpec
    seed: int = 1
    txns: int = 50
    vectors: str | None = None
    tests: tuple[str, ...] = ALL_TESTS
    idle_max: int = 2
    timeout_s: int = DEFAULT_TIMEOUT_S
    # coverage steering (verif/steer.py): the MV_BIAS JSON this run's stimulus uses, "" = none
    bias: str = ""
    # simulator plusargs
    plusargs: tuple[str, ...] = ()
    # the mutant a run on a meta-mutant build selects (regress/mutate/meta.py; None: the
    # original): the plusarg +MV_MUTANT=<id> in a process of its own; in a batch of runs of
    # the model, the testbench writes each run's before its tests' resets (verif/mutant.py)
    mutant: int | None = None
    # N above the descriptor's widest (widths.max) is run anyway (--allow-wide, ALLOW_WIDE=1)
    allow_wide: bool = False
    # the design's secret operands in clear in every file of the run (--keep-secrets); by
    # default each log shows their digests (montverif.host.secrets)
    keep_secrets: bool = False
    # the run ends at its first failing test, in a process of its own (cocotb's
    # COCOTB_MAX_FAILURES=1; its other tests are reported failed, never run): a verdict that
    # needs only the first error (a mutant's kill). A batch of runs never stops early.
    stop_at_failure: bool = False

    def __post_init__(self) -> None:  # read back from JSON (outcome.json, summary.json): a list
        object.__setattr__(self, "plusargs", tuple(self.plusargs))

    @property
    def key(self) -> str:
        extra = "".join("-" + re.sub(r"\W+", "", p) for p in self.plusargs)
        extra += f"-{MUTANT_PLUSARG}{self.mutant}" if self.mutant is not None else ""
        extra += f"-vec-{vectors_tag(self.vectors)}" if self.vectors else ""
        return f"{self.build.key}-s{self.seed}{extra}"

    def repro(self) -> str:
        """The one command that runs this seed again, with waves; without them for a design
        with secret operands whose run does not keep them (its waves would hold them in
        clear: `montverif sim` refuses --waves there without --keep-secrets)."""
        b = self.build
        cmd = f"montverif sim --dut {b.dut} --n {b.n}"
        cmd += f" --params {_params_text(b)}" if b.params else ""
        cmd += f" --busw {b.bus_w} --sim {b.sim} --seed {self.seed} --txns {self.txns}"
        cmd += f" --ack-wait {b.ack_wait}" if b.ack_wait else ""
        cmd += " --fault" if b.fault else ""
        cmd += " --coverage" if b.coverage else ""
        cmd += f" --idle-max {self.idle_max}" if self.idle_max != 2 else ""
        cmd += " --bus engine" if b.bus == "engine" else ""
        cmd += f" --vectors {self.vectors}" if self.vectors else ""
        cmd += f" --tests {','.join(self.tests)}" if self.tests not in (ALL_TESTS, VECTOR_TESTS) \
            else ""
        cmd += f" --bias '{self.bias}'" if self.bias else ""
        cmd += f" --timeout {self.timeout_s}" if self.timeout_s != DEFAULT_TIMEOUT_S else ""
        cmd += " --allow-wide" if self.allow_wide else ""
        cmd += " --beyond-paper" if self.beyond_paper() else ""
        cmd += " --keep-secrets" if self.keep_secrets else ""
        secret = b.dut in known_designs() and bool(load_design(b.dut).secret)
        return cmd + ("" if secret and not self.keep_secrets else " --waves")

    def sim_plusargs(self) -> list[str]:
        """The simulator's plusargs of this run in a process of its own."""
        mutant = [mutant_plusarg(self.mutant)] if self.mutant is not None else []
        return [*self.plusargs, *mutant]

    def beyond_paper(self) -> list[str]:
        """The parameters of this run beyond the hardware its paper assumes (docs: the
        descriptor's paper_max), as Design.beyond_paper words them; [] for none."""
        b = self.build
        if b.dut not in known_designs():
            return []
        design = load_design(b.dut)
        return design.beyond_paper(design.resolve(dict(b.params)))


@dataclass
class Outcome:
    run: RunSpec
    passed: bool
    log_dir: Path
    tests: int = 0
    failed: int = 0
    first_error: str = ""
    wall_s: float = 0.0
    build_s: float = 0.0
    waves: Path | None = None
    extra: dict[str, object] = field(default_factory=dict)
    interrupted: bool = False  # ended by an interrupt of the runner, not by itself
    # a batch system ended the job (node failure, time limit, ...): neither passed nor failed
    infrastructure: bool = False
    retried: str = ""  # the attempts a batch system ended before this one ("" if none)
