"""Build-once-run-many (docs/mutation.md): the mutants whose sites can be selected at run
time share one meta-mutant build per parameter point (regress/mutate/meta.py), at the
campaign's own point and, for the survivors, at the lists' other points."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import ROOT
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import simulate
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.mutate import meta, mutant_run
from montverif.regress.mutate.mutant_run import (
    first_build_error,
    params_name,
    point_name,
    smoke_run,
    vector_run,
)
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.mutate.sites import Mutant, mutant_params
from montverif.regress.mutate.state import Campaign, write_overlay
from montverif.regress.mutate.svmut import Site
from montverif.regress.regression.diffsim import transactions
from montverif.spec import top as spec_top


def write_meta_overlay(c: Campaign, folder: Path, members: list[tuple[Mutant, meta.Guard]]) -> None:
    """A meta-mutant build's overlay in `folder`: each mutated file with its members' guards,
    and the design's top with the selector they read (meta.with_selector)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_file: dict[str, list[tuple[int, Site, meta.Guard]]] = {}
    for m, g in members:
        by_file.setdefault(m.site.file, []).append((m.id, m.site, g))
    top = c.design.toplevel
    for file, entries in by_file.items():
        (folder / Path(file).name).write_text(
            meta.meta_source((ROOT / file).read_text(), entries, top))
    generated = spec_top.write(c.design)
    (folder / generated.name).write_text(meta.with_selector(generated.read_text(), top))


def share_builds(c: Campaign, mutants: list[Mutant],
                 bases: dict[tuple[tuple[str, int], ...], Outcome],
                 progress: Callable[[str], None]
                 ) -> tuple[list[tuple[Mutant, RunSpec]], list[Mutant]]:
    """Put every mutant whose site can be selected at run time into one meta-mutant build per
    parameter point: ([(mutant, its run on the shared build)], the mutants to build on their
    own). A mutant that does not elaborate on its own is stillborn here (never in a shared
    build); a shared build that fails, or whose original (no mutant selected) differs from
    `bases`, sends its mutants back to their own builds, as does a parameter point with one
    mutant only (a shared build would add the original's run for nothing)."""
    groups: dict[tuple[tuple[str, int], ...], list[tuple[Mutant, meta.Guard]]] = {}
    own: list[Mutant] = []
    why: dict[str, int] = {}
    for m in mutants:
        g = meta.guard((ROOT / m.site.file).read_text(), m.site)
        if isinstance(g, str):
            own.append(m)
            why[g] = why.get(g, 0) + 1
        else:
            groups.setdefault(mutant_params(c.design, m.site), []).append((m, g))
    if own:
        progress(f"shared build: {len(own)} mutant(s) need their own build ("
                 + "; ".join(f"{n} {w}" for w, n in sorted(why.items())) + ")")
    runs: list[tuple[Mutant, RunSpec]] = []
    for params, members in sorted(groups.items()):
        live = []
        for m, g in members:  # the stillborn check: elaborate the single mutant, cheaply
            t0 = time.monotonic()
            m.build = "shared"
            single = smoke_run(c.dut, c.options, str(write_overlay(m, c.out)), params).build
            err = meta.elaboration_error(c.options.sim, single.sources(c.design),
                                         single.toplevel(c.design),
                                         single.parameters(c.design))
            m.wall_s = time.monotonic() - t0
            if err is not None:
                m.status, m.reason = "stillborn", err
                progress(f"  mut{m.id:04d} stillborn (does not elaborate alone): {err[:100]}")
            else:
                live.append((m, g))
        if len(live) < 2:  # one mutant: a shared build would only add the original's run
            own += [m for m, _ in live]
            continue
        at = "".join(f", {k}={v}" for k, v in params)
        folder = c.out / "mutants" / ("meta" + params_name(params))
        write_meta_overlay(c, folder, live)
        run = smoke_run(c.dut, c.options, str(folder), params)
        progress(f"shared build: {len(live)} mutants in one build ({run.build.key}{at})")
        try:
            flow_build.build(run.build, c.design, log=c.out / "runs" / f"{folder.name}-build.log")
            original = simulate.execute(run, c.out / "runs" / f"{folder.name}-original", quiet=True)
        except tools.ToolError as exc:
            reason = f"failed: {first_build_error(exc)}"
        else:
            ref = transactions(bases[params].log_dir)
            reason = ("" if original.passed and ref is not None
                      and transactions(original.log_dir) == ref else
                      "its original (no mutant selected) differs from the original design: "
                      + (original.first_error or "different transaction log"))
        if reason:
            progress(f"shared build {reason}; building each of its {len(live)} mutants "
                     "on its own")
            own += [m for m, _ in live]
            continue
        runs += [(m, replace(run, mutant=m.id)) for m, _ in live]
    return runs, own


