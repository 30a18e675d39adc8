"""cocotb tests of a streaming design (a descriptor's [stream]: docs/streaming.md): the core
between the stream harness's source and sink (hdl/common/mv_stream_engine.sv). Python wakes
once per batch of operations, never per clock: it writes the batch, awaits the engine's fin,
and checks the log (verif/stream/checks.py). Loaded by cocotb, not collected by pytest."""

from __future__ import annotations

import random
from collections.abc import Callable

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from montverif.models.registry import get_algo
from montverif.spec import formula
from montverif.spec.design import Design
from montverif.spec.designs import load_design
from montverif.verif.bus.handles import Handle
from montverif.verif.config import CLOCK_PERIOD_NS, RunConfig, current_run
from montverif.verif.stream import sequences
from montverif.verif.stream.checks import StreamChecker
from montverif.verif.stream.coverage import StreamCoverage
from montverif.verif.stream.engine import GAP_MAX, StreamEngine, StreamOp
from montverif.verif.vectors import load_vectors

RESET_CYCLES = 3
_COVERAGE: dict[str, StreamCoverage] = {}  # one set of cover points a process and design

# a test's operands: (rng, design, n, count) -> [(x, y, m)]
Operands = Callable[[random.Random, Design, int, int], list[tuple[int, int, int]]]


def random_operands(rng: random.Random, design: Design, n: int,
                    count: int) -> list[tuple[int, int, int]]:
    out = []
    for _ in range(count):
        m = sequences.modulus(rng, n)
        out.append((sequences.operand(rng, design, "X", m, n),
                    sequences.operand(rng, design, "Y", m, n), m))
    return out


def corner_operands(rng: random.Random, design: Design, n: int,
                    count: int) -> list[tuple[int, int, int]]:
    return sequences.corner_operands(rng, design, n)


def file_operands(rng: random.Random, design: Design, n: int,
                  count: int) -> list[tuple[int, int, int]]:
    """The operations of the run's vector file (VECTORS: the mutation campaigns' equivalence
    runs, a user's own list), in its order; every one in the design's domain."""
    cfg = current_run()
    assert cfg.vectors is not None, "VectorTest needs a vector file (--vectors, VECTORS=)"
    values = load_vectors(cfg.vectors, n, design.operands, design.below_modulus,
                          params=cfg.params)
    return [(x, y, m) for x, y, m in values]


async def run_stream(dut: Handle, test: str, operands: Operands,
                     traffic: sequences.Traffic) -> None:
    cfg: RunConfig = current_run()
    cfg.log_dir.mkdir(parents=True, exist_ok=True)
    design = load_design(cfg.dut)
    stream = design.stream
    assert stream is not None, f"{design.name} has no [stream]"
    algo = get_algo(design.model)
    params = algo.defaults() | dict(cfg.params)
    latency = int(formula.formula(stream.latency, cfg.n, params))
    coverage = _COVERAGE.setdefault(design.name, StreamCoverage(design.name))
    if cfg.clock == "tb":
        Clock(dut.clk_i, CLOCK_PERIOD_NS, unit="ns", impl="gpi").start()
    dut.rst_ni.value = 0
    engine = StreamEngine(dut, cfg.n)
    await ClockCycles(dut.clk_i, RESET_CYCLES)
    dut.rst_ni.value = 1
    rng = random.Random(f"{cfg.seed}:{test}")
    values = operands(rng, design, cfg.n, cfg.txns)
    if not values:
        return
    with (cfg.log_dir / "txns.jsonl").open("a") as log:
        checker = StreamChecker(algo, cfg.n, dict(cfg.params), latency, stream.interval,
                                stream.order == "tagged", coverage, log)
        for first in range(0, len(values), engine.depth):
            chunk = values[first:first + engine.depth]
            batch: list[StreamOp] = sequences.ops(chunk, traffic, rng, engine.tag_w, first)
            timeout = latency + 4 * (GAP_MAX + stream.interval) + 100
            result = await engine.run(batch, timeout)
            checker.check(test, first, batch, result)
            if result.timed_out or checker.errors:
                break
    coverage.export(cfg.log_dir)
    for error in checker.errors:
        dut._log.error(f"MISMATCH {error}")
    assert not checker.errors, f"{len(checker.errors)} mismatch(es); first: {checker.errors[0]}"
    assert checker.checked == len(values), f"{checker.checked} of {len(values)} checked"


@cocotb.test()
async def StreamRandomTest(dut: Handle) -> None:
    """TXNS random operations, mostly back to back, with idle gaps and held results."""
    await run_stream(dut, "StreamRandomTest", random_operands, sequences.random_traffic)


@cocotb.test()
async def StreamFullRateTest(dut: Handle) -> None:
    """TXNS operations at full rate, nothing held: the pipeline fills and stays full."""
    await run_stream(dut, "StreamFullRateTest", random_operands, sequences.full_rate)


@cocotb.test()
async def StreamBackPressureTest(dut: Handle) -> None:
    """TXNS operations at full rate, results held back often: stalls while full."""
    await run_stream(dut, "StreamBackPressureTest", random_operands, sequences.back_pressure)


@cocotb.test()
async def StreamCornerTest(dut: Handle) -> None:
    """Every operand and modulus class of the coverage bins, with random traffic."""
    await run_stream(dut, "StreamCornerTest", corner_operands, sequences.random_traffic)


@cocotb.test()
async def VectorTest(dut: Handle) -> None:
    """The vector file's operations, with the seed's traffic: the same log for two builds
    that compute alike (the mutation campaigns' equivalence runs compare them)."""
    await run_stream(dut, "VectorTest", file_operands, sequences.random_traffic)
