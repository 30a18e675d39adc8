"""What the benchmarks share: their settings, operand vectors, statistics, a wall-clock
limit and running a cocotb module of their own on a built model."""

from __future__ import annotations

import json
import random
import signal
import statistics
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cocotb_tools.runner import get_runner

from montverif.host import claim, tools
from montverif.host.paths import ROOT, aliased, cache, sim_builds, work
from montverif.regress.flow.spec import TIMESCALE, BuildSpec
from montverif.regress.flow.vectors import vector_file
from montverif.regress.regression.shards import op_cycles
from montverif.spec.design import Design

# a JSON object of results.json (a point, a wall, the whole file): its values are of every
# kind, read back from JSON
Record = dict[str, Any]

DEFAULT_OUT = ROOT / "docs" / "generated" / "bench"


def bench_build() -> Path:
    """The benchmarks' scratch folders."""
    return work("bench")


def harness_builds() -> Path:
    """The raw harnesses' Verilator builds: in the user's cache for this source tree, as the
    simulator builds are (make refuses to build in a folder whose path holds a space, which a
    work folder may)."""
    return cache("bench")


def make_safe(cmd: list[str], out: Path, sources: Iterable[Path]) -> list[str]:
    """A harness's Verilator command with every path make cannot take (a space in the
    checkout's, the build folder's or a user's core folder's path) through its alias."""
    roots = {ROOT, out, *(Path(s).parent for s in sources)}
    return [aliased(arg, roots) for arg in cmd]


_HELD = ExitStack()  # the scratch folders this process owns, until it ends
_OWNED: set[Path] = set()


def scratch(folder: Path, fresh: bool = False) -> Path:
    """`folder` (below bench_build()) as this process's own from the first call until the
    process ends: while another process owns it (a second benchmark, a test), FolderBusy, one
    line, and nothing of the other's is removed or rebuilt under it. `fresh`: emptied first
    (its lock kept)."""
    folder = folder.resolve()
    if folder not in _OWNED:
        _HELD.enter_context(claim.claim(folder, "benchmark scratch folder"))
        _OWNED.add(folder)
    if fresh:
        claim.clear(folder)
    return folder


BUS_W = 32


SEED = 2026


RAW_MIN_S = 0.3  # the raw harness repeats its script until a pass takes at least this


# Idle clock cycles of the simulator floor: timed in the raw harness and, with no testbench
# Python, under cocotb on the engine build (regress/bench/floor_probe.py)
FLOOR_CYCLES = 200_000


FLOOR_TIMEOUT_S = 600  # wall-clock watchdog of one floor run (~1 s normally)


# The engine build a floor was measured on (results.md's "engine" column). Points from before
# the field: "hdl clock" (a `timing_ns` figure: the wrapper's clock under --timing) or
# "main loop, wide ports" (the script and the log were ports of the wrapper).
ENGINE_BUILD = "main loop"


ENGINE_BUILDS = {"hdl clock": "the wrapper's clock an HDL delay loop under Verilator's "
                              "--timing scheduler and cocotb's main (the engine-build figure "
                              "is that build advanced by the --timing scheduler alone)",
                 "main loop, wide ports": "the engine main loop (verif/bus/engine_main.cpp), "
                                          "the script and the log ports of the wrapper, which "
                                          "Verilator copied whole at every evaluation",
                 ENGINE_BUILD: "the engine main loop, the script and the log variables of "
                               "the engine read and written through VPI"}


# Most simulated clock cycles of one testbench run (the model's cycles per operation): a
# slow point (the RSA core at N = 1024 is 10^6 cycles an operation) runs fewer operations
# than --txns / --icarus-txns, at least one.
CYCLE_BUDGET = {"verilator": 8_000_000, "icarus": 400_000}


# The throughput goal (issue 7): the bit-serial designs (their RTL folders) at N = 1024 reach
# at least half the raw harness's speed with the testbench checking everything.
BIT_SERIAL_FAMILIES = ("mont", "inter", "mm42")


