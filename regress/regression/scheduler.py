"""Builds and runs in parallel through a launcher: every build once, then every seed, the
longest first, one progress line each; --fail-fast and an interrupt stop starting new ones.
A launcher of many at once (ArrayLauncher: a batch system) gets them all and decides itself
how many run together; any other gets `jobs` at a time from a pool of threads."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from montverif.regress.flow import simulate
from montverif.regress.flow.launcher import (
    INFRA,
    ArrayLauncher,
    BatchLauncher,
    Launcher,
    one_line,
)
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.regression.packing import DEFAULT_PER_SIM, pack
from montverif.regress.regression.results import (
    ERROR,
    FAIL,
    SKIP,
    BuildResult,
    Regression,
    RunResult,
)
from montverif.regress.regression.shards import run_cost
from montverif.regress.regression.summary import save_result

T = TypeVar("T", bound=Hashable)


R = TypeVar("R")


def parallel(fn: Callable[[T], R], items: Sequence[T], jobs: int,
             done: Callable[[T, R], bool]) -> tuple[dict[T, R], str]:
    """fn over items, at most `jobs` at a time on threads (fn must not raise).
    `done(item, result)` is called in this thread as results arrive; when it returns False
    no further item is started. Returns the results and why items were left out ("" if none).
    """
    results: dict[T, R] = {}
    todo = list(reversed(items))
    running: dict[Future[R], T] = {}
    stopped = ""
    concurrent, simulate.CONCURRENT_JOBS = simulate.CONCURRENT_JOBS, max(1, min(jobs, len(items)))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        try:
            while running or (todo and not stopped):
                while todo and not stopped and len(running) < jobs:
                    item = todo.pop()
                    running[pool.submit(fn, item)] = item
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    item = running.pop(fut)
                    results[item] = fut.result()
                    if not done(item, results[item]):
                        stopped = stopped or "--fail-fast"
        except KeyboardInterrupt:
            stopped = "interrupted"
            ended = simulate.end_all()
            print(f"interrupted: ended {ended} running simulation(s), waiting for "
                  f"{len(running)} job(s) to return", file=sys.stderr, flush=True)
        finally:
            simulate.CONCURRENT_JOBS = concurrent
    if stopped == "interrupted":  # every worker has returned: nothing is left to end
        simulate.allow_starts()
    # left running by an interrupt (the pool waited for them): what finished before it is
    # kept like any other result, what the interrupt ended comes back marked so
    for fut, item in running.items():
        try:
            results[item] = fut.result()
        except KeyboardInterrupt:  # its tool was ended (host.processes.Interrupted)
            continue
        done(item, results[item])
    return results, stopped


@dataclass
class ScheduleOptions:
    jobs: int = 2
    fail_fast: bool = False
    rerun_waves: int = 3  # failing seeds rerun with waves (0: none)
    # runs of one build per simulator process (regress/flow/batch.py; 1: a process per run)
    per_sim: int = DEFAULT_PER_SIM


class Progress:
    """One stderr line per finished build or run, with the running counts:
    `[12/30] PASS <key> 1.2s  (11 ok, 1 failed)`."""

    def __init__(self, total: int, what: str = "") -> None:
        self.total, self.count, self.what, self.failed = total, 0, what, 0

    def line(self, verdict: str, key: str, seconds: float | None, note: str = "") -> None:
        self.count += 1
        self.failed += verdict == FAIL
        width = len(str(self.total))
        text = f"[{self.what}{self.count:>{width}}/{self.total}] {verdict} {key}"
        text += f" {seconds:.1f}s" if seconds is not None else ""
        text += f"  ({self.count - self.failed} ok, {self.failed} failed)"
        print(text + (f"  {note}" if note else ""), file=sys.stderr, flush=True)


def build_all(launcher: Launcher, specs: Sequence[BuildSpec], opts: ScheduleOptions,
              reg: Regression) -> None:
    """Compile each build once; failures are recorded in reg.builds[key].error."""
    progress = Progress(len(specs), "build ")

    def one(spec: BuildSpec) -> BuildResult:
        t0 = time.monotonic()
        try:
            return BuildResult(spec.key, launcher.build(spec))
        except Exception as exc:
            return BuildResult(spec.key, time.monotonic() - t0, one_line(exc))

    def done(spec: BuildSpec, res: BuildResult) -> bool:
        reg.builds[spec.key] = res
        progress.line("FAIL" if res.error else "OK", spec.key, res.seconds,
                      res.error or ("" if res.seconds else "(up to date)"))
        return not (opts.fail_fast and res.error)

    if isinstance(launcher, ArrayLauncher):
        reg.stopped = launcher.build_many(
            specs, lambda spec, sec, err: done(spec, BuildResult(spec.key, sec, err)))
        return
    _, reg.stopped = parallel(one, specs, opts.jobs, done)


RAISED = "raised"  # Outcome.extra: the launcher raised instead of returning an outcome


def dispatch_runs(launcher: Launcher, runs: Sequence[tuple[RunSpec, Path]], jobs: int,
                  done: Callable[[RunSpec, Outcome], bool], per_sim: int = 1) -> str:
    """Every (run, log folder) through the launcher, `done` called as each finishes (on
    this thread); why runs were left out ("" if none). A run that raises comes back as a
    failed Outcome with the exception's first line. With per_sim > 1 and a launcher that
    batches (BatchLauncher), runs of one build share simulator processes (packing.pack),
    `done` is called for each run of a batch when the batch ends."""
    if isinstance(launcher, ArrayLauncher):
        return launcher.run_many(runs, done)
    folder = dict(runs)

    def one(run: RunSpec) -> Outcome:
        try:
            return launcher.run(run, folder[run])
        except Exception as exc:
            return Outcome(run, False, folder[run], first_error=one_line(exc),
                           extra={RAISED: True})

    if per_sim <= 1 or not isinstance(launcher, BatchLauncher):
        return parallel(one, [run for run, _ in runs], jobs, done)[1]
    batcher = launcher

    def many(batch: tuple[RunSpec, ...]) -> list[Outcome]:
        if len(batch) == 1:
            return [one(batch[0])]
        try:
            return batcher.run_batch([(run, folder[run]) for run in batch])
        except Exception:  # e.g. one folder owned by another process: each run alone
            return [one(run) for run in batch]

    def done_all(batch: tuple[RunSpec, ...], outcomes: list[Outcome]) -> bool:
        go = True
        for run, outcome in zip(batch, outcomes, strict=True):
            go = done(run, outcome) and go
        return go

    return parallel(many, pack([run for run, _ in runs], jobs, per_sim), jobs, done_all)[1]


def run_all(launcher: Launcher, runs: Sequence[RunSpec], opts: ScheduleOptions,
            reg: Regression, previous: dict[str, RunResult] | None = None) -> None:
    """Every run whose build was compiled; reg.results in list order. Runs in `previous`
    (finished in an earlier, interrupted regression: --resume) are kept, not run again."""
    results: dict[RunSpec, RunResult] = {}
    todo: list[RunSpec] = []
    previous = previous or {}
    for run in runs:
        build = reg.builds.get(run.build.key)
        if run.key in previous:
            results[run] = previous[run.key]
        elif build and build.error:  # no verdict when the batch system ended the build
            results[run] = RunResult(run, ERROR if build.error.startswith(INFRA) else FAIL,
                                     first_error=f"build failed: {build.error}")
        elif build and not reg.stopped:
            todo.append(run)
        else:  # its build or every run was called off (--fail-fast, interrupt)
            results[run] = RunResult(run, SKIP)
    progress = Progress(len(todo))

    def done(run: RunSpec, out: Outcome) -> bool:
        res = results[run] = RunResult.from_outcome(out)
        note = "" if res.passed else res.first_error[:120]
        note += f"  (after {res.retried})" if res.retried else ""
        progress.line(res.status, run.key, res.wall_s, note.strip())
        if res.status != SKIP:  # an interrupted run is not finished: --resume runs it again
            save_result(reg.out_dir, res)
        return not (opts.fail_fast and not res.passed)

    # longest first (estimated) so the slowest runs do not finish last
    order = sorted(todo, key=run_cost, reverse=True)
    stopped = dispatch_runs(launcher, [(r, reg.out_dir / "runs" / r.key) for r in order],
                            opts.jobs, done, opts.per_sim)
    reg.stopped = reg.stopped or stopped
    reg.results = [results.get(run) or RunResult(run, SKIP) for run in runs]
    for res in reg.results:
        res.index = reg.order.get(res.run.key, 0)
