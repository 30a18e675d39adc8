"""The survivors at the design's other parameter points (regress/mutate/points.py): each
one's smoke tests wherever the lists run the mutant; failing or not building there kills
it. A generate-condition mutant whose design there is the original's needs no run."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import ROOT
from montverif.regress.flow import simulate
from montverif.regress.flow.spec import BuildSpec
from montverif.regress.mutate import gencond, meta, mutant_run
from montverif.regress.mutate.batched import FAILED_IN_BATCH, run_batched
from montverif.regress.mutate.mutant_run import (
    classify,
    execute_mutant,
    first_build_error,
    point_name,
    remove_build,
    smoke_run,
)
from montverif.regress.mutate.points import ParamPoint, campaign_points
from montverif.regress.mutate.sharing import guards_of, shared_build, shared_build_spec
from montverif.regress.mutate.sites import Mutant, block_selector, mutant_params
from montverif.regress.mutate.state import Campaign
from montverif.regress.regression.shards import run_cost


def mutant_points(c: Campaign, m: Mutant) -> list[ParamPoint]:
    """The points the mutant is judged at, the campaign's own first (points.py)."""
    params = mutant_params(c.design, m.site)
    if not c.options.points:
        return [ParamPoint(c.options.n, params)]
    return campaign_points(c.dut, c.design, c.options.n, params,
                           block_selector(c.design, m.site))


def simulable(c: Campaign, p: ParamPoint) -> bool:
    """Whether a run at point p is within the campaign's budget (estimated seconds)."""
    return point_cost(c, p) <= point_budget(c)


def point_budget(c: Campaign) -> float:
    return min(c.options.point_budget_s, c.options.timeout_s / 2)


def point_cost(c: Campaign, p: ParamPoint) -> float:
    return run_cost(smoke_run(c.dut, replace(c.options, n=p.n), params=p.params))


_PROBE_FILES = threading.Lock()


def same_design(c: Campaign, m: Mutant, p: ParamPoint) -> bool:
    """Whether the mutant's design at p is the original's: a mutant in a generate `if`'s
    condition whose truth value there is the original's (gencond.py; probed once per point
    and kept in c.probes). Every other mutant: False."""
    if (m.id, p) not in c.probes:
        text = (ROOT / m.site.file).read_text()
        if (source := gencond.probe_source(text, m.site)) is None:
            return False
        folder = c.out / "mutants" / f"mut{m.id:04d}-probe"
        with _PROBE_FILES:
            if not (folder / Path(m.site.file).name).is_file():
                folder.mkdir(parents=True, exist_ok=True)
                (folder / Path(m.site.file).name).write_text(source)
        b = BuildSpec(c.dut, p.n, c.options.bus_w, "icarus", overlay=str(folder),
                      params=p.params)
        c.probes[(m.id, p)] = gencond.probe(b.sources(c.design), b.toplevel(c.design),
                                            b.parameters(c.design))
    return c.probes[(m.id, p)].same


SAME_DESIGN = "its generate condition agrees with the original's there: the original's design"


def _originals_at(c: Campaign, todo: dict[ParamPoint, list[Mutant]],
                  progress: Callable[[str], None]) -> dict[ParamPoint, str]:
    """The original's smoke run at each point: "" where it passes, else why the point is
    not simulated (beyond the budget, or the original fails there)."""
    why_not: dict[ParamPoint, str] = {}
    for p in sorted(todo, key=lambda p: (p.n, p.params)):
        run = smoke_run(c.dut, replace(c.options, n=p.n), params=p.params)
        if not simulable(c, p):
            why_not[p] = (f"{p.text(c.design)}: a run there is estimated at "
                          f"{point_cost(c, p):.0f} s, beyond the budget of "
                          f"{point_budget(c):.0f} s")
            progress(f"points: not simulated at {why_not[p]}")
            continue
        progress(f"points: the original at {p.text(c.design)} "
                 f"({len(todo[p])} survivor(s) to run there)")
        out = simulate.execute(run, c.out / "runs" / f"original-{point_name(p)}", quiet=True)
        why_not[p] = "" if out.passed else \
            f"{p.text(c.design)}: the original fails there ({out.first_error})"
    return why_not


def _points_shared(c: Campaign, todo: dict[ParamPoint, list[Mutant]],
                   why_not: dict[ParamPoint, str],
                   guards: dict[int, meta.Guard], progress: Callable[[str], None]
                   ) -> dict[ParamPoint, str]:
    """The survivors' shared build at each simulated point that has two of them or more."""
    shared: dict[ParamPoint, str] = {}
    for p in sorted(todo, key=lambda p: (p.n, p.params)):
        members = [m for m in todo[p] if m.id in guards]
        if not why_not[p] and len(members) >= 2:
            check = smoke_run(c.dut, replace(c.options, n=p.n, sim=c.options.eq_sim),
                              params=p.params)
            if (folder := shared_build(c, p, members, check, None, "points", progress)):
                shared[p] = folder
    return shared


