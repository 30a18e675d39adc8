"""Where one run's time goes: cProfile of a VectorTest, Python time by package."""

from __future__ import annotations

import pstats
from pathlib import Path

from montverif.host import environment
from montverif.models.registry import get_algo
from montverif.regress.bench.common import BUS_W, SEED, make_vectors, write_vector_file
from montverif.regress.bench.points import testbench_seconds
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec.designs import load_design

PROFILE_GROUPS = (("models", "/models/"), ("verif", "/verif/"), ("pyuvm", "/pyuvm/"),
                  ("cocotb_coverage", "/cocotb_coverage/"), ("cocotb", "/cocotb/"))


def profile_point(name: str, n: int, bus: str, txns: int, out: Path) -> str:
    """One VectorTest on Verilator under cProfile (cocotb's COCOTB_ENABLE_PROFILING): the
    test's time, the Python time by package (models, verif, pyuvm, cocotb, ...) and the
    functions with the most time of their own. Python's share is inflated by the profiler;
    compare packages with each other, and runs with runs."""
    design = load_design(name)
    params = get_algo(design.model).resolve(n)
    vectors = make_vectors(design, n, txns, SEED)
    out.mkdir(parents=True, exist_ok=True)
    vfile = out / "vectors.json"
    write_vector_file(vectors, vfile, name)
    spec = BuildSpec(name, n, BUS_W, "verilator", params=tuple(params.items()), bus=bus)
    run = RunSpec(spec, seed=SEED, txns=txns, vectors=str(vfile), tests=("VectorTest",),
                  idle_max=0, timeout_s=3600)
    with environment.PROFILE.set_to("1"):
        secs = testbench_seconds(run, out / "run")
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
