"""Cycle-count tables from transaction logs, set beside what the papers state.

    montverif cycles [RESULTS_DIR ...] [--write docs/generated/cycles.md]

Reads every `txns.jsonl` (with its `outcome.json`) below the given folders (default: the
latest regression and build/runs), groups the cycle counts the DUTs reported by design and
width, and writes a markdown table: measured cycles, the model's count, the paper's formula
from the design's `[paper]` table in its descriptor (hdl/<family>/<design>.toml), or where
the paper states a count of its own design at that point (`[paper] figures`) that count, and
their ratio. Designs with a field bit (mont_dual) get a cell per field. The runs of mutants
(regress/mutate: builds with an overlay) are not the designs and are skipped.
"""

from __future__ import annotations

import ast
import math
import operator
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host import readback
from montverif.host.paths import ROOT
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design
from montverif.spec.formula import formula

DEFAULT_OUT = ROOT / "docs" / "generated" / "cycles.md"
COMMAND = "montverif cycles --write"  # what the page's header names
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_FUNCS = {"ceil": math.ceil, "floor": math.floor, "min": min, "max": max}
Params = tuple[tuple[str, int], ...]
Key = tuple[str, int, Params, int | None]  # design, N, parameters, CTRL.FIELD (None: none)


@dataclass
class Cell:
    cycles: dict[int, int] = field(default_factory=dict)  # cycle count -> operations
    runs: set[str] = field(default_factory=set)


# what this report reads of a run's outcome.json and of each txns.jsonl line
OUTCOME_SHAPE = {"run": {"build": {"dut": str, "n": int, "overlay?": (str, type(None))}},
                 "params?": ({str: (int, str)}, type(None))}
TXN_SHAPE = {"cycles?": int, "field?": (int, str)}


def collect(dirs: list[Path], unreadable: list[str] | None = None) -> dict[Key, Cell]:
    """The cycle counts of every run's log below `dirs`. A run whose records cannot be read
    raises CorruptFile, or is left out with the reason appended to `unreadable`."""
    table: dict[Key, Cell] = defaultdict(Cell)
    for base in dirs:
        for log in sorted(base.rglob("txns.jsonl")):
            outcome = log.with_name("outcome.json")
            if not outcome.exists():
                continue
            try:
                record = readback.read_json(outcome, OUTCOME_SHAPE)
                txns = readback.read_jsonl(log, TXN_SHAPE)
            except readback.CorruptFile as exc:
                if unreadable is None:
                    raise
                unreadable.append(str(exc))
                continue
            run = record["run"]["build"]
            if run.get("overlay"):  # a mutant (regress/mutate) is not the design
                continue
            params = tuple(sorted((record.get("params") or {}).items()))
            for rec in txns:
                if "cycles" in rec:
                    field_ = int(rec["field"]) if "field" in rec else None
                    cell = table[(run["dut"], run["n"], params, field_)]
                    cell.cycles[rec["cycles"]] = cell.cycles.get(rec["cycles"], 0) + 1
                    cell.runs.add(str(log.parent))
    return table


def _reference(design: Design, n: int, params: dict[str, int], field_: int | None
               ) -> tuple[float | None, str]:
    """What the paper says for this cell: its own count at the point (the most specific
    matching figure, shown with *), else its formula's value; (value, text)."""
    figures = [f for f in design.paper_cycles.figures if f.matches(n, params, field_)]
    if figures:
        best = max(figures, key=lambda f: len(f.params) + (f.field is not None))
        return float(best.cycles), f"{best.cycles}*"
    paper = design.paper_cycles
    if not paper.cycles:
        return None, "–"
    ref = formula(paper.cycles, n, params)
    return ref, f"{ref:g}"


def render(table: dict[Key, Cell], list_missing: bool = True) -> str:
    """The Markdown page; list_missing names the known designs without logs
    (docs/generated/cycles.md covers every design; a regression's cycles.md only those of its
    list)."""
    lines = [
        "# Cycle counts",
        "",
        "From the runs' transaction logs (in a checkout, `make cycles` runs the `cycles` list of "
        "regress/lists.toml, then this command). *Measured* is what the DUT's cycle counter "
        "reported over the bus (busy cycles from START to DONE, checked against the model in "
        "every operation); *paper* is the count the paper states for its own design at that "
        "point where it states one (marked *), else the paper's formula for its design.",
        "",
    ]
    designs = sorted({k[0] for k in table})
    for name in designs:
        design = load_design(name)
        paper = design.paper_cycles
        lines += [f"## {name}", ""]
        if paper.stated:
            expr = f" — `{paper.cycles}`" if paper.cycles else ""
            lines += [f"Paper: {paper.source or '?'}{expr}. " + paper.note, ""]
        keys = sorted((k for k in table if k[0] == name), key=lambda k: (k[1], k[2], k[3] or 0))
        with_params = any(k[2] for k in keys)
        with_field = any(k[3] is not None for k in keys)
        lines += ["| N | " + ("parameters | " if with_params else "")
                  + ("field | " if with_field else "")
                  + "measured cycles | operations | paper | measured / paper |",
                  "|---|---|---|---|---|" + ("---|" if with_params else "")
                  + ("---|" if with_field else "")]
        for key in keys:
            _, n, params, field_ = key
            cell = table[key]
            measured = sorted(cell.cycles)
            shown = str(measured[0]) if len(measured) == 1 else \
                f"{measured[0]}–{measured[-1]} (varies)"
            ops = sum(cell.cycles.values())
            ref, ref_s = _reference(design, n, dict(params), field_)
            ratio = f"{measured[-1] / ref:.3f}" if ref else "–"
            shown_params = (" ".join(f"{k}={v}" for k, v in params) + " | ") if with_params \
                else ""
            shown_field = (f"{'–' if field_ is None else field_} | ") if with_field else ""
            lines.append(f"| {n} | {shown_params}{shown_field}{shown} | {ops} | {ref_s} | "
                         f"{ratio} |")
        figures = [f for f in design.paper_cycles.figures
                   if any(f.matches(k[1], dict(k[2]), k[3]) for k in keys)]
        if figures:
            lines += ["", "Paper's own counts (*): " + "; ".join(
                f"{f.cycles:,} at N = {f.n} ({f.where})" for f in figures) + "."]
        lines.append("")
    missing = [d for d in known_designs() if d not in designs]
    if missing and list_missing:
        lines += [f"No logs yet for: {', '.join(missing)}.", ""]
    return "\n".join(lines)
