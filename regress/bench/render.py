"""results.json into results.md and throughput.png; points merged with earlier results."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from montverif.host.paths import ROOT, writable
from montverif.models.registry import get_algo
from montverif.regress.bench.cijobs import section as ci_section
from montverif.regress.bench.common import (
    ENGINE_BUILDS,
    FLOOR_CYCLES,
    GOAL_N,
    GOAL_RATIO,
    INLINE_RATIO,
    INLINE_SERIAL_RATIO,
    INLINE_WIDTHS,
    SEED,
    BenchError,
    Record,
    make_vectors,
)
from montverif.regress.bench.fixed import fixed_section
from montverif.regress.bench.stream_render import stream_ratios, stream_section
from montverif.spec.designs import load_design
from montverif.spec.formula import formula

SERIES = ("verilator", "verilator_engine", "verilator_engine_inline", "icarus",
          "icarus_engine", "raw")
# what a point's Verilator series come with: the testbench/raw ratios of each repeat, the
# simulator floors and the checker thread's cores (measured in the same runs)
VERILATOR_BLOCKS = ("paired", "floor", "check_thread")


def merge_points(old: list[Record], new: list[Record]
                 ) -> list[Record]:
    """--merge: the old points this run did not measure, and the new ones; a new point keeps
    the old point's series of a simulator this run left out (e.g. Icarus under --sims
    verilator), each such series marked with the git revision it was measured at; with
    Verilator's series, their paired ratios and floors (VERILATOR_BLOCKS)."""
    by_key: dict[tuple[object, object], dict] = {(p["design"], p["n"]): p for p in old}
    for p in new:
        prev = by_key.pop((p["design"], p["n"]), None)
        if prev is None or "error" in p or "error" in prev:
            continue
        if "verilator" in prev and "verilator" not in p:
            p |= {key: prev[key] for key in VERILATOR_BLOCKS if key in prev}
        for key in SERIES:
            if key in prev and key not in p:
                p[key] = {**prev[key], "git": prev[key].get("git", prev.get("git"))}
    return sorted([*by_key.values(), *new], key=lambda p: (p["design"], p["n"]))


def git_cell(p: dict) -> str:
    """The point's git revision, and that of any series kept from an earlier run."""
    own = str(p.get("git", "–"))[:7]
    kept = [f"{key}: {str(p[key]['git'])[:7]}" for key in SERIES
            if key in p and p[key].get("git", p.get("git")) != p.get("git")]
    return own + (f" ({', '.join(kept)})" if kept else "")


def ratios(point: Record) -> dict[str, float]:
    """A point's ratios: against the raw harness the median of each repeat's ratio (runs side
    by side, `paired`), else (points measured before pairing) the ratio of the medians."""
    out = {}
    med = {k: point[k]["ops_per_s"]["median"] for k in SERIES if k in point}
    paired: dict[str, dict[str, float]] = point.get("paired", {})
    for key, series in (("testbench_over_raw", "verilator"),
                        ("engine_over_raw", "verilator_engine"),
                        ("engine_inline_over_raw", "verilator_engine_inline")):
        if key in paired:
            out[key] = paired[key]["median"]
        elif series in med and "raw" in med:
            out[key] = med[series] / med["raw"]
    if "verilator" in med and "icarus" in med:
        out["verilator_over_icarus"] = med["verilator"] / med["icarus"]
    return out | stream_ratios(point)


def cycle_table(names: list[str], widths: list[int]) -> list[Record]:
    """Model cycle counts (the scoreboard checks the DUT's counter against them in every
    operation) beside each paper's formula."""
    rows = []
    for name in names:
        design = load_design(name)
        algo = get_algo(design.model)
        paper = design.paper_cycles.cycles
        for n in widths:
            if not design.min_n <= n <= design.max_n:
                continue
            params = algo.resolve(n)
            vec = make_vectors(design, n, 1, SEED)[0]
            measured = algo.model(params)(*[vec[r] for r in design.operands], n).cycles
            ref = formula(paper, n, params) if paper else None
            rows.append({"design": name, "n": n, "params": params, "cycles": measured,
                         "paper": ref, "ratio": (measured / ref) if ref else None})
    return rows


SERIES_RUNS = ("verilator", "verilator_engine", "icarus", "icarus_engine", "raw")


def series_runs(series: Record) -> int | None:
    """How many runs a series' figure is the median of (older results only kept their
    samples; None: not recorded)."""
    runs = series.get("runs")
    if isinstance(runs, int):
        return runs
    return len(series["ops_per_s"].get("samples", [])) or None


