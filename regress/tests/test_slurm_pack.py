"""How the Slurm launcher packs runs into array tasks (flow.slurm.pack): every run once,
about equal estimated cost per task, the cap per task kept, the costliest first."""

from __future__ import annotations

from montverif.regress.flow.slurm import pack


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
