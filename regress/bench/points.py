"""One design at one width: the testbench on every simulator and bus mode beside the raw
harness, side by side, repeated; the engine's simulator share and floors."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from montverif.host import environment, tools
from montverif.host.paths import ROOT, sim_builds
from montverif.models.registry import get_algo
from montverif.regress.bench.common import (
    BUS_W,
    ENGINE_BUILD,
    FLOOR_CYCLES,
    SEED,
    BenchError,
    Record,
    Stat,
    bench_build,
    bit_serial,
    make_vectors,
    ops_per_run,
    runs_per_point,
    scratch,
    write_vector_file,
)
from montverif.regress.bench.floors import (
    engine_floor_seconds,
    kernel_floor_seconds,
    link_engine_floor,
)
from montverif.regress.bench.harness import raw_runner
from montverif.regress.flow.build import build
from montverif.regress.flow.simulate import available_cores, check_thread, execute
from montverif.regress.flow.spec import BUS_MODES, BuildSpec, RunSpec, has_engine
from montverif.spec.design import Design
from montverif.spec.designs import load_design


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


def rebuild_seconds(spec: BuildSpec, design: Design) -> float:
    """A from-scratch build of the testbench model (stamp removed first), with ccache off:
    the figure is a cold compile, not a cache hit (regress/host/tools.py)."""
    stamp = sim_builds() / spec.key / "montverif.stamp"
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


def bench_point(name: str, n: int, sims: list[str], txns: int, repeat: int,
                icarus_txns: int) -> Record:
    design = load_design(name)
    params = get_algo(design.model).resolve(n)
    work = scratch(bench_build() / "vectors" / f"{name}-n{n}")
    point: Record = {"design": name, "n": n, "bus_w": BUS_W, "params": params,
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
                ratio = "testbench_over_raw" if bus == "pins" else f"{bus}_over_raw"
                for series, suffix in ((rates[bus], ""), (whole[bus], "_whole")):
                    paired = [tb / h[0] for tb, h in zip(series, raw, strict=False)]
                    point.setdefault("paired", {})[
                        ratio + suffix] = asdict(Stat.of(paired))
        if raw:
            point["raw"] |= {"ops_per_s": asdict(Stat.of([r[0] for r in raw])),
                             "ns_per_cycle": asdict(Stat.of([r[1] for r in raw]))}
            if "engine" in specs:  # the raw harness's idle cycle, beside the engine floor
                point.setdefault("floor", {})["raw_idle_ns"] = asdict(
                    Stat.of([r[2] for r in raw]))
        if "engine" in specs and sim_name == "verilator":
            spec = specs["engine"]
            floor = [kernel_floor_seconds(spec, design, FLOOR_CYCLES,
                                          work / f"floor-{r}") / FLOOR_CYCLES * 1e9
                     for r in range(repeat)]
            exe = link_engine_floor(spec, work / "engine-floor")
            alone = [engine_floor_seconds(exe, FLOOR_CYCLES) / FLOOR_CYCLES * 1e9
                     for _ in range(repeat)]
            point["floor"] = point.get("floor", {}) | {
                "cycles": FLOOR_CYCLES, "cocotb_ns": asdict(Stat.of(floor)),
                "engine_build_ns": asdict(Stat.of(alone)), "engine": ENGINE_BUILD}
    return point


INLINE = "engine_inline"  # the engine run with the scoreboard's checks in the main thread


def inline_variant(spec: BuildSpec) -> bool:
    """Whether the engine runs of this build get the checker thread here (regress/flow/simulate.py's
    check_thread), so that the bench measures them with the checks inline as well."""
    return check_thread(RunSpec(spec))


@contextmanager
def checks_inline(on: bool) -> Iterator[None]:
    """MV_CHECK_THREAD=0 for the runs inside (on=True); the caller's setting otherwise."""
    if not on:
        yield
        return
    with environment.CHECK_THREAD.set_to("0"):
        yield
