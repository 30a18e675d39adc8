"""Benchmarks: testbench throughput against a raw Verilator harness, simulator ratio, build
times, cycle counts against the papers, regression wall time.

    montverif bench [--designs mont_lut,...] [--widths 256,1024] [--txns 200]
                    [--stream-widths 384] [--stream-txns 5120] [--repeat 3]
                    [--sims verilator,icarus] [--lists smoke] [--jobs 1,2]
                    [--out docs/generated/bench]
                    [--merge] [--update] [--fixed-cost]
                    [--wall-from ...] [--ci-from build/act]
    montverif bench --profile DESIGN:N[:pins|engine]

Writes OUT/results.json, results.md and throughput.png (montverif.regress.bench); `make bench`
runs it (with --fixed-cost: a run's fixed cost, one run per simulator process beside runs
batched in one, regress/bench/fixed.py; alone with --update --fixed-cost). `--update --ci-from
build/act` adds the workflow jobs ci/act.sh ran here (regress/bench/cijobs.py).
Exit 0 when every point was measured, 1 when one could not be, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from montverif.host import claim, pages, readback, tools
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.regress.bench import cijobs, render
from montverif.regress.bench.common import (
    BUS_W,
    DEFAULT_OUT,
    BenchError,
    Record,
    bench_build,
    scratch,
)
from montverif.regress.bench.fixed import fixed_cost
from montverif.regress.bench.points import bench_point
from montverif.regress.bench.profile import profile_point
from montverif.regress.bench.stream_point import bench_stream_point
from montverif.regress.bench.walls import (
    pair,
    regression_wall,
    wall_from_results,
    with_efficiency,
)
from montverif.regress.cli.args import (
    Parser,
    Repeated,
    bounded,
    bounded_int,
    distinct,
    fail,
    warn_broken,
)
from montverif.regress.flow.spec import BUS_MODES
from montverif.regress.regression import formal_checks
from montverif.spec.bounds import JOBS, TXNS, WIDTH
from montverif.spec.designs import known_designs, load_design
from montverif.spec.stream_top import DEPTH

Walls = dict[str, Record]
STREAM_WIDTHS = "384"  # issue 61: the pairing and zero-knowledge units' width
STREAM_TXNS = 5 * DEPTH  # five batches of the streaming harness
# what is read back of results.json (checked first: montverif.host.readback)
RESULTS_SHAPE = {"machine": str, "repeat": int, "points": [{"design": str, "n": int}],
                 "cycles": [None], "regressions?": {str: {str: None}},
                 "fixed_cost?": ({str: None}, type(None)), "ci_jobs?": [{str: None}]}


def parser() -> Parser:
    ap = Parser("montverif bench", __doc__)
    ap.add_argument("--designs", default="all", help="comma-separated, or all")
    ap.add_argument("--widths", default="256,1024",
                    help="widths N (a design is measured at those within its widths)")
    ap.add_argument("--stream-widths", default=STREAM_WIDTHS,
                    help="widths N of the streaming designs (the streaming testbench against "
                         "the raw harness of the core alone, one operation a clock)")
    ap.add_argument("--stream-txns", type=bounded(TXNS), default=STREAM_TXNS,
                    help="operations of a streaming run (several batches: the steady window "
                         "starts at the second)")
    ap.add_argument("--sims", default="verilator,icarus")
    ap.add_argument("--txns", type=bounded(TXNS), default=200,
                    help="most operations per Verilator run (steady state, as the raw "
                         "harness's timed loop)")
    ap.add_argument("--icarus-txns", type=bounded(TXNS), default=3,
                    help="operations per Icarus run")
    ap.add_argument("--repeat", type=bounded_int(1, 100), default=3,
                    help="measurements of each point (the median is kept)")
    ap.add_argument("--lists", default="", help="regression lists to time, e.g. smoke")
    ap.add_argument("--jobs", default="1,2",
                    help=f"parallel jobs for the regression timing, each {JOBS.text}")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--wall-from", default="",
                    help="LIST=DIR[,LIST=DIR]: take a list's wall time from a regression "
                         "already run (its summary.json), e.g. a nightly that takes an hour")
    ap.add_argument("--ci-from", type=Path, default=None, metavar="DIR",
                    help="add the workflow jobs ci/act.sh ran (DIR: its build/act; each "
                         "job's record and log) to the table of CI jobs")
    ap.add_argument("--formal-from", type=Path, nargs="+", default=[], metavar="DIR",
                    help="record the formal checks' seconds of regression folders (a "
                         "nightly's formal shards: their summary.json) in "
                         "regress/regression/formal-seconds.json, by which the nightly deals "
                         "its formal shards")
    ap.add_argument("--update", action="store_true",
                    help="keep results.json's throughput and cycle figures; only add the "
                         "regression wall times of --lists / --wall-from and the jobs of "
                         "--ci-from")
    ap.add_argument("--fixed-cost", action="store_true",
                    help="measure a run's fixed cost (one run per simulator process beside "
                         "batched runs, --repeat times); else results.json's is kept")
    ap.add_argument("--merge", action="store_true",
                    help="keep results.json's points that this run does not measure again "
                         "(each point names the git revision it was measured at)")
    ap.add_argument("--profile", default="", metavar="DESIGN:N[:BUS]",
                    help="instead of the benchmarks: where one run's time goes (cProfile of "
                         "a --txns VectorTest on Verilator, bus engine by default)")
    return ap


def _profile(args: argparse.Namespace) -> int:
    name, _, rest = args.profile.partition(":")
    width, _, bus = rest.partition(":")
    design = load_design(name)
    if not width.isdigit() or (bus or "engine") not in BUS_MODES:
        raise ConfigError(f"--profile expects DESIGN:N[:pins|engine], got {args.profile!r}")
    if not design.min_n <= int(width) <= design.max_n:
        raise ConfigError(f"--profile {args.profile}: N={int(width)} is outside {name}'s "
                          f"widths {design.min_n}..{design.max_n}")
    print(profile_point(name, int(width), bus or "engine", args.txns,
                        scratch(bench_build() / "profile" / f"{name}-n{width}")))
    return 0


def _numbers(text: str, option: str, bound: str, convert: Callable[[str], Any]) -> list[int]:
    """A comma-separated option of integers, each within its bound and given once."""
    try:
        return distinct(text, option, convert)
    except Repeated as exc:
        raise ConfigError(str(exc)) from None
    except argparse.ArgumentTypeError as exc:  # out of its bound
        raise ConfigError(f"{option} {text!r}: each {exc}") from None
    except ValueError:
        raise ConfigError(f"{option} {text!r}: expected integers {bound}") from None


def _walls(args: argparse.Namespace) -> Walls:
    """--wall-from: a list's wall times taken from regressions already run (both job counts
    of one list may be given)."""
    walls: Walls = {}
    for name, folder in (pair(item) for item in args.wall_from.split(",") if item):
        walls[name] = walls.get(name, {}) | wall_from_results(Path(folder))
    return walls


def _time_lists(regs: Walls, lists: str, jobs: list[int]) -> None:
    """--lists: each list's wall time at each job count, measured now."""
    for name in (n for n in lists.split(",") if n):
        regs[name] = regression_wall(name, jobs)


