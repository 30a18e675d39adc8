"""Failing-seed debug aids next to a traced rerun's waves.fst.

- waves.gtkw: a GTKWave save file (pyvcd's GTKWSave) with the DUT's key signals in groups
  (bus, control, datapath registers, table address), found by name in the FST's hierarchy,
  GTKWave's marker at the first mismatch and its view around it. It names the dump and
  itself relative to its folder (`waves.fst`, `waves.gtkw`): GTKWave then finds the dump
  beside the save file from any folder, so a copied or downloaded run folder opens as it is
  (`gtkwave <run folder>/waves.gtkw`).
- waves.sucl: the same groups as a Surfer command file (`surfer -c waves.sucl` in the run
  folder), for those who use Surfer instead of GTKWave.
- mismatch.png: the grouped signals around the first mismatch (its simulation time is read
  from the rerun's sim.log), drawn with matplotlib from the FST read by pywellen.
If pywellen or matplotlib is missing the picture is skipped and mismatch.txt says why.
"""

from __future__ import annotations

import io
import math
import os
import re
from pathlib import Path

from vcd.gtkw import GTKWSave

from montverif.regress.flow.spec import UNIT_NS, RunSpec

GROUPS = ("bus", "control", "datapath registers", "table address")
_CONTROL = re.compile(r"(^|_)(start|clear|busy|done|last|state|cnt|count|phase|step|go|run)"
                      r"(_q|_d|_o|_i|$)", re.IGNORECASE)
_TABLE = re.compile(r"(lut|tbl|table|sel)(_addr|_idx|addr)?|addr", re.IGNORECASE)
_TIME = re.compile(r"^\s*([\d.]+)\s*(ns|ps|us)\s+ERROR", re.MULTILINE)
# a failed RTL assertion (hdl/common/mv_assert.svh) says when it failed
_ASSERT_TIME = re.compile(r"ASSERT FAILED \w+ @ ([\d.]+) (ns|ps|us)\b")
MAX_PER_GROUP = 12
WINDOW_NS = 400.0


def classify(path: str) -> str | None:
    """Which group a full signal path belongs to (None: not a key signal)."""
    parts = path.split(".")
    name, depth = parts[-1], len(parts)
    if name[:1].isupper():  # a parameter (UpperCamelCase), not a signal
        return None
    if depth <= 2 and (name.startswith("bus_") or name in ("clk_i", "rst_ni")):
        return "bus"
    if depth > 2 and ("u_loader" in parts or "u_observe" in parts):
        return None
    if _CONTROL.search(name) and (depth <= 3 or parts[-2] == "u_ctrl"):  # hdl/common/mv_loop_ctrl
        return "control"
    if depth >= 3 and _TABLE.search(name):
        return "table address"
    if depth >= 3 and name.endswith("_q"):
        return "datapath registers"
    return None


def group_signals(paths: list[str]) -> dict[str, list[str]]:
    """Key signals by group; top-level ports once (Verilator dumps them under $rootio too)."""
    groups: dict[str, list[str]] = {g: [] for g in GROUPS}
    seen_top: set[str] = set()
    named = [p for p in paths if not p.startswith("$") and "u_observe" not in p.split(".")]
    for path in named + [p for p in paths if p.startswith("$")]:
        parts = path.split(".")
        if len(parts) == 2:
            if parts[1] in seen_top:
                continue
            seen_top.add(parts[1])
        if (g := classify(path)) is not None and len(groups[g]) < MAX_PER_GROUP:
            groups[g].append(path)
    return groups


def dump_name(waves: Path, save_dir: Path) -> str:
    """The dump as a save file in `save_dir` names it: relative (`waves.fst` beside it), so the
    folder can be moved, copied or downloaded as a CI artifact and still open."""
    return Path(os.path.relpath(waves.resolve(), save_dir.resolve())).as_posix()


# GTKWave's view: the time per pixel is 2**-zoom / PIXELS_PER_FRAME dump units (its
# nsperframe over pixelsperframe); the save file asks for a window of WINDOW_W x WINDOW_H
# pixels, whose waves pane is at least WAVES_PX wide (beside the tree and the names)
PIXELS_PER_FRAME = 200
WINDOW_W, WINDOW_H, SIGNALS_PX, WAVES_PX = 1400, 900, 280, 700


def gtkw_view(marker_ns: float, step_ns: float) -> tuple[int, int, float]:
    """(window start, marker, zoom) in dump time units (`step_ns` ns each): the marker at the
    first mismatch, WINDOW_NS before it and a quarter of that after it in view, as the
    picture shows them."""
    marker = round(marker_ns / step_ns)
    start = max(0, round((marker_ns - WINDOW_NS) / step_ns))
    span = WINDOW_NS * 1.25 / step_ns
    return start, marker, -math.log2(span / WAVES_PX * PIXELS_PER_FRAME)


def gtkw_text(waves: str, groups: dict[str, list[str]], marker_ns: float | None,
              widths: dict[str, int] | None = None, *, step_ns: float = 1e-3,
              save: str = "waves.gtkw") -> str:
    """A GTKWave save file (written with pyvcd's GTKWSave): one collapsible group per signal
    class (vectors named with their bit range, as GTKWave writes them), the marker at
    `marker_ns` and the view around it. `waves` (as dump_name gives it) and `save`, the save
    file's own name, are relative to the save file's folder: GTKWave finds a relative dump
    from the save file's [savefile] entry, whatever folder it is started in."""
    widths = widths or {}
    out = io.StringIO()
    gtkw = GTKWSave(out)
    gtkw.comment("montverif: the first mismatch's signals (regress/flow/debug.py)")
    gtkw.dumpfile(waves, abspath=False)
    gtkw.savefile(save, abspath=False)
    gtkw.size(WINDOW_W, WINDOW_H)
    gtkw.signals_width(SIGNALS_PX)
    if marker_ns is None:
        gtkw.timestart(0)
    else:
        start, marker, zoom = gtkw_view(marker_ns, step_ns)
        gtkw.timestart(start)
        gtkw.zoom_markers(zoom, marker)
    for name, sigs in groups.items():
        if not sigs:
            continue
        with gtkw.group(name):
            for sig in sigs:
                width = widths.get(sig, 1)
                gtkw.trace(f"{sig}[{width - 1}:0]" if width > 1 else sig,
                           datafmt="hex" if width > 1 else "bin")
    return out.getvalue()


