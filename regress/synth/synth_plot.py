"""Area against time per multiplication, one point per design and width, as an SVG written
directly (docs/generated/synth-area-time.svg, by `montverif synth plot --write`).

Two panels on log-log axes: Xilinx 7-series (LUT + FF against cycles x the period floor,
regress/synth/xc7_floor.py: a lower bound on the time, synth.json) and Lattice ECP5 placed
and routed (LUT4 + FF against cycles / Fmax, pnr.json). The marker is the width, the label the
design; each point carries its figures as data-* attributes and a <title> (a tooltip).
Results whose design states no cycles per multiplication (rsa_core: an exponentiation) are
named under the panels instead. The revisions, the tools and the command are in the
footer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from montverif.host.paths import ROOT
from montverif.regress.synth import synth_table, xc7_floor

DEFAULT_OUT = ROOT / "docs" / "generated" / "synth-area-time.svg"
PANEL_W, PANEL_H = 540, 460  # one panel, its axes inside MARGIN
MARGIN = {"left": 62, "right": 14, "top": 40, "bottom": 46}
FOOT = 58  # the footer's height
FONT = "font-family='sans-serif'"
CHAR_W = 5.2  # a label character's width at 9 px, roughly, for placing labels apart
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd")

Result = Mapping[str, object]


@dataclass(frozen=True)
class PlotPoint:
    target: str  # xc7, ecp5
    dut: str
    label: str  # the design and its parameters beyond N
    n: int
    time_us: float
    area: int
    revision: str


def xc7_point(r: Result) -> PlotPoint | None:
    cells, timing = r["cells"], r["timing"]
    assert isinstance(cells, Mapping) and isinstance(timing, Mapping)
    count, delay = synth_table.cycles(r), xc7_floor.period_floor_ns(r)
    if count is None or delay is None or delay <= 0:
        return None
    return PlotPoint("xc7", str(r["dut"]), synth_table.label(r).replace("`", ""), int(str(r["n"])),
                 count * float(delay) / 1000, int(str(cells["luts"])) +
                 int(str(cells["flip_flops"])), str(r["revision"]))


def ecp5_point(r: Result) -> PlotPoint | None:
    cells, timing = r["cells"], r["timing"]
    assert isinstance(cells, Mapping) and isinstance(timing, Mapping)
    count, fmax = synth_table.cycles(r), timing.get("fmax_mhz")
    if count is None or not isinstance(fmax, (int, float)) or fmax <= 0:
        return None
    return PlotPoint("ecp5", str(r["dut"]), synth_table.label(r).replace("`", ""),
                 int(str(r["n"])), count / float(fmax), int(str(cells["luts"])) +
                 int(str(cells["flip_flops"])), str(r["revision"]))


def points(xc7: Sequence[Result], ecp5: Sequence[Result]) -> tuple[list[PlotPoint], list[str]]:
    """Every result's point, and the results left out (no cycles per multiplication)."""
    out, left = [], []
    for results, make in ((xc7, xc7_point), (ecp5, ecp5_point)):
        for r in synth_table.ordered(results):
            if (p := make(r)) is not None:
                out.append(p)
            else:
                left.append(f"{synth_table.label(r).replace('`', '')} N={r['n']}")
    return out, sorted(set(left))


def _decades(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    return 10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high * 1.0001))


def _ticks(low: float, high: float) -> list[float]:
    out, k = [], math.log10(low)
    while 10 ** k <= high * 1.0001:
        out += [m * 10 ** k for m in (1, 2, 5) if m * 10 ** k <= high * 1.0001]
        k += 1
    return out


def _tick_text(v: float) -> str:
    return f"{v:g}" if 0.01 <= v < 1e6 else f"{v:.0e}"


