"""Coverage closure: merge a regression's coverage, check the goals, report, and close holes.

    montverif closure merge RESULTS_DIR [--enforce]     write RESULTS_DIR/coverage/
    montverif closure report RESULTS_DIR [--format text|markdown|json] [--out FILE]
    montverif closure run --dut D [--n 32] [--busw 32] [--sim verilator] [--params ..]
        [--txns 20] [--budget-seeds 40] [--budget-min 15] [--jobs 2] [--no-steer] [--out DIR]
    montverif closure compare --duts D1,D2 [same options as run]
        steered vs plain random on the same seeds: a markdown table (docs/closure.md)

Goals: `[coverage] goal = <percent>` (and `waive = [...]` for unreachable bins) in
verif/configs/<dut>.toml, the one place they are declared (regress/coverage.py). A list of
regress/lists.toml with `coverage_goals = true` (nightly) fails when a DUT misses its goal:
`regress run` calls `after_regression` which merges, prints the closure table and returns 1.

`run` simulates seeds of one DUT, JOBS at a time, until every goal of that DUT is met or the
budget (seeds or minutes) runs out. After each batch it merges the coverage, turns the
uncovered bins into steering targets (verif/steer.py) and passes them to the next batch in
MV_BIAS (`--no-steer`: plain random, the same seeds). Seeds and wall time to closure are
printed and written to <out>/closure.json. Exit 0 closed, 1 budget exhausted, 2 bad input.
The summary schema of RESULTS_DIR/coverage/summary.json is in regress/coverage.py.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
import tomllib
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from montverif.regress import codecov, sim, tools
from montverif.regress import coverage as cov
from montverif.regress.sim import ALL_TESTS, BuildSpec, RunSpec
from montverif.verif.config import ConfigError, parse_params
from montverif.verif.steer import Bias, Target

LISTS_FILE = Path(__file__).resolve().with_name("lists.toml")
CLOSURE_ROOT = sim.BUILD_ROOT / "closure"
SHOWN_BINS = 8  # uncovered bins named per DUT in the terminal table


# --- goals of a list ------------------------------------------------------------------------
def enforced(list_name: str, lists_file: Path = LISTS_FILE) -> bool:
    """Whether the list declares `coverage_goals = true`."""
    try:
        raw = tomllib.loads(lists_file.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return False  # regress.run reports an unreadable lists file itself
    flag = raw.get(list_name, {}).get("coverage_goals", False)
    return flag is True


# --- formatting -----------------------------------------------------------------------------
def _names(bins: list[str], dut: str, limit: int | None) -> str:
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
            line += f"  uncovered: {_names(d['uncovered'], dut, limit)}"
        lines.append(line)
    o = summary["overall"]
    lines.append(f"{'overall':<{width}} {o['covered']:>4}/{o['total']:<4} {o['percent']:>7.2f}%")
    if code := summary.get("code"):
        lines.append(code.get("line_text", ""))
    return "\n".join(line for line in lines if line)


def format_text(summary: dict) -> str:
    """The full closure report: table, every uncovered bin, first-hit runs."""
    parts = [format_table(summary, None)]
    for dut, d in summary["duts"].items():
        lines = [f"{dut}: {d['covered']}/{d['total']} bins ({d['percent']:.2f}%), goal "
                 f"{d['goal']:.1f}% {'met' if d['met'] else 'MISSED'}, {d['runs']} run(s)"]
        lines += [f"  uncovered: {b}" for b in d["uncovered"]]
        lines += [f"  waived:    {b} ({d.get('waive_reason', '')})" for b in d.get("waived", [])]
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
        lines.append("")
    return "\n".join(lines)


def missed_message(summary: dict) -> list[str]:
    """One line per DUT below its goal, naming the missing bins."""
    return [f"coverage goal missed: {dut} {d['percent']:.2f}% < {d['goal']:.1f}% "
            f"(missing {len(d['uncovered'])}: {_names(d['uncovered'], dut, None)})"
            for dut, d in summary["duts"].items() if not d["met"]]


# --- the hook of `regress run` --------------------------------------------------------------
def after_regression(results: Path, list_name: str, lists_file: Path = LISTS_FILE,
                     shard: bool = False) -> bool:
    """Merge the regression's coverage, print the closure table; False when the list
    enforces goals and a DUT missed its goal (the message names DUT and bins). A shard
    (shard=True) only merges and reports: the goals apply to the merged shards."""
    enforce = enforced(list_name, lists_file) and not shard
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
    elif shard and enforced(list_name, lists_file) and missed:
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
        return Target(**{point[-1]: label})
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
def _write_summary(out: Path, dut: str, runs: list[tuple[RunSpec, sim.Outcome]]) -> None:
    """A regression-style summary.json (the runs in seed order) for the coverage merge; a
    steered run's repro command carries the bias it ran with."""
    records = [{"key": r.key, "dut": dut, "seed": r.seed, "status": "PASS" if o.passed else
                "FAIL", "first_error": o.first_error, "log_dir": str(o.log_dir),
                "wall_s": round(o.wall_s, 3), "bias": r.bias or None, "repro": r.repro()}
               for r, o in runs]
    (out / "summary.json").write_text(json.dumps({"list": f"closure-{dut}", "runs": records},
                                                 indent=1) + "\n")