def runs_sentence(results: Record) -> str:
    """What each figure is the median of: a --merge keeps points measured with another
    --repeat, so the run counts are read from the points themselves."""
    runs = {series_runs(p[k]) for p in results["points"] for k in SERIES_RUNS if k in p}
    counts = sorted(r for r in runs if r is not None and r != 1)
    many = " or ".join(map(str, counts)) if counts else str(results["repeat"])
    return (f"Each figure is the median of {many} runs (min–max in brackets; each point "
            "names the revision it was measured at, whose run used one --repeat), or of one "
            "run where a single operation is over the simulator's cycle budget (*one run*)")


def render_md(results: Record) -> str:
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`montverif bench`); do not edit by hand. "
             f"Machine: {results['machine']}. {runs_sentence(results)}; operations per "
             "second of simulation with every result checked, in the steady state: the "
             "checks after the first publication of the bus traffic that completed an "
             "operation (in engine mode a script's four), over the time from its end to the "
             "last check, as the raw harness's figure is its timed loop without its own "
             "set-up. A run's set-up (the pyuvm environment, "
             "reset) and report (final checks, coverage files) are its *set-up and report* "
             "column; a point without that column predates this and is over the test's whole "
             "time. A ratio against the raw harness is the median of each repeat's ratio, the "
             "testbench and the harness run one after the other (min–max in brackets; a "
             "point without brackets predates this and is the ratio of the medians).", "",
             "## Throughput", "",
             "*pins*: Python drives the bus pins; *engine*: the simulation-only HDL bus "
             "engine performs each operation's transfers as one script and makes the clock "
             "(BUS=engine), Python checks the same transfers.",
             "",
             "| design | N | testbench, Verilator, pins | Verilator, engine | raw C++ harness | "
             "pins / raw | engine / raw | engine / raw, checks inline | "
             "set-up and report, engine (ms) | Icarus, pins | "
             "Icarus, engine | Verilator / Icarus (pins) | Verilator build (s) | "
             "ops a run (V / I) | git |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def fmt(p: Record, key: str) -> str:
        if key not in p:
            return "–"
        s = p[key]["ops_per_s"]
        if series_runs(p[key]) == 1 < int(results["repeat"]):
            return f"{s['median']:.1f} (one run)"  # an operation over the cycle budget
        return f"{s['median']:.1f} ({s['low']:.1f}–{s['high']:.1f})"

    for p in results["points"]:
        if p.get("stream"):  # their own table (stream_section)
            continue
        if "error" in p:
            lines.append(f"| {p['design']} | {p['n']} | error: {p['error']} |" + " |" * 12)
            continue
        r = ratios(p)

        def ratio(key: str, digits: int = 2, r: dict[str, float] = r,
                  p: Record = p) -> str:
            if key not in r:
                return "–"
            if pair := p.get("paired", {}).get(key):
                return f"{r[key]:.{digits}f} ({pair['low']:.{digits}f}–{pair['high']:.{digits}f})"
            return f"{r[key]:.{digits}f}"

        build_s = p.get("verilator", {}).get("build_s", "–")
        fixed = p.get("verilator_engine", {}).get("fixed_ms")
        fixed_cell = f"{fixed['median']:.1f}" if fixed else "–"
        lines.append(f"| {p['design']} | {p['n']} | {fmt(p, 'verilator')} | "
                     f"{fmt(p, 'verilator_engine')} | {fmt(p, 'raw')} | "
                     f"{ratio('testbench_over_raw')} | {ratio('engine_over_raw')} | "
                     f"{ratio('engine_inline_over_raw')} | {fixed_cell} | {fmt(p, 'icarus')} | "
                     f"{fmt(p, 'icarus_engine')} | "
                     f"{ratio('verilator_over_icarus', 1)} | {build_s} | "
                     f"{p.get('verilator', {}).get('ops', '–')} / "
                     f"{p.get('icarus', {}).get('ops', '–')} | "
                     f"{git_cell(p)} |")
    goal_points = [p for p in results["points"]
                   if p["n"] == GOAL_N and p.get("bit_serial")]
    goal = [(p["design"], ratios(p).get("engine_over_raw")) for p in goal_points]
    if goal:
        met = [d for d, r in goal if r is not None and r >= GOAL_RATIO]
        lines += ["", f"Goal: every bit-serial design at N = {GOAL_N} at least "
                  f"{GOAL_RATIO:.0%} of the raw harness in engine mode. Met by {len(met)} of "
                  f"{len(goal)}" + ("; not met: " + ", ".join(
                      f"{d} ({r:.3f})" if r is not None and round(r, 2) >= GOAL_RATIO
                      else f"{d} ({r:.2f})" if r is not None else f"{d} (not measured)"
                      for d, r in goal if d not in met) if len(met) < len(goal) else "") + "."]
        whole = [(p["design"], p.get("paired", {}).get("engine_over_raw_whole"))
                 for p in goal_points]
        if all(w is not None for _, w in whole):  # every goal point has the whole-test ratio
            lines[-1] += (" Over the test's whole time (with its set-up and report): met by "
                          f"{sum(w['median'] >= GOAL_RATIO for _, w in whole)} of "
                          f"{len(whole)}; " + ", ".join(
                              f"{d} {w['median']:.2f}" for d, w in whole) + ".")
        inline = [(p["design"], ratios(p).get("engine_inline_over_raw")) for p in goal_points]
        if all(r is not None for _, r in inline):  # every goal point ran with a checker thread
            cores = {p["check_thread"]["cores"] for p in goal_points}
            lines[-1] += (
                f" The engine runs check on a worker thread while the model runs (a spare core: "
                f"{'/'.join(map(str, sorted(cores)))} here, one simulation at a time); with the "
                "checks inline, as on one core or in a regression running a simulation per "
                f"core: met by {sum(r >= GOAL_RATIO for _, r in inline)} of "  # type: ignore[operator]
                f"{len(inline)}; " + ", ".join(f"{d} {r:.2f}" for d, r in inline) + ".")
    lines += inline_goal_lines(results["points"])
    lines += floor_section(results["points"])
    lines += stream_section(results["points"])
    lines += ["", "## Cycles against the papers", "",
              "Each row evaluates the formula its paper states; the formula, the source and why "
              "a count differs from it (the design's configuration, or a figure the paper "
              "gives for one width only) are in [docs/generated/cycles.md](../cycles.md) and the "
              "design's `[paper]` table.", "",
              "| design | N | cycles | paper | ratio |", "|---|---|---|---|---|"]
    for row in results["cycles"]:
        paper = f"{row['paper']:g}" if row["paper"] else "–"
        shown = f"{row['ratio']:.3f}" if row["ratio"] else "–"
        lines.append(f"| {row['design']} | {row['n']} | {row['cycles']} | {paper} | {shown} |")
    if results.get("fixed_cost"):
        lines += fixed_section(results["fixed_cost"])
    if results.get("regressions"):
        lines += walls_section(results["regressions"])
    if results.get("ci_jobs"):
        lines += ci_section(results["ci_jobs"])
    return "\n".join(lines) + "\n"