def _marker(n: int, x: float, y: float, colour: str) -> str:
    fill = f"fill='{colour}' stroke='black' stroke-width='0.6'"
    if n == 256:
        return f"<circle cx='{x:.1f}' cy='{y:.1f}' r='4' {fill}/>"
    if n == 512:
        return f"<rect x='{x - 3.6:.1f}' y='{y - 3.6:.1f}' width='7.2' height='7.2' {fill}/>"
    if n == 1024:
        return (f"<polygon points='{x:.1f},{y - 4.8:.1f} {x + 4.4:.1f},{y + 3.2:.1f} "
                f"{x - 4.4:.1f},{y + 3.2:.1f}' {fill}/>")
    return (f"<polygon points='{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y:.1f} {x:.1f},"
            f"{y + 4.5:.1f} {x - 4.5:.1f},{y:.1f}' {fill}/>")


Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def _place(x: float, y: float, w: float, placed: list[Box],
           span: tuple[float, float]) -> tuple[float, float, str]:
    """Where a label of width `w` for the point at (x, y) goes: of a few spots around it,
    inside the axes, the one that overlaps the labels and markers in `placed` least (the
    first such); its box joins `placed`."""
    spots = [(x + 7, y + 3.5, "start"), (x - 7, y + 3.5, "end"), (x - w / 2, y - 7, "start"),
             (x - w / 2, y + 14, "start"), (x + 6, y - 6, "start"), (x + 6, y + 13, "start"),
             (x - 6, y - 6, "end"), (x - 6, y + 13, "end"), (x + 7, y - 15, "start"),
             (x + 7, y + 22, "start"), (x - 7, y - 15, "end"), (x - 7, y + 22, "end")]

    def box(s: tuple[float, float, str]) -> Box:
        bx = s[0] - w if s[2] == "end" else s[0]
        return bx, s[1] - 8, bx + w, s[1] + 1

    def overlap(b: Box) -> float:
        if b[0] < span[0] or b[2] > span[1]:
            return float("inf")
        return sum(max(0.0, min(b[2], o[2]) - max(b[0], o[0])) *
                   max(0.0, min(b[3], o[3]) - max(b[1], o[1])) for o in placed)

    spot = min(spots, key=lambda s: overlap(box(s)))
    placed.append(box(spot))
    return spot


def _panel(title: str, xlabel: str, pts: Sequence[PlotPoint], x0: float,
           colours: Mapping[str, str]) -> list[str]:
    """One panel's axes, grid, points and labels, its left edge at x0."""
    left, top = x0 + MARGIN["left"], MARGIN["top"]
    width = PANEL_W - MARGIN["left"] - MARGIN["right"]
    height = PANEL_H - MARGIN["top"] - MARGIN["bottom"]
    out = [f"<text x='{x0 + PANEL_W / 2:.0f}' y='22' text-anchor='middle' font-size='13' "
           f"{FONT}>{escape(title)}</text>",
           f"<rect x='{left}' y='{top}' width='{width}' height='{height}' fill='white' "
           "stroke='black'/>"]
    if not pts:
        return [*out, f"<text x='{left + width / 2:.0f}' y='{top + height / 2:.0f}' "
                f"text-anchor='middle' font-size='11' {FONT}>no results</text>"]
    xs, ys = _decades([p.time_us for p in pts]), _decades([float(p.area) for p in pts])

    def px(v: float) -> float:
        return left + width * math.log10(v / xs[0]) / math.log10(xs[1] / xs[0])

    def py(v: float) -> float:
        return top + height - height * math.log10(v / ys[0]) / math.log10(ys[1] / ys[0])

    for v in _ticks(*xs):
        out += [f"<line x1='{px(v):.1f}' y1='{top}' x2='{px(v):.1f}' y2='{top + height}' "
                "stroke='#ddd'/>",
                f"<text x='{px(v):.1f}' y='{top + height + 14}' text-anchor='middle' "
                f"font-size='10' {FONT}>{_tick_text(v)}</text>"]
    for v in _ticks(*ys):
        out += [f"<line x1='{left}' y1='{py(v):.1f}' x2='{left + width}' y2='{py(v):.1f}' "
                "stroke='#ddd'/>",
                f"<text x='{left - 5}' y='{py(v) + 3:.1f}' text-anchor='end' font-size='10' "
                f"{FONT}>{_tick_text(v)}</text>"]
    out += [f"<text x='{left + width / 2:.0f}' y='{top + height + 34}' text-anchor='middle' "
            f"font-size='11' {FONT}>{escape(xlabel)}</text>",
            f"<text x='{x0 + 14}' y='{top + height / 2:.0f}' text-anchor='middle' "
            f"font-size='11' {FONT} transform='rotate(-90 {x0 + 14} {top + height / 2:.0f})'>"
            "area: LUTs + flip-flops</text>"]
    placed: list[Box] = [(px(p.time_us) - 5, py(p.area) - 5, px(p.time_us) + 5,
                          py(p.area) + 5) for p in pts]  # the markers
    for p in sorted(pts, key=lambda p: (p.area, p.time_us)):
        x, y = px(p.time_us), py(p.area)
        text = f"{p.label} {p.n}"
        spot = _place(x, y, CHAR_W * len(text), placed, (left, left + width))
        tip = (f"{p.label} N={p.n} ({p.target}): {p.area} LUT + FF, {p.time_us:.3g} µs per "
               f"product, revision {p.revision}")
        out += [f"<g class='point' data-target='{p.target}' data-design={quoteattr(p.dut)} "
                f"data-n='{p.n}' data-area='{p.area}' data-time-us='{p.time_us:.6g}' "
                f"data-revision={quoteattr(p.revision)}>",
                f"<title>{escape(tip)}</title>", _marker(p.n, x, y, colours[p.dut]),
                f"<text x='{spot[0]:.1f}' y='{spot[1]:.1f}' text-anchor='{spot[2]}' "
                f"font-size='9' {FONT}>{escape(text)}</text>", "</g>"]
    return out


