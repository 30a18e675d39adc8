"""Benchmarks: testbench throughput against a raw Verilator harness, simulator ratio, build
times, cycle counts against the papers, regression wall time.

    montverif bench [--designs mont_lut,...] [--widths 256,1024] [--txns 40]
                            [--repeat 3] [--sims verilator,icarus] [--lists smoke]
                            [--jobs 1,2] [--out docs/bench]

For every design and width the same operand vectors run three ways: the cocotb/pyuvm
testbench with full checking and coverage (VectorTest, no idle cycles) on Verilator and on
Icarus, and a plain C++ harness on the same Verilated RTL (regress/bench_harness.cpp) that
performs the same bus transfers. Throughput is checked operations per second of simulation
(cocotb's own test time; the harness's timed loop), the median of --repeat runs with min and
max. Each repeat runs the testbench and then the raw harness, and a ratio between them is the
median of the repeats' ratios: side by side, as the machine's speed drifts over minutes.
Every harness result is checked against gmpy2 too. `make bench` writes
docs/bench/results.json, docs/bench/results.md and PNG plots beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from montverif.models.registry import get_algo, reference
from montverif.regress import tools
from montverif.regress.cycles import formula
from montverif.regress.run import op_cycles
from montverif.regress.sim import (
    BUILD_ROOT,
    BUS_MODES,
    TIMESCALE,
    BuildSpec,
    RunSpec,
    available_cores,
    build,
    check_thread,
    execute,
    half_period_units,
    has_engine,
)
from montverif.verif import regmap
from montverif.verif.config import ConfigError, DesignConfig, known_designs, load_design

ROOT = Path(__file__).resolve().parent.parent
HARNESS = Path(__file__).resolve().parent / "bench_harness.cpp"
ENGINE_IDLE = Path(__file__).resolve().parent / "bench_engine_idle.cpp"
DEFAULT_OUT = ROOT / "docs" / "bench"
BENCH_BUILD = BUILD_ROOT / "bench"
BUS_W = 32
SEED = 2026
RAW_MIN_S = 0.3  # the raw harness repeats its script until a pass takes at least this
# Idle clock cycles of the simulator floor: timed in the raw harness and, with no testbench
# Python, under cocotb on the engine build (regress/bench_floor.py)
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


def bit_serial(design: DesignConfig) -> bool:
    return any(src.parent.name in BIT_SERIAL_FAMILIES and src.stem == design.name
               for src in design.sources)


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


# --- operand vectors ------------------------------------------------------------------------
def make_vectors(design: DesignConfig, n: int, count: int, seed: int) -> list[dict[str, int]]:
    """`count` random operations (full-width odd moduli, operands below M); carry-save
    second halves are 0."""
    rng = random.Random(f"{seed}:{design.name}:{n}")
    out = []
    for _ in range(count):
        m = rng.getrandbits(n - 1) | (1 << (n - 1)) | 1
        values = {r: 0 for r in design.design.operands}
        for r in design.design.operands[:-1]:
            if r not in {h for g in design.design.carry_save_operands for h in g[1:]}:
                values[r] = rng.randrange(m)
        values[design.design.modulus] = m
        out.append(values)
    return out


def write_vector_file(vectors: list[dict[str, int]], path: Path, dut: str = "") -> None:
    """The vectors in the design's own vector format (the RSA core's msg/exp/mod keys)."""
    from montverif.regress.mutate.engine import vector_file

    vecs = [{k.lower(): hex(v) for k, v in vec.items()} for vec in vectors]
    path.write_text(json.dumps(vector_file(dut, vecs) if dut else {"vectors": vecs}))


# --- raw Verilator harness ------------------------------------------------------------------
def harness_script(design: DesignConfig, n: int, vectors: list[dict[str, int]],
                   params: dict[str, int]) -> str:
    """The bus transfers of the testbench's VectorTest: load every operand (and the
    precomputed registers), START, wait for done, read P (S, C), CYCLES and STATUS."""
    rm = regmap.load()
    d = design.design
    algo = get_algo(design.model)
    lines: list[str] = []
    for vec in vectors:
        values = dict(vec) | algo.precomputed(vec[d.modulus], n, params)
        for reg in d.operands + d.precomputed:
            for k, word in enumerate(regmap.split(values[reg], n, BUS_W)):
                lines.append(f"W {rm.addr(reg, k):x} {word:x}")
        lines.append(f"W {rm.addr('CTRL'):x} {rm.fields['CTRL']['START'].put(1):x}")
        lines.append("D")
        for reg in ("P", "S", "C", "CYCLES"):
            bits = rm.region_bits(reg, n, d, BUS_W)
            if bits is None or (reg in ("S", "C") and d.redundant_extra_bits is None):
                continue
            lines += [f"R {rm.addr(reg, k):x}" for k in range(regmap.words(bits, BUS_W))]
        lines.append(f"R {rm.addr('STATUS'):x}")
    return "\n".join(lines) + "\n"


def check_harness_reads(design: DesignConfig, n: int, vectors: list[dict[str, int]],
                        params: dict[str, int], reads: list[int]) -> None:
    """Every P the harness read back against gmpy2 (the raw run must be correct too)."""
    rm = regmap.load()
    d = design.design
    algo = get_algo(design.model)
    pos = 0
    for i, vec in enumerate(vectors):
        p_words = regmap.words(n, BUS_W)
        p = regmap.join(reads[pos:pos + p_words], BUS_W)
        args = [vec[r] for r in d.operands]
        want = reference(algo, *args, n, **params)
        if p != want:
            raise BenchError(f"{design.name} n={n}: raw harness op {i}: P=0x{p:x}, gmpy2 "
                             f"expects 0x{want:x}")
        for reg in ("P", "S", "C", "CYCLES"):
            bits = rm.region_bits(reg, n, d, BUS_W)
            if bits is None or (reg in ("S", "C") and d.redundant_extra_bits is None):
                continue
            pos += regmap.words(bits, BUS_W)
        pos += 1  # STATUS
    if pos != len(reads):
        raise BenchError(f"{design.name} n={n}: harness read {len(reads)} words, "
                         f"expected {pos}")


def build_harness(design: DesignConfig, n: int, params: dict[str, int]) -> tuple[Path, float]:
    """Verilate the design's toplevel with the C++ harness (the simulator's default
    optimisation, as the cocotb build; without --vpi/--public-flat-rw)."""
    tools.setup_env("verilator")
    key = f"{design.name}-n{n}" + "".join(f"-{k}{v}" for k, v in params.items())
    out = BENCH_BUILD / "harness" / key
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    top = design.toplevel
    cpp = out / "bench_main.cpp"
    cpp.write_text(HARNESS.read_text().replace("@TOP@", top))
    gparams = {"N": n, "BusW": BUS_W, "AckWait": 0} | params
    cmd = ["verilator", "--cc", "--exe", "--build", "-j", "2", "-Wno-fatal",
           "--top-module", top, "--Mdir", str(out / "obj"), "-o", "bench",
           "--timescale", "1ns/1ps"]
    cmd += [f"-G{k}={v}" for k, v in gparams.items()]
    cmd += [str(s) for s in design.sources] + [str(cpp)]
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=out)
    if res.returncode != 0:
        first = next((ln for ln in (res.stdout + res.stderr).splitlines() if "rror" in ln),
                     "see log")
        (out / "build.log").write_text(res.stdout + res.stderr)
        raise BenchError(f"harness build of {key} failed: {first[:200]}")
    return out / "obj" / "bench", time.monotonic() - t0


def run_harness(exe: Path, script: Path, loops: int = 1, idle: int = 0
                ) -> tuple[float, int, list[int], float]:
    """(seconds of the timed loop over `loops` passes of the script, cycles, the first
    pass's read words, seconds of `idle` more cycles with the design idle)."""
    out = script.with_suffix(".reads")
    res = subprocess.run([str(exe), str(script), str(out), str(loops), str(idle)],
                         capture_output=True, text=True, timeout=3600)
    if res.returncode != 0:
        raise BenchError(f"harness {exe} failed: {(res.stderr or res.stdout).strip()[:200]}")
    fields = dict(kv.split("=") for kv in res.stdout.split())
    reads = [int(w, 16) for w in out.read_text().split()]
    return float(fields["seconds"]), int(fields["cycles"]), reads, float(fields["idle_seconds"])


# --- the cocotb/pyuvm testbench -------------------------------------------------------------
def testbench_seconds(run: RunSpec, log_dir: Path) -> float:
    """Run the VectorTest through the normal runner; cocotb's real time of the test."""
    outcome = execute(run, log_dir)
    if not outcome.passed:
        raise BenchError(f"{run.key}: the testbench failed: {outcome.first_error} "
                         f"(log {outcome.log_dir})")
    root = ET.parse(log_dir / "results.xml").getroot()
    case = next(root.iter("testcase"))
    return float(case.get("time", "0"))


def steady_rate(log_dir: Path, count: int, secs: float) -> tuple[float, float]:
    """(operations checked per second in the run's steady window, the run's fixed cost in
    seconds: its set-up before and its report after the checks). The window (the
    scoreboard's `throughput.json`) runs from the end of the first publication that
    completed an operation to the last check, and holds the checks after that publication;
    the raw harness's figure is its timed loop, without its own set-up: this is the
    testbench's like for like. A run with no check after its first publication has no
    steady rate: its whole time."""
    try:
        rec = json.loads((log_dir / "throughput.json").read_text())
        checked, steady = int(rec["checked"]), int(rec["steady_checks"])
        span = float(rec["span_s"])
    except (OSError, KeyError, ValueError) as exc:
        raise BenchError(f"{log_dir}: no steady rate (throughput.json): {exc}") from None
    if checked != count:
        raise BenchError(f"{log_dir}: {checked} operations checked, {count} run")
    if steady < 1 or span <= 0:
        return count / secs, 0.0
    each = span / steady
    return 1 / each, max(0.0, secs - count * each)


def engine_sim_seconds(log_dir: Path) -> float:
    """The simulator's share of an engine run: wall time from each script's go to Python's
    resumption at its end (engine.json, written by the bus driver)."""
    try:
        return float(json.loads((log_dir / "engine.json").read_text())["sim_s"])
    except (OSError, KeyError, ValueError) as exc:
        raise BenchError(f"{log_dir}: no engine split (engine.json): {exc}") from None


def link_engine_floor(spec: BuildSpec, out: Path) -> Path:
    """The floor program for the (built) engine model: regress/bench_engine_idle.cpp linked
    against the cocotb build's objects (the same code and flags)."""
    tools.setup_env("verilator")
    build_dir = BUILD_ROOT / "sim" / spec.key
    objs = sorted(p for p in build_dir.glob("verilated*.o"))
    if not objs or not (build_dir / "Vtop__ALL.a").exists():
        raise BenchError(f"{build_dir}: no Verilated objects to link the engine floor with")
    out.mkdir(parents=True, exist_ok=True)
    exe = out / "engine_idle"
    include = Path(os.environ["VERILATOR_ROOT"]) / "include"
    cmd = [os.environ.get("CXX", "c++"), "-Os", "-std=c++20", f"-I{build_dir}", f"-I{include}",
           f"-I{include / 'vltstd'}", "-DVM_TIMING=0", "-DVM_TRACE=0", "-DVM_COVERAGE=0",
           "-DVM_SC=0", str(ENGINE_IDLE), str(build_dir / "Vtop__ALL.a"), *map(str, objs),
           "-lpthread", "-o", str(exe)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise BenchError(f"engine floor link failed: {(res.stderr or res.stdout).strip()[:200]}")
    return exe


def engine_floor_seconds(exe: Path, cycles: int) -> float:
    """Seconds of `cycles` idle clock cycles of the engine model alone, its clock toggled from
    C++ and no cocotb (link_engine_floor's program)."""
    res = subprocess.run([str(exe), str(cycles), str(2 * half_period_units())],
                         capture_output=True, text=True, timeout=FLOOR_TIMEOUT_S)
    if res.returncode != 0:
        raise BenchError(f"engine floor run failed: {(res.stderr or res.stdout).strip()[:200]}")
    return float(dict(kv.split("=") for kv in res.stdout.split())["seconds"])


def run_module(spec: BuildSpec, design: DesignConfig, module: str, out: Path,
               env: dict[str, str], timeout_s: int, seed: int | None = None) -> None:
    """Run the cocotb test module `module` (not the design's testbench) on the built
    Verilator model of `spec`, in `out` (sim.log, results.xml), with `env` added. WallLimit
    after `timeout_s` of wall time (the simulator is
    killed)."""
    from cocotb_tools.runner import get_runner

    tools.setup_env("verilator")
    out.mkdir(parents=True, exist_ok=True)
    with wall_limit(timeout_s):
        get_runner("verilator").test(
            test_module=module, hdl_toplevel=spec.toplevel(design),
            hdl_toplevel_lang="verilog", build_dir=BUILD_ROOT / "sim" / spec.key,
            test_dir=out, extra_env=env, timescale=TIMESCALE,
            seed=seed, results_xml=str(out / "results.xml"), log_file=out / "sim.log")


def kernel_floor_seconds(spec: BuildSpec, design: DesignConfig, cycles: int, out: Path
                         ) -> float:
    """Seconds of `cycles` idle clock cycles under cocotb on the (built) engine model, with
    Python waiting on one Timer (regress/bench_floor.py)."""
    result = out / "floor.json"
    result.unlink(missing_ok=True)
    try:
        run_module(spec, design, "montverif.regress.bench_floor", out,
                   {"MV_FLOOR_CYCLES": str(cycles), "MV_FLOOR_OUT": str(result)},
                   FLOOR_TIMEOUT_S)
        return float(json.loads(result.read_text())["seconds"])
    except WallLimit:
        raise BenchError(f"simulator floor run on {spec.key} killed after {FLOOR_TIMEOUT_S} s "
                         f"wall time (hung; log {out / 'sim.log'})") from None
    except (OSError, KeyError, ValueError, RuntimeError, SystemExit,
            subprocess.CalledProcessError) as exc:
        raise BenchError(f"simulator floor run on {spec.key} failed: {exc} "
                         f"(log {out / 'sim.log'})") from None


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


def rebuild_seconds(spec: BuildSpec, design: DesignConfig) -> float:
    """A from-scratch build of the testbench model (stamp removed first), with ccache off:
    the figure is a cold compile, not a cache hit (regress/tools.py)."""
    stamp = BUILD_ROOT / "sim" / spec.key / "montverif.stamp"
    if stamp.exists():
        stamp.unlink()
    old = os.environ.get("CCACHE_DISABLE")
    os.environ["CCACHE_DISABLE"] = "1"
    try:
        return build(spec, design)[1]
    finally:
        if old is None:
            del os.environ["CCACHE_DISABLE"]
        else:
            os.environ["CCACHE_DISABLE"] = old


def raw_runner(design: DesignConfig, n: int, params: dict[str, int],
               vectors: list[dict[str, int]], work: Path, point: dict[str, object]
               ) -> Callable[[], tuple[float, float, float]]:
    """The raw harness of a point, built, its results checked once and its loop count set
    (point["raw"]: operations, build time, cycles); returns one timed run: (operations a
    second, ns a cycle working, ns an idle cycle), every result checked against gmpy2."""
    exe, build_s = build_harness(design, n, params)
    script = work / "harness.txt"
    script.write_text(harness_script(design, n, vectors, params))
    secs, cycles, reads, _ = run_harness(exe, script)
    check_harness_reads(design, n, vectors, params, reads)
    loops = max(1, min(1000, int(RAW_MIN_S / max(secs, 1e-6))))  # >= ~0.3 s timed
    point["raw"] = {"ops": len(vectors), "build_s": round(build_s, 2), "cycles": cycles}

    def once() -> tuple[float, float, float]:
        secs, cycles, reads, idle_s = run_harness(exe, script, loops, FLOOR_CYCLES)
        check_harness_reads(design, n, vectors, params, reads)
        return (len(vectors) * loops / secs, secs / cycles * 1e9,
                idle_s / FLOOR_CYCLES * 1e9)
    return once


# --- one design at one width ----------------------------------------------------------------
def bench_point(name: str, n: int, sims: list[str], txns: int, repeat: int,
                icarus_txns: int) -> dict[str, object]:
    design = load_design(name)
    params = get_algo(design.model).resolve(n)
    work = BENCH_BUILD / "vectors" / f"{name}-n{n}"
    work.mkdir(parents=True, exist_ok=True)
    point: dict[str, object] = {"design": name, "n": n, "bus_w": BUS_W, "params": params,
                                "bit_serial": bit_serial(design),
                                "git": tools.git_revision(ROOT)}
    for sim_name in sims:
        count = ops_per_run(name, n, params, sim_name,
                            txns if sim_name == "verilator" else icarus_txns)
        vectors = make_vectors(design, n, count, SEED)
        vfile = work / f"{sim_name}.json"
        write_vector_file(vectors, vfile, name)
        raw_run = raw_runner(design, n, params, vectors, work, point) \
            if sim_name == "verilator" else None
        buses = BUS_MODES if has_engine(name) else ("pins",)
        specs = {bus: BuildSpec(name, n, BUS_W, sim_name, params=tuple(params.items()), bus=bus)
                 for bus in buses}
        build_s = {bus: rebuild_seconds(spec, design) for bus, spec in specs.items()}
        # the runs of a repeat: (label, build); where the engine run gets the scoreboard's
        # checker thread, the same run with the checks inline as well (MV_CHECK_THREAD=0)
        labels = [(bus, spec) for bus, spec in specs.items()]
        if "engine" in specs and inline_variant(specs["engine"]):
            labels.append((INLINE, specs["engine"]))
            point["check_thread"] = {"cores": available_cores()}
        rates: dict[str, list[float]] = {label: [] for label, _ in labels}  # steady
        whole: dict[str, list[float]] = {label: [] for label, _ in labels}  # over the test
        fixed: dict[str, list[float]] = {label: [] for label, _ in labels}  # set-up, report (s)
        shares: list[float] = []
        no_python: list[float] = []
        raw: list[tuple[float, float, float]] = []  # ops/s, ns a cycle working, ns idle
        runs = runs_per_point(name, n, params, sim_name, repeat)
        # side by side: repeat r runs every bus mode and then the raw harness, so a ratio is
        # taken between runs a few seconds apart (the machine's speed drifts over minutes)
        for r in range(max(runs, repeat if raw_run else 0)):
            for bus, spec in labels:
                if r >= runs:
                    break
                run = RunSpec(spec, seed=SEED + r, txns=count, vectors=str(vfile),
                              tests=("VectorTest",), idle_max=0, timeout_s=3600)
                log_dir = work / f"tb-{sim_name}-{bus}-{r}"
                with checks_inline(bus == INLINE):
                    secs = testbench_seconds(run, log_dir)
                steady, fixed_s = steady_rate(log_dir, count, secs)
                rates[bus].append(steady)
                whole[bus].append(count / secs)
                fixed[bus].append(fixed_s)
                if bus == "engine":
                    sim_s = engine_sim_seconds(log_dir)
                    shares.append(sim_s / secs)
                    no_python.append(count / sim_s)
            if raw_run:
                raw.append(raw_run())
        for bus, spec in labels:
            key = sim_name if bus == "pins" else f"{sim_name}_{bus}"
            point[key] = {"ops": count, "runs": len(rates[bus]),
                          "ops_per_s": asdict(Stat.of(rates[bus])),
                          "whole_ops_per_s": asdict(Stat.of(whole[bus])),
                          "fixed_ms": asdict(Stat.of([f * 1e3 for f in fixed[bus]])),
                          "build_s": round(build_s[spec.bus], 2)}
            if bus == "engine" and shares:  # the simulator's share, ops/s without Python
                point[key] |= {"sim_share": asdict(Stat.of(shares)),
                               "no_python_ops_per_s": asdict(Stat.of(no_python))}
            if raw:
                name = "testbench_over_raw" if bus == "pins" else f"{bus}_over_raw"
                for series, suffix in ((rates[bus], ""), (whole[bus], "_whole")):
                    paired = [tb / h[0] for tb, h in zip(series, raw, strict=False)]
                    point.setdefault("paired", {})[  # type: ignore[index]
                        name + suffix] = asdict(Stat.of(paired))
        if raw:
            point["raw"] |= {"ops_per_s": asdict(Stat.of([r[0] for r in raw])),  # type: ignore[operator]
                             "ns_per_cycle": asdict(Stat.of([r[1] for r in raw]))}
            if "engine" in specs:  # the raw harness's idle cycle, beside the engine floor
                point.setdefault("floor", {})["raw_idle_ns"] = asdict(  # type: ignore[index]
                    Stat.of([r[2] for r in raw]))
        if "engine" in specs and sim_name == "verilator":
            spec = specs["engine"]
            floor = [kernel_floor_seconds(spec, design, FLOOR_CYCLES,
                                          work / f"floor-{r}") / FLOOR_CYCLES * 1e9
                     for r in range(repeat)]
            exe = link_engine_floor(spec, work / "engine-floor")
            alone = [engine_floor_seconds(exe, FLOOR_CYCLES) / FLOOR_CYCLES * 1e9
                     for _ in range(repeat)]
            point["floor"] = point.get("floor", {}) | {  # type: ignore[operator]
                "cycles": FLOOR_CYCLES, "cocotb_ns": asdict(Stat.of(floor)),
                "engine_build_ns": asdict(Stat.of(alone)), "engine": ENGINE_BUILD}
    return point


INLINE = "engine_inline"  # the engine run with the scoreboard's checks in the main thread


def inline_variant(spec: BuildSpec) -> bool:
    """Whether the engine runs of this build get the checker thread here (regress/sim.py's
    check_thread), so that the bench measures them with the checks inline as well."""
    return check_thread(RunSpec(spec))


@contextmanager
def checks_inline(on: bool) -> Iterator[None]:
    """MV_CHECK_THREAD=0 for the runs inside (on=True); the caller's setting otherwise."""
    if not on:
        yield
        return
    before = os.environ.get("MV_CHECK_THREAD")
    os.environ["MV_CHECK_THREAD"] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["MV_CHECK_THREAD"]
        else:
            os.environ["MV_CHECK_THREAD"] = before


SERIES = ("verilator", "verilator_engine", "verilator_engine_inline", "icarus",
          "icarus_engine", "raw")


def merge_points(old: list[dict[str, object]], new: list[dict[str, object]]
                 ) -> list[dict[str, object]]:
    """--merge: the old points this run did not measure, and the new ones; a new point keeps
    the old point's series of a simulator this run left out (e.g. Icarus under --sims
    verilator), each such series marked with the git revision it was measured at."""
    by_key: dict[tuple[object, object], dict] = {(p["design"], p["n"]): p for p in old}
    for p in new:
        prev = by_key.pop((p["design"], p["n"]), None)
        if prev is None or "error" in p or "error" in prev:
            continue
        for key in SERIES:
            if key in prev and key not in p:
                p[key] = {**prev[key], "git": prev[key].get("git", prev.get("git"))}
    return sorted([*by_key.values(), *new], key=lambda p: (p["design"], p["n"]))


def git_cell(p: dict) -> str:
    """The point's git revision, and that of any series kept from an earlier run."""
    own = str(p.get("git", "–"))[:7]
    kept = [f"{key}: {str(p[key]['git'])[:7]}" for key in SERIES
            if key in p and p[key].get("git", p.get("git")) != p.get("git")]
    return own + (f" ({', '.join(kept)})" if kept else "")


def ratios(point: dict[str, object]) -> dict[str, float]:
    """A point's ratios: against the raw harness the median of each repeat's ratio (runs side
    by side, `paired`), else (points measured before pairing) the ratio of the medians."""
    out = {}
    med = {k: point[k]["ops_per_s"]["median"] for k in SERIES if k in point}  # type: ignore[index]
    paired: dict[str, dict[str, float]] = point.get("paired", {})  # type: ignore[assignment]
    for key, series in (("testbench_over_raw", "verilator"),
                        ("engine_over_raw", "verilator_engine"),
                        ("engine_inline_over_raw", "verilator_engine_inline")):
        if key in paired:
            out[key] = paired[key]["median"]
        elif series in med and "raw" in med:
            out[key] = med[series] / med["raw"]
    if "verilator" in med and "icarus" in med:
        out["verilator_over_icarus"] = med["verilator"] / med["icarus"]
    return out


# --- cycles against the papers --------------------------------------------------------------
def cycle_table(names: list[str], widths: list[int]) -> list[dict[str, object]]:
    """Model cycle counts (the scoreboard checks the DUT's counter against them in every
    operation) beside each paper's formula."""
    rows = []
    for name in names:
        design = load_design(name)
        algo = get_algo(design.model)
        paper = str(design.paper.get("cycles", ""))
        for n in widths:
            if not design.min_n <= n <= design.max_n:
                continue
            params = algo.resolve(n)
            vec = make_vectors(design, n, 1, SEED)[0]
            measured = algo.model(params)(*[vec[r] for r in design.design.operands], n).cycles
            ref = formula(paper, n, params) if paper else None
            rows.append({"design": name, "n": n, "params": params, "cycles": measured,
                         "paper": ref, "ratio": (measured / ref) if ref else None})
    return rows


# --- regression wall time -------------------------------------------------------------------
def regression_wall(list_name: str, jobs: list[int]) -> dict[str, object]:
    """Wall time of a list at each job count, each from the same fresh state: no model built
    (build/sim removed) and an empty compiler cache, as on a new machine; otherwise the
    second measurement would reuse the first one's models. Each result names the git revision
    it was measured at, as wall times taken from a finished regression do."""
    out: dict[str, object] = {}
    rev = tools.git_revision(ROOT)
    for j in jobs:
        folder = BENCH_BUILD / "regress" / f"{list_name}-j{j}"
        if folder.exists():
            shutil.rmtree(folder)
        shutil.rmtree(BUILD_ROOT / "sim", ignore_errors=True)
        cache = BENCH_BUILD / "ccache-wall"
        shutil.rmtree(cache, ignore_errors=True)
        t0 = time.monotonic()
        res = subprocess.run([sys.executable, "-m", "montverif.regress.cli", "regress",
                              "--list", list_name, "--jobs", str(j), "--out", str(folder)],
                             cwd=ROOT, capture_output=True, text=True,
                             env=os.environ | {"CCACHE_DIR": str(cache)})
        wall = time.monotonic() - t0
        if (folder / "summary.json").exists():  # runs, campaigns and models counted apart
            last = str(wall_from_results(folder)[str(j)]["last_line"])
        else:
            last = f"{(res.stdout.strip().splitlines() or [''])[-1]} (git {rev})"
        out[str(j)] = {"wall_s": round(wall, 1), "exit": res.returncode, "last_line": last}
    return with_efficiency(out)


def wall_revision(wall: dict[str, object]) -> str:
    """The git revision a wall time was measured at, as its result line names it ("" when
    it does not)."""
    found = re.search(r"\bgit ([0-9a-f]{7,40})\b", str(wall.get("last_line", "")))
    return found.group(1)[:7] if found else ""


def with_efficiency(walls: dict[str, object]) -> dict[str, object]:
    """A list's wall times, with the parallel efficiency when both 1 and 2 jobs are there
    and were measured at the same git revision (wall(1 job) / (2 x wall(2 jobs)); each
    figure's row names where it came from). Times of different revisions are not compared:
    the list and the testbench may have changed between them."""
    walls.pop("parallel_efficiency", None)
    one, two = walls.get("1"), walls.get("2")
    if isinstance(one, dict) and isinstance(two, dict) and wall_revision(one) \
            and wall_revision(one) == wall_revision(two):
        walls["parallel_efficiency"] = one["wall_s"] / (2 * two["wall_s"])
    return walls


# --- where a run's time goes ------------------------------------------------------------------
PROFILE_GROUPS = (("models", "/models/"), ("verif", "/verif/"), ("pyuvm", "/pyuvm/"),
                  ("cocotb_coverage", "/cocotb_coverage/"), ("cocotb", "/cocotb/"))


def profile_point(name: str, n: int, bus: str, txns: int, out: Path) -> str:
    """One VectorTest on Verilator under cProfile (cocotb's COCOTB_ENABLE_PROFILING): the
    test's time, the Python time by package (models, verif, pyuvm, cocotb, ...) and the
    functions with the most time of their own. Python's share is inflated by the profiler;
    compare packages with each other, and runs with runs."""
    import pstats

    design = load_design(name)
    params = get_algo(design.model).resolve(n)
    vectors = make_vectors(design, n, txns, SEED)
    out.mkdir(parents=True, exist_ok=True)
    vfile = out / "vectors.json"
    write_vector_file(vectors, vfile, name)
    spec = BuildSpec(name, n, BUS_W, "verilator", params=tuple(params.items()), bus=bus)
    run = RunSpec(spec, seed=SEED, txns=txns, vectors=str(vfile), tests=("VectorTest",),
                  idle_max=0, timeout_s=3600)
    os.environ["MV_PROFILE"] = "1"
    try:
        secs = testbench_seconds(run, out / "run")
    finally:
        del os.environ["MV_PROFILE"]
    stats = pstats.Stats(str(out / "run" / "cocotb.pstat"))
    table = stats.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in table.values())
    groups: dict[str, float] = {}
    for (path, _, _), v in table.items():
        group = next((g for g, part in PROFILE_GROUPS if part in path), "other")
        groups[group] = groups.get(group, 0.0) + v[2]
    lines = [f"{name} N={n} BusW={BUS_W} bus={bus}: {txns} operations, test {secs:.3f} s, "
             f"Python {total:.3f} s under the profiler ({total / txns * 1e3:.2f} ms an "
             "operation)", "", "time of its own by package:"]
    lines += [f"  {g:16s} {t:7.3f} s  {t / total:5.1%}"
              for g, t in sorted(groups.items(), key=lambda kv: -kv[1])]
    lines += ["", "functions with the most time of their own:"]
    top = sorted(table.items(), key=lambda kv: -kv[1][2])[:15]
    for (path, line, func), v in top:
        short = "/".join(Path(path).parts[-2:])
        lines.append(f"  {v[2]:7.3f} s {v[1]:7d} calls  {short}:{line}({func})")
    return "\n".join(lines)


# --- outputs --------------------------------------------------------------------------------
SERIES_RUNS = ("verilator", "verilator_engine", "icarus", "icarus_engine", "raw")


def series_runs(series: dict[str, object]) -> int | None:
    """How many runs a series' figure is the median of (older results only kept their
    samples; None: not recorded)."""
    runs = series.get("runs")
    if isinstance(runs, int):
        return runs
    return len(series["ops_per_s"].get("samples", [])) or None  # type: ignore[union-attr]


def runs_sentence(results: dict[str, object]) -> str:
    """What each figure is the median of: a --merge keeps points measured with another
    --repeat, so the run counts are read from the points themselves."""
    counts = sorted({series_runs(p[k]) for p in results["points"]  # type: ignore[union-attr]
                     for k in SERIES_RUNS if k in p} - {1, None})  # type: ignore[operator]
    many = " or ".join(map(str, counts)) if counts else str(results["repeat"])
    return (f"Each figure is the median of {many} runs (min–max in brackets; each point "
            "names the revision it was measured at, whose run used one --repeat), or of one "
            "run where a single operation is over the simulator's cycle budget (*one run*)")


def render_md(results: dict[str, object]) -> str:
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`montverif bench`); do not edit by hand. "
             f"Machine: {results['machine']}. {runs_sentence(results)}; operations per "
             "second of simulation with every result checked, in the steady state: the "
             "checks after the first publication of the bus traffic that completed an "
             "operation (in engine mode a script's four), over the time from its end to the "
             "last check, as the raw harness's figure is its timed loop without its own "
             "set-up. A run's set-up (the pyuvm environment, "
             "reset) and report (final checks, coverage files) are its *set-up and report* "
             "column; a point without that column predates this and is over the test's whole "
             "time. A ratio against the raw harness is the median of each repeat's ratio, the "
             "testbench and the harness run one after the other (min–max in brackets; a "
             "point without brackets predates this and is the ratio of the medians).", "",
             "## Throughput", "",
             "*pins*: Python drives the bus pins; *engine*: the simulation-only HDL bus "
             "engine performs each operation's transfers as one script and makes the clock "
             "(BUS=engine), Python checks the same transfers.",
             "",
             "| design | N | testbench, Verilator, pins | Verilator, engine | raw C++ harness | "
             "pins / raw | engine / raw | engine / raw, checks inline | "
             "set-up and report, engine (ms) | Icarus, pins | "
             "Icarus, engine | Verilator / Icarus (pins) | Verilator build (s) | "
             "ops a run (V / I) | git |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def fmt(p: dict[str, object], key: str) -> str:
        if key not in p:
            return "–"
        s = p[key]["ops_per_s"]  # type: ignore[index]
        if series_runs(p[key]) == 1 < int(results["repeat"]):  # type: ignore[arg-type]
            return f"{s['median']:.1f} (one run)"  # an operation over the cycle budget
        return f"{s['median']:.1f} ({s['low']:.1f}–{s['high']:.1f})"

    for p in results["points"]:  # type: ignore[union-attr]
        if "error" in p:
            lines.append(f"| {p['design']} | {p['n']} | error: {p['error']} |" + " |" * 12)
            continue
        r = ratios(p)

        def ratio(key: str, digits: int = 2, r: dict[str, float] = r,
                  p: dict[str, object] = p) -> str:
            if key not in r:
                return "–"
            if pair := p.get("paired", {}).get(key):  # type: ignore[union-attr]
                return f"{r[key]:.{digits}f} ({pair['low']:.{digits}f}–{pair['high']:.{digits}f})"
            return f"{r[key]:.{digits}f}"

        build_s = p.get("verilator", {}).get("build_s", "–")  # type: ignore[union-attr]
        fixed = p.get("verilator_engine", {}).get("fixed_ms")  # type: ignore[union-attr]
        fixed_cell = f"{fixed['median']:.1f}" if fixed else "–"
        lines.append(f"| {p['design']} | {p['n']} | {fmt(p, 'verilator')} | "
                     f"{fmt(p, 'verilator_engine')} | {fmt(p, 'raw')} | "
                     f"{ratio('testbench_over_raw')} | {ratio('engine_over_raw')} | "
                     f"{ratio('engine_inline_over_raw')} | {fixed_cell} | {fmt(p, 'icarus')} | "
                     f"{fmt(p, 'icarus_engine')} | "
                     f"{ratio('verilator_over_icarus', 1)} | {build_s} | "
                     f"{p.get('verilator', {}).get('ops', '–')} / "  # type: ignore[union-attr]
                     f"{p.get('icarus', {}).get('ops', '–')} | "  # type: ignore[union-attr]
                     f"{git_cell(p)} |")
    goal_points = [p for p in results["points"]  # type: ignore[union-attr]
                   if p["n"] == GOAL_N and p.get("bit_serial")]
    goal = [(p["design"], ratios(p).get("engine_over_raw")) for p in goal_points]
    if goal:
        met = [d for d, r in goal if r is not None and r >= GOAL_RATIO]
        lines += ["", f"Goal: every bit-serial design at N = {GOAL_N} at least "
                  f"{GOAL_RATIO:.0%} of the raw harness in engine mode. Met by {len(met)} of "
                  f"{len(goal)}" + ("; not met: " + ", ".join(
                      f"{d} ({r:.3f})" if r is not None and round(r, 2) >= GOAL_RATIO
                      else f"{d} ({r:.2f})" if r is not None else f"{d} (not measured)"
                      for d, r in goal if d not in met) if len(met) < len(goal) else "") + "."]
        whole = [(p["design"], p.get("paired", {}).get("engine_over_raw_whole"))
                 for p in goal_points]
        if all(w is not None for _, w in whole):  # every goal point has the whole-test ratio
            lines[-1] += (" Over the test's whole time (with its set-up and report): met by "
                          f"{sum(w['median'] >= GOAL_RATIO for _, w in whole)} of "  # type: ignore[index]
                          f"{len(whole)}; " + ", ".join(
                              f"{d} {w['median']:.2f}" for d, w in whole) + ".")  # type: ignore[index]
        inline = [(p["design"], ratios(p).get("engine_inline_over_raw")) for p in goal_points]
        if all(r is not None for _, r in inline):  # every goal point ran with a checker thread
            cores = {p["check_thread"]["cores"] for p in goal_points}  # type: ignore[index]
            lines[-1] += (
                f" The engine runs check on a worker thread while the model runs (a spare core: "
                f"{'/'.join(map(str, sorted(cores)))} here, one simulation at a time); with the "
                "checks inline, as on one core or in a regression running a simulation per "
                f"core: met by {sum(r >= GOAL_RATIO for _, r in inline)} of "  # type: ignore[operator]
                f"{len(inline)}; " + ", ".join(f"{d} {r:.2f}" for d, r in inline) + ".")
    lines += floor_section(results["points"])  # type: ignore[arg-type]
    lines += ["", "## Cycles against the papers", "",
              "Each row evaluates the formula its paper states; the formula, the source and why "
              "a count differs from it (the design's configuration, or a figure the paper "
              "gives for one width only) are in [docs/cycles.md](../cycles.md) and the "
              "design's `[paper]` table.", "",
              "| design | N | cycles | paper | ratio |", "|---|---|---|---|---|"]
    for row in results["cycles"]:  # type: ignore[union-attr]
        paper = f"{row['paper']:g}" if row["paper"] else "–"
        ratio = f"{row['ratio']:.3f}" if row["ratio"] else "–"
        lines.append(f"| {row['design']} | {row['n']} | {row['cycles']} | {paper} | {ratio} |")
    if results.get("regressions"):
        lines += ["", "## Regression wall time", "",
                  "Each measurement starts from a fresh state: no model built and an empty "
                  "compiler cache (builds included, as on a new machine); parallel efficiency "
                  "= wall(1 job) / (2 x wall(2 jobs)).", "",
                  "| list | jobs | wall (s) | result |", "|---|---|---|---|"]
        for name, res in results["regressions"].items():  # type: ignore[union-attr]
            for j, r in res.items():
                if j != "parallel_efficiency":
                    lines.append(f"| {name} | {j} | {r['wall_s']} | {r['last_line']} |")
            if "parallel_efficiency" in res:
                lines.append(f"| {name} | efficiency | {res['parallel_efficiency']:.2f} | |")
    return "\n".join(lines) + "\n"