def _fixed(repeat: int) -> Record:
    print("bench fixed cost ...", flush=True)
    fixed = fixed_cost(repeat)
    print("  " + ", ".join(f"{k}={fixed[k]['median']:.2f}s"
                           for k in ("command_s", "single_s", "batched_s")), flush=True)
    return fixed


def _take_walls(regs: Walls, walls: Walls) -> None:
    for name, wall in walls.items():
        regs[name] = with_efficiency(regs.get(name, {}) | wall)


def _measure(args: argparse.Namespace, names: list[str], widths: list[int],
             sims: list[str]) -> list[Record]:
    """Every design at every width it supports (a streaming design at --stream-widths, on
    Verilator); a point that cannot run is recorded with its error and does not lose the
    others' measurements."""
    stream_widths = _numbers(args.stream_widths, "--stream-widths", WIDTH.text,
                             bounded(WIDTH))
    points: list[Record] = []
    for name in names:
        design = load_design(name)
        stream = design.stream is not None
        for n in (w for w in (stream_widths if stream else widths)
                  if design.min_n <= w <= design.max_n):
            print(f"bench {name} n={n} ...", flush=True)
            try:
                points.append(bench_stream_point(name, n, args.stream_txns, args.repeat)
                              if stream else bench_point(name, n, sims, args.txns,
                                                         args.repeat, args.icarus_txns))
            except (BenchError, ConfigError, tools.ToolError, ValueError) as exc:
                error = " ".join(str(exc).split())[:300]
                points.append({"design": name, "n": n, "error": error,
                               "git": tools.git_revision(ROOT)} | ({"stream": True}
                                                                    if stream else {}))
                print(f"  error: {error}", flush=True)
                continue
            r = render.ratios(points[-1])
            print("  " + ", ".join(f"{k}={v:.2f}" for k, v in r.items()), flush=True)
    return points


