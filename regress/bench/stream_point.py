"""One streaming design at one width: the streaming testbench (VectorFullRateTest: the
vectors at one operation a clock, nothing held, every result checked against the model and
gmpy2, its latency and interval too) beside the raw harness of the core alone
(regress/bench/stream_harness.cpp) on the same operations, side by side, repeated."""

from __future__ import annotations

from dataclasses import asdict

from montverif.host import tools
from montverif.host.paths import ROOT
from montverif.models.registry import get_algo
from montverif.regress.bench.common import (
    BUS_W,
    SEED,
    Record,
    Stat,
    bench_build,
    make_vectors,
    scratch,
    write_vector_file,
)
from montverif.regress.bench.points import checks_inline, steady_rate, testbench_seconds
from montverif.regress.bench.stream_harness import StreamRun, raw_stream_runner
from montverif.regress.flow.build import build
from montverif.regress.flow.simulate import available_cores
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec.designs import load_design

TEST = "VectorFullRateTest"


def bench_stream_point(name: str, n: int, count: int, repeat: int) -> Record:
    """`count` operations through the testbench and through the raw harness, `repeat`
    times each, one after the other: throughput, the paired ratio, cycles per operation."""
    design = load_design(name)
    params = get_algo(design.model).resolve(n)
    work = scratch(bench_build() / "vectors" / f"{name}-n{n}")
    vectors = make_vectors(design, n, count, SEED)
    vfile = work / "stream.json"
    write_vector_file(vectors, vfile, name)
    ops = [(v[design.operands[0]], v[design.operands[1]], v[design.modulus]) for v in vectors]
    raw_run, raw_record = raw_stream_runner(design, n, params, ops, work)
    spec = BuildSpec(name, n, BUS_W, "verilator", params=tuple(params.items()))
    build(spec, design)
    # each repeat: the testbench as the run decides (its checks on a worker thread with a
    # spare core), the same with the checks inline (one core, or a regression running a
    # simulation per core), then the raw harness
    labels = ("verilator_stream", "verilator_stream_inline")
    steady: dict[str, list[float]] = {label: [] for label in labels}
    whole: dict[str, list[float]] = {label: [] for label in labels}
    fixed: dict[str, list[float]] = {label: [] for label in labels}
    raw: list[StreamRun] = []
    for r in range(repeat):
        for label in labels:
            run = RunSpec(spec, seed=SEED + r, txns=count, vectors=str(vfile), tests=(TEST,),
                          idle_max=0, timeout_s=3600)
            log_dir = work / f"tb-stream-{label}-{r}"
            with checks_inline(label.endswith("_inline")):
                secs = testbench_seconds(run, log_dir)
            rate, fixed_s = steady_rate(log_dir, count, secs)
            steady[label].append(rate)
            whole[label].append(count / secs)
            fixed[label].append(fixed_s)
        raw.append(raw_run())
    raw_rates = [h.ops / h.seconds for h in raw]
    point: Record = {
        "design": name, "n": n, "params": params, "stream": True,
        "git": tools.git_revision(ROOT), "check_thread": {"cores": available_cores()},
        "raw_stream": raw_record | {
            "ops_per_s": asdict(Stat.of(raw_rates)),
            "ns_per_cycle": asdict(Stat.of([h.seconds / h.cycles * 1e9 for h in raw])),
            "cycles_per_op": round(raw[0].cycles / raw[0].ops, 4)},
        "paired": {}}
    for label in labels:
        point[label] = {"ops": count, "runs": repeat, "test": TEST,
                        "ops_per_s": asdict(Stat.of(steady[label])),
                        "whole_ops_per_s": asdict(Stat.of(whole[label])),
                        "fixed_ms": asdict(Stat.of([f * 1e3 for f in fixed[label]]))}
        ratio = label.replace("verilator_stream", "stream") + "_over_raw"
        for series, suffix in ((steady[label], ""), (whole[label], "_whole")):
            point["paired"][ratio + suffix] = asdict(Stat.of(
                [t / h for t, h in zip(series, raw_rates, strict=True)]))
    return point
