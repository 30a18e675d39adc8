"""The survivors against the original: recorded proofs first, then identical transaction
logs on the equivalence vectors at every point a survivor passed (a difference is a
testbench hole), and, with CampaignOptions.prove, SBY (regress/mutate/prove.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from montverif.host import tools
from montverif.regress.flow.spec import Outcome, RunSpec, design_tb
from montverif.regress.flow.vectors import vector_file
from montverif.regress.mutate import at_points, directed, mutant_run, proofs, prove
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate.at_points import SAME_DESIGN, same_design
from montverif.regress.mutate.batched import FAILED_IN_BATCH, FLOW_ERROR, run_batched
from montverif.regress.mutate.eqvectors import (
    boundary_vectors,
    eq_label,
    eq_plan,
    exhaustive_vectors,
    point_vectors,
    spread,
    wide_vectors,
)
from montverif.regress.mutate.mutant_run import first_build_error, point_name, smoke_run
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.mutate.score import SIMULATED
from montverif.regress.mutate.sharing import guards_of, shared_build
from montverif.regress.mutate.sites import Mutant, mutant_params
from montverif.regress.mutate.state import Campaign
from montverif.regress.regression.diffsim import transactions


def first_difference(ref: list[dict], other: list[dict]) -> str | None:
    """The first operation whose logged fields (results, cycles) differ, or None."""
    if len(ref) != len(other):
        return f"{len(ref)} vs {len(other)} operations"
    for a, b in zip(ref, other, strict=True):
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            inputs = ", ".join(f"{k}={a[k]}" for k in ("x", "x2", "y", "y2", "e", "m")
                               if k in a)
            return (f"op {a.get('op')} ({inputs}): " + ", ".join(
                f"{k} {a.get(k)} vs {b.get(k)}" for k in keys))
    return None


def _ref_log(c: Campaign, p: ParamPoint, out: Outcome) -> list[dict] | str:
    """An original's equivalence run's transaction log, or why it is no reference."""
    log = transactions(out.log_dir)
    if out.passed and log is not None:
        return log
    return (f"not checked: the original failed its equivalence run at {p.text(c.design)} on "
            f"{out.run.build.sim} ({out.first_error or 'no transaction log'})")


def _reference(c: Campaign, p: ParamPoint, path: Path, count: int,
               progress: Callable[[str], None]) -> list[dict] | str:
    """The original's transaction log on the `count` vectors of `path` at p (the reference
    the survivors' logs must equal), or why there is none. The campaign's simulator runs
    them all when the equivalence simulator is the same one, when the file holds at most
    CampaignOptions.ref_share vectors, or when its first ref_share (run first, on their own) promise
    the rest within ref_full_s. Else the equivalence simulator runs them all (Icarus at N = 80
    would take minutes, Verilator seconds) and the first ref_share operations must give the
    same log on both simulators: a fault of the original on one of them (as Icarus 11's lost
    array writes in 3d86eb3) leaves the survivors unjudged."""
    sim, eq, share = c.options.sim, c.options.eq_sim, c.options.ref_share
    name = "original-exhaustive-" + point_name(p)
    whole = mutant_run.vector_run(c, "", p, path)
    if sim == eq or not 0 < share < count:
        return _ref_log(c, p, mutant_run.eq_run(c, whole, name))
    first = c.out / f"{path.stem}-first{share}.json"
    data = json.loads(path.read_text())
    first.write_text(json.dumps(data | {"vectors": data["vectors"][:share]}) + "\n")
    part = mutant_run.eq_run(c, mutant_run.vector_run(c, "", p, first), f"{name}-first{share}")
    part_log = _ref_log(c, p, part)
    if isinstance(part_log, str):
        return part_log
    if part.wall_s * count / share <= c.options.ref_full_s:
        return _ref_log(c, p, mutant_run.eq_run(c, whole, name))
    at = p.text(c.design)
    progress(f"equivalence: original on {count} vectors at {at} on {eq} (its first {share} on "
             f"{sim} took {part.wall_s:.1f} s)")
    on_eq = mutant_run.vector_run(c, "", p, path, eq)
    log = _ref_log(c, p, mutant_run.eq_run(c, on_eq, f"{name}-{eq}"))
    if isinstance(log, str):
        return log
    if (diff := first_difference(log[:share], part_log)) is not None:
        return (f"not checked: the original's first {share} operations at {at} differ "
                f"between {eq} and {sim}: {diff}")
    c.ref_on_eq_sim.append(at)
    return log


def _shared_builds(c: Campaign, survivors: list[Mutant], at: dict[int, list[ParamPoint]],
                 files: dict[ParamPoint, tuple[Path, int]],
                 refs: dict[ParamPoint, list[dict] | str],
                 progress: Callable[[str], None]) -> dict[ParamPoint, tuple[str, frozenset[int]]]:
    """The equivalence phase's shared builds (shared_build): at each point where two or
    more survivors can be selected at run time (or one, in the build the points phase compiled
    there), whose run without a mutant must give the original's transaction log there.
    Returns {point: (the build's folder, the ids it holds)}."""
    guards = guards_of(survivors)
    shared: dict[ParamPoint, tuple[str, frozenset[int]]] = {}
    for p, (path, _) in sorted(files.items(), key=lambda kv: (kv[0].n, kv[0].params)):
        members = [m for m in survivors if m.id in guards and p in at[m.id]]
        ref = refs[p]
        built = p in c.shared_builds and {m.id for m in members} <= c.shared_builds[p][1]
        if not members or (len(members) < 2 and not built) or isinstance(ref, str):
            continue  # a lone survivor is built on its own, unless the point has its shared build
        folder = shared_build(c, p, members, mutant_run.vector_run(c, "", p, path), ref,
                              "equivalence", progress)
        if folder is not None:
            shared[p] = (folder, c.shared_builds[p][1] & frozenset(m.id for m in members))
    return shared


def own_point(c: Campaign, m: Mutant) -> ParamPoint:
    """The point the campaign's exhaustive equivalence run is at (eq_plan's width)."""
    plan = eq_plan(c)
    return ParamPoint(plan[0] if not isinstance(plan, str) else c.options.n,
                 mutant_params(c.design, m.site))


def take_recorded(c: Campaign, survivors: list[Mutant],
                  progress: Callable[[str], None]) -> list[Mutant]:
    """Survivors with a recorded proof of this very file text, over the design's operand
    domain, that covers every point the campaign would simulate them at are equivalent
    without a run (proved by SBY too, if the
    record says so, or checked now with `prove`); returns the others."""
    recorded = proofs.load()
    domain = proofs.domain_text(c.design)
    todo = []
    for m in survivors:
        own = own_point(c, m)
        need = [own.label, *(p.label for p in at_points.mutant_points(c, m)[1:]
                             if at_points.simulable(c, p))]
        if (proof := proofs.lookup(m.site, recorded, need, own.label, domain)) is None:
            todo.append(m)
            continue
        m.status, m.points = "equivalent", need
        m.reason = f"{proofs.RECORDED} of {proof['recorded']}: {proof['proof']})"
        if formal_text := proof.get("formal"):
            m.proof, m.reason = prove.PROVED, f"{m.reason}; {formal_text}"
        else:
            m.proof = SIMULATED
            if c.options.prove:
                formal_check(c, m)
        progress(f"  mut{m.id:04d} {m.status} (recorded proof, file and domain unchanged)")
    c.extra["recorded_proofs"] = len(survivors) - len(todo)
    if not todo:
        c.eq_note = c.eq_note or "every survivor has a recorded proof"
    return todo


def check_equivalence(c: Campaign, survivors: list[Mutant],
                      progress: Callable[[str], None]) -> None:
    """Survivors against the original on exhaustive vectors at the campaign's own point and
    on the budget's share of them at each other point they survived: identical transaction
    logs (results and cycle counts) at every point make a mutant equivalent, any difference
    is a hole."""
    plan = eq_plan(c)
    own = {m.id: own_point(c, m) for m in survivors}
    if isinstance(plan, str):
        c.eq_note = plan
        for m in survivors:
            m.reason = plan
        return
    n, bits = plan
    vectors = c.out / f"exhaustive-n{n}-b{bits}.json"
    wide = c.options.eq_wide if bits < n else 0
    # interleaved, so that a first part of the file (_reference) reaches every kind
    vecs = spread([exhaustive_vectors(c.design, bits),
                   wide_vectors(c.design, n, wide, c.options.seed),
                   boundary_vectors(c.design, n, c.options.seed) if wide else []])
    vectors.write_text(json.dumps(vector_file(c.dut, vecs)) + "\n")
    label = eq_label(n, bits, wide)
    if design_tb(c.dut)[2] is not None:
        label = label.replace(", results read after reset and CLEAR", "")
    c.eq_note = f"{label}: {len(vecs)} vectors"
    files: dict[ParamPoint, tuple[Path, int]] = {}
    for m in survivors:
        files[own[m.id]] = (vectors, len(vecs))
        for p in c.passed_at.get(m.id, []):
            if p not in files:
                at = c.out / f"vectors-{point_name(p)}.json"
                pv = point_vectors(c, p, min(bits, p.n))
                at.write_text(json.dumps(vector_file(c.dut, pv)) + "\n")
                files[p] = (at, len(pv))
    if len(files) > len({own[m.id] for m in survivors}):
        c.eq_note += ("; then at each other parameter point of the lists a survivor passed, "
                      f"on as many of them as about {c.options.point_vectors_s:.0f} s allow")
    refs: dict[ParamPoint, list[dict] | str] = {}
    for p, (path, count) in sorted(files.items(), key=lambda kv: (kv[0].n, kv[0].params)):
        progress(f"equivalence: original on {count} vectors at {p.text(c.design)}")
        refs[p] = _reference(c, p, path, count, progress)
    if c.ref_on_eq_sim:
        c.eq_note += (f"; the original's log on {c.options.eq_sim} at {', '.join(c.ref_on_eq_sim)}"
                      f", its first {c.options.ref_share} operations the same on {c.options.sim}")

    points_at = {m.id: [own[m.id], *c.passed_at.get(m.id, [])] for m in survivors}
    shared = _shared_builds(c, survivors, points_at, files, refs, progress)
    c.extra["eq_shared_runs"] = sum(m.id in shared[p][1] for m in survivors for p in points_at[m.id]
                                    if p in shared)
    if c.extra["eq_shared_runs"]:
        c.eq_note += (f"; {c.extra['eq_shared_runs']} of the survivors' runs on one "
                      f"{c.options.eq_sim} build per point holding them all (+MV_MUTANT)")

    # the runs in the shared builds first, several to a process (batched.py)
    selected = [(m, p) for m in survivors for p in points_at[m.id]
                if p in shared and m.id in shared[p][1]]
    runs = [(replace(mutant_run.vector_run(c, shared[p][0], p, files[p][0], c.options.eq_sim),
                     mutant=m.id), _eq_dir(c, m, p)) for m, p in selected]
    keys = [(m.id, p) for m, p in selected]
    shared_run = dict(zip(keys, [run for run, _ in runs], strict=True))
    ran = dict(zip(keys, run_batched(runs, c.options.jobs), strict=True))
    for (m, p), out in zip(selected, ran.values(), strict=True):
        m.wall_s += out.wall_s
        if FAILED_IN_BATCH in out.extra:
            progress(f"  mut{m.id:04d} at {p.text(c.design)}: its equivalence run failed "
                     f"after another run in its process ({out.extra[FAILED_IN_BATCH]}), "
                     "passed in a process of its own")

    def one(m: Mutant) -> Mutant:
        t0 = time.monotonic()
        overlay = str(c.out / "mutants" / f"mut{m.id:04d}")
        shown: list[str] = []
        try:
            for p in points_at[m.id]:
                if (m.id, p) not in ran and not isinstance(refs[p], str) and \
                        same_design(c, m, p):
                    shown.append(f"{p.text(c.design)} ({SAME_DESIGN})")
                    continue
                if (m.id, p) in ran:
                    run = shared_run[(m.id, p)]
                else:
                    run = mutant_run.vector_run(c, overlay, p, files[p][0], c.options.eq_sim)
                if not _equal_at(c, m, p, refs[p], run, ran.get((m.id, p))):
                    return m
                shown.append(f"{p.text(c.design)} ({files[p][1]} vectors)")
            elaborated = [s.endswith(f"({SAME_DESIGN})") for s in shown]
            m.status, m.proof = "equivalent", mscore.ELABORATED if all(elaborated) else SIMULATED
            m.points = [p.label for p in points_at[m.id]]
            own_text = shown[0] if elaborated[0] else f"{label}; {len(vecs)} vectors"
            m.reason = (f"equivalent ({own_text}"
                        + (f"; at {len(shown) - 1} more point(s) of the lists: "
                           + ", ".join(shown[1:]) if len(shown) > 1 else "")
                        + (f"; not simulated at {len(m.unchecked)} point(s): "
                           + "; ".join(m.unchecked) if m.unchecked else "") + ")")
        finally:  # the verdict as it stands (equivalent, or the hole or why not checked)
            m.wall_s += time.monotonic() - t0
            progress(f"  mut{m.id:04d} {m.status}: {m.reason}")
        if c.options.prove:
            formal_check(c, m)
        return m

    with ThreadPoolExecutor(max_workers=c.options.jobs) as pool:
        list(pool.map(one, survivors))


def formal_check(c: Campaign, m: Mutant) -> None:
    """An equivalent mutant checked by SBY (prove.py): proved, a testbench hole after all
    (its distinguishing input a vector file in its folder), or left simulated."""
    t0 = time.monotonic()
    folder = c.out / "mutants" / f"mut{m.id:04d}"
    result = prove.prove(c.dut, c.design, folder, c.out / "formal" / f"mut{m.id:04d}",
                         c.options.eq_timeout_s)
    m.wall_s += time.monotonic() - t0
    if result.status == prove.PROVED:
        m.proof, m.reason = prove.PROVED, f"{m.reason}; {result.text}"
    elif result.status == prove.DIFFERENT:
        m.status, m.proof = "survived", ""
        m.reason = f"testbench hole: simulation found no difference, but {result.text}"
        if directed.record(c.dut, m.site, result) is not None:
            m.reason += f" (montverif mutate directed {c.out} writes it as a directed vector)"
    else:
        m.reason = f"{m.reason}; not proved: {result.text}"


def _eq_dir(c: Campaign, m: Mutant, p: ParamPoint) -> Path:
    """The folder of the mutant's equivalence run at p."""
    return c.out / "runs" / f"mut{m.id:04d}-eq-{point_name(p)}"


def _equal_at(c: Campaign, m: Mutant, p: ParamPoint, ref_log: list[dict] | str, run: RunSpec,
              ran: Outcome | None) -> bool:
    """Whether the mutant's transaction log at p (its vector run: `ran`, selected in a shared
    model, or else on its own build, built and run here) equals the original's; if not,
    m.reason says why (a difference is a testbench hole)."""
    if isinstance(ref_log, str):
        m.reason = ref_log
        return False
    at = p.text(c.design)
    name = _eq_dir(c, m, p).name
    try:
        if ran is None:
            mutant_run.build_mutant(c, run.build, c.out / "runs" / f"{name}-build.log")
        out = ran or mutant_run.eq_run(c, run, name)
    except tools.ToolError as exc:
        m.reason = f"not checked: the build at {at} failed: {first_build_error(exc)}"
        return False
    if FLOW_ERROR in out.extra:
        m.reason = f"not checked: the equivalence run at {at}: {out.extra[FLOW_ERROR]}"
        return False
    if ran is not None and out.passed and (log := transactions(out.log_dir)) is not None \
            and first_difference(ref_log, log) is not None:
        out = mutant_run.eq_run(c, run, name)  # found in a shared process: alone it stands
    log = transactions(out.log_dir)
    if not out.passed and run.build.sim != c.options.sim and not out.interrupted:
        _smoke_on(c, m, p, run, out)
    elif not out.passed:
        m.reason = f"testbench hole: the equivalence run at {at} fails: {out.first_error}"
    elif log is None:
        m.reason = f"not checked: the equivalence run at {at} left no transaction log"
    elif (diff := first_difference(ref_log, log)) is not None:
        m.reason = f"testbench hole: differs from the original at {at}: {diff}"
    else:
        return True
    return False


def _smoke_on(c: Campaign, m: Mutant, p: ParamPoint, run: RunSpec, failed: Outcome) -> None:
    """The mutant's vector run failed on the equivalence simulator, not the campaign's (on
    Verilator, say, an RTL assertion the Icarus runs cannot evaluate): its smoke tests on that
    same model decide. Failing, it is killed (the lists run that simulator there too);
    passing, the vectors found a testbench hole."""
    at, sim = p.text(c.design), run.build.sim
    smoke = replace(smoke_run(c.dut, replace(c.options, n=p.n, sim=sim), params=p.params),
                    build=run.build, mutant=run.mutant)
    out = mutant_run.eq_run(c, smoke, f"mut{m.id:04d}-smoke-{sim}-{point_name(p)}")
    if out.passed or out.interrupted:
        m.reason = (f"testbench hole: the equivalence run at {at} on {sim} fails: "
                    f"{failed.first_error}")
    else:
        m.status, m.reason, m.log_dir = "killed", f"on {sim} at {at}: {out.first_error}", \
            str(out.log_dir)