def _record_formal_seconds(folders: list[Path]) -> None:
    """The formal checks' seconds of these regression folders, over those recorded
    (formal_checks.SECONDS_FILE): a check measured again replaces its time."""
    summaries = [f / "summary.json" for f in folders]
    if missing := [str(p) for p in summaries if not p.is_file()]:
        raise ConfigError(f"--formal-from: no {missing[0]} (a regression's folder)")
    try:
        found = formal_checks.seconds_of(summaries)
        revisions = sorted({readback.read_json(p, {"git": str})["git"] for p in summaries})
    except readback.CorruptFile as exc:
        raise BenchError(str(exc)) from None
    if not found:
        raise ConfigError("--formal-from: no formal check ran in "
                          f"{', '.join(map(str, folders))}")
    seconds = formal_checks.measured_seconds() | found
    record = {"git": ", ".join(revisions), "from": f"{len(found)} checks of "
              f"{len(folders)} regression folder(s) at {len(os.sched_getaffinity(0))} cores",
              "seconds": dict(sorted(seconds.items()))}
    pages.write_atomic(formal_checks.SECONDS_FILE, json.dumps(record, indent=1) + "\n")
    print(f"{formal_checks.SECONDS_FILE}: {len(found)} checks' seconds recorded")


def _run(args: argparse.Namespace) -> int:
    names = known_designs() if args.designs == "all" else distinct(args.designs, "--designs")
    if args.designs == "all":
        warn_broken()
    for name in names:
        load_design(name)
    widths = _numbers(args.widths, "--widths", WIDTH.text, bounded(WIDTH))
    sims = distinct(args.sims, "--sims")
    if unknown := [s for s in sims if s not in tools.SIMULATORS]:
        raise ConfigError(f"unknown simulator(s) {', '.join(unknown)}")
    jobs = _numbers(args.jobs, "--jobs", JOBS.text, bounded(JOBS))
    walls = _walls(args)
    ci = cijobs.read(args.ci_from) if args.ci_from is not None else []
    if args.formal_from:
        _record_formal_seconds(args.formal_from)
    old = args.out / "results.json"
    if args.update:
        if not old.is_file():
            raise ConfigError(f"--update: {old} is missing: there are no figures to update "
                              "(run `montverif bench` without --update first)")
        kept: Record = readback.read_json(old, RESULTS_SHAPE)
        kept_regs: Walls = kept.setdefault("regressions", {})
        _time_lists(kept_regs, args.lists, jobs)
        _take_walls(kept_regs, walls)
        if args.fixed_cost:
            kept["fixed_cost"] = _fixed(args.repeat)
        if jobs_run := cijobs.merged(kept.get("ci_jobs", []), ci):
            kept["ci_jobs"] = jobs_run
        render.write(kept, args.out)
        return 0
    points = _measure(args, names, widths, sims)
    previous: Record = readback.read_json(old, RESULTS_SHAPE) if old.exists() else {}
    if args.merge and previous:
        points = render.merge_points(previous["points"], points)
        names = sorted({str(p["design"]) for p in points})
    fixed = _fixed(args.repeat) if args.fixed_cost else None
    regs: Walls = {}
    _time_lists(regs, args.lists, jobs)
    if previous:  # wall times this run did not measure are kept as they were
        for name, wall in previous.get("regressions", {}).items():
            regs.setdefault(name, wall)
        fixed = fixed or previous.get("fixed_cost")
    _take_walls(regs, walls)
    results: Record = {
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
                   f"{len(os.sched_getaffinity(0))} cores",
        "versions": tools.versions(), "git": tools.git_revision(ROOT),
        "repeat": args.repeat, "bus_w": BUS_W, "points": points,
        "cycles": render.cycle_table(names, sorted({32, 97, 256, 1024, 2048} | set(widths))),
        "regressions": regs,
    } | ({"fixed_cost": fixed} if fixed else {})
    if jobs_run := cijobs.merged(previous.get("ci_jobs", []), ci):
        results["ci_jobs"] = jobs_run
    render.write(results, args.out)
    if failed := [p for p in points if "error" in p]:
        print(f"error: {len(failed)} point(s) could not be measured (see results.md)",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        if args.profile:
            return _profile(args)
        # the results folder is this benchmark's while it runs (its figures are kept and
        # merged, never those of another kind of result)
        with claim.output(args.out.resolve(), claim.BENCH, Mode.KEEP):
            return _run(args)
    except (ConfigError, BenchError, tools.ToolError, ValueError, OSError) as exc:
        return fail(exc)