GOAL_N, GOAL_RATIO = 1024, 0.5
# Issue 33: with the checks inline (no checker thread), every design at each of INLINE_WIDTHS
# at least INLINE_RATIO of the raw harness, the bit-serial ones at GOAL_N at least
# INLINE_SERIAL_RATIO.
INLINE_WIDTHS, INLINE_RATIO, INLINE_SERIAL_RATIO = (256, 1024), 0.5, 0.8


def ops_per_run(name: str, n: int, params: dict[str, int], sim_name: str, most: int) -> int:
    """Operations of one testbench run: `most`, fewer where they would pass the simulator's
    cycle budget (the model's cycles per operation), at least one."""
    cycles = op_cycles(name, n, tuple(sorted(params.items())))
    return max(1, min(most, CYCLE_BUDGET[sim_name] // cycles))


def runs_per_point(name: str, n: int, params: dict[str, int], sim_name: str, repeat: int
                   ) -> int:
    """Testbench runs of a point: `repeat`, but one where a single operation is over the
    simulator's cycle budget (the RSA core at N = 1024 on Icarus: ~11 min an operation)."""
    cycles = op_cycles(name, n, tuple(sorted(params.items())))
    return repeat if cycles <= CYCLE_BUDGET[sim_name] else 1


def bit_serial(design: Design) -> bool:
    return design.family in BIT_SERIAL_FAMILIES


class BenchError(RuntimeError):
    """A benchmark step that cannot run (one-line message)."""


@dataclass
class Stat:
    """Median, min and max of repeated measurements."""

    median: float
    low: float
    high: float
    samples: list[float] = field(default_factory=list)

    @staticmethod
    def of(samples: list[float]) -> Stat:
        return Stat(statistics.median(samples), min(samples), max(samples), samples)


def make_vectors(design: Design, n: int, count: int, seed: int) -> list[dict[str, int]]:
    """`count` random operations (full-width odd moduli, operands below M); carry-save
    second halves are 0."""
    rng = random.Random(f"{seed}:{design.name}:{n}")
    out = []
    for _ in range(count):
        m = rng.getrandbits(n - 1) | (1 << (n - 1)) | 1
        values = {r: 0 for r in design.operands}
        for r in design.operands[:-1]:
            if r not in {h for g in design.carry_save_operands for h in g[1:]}:
                values[r] = rng.randrange(m)
        values[design.modulus] = m
        out.append(values)
    return out


def write_vector_file(vectors: list[dict[str, int]], path: Path, dut: str = "") -> None:
    """The vectors in the design's own vector format (the RSA core's msg/exp/mod keys)."""
    vecs = [{k.lower(): hex(v) for k, v in vec.items()} for vec in vectors]
    path.write_text(json.dumps(vector_file(dut, vecs) if dut else {"vectors": vecs}))


class WallLimit(Exception):
    """wall_limit's time ran out."""


@contextmanager
def wall_limit(seconds: int) -> Iterator[None]:
    """Raise WallLimit in the block after `seconds` of wall time (SIGALRM); a simulator that
    subprocess.run is waiting for is killed as the exception passes through it."""
    def expire(_sig: int, _frame: object) -> None:
        raise WallLimit

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_module(spec: BuildSpec, design: Design, module: str, out: Path,
               env: dict[str, str], timeout_s: int, seed: int | None = None) -> None:
    """Run the cocotb test module `module` (not the design's testbench) on the built
    Verilator model of `spec`, in `out` (sim.log, results.xml), with `env` added. WallLimit
    after `timeout_s` of wall time (the simulator is killed)."""
    tools.setup_env("verilator")
    out.mkdir(parents=True, exist_ok=True)
    with wall_limit(timeout_s):
        get_runner("verilator").test(
            test_module=module, hdl_toplevel=spec.toplevel(design),
            hdl_toplevel_lang="verilog", build_dir=sim_builds() / spec.key,
            test_dir=out, extra_env=env, timescale=TIMESCALE,
            seed=seed, results_xml=str(out / "results.xml"), log_file=out / "sim.log")
