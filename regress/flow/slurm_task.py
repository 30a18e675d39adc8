"""One task of a Slurm job array (flow.slurm submits it):

    python -m montverif.regress.flow.slurm_task TASKS_JSON [INDEX]

TASKS_JSON lists the array's builds or runs (`items`) and which of them each task does
(`tasks`); INDEX (default: SLURM_ARRAY_TASK_ID) picks the task. For each of its items in turn
it does what the local launcher does (LocalLauncher.build / .run: the same run folder,
outcome.json and waves; the task's runs of one build one after another in one simulator
process, LocalLauncher.run_batch) and then writes result-<item>.json beside TASKS_JSON, whole
(by rename): an item without that file when its task has ended was ended by the cluster.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from montverif.host import environment
from montverif.regress.flow.batch import batch_key
from montverif.regress.flow.launcher import LocalLauncher, one_line
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec


def _build_spec(raw: dict) -> BuildSpec:
    return BuildSpec(**(raw | {"params": tuple(tuple(p) for p in raw.get("params", ()))}))


def _run_spec(raw: dict) -> RunSpec:
    return RunSpec(**(raw | {"build": _build_spec(raw["build"]),
                             "tests": tuple(raw["tests"])}))


def _cores() -> int:
    """The cores Slurm gave this task (--cpus-per-task), 1 unless it says more."""
    try:
        return max(1, int(environment.SLURM_CPUS.get() or 1))
    except ValueError:
        return 1


def perform(task: dict) -> dict[str, object]:
    """The task's result record."""
    launcher = LocalLauncher()
    if task["kind"] == "build":
        spec = _build_spec(task["build"])
        try:
            return {"key": spec.key, "seconds": launcher.build(spec), "error": ""}
        except Exception as exc:
            return {"key": spec.key, "seconds": 0.0, "error": one_line(exc)}
    run = _run_spec(task["run"])
    _check_thread()
    try:
        out = launcher.run(run, Path(task["log_dir"]))
    except Exception as exc:
        return {"key": run.key, "passed": False, "first_error": one_line(exc)}
    return _run_record(out)


def perform_runs(tasks: list[dict]) -> list[dict[str, object]]:
    """The result records of runs of one build (flow.batch.batch_key), run in one simulator
    process; each alone if the batch cannot start."""
    if len(tasks) == 1:
        return [perform(tasks[0])]
    runs = [(_run_spec(t["run"]), Path(t["log_dir"])) for t in tasks]
    _check_thread()
    try:
        outcomes = LocalLauncher().run_batch(runs)
    except Exception:
        return [perform(t) for t in tasks]
    return [_run_record(out) for out in outcomes]


def _check_thread() -> None:
    """The scoreboard's checker thread only where the task has a core to spare for it."""
    if not environment.CHECK_THREAD.is_set():
        os.environ[environment.CHECK_THREAD.name] = "1" if _cores() >= 2 else "0"


def _run_record(out: Outcome) -> dict[str, object]:
    record = asdict(out)
    record.pop("run")
    record |= {"key": out.run.key, "log_dir": str(out.log_dir),
               "waves": str(out.waves) if out.waves else None,
               "node": environment.SLURM_NODE.get()}
    return record


def groups(items: list[dict], order: list[int]) -> list[list[int]]:
    """The task's items (indices, in `order`) in groups done together: the runs that can
    share a simulator process (in order of their first run), every other item alone."""
    out: list[list[int]] = []
    by_key: dict[object, list[int]] = {}
    for i in order:
        task = items[i]
        key = batch_key(_run_spec(task["run"])) if task["kind"] == "run" else None
        if key is None:
            out.append([i])
        elif key in by_key:
            by_key[key].append(i)
        else:
            by_key[key] = [i]
            out.append(by_key[key])
    return out


def main(argv: list[str]) -> int:
    tasks_file = Path(argv[0])
    index = int(argv[1] if len(argv) > 1 else environment.SLURM_TASK.required())
    array = json.loads(tasks_file.read_text())
    for group in groups(array["items"], array["tasks"][index]):
        records = perform_runs([array["items"][i] for i in group]) if len(group) > 1 \
            else [perform(array["items"][group[0]])]
        for item, record in zip(group, records, strict=True):
            result = tasks_file.parent / f"result-{item}.json"
            tmp = result.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(record, indent=1, default=str) + "\n")
            tmp.replace(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
