"""A floor on a 7-series clock period from a synthesised netlist, on the delays of Yosys's
own Xilinx cell library (share/xilinx/cells_sim.v), with every cell on the path counted.

Yosys's `sta` sums the combinational arcs of the cells' specify blocks and the arrival of a
DSP48E1's output after its clock. It leaves out what no combinational arc carries: a
flip-flop's clock-to-out, and the paths that end inside a DSP48E1 at one of its pipeline
registers (A or B through the multiplier to M or P, C or D to P). When synthesis moves a
core's registers into its DSP48E1s, the multiply is such a path and vanishes from the
report: a core whose every multiply runs register to register in a DSP showed a few LUT
levels as its critical path.

The floor here is the largest of:

* `sta`'s longest path (every flip-flop's output cut into a port first: regress/flow/
  synth.py) plus a flip-flop's clock-to-out (FDRE: 303 ps) where it starts at a port (a
  flip-flop, or an input of the core, which comes from a register in a system); a path that
  starts at a DSP48E1's clock already carries its clock-to-out;
* for every DSP48E1 and every input it uses (A, B, C, D): the library's required time from
  that input to the next pipeline register the DSP's parameters enable (A to M 1,416 ps, A to
  P 2,739 ps through the multiplier, ...: `DSP48E1`'s `required` functions), plus a
  flip-flop's clock-to-out where the input is not registered inside the DSP (its source is a
  flip-flop in the fabric); where it is, the internal register's own clock-to-out is not
  stated and counts as 0.

Routing is left out, so it is a lower bound on the period on these delays, not a routed
clock. The M to P register path has no figure in the library and is not counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

CLOCK_TO_OUT_PS = 303  # FDRE, cells_sim.v: (posedge C => (Q : D ^ IS_D_INVERTED)) = 303
DSP = "DSP48E1"
# cells_sim.v's DSP48E1 parameter defaults the dump leaves out
DSP_DEFAULTS = {"AREG": "1", "BREG": "1", "CREG": "1", "DREG": "1", "ADREG": "1", "MREG": "1",
                "PREG": "1", "USE_MULT": "MULTIPLY", "USE_DPORT": "FALSE",
                "USE_PATTERN_DETECT": "NO_PATDET"}
INPUTS = ("A", "B", "C", "D")

_CELL = re.compile(r"^\s*cell \\DSP48E1 (\S+)\s*$")
_PARAM = re.compile(r"^\s*parameter (?:signed )?\\(\w+) (.+?)\s*$")
_CONNECT = re.compile(r"^\s*connect \\(\w+) (.+?)\s*$")
_CONSTANT = re.compile(r"^\d+'[01xz]+$")


@dataclass(frozen=True)
class DspCell:
    name: str
    params: dict[str, str]  # the dump's parameters over the defaults, values unquoted
    used: frozenset[str]  # the inputs of INPUTS driven by something not constant

    def reg(self, name: str) -> bool:
        return _number(self.params[name]) != 0

    def flag(self, name: str) -> str:
        return self.params[name]


def _number(value: str) -> int:
    """A dump's parameter number: `1`, `1'1`, `32'00000000000000000000000000000001`."""
    if "'" in value:
        return int(value.split("'")[1], 2)
    return int(value)


def _constant(sig: str) -> bool:
    """Whether a connection is constant bits only: `25'000...`, or `{ 14'000 ... }` of
    constants."""
    parts = sig.strip("{} ").split()
    return all(_CONSTANT.match(p) for p in parts)


def parse_dump(text: str) -> list[DspCell]:
    """The DSP48E1 cells of `dump t:DSP48E1`'s output."""
    cells: list[DspCell] = []
    name, params, used = "", dict(DSP_DEFAULTS), set[str]()
    for line in text.splitlines():
        if m := _CELL.match(line):
            if name:
                cells.append(DspCell(name, params, frozenset(used)))
            name, params, used = m.group(1), dict(DSP_DEFAULTS), set()
        elif name and (m := _PARAM.match(line)):
            params[m.group(1)] = m.group(2).strip('"')
        elif name and (m := _CONNECT.match(line)) and m.group(1) in INPUTS:
            if not _constant(m.group(2)):
                used.add(m.group(1))
    if name:
        cells.append(DspCell(name, params, frozenset(used)))
    return cells


def required_ps(cell: DspCell, port: str) -> int | None:
    """cells_sim.v's `<port>.required` for this DSP with the port's own input register off:
    the time from the port to the next pipeline register, None where no register follows."""
    mult, dport = cell.flag("USE_MULT"), cell.flag("USE_DPORT")
    patdet = cell.flag("USE_PATTERN_DETECT") != "NO_PATDET"
    m, p, ad = cell.reg("MREG"), cell.reg("PREG"), cell.reg("ADREG")
    if port == "A":
        if mult == "MULTIPLY" and dport == "FALSE":
            return 1416 if m else (3030 if patdet else 2739) if p else None
        if mult == "MULTIPLY" and dport == "TRUE":
            return 2400 if m else 1283 if ad else 3723 if p else None
        if mult == "NONE" and dport == "FALSE":
            return (1730 if patdet else 1441) if p else None
        return None
    if port == "B":
        if m:
            return 1285
        if mult == "MULTIPLY":
            return (2898 if patdet else 2608) if p else None
        if mult == "NONE" and dport == "FALSE":
            return (1718 if patdet else 1428) if p else None
        return None
    if port == "C":
        return (1534 if patdet else 1244) if p else None
    if port == "D" and mult == "MULTIPLY" and dport == "TRUE":
        return 1195 if ad else 2310 if m else (3925 if patdet else 3635) if p else None
    return None


INPUT_REG = {"A": "AREG", "B": "BREG", "C": "CREG", "D": "DREG"}


def dsp_arcs(cell: DspCell) -> list[tuple[str, int]]:
    """(what, ps) of every register-to-register floor through one DSP48E1."""
    arcs = []
    for port in sorted(cell.used):
        req = required_ps(cell, port)
        if req is None:
            continue
        inside = cell.reg(INPUT_REG[port])
        start = f"its {port} register" if inside else f"a flip-flop through {port}"
        arcs.append((f"{DSP}: {start} to its next register", req + (0 if inside
                                                                      else CLOCK_TO_OUT_PS)))
    return arcs


def floor(timing: Mapping[str, object], dsps: list[DspCell]) -> dict[str, object]:
    """The period floor (ns) and what sets it: `sta`'s path with its clock-to-out, or the
    slowest DSP48E1 arc."""
    delay = timing.get("logic_delay_ns")
    candidates: list[tuple[float, str]] = []
    if isinstance(delay, (int, float)):
        clocked = bool(timing.get("starts_at_clock"))
        candidates.append((delay + (0 if clocked else CLOCK_TO_OUT_PS / 1000),
                           "the logic path" + ("" if clocked else " with clock-to-out")))
    for cell in dsps:
        candidates += [(ps / 1000, what) for what, ps in dsp_arcs(cell)]
    if not candidates:
        return {"period_floor_ns": None, "floor_set_by": None}
    best, what = max(candidates)
    return {"period_floor_ns": round(best, 3), "floor_set_by": what}


def period_floor_ns(result: Mapping[str, object]) -> float | None:
    """A 7-series result's period floor, None for a result taken before it was recorded
    (its `sta` saw only the paths from the core's ports: synthesise it again)."""
    timing = result.get("timing")
    recorded = timing.get("period_floor_ns") if isinstance(timing, Mapping) else None
    return float(recorded) if isinstance(recorded, (int, float)) else None