def _settle(c: Campaign, every: list[tuple[Mutant, ParamPoint]], why_not: dict[ParamPoint, str],
            probes: dict[tuple[int, ParamPoint], Mutant]) -> None:
    """The verdicts in the lists' order of the points: the first kill stands."""
    for m, p in every:
        if m.status != "survived":
            continue
        if why_not[p]:
            m.unchecked.append(why_not[p])
            continue
        probe = probes[(m.id, p)]
        at = p.text(c.design)
        if probe.status == "survived":
            c.passed_at.setdefault(m.id, []).append(p)
        elif probe.status == "error":
            m.unchecked.append(f"{at}: {probe.reason}")
        else:  # killed, or stillborn at this point: a bug the point's build shows
            m.status, m.reason = "killed", f"at {at}: {probe.reason}"
            m.log_dir = probe.log_dir


def check_points(c: Campaign, survivors: list[Mutant],
                 progress: Callable[[str], None]) -> None:
    """Each survivor's smoke tests at every other point of the design's lists: a mutant that
    fails there, or does not build or elaborate there, is killed. A point whose run is
    estimated beyond the budget, or where the original itself fails, is not simulated; the
    mutant's `unchecked` names it with the reason."""
    todo: dict[ParamPoint, list[Mutant]] = {}
    for m in survivors:
        for p in mutant_points(c, m)[1:]:
            todo.setdefault(p, []).append(m)
    c.extra["points"] = sorted(p.label for p in todo)
    why_not = _originals_at(c, todo, progress)
    shared = _points_shared(c, todo, why_not, guards_of(survivors), progress)
    order = sorted(todo, key=lambda p: (p.n, p.params))
    every = [(m, p) for p in order for m in todo[p]]
    jobs = [(m, p) for m, p in every if not why_not[p]]
    # the runs in the points' shared builds first, several to a process (batched.py)
    selected = [(m, p) for m, p in jobs if p in shared and m.id in c.shared_builds[p][1]]
    runs = [(replace(smoke_run(c.dut, replace(c.options, n=p.n, sim=c.options.eq_sim),
                               params=p.params),
                     build=shared_build_spec(c, shared[p], p), mutant=m.id),
             c.out / "runs" / f"mut{m.id:04d}-{point_name(p)}") for m, p in selected]
    rank = {p: i for i, p in enumerate(order)}
    probes: dict[tuple[int, ParamPoint], Mutant] = {}
    first_kill: dict[int, int] = {}  # mutant id -> rank of the first point that killed it
    lock = threading.Lock()

    def judged(m: Mutant, p: ParamPoint, probe: Mutant) -> None:
        with lock:
            probes[(m.id, p)] = probe
            if probe.status not in ("survived", "error"):
                first_kill[m.id] = min(first_kill.get(m.id, rank[p]), rank[p])
        progress(f"  mut{m.id:04d} at {p.text(c.design)}: "
                 f"{probe.status if probe.status != 'survived' else 'passed'}"
                 + (f" ({SAME_DESIGN})" if probe.reason == SAME_DESIGN else ""))

    for (m, p), out in zip(selected, run_batched(runs, c.options.jobs), strict=True):
        probe = Mutant(m.id, m.site)
        classify(probe, out)
        if FAILED_IN_BATCH in out.extra:
            progress(f"  mut{m.id:04d} at {p.text(c.design)}: failed after another run in its "
                     f"process ({out.extra[FAILED_IN_BATCH]}), passed in a process of its own")
        m.wall_s += out.wall_s
        judged(m, p, probe)

    def one(job: tuple[Mutant, ParamPoint]) -> None:
        """A survivor's smoke run at a point on its own build (the point's guard is fixed at
        elaboration, or the point has no shared build)."""
        m, p = job
        with lock:
            if first_kill.get(m.id, len(order)) < rank[p]:
                return  # killed at an earlier point (the lists' order)
        t0 = time.monotonic()
        run = smoke_run(c.dut, replace(c.options, n=p.n),
                        str(c.out / "mutants" / f"mut{m.id:04d}"), p.params)
        name = f"mut{m.id:04d}-{point_name(p)}"
        probe = Mutant(m.id, m.site)
        if same_design(c, m, p):  # no build, no run: the original passed there
            probe.status, probe.reason = "survived", SAME_DESIGN
            m.wall_s += time.monotonic() - t0
            judged(m, p, probe)
            return
        try:
            mutant_run.build_mutant(c, run.build, c.out / "runs" / f"{name}-build.log")
        except tools.ToolError as exc:
            probe.status, probe.reason = "killed", f"does not build: {first_build_error(exc)}"
        else:
            execute_mutant(probe, run, c.out, name)  # beside its own point's run, never over it
            if probe.status != "survived" and not c.options.keep_builds:
                remove_build(run.build.key)
        m.wall_s += time.monotonic() - t0
        judged(m, p, probe)

    with ThreadPoolExecutor(max_workers=c.options.jobs) as pool:
        list(pool.map(one, [(m, p) for m, p in jobs if (m.id, p) not in probes]))
    _settle(c, every, why_not, probes)
    for m in survivors:  # the points in the lists' order, whatever order the jobs ended in
        c.passed_at[m.id] = [p for p in mutant_points(c, m)[1:] if p in c.passed_at.get(m.id, [])]