def render(xc7: Sequence[Result], ecp5: Sequence[Result], command: str) -> str:
    """The whole SVG: both panels, the legend of widths, what was left out, the footer."""
    pts, left_out = points(xc7, ecp5)
    designs = list(dict.fromkeys(p.dut for p in pts))
    colours = {d: COLOURS[i % len(COLOURS)] for i, d in enumerate(designs)}
    width, height = 2 * PANEL_W, PANEL_H + FOOT
    body = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}'>",
        f"<rect width='{width}' height='{height}' fill='white'/>",
        *_panel("Xilinx 7-series (Yosys): period floor, no routing",
                "time per multiplication (µs, ≥): cycles × period floor",
                [p for p in pts if p.target == "xc7"], 0, colours),
        *_panel("Lattice ECP5 (Yosys + nextpnr): placed and routed", "time per multiplication "
                "(µs): cycles / Fmax", [p for p in pts if p.target == "ecp5"], PANEL_W,
                colours),
    ]
    widths = sorted({p.n for p in pts})
    x = 20.0
    for n in widths:
        body += [_marker(n, x, PANEL_H + 8, "white"),
                 f"<text x='{x + 8:.0f}' y='{PANEL_H + 12}' font-size='10' {FONT}>N = {n}</text>"]
        x += 70
    if left_out:
        body.append(f"<text x='{x + 10:.0f}' y='{PANEL_H + 12}' font-size='10' {FONT}>left out "
                    f"(no cycles per multiplication): {escape(', '.join(left_out))}</text>")
    revisions = sorted({p.revision for p in pts})
    tools = sorted({str(r.get("yosys")) for r in xc7} | {f"{r.get('yosys')}, {r.get('nextpnr')}"
                                                          for r in ecp5})
    body += [f"<text x='20' y='{PANEL_H + 32}' font-size='10' {FONT}>Measured at revision "
             f"{escape(', '.join(revisions))} with {escape('; '.join(tools))}.</text>",
             f"<text x='20' y='{PANEL_H + 48}' font-size='10' {FONT}>Generated by "
             f"{escape(command)} from the results on disk (docs/synth.md).</text>",
             "</svg>", ""]
    return "\n".join(body)