def _execute(run: RunSpec, out: Path) -> sim.Outcome:
    try:
        return sim.execute(run, out / "runs" / run.key)
    except (ConfigError, tools.ToolError) as exc:
        return sim.Outcome(run, False, out / "runs" / run.key, first_error=str(exc))


def closure_loop(spec: BuildSpec, txns: int, tests: tuple[str, ...], budget_seeds: int,
                 budget_s: float, jobs: int, steer: bool, out: Path, base_seed: int = 1
                 ) -> dict[str, object]:
    from concurrent.futures import ThreadPoolExecutor

    from montverif.regress.run import derive_seed

    design = sim.validate(RunSpec(spec, txns=txns, tests=tests))
    t0 = time.monotonic()
    sim.build(spec, design)
    build_s = time.monotonic() - t0
    out.mkdir(parents=True, exist_ok=True)
    done: list[tuple[RunSpec, sim.Outcome]] = []
    history: list[dict[str, object]] = []
    bias: Bias | None = None
    summary: dict = {}
    t_start = time.monotonic()
    met = False
    while len(done) < budget_seeds and time.monotonic() - t_start < budget_s:
        steering = bias.to_json() if bias is not None and steer else ""
        batch = [RunSpec(spec, seed=derive_seed(base_seed, spec.key, i), txns=txns, tests=tests,
                         bias=steering)
                 for i in range(len(done), min(budget_seeds, len(done) + jobs))]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            done += list(zip(batch, pool.map(lambda r: _execute(r, out), batch), strict=True))
        _write_summary(out, spec.dut, done)
        summary = cov.merge_results(out)
        d = summary["duts"].get(spec.dut, {"covered": 0, "total": 0, "percent": 0.0,
                                           "met": False, "uncovered": []})
        elapsed = time.monotonic() - t_start
        history.append({"seeds": len(done), "wall_s": round(elapsed, 1),
                        "covered": d["covered"], "total": d["total"],
                        "percent": d["percent"],
                        "steered": bool(bias is not None and steer)})
        print(f"[closure] {len(done)} seed(s) {elapsed:6.1f}s {d['covered']}/{d['total']} "
              f"({d['percent']:.2f}%){' steered' if history[-1]['steered'] else ''}"
              + (f"  holes: {_names(d['uncovered'], spec.dut, 4)}" if d["uncovered"] else ""),
              file=sys.stderr, flush=True)
        if d["met"]:
            met = True
            break
        bias = bias_for(spec.dut, d["uncovered"])
    wall = time.monotonic() - t_start
    d = summary.get("duts", {}).get(spec.dut, {})
    result = {"dut": spec.dut, "config": spec.key, "steer": steer, "met": met,
              "seeds": len(done), "wall_s": round(wall, 1), "build_s": round(build_s, 1),
              "failed_runs": [r.key for r, o in done if not o.passed],
              "covered": d.get("covered", 0), "total": d.get("total", 0),
              "percent": d.get("percent", 0.0), "uncovered": d.get("uncovered", []),
              "history": history, "build": asdict(spec), "txns": txns, "tests": list(tests)}
    (out / "closure.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


# --- command line ---------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="montverif closure", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    mg = sub.add_parser("merge", help="merge a results folder's coverage into coverage/")
    mg.add_argument("results")
    mg.add_argument("--enforce", action="store_true", help="exit 1 when a DUT misses its goal")
    rp = sub.add_parser("report", help="print the closure report of a results folder")
    rp.add_argument("results")
    rp.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    rp.add_argument("--out", help="write to this file instead of stdout")
    rn = sub.add_parser("run", help="run seeds of one DUT until its goals are met")
    rn.add_argument("--dut", required=True)
    cp = sub.add_parser("compare", help="steered vs plain random closure (markdown table)")
    cp.add_argument("--duts", required=True, help="comma-separated DUTs")
    for p in (rn, cp):
        _run_options(p)
    return ap


def _run_options(rn: argparse.ArgumentParser) -> None:
    rn.add_argument("--n", type=int, default=32)
    rn.add_argument("--busw", type=int, default=32)
    rn.add_argument("--sim", default="verilator", choices=tools.SIMULATORS)
    rn.add_argument("--params", default="", help="build parameters beyond N, e.g. W=8,P=2")
    rn.add_argument("--txns", type=int, default=20)
    rn.add_argument("--tests", default=",".join(ALL_TESTS))
    rn.add_argument("--budget-seeds", type=int, default=40)
    rn.add_argument("--budget-min", type=float, default=15.0)
    rn.add_argument("--jobs", type=int, default=2)
    rn.add_argument("--seed", type=int, default=1, help="base seed (seeds derived as regress)")
    rn.add_argument("--no-steer", action="store_true", help="plain random (for comparison)")
    rn.add_argument("--out", help="results folder (default build/closure/<dut>-<mode>-<time>)")


def _compare(args: argparse.Namespace) -> int:
    """Each DUT closed twice from the same seeds: steered, then plain random."""
    lines = ["| DUT | N | mode | closed | seeds | wall s | bins | still uncovered |",
             "|---|---:|---|---|---:|---:|---:|---|"]
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for dut in (d for d in args.duts.split(",") if d):
        for steer in (True, False):
            mode = "steered" if steer else "random"
            spec = BuildSpec(dut, args.n, args.busw, args.sim,
                             params=tuple(sorted(parse_params(args.params).items())))
            res = closure_loop(spec, args.txns, _tests(args), args.budget_seeds,
                               args.budget_min * 60, args.jobs, steer,
                               CLOSURE_ROOT / f"compare-{stamp}" / f"{dut}-{mode}", args.seed)
            lines.append(f"| {dut} | {args.n} | {mode} | {'yes' if res['met'] else 'no'} | "
                         f"{res['seeds']} | {res['wall_s']:.1f} | {res['covered']}/"
                         f"{res['total']} | {_names(res['uncovered'], dut, None) or '-'} |")
            print(lines[-1], file=sys.stderr, flush=True)
    print(f"Measured with `montverif closure compare --duts {args.duts} --n {args.n} "
          f"--txns {args.txns} --budget-seeds {args.budget_seeds} --jobs {args.jobs}"
          f"{f' --seed {args.seed}' if args.seed != 1 else ''}` "
          f"({args.sim}, base seed {args.seed}):\n")
    print("\n".join(lines))
    return 0


def _tests(args: argparse.Namespace) -> tuple[str, ...]:
    tests = tuple(t for t in args.tests.split(",") if t)
    if unknown := [t for t in tests if t not in ALL_TESTS]:
        raise ConfigError(f"unknown test(s) {', '.join(unknown)} (known: {', '.join(ALL_TESTS)})")
    return tests


def _report(args: argparse.Namespace) -> int:
    summary = cov.load_summary(Path(args.results))
    text = {"text": format_text, "markdown": format_markdown,
            "json": lambda s: json.dumps(s, indent=1)}[args.format](summary)
    if args.out:
        Path(args.out).write_text(text + "\n")
    else:
        print(text)
    return 0


def _check(args: argparse.Namespace) -> None:
    for opt in ("txns", "budget_seeds", "jobs"):
        if getattr(args, opt) < 1:
            raise ConfigError(f"--{opt.replace('_', '-')} must be at least 1")
    if args.budget_min <= 0:
        raise ConfigError("--budget-min must be positive")


def _run(args: argparse.Namespace) -> int:
    tests = _tests(args)
    spec = BuildSpec(args.dut, args.n, args.busw, args.sim,
                     params=tuple(sorted(parse_params(args.params).items())))
    mode = "random" if args.no_steer else "steer"
    out = Path(args.out) if args.out else CLOSURE_ROOT / (
        f"{args.dut}-{mode}-{datetime.now().strftime('%Y%m%d-%H%M%S')}")
    res = closure_loop(spec, args.txns, tests, args.budget_seeds, args.budget_min * 60,
                       args.jobs, not args.no_steer, out, args.seed)
    verdict = "closed" if res["met"] else "NOT closed (budget exhausted)"
    print(f"{args.dut} ({mode}): {verdict} after {res['seeds']} seed(s), {res['wall_s']:.1f}s "
          f"wall with {args.jobs} job(s); {res['covered']}/{res['total']} bins "
          f"({res['percent']:.2f}%); results in {out}")
    if not res["met"]:
        print(f"  uncovered: {_names(res['uncovered'], args.dut, None)}")
    if res["failed_runs"]:
        print(f"  failing runs (not merged): {', '.join(res['failed_runs'])}")
    return 0 if res["met"] else 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "merge":
            summary = cov.merge_results(Path(args.results), args.enforce)
            print(format_table(summary))
            missed = missed_message(summary)
            for line in missed if args.enforce else []:
                print(f"error: {line}", file=sys.stderr)
            return 1 if args.enforce and missed else 0
        if args.command == "report":
            return _report(args)
        _check(args)
        return _compare(args) if args.command == "compare" else _run(args)
    except (cov.CoverageError, ConfigError, tools.ToolError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