def walls_section(regressions: Record) -> list[str]:
    """The lists' wall times (and the parallel efficiency where both job counts are of one
    revision)."""
    lines = ["", "## Regression wall time", "",
             "Each measurement starts from a fresh state: no model built and an empty "
             "compiler cache (builds included, as on a new machine); parallel efficiency "
             "= wall(1 job) / (2 x wall(2 jobs)).", "",
             "| list | jobs | wall (s) | result |", "|---|---|---|---|"]
    for name, res in regressions.items():
        for j, r in res.items():
            if j != "parallel_efficiency":
                lines.append(f"| {name} | {j} | {r['wall_s']} | {r['last_line']} |")
        if "parallel_efficiency" in res:
            lines.append(f"| {name} | efficiency | {res['parallel_efficiency']:.2f} | |")
    return lines


def inline_goal_lines(points: list[Record]) -> list[str]:
    """The goal with the checks inline (issue 33): every point at INLINE_WIDTHS at least
    INLINE_RATIO of the raw harness, a bit-serial design's at GOAL_N at least
    INLINE_SERIAL_RATIO; the points that miss it by name (nothing when no point at those
    widths was measured with the checks inline)."""
    rows = []
    for p in points:
        if p["n"] not in INLINE_WIDTHS or "error" in p or p.get("stream"):
            continue
        want = INLINE_SERIAL_RATIO if p["n"] == GOAL_N and p.get("bit_serial") else INLINE_RATIO
        rows.append((f"{p['design']} {p['n']}", ratios(p).get("engine_inline_over_raw"), want))
    if all(r is None for _, r, _ in rows):  # no run with the checks inline
        return []
    missed = [(name, r, want) for name, r, want in rows if r is None or r < want]
    widths = " and ".join(f"N = {n}" for n in INLINE_WIDTHS)
    line = (f"Goal with the checks inline: every design at {widths} at least "
            f"{INLINE_RATIO:.0%} of the raw harness, the bit-serial ones at N = {GOAL_N} at "
            f"least {INLINE_SERIAL_RATIO:.0%}. Met by {len(rows) - len(missed)} of "
            f"{len(rows)} points")
    if missed:
        line += "; not met: " + ", ".join(
            f"{name} (not measured)" if r is None else
            f"{name} ({r:.3f} < {want})" if round(r, 2) >= want else f"{name} ({r:.2f} < {want})"
            for name, r, want in missed)
    margins = [(r - want, name, r) for name, r, want in rows if r is not None]
    if margins:
        _, name, r = min(margins)
        line += f". Closest to its bound: {name} ({r:.2f})"
    return ["", line + "."]


