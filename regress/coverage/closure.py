"""Coverage closure: merge a regression's coverage, check the goals, report, and close holes.

    montverif closure merge RESULTS_DIR [--enforce]     write RESULTS_DIR/coverage/
    montverif closure report RESULTS_DIR [--format text|markdown|json] [--out FILE]
    montverif closure run --dut D [--n 32] [--busw 32] [--sim verilator] [--params ..]
        [--txns 20] [--budget-seeds 40] [--budget-min 15] [--jobs 2] [--no-steer] [--out DIR]
        [--formal [--formal-timeout 600]]
    montverif closure compare --duts D1,D2 [same options as run]
        steered vs plain random on the same seeds: a markdown table (docs/closure.md)

Goals: `[coverage] goal = <percent>` (and `waive = [...]` for unreachable bins) in the DUT's
descriptor (hdl/<family>/<dut>.toml), the one place they are declared. A list of
regress/lists.toml with `coverage_goals = true` (nightly) fails when a DUT misses its goal:
`regress run` calls `after_regression` which merges, prints the closure table and returns 1.

`run` simulates seeds of one DUT, JOBS at a time, until every goal of that DUT is met or the
budget (seeds or minutes) runs out. After each batch it merges the coverage, turns the
uncovered bins into steering targets (verif/steer.py) and passes them to the next batch in
MV_BIAS (`--no-steer`: plain random, the same seeds). Seeds and wall time to closure are
printed and written to <out>/closure.json. Exit 0 closed, 1 budget exhausted, 2 bad input.
The summary schema of RESULTS_DIR/coverage/summary.json is in regress/coverage/merge.py.
"""

from __future__ import annotations

import ast
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from montverif.host import tools
from montverif.host.errors import ConfigError
from montverif.host.paths import work
from montverif.models.registry import get_algo
from montverif.regress.coverage import code as codecov
from montverif.regress.coverage import merge as cov
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import check, simulate
from montverif.regress.flow.spec import VECTOR_TESTS, BuildSpec, Outcome, RunSpec
from montverif.regress.formal import formal_cover
from montverif.regress.regression.seeds import derive_seed
from montverif.spec.designs import load_design
from montverif.verif.env.coverage import WIDTH_RANGES, unreachable, widths_text
from montverif.verif.steer import Bias, Target


def closure_root() -> Path:
    """The closure runs' folders."""
    return work("closure")


SHOWN_BINS = 8  # uncovered bins named per DUT in the terminal table


# --- formatting -----------------------------------------------------------------------------
def bin_names(bins: list[str], dut: str, limit: int | None) -> str:
    short = [b.removeprefix(dut + ".") for b in bins]
    if limit is not None and len(short) > limit:
        return ", ".join(short[:limit]) + f", ... ({len(short) - limit} more)"
    return ", ".join(short)


def format_table(summary: dict, limit: int | None = SHOWN_BINS) -> str:
    duts: dict[str, dict] = summary["duts"]
    if not duts:
        return f"coverage: no run with coverage ({len(summary['skipped_runs'])} skipped)"
    width = max(len("dut"), *map(len, duts))
    head = f"{'dut':<{width}} {'covered':>9} {'percent':>8} {'goal':>6}  status"
    lines = [f"functional coverage: {summary['runs']} run(s) merged"
             + (" (goals enforced)" if summary.get("enforce") else ""), head, "-" * len(head)]
    for dut, d in duts.items():
        status = "met" if d["met"] else "MISSED"
        line = (f"{dut:<{width}} {d['covered']:>4}/{d['total']:<4} {d['percent']:>7.2f}% "
                f"{d['goal']:>5.1f}%  {status}")
        if d["uncovered"]:
            line += f"  uncovered: {bin_names(d['uncovered'], dut, limit)}"
        if away := d.get("unreachable"):
            line += f"  ({len(away)} not reachable at N={_widths(d)})"
        lines.append(line)
    o = summary["overall"]
    lines.append(f"{'overall':<{width}} {o['covered']:>4}/{o['total']:<4} {o['percent']:>7.2f}%")
    if code := summary.get("code"):
        lines.append(code.get("line_text", ""))
    return "\n".join(line for line in lines if line)


def _widths(d: dict) -> str:
    return ", ".join(map(str, d.get("widths", []))) or "?"


