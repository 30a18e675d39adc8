"""How the Slurm launcher packs runs into array tasks (flow.slurm.pack): every run once,
about equal estimated cost per task, the cap per task kept, the costliest first; and which
of a task's runs share a simulator process (flow.slurm_task.groups)."""

from __future__ import annotations

from dataclasses import asdict, replace

from montverif.regress.flow.slurm import pack
from montverif.regress.flow.slurm_task import groups
from montverif.regress.flow.spec import BuildSpec, RunSpec


def test_every_item_once_and_loads_balanced() -> None:
    costs = [50.0, 1, 2, 30, 7, 7, 20, 3, 3, 9, 11, 5, 5, 1, 8]
    tasks = pack(costs, 4)
    assert sorted(i for t in tasks for i in t) == list(range(len(costs)))
    loads = [sum(costs[i] for i in t) for t in tasks]
    assert loads == sorted(loads, reverse=True)
    # longest-processing-time packing: each item went to the least loaded task, so no task
    # was more than its last item above the lightest one
    for t, load in zip(tasks, loads, strict=True):
        assert load - costs[t[-1]] <= min(loads)
    for t in tasks:  # each task's runs costliest first
        assert [costs[i] for i in t] == sorted((costs[i] for i in t), reverse=True)


def test_one_costly_run_gets_a_task_of_its_own() -> None:
    costs = [100.0] + [1.0] * 10
    tasks = pack(costs, 3)
    assert tasks[0] == [0] and sum(len(t) for t in tasks[1:]) == 10


def test_cap_per_task_and_more_tasks_than_items() -> None:
    costs = [5.0, 4, 3, 2, 1, 1, 1]
    capped = pack(costs, 3, per_task=2)  # 7 items, at most 2 a task: 4 tasks
    assert len(capped) == 4 and all(len(t) <= 2 for t in capped)
    assert sorted(i for t in capped for i in t) == list(range(7))
    assert pack(costs, 100) == [[i] for i in range(7)]  # never an empty task
    assert pack([1.0, 1.0, 1.0], 1) == [[0, 1, 2]]


def test_a_task_runs_each_models_runs_in_one_process() -> None:
    """slurm_task.groups: a task's runs of one build (and plusargs) go together (to
    LocalLauncher.run_batch), in the order of their first run; builds, traced runs and runs
    of other plusargs each alone."""
    model = BuildSpec("mont_r2", 8, sim="icarus")

    def item(run: RunSpec) -> dict:
        return {"kind": "run", "run": asdict(run), "log_dir": f"/x/{run.key}"}

    items = [item(RunSpec(model, seed=1)), {"kind": "build", "build": asdict(model)},
             item(RunSpec(replace(model, n=16), seed=1)), item(RunSpec(model, seed=2)),
             item(RunSpec(replace(model, waves=True), seed=3)),
             item(RunSpec(model, seed=4, plusargs=("+MV_MUTANT=1",))),
             item(RunSpec(model, seed=5)), item(RunSpec(replace(model, waves=True), seed=6))]
    assert groups(items, list(range(len(items)))) == [[0, 3, 6], [1], [2], [4], [5], [7]]
    assert groups(items, [6, 2, 0]) == [[6, 0], [2]]