def floor_section(points: list[Record]) -> list[str]:
    """Where an engine run's time goes: the simulator's share (the rest is Python), the
    engine's speed if Python took no time, and the simulator's own cost of an idle clock
    cycle under cocotb beside the raw harness's."""
    rows = [p for p in points if "floor" in p and "sim_share" in p.get("verilator_engine", {})]
    if not rows:
        return []

    def med(p: Record, *keys: str) -> float:
        value: object = p
        for k in keys:
            value = value[k]  # type: ignore[index]
        return float(value["median"])  # type: ignore[index]

    lines = ["", "## What bounds the engine mode", "",
             "*simulator share*: the part of an engine run spent in the simulator (from each "
             "script's go to Python's resumption at its end; the rest is Python: models, "
             "checks, coverage, pyuvm); *without Python*: operations per second of that "
             "simulator time alone, the engine mode's ceiling with cocotb's callbacks. "
             f"*ns / cycle*: {FLOOR_CYCLES:,} cycles with the design idle: in the raw harness "
             "(the design's own evaluation, the clock toggled from C++); in the engine build "
             "alone (*engine build*: the design, the bus engine and the wrapper, the clock "
             "toggled from C++, no cocotb); and under cocotb with Python waiting on one Timer "
             "(*cocotb*: the same build in the engine's main loop, with cocotb's VPI "
             "callbacks); *raw, working*: the raw harness's timed loop per cycle. "
             "*engine*: the engine build the point was measured on: "
             + "; ".join(f"*{k}*: {v}" for k, v in ENGINE_BUILDS.items()) + ".", "",
             "| design | N | engine (ops/s) | simulator share | without Python (ops/s) | "
             "without Python / raw | raw ns / cycle, working | idle ns / cycle: raw | "
             "engine build | cocotb | cocotb / raw, idle | engine |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    overheads: dict[str, list[float]] = {}
    for p in rows:
        cocotb_ns, idle_ns = med(p, "floor", "cocotb_ns"), med(p, "floor", "raw_idle_ns")
        floor: Record = p["floor"]
        alone_key = next((k for k in ("engine_build_ns", "timing_ns") if k in floor), None)
        alone = f"{med(p, 'floor', alone_key):.0f}" if alone_key else "–"
        clock = str(floor.get("engine", "main loop, wide ports" if "engine_build_ns" in floor
                              else "hdl clock"))
        overheads.setdefault(clock, []).append(cocotb_ns / idle_ns)
        no_py = med(p, "verilator_engine", "no_python_ops_per_s")
        lines.append(
            f"| {p['design']} | {p['n']} | {med(p, 'verilator_engine', 'ops_per_s'):.1f} | "
            f"{med(p, 'verilator_engine', 'sim_share'):.2f} | {no_py:.1f} | "
            f"{no_py / med(p, 'raw', 'ops_per_s'):.2f} | {med(p, 'raw', 'ns_per_cycle'):.0f} | "
            f"{idle_ns:.0f} | {alone} | {cocotb_ns:.0f} | {cocotb_ns / idle_ns:.1f} | {clock} |")
    kinds = [k for k in ENGINE_BUILDS if k in overheads]  # newest last
    lines += ["", "An idle clock cycle under cocotb costs, against the raw harness (median over "
              "the rows of each engine build): " + "; ".join(
                  f"{statistics.median(overheads[k]):.1f} times on *{k}* "
                  f"({len(overheads[k])} row{'s' * (len(overheads[k]) > 1)})"
                  for k in reversed(kinds)) + "."]
    return lines


def plot(results: Record, out: Path) -> list[Path]:
    try:
        import matplotlib  # noqa: PLC0415 - optional: no plot without it

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415 - after matplotlib.use
    except ImportError as exc:
        raise BenchError("matplotlib is not installed; run `make setup`") from exc
    points = [p for p in results["points"] if not p.get("stream")]
    labels = [f"{p['design']}\nn={p['n']}" for p in points]
    fig, ax = plt.subplots(figsize=(max(6, len(labels) * 0.9), 4))
    series = {"raw": "raw C++ harness", "verilator_engine": "Verilator, engine",
              "verilator": "Verilator, pins", "icarus_engine": "Icarus, engine",
              "icarus": "Icarus, pins"}
    width = 0.8 / len(series)
    for i, (key, label) in enumerate(series.items()):
        vals = [p[key]["ops_per_s"]["median"] if key in p else 0 for p in points]
        ax.bar([x + (i - len(series) / 2 + 0.5) * width for x in range(len(labels))], vals,
               width, label=label)
    ax.set_yscale("log")
    ax.set_ylabel("checked operations / s")
    ax.set_xticks(range(len(labels)), labels, fontsize=7)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "throughput.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def write(results: Record, out: Path) -> None:
    writable(out).mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "results.md").write_text(render_md(results))
    written = plot(results, out)
    for path in [out / "results.json", out / "results.md", *written]:
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
