"""The summary of a folder of synthesis results (the nightly's synthesis job): every
finished synthesis (synth.json) and place and route (pnr.json) below it, and every folder
that holds none (a failed or stopped run) with the first error of its log.

    summary.json   {"revision", "xc7": [results], "ecp5": [results], "unfinished": [...]}
    summary.md     both synthesis tables (7-series, ECP5) and the unfinished runs
    area-time.svg  area against time per multiplication (synth_plot)

Both are written atomically, after every result is read.
"""

from __future__ import annotations

import json
from pathlib import Path

from montverif.host import pages
from montverif.host.paths import ROOT
from montverif.host.tools import git_revision
from montverif.regress.synth import pnr, synth, synth_plot, synth_table

JSON = "summary.json"
MARKDOWN = "summary.md"
PLOT = "area-time.svg"


def _read(path: Path) -> dict[str, object] | None:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _error(folder: Path) -> str:
    """The first error of the run's logs (nextpnr's, then Yosys's), else what is missing."""
    for log in (pnr.LOG, synth.LOG):
        if (folder / log).is_file():
            text = (folder / log).read_text(errors="replace")
            if any("ERROR" in line for line in text.splitlines()):
                return synth.first_error(text, "")
    return "no result and no error in its logs (stopped, or timed out)"


def collect(root: Path) -> dict[str, object]:
    """Every result below `root`, by target, and every run folder without one."""
    xc7, ecp5, unfinished = [], [], []
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in folders:
        if (result := _read(folder / synth.RESULT)) is not None:
            xc7.append(result)
        elif (result := _read(folder / pnr.RESULT)) is not None:
            ecp5.append(result)
        elif (folder / synth.SCRIPT).exists():
            unfinished.append({"key": folder.name, "error": _error(folder)})
    return {"revision": git_revision(ROOT), "xc7": synth_table.ordered(xc7),
            "ecp5": synth_table.ordered(ecp5), "unfinished": unfinished}


def markdown(summary: dict[str, object]) -> str:
    xc7, ecp5, unfinished = summary["xc7"], summary["ecp5"], summary["unfinished"]
    assert isinstance(xc7, list) and isinstance(ecp5, list) and isinstance(unfinished, list)
    lines = [f"## Synthesis at revision {summary['revision']}", ""]
    lines += ["### Xilinx 7-series (Yosys, logic delay only)", "",
              synth_table.render(xc7) if xc7 else "(none)", ""]
    lines += ["### Lattice ECP5 (Yosys and nextpnr, placed and routed)", "",
              synth_table.render_pnr(ecp5, xc7) if ecp5 else "(none)", ""]
    if unfinished:
        lines += ["### Without a result", "",
                  *(f"- `{u['key']}`: {u['error']}" for u in unfinished), ""]
    return "\n".join(lines)


def write(root: Path) -> dict[str, object]:
    """summary.json and summary.md in `root`; the summary."""
    summary = collect(root)
    root.mkdir(parents=True, exist_ok=True)
    pages.write_atomic(root / JSON, json.dumps(summary, indent=1) + "\n")
    pages.write_atomic(root / MARKDOWN, markdown(summary))
    xc7, ecp5 = summary["xc7"], summary["ecp5"]
    assert isinstance(xc7, list) and isinstance(ecp5, list)
    pages.write_atomic(root / PLOT, synth_plot.render(xc7, ecp5,
                                                      f"montverif synth summary {root}"))
    return summary