def floor_section(points: list[dict[str, object]]) -> list[str]:
    """Where an engine run's time goes: the simulator's share (the rest is Python), the
    engine's speed if Python took no time, and the simulator's own cost of an idle clock
    cycle under cocotb beside the raw harness's."""
    rows = [p for p in points if "floor" in p and "sim_share" in p.get("verilator_engine", {})]
    if not rows:
        return []

    def med(p: dict[str, object], *keys: str) -> float:
        value: object = p
        for k in keys:
            value = value[k]  # type: ignore[index]
        return float(value["median"])  # type: ignore[index]

    lines = ["", "## What bounds the engine mode", "",
             "*simulator share*: the part of an engine run spent in the simulator (from each "
             "script's go to Python's resumption at its end; the rest is Python: models, "
             "checks, coverage, pyuvm); *without Python*: operations per second of that "
             "simulator time alone, the engine mode's ceiling with cocotb's callbacks. "
             f"*ns / cycle*: {FLOOR_CYCLES:,} cycles with the design idle: in the raw harness "
             "(the design's own evaluation, the clock toggled from C++); in the engine build "
             "alone (*engine build*: the design, the bus engine and the wrapper, the clock "
             "toggled from C++, no cocotb); and under cocotb with Python waiting on one Timer "
             "(*cocotb*: the same build in the engine's main loop, with cocotb's VPI "
             "callbacks); *raw, working*: the raw harness's timed loop per cycle. "
             "*engine*: the engine build the point was measured on: "
             + "; ".join(f"*{k}*: {v}" for k, v in ENGINE_BUILDS.items()) + ".", "",
             "| design | N | engine (ops/s) | simulator share | without Python (ops/s) | "
             "without Python / raw | raw ns / cycle, working | idle ns / cycle: raw | "
             "engine build | cocotb | cocotb / raw, idle | engine |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    overheads: dict[str, list[float]] = {}
    for p in rows:
        cocotb_ns, idle_ns = med(p, "floor", "cocotb_ns"), med(p, "floor", "raw_idle_ns")
        floor: dict[str, object] = p["floor"]  # type: ignore[assignment]
        alone_key = next((k for k in ("engine_build_ns", "timing_ns") if k in floor), None)
        alone = f"{med(p, 'floor', alone_key):.0f}" if alone_key else "–"
        clock = str(floor.get("engine", "main loop, wide ports" if "engine_build_ns" in floor
                              else "hdl clock"))
        overheads.setdefault(clock, []).append(cocotb_ns / idle_ns)
        no_py = med(p, "verilator_engine", "no_python_ops_per_s")
        lines.append(
            f"| {p['design']} | {p['n']} | {med(p, 'verilator_engine', 'ops_per_s'):.1f} | "
            f"{med(p, 'verilator_engine', 'sim_share'):.2f} | {no_py:.1f} | "
            f"{no_py / med(p, 'raw', 'ops_per_s'):.2f} | {med(p, 'raw', 'ns_per_cycle'):.0f} | "
            f"{idle_ns:.0f} | {alone} | {cocotb_ns:.0f} | {cocotb_ns / idle_ns:.1f} | {clock} |")
    kinds = [k for k in ENGINE_BUILDS if k in overheads]  # newest last
    lines += ["", "An idle clock cycle under cocotb costs, against the raw harness (median over "
              "the rows of each engine build): " + "; ".join(
                  f"{statistics.median(overheads[k]):.1f} times on *{k}* "
                  f"({len(overheads[k])} row{'s' * (len(overheads[k]) > 1)})"
                  for k in reversed(kinds)) + "."]
    return lines


def plot(results: dict[str, object], out: Path) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise BenchError("matplotlib is not installed; run `make setup`") from exc
    points = results["points"]  # type: ignore[assignment]
    labels = [f"{p['design']}\nn={p['n']}" for p in points]  # type: ignore[index]
    fig, ax = plt.subplots(figsize=(max(6, len(labels) * 0.9), 4))
    series = {"raw": "raw C++ harness", "verilator_engine": "Verilator, engine",
              "verilator": "Verilator, pins", "icarus_engine": "Icarus, engine",
              "icarus": "Icarus, pins"}
    width = 0.8 / len(series)
    for i, (key, label) in enumerate(series.items()):
        vals = [p[key]["ops_per_s"]["median"] if key in p else 0 for p in points]  # type: ignore[index]
        ax.bar([x + (i - len(series) / 2 + 0.5) * width for x in range(len(labels))], vals,
               width, label=label)
    ax.set_yscale("log")
    ax.set_ylabel("checked operations / s")
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "throughput.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="montverif bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--designs", default="all", help="comma-separated, or all")
    ap.add_argument("--widths", default="256,1024")
    ap.add_argument("--sims", default="verilator,icarus")
    ap.add_argument("--txns", type=int, default=200,
                    help="most operations per Verilator run (steady state, as the raw "
                         "harness's timed loop)")
    ap.add_argument("--icarus-txns", type=int, default=3, help="operations per Icarus run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lists", default="", help="regression lists to time, e.g. smoke")
    ap.add_argument("--jobs", default="1,2", help="parallel jobs for the regression timing")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--wall-from", default="",
                    help="LIST=DIR[,LIST=DIR]: take a list's wall time from a regression "
                         "already run (its summary.json), e.g. a nightly that takes an hour")
    ap.add_argument("--update", action="store_true",
                    help="keep results.json's throughput and cycle figures; only add the "
                         "regression wall times of --lists / --wall-from")
    ap.add_argument("--merge", action="store_true",
                    help="keep results.json's points that this run does not measure again "
                         "(each point names the git revision it was measured at)")
    ap.add_argument("--profile", default="", metavar="DESIGN:N[:BUS]",
                    help="instead of the benchmarks: where one run's time goes (cProfile of "
                         "a --txns VectorTest on Verilator, bus engine by default)")
    args = ap.parse_args(argv)
    try:
        if args.profile:
            name, _, rest = args.profile.partition(":")
            width, _, bus = rest.partition(":")
            load_design(name)
            if not width.isdigit() or (bus or "engine") not in BUS_MODES:
                raise ConfigError(f"--profile expects DESIGN:N[:pins|engine], got "
                                  f"{args.profile!r}")
            print(profile_point(name, int(width), bus or "engine", args.txns,
                                BENCH_BUILD / "profile" / f"{name}-n{width}"))
            return 0
        names = known_designs() if args.designs == "all" else args.designs.split(",")
        for name in names:
            load_design(name)
        widths = [int(w) for w in args.widths.split(",")]
        sims = [s for s in args.sims.split(",") if s]
        if unknown := [s for s in sims if s not in tools.SIMULATORS]:
            raise ConfigError(f"unknown simulator(s) {', '.join(unknown)}")
        if args.repeat < 1 or args.txns < 1 or args.icarus_txns < 1:
            raise ConfigError("--repeat, --txns and --icarus-txns must be at least 1")
        jobs = [int(j) for j in args.jobs.split(",")]
        walls: dict[str, dict[str, object]] = {}
        for name, folder in (_pair(item) for item in args.wall_from.split(",") if item):
            walls[name] = walls.get(name, {}) | wall_from_results(Path(folder))  # 1 and 2 jobs
        if args.update:
            results = json.loads((args.out / "results.json").read_text())
            regs = results.setdefault("regressions", {})
            for name in (n for n in args.lists.split(",") if n):
                regs[name] = regression_wall(name, jobs)
            for name, wall in walls.items():
                regs[name] = with_efficiency(regs.get(name, {}) | wall)
            _write(results, args.out)
            return 0
        points = []
        for name in names:
            for n in widths:
                design = load_design(name)
                if not design.min_n <= n <= design.max_n:
                    continue
                print(f"bench {name} n={n} ...", flush=True)
                try:
                    points.append(bench_point(name, n, sims, args.txns, args.repeat,
                                              args.icarus_txns))
                except (BenchError, ConfigError, tools.ToolError, ValueError) as exc:
                    # one point that cannot run does not lose the others' measurements
                    error = " ".join(str(exc).split())[:300]
                    points.append({"design": name, "n": n, "error": error,
                                   "git": tools.git_revision(ROOT)})
                    print(f"  error: {error}", flush=True)
                    continue
                r = ratios(points[-1])
                print("  " + ", ".join(f"{k}={v:.2f}" for k, v in r.items()), flush=True)
        old = args.out / "results.json"
        if args.merge and old.exists():
            points = merge_points(json.loads(old.read_text())["points"], points)
            names = sorted({str(p["design"]) for p in points})
        results: dict[str, object] = {
            "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
                       f"{len(__import__('os').sched_getaffinity(0))} cores",
            "versions": tools.versions(), "git": tools.git_revision(ROOT),
            "repeat": args.repeat, "bus_w": BUS_W, "points": points,
            "cycles": cycle_table(names, sorted({32, 97, 256, 1024, 2048} | set(widths))),
            "regressions": {name: regression_wall(name, jobs)
                            for name in args.lists.split(",") if name},
        }
        if old.exists():  # wall times this run did not measure are kept as they were
            kept = json.loads(old.read_text()).get("regressions", {})
            for name, wall in kept.items():
                results["regressions"].setdefault(name, wall)  # type: ignore[union-attr]
        regs_out: dict[str, dict[str, object]] = results["regressions"]  # type: ignore[assignment]
        for name, wall in walls.items():
            regs_out[name] = with_efficiency(regs_out.get(name, {}) | wall)
        _write(results, args.out)
        if failed := [p for p in points if "error" in p]:
            print(f"error: {len(failed)} point(s) could not be measured (see results.md)",
                  file=sys.stderr)
            return 1
    except (ConfigError, BenchError, tools.ToolError, ValueError, OSError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


def _pair(item: str) -> tuple[str, str]:
    name, sep, folder = item.partition("=")
    if not sep or not name or not folder:
        raise ConfigError(f"--wall-from expects LIST=DIR (got {item!r})")
    return name, folder


def wall_from_results(folder: Path) -> dict[str, object]:
    """A regression already run (summary.json): its wall time at its job count, with where it
    came from (a measurement of its own, not repeated here)."""
    path = folder / "summary.json"
    try:
        s = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BenchError(f"cannot read {path}: {exc}") from None
    if s.get("shard"):
        raise BenchError(f"{path} is one shard ({s['shard']}), not a whole list")
    failed = s.get("failed", 0)
    campaigns = list((s.get("mutation") or {}).values())
    bad = [c for c in campaigns if c.get("status") != "passed"]
    parts = ([f"{s['passed']} passed, {failed} failed"] if s["passed"] or failed or not campaigns
             else [])
    if campaigns:  # a list's mutation campaigns (a list of campaigns alone has no runs)
        parts.append(f"{len(campaigns)} mutation campaigns, {len(campaigns) - len(bad)} passed")
    builds = s.get("builds", [])
    source = (f"{len(builds)} models; " if builds or not campaigns else "") + (
        f"from {folder.name}, git {str(s.get('git', ''))[:7]}")
    return {str(s["jobs"]): {"wall_s": round(float(s["wall_s"]), 1),
                             "exit": int(failed > 0 or bool(bad)),
                             "last_line": f"{'; '.join(parts)} ({source})"}}


def _write(results: dict[str, object], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "results.md").write_text(render_md(results))
    written = plot(results, out)
    for path in [out / "results.json", out / "results.md", *written]:
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


if __name__ == "__main__":
    sys.exit(main())
