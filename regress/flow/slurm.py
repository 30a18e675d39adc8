"""The Slurm launcher: every stale build compiled once as a job, the runs as one job array, all
on a file system the cluster's nodes share with this machine (the checkout with its .venv and
build/, and the results folder). Each job runs exactly what the local launcher runs
(`montverif.regress.flow.slurm_task`), so run folders, outcome.json, waves and coverage are
the same; the runner then collects, reports and reruns as it does on this machine.

Overheads a batch system adds per job (the scheduler's pass, the job's start, a Python start)
are paid per task, not per run: builds already up to date are not submitted at all, and the
runs are packed into tasks of several runs each, balanced by their estimated cost (`cost`,
longest first): about TASKS_PER_CPU tasks per CPU of the partition, or `runs_per_task` runs
each when it is given (1: a task per run). A task writes each run's result file as that run
ends, so results come back one by one whatever the packing.

A run the cluster ends (node failure, time limit, out of memory, cancellation, or any end of
its task without the run's result file) is an infrastructure error: it is submitted once
more, in a task of its own, and if that ends the same way the run is reported as an
infrastructure error (Outcome.infrastructure), neither passed nor failed. An interrupt
cancels every job this launcher submitted.

Jobs inherit this process's environment (sbatch's default `--export=ALL`); `options` are
passed to every sbatch as they are (`--account=A`, `--time=30`, `--qos=Q`, ...): a time
limit applies to a task, several runs, unless runs_per_task is 1.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import work
from montverif.regress.flow import check
from montverif.regress.flow.launcher import INFRA, BuildDone, LocalLauncher, RunDone
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec

TASK_MODULE = "montverif.regress.flow.slurm_task"
# a task that has left the queue without a result file is looked at this many polls before
# it counts as ended (a shared file system may show the file a moment late)
GRACE_POLLS = 3
# run tasks per CPU of the partition when runs_per_task is not given: enough to balance the
# load when the cost estimates are off (replayed on the nightly's measured run times, 4 per
# CPU ends 8 % after a perfect split, 16 about 3 %), few enough that per-job overheads (a
# scheduler pass and a Python start, about 2 s) stay small
TASKS_PER_CPU = 16


def _run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise tools.ToolError(f"`{cmd[0]}` is not on PATH: the Slurm launcher needs the Slurm "
                              "client commands (sbatch, squeue, scancel, sinfo)") from None
    except subprocess.TimeoutExpired:
        raise tools.ToolError(f"`{' '.join(cmd[:2])}` did not answer within {timeout:.0f} s: "
                              "is the Slurm controller up?") from None


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


class Cluster:
    """The Slurm commands the launcher uses (sbatch, squeue, sacct or scontrol, scancel)."""

    def partitions(self) -> list[str]:
        got = _run(["sinfo", "-h", "-o", "%P"])
        if got.returncode:
            raise tools.ToolError(f"cannot reach the Slurm controller: "
                                  f"{_first_line(got.stderr) or 'sinfo failed'}")
        return [p.rstrip("*") for p in got.stdout.split()]

    def cpus(self, partition: str = "") -> int:
        """The CPUs of the partition (the default one if not named), 1 if sinfo says none."""
        got = _run(["sinfo", "-h", "-o", "%C", *(["-p", partition] if partition else [])])
        total = 0
        for line in got.stdout.split():  # allocated/idle/other/total
            parts = line.split("/")
            total = max(total, int(parts[-1])) if parts[-1].isdigit() else total
        return max(1, total)

    def submit(self, args: list[str], command: str) -> str:
        """sbatch; the job id."""
        got = _run(["sbatch", "--parsable", *args, "--wrap", command])
        if got.returncode:
            raise tools.ToolError(f"sbatch failed: {_first_line(got.stderr) or got.returncode}")
        return got.stdout.strip().split(";")[0]

    def active(self, jobs: Sequence[str]) -> dict[str, str]:
        """Task id (`<job>_<index>`) -> state, for the tasks still queued or running."""
        if not jobs:
            return {}
        got = _run(["squeue", "-h", "-r", "-j", ",".join(jobs), "-o", "%i %T"])
        if got.returncode:  # every job of the list has left the controller's memory
            if "Invalid job id" in got.stderr:
                return {}
            raise tools.ToolError(f"squeue failed: {_first_line(got.stderr)}")
        return dict(line.split()[:2] for line in got.stdout.splitlines() if line.strip())

    def final(self, job: str) -> dict[str, str]:
        """Task id -> final state (COMPLETED, TIMEOUT, NODE_FAIL, ...) of an array's tasks:
        from the accounting (sacct) where the cluster keeps one, else from the controller
        (scontrol, for MinJobAge seconds after a task ends)."""
        got = _run(["sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State"])
        states: dict[str, str] = {}
        if got.returncode == 0:
            for line in got.stdout.splitlines():
                if "|" in line:
                    task, state = line.split("|")[:2]
                    states[task] = state.split()[0]  # "CANCELLED by 0"
        if states:
            return states
        got = _run(["scontrol", "-o", "show", "job", job])
        for line in got.stdout.splitlines():
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if "ArrayTaskId" in fields and "ArrayJobId" in fields:
                states[f"{fields['ArrayJobId']}_{fields['ArrayTaskId']}"] = fields.get(
                    "JobState", "UNKNOWN")
        return states

    def cancel(self, jobs: Sequence[str]) -> None:
        if jobs:
            _run(["scancel", *jobs])


@dataclass
class _Item:
    """One build or run."""

    key: str
    payload: dict[str, object]
    cost: float = 1.0
    attempts: list[str] = field(default_factory=list)  # job tasks tried: "<job>_<i> STATE"


@dataclass
class _Array:
    """A job array: its items, and which items each of its tasks runs (in order)."""

    job: str
    items: list[_Item]
    tasks: list[list[int]]
    folder: Path
    open: set[int] = field(default_factory=set)  # item indices not collected yet
    missing: dict[int, int] = field(default_factory=dict)  # polls seen gone without a result

    def task_of(self, item: int) -> int:
        return next(t for t, members in enumerate(self.tasks) if item in members)

    def result_file(self, item: int) -> Path:
        return self.folder / f"result-{item}.json"


def pack(costs: Sequence[float], tasks: int, per_task: int = 0) -> list[list[int]]:
    """Item indices dealt into `tasks` tasks of about equal total cost: the costliest first,
    each to the least loaded task (with at most `per_task` items, if given); every task
    keeps its items costliest first, and the tasks come costliest first."""
    tasks = max(1, min(tasks, len(costs)), math.ceil(len(costs) / per_task) if per_task else 1)
    heap = [(0.0, t) for t in range(tasks)]
    members: list[list[int]] = [[] for _ in range(tasks)]
    load = [0.0] * tasks
    for i in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        _, t = heapq.heappop(heap)
        members[t].append(i)
        load[t] += costs[i]
        if not per_task or len(members[t]) < per_task:  # a full task takes no more
            heapq.heappush(heap, (load[t], t))
    order = sorted(range(tasks), key=lambda t: (-load[t], t))
    return [members[t] for t in order if members[t]]


class SlurmLauncher:
    """Builds and runs as Slurm jobs (see the module's description)."""

    def __init__(self, partition: str = "", options: Sequence[str] = (),
                 work_dir: Path | None = None, poll_s: float = 0.5,
                 cluster: Cluster | None = None,
                 cost: Callable[[RunSpec], float] | None = None,
                 runs_per_task: int = 0) -> None:
        self.partition = partition
        self.options = tuple(options)
        self.work_dir = work_dir or work("slurm")
        self.poll_s = poll_s
        self.cluster = cluster or Cluster()
        self.cost = cost
        self.runs_per_task = runs_per_task
        self._local = LocalLauncher()
        self._count = 0
        self._guard = threading.Lock()
        self._checked = False

    # -- the Launcher protocol ------------------------------------------------------------

    def check(self, run: RunSpec) -> None:
        check.validate(run)
        self.check_cluster()

    def check_cluster(self) -> None:
        """The controller answers and knows the partition (else ToolError, one line)."""
        if self._checked:
            return
        parts = self.cluster.partitions()
        if self.partition and self.partition not in parts:
            raise tools.ToolError(f"unknown Slurm partition '{self.partition}' (the cluster "
                                  f"has: {', '.join(parts) or 'none'})")
        self._checked = True

    def build(self, spec: BuildSpec) -> float:
        got: list[tuple[float, str]] = []

        def done(_spec: BuildSpec, seconds: float, error: str) -> bool:
            got.append((seconds, error))
            return True

        self.build_many([spec], done)
        if not got:
            raise tools.ToolError(f"build of {spec.key} was interrupted")
        seconds, error = got[0]
        if error:
            raise tools.ToolError(error)
        return seconds

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        got: list[Outcome] = []

        def done(_run: RunSpec, outcome: Outcome) -> bool:
            got.append(outcome)
            return True

        self.run_many([(run, log_dir)], done)
        return got[0]

    # -- the ArrayLauncher protocol -------------------------------------------------------

    def build_many(self, specs: Sequence[BuildSpec], done: BuildDone) -> str:
        """The builds already up to date are reported at once (0 s) and not submitted."""
        stale = [s for s in specs if not self._local.up_to_date(s)]
        for spec in specs:
            if spec not in stale and not done(spec, 0.0, ""):
                return "--fail-fast"
        if not stale:
            return ""
        by_key = {s.key: s for s in stale}
        items = [_Item(s.key, {"kind": "build", "build": asdict(s)}) for s in stale]

        def finished(item: _Item, result: dict[str, object] | None, infra: str) -> bool:
            if result is None:
                return done(by_key[item.key], 0.0, infra)
            return done(by_key[item.key], float(result.get("seconds", 0.0)),  # type: ignore[arg-type]
                        str(result.get("error", "")))

        return self._submit_all("build", items, len(items), finished, lambda _t: None)

    def run_many(self, runs: Sequence[tuple[RunSpec, Path]], done: RunDone) -> str:
        by_key = {run.key: (run, log_dir) for run, log_dir in runs}
        items = [_Item(run.key, {"kind": "run", "run": asdict(run), "log_dir": str(log_dir)},
                       self.cost(run) if self.cost else 1.0) for run, log_dir in runs]

        def outcome(item: _Item, result: dict[str, object] | None, infra: str) -> Outcome:
            run, log_dir = by_key[item.key]
            if result is None:
                return Outcome(run, False, log_dir, first_error=infra, infrastructure=True)
            waves = result.get("waves")
            return Outcome(run, bool(result.get("passed")), log_dir,
                           tests=int(result.get("tests", 0)),  # type: ignore[call-overload]
                           failed=int(result.get("failed", 0)),  # type: ignore[call-overload]
                           first_error=str(result.get("first_error", "")),
                           wall_s=float(result.get("wall_s", 0.0)),  # type: ignore[arg-type]
                           build_s=float(result.get("build_s", 0.0)),  # type: ignore[arg-type]
                           waves=Path(str(waves)) if waves else None,
                           interrupted=bool(result.get("interrupted")),
                           retried="; ".join(item.attempts[:-1]))

        def finished(item: _Item, result: dict[str, object] | None, infra: str) -> bool:
            run = by_key[item.key][0]
            return done(run, outcome(item, result, infra))

        def interrupted(item: _Item) -> None:
            run, log_dir = by_key[item.key]
            done(run, Outcome(run, False, log_dir, first_error="interrupted: its Slurm job "
                              "was cancelled before it finished", interrupted=True))

        if not items:
            return ""
        if self.runs_per_task:
            tasks = math.ceil(len(items) / self.runs_per_task)
        else:
            tasks = TASKS_PER_CPU * self.cluster.cpus(self.partition)
        return self._submit_all("run", items, tasks, finished, interrupted)

    # -- arrays -----------------------------------------------------------------------------

    def _folder(self, kind: str) -> Path:
        with self._guard:
            self._count += 1
            count = self._count
        folder = self.work_dir / f"{kind}-{os.getpid()}-{count:04d}"
        folder.mkdir(parents=True, exist_ok=False)
        return folder

    def _submit(self, kind: str, items: list[_Item], tasks: int) -> _Array:
        """One array: the items packed into (at most) `tasks` tasks, its task list on disk,
        then sbatch."""
        members = pack([i.cost for i in items], tasks,
                       self.runs_per_task if kind == "run" else 1)
        folder = self._folder(kind)
        (folder / "tasks.json").write_text(json.dumps(
            {"items": [i.payload for i in items], "tasks": members}, indent=1))
        args = [f"--array=0-{len(members) - 1}", f"--job-name=mv-{kind}",
                f"--chdir={Path.cwd()}", f"--output={folder}/task-%a.out", "--no-requeue"]
        args += [f"--partition={self.partition}"] if self.partition else []
        command = shlex.join([sys.executable, "-m", TASK_MODULE, str(folder / "tasks.json")])
        job = self.cluster.submit(args + list(self.options), command)
        print(f"slurm: job {job}: {len(items)} {kind}(s) in {len(members)} task(s)",
              file=sys.stderr, flush=True)
        return _Array(job, items, members, folder, set(range(len(items))))

    def _submit_all(self, kind: str, items: list[_Item], tasks: int,
                    finished: Callable[[_Item, dict[str, object] | None, str], bool],
                    interrupted: Callable[[_Item], None]) -> str:
        """Submit the items as one array, collect each as it ends, resubmit once (a task
        each) those the cluster ended; on False from `finished` or an interrupt, cancel the
        rest."""
        arrays: list[_Array] = []
        try:
            arrays.append(self._submit(kind, items, tasks))
            while any(a.open for a in arrays):
                time.sleep(self.poll_s)
                retry, stop = self._collect(arrays, finished)
                if stop:
                    self._cancel(arrays, interrupted)
                    return "--fail-fast"
                if retry:
                    print(f"slurm: resubmitting {len(retry)} {kind}(s) the cluster ended: "
                          f"{'; '.join(t.attempts[-1] for t in retry)}", file=sys.stderr,
                          flush=True)
                    arrays.append(self._submit(kind, retry, len(retry)))
        except KeyboardInterrupt:
            self._cancel(arrays, interrupted)
            print(f"interrupted: cancelled the Slurm jobs of this {kind} phase "
                  f"({', '.join(a.job for a in arrays) or 'none submitted'})", file=sys.stderr,
                  flush=True)
            return "interrupted"
        return ""

    def _collect(self, arrays: list[_Array],
                 finished: Callable[[_Item, dict[str, object] | None, str], bool]
                 ) -> tuple[list[_Item], bool]:
        """One poll: the items whose result file is there are handed to `finished`; those
        whose task has ended without one come back to be resubmitted the first time, are
        handed over as infrastructure errors the second. (retry, whether to stop)"""
        live = [a for a in arrays if a.open]
        active = self.cluster.active([a.job for a in live])
        retry: list[_Item] = []
        for array in live:
            finals: dict[str, str] | None = None
            for i in sorted(array.open):
                item = array.items[i]
                result = _read(array.result_file(i))
                task_id = f"{array.job}_{array.task_of(i)}"
                if result is None:
                    if task_id in active:
                        continue
                    array.missing[i] = array.missing.get(i, 0) + 1
                    if array.missing[i] < GRACE_POLLS:
                        continue
                    if finals is None:
                        finals = self.cluster.final(array.job)
                    state = finals.get(task_id, "UNKNOWN")
                    item.attempts.append(f"{task_id} {state}")
                    array.open.discard(i)
                    if len(item.attempts) < 2:
                        retry.append(item)
                        continue
                    infra = (f"{INFRA}: Slurm ended the job without a result, twice "
                             f"({'; '.join(item.attempts)}); see "
                             f"{array.folder}/task-{array.task_of(i)}.out")
                    if not finished(item, None, infra):
                        return retry, True
                    continue
                item.attempts.append(f"{task_id} COMPLETED")
                array.open.discard(i)
                if not finished(item, result, ""):
                    return retry, True
        return retry, False

    def _cancel(self, arrays: list[_Array], interrupted: Callable[[_Item], None]) -> None:
        """scancel what is still open, wait (briefly) until it has left the queue, and hand
        every unfinished item back as interrupted."""
        jobs = [a.job for a in arrays if a.open]
        self.cluster.cancel(jobs)
        deadline = time.monotonic() + 15
        while jobs and self.cluster.active(jobs) and time.monotonic() < deadline:
            time.sleep(0.5)
        for array in arrays:
            for i in sorted(array.open):
                interrupted(array.items[i])
            array.open.clear()


def _read(path: Path) -> dict[str, object] | None:
    """A result file (written whole, by rename), or None if it has none (yet)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
