"""cocotb tests of a streaming design (a descriptor's [stream]: docs/streaming.md): the core
between the stream harness's source and sink (hdl/common/mv_stream_engine.sv). Python wakes
once per batch of operations, never per clock: it writes the batch, awaits the engine's fin,
and checks the log (verif/stream/checks.py). Loaded by cocotb, not collected by pytest."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from montverif.models.registry import get_algo
from montverif.spec import formula
from montverif.spec.design import Design
from montverif.spec.designs import load_design
from montverif.verif.bus.handles import Handle
from montverif.verif.config import CLOCK_PERIOD_NS, RunConfig, current_run
from montverif.verif.env.probes import THROUGHPUT_JSON, ThroughputProbe
from montverif.verif.stream import sequences
from montverif.verif.stream.checks import StreamChecker
from montverif.verif.stream.coverage import StreamCoverage
from montverif.verif.stream.engine import GAP_MAX, BatchLog, StreamEngine, StreamOp
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


Check = Callable[[int, list[StreamOp], BatchLog], None]  # (first, batch, its log) -> None


async def run_batches(engine: StreamEngine, batches: Iterable[list[tuple[int, int, int]]],
                      traffic: sequences.Traffic, rng: random.Random, check: Check,
                      failed: Callable[[], bool], thread: bool, timeout: int,
                      started: Callable[[int], None]) -> None:
    """Run the batches through the engine and check each one's log: at once, or (`thread`)
    on a worker thread while the simulator runs the next batch (the simulator runs without
    Python's GIL between cocotb's callbacks). Either way the same batches run and are
    checked: a hang ends the test after its own batch, a mismatch after the batch that
    follows its own (the one the simulator was running while it was found). `started` is
    told each batch's first operation as it goes to the simulator."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="stream-checks") if thread else None
    pending: Future[None] | None = None
    first = 0
    try:
        for chunk in batches:
            batch = sequences.ops(chunk, traffic, rng, engine.tag_w, first)
            started(first)
            result = await engine.run(batch, timeout)
            if pending is not None:
                pending.result()  # the batch before's checks (its exception, if any)
            stop = failed() or result.timed_out
            if pool is None or stop:
                check(first, batch, result)
                pending = None
            else:
                pending = pool.submit(check, first, batch, result)
            if stop:
                break
            first += len(chunk)
        if pending is not None:
            pending.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True)


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
    # make bench's steady window (verif/env/probes.py): from the second batch's start (the
    # first one's checks done, or on their thread) to the end of the last batch's checks,
    # over the operations after the first batch
    probe = ThroughputProbe(cfg.log_dir / THROUGHPUT_JSON) if cfg.measure else None
    with (cfg.log_dir / "txns.jsonl").open("a") as log:
        checker = StreamChecker(algo, cfg.n, dict(cfg.params), latency, stream.interval,
                                stream.order == "tagged", coverage, log)

        def check(first: int, batch: list[StreamOp], result: BatchLog) -> None:
            checker.check(test, first, batch, result)
            if probe is not None:
                probe.operation_checked()

        def started(first: int) -> None:
            if probe is not None:
                probe.published(first)

        timeout = latency + 4 * (GAP_MAX + stream.interval) + 100
        batches = (values[first:first + engine.depth]
                   for first in range(0, len(values), engine.depth))
        await run_batches(engine, batches, traffic, rng, check, lambda: bool(checker.errors),
                          cfg.check_thread, timeout, started)
    if probe is not None:
        probe.checks_done(checker.checked, cfg.check_thread, len(values))
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
async def VectorFullRateTest(dut: Handle) -> None:
    """The vector file's operations at full rate, nothing held: `make bench`'s run, the
    traffic of the raw harness (regress/bench/stream_harness.cpp)."""
    await run_stream(dut, "VectorFullRateTest", file_operands, sequences.full_rate)


@cocotb.test()
async def VectorTest(dut: Handle) -> None:
    """The vector file's operations, with the seed's traffic: the same log for two builds
    that compute alike (the mutation campaigns' equivalence runs compare them)."""
    await run_stream(dut, "VectorTest", file_operands, sequences.random_traffic)
