"""A mutation campaign of one design: the original's runs, every mutant's run, then the
survivors judged stage by stage; its cost estimate and its score.

The stages, each a module of its own:

    state.py        CampaignOptions (the campaign's settings) and Campaign (what it found so far)
    mutant_run.py   one mutant's build, smoke run and classification
    sharing.py      build-once-run-many: the mutants whose sites can be selected at run
                    time (meta.py) in one meta-mutant build per parameter point
    at_points.py    the survivors at the lists' other parameter points (points.py)
    eqvectors.py    the equivalence vectors
    equivalence.py  recorded proofs, then the survivors against the original on the
                    vectors at every point, and SBY with CampaignOptions.prove (prove.py)

Every mutant is an overlay folder holding the one changed source file (BuildSpec.overlay).
Its verdict:

    killed      a test failed (reason: the first error; a hang is ended by the watchdog), at
                the campaign's point or at another parameter point of the design's lists
    survived    every test passed, and the survivor is not shown equivalent: a testbench hole
    equivalent  survived at every point, and simulation at each (exhaustive over small
                operands at the campaign's point) found no difference (points.py)
    stillborn   does not compile or elaborate (never counted as killed)
    error       the flow itself failed (not counted either way)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from montverif.host.errors import ConfigError
from montverif.regress.flow import check, simulate
from montverif.regress.flow.spec import Outcome, RunSpec
from montverif.regress.mutate import at_points, equivalence, mutant_run
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate.at_points import point_cost
from montverif.regress.mutate.equivalence import own_point
from montverif.regress.mutate.eqvectors import eq_plan, exhaustive_vectors
from montverif.regress.mutate.mutant_run import (
    params_name,
    remove_build,
    run_shared,
    smoke_run,
    vector_run,
)
from montverif.regress.mutate.points import ParamPoint, campaign_points
from montverif.regress.mutate.sharing import share_builds, shared_build_spec
from montverif.regress.mutate.sites import Mutant, mutant_params
from montverif.regress.mutate.state import Campaign, CampaignOptions
from montverif.regress.regression.shards import run_cost
from montverif.spec.design import Design


def baseline(dut: str, design: Design, opts: CampaignOptions, out: Path,
             params: tuple[tuple[str, int], ...] = ()) -> Outcome:
    """The unmutated design must pass the same runs, or no mutant can be judged."""
    run = smoke_run(dut, opts, params=params)
    check.validate(run)
    name = "original" + "".join(f"-{k}{v}" for k, v in params)
    outcome = simulate.execute(run, out / "runs" / name, quiet=True)
    if not outcome.passed:
        at = "".join(f", {k}={v}" for k, v in params)
        raise ConfigError(f"the original {dut} fails its own smoke run at N={opts.n}{at}: "
                          f"{outcome.first_error}")
    return outcome


def run_campaign(dut: str, design: Design, mutants: list[Mutant], total: int,
                 opts: CampaignOptions, out: Path, progress: Callable[[str], None]) -> Campaign:
    t0 = time.monotonic()
    c = Campaign(dut, design, opts, out, total, mutants)
    progress(f"original: building and running {dut} at N={opts.n}")
    base = baseline(dut, design, opts, out)
    bases: dict[tuple[tuple[str, int], ...], Outcome] = {(): base}
    for params in sorted({mutant_params(design, m.site) for m in mutants} - {()}):
        progress(f"original: {dut} at N={opts.n}, " + ", ".join(f"{k}={v}" for k, v in params))
        bases[params] = baseline(dut, design, opts, out, params)
    c.extra["original_run_s"] = round(base.wall_s, 2)
    c.extra["original_build_s"] = round(base.build_s, 2)
    shared, own = share_builds(c, mutants, bases, progress) if opts.share else ([], mutants)
    c.extra["shared"], c.extra["own_builds"] = len(shared), len(own)
    done = 0

    def one(job: tuple[Mutant, RunSpec | None]) -> Mutant:
        nonlocal done
        m, run = job
        mutant_run.run_mutant(m, c) if run is None else run_shared(m, run, c)
        done += 1
        progress(f"[{done}/{len(shared) + len(own)}] mut{m.id:04d} {m.status:<10} "
                 f"{m.site.description}  ({m.wall_s:.0f}s{', shared' if run else ''}) "
                 f"{m.reason[:100]}")
        return m

    jobs: list[tuple[Mutant, RunSpec | None]] = [*shared, *((m, None) for m in own)]
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        list(pool.map(one, jobs))
    survivors = [m for m in mutants if m.status == "survived"]
    if survivors and opts.use_proofs:  # proved before, on this very file text
        survivors = equivalence.take_recorded(c, survivors, progress)
    if survivors and opts.points and not simulate.ending():
        at_points.check_points(c, survivors, progress)
        survivors = [m for m in survivors if m.status == "survived"]
    if survivors and not simulate.ending():
        equivalence.check_equivalence(c, survivors, progress)
    if simulate.ending():
        unjudged(c, progress)
    if not opts.keep_builds:
        for m in mutants:
            overlay = str(out / "mutants" / f"mut{m.id:04d}")
            builds = {smoke_run(dut, opts, overlay, mutant_params(design, m.site)).build}
            builds |= {smoke_run(dut, replace(opts, n=p.n), overlay, p.params).build
                       for p in c.passed_at.get(m.id, [])}
            builds |= {vector_run(c, overlay, p, Path("-"), opts.eq_sim).build  # its vectors'
                       for p in [own_point(c, m), *c.passed_at.get(m.id, [])]}
            for b in builds:
                remove_build(b.key)
        for p, (folder, _) in c.shared_builds.items():
            remove_build(shared_build_spec(c, folder, p).key)
        for params in {mutant_params(design, m.site) for m in mutants}:
            remove_build(smoke_run(dut, opts, str(out / "mutants" / ("meta" + params_name(
                params))), params).build.key)
    c.wall_s = time.monotonic() - t0
    return c


SURVIVOR_SHARE = 0.3  # about the share of mutants that survive a campaign's own runs


def estimated_cost(dut: str, design: Design, opts: CampaignOptions, mutants: int) -> float:
    """Estimated seconds of a campaign (shards.run_cost), to start the longest first: every
    mutant's own run, and for the share that survives, the exhaustive equivalence run at the
    campaign's point and at each other point within the budget a smoke run and the vectors'
    budget (mwrkmm, rsa_core and mont_dual are the nightly's longest)."""
    c = Campaign(dut, design, opts, Path("-"), 0, [])
    own = run_cost(smoke_run(dut, opts))
    judge = 0.0
    if not isinstance(plan := eq_plan(c), str):
        n, bits = plan
        count = len(exhaustive_vectors(design, bits)) + (opts.eq_wide if bits < n else 0)
        judge += run_cost(replace(vector_run(c, "", ParamPoint(n, ()), Path("-"), opts.eq_sim),
                                  txns=count))
    if opts.points:
        judge += sum(point_cost(c, p) + opts.point_vectors_s
                     for p in campaign_points(dut, design, opts.n)[1:] if at_points.simulable(c, p))
    return mutants * (own + SURVIVOR_SHARE * judge)


def unjudged(c: Campaign, progress: Callable[[str], None]) -> None:
    """An interrupt ended the campaign's simulations: every survivor whose verdict it cut
    short (not shown equivalent, not killed) is an error without a verdict, never a hole
    counted in the score, and the campaign is marked interrupted (not finished)."""
    c.extra["interrupted"] = True
    cut = [m for m in c.mutants if m.status == "survived"]
    for m in cut:
        m.status, m.reason = "error", "not judged: the campaign was interrupted"
    progress(f"interrupted: {len(cut)} survivor(s) left without a verdict")


def score(mutants: list[Mutant]) -> tuple[int, int, float | None]:
    """(killed, survived non-equivalent, killed / (killed + survived non-equivalent)); the
    score with only formally shown equivalents left out: mscore.of (regress/mutate/score.py)."""
    sc = mscore.of((m.status, m.proof) for m in mutants)
    return sc.killed, sc.survived, sc.value