def guards_of(survivors: list[Mutant]) -> dict[int, meta.Guard]:
    """The survivors whose site can be selected at run time (meta.guard), with their guard."""
    guards: dict[int, meta.Guard] = {}
    for m in survivors:
        g = meta.guard((ROOT / m.site.file).read_text(), m.site)
        if not isinstance(g, str):
            guards[m.id] = g
    return guards


def shared_build_spec(c: Campaign, folder: str, p: ParamPoint) -> BuildSpec:
    """The build of a shared survivors' model at p: the equivalence simulator, fast bus."""
    return vector_run(c, folder, p, Path("-"), c.options.eq_sim).build


def shared_build(c: Campaign, p: ParamPoint, members: list[Mutant], check: RunSpec,
                  ref: list[dict] | None, phase: str, progress: Callable[[str], None]
                  ) -> str | None:
    """One meta-mutant build at p on the equivalence simulator holding `members` (two or
    more survivors that can be selected at run time), each of their runs there then selecting
    one (+MV_MUTANT): the build's folder, or None if it fails to build, or if `check` (a run
    whose build is replaced by the shared one) without a mutant does not pass or, given `ref`,
    gives another transaction log than the original's. Built once per point and kept in
    c.shared_builds with the ids it holds: the equivalence phase reuses the points phase's build
    (its survivors are those that passed there). A build whose error names a line of the
    build's files is compiled again without the members whose sites are on that line (they are
    built on their own), while two or more remain."""
    keep = list(members)
    have = c.shared_builds.get(p)
    folder = c.out / "mutants" / f"meta-eq-{point_name(p)}"
    where = f"{p.text(c.design)} on {c.options.eq_sim}"
    run = replace(check, build=shared_build_spec(c, str(folder), p))
    while True:
        ids = frozenset(m.id for m in keep)
        try:
            if have is None or not ids <= have[1]:
                guards = guards_of(keep)
                write_meta_overlay(c, folder, [(m, guards[m.id]) for m in keep])
                mutant_run.build_mutant(c, run.build, c.out / "runs" / f"{folder.name}-build.log")
                c.shared_builds[p] = (str(folder), ids)
            original = mutant_run.eq_run(c, run, f"{folder.name}-" + (
                "original" if phase == "equivalence" else f"{phase}-original"))
        except (tools.ToolError, ValueError) as exc:
            bad = _named_members(str(exc), folder, keep)
            if bad and len(keep) - len(bad) >= 2:
                progress(f"{phase}: the shared build at {where} failed on the line of "
                         + ", ".join(f"mut{m.id:04d}" for m in bad)
                         + f" ({first_build_error(exc)}); built again without them")
                keep = [m for m in keep if m not in bad]
                continue
            progress(f"{phase}: the shared build at {where} failed "
                     f"({first_build_error(exc)}); its survivors are built on their own")
            return None
        break
    if not original.passed or (ref is not None and transactions(original.log_dir) != ref):
        progress(f"{phase}: the shared build at {where} without a mutant "
                 f"{'fails' if not original.passed else 'differs from the original'}; its "
                 "survivors are built on their own")
        return None
    progress(f"{phase}: {len(keep)} survivors share one build at {where}")
    return str(folder)


def _named_members(error: str, folder: Path, members: list[Mutant]) -> list[Mutant]:
    """The members whose sites are on a line of the build's files that `error` names
    (`<folder>/<file>.sv:<line>`: the meta sources keep the original's line numbers)."""
    named = {(Path(f).name, int(line)) for f, line in re.findall(r"([^\s:'\"]+\.sv):(\d+)", error)
             if Path(f).parent.resolve() == folder.resolve()}
    return [m for m in members if (Path(m.site.file).name, m.site.line) in named]
