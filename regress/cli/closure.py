"""Coverage closure: merge a regression's coverage, check the goals, report, and close holes.

    montverif closure merge RESULTS_DIR [--enforce]     write RESULTS_DIR/coverage/
    montverif closure report RESULTS_DIR [--format text|markdown|json] [--out FILE]
    montverif closure run --dut D [--n 32] [--busw 32] [--sim verilator] [--params ..]
        [--txns 20] [--budget-seeds 40] [--budget-min 15] [--jobs 2] [--no-steer] [--out DIR]
        [--formal [--formal-timeout 600]]
    montverif closure compare --duts D1,D2 [same options as run]
        steered vs plain random on the same seeds: a markdown table (docs/closure.md)

`run` simulates seeds of one DUT, JOBS at a time, until every goal of that DUT is met or the
budget (seeds or minutes) runs out; after each batch the uncovered bins steer the next
(`--no-steer`: plain random, the same seeds). `--formal` first runs SBY covers of the
design's observed bins at the point (`montverif formal --dut D --covers`): a bin proved
unreachable there leaves the total, with the proof as the reason; the witnesses of the
reached ones are replayed as vectors in the first batch. Exit 0 closed, 1 budget exhausted,
2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from montverif.host import claim, tools
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.regress.cli.args import Parser, bounded, distinct, fail
from montverif.regress.coverage import merge as cov
from montverif.regress.coverage.closure import (
    bin_names,
    closure_loop,
    closure_root,
    format_markdown,
    format_table,
    format_text,
    missed_message,
)
from montverif.regress.flow.spec import ALL_TESTS, BuildSpec
from montverif.spec.bounds import BUS_WIDTH, JOBS, MINUTES, SEED, SEEDS, TIMEOUT_S, TXNS, WIDTH
from montverif.spec.designs import load_design
from montverif.spec.params import parse_params


def _parser() -> argparse.ArgumentParser:
    ap = Parser("montverif closure", __doc__)
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)
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
    rn.add_argument("--n", type=bounded(WIDTH), default=32, help="operand width N")
    rn.add_argument("--busw", type=bounded(BUS_WIDTH), default=32, help="bus width")
    rn.add_argument("--sim", default="verilator", choices=tools.SIMULATORS)
    rn.add_argument("--params", default="", help="build parameters beyond N, e.g. W=8,P=2")
    rn.add_argument("--txns", type=bounded(TXNS), default=20, help="random operations per run")
    rn.add_argument("--tests", default=",".join(ALL_TESTS))
    rn.add_argument("--budget-seeds", type=bounded(SEEDS), default=40,
                    help="most seeds before giving up")
    rn.add_argument("--budget-min", type=bounded(MINUTES), default=15.0,
                    help="most wall-clock minutes before giving up")
    rn.add_argument("--jobs", type=bounded(JOBS), default=2, help="seeds simulated at a time")
    rn.add_argument("--seed", type=bounded(SEED), default=1,
                    help="base seed (seeds derived as regress)")
    rn.add_argument("--no-steer", action="store_true", help="plain random (for comparison)")
    rn.add_argument("--one-point", action="store_true",
                    help="only --n: no other build points for the bins it cannot reach "
                         "(they are reported as unreachable, not as holes)")
    rn.add_argument("--out", help="results folder (default build/closure/<dut>-<mode>-<time>)")
    rn.add_argument("--force", action="store_true",
                    help="replace the closure an --out folder holds (never anything else)")
    rn.add_argument("--formal", action="store_true",
                    help="SBY covers at the point first: bins proved unreachable leave the "
                         "total, witnesses of the others run as vectors (docs/closure.md)")
    rn.add_argument("--formal-timeout", type=bounded(TIMEOUT_S), default=600,
                    help="--formal: seconds per SBY cover task (600)")


def _compare(args: argparse.Namespace) -> int:
    """Each DUT closed twice from the same seeds: steered, then plain random."""
    lines = ["| DUT | N | mode | closed | seeds | wall s | bins | still uncovered |",
             "|---|---:|---|---|---:|---:|---:|---|"]
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for dut in (d for d in args.duts.split(",") if d):
        for steer in (True, False):
            mode = "steered" if steer else "random"
            spec = BuildSpec(dut, args.n, args.busw, args.sim,
                             params=tuple(sorted(load_design(dut).normalize(parse_params(args.params)))))
            out = closure_root() / f"compare-{stamp}" / f"{dut}-{mode}"
            with claim.output(out, claim.CLOSURE):
                res = closure_loop(spec, args.txns, _tests(args), args.budget_seeds,
                                   args.budget_min * 60, args.jobs, steer, out, args.seed,
                                   not args.one_point)
            lines.append(f"| {dut} | {args.n} | {mode} | {'yes' if res['met'] else 'no'} | "
                         f"{res['seeds']} | {res['wall_s']:.1f} | {res['covered']}/"
                         f"{res['total']} | {bin_names(res['uncovered'], dut, None) or '-'} |")
            print(lines[-1], file=sys.stderr, flush=True)
    print(f"Measured with `montverif closure compare --duts {args.duts} --n {args.n} "
          f"--txns {args.txns} --budget-seeds {args.budget_seeds} --jobs {args.jobs}"
          f"{f' --seed {args.seed}' if args.seed != 1 else ''}` "
          f"({args.sim}, base seed {args.seed}):\n")
    print("\n".join(lines))
    return 0


def _tests(args: argparse.Namespace) -> tuple[str, ...]:
    try:
        tests = tuple(distinct(args.tests, "--tests"))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
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
    """What the parser cannot check (the numbers are checked as parsed, within their bounds)."""
    if args.command == "compare":
        try:
            distinct(args.duts, "--duts")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if args.formal and args.command == "compare":
        raise ConfigError("--formal is run's (closure run --formal)")


def _run(args: argparse.Namespace) -> int:
    tests = _tests(args)
    spec = BuildSpec(args.dut, args.n, args.busw, args.sim,
                     params=tuple(sorted(load_design(args.dut).normalize(parse_params(args.params)))))
    mode = "random" if args.no_steer else "steer"
    out = (Path(args.out) if args.out else closure_root() / (
        f"{args.dut}-{mode}-{datetime.now().strftime('%Y%m%d-%H%M%S')}")).resolve()
    with claim.output(out, claim.CLOSURE, Mode.REPLACE if args.force else Mode.NEW):
        res = closure_loop(spec, args.txns, tests, args.budget_seeds, args.budget_min * 60,
                           args.jobs, not args.no_steer, out, args.seed, not args.one_point,
                           args.formal, args.formal_timeout)
    verdict = "closed" if res["met"] else "NOT closed (budget exhausted)"
    print(f"{args.dut} ({mode}): {verdict} after {res['seeds']} seed(s), {res['wall_s']:.1f}s "
          f"wall with {args.jobs} job(s); {res['covered']}/{res['total']} bins "
          f"({res['percent']:.2f}%); results in {out}")
    if not res["met"]:
        print(f"  uncovered: {bin_names(res['uncovered'], args.dut, None)}")
    if res.get("contradicted"):
        print(f"  hit although SBY proved them unreachable (the proof and the simulation "
              f"disagree): {bin_names(res['contradicted'], args.dut, None)}")
    if res["failed_runs"]:
        print(f"  failing runs (not merged): {', '.join(res['failed_runs'])}")
    return 0 if res["met"] else 1


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "merge":
            with claim.existing(Path(args.results).resolve(), (claim.REGRESSION, claim.CLOSURE)):
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
        return fail(exc)
