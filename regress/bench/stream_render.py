"""The streaming designs' part of results.md: the streaming testbench against the raw harness
of the core alone (regress/bench/stream_point.py), and the goal of issue 61."""

from __future__ import annotations

from montverif.regress.bench.common import Record
from montverif.spec.stream_top import DEPTH

# Issue 61: the pipelined design at STREAM_GOAL_N, one operation issued a clock, checked
# operations per second at least STREAM_GOAL_RATIO of the raw harness's
STREAM_GOAL_N, STREAM_GOAL_RATIO = 384, 0.5
RATIOS = ("stream_over_raw", "stream_over_raw_whole", "stream_inline_over_raw",
          "stream_inline_over_raw_whole")


def stream_ratios(point: Record) -> dict[str, float]:
    """A streaming point's paired ratios (the median of each repeat's)."""
    paired: dict[str, dict[str, float]] = point.get("paired", {})
    return {key: paired[key]["median"] for key in RATIOS if key in paired}


def _stat(stat: Record, digits: int) -> str:
    return f"{stat['median']:.{digits}f} ({stat['low']:.{digits}f}–{stat['high']:.{digits}f})"


def _row(p: Record) -> str:
    if "error" in p:
        return f"| {p['design']} | {p['n']} | error: {p['error']} |" + " |" * 8
    tb, inline, raw = p["verilator_stream"], p["verilator_stream_inline"], p["raw_stream"]
    params = ", ".join(f"{k} = {v}" for k, v in p.get("params", {}).items()) or "–"
    pair = p["paired"]
    return (f"| {p['design']} | {p['n']} | {params} | {_stat(tb['ops_per_s'], 1)} | "
            f"{_stat(inline['ops_per_s'], 1)} | {_stat(raw['ops_per_s'], 1)} | "
            f"{_stat(pair['stream_over_raw'], 2)} | {_stat(pair['stream_over_raw_whole'], 2)} | "
            f"{_stat(pair['stream_inline_over_raw'], 2)} | "
            f"{raw['ns_per_cycle']['median']:,.0f} | {tb['ops']} | {str(p['git'])[:7]} |")


def goal_line(points: list[Record]) -> list[str]:
    rows = [p for p in points if p["n"] == STREAM_GOAL_N and "error" not in p]
    if not rows:
        return []
    parts = []
    for p in rows:
        r = stream_ratios(p)
        verdict = "met" if r["stream_over_raw"] >= STREAM_GOAL_RATIO else "not met"
        parts.append(f"{p['design']}: {verdict}, {r['stream_over_raw']:.2f} in the steady "
                     f"state ({r['stream_over_raw_whole']:.2f} over the test's whole time; "
                     f"{r['stream_inline_over_raw']:.2f} with the checks inline)")
    return ["", f"Goal: a streaming design at N = {STREAM_GOAL_N} with one operation issued "
            f"a clock at least {STREAM_GOAL_RATIO:.0%} of the raw harness. " +
            "; ".join(parts) + "."]


def stream_section(points: list[Record]) -> list[str]:
    """The streaming points' table and goal (nothing without a streaming point)."""
    rows = [p for p in points if p.get("stream")]
    if not rows:
        return []
    lines = ["", "## Streaming designs", "",
             "The streaming testbench (`VectorFullRateTest`: the vectors offered one a clock, "
             "every result taken at once, each checked against the bit-accurate model and "
             "gmpy2 with its latency and interval, coverage sampled) beside the raw harness "
             "of the core alone (regress/bench/stream_harness.cpp: its valid and ready held "
             "high from C++, no engine, no Python, every result checked against gmpy2 "
             "afterwards) on the same operations. The testbench's figure is its steady state: "
             "from the second batch's start to the last check, over the operations after the "
             f"first batch (a batch: up to {DEPTH} operations between two wakes of Python; "
             "the pipeline drains between batches). *thread*: each batch checked on a worker "
             "thread while the simulator runs the next (a spare core); *inline*: the checks "
             "between batches, as on one core.", "",
             "| design | N | parameters | testbench, thread (ops/s) | testbench, inline | "
             "raw harness | thread / raw | thread / raw, whole test | inline / raw | "
             "raw ns / cycle | ops a run | git |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [_row(p) for p in rows]
    return lines + goal_line(rows)