def format_text(summary: dict) -> str:
    """The full closure report: table, every uncovered bin, first-hit runs."""
    parts = [format_table(summary, None)]
    for dut, d in summary["duts"].items():
        lines = [f"{dut}: {d['covered']}/{d['total']} bins ({d['percent']:.2f}%), goal "
                 f"{d['goal']:.1f}% {'met' if d['met'] else 'MISSED'}, {d['runs']} run(s)"]
        lines += [f"  uncovered: {b}" for b in d["uncovered"]]
        lines += [f"  waived:    {b} ({d.get('waive_reason', '')})" for b in d.get("waived", [])]
        lines += [f"  unreachable: {b} ({why})" for b, why in d.get("unreachable", {}).items()]
        lines += [f"  first hit: {b} <- {key}" for b, key in d["first_hit"].items()]
        parts.append("\n".join(lines))
    if summary["skipped_runs"]:
        parts.append("not merged: " + ", ".join(f"{k} ({why})"
                                                for k, why in summary["skipped_runs"].items()))
    return "\n\n".join(parts)


def format_markdown(summary: dict) -> str:
    lines = ["# Functional coverage", "",
             f"{summary['runs']} run(s) merged from `{summary['results']}`.", "",
             "| DUT | covered | total | percent | goal | status | uncovered |",
             "|---|---:|---:|---:|---:|---|---|"]
    for dut, d in summary["duts"].items():
        unc = "<br>".join(f"`{b.removeprefix(dut + '.')}`" for b in d["uncovered"]) or "-"
        lines.append(f"| {dut} | {d['covered']} | {d['total']} | {d['percent']:.2f}% | "
                     f"{d['goal']:.1f}% | {'met' if d['met'] else '**MISSED**'} | {unc} |")
    o = summary["overall"]
    lines += [f"| overall | {o['covered']} | {o['total']} | {o['percent']:.2f}% | | | |", ""]
    for dut, d in summary["duts"].items():
        lines += [f"## {dut}", "", "| bin | first hit (run key) |", "|---|---|"]
        lines += [f"| `{b}` | {k} |" for b, k in d["first_hit"].items()]
        lines += [f"| `{b}` | **not hit** |" for b in d["uncovered"]]
        lines += [f"| `{b}` | waived: {d.get('waive_reason', '')} |" for b in d.get("waived", [])]
        lines += [f"| `{b}` | {why} |" for b, why in d.get("unreachable", {}).items()]
        lines.append("")
    return "\n".join(lines)


def missed_message(summary: dict) -> list[str]:
    """One line per DUT below its goal, naming the missing bins."""
    return [f"coverage goal missed: {dut} {d['percent']:.2f}% < {d['goal']:.1f}% "
            f"(missing {len(d['uncovered'])}: {bin_names(d['uncovered'], dut, None)})"
            for dut, d in summary["duts"].items() if not d["met"]]


# --- the hook of `regress run` --------------------------------------------------------------
def after_regression(results: Path, goals: bool, shard: bool = False) -> bool:
    """Merge the regression's coverage, print the closure table; False when the list
    enforces goals and a DUT missed its goal (the message names DUT and bins). A shard
    (shard=True) only merges and reports: the goals apply to the merged shards."""
    enforce = goals and not shard
    try:
        summary = cov.merge_results(results, enforce)
    except cov.CoverageError as exc:
        print(f"error: coverage merge: {exc}", file=sys.stderr)
        return not enforce
    try:  # Verilator line/toggle coverage of runs built with coverage (COV=1)
        if codecov.merge_code(results) is not None:
            summary = cov.load_summary(results)
    except (tools.ToolError, cov.CoverageError) as exc:
        print(f"error: code coverage merge: {exc}", file=sys.stderr)
    print(format_table(summary), flush=True)
    missed = missed_message(summary)
    if enforce:
        for line in missed:
            print(f"error: {line}", file=sys.stderr, flush=True)
    elif shard and goals and missed:
        print(f"note: {len(missed)} DUT(s) below their goal in this shard; the goals apply to "
              "the merged shards (montverif merge)", flush=True)
    return not (enforce and missed)


# --- steering -------------------------------------------------------------------------------
def target_of(dut: str, bin_name: str) -> Target | None:
    """The steering target of one uncovered bin, or None if random operands cannot reach
    it (error codes: ErrorTest; carry-save halves: CornerTest)."""
    point, _, label = bin_name.removeprefix(dut + ".").partition(":")
    if point == "lut.addr":
        return Target(lut=(int(label),))
    if point in ("operands.x", "operands.y", "operands.m"):
        axis = point[-1]
        return (Target(x=label) if axis == "x" else Target(y=label) if axis == "y"
                else Target(m=label))
    if point == "final_sub":
        return Target(sub=label == "taken")
    if point == "cross.sub_x_m":
        taken, mcls = ast.literal_eval(label)
        return Target(m=mcls, sub=bool(taken))
    return None


def bias_for(dut: str, uncovered: list[str]) -> Bias | None:
    targets = tuple(t for b in uncovered if (t := target_of(dut, b)) is not None)
    return Bias(targets) if targets else None


