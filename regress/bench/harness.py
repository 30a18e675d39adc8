"""The raw harness: the design's toplevel Verilated with a plain C++ main
(regress/bench/harness.cpp) that performs the testbench's bus transfers with no Python; every
P it reads back is checked against gmpy2 too."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import alias, include_flags
from montverif.models.registry import get_algo, matches_reference, reference
from montverif.regress.bench.common import (
    BUS_W,
    FLOOR_CYCLES,
    RAW_MIN_S,
    BenchError,
    Record,
    harness_builds,
    make_safe,
    scratch,
)
from montverif.spec import regmap, top
from montverif.spec.design import Design

HARNESS = Path(__file__).resolve().with_name("harness.cpp")

def harness_script(design: Design, n: int, vectors: list[dict[str, int]],
                   params: dict[str, int]) -> str:
    """The bus transfers of the testbench's VectorTest: load every operand (and the
    precomputed registers), START, wait for done, read P (S, C), CYCLES and STATUS."""
    rm = regmap.load()
    d = design
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
            bits = rm.region_bits(reg, n, d.redundant_width(n), BUS_W)
            if bits is None or (reg in ("S", "C") and d.redundant_extra_bits is None):
                continue
            lines += [f"R {rm.addr(reg, k):x}" for k in range(regmap.words(bits, BUS_W))]
        lines.append(f"R {rm.addr('STATUS'):x}")
    return "\n".join(lines) + "\n"


def check_harness_reads(design: Design, n: int, vectors: list[dict[str, int]],
                        params: dict[str, int], reads: list[int]) -> None:
    """Every P the harness read back against gmpy2 (the raw run must be correct too)."""
    rm = regmap.load()
    d = design
    algo = get_algo(design.model)
    pos = 0
    for i, vec in enumerate(vectors):
        p_words = regmap.words(n, BUS_W)
        p = regmap.join(reads[pos:pos + p_words], BUS_W)
        args = [vec[r] for r in d.operands]
        if not matches_reference(algo, p, *args, n, **params):
            want = reference(algo, *args, n, **params)
            raise BenchError(f"{design.name} n={n}: raw harness op {i}: P=0x{p:x}, gmpy2 "
                             f"expects 0x{want:x}")
        for reg in ("P", "S", "C", "CYCLES"):
            bits = rm.region_bits(reg, n, d.redundant_width(n), BUS_W)
            if bits is None or (reg in ("S", "C") and d.redundant_extra_bits is None):
                continue
            pos += regmap.words(bits, BUS_W)
        pos += 1  # STATUS
    if pos != len(reads):
        raise BenchError(f"{design.name} n={n}: harness read {len(reads)} words, "
                         f"expected {pos}")


def build_harness(design: Design, n: int, params: dict[str, int]) -> tuple[Path, float]:
    """Verilate the design's toplevel with the C++ harness (the simulator's default
    optimisation, as the cocotb build; without --vpi/--public-flat-rw)."""
    tools.setup_env("verilator")
    key = f"{design.name}-n{n}" + "".join(f"-{k}{v}" for k, v in params.items())
    out = scratch(harness_builds() / "harness" / key, fresh=True)
    toplevel = design.toplevel
    cpp = out / "bench_main.cpp"
    cpp.write_text(HARNESS.read_text().replace("@TOP@", toplevel))
    gparams = {"N": n, "BusW": BUS_W, "AckWait": 0} | params
    cmd = ["verilator", "--cc", "--exe", "--build", "-j", "2", "-Wno-fatal",
           "--top-module", toplevel, "--Mdir", str(out / "obj"), "-o", "bench",
           "--timescale", "1ns/1ps", *include_flags()]
    cmd += [f"-G{k}={v}" for k, v in gparams.items()]
    sources = list(top.sources(design))
    cmd += [str(s) for s in sources] + [str(cpp)]
    t0 = time.monotonic()
    res = subprocess.run(make_safe(cmd, out, sources), capture_output=True, text=True,
                         cwd=alias(out))
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


def raw_runner(design: Design, n: int, params: dict[str, int],
               vectors: list[dict[str, int]], work: Path, point: Record
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