def surfer_text(waves: str, groups: dict[str, list[str]]) -> str:
    """A Surfer command file (.sucl): load the dump (`waves` as dump_name gives it), one
    divider per signal class followed by its signals, the whole run in view."""
    lines = [f"load_file {waves}"]
    for name, sigs in groups.items():
        if sigs:
            lines += [f"divider_add {name}", *(f"variable_add {sig}" for sig in sigs)]
    return "\n".join(lines + ["zoom_fit"]) + "\n"


def first_error_time_ns(log: Path) -> float | None:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return None
    found = [m for m in (_ASSERT_TIME.search(text), _TIME.search(text)) if m]
    if not found:
        return None
    m = min(found, key=lambda f: f.start())  # the first error of the log
    scale = {"ps": 1e-3, "ns": 1.0, "us": 1e3}[m.group(2)]
    return float(m.group(1)) * scale


def _fst_paths(waves: Path) -> tuple[float, list[tuple[str, object]]]:
    """(ns per time step, [(full path, pywellen Var)]) of an FST."""
    import pywellen  # noqa: PLC0415 - optional

    wave = pywellen.Waveform(str(waves))
    ts = wave.timescale
    unit = str(ts).lstrip("0123456789")
    step = (getattr(ts, "factor", 1) or 1) * UNIT_NS.get(unit, 1e-3)
    return step, [(v.full_name, v) for v in wave.all_vars()]


def draw(waves: Path, groups: dict[str, list[str]], center_ns: float, png: Path) -> None:
    """mismatch.png: every grouped signal from center-WINDOW to center+WINDOW/4."""
    import matplotlib  # noqa: PLC0415 - optional: no picture without it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 - after matplotlib.use

    step, variables = _fst_paths(waves)
    by_path = dict(variables)
    wanted = [p for g in GROUPS for p in groups[g] if p in by_path]
    lo, hi = max(0.0, center_ns - WINDOW_NS), center_ns + WINDOW_NS / 4
    fig, axes = plt.subplots(len(wanted), 1, figsize=(12, 0.45 * len(wanted) + 1),
                             sharex=True, squeeze=False)
    for ax, path in zip(axes[:, 0], wanted, strict=True):
        xs, ys = [], []
        for t, v in by_path[path].tv:  # type: ignore[attr-defined]
            xs.append(t * step)
            ys.append(v if isinstance(v, int) else 0)
        pts = [(x, y) for x, y in zip(xs, ys, strict=True) if lo <= x <= hi]
        before = [(x, y) for x, y in zip(xs, ys, strict=True) if x < lo][-1:]
        pts = [(lo, before[0][1])] + pts if before else pts
        if pts:
            ax.step([p[0] for p in pts] + [hi], [p[1] for p in pts] + [pts[-1][1]],
                    where="post", linewidth=1)
            for x, y in pts:
                if y > 1:
                    ax.annotate(f"{y:x}", (x, y), fontsize=6)
        ax.axvline(center_ns, color="red", linewidth=0.8)
        ax.set_yticks([])
        ax.set_ylabel(path.split(".", 1)[-1], rotation=0, ha="right", fontsize=7)
    axes[-1, 0].set_xlabel("ns (red: first mismatch)")
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    plt.close(fig)


def annotate(run: RunSpec, waves: Path, log_dir: Path, first_error: str) -> str:
    """waves.gtkw and mismatch.png next to the rerun's waves; returns a one-line note."""
    try:
        step, variables = _fst_paths(waves)
    except ImportError:
        (log_dir / "mismatch.txt").write_text("no picture: pywellen is not installed\n")
        return "no gtkw/picture: pywellen is not installed"
    except Exception as exc:
        (log_dir / "mismatch.txt").write_text(f"no picture: cannot read {waves}: {exc}\n")
        return f"cannot read {waves}: {exc}"
    groups = group_signals([p for p, _ in variables])
    center = first_error_time_ns(log_dir / "sim.log")
    widths = {path: int(getattr(var, "bitwidth", 1) or 1) for path, var in variables}
    dump = dump_name(waves, log_dir)
    (log_dir / "waves.gtkw").write_text(gtkw_text(dump, groups, center, widths,
                                                  step_ns=step))
    (log_dir / "waves.sucl").write_text(surfer_text(dump, groups))
    if center is None:
        (log_dir / "mismatch.txt").write_text("no picture: no error time in the rerun's log\n")
        return f"gtkw: {log_dir / 'waves.gtkw'} (no error time in the log for a picture)"
    try:
        draw(waves, groups, center, log_dir / "mismatch.png")
    except Exception as exc:
        (log_dir / "mismatch.txt").write_text(f"no picture: {exc}\n")
        return f"gtkw: {log_dir / 'waves.gtkw'}; picture failed: {exc}"
    return f"gtkw: {log_dir / 'waves.gtkw'}, picture: {log_dir / 'mismatch.png'}"
