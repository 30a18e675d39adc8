"""`make lint`: Verilator -Wall lint and an Icarus -g2012 compile of every design at several
parameter points, the generated-file check of the register map, and ruff on the Python.

Exit 0 when everything is clean; otherwise each problem is printed and the exit code is 1.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from montverif.regress import tools
from montverif.verif import regmap
from montverif.verif.config import known_designs, load_design

ROOT = Path(__file__).resolve().parent.parent
PY_DIRS = ["models", "verif", "regress"]  # ruff's settings: pyproject.toml [tool.ruff]


def param_points(min_n: int) -> list[dict[str, int]]:
    """Smallest width, an odd width and a wide one, at the narrowest and widest bus."""
    buses = regmap.load().bus_widths
    return [{"N": n, "BusW": b} for n in (min_n, 97, 1024) for b in (buses[0], buses[-1])]


def test_param_points(test: dict[str, object]) -> list[dict[str, int]]:
    """Every distinct build-parameter set of the config's `make test` points (the 5th element
    of a point), at that point's N: the generate branches the defaults do not reach (e.g. the
    RSA core's multiplier choice) are linted too."""
    out: list[dict[str, int]] = []
    for sim in ("verilator", "icarus"):
        for point in test.get(sim, []) or []:  # type: ignore[union-attr]
            if len(point) > 4 and point[4]:
                cand = {"N": int(point[0]), "BusW": int(point[1])} | dict(point[4])
                if cand not in out:
                    out.append(cand)
    return out


def lint_design(name: str) -> list[str]:
    design = load_design(name)
    sources = [str(s) for s in design.sources]
    problems = []
    verilator = str(tools.verilator_root() / "bin" / "verilator")
    for params in param_points(design.min_n) + test_param_points(design.test):
        gflags = [f"-G{k}={v}" for k, v in params.items()]
        cmd = [verilator, "--lint-only", "-Wall", "--top-module", design.toplevel, *gflags,
               *sources]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode:
            problems.append(f"verilator lint {name} {params}:\n{res.stderr.strip()}")
    with tempfile.TemporaryDirectory() as tmp:
        pflags = [f"-P{design.toplevel}.{k}={v}" for k, v in param_points(design.min_n)[2].items()]
        cmd = ["iverilog", "-g2012", "-o", str(Path(tmp) / "a.vvp"), "-s", design.toplevel,
               *pflags, *sources]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        noise = [ln for ln in res.stderr.splitlines() if ln.strip()]
        if res.returncode or noise:
            problems.append(f"iverilog -g2012 {name}:\n" + "\n".join(noise))
    return problems


def lint_engine() -> list[str]:
    """The simulation-only bus engine of the fast mode, with a generated wrapper around
    mont_lut (lint: the engine itself; the wrapper is generated code)."""
    from montverif.verif.bus import engine

    design = load_design("mont_lut")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "wrapper.sv"
        params = {"N": 97, "BusW": 16, "AckWait": 0}
        wrapper.write_text(engine.emit_wrapper(design.toplevel, params,
                                               engine.script_depth(97, design.design, 16),
                                               observe=design.observe))
        verilator = str(tools.verilator_root() / "bin" / "verilator")
        res = subprocess.run([verilator, "--lint-only", "-Wall", str(engine.ENGINE_SV)],
                             capture_output=True, text=True, check=False)
        if res.returncode:
            problems.append(f"verilator lint mv_bus_engine:\n{res.stderr.strip()}")
        top = engine.wrapper_name(design.toplevel)
        res = subprocess.run(["iverilog", "-g2012", "-o", str(Path(tmp) / "a.vvp"), "-s", top,
                              *map(str, design.sources), str(engine.ENGINE_SV), str(wrapper)],
                             capture_output=True, text=True, check=False)
        noise = [ln for ln in res.stderr.splitlines() if ln.strip()]
        if res.returncode or noise:
            problems.append("iverilog -g2012 mv_bus_engine:\n" + "\n".join(noise))
    return problems


def main() -> int:
    problems: list[str] = []
    try:
        tools.setup_env("verilator")
        tools.setup_env("icarus")
    except tools.ToolError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name in known_designs():
        problems += lint_design(name)
        print(f"lint {name}: {'ok' if not problems else 'problems'}")
    engine_problems = lint_engine()
    print(f"lint mv_bus_engine: {'ok' if not engine_problems else 'problems'}")
    problems += engine_problems
    if regmap.main(["--check"]):
        problems.append("register map: generated files are stale (make regmap)")
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    res = subprocess.run([ruff or "ruff", "check", *PY_DIRS], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    if res.returncode:
        problems.append(f"ruff:\n{res.stdout.strip()}")
    else:
        print("ruff: ok")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