# --- the closure loop -----------------------------------------------------------------------
def _write_summary(out: Path, dut: str, runs: list[tuple[RunSpec, Outcome]]) -> None:
    """A regression-style summary.json (the runs in seed order) for the coverage merge; a
    steered run's repro command carries the bias it ran with."""
    records = [{"key": r.key, "dut": dut, "n": r.build.n, "seed": r.seed,
                "status": "PASS" if o.passed else
                "FAIL", "first_error": o.first_error, "log_dir": str(o.log_dir),
                "wall_s": round(o.wall_s, 3), "bias": r.bias or None, "repro": r.repro()}
               for r, o in runs]
    (out / "summary.json").write_text(json.dumps({"list": f"closure-{dut}", "runs": records},
                                                 indent=1) + "\n")


def _execute(run: RunSpec, out: Path) -> Outcome:
    try:
        return simulate.execute(run, out / "runs" / run.key)
    except (ConfigError, tools.ToolError) as exc:
        return Outcome(run, False, out / "runs" / run.key, first_error=str(exc))


def plan_points(spec: BuildSpec) -> tuple[list[BuildSpec], dict[str, str]]:
    """The build points beside `spec` that reach what it cannot (one width per width class a
    bin needs, the legal width nearest spec.n), and the bins (below the design) no legal
    point of the design reaches, with why."""
    design = load_design(spec.dut)
    away = unreachable(spec.n, get_algo(design.model).has_field)
    extra: dict[int, BuildSpec] = {}
    never: dict[str, str] = {}
    for name, why in away.items():
        cls = next(c for c in WIDTH_RANGES if widths_text(c) == why)
        lo, hi = WIDTH_RANGES[cls]
        lo, hi = max(lo, design.min_n), min(hi or design.max_n, design.max_n)
        n = min(max(spec.n, lo), hi)
        if lo > hi:
            never[name] = f"{why}, beyond the design's widths {design.min_n}..{design.max_n}"
            continue
        if n not in extra:
            candidate = replace(spec, n=n)
            try:
                check.validate(RunSpec(candidate))
            except ConfigError as exc:
                never[name] = f"{why}: no legal build there ({exc})"
                continue
            extra[n] = candidate
    return [extra[n] for n in sorted(extra)], never


def _holes_at(point: BuildSpec, dut: str, holes: list[str]) -> list[str]:
    """The holes a build at this point can hit."""
    away = unreachable(point.n, get_algo(load_design(dut).model).has_field)
    return [h for h in holes if h.removeprefix(dut + ".") not in away]


def _batch(points: list[BuildSpec], holes: list[str], dut: str, size: int,
           first: bool) -> list[BuildSpec]:
    """The points of the next batch's runs: one run at each other point that is the only
    one able to hit a hole (in the first batch: at each point), the rest, one at least, at
    the main one."""
    main, others = points[0], points[1:]
    at_main = set(_holes_at(main, dut, holes))
    wanted = [p for p in others if first or set(_holes_at(p, dut, holes)) - at_main]
    return [main] * max(1, size - len(wanted)) + wanted


def formal_covers(spec: BuildSpec, out: Path, timeout_s: int) -> formal_cover.CoverRun:
    """The design's SBY covers at the closure's point, in <out>/formal-covers (where the
    merge finds the bins they prove unreachable); their witnesses are a vector file."""
    covers = formal_cover.run(spec.dut, spec.n, dict(spec.params), timeout_s,
                              out / formal_cover.IN_RESULTS)
    proved, reached = covers.with_status("unreachable"), covers.with_status("reached")
    undecided = covers.with_status("undecided")
    print(f"[closure] SBY covers at {formal_cover.point_text(covers.n, covers.params)} "
          f"({covers.seconds:.1f}s): {len(proved)} bin(s) proved unreachable"
          + (f" ({bin_names(proved, spec.dut, 4)})" if proved else "")
          + f", {len(reached)} reached (their witnesses replayed in the first batch)"
          + (f", {len(undecided)} undecided" if undecided else ""),
          file=sys.stderr, flush=True)
    return covers


