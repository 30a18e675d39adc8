"""The Slurm launcher: every model built once as a job, the runs of each model as one job
array, all on a file system the cluster's nodes share with this machine (the checkout with
its .venv and build/, and the results folder). Each job runs exactly what the local launcher
runs (`montverif.regress.flow.slurm_task`), so run folders, outcome.json, waves and coverage
are the same; the runner then collects, reports and reruns as it does on this machine.

A job the cluster ends (node failure, time limit, out of memory, cancellation, or any end
without a result file) is an infrastructure error: it is submitted once more, and if that
ends the same way the run is reported as an infrastructure error (Outcome.infrastructure),
neither passed nor failed. An interrupt cancels every job this launcher submitted.

Jobs inherit this process's environment (sbatch's default `--export=ALL`); `options` are
passed to every sbatch as they are (`--account=A`, `--time=30`, `--qos=Q`, ...).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from montverif.regress.flow import check, tools
from montverif.regress.flow.launcher import INFRA, BuildDone, RunDone
from montverif.regress.flow.paths import ROOT
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec

TASK_MODULE = "montverif.regress.flow.slurm_task"
# a task that has left the queue without a result file is looked at this many polls before
# it counts as ended (a shared file system may show the file a moment late)
GRACE_POLLS = 3


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
class _Task:
    """One build or run in an array."""

    key: str
    payload: dict[str, object]
    group: str  # tasks of one group go into one array (a run's model)
    attempts: list[str] = field(default_factory=list)  # job tasks tried: "<job>_<i> STATE"


@dataclass
class _Array:
    job: str
    tasks: list[_Task]
    folder: Path
    open: set[int] = field(default_factory=set)  # indices not collected yet
    missing: dict[int, int] = field(default_factory=dict)  # polls seen gone without a result

    def result_file(self, i: int) -> Path:
        return self.folder / f"result-{i}.json"


class SlurmLauncher:
    """Builds and runs as Slurm jobs (see the module's description)."""

    def __init__(self, partition: str = "", options: Sequence[str] = (),
                 work_dir: Path | None = None, poll_s: float = 1.0,
                 cluster: Cluster | None = None) -> None:
        self.partition = partition
        self.options = tuple(options)
        self.work_dir = work_dir or ROOT / "build" / "slurm"
        self.poll_s = poll_s
        self.cluster = cluster or Cluster()
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
        by_key = {s.key: s for s in specs}
        tasks = [_Task(s.key, {"kind": "build", "build": asdict(s)}, "builds") for s in specs]

        def finished(task: _Task, result: dict[str, object] | None, infra: str) -> bool:
            if result is None:
                return done(by_key[task.key], 0.0, infra)
            return done(by_key[task.key], float(result.get("seconds", 0.0)),  # type: ignore[arg-type]
                        str(result.get("error", "")))

        return self._submit_all("build", tasks, finished, lambda _t: None)

    def run_many(self, runs: Sequence[tuple[RunSpec, Path]], done: RunDone) -> str:
        by_key = {run.key: (run, log_dir) for run, log_dir in runs}
        tasks = [_Task(run.key, {"kind": "run", "run": asdict(run), "log_dir": str(log_dir)},
                       run.build.key) for run, log_dir in runs]

        def outcome(task: _Task, result: dict[str, object] | None, infra: str) -> Outcome:
            run, log_dir = by_key[task.key]
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
                           retried="; ".join(task.attempts[:-1]))

        def finished(task: _Task, result: dict[str, object] | None, infra: str) -> bool:
            run = by_key[task.key][0]
            return done(run, outcome(task, result, infra))

        def interrupted(task: _Task) -> None:
            run, log_dir = by_key[task.key]
            done(run, Outcome(run, False, log_dir, first_error="interrupted: its Slurm job "
                              "was cancelled before it finished", interrupted=True))

        return self._submit_all("run", tasks, finished, interrupted)

    # -- arrays -----------------------------------------------------------------------------

    def _folder(self, kind: str) -> Path:
        with self._guard:
            self._count += 1
            count = self._count
        folder = self.work_dir / f"{kind}-{os.getpid()}-{count:04d}"
        folder.mkdir(parents=True, exist_ok=False)
        return folder

    def _submit(self, kind: str, tasks: list[_Task]) -> _Array:
        """One array of tasks: its task list on disk, then sbatch."""
        folder = self._folder(kind)
        (folder / "tasks.json").write_text(json.dumps([t.payload for t in tasks], indent=1))
        args = [f"--array=0-{len(tasks) - 1}", f"--job-name=mv-{kind}-{tasks[0].group}"[:120],
                f"--chdir={ROOT}", f"--output={folder}/task-%a.out", "--no-requeue"]
        args += [f"--partition={self.partition}"] if self.partition else []
        command = shlex.join([sys.executable, "-m", TASK_MODULE, str(folder / "tasks.json")])
        job = self.cluster.submit(args + list(self.options), command)
        print(f"slurm: job {job}: {len(tasks)} {kind}(s) of {tasks[0].group}", file=sys.stderr,
              flush=True)
        return _Array(job, tasks, folder, set(range(len(tasks))))

    def _submit_all(self, kind: str, tasks: list[_Task],
                    finished: Callable[[_Task, dict[str, object] | None, str], bool],
                    interrupted: Callable[[_Task], None]) -> str:
        """Submit the tasks (an array per group), collect each as it ends, resubmit once
        those the cluster ended; on False from `finished` or an interrupt, cancel the rest."""
        groups: dict[str, list[_Task]] = {}
        for task in tasks:
            groups.setdefault(task.group, []).append(task)
        arrays: list[_Array] = []
        try:
            for group in groups.values():
                arrays.append(self._submit(kind, group))
            while any(a.open for a in arrays):
                time.sleep(self.poll_s)
                retry, stop = self._collect(arrays, finished)
                if stop:
                    self._cancel(arrays, interrupted)
                    return "--fail-fast"
                regroup: dict[str, list[_Task]] = {}
                for task in retry:
                    regroup.setdefault(task.group, []).append(task)
                for group in regroup.values():
                    print(f"slurm: resubmitting {len(group)} {kind}(s) the cluster ended: "
                          f"{'; '.join(t.attempts[-1] for t in group)}", file=sys.stderr,
                          flush=True)
                    arrays.append(self._submit(kind, group))
        except KeyboardInterrupt:
            self._cancel(arrays, interrupted)
            print(f"interrupted: cancelled the Slurm jobs of this {kind} phase "
                  f"({', '.join(a.job for a in arrays) or 'none submitted'})", file=sys.stderr,
                  flush=True)
            return "interrupted"
        return ""

    def _collect(self, arrays: list[_Array],
                 finished: Callable[[_Task, dict[str, object] | None, str], bool]
                 ) -> tuple[list[_Task], bool]:
        """One poll: the tasks that ended are handed to `finished`; those the cluster ended
        for the first time come back to be resubmitted. (retry, whether to stop)"""
        live = [a for a in arrays if a.open]
        active = self.cluster.active([a.job for a in live])
        retry: list[_Task] = []
        for array in live:
            finals: dict[str, str] | None = None
            for i in sorted(array.open):
                task_id = f"{array.job}_{i}"
                if task_id in active:
                    continue
                task = array.tasks[i]
                result = _read(array.result_file(i))
                if result is None:
                    array.missing[i] = array.missing.get(i, 0) + 1
                    if array.missing[i] < GRACE_POLLS:
                        continue
                    if finals is None:
                        finals = self.cluster.final(array.job)
                    state = finals.get(task_id, "UNKNOWN")
                    task.attempts.append(f"{task_id} {state}")
                    array.open.discard(i)
                    if len(task.attempts) < 2:
                        retry.append(task)
                        continue
                    infra = (f"{INFRA}: Slurm ended the job without a result, twice "
                             f"({'; '.join(task.attempts)}); see {array.folder}/task-{i}.out")
                    if not finished(task, None, infra):
                        return retry, True
                    continue
                task.attempts.append(f"{task_id} COMPLETED")
                array.open.discard(i)
                if not finished(task, result, ""):
                    return retry, True
        return retry, False

    def _cancel(self, arrays: list[_Array], interrupted: Callable[[_Task], None]) -> None:
        """scancel what is still open, wait (briefly) until it has left the queue, and hand
        every unfinished task back as interrupted."""
        jobs = [a.job for a in arrays if a.open]
        self.cluster.cancel(jobs)
        deadline = time.monotonic() + 15
        while jobs and self.cluster.active(jobs) and time.monotonic() < deadline:
            time.sleep(0.5)
        for array in arrays:
            for i in sorted(array.open):
                interrupted(array.tasks[i])
            array.open.clear()


def _read(path: Path) -> dict[str, object] | None:
    """A task's result file (written whole, by rename), or None if it has none (yet)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
