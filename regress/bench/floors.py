"""The simulator's floor: idle clock cycles of the engine model alone (C++, no cocotb) and
under cocotb with Python waiting on one Timer (floor_probe.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import sim_builds
from montverif.regress.bench.common import (
    FLOOR_TIMEOUT_S,
    BenchError,
    WallLimit,
    run_module,
)
from montverif.regress.flow.build import half_period_units
from montverif.regress.flow.spec import BuildSpec
from montverif.spec.design import Design

ENGINE_IDLE = Path(__file__).resolve().with_name("engine_idle.cpp")

def link_engine_floor(spec: BuildSpec, out: Path) -> Path:
    """The floor program for the (built) engine model: regress/bench/engine_idle.cpp linked
    against the cocotb build's objects (the same code and flags)."""
    tools.setup_env("verilator")
    build_dir = sim_builds() / spec.key
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


def kernel_floor_seconds(spec: BuildSpec, design: Design, cycles: int, out: Path
                         ) -> float:
    """Seconds of `cycles` idle clock cycles under cocotb on the (built) engine model, with
    Python waiting on one Timer (regress/bench/floor_probe.py)."""
    result = out / "floor.json"
    result.unlink(missing_ok=True)
    try:
        run_module(spec, design, "montverif.regress.bench.floor_probe", out,
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