def closure_loop(spec: BuildSpec, txns: int, tests: tuple[str, ...], budget_seeds: int,
                 budget_s: float, jobs: int, steer: bool, out: Path, base_seed: int = 1,
                 across: bool = True, formal: bool = False, formal_timeout: int = 600
                 ) -> dict[str, Any]:
    """Seeds of `spec` (and, with `across`, of the points that reach the bins it cannot,
    plan_points) until the design's goal is met or the budget is spent; after each batch
    the holes steer the next. Bins no run's width can reach are reported as unreachable,
    not as holes. With `formal`, SBY covers at spec's point first (formal_covers): the bins
    they prove unreachable leave the total there, and the first batch replays their
    witnesses (one run of VectorTest) beside its seeds."""
    design = check.validate(RunSpec(spec, txns=txns, tests=tests))
    if formal and (out / formal_cover.IN_RESULTS).exists():
        raise ConfigError(f"{out / formal_cover.IN_RESULTS} exists: a closure with --formal "
                          "runs in a results folder of its own")
    covers = formal_covers(spec, out, formal_timeout) if formal else None
    extra, never = plan_points(spec) if across else ([], {})
    points = [spec, *extra]
    away = unreachable(spec.n, get_algo(load_design(spec.dut).model).has_field)
    if away:
        plan = (", ".join(f"N={p.n}" for p in extra) if extra else "none (--one-point)"
                if not across else "none")
        print(f"[closure] N={spec.n} cannot reach {len(away)} bin(s) "
              f"({', '.join(sorted(set(away.values())))}); other points: {plan}"
              + (f"; unreachable at any legal width: {len(never)}" if never else ""),
              file=sys.stderr, flush=True)
    t0 = time.monotonic()
    for point in points:
        flow_build.build(point, design)
    build_s = time.monotonic() - t0
    out.mkdir(parents=True, exist_ok=True)
    done: list[tuple[RunSpec, Outcome]] = []
    history: list[dict[str, Any]] = []
    holes: list[str] = []
    summary: dict = {}
    t_start = time.monotonic()
    met = False
    while len(done) < budget_seeds and time.monotonic() - t_start < budget_s:
        at = _batch(points, holes, spec.dut, min(jobs, budget_seeds - len(done)), not done)
        batch = []
        for i, point in enumerate(at, start=len(done)):
            bias = bias_for(spec.dut, _holes_at(point, spec.dut, holes)) if steer else None
            batch.append(RunSpec(point, seed=derive_seed(base_seed, point.key, i), txns=txns,
                                 tests=tests, bias=bias.to_json() if bias is not None else ""))
        if not done and covers is not None and covers.vectors:  # the witnesses, in place of
            batch[0] = RunSpec(spec, seed=batch[0].seed, txns=txns,  # one seed of the first
                               tests=VECTOR_TESTS, vectors=covers.vectors)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            done += list(zip(batch, pool.map(lambda r: _execute(r, out), batch), strict=True))
        _write_summary(out, spec.dut, done)
        summary = cov.merge_results(out)
        d = summary["duts"].get(spec.dut, {"covered": 0, "total": 0, "percent": 0.0,
                                           "met": False, "uncovered": []})
        elapsed = time.monotonic() - t_start
        history.append({"seeds": len(done), "wall_s": round(elapsed, 1),
                        "covered": d["covered"], "total": d["total"],
                        "percent": d["percent"], "points": sorted({r.build.n for r in batch}),
                        "steered": any(r.bias for r in batch)})
        print(f"[closure] {len(done)} seed(s) {elapsed:6.1f}s {d['covered']}/{d['total']} "
              f"({d['percent']:.2f}%){' steered' if history[-1]['steered'] else ''}"
              + (f" at N={', '.join(map(str, history[-1]['points']))}" if extra else "")
              + (f"  holes: {bin_names(d['uncovered'], spec.dut, 4)}" if d["uncovered"] else ""),
              file=sys.stderr, flush=True)
        if d["met"]:
            met = True
            break
        holes = list(d["uncovered"])
    wall = time.monotonic() - t_start
    d = summary.get("duts", {}).get(spec.dut, {})
    result = {"dut": spec.dut, "config": spec.key, "steer": steer, "met": met,
              "seeds": len(done), "wall_s": round(wall, 1), "build_s": round(build_s, 1),
              "points": [p.n for p in points],
              "failed_runs": [r.key for r, o in done if not o.passed],
              "covered": d.get("covered", 0), "total": d.get("total", 0),
              "percent": d.get("percent", 0.0), "uncovered": d.get("uncovered", []),
              "unreachable": d.get("unreachable", {}),
              **({"contradicted": d["contradicted"]} if d.get("contradicted") else {}),
              "formal": None if covers is None else {
                  "folder": covers.folder, "seconds": covers.seconds,
                  "point": formal_cover.point_text(covers.n, covers.params),
                  "proved_unreachable": covers.with_status("unreachable"),
                  "reached": covers.with_status("reached"),
                  "undecided": covers.with_status("undecided"), "vectors": covers.vectors},
              "history": history, "build": asdict(spec), "txns": txns, "tests": list(tests)}
    (out / "closure.json").write_text(json.dumps(result, indent=1) + "\n")
    return result
