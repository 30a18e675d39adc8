"""Regression lists: expand a list of regress/lists.toml into runs, compile every build once,
run everything in parallel, run the list's formal checks and mutation campaigns, merge its
coverage and report.

    montverif lists [NAME]
    montverif regress --list smoke [--jobs 2] [--sim verilator] [--dut D] [--seeds K]
                          [--seed S | --fixed-seed S] [--out DIR] [--timeout SEC] [--fail-fast]
                          [--shard I/K] [--resume] [--diff-sims] [--history FILE]
                          [--code-coverage] [--keep-secrets] [--runs-per-sim K]
                          [--launcher slurm [--partition P] [--slurm-opt OPT ...]
                                            [--runs-per-task K]]
    montverif merge OUT SHARD_DIR...
    montverif report DIR      (rewrite DIR/report.html, e.g. after a coverage merge)
    montverif report DIR --markdown   (the regression as Markdown: a CI job's summary page)

Progress goes to stderr (one line per build and per finished run); the summary table, the
failures with their repro commands and a last line `N passed, M failed` go to stdout.
Results: <out>/report.html, junit.xml, summary.json, coverage/ (merged functional
coverage and its summary, regress/coverage/closure.py), runs/<run key>/, formal/<NN>-<key>/ (the
list's formal checks, run after its runs: regress/regression/formal_checks.py) and
mutation/<dut>/ (its mutation campaigns, run last: regress/mutate/campaigns.py) (default out:
build/regress/<list>-<timestamp>, with build/regress/latest pointing at it); each finished run
leaves runs/<key>/result.json, which `--resume` reads. Failures are grouped into buckets
(regress/regression/buckets.py). A summary line per regression goes to build/regress/history.jsonl.

Launchers: a `Launcher` (regress/flow/launcher.py) is all the runner knows about where work
happens: `local` (this machine, --jobs at a time) or `slurm` (regress/flow/slurm.py: each
stale model built once as a job, the runs as one job array whose tasks run several runs each,
on a file system the nodes share; a run whose job the cluster ends is resubmitted once, then
reported as an infrastructure error (status ERROR), never as a pass or a failure; an
interrupt cancels its jobs).
Formal checks and mutation campaigns run on this machine, not through the launcher; --dut
selects them as it selects runs, --sim leaves the formal checks out (a proof has no
simulator); a formal check's time limit is its block's `timeout`.
Exit 0 when every run passed, every formal check reached the verdict it needs and every
mutation campaign met its goal, 1 otherwise, 2 on bad input (one-line `error:` message).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from montverif.host import claim, environment, tools
from montverif.regress.cli.args import Parser, bounded, bounded_int, fail, warn_broken, warn_kept
from montverif.regress.cli.interrupt import interrupted, terminate_as_interrupt
from montverif.regress.coverage import closure
from montverif.regress.flow.launcher import INPUT_ERRORS, Launcher, LocalLauncher
from montverif.regress.flow.slurm import SlurmLauncher
from montverif.regress.flow.spec import RunSpec
from montverif.regress.mutate import campaigns, rotation
from montverif.regress.mutate.campaigns import CampaignSpec
from montverif.regress.regression import folders, formal_checks, runner
from montverif.regress.regression.folders import point_latest, results_dir
from montverif.regress.regression.folders import results_root as folders_root
from montverif.regress.regression.lists import (
    ListError,
    TestList,
    default_file,
    get_list,
    load_lists,
)
from montverif.regress.regression.packing import DEFAULT_PER_SIM
from montverif.regress.regression.results import PARTS_NOTE
from montverif.regress.regression.scheduler import ScheduleOptions
from montverif.regress.regression.seeds import (
    DEFAULT_BASE_SEED,
    BaseSeed,
    expand,
    resolve_base_seed,
    unique_builds,
)
from montverif.regress.regression.shards import MAX_SHARDS, parse_shard, run_cost, shard
from montverif.regress.regression.summary import load_summary, summary_dict
from montverif.regress.report import history, html, markdown
from montverif.regress.report.text import format_summary
from montverif.regress.report.write import finish_report, write_all
from montverif.spec.bounds import JOBS, SEED, SEEDS, TIMEOUT_S
from montverif.spec.designs import broken_design, known_designs


def _lists_option(parser: argparse.ArgumentParser) -> None:
    """--lists after the command too (`montverif regress --lists F --list L`)."""
    parser.add_argument("--lists", default=argparse.SUPPRESS,
                        help=f"lists file (default: {LISTS_DEFAULT})")


LISTS_DEFAULT = ("regress/lists.toml; in a project of your own, its montverif.toml's `lists`, "
                 "else its descriptors' [[lists.*]] entries")


def lists_path(args: argparse.Namespace) -> Path:
    """The lists file the command reads: --lists, else the default (lists.default_file)."""
    return Path(args.lists) if args.lists else default_file()


def _coverage_goals(name: str, lists_file: Path) -> bool:
    """Whether the list declares `coverage_goals = true` (False for a list not in the file:
    shards of another lists file are merged without goals)."""
    try:
        return get_list(name, lists_file).coverage_goals
    except ListError:
        return False


def parser() -> argparse.ArgumentParser:
    """The command line of `montverif` lists, regress, merge and report."""
    ap = Parser("montverif", __doc__)
    ap.add_argument("--lists", default="", help=f"lists file (default: {LISTS_DEFAULT})")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)
    ls = sub.add_parser("lists", help="show the lists and how many runs each expands to")
    _lists_option(ls)
    ls.add_argument("name", nargs="?", help="print every run of this list")
    run = sub.add_parser("regress", help="build and run one list", description=(
        "Compile each build of the list once, then run every seed in parallel; progress on "
        "stderr, summary and `N passed, M failed` on stdout. Exit 0 all passed, 1 a run "
        "failed, 2 bad input."))
    _lists_option(run)
    run.add_argument("--list", required=True, dest="name", help="list name (see `montverif lists`)")
    run.add_argument("--jobs", "-j", type=bounded(JOBS),
                     default=min(os.cpu_count() or 1, int(JOBS.hi)),
                     help="parallel builds/runs (default: CPU count, %(default)s)")
    run.add_argument("--sim", action="append",
                     help=f"only runs and mutation campaigns of this simulator "
                          f"({', '.join(tools.SIMULATORS)}; repeatable; no formal checks)")
    run.add_argument("--dut", action="append",
                     help="only runs, formal checks and mutation campaigns of this design "
                          "(repeatable)")
    run.add_argument("--parts", default=",".join(PARTS), metavar="P[,P...]",
                     help=f"which parts of the list to do: {', '.join(PARTS)} (default: all); "
                          "e.g. `--parts formal` on a machine of its own beside the shards, "
                          "all merged by `montverif merge` (only a whole list adds a history "
                          "line)")
    run.add_argument("--seeds", type=bounded(SEEDS),
                     help="seeds per configuration (overrides the list)")
    run.add_argument("--seed", default=str(DEFAULT_BASE_SEED), metavar="S",
                     help="base seed the run seeds and mutants are derived from: an integer, "
                          "`date` (today, UTC, as YYYYMMDD), `date:YYYY-MM-DD` or `run` (the "
                          "CI run number, GITHUB_RUN_NUMBER); printed and recorded in "
                          "summary.json (default %(default)s)")
    run.add_argument("--fixed-seed", type=bounded(SEED), metavar="S",
                     help="one run per build, all with seed S (replays one seed everywhere)")
    run.add_argument("--out", help="results folder (default build/regress/<list>-<time>)")
    run.add_argument("--timeout", type=bounded(TIMEOUT_S),
                     help="wall-clock seconds per run (default: list) and per mutant run "
                          "(default 120)")
    run.add_argument("--rerun-waves", type=bounded_int(0, 100), default=3, metavar="K",
                     help="rerun up to K failing seeds with waves (default 3, 0: none)")
    run.add_argument("--code-coverage", action="store_true",
                     help="Verilator runs with line + toggle coverage (own builds, -cov keys)")
    run.add_argument("--runs-per-sim", type=bounded_int(1, 1000), default=DEFAULT_PER_SIM,
                     metavar="K",
                     help="with the local launcher: up to K runs of one build one after "
                          "another in one simulator process (default %(default)s; 1: a "
                          "process per run; runs with waves or code coverage never share)")
    run.add_argument("--fail-fast", action="store_true",
                     help="start no further build/run after the first failure")
    run.add_argument("--shard", metavar="I/K",
                     help="run only shard I of K (whole builds per shard; `merge` joins them) "
                          f"[1 <= I <= K <= {MAX_SHARDS}]")
    run.add_argument("--resume", action="store_true",
                     help="keep the finished runs of --out (default: build/regress/latest) "
                          "and do only the rest")
    run.add_argument("--every-campaign", action="store_true",
                     help="every mutation campaign of the list, also those its rotation "
                     "rests this night (`rotate`; the weekly workflow)")
    run.add_argument("--diff-sims", action="store_true",
                     help="run every build on Icarus and Verilator with the same seeds and "
                          "compare their transaction logs")
    run.add_argument("--history", metavar="FILE",
                     help="history file to append to (default <results root>/history.jsonl; "
                          "shards never append)")
    run.add_argument("--launcher", choices=("local", "slurm"), default="local",
                     help="where builds and runs happen: this machine (default), or Slurm "
                          "jobs (stale builds as jobs, the runs as a job array; the "
                          "checkout and --out must be on a file system the nodes share)")
    run.add_argument("--partition", help="with --launcher slurm: the partition to submit to "
                                         "(default: the cluster's default)")
    run.add_argument("--slurm-opt", action="append", default=[], metavar="OPT",
                     help="with --launcher slurm: an sbatch option for every job, as one "
                          "argument (e.g. --slurm-opt=--account=A --slurm-opt=--time=30; "
                          "repeatable)")
    run.add_argument("--runs-per-task", type=bounded_int(0, 100_000), default=0, metavar="K",
                     help="with --launcher slurm: runs per array task (default: packed into "
                          "about 16 tasks per CPU of the partition, balanced by estimated "
                          "cost; 1: a task per run, when a time limit is per run)")
    run.add_argument("--keep-secrets", action="store_true",
                     help="write the designs' secret operands (the RSA core's private "
                          "exponent) in clear in every run folder and report, for debugging "
                          "(default: digests)")
    mg = sub.add_parser("merge", help="merge shard results folders into one", description=(
        "Join the results folders of `run --shard i/k` into OUT: runs/ copied, summary.json, "
        "junit.xml, report.html and cycles.md as one regression of the same seeds would "
        "write them; appends the history."))
    mg.add_argument("out", help="merged results folder")
    mg.add_argument("shards", nargs="+", help="shard results folders")
    mg.add_argument("--history", metavar="FILE", help="history file (default as for run)")
    mg.add_argument("--force", action="store_true",
                    help="replace the regression OUT holds (never another kind of result)")
    rp = sub.add_parser("report", help="rewrite report.html of a results folder", description=(
        "Render DIR/report.html again from DIR/summary.json, e.g. after the coverage merge "
        "wrote DIR/coverage/summary.json; the history is read, not appended to."))
    rp.add_argument("dir", help="results folder")
    rp.add_argument("--history", metavar="FILE", help="history file (default as for run)")
    rp.add_argument("--markdown", action="store_true",
                    help="print the regression as Markdown on stdout instead (verdict, base "
                         "seed, pass/fail per design, buckets with repro lines, mutation, "
                         "coverage: a CI job's summary page); report.html is left as it is")
    return ap


def cmd_list(lists_file: Path, name: str | None) -> int:
    warn_broken()
    lists = load_lists(lists_file)
    mutations = {n: campaigns.of_list(tl, lists_file.name) for n, tl in lists.items()}
    checks = {n: formal_checks.of_list(tl, lists_file.name) for n, tl in lists.items()}
    if name is not None:
        tlist = get_list(name, lists_file)
        for run in expand(tlist):
            print(f"{run.key:<40} txns={run.txns}")
        for c in campaigns.plan(mutations[name], DEFAULT_BASE_SEED):
            print(f"{c.folder:<40} sim={c.sim} n={c.n} mutants={c.mutants} txns={c.txns} "
                  f"goal={c.goal:g}% seed={c.seed}"
                  + (f" rotate={c.rotate} (one share a night)" if c.rotate > 1 else ""))
        for f in checks[name]:
            print(f"{f.folder:<40} {f.wanted} depth={f.spec.depth} "
                  f"timeout={f.spec.timeout_s}s")
        return 0
    width = max(map(len, lists), default=0)
    for tl in lists.values():
        runs = expand(tl)
        camps = mutations[tl.name]
        budget = (f" + {len(camps)} mutation campaign{'s' * (len(camps) > 1)}, "
                  f"{sum(c.mutants for c in camps)} mutants" if camps else "")
        budget += f" + {len(checks[tl.name])} formal checks" if checks[tl.name] else ""
        print(f"{tl.name:<{width}}  {len(runs):>4} runs  {len(unique_builds(runs)):>3} builds"
              f"{budget}  {tl.description}")
    return 0


PARTS = ("runs", "formal", "mutation")


def _parts(text: str) -> frozenset[str]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if unknown := [p for p in parts if p not in PARTS]:
        raise ListError(f"--parts: unknown {', '.join(unknown)} (known: {', '.join(PARTS)})")
    if not parts:
        raise ListError(f"--parts {text!r}: give one or more of {', '.join(PARTS)}")
    return frozenset(parts)


def check_args(args: argparse.Namespace) -> None:
    """The parsed options checked together and resolved in place (the parts, the base
    seed, the simulators and designs named); raises ListError."""
    args.parts = _parts(args.parts)  # the numbers are checked as parsed (their bounds)
    try:
        base = resolve_base_seed(args.seed, datetime.now(UTC).date(),
                                 environment.CI_RUN_NUMBER.lookup())
    except ValueError as exc:
        raise ListError(str(exc)) from None
    args.seed, args.seed_source = base.value, base.source
    if unknown := [s_ for s_ in args.sim or [] if s_ not in tools.SIMULATORS]:
        raise ListError(f"unknown simulator {', '.join(unknown)} "
                        f"(known: {', '.join(tools.SIMULATORS)})")
    for name in args.dut or []:
        if found := broken_design(name):  # its descriptor's fault, not "unknown"
            raise ListError(found.message)
    if unknown := [d for d in args.dut or [] if d not in known_designs()]:
        raise ListError(f"unknown design {', '.join(unknown)} "
                        f"(known: {', '.join(known_designs())})")


def check_runs(launcher: Launcher, runs: Sequence[RunSpec]) -> None:
    """Every run can be done (widths, bus widths, simulators installed ...), else raise."""
    for run in runs:
        try:
            launcher.check(run)
        except INPUT_ERRORS as exc:
            raise ListError(f"{run.key}: {exc}") from None


def _resume_dir(results_root: Path, out: str | None) -> Path:
    path = Path(out).resolve() if out else (results_root / "latest").resolve()
    if not path.is_dir() or not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        raise ListError(f"--resume: cannot use results folder {path} (missing or unreadable)")
    return path


@dataclass(frozen=True)
class Job:
    """A regression as asked: the list, the shard, the runs and campaigns of the whole list
    and of this shard."""

    tlist: TestList
    shard_ix: tuple[int, int] | None
    all_runs: list[RunSpec]
    runs: list[RunSpec]
    all_campaigns: list[CampaignSpec]
    campaigns: list[CampaignSpec]
    all_checks: list[formal_checks.Check]
    checks: list[formal_checks.Check]
    resting: dict[str, str]  # campaigns the rotation rests this night -> when last scheduled


def plan_job(args: argparse.Namespace, launcher: Launcher) -> Job:
    """What `regress` will do with these options: the runs, campaigns and formal checks of
    the whole list and of this shard, the rotation's resting designs; each run checked
    against the launcher."""
    lists_file = lists_path(args)
    tlist = get_list(args.name, lists_file)
    shard_ix = parse_shard(args.shard) if args.shard else None
    all_runs = expand(tlist, args.seed, args.seeds, args.sim, args.timeout, args.dut,
                      args.fixed_seed, args.diff_sims) if "runs" in args.parts else []
    if args.code_coverage:
        all_runs = [replace(r, build=replace(r.build, coverage=r.build.sim == "verilator"))
                    for r in all_runs]
    if args.keep_secrets:
        all_runs = [replace(r, keep_secrets=True) for r in all_runs]
    listed = campaigns.of_list(tlist, lists_file.name)
    all_campaigns = campaigns.plan(listed, args.seed, args.fixed_seed, args.sim, args.dut,
                                   args.timeout)
    all_checks = formal_checks.plan(formal_checks.of_list(tlist, lists_file.name), args.sim,
                                    args.dut)
    # the rotation's share of the night (a design named with --dut runs whatever its share)
    all_campaigns, resting = rotation.tonight(all_campaigns, args.seed,
                                              args.every_campaign or bool(args.dut), listed)
    all_campaigns, resting = (all_campaigns, resting) if "mutation" in args.parts else ([], {})
    all_checks = all_checks if "formal" in args.parts else []
    if not all_runs and not all_campaigns and not all_checks:
        given = (args.sim or []) + (args.dut or [])
        raise ListError(f"list '{tlist.name}' has no runs for {', '.join(given)}" if given
                        else f"list '{tlist.name}' has nothing to do in --parts "
                        f"{','.join(p for p in PARTS if p in args.parts)}")
    runs = shard(all_runs, *shard_ix) if shard_ix else all_runs
    camps = campaigns.shard(all_campaigns, *shard_ix) if shard_ix else all_campaigns
    checks = formal_checks.shard(all_checks, *shard_ix) if shard_ix else all_checks
    check_runs(launcher, runs)
    campaigns.check_all(camps)
    return Job(tlist, shard_ix, all_runs, runs, all_campaigns, camps, all_checks, checks,
                resting)


def make_launcher(args: argparse.Namespace) -> Launcher:
    """The launcher --launcher names (its options checked: one-line errors)."""
    if args.launcher != "slurm":
        if args.partition or args.slurm_opt or args.runs_per_task:
            raise ListError("--partition, --slurm-opt and --runs-per-task need --launcher "
                            "slurm")
        return LocalLauncher()
    if bad := [o for o in args.slurm_opt if not o.startswith("-")]:
        raise ListError(f"--slurm-opt {bad[0]!r}: give one sbatch option, e.g. "
                        "--slurm-opt=--account=A")
    return SlurmLauncher(args.partition or "", args.slurm_opt, cost=run_cost,
                         runs_per_task=args.runs_per_task)


def cmd_run(args: argparse.Namespace, launcher: Launcher, results_root: Path) -> int:
    check_args(args)
    if isinstance(launcher, SlurmLauncher):  # the controller answers, the partition exists
        launcher.check_cluster()
    job = plan_job(args, launcher)
    warn_broken()
    warn_kept(job.runs)
    out_dir = _resume_dir(results_root, args.out) if args.resume else results_dir(
        results_root, job.tlist.name + (f"-shard{job.shard_ix[0]}of{job.shard_ix[1]}"
                                        if job.shard_ix else ""), args.out)
    wanted = folders.plan(job.tlist.name, args.seed, [r.key for r in job.runs],
                          [c.dut for c in job.campaigns], [c.key for c in job.checks])
    if isinstance(launcher, SlurmLauncher):  # its jobs' task lists and logs
        launcher.work_dir = out_dir / "slurm"
    # the folder is this regression's while it runs: a second writer is refused, and so is a
    # folder holding anything but a regression (another regression too, unless resumed)
    with claim.output(out_dir, claim.REGRESSION,
                      claim.Mode.KEEP if args.resume else claim.Mode.NEW,
                      again="resume it with --resume, or choose another --out"):
        if args.resume:
            earlier_s = folders.check_resume(out_dir, wanted)
        else:
            folders.check_fresh(out_dir)
            folders.write_plan(out_dir, wanted)
            earlier_s = 0.0
        return _run_in(args, launcher, results_root, out_dir, job, earlier_s)


def _run_in(args: argparse.Namespace, launcher: Launcher, results_root: Path, out_dir: Path,
            job: Job, earlier_s: float) -> int:
    """The regression in its claimed results folder; earlier_s: the wall time of the
    attempts that --resume continues."""
    point_latest(results_root, out_dir)
    # the one number that replays this regression (its run seeds and mutants) anywhere; after
    # every check of the input, so bad input stays one `error:` line
    print(f"{job.tlist.name}: {BaseSeed(args.seed, args.seed_source).describe()}; replay "
          f"with --seed {args.seed}", file=sys.stderr, flush=True)
    opts = ScheduleOptions(args.jobs, args.fail_fast, args.rerun_waves, args.runs_per_sim)
    # a part of the regression (a shard, some of its parts) adds no history line: its merge does
    history = None if job.shard_ix or args.parts != frozenset(PARTS) else \
        Path(args.history) if args.history else results_root / "history.jsonl"
    order = {r.key: i for i, r in enumerate(job.all_runs)}
    t0 = time.monotonic()
    # the history line and report.html come after the coverage merge (they show it)
    reg = runner.regress(launcher, job.tlist.name, job.runs, opts, out_dir, args.seed,
                         order=order, shard_spec=args.shard or "", planned=len(job.all_runs),
                         seed_source=args.seed_source,
                         history=None, resume=args.resume, campaigns=len(job.campaigns),
                         campaigns_planned=len(job.all_campaigns), checks=len(job.checks),
                         checks_planned=len(job.all_checks))
    if args.parts != frozenset(PARTS):  # what a wall time of this folder covers
        reg.notes.append(PARTS_NOTE + ",".join(p for p in PARTS if p in args.parts))
    reg.mutation_resting = job.resting
    if job.checks:  # after the runs, before the campaigns (which take the longest)
        formal_checks.run_all(job.checks, opts, reg, args.resume)
    if job.campaigns:  # after the runs and their reruns, so they never compete with the list
        campaigns.run_all(job.campaigns, opts, reg, args.resume)
    reg.wall_s = earlier_s + time.monotonic() - t0  # a resumed regression: all its attempts
    write_all(reg)
    # functional coverage merged into <out>/coverage/, closure table; goals (lists.toml
    # `coverage_goals = true`) missed -> exit 1 (a shard only merges: goals apply to the whole)
    coverage_ok = closure.after_regression(out_dir, job.tlist.coverage_goals,
                                           shard=bool(job.shard_ix))
    finish_report(reg, history)
    print(format_summary(reg), flush=True)
    if reg.stopped == "interrupted":
        return 130
    return 0 if reg.passed and coverage_ok else 1


def cmd_merge(args: argparse.Namespace, results_root: Path) -> int:
    history = Path(args.history) if args.history else results_root / "history.jsonl"
    out = Path(args.out).resolve()
    shards = [Path(d).resolve() for d in args.shards]
    for folder in shards:
        if out == folder or out.is_relative_to(folder) or folder.is_relative_to(out):
            raise ListError(f"merge: the merged folder {out} cannot be, hold or lie in a "
                            f"shard ({folder}): choose another OUT")
    if len(set(shards)) != len(shards):
        raise ListError("merge: a shard folder is named twice")
    with claim.output(out, claim.REGRESSION,
                      claim.Mode.REPLACE if args.force else claim.Mode.NEW):
        return _merge_into(args, out, history)


def _merge_into(args: argparse.Namespace, out: Path, history: Path) -> int:
    reg = runner.merge(out, [Path(d).resolve() for d in args.shards], None)
    write_all(reg)
    coverage_ok = closure.after_regression(out, _coverage_goals(reg.name, lists_path(args)))
    finish_report(reg, history)
    print(format_summary(reg), flush=True)
    return 0 if reg.passed and coverage_ok else 1


def cmd_report(args: argparse.Namespace, results_root: Path) -> int:
    folder = Path(args.dir).resolve()
    if not (folder / "summary.json").is_file():
        raise ListError(f"cannot read results folder {folder}: no summary.json")
    if args.markdown:  # reads only
        try:
            print(markdown.render_folder(folder), end="")
        except ValueError as exc:
            raise ListError(str(exc)) from None
        return 0
    try:
        summary = summary_dict(load_summary(folder / "summary.json"))
    except ValueError as exc:
        raise ListError(str(exc)) from None
    past = history.load(Path(args.history) if args.history else results_root / "history.jsonl")
    with claim.existing(folder, (claim.REGRESSION, claim.CLOSURE)):  # not while it is written
        (folder / "report.html").write_text(html.render(summary, folder, past))
    print(f"wrote {folder / 'report.html'}")
    return 0


def main(argv: list[str], launcher: Launcher | None = None,
         results_root: Path | None = None) -> int:
    args = parser().parse_args(argv)
    results_root = results_root or folders_root()
    try:
        if args.command == "lists":
            return cmd_list(lists_path(args), args.name)
        if args.command == "merge":
            return cmd_merge(args, results_root)
        if args.command == "report":
            return cmd_report(args, results_root)
        with terminate_as_interrupt():
            return cmd_run(args, launcher or make_launcher(args), results_root)
    except (ListError, *INPUT_ERRORS) as exc:
        return fail(exc)
    except KeyboardInterrupt:
        return interrupted(f"`montverif {args.command}` was ended")
