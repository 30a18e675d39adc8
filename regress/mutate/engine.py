"""Mutants of one design: choose, write, build, run, classify, check survivors for equivalence.

Every mutant is an overlay folder holding the one changed source file (BuildSpec.overlay).
Build-once-run-many (Options.share, the default): the mutants whose sites can be selected at
run time (regress/mutate/meta.py) and that elaborate on their own go into one meta-mutant
build per parameter point, each run selecting its own (RunSpec.mutant); the others
(elaboration-time constants) get their own build as before (share=False: every mutant does).
The survivors' runs at the lists' other points, and their equivalence runs, in shared models
run several to a simulator process (batched.py).

    killed      a test failed (reason: the first error; a hang is ended by the watchdog), at
                the campaign's point or at another parameter point of the design's lists
    survived    every test passed, and the survivor is not shown equivalent: a testbench hole
    equivalent  survived at every point, and simulation at each (exhaustive over small
                operands at the campaign's point) found no difference (points.py)
    stillborn   does not compile or elaborate (never counted as killed)
    error       the flow itself failed (not counted either way)
"""

from __future__ import annotations

import difflib
import json
import random
import re
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path

from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import check, simulate, tools
from montverif.regress.flow.paths import ROOT, sim_builds
from montverif.regress.flow.spec import (
    ALL_TESTS,
    VECTOR_TESTS,
    BuildSpec,
    Outcome,
    RunSpec,
    design_tb,
    has_engine,
    with_design_tests,
)
from montverif.regress.flow.vectors import vector_file, vector_keys
from montverif.regress.mutate import directed, gencond, meta, proofs, prove
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate.batched import FAILED_IN_BATCH, FLOW_ERROR, run_batched
from montverif.regress.mutate.points import Point, campaign_points
from montverif.regress.mutate.score import SIMULATED
from montverif.regress.mutate.sites import Mutant, block_selector, mutant_params
from montverif.regress.mutate.svmut import Site
from montverif.regress.regression.diffsim import transactions
from montverif.regress.regression.shards import run_cost
from montverif.spec import top as spec_top
from montverif.spec.design import Design
from montverif.spec.errors import ConfigError
from montverif.verif.steer import boundary_operands

STATUSES = ("killed", "survived", "equivalent", "stillborn", "error")
EQ_MIN_VECTORS = 100  # vectors at a point beyond the campaign's own, whatever the budget


@dataclass
class Options:
    n: int
    bus_w: int = 32
    seed: int = 1
    txns: int = 20
    timeout_s: int = 120
    eq_bits: int = 5
    eq_max: int = 20000  # most exhaustive vectors one equivalence run may drive
    eq_wide: int = 2000  # full-width vectors added when the exhaustive set is narrower than N
    eq_timeout_s: int = 900
    jobs: int = 1
    keep_builds: bool = False
    tests: tuple[str, ...] = ()  # the tests every mutant must survive; () = the design's own
    sim: str = "verilator"  # the simulator every mutant is built for and run on
    # the simulator of the survivors' equivalence runs (vectors against the original's log,
    # which comes from `sim`), shared models and own builds alike, in the fast bus mode where
    # the design has it: Verilator simulates the exhaustive vectors about 7x faster than
    # Icarus (mwrkmm, N=8: 1.4 s against 10.6 s for 10,208; mont_dual, N=80: 80x)
    eq_sim: str = "verilator"
    use_proofs: bool = True  # survivors with a recorded proof (regress/mutate/proofs.py)
    share: bool = True  # build-once-run-many: run-time-selectable mutants share one build
    points: bool = True  # judge survivors at every parameter point of the lists (points.py)
    # estimated seconds (shards.run_cost) one run at a point may take: a point whose smoke
    # run costs more is not simulated (said in the mutant's reason)
    point_budget_s: float = 60.0
    # the equivalence vectors at a point beyond the campaign's own are cut to fit this
    # (estimated seconds a run; the campaign's own point gets every vector)
    point_vectors_s: float = 30.0
    # the original's reference log where the equivalence simulator differs from `sim`: its
    # first `ref_share` vectors run on `sim` first; when they promise the whole file there
    # within `ref_full_s` seconds, `sim` runs it all (the reference), else the equivalence
    # simulator does and the share's log must equal its first operations (0: `sim` runs all)
    ref_share: int = 1000
    ref_full_s: float = 30.0
    # check every mutant simulation calls equivalent with SBY at the design's formal points
    # (regress/mutate/prove.py): proved, or a testbench hole with a distinguishing input
    prove: bool = False


@dataclass
class Campaign:
    dut: str
    design: Design
    options: Options
    out: Path
    total_sites: int
    mutants: list[Mutant]
    eq_note: str = ""
    wall_s: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)
    # the points (beyond the campaign's own) each survivor passed its smoke tests at
    passed_at: dict[int, list[Point]] = field(default_factory=dict)
    # the survivors' shared models built so far: point -> (overlay folder, the ids it holds)
    models: dict[Point, tuple[str, frozenset[int]]] = field(default_factory=dict)
    # generate-condition mutants (gencond.py): what the probe found at each point it ran at
    probes: dict[tuple[int, Point], gencond.Probe] = field(default_factory=dict)
    # the points whose reference log came from the equivalence simulator (_reference)
    ref_on_eq_sim: list[str] = field(default_factory=list)


def write_overlay(m: Mutant, out: Path) -> Path:
    """out/mutants/mutNNNN/<file> with the one change, and the change as a unified diff."""
    src = ROOT / m.site.file
    text = src.read_text()
    new = m.site.apply(text)
    folder = out / "mutants" / f"mut{m.id:04d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / src.name).write_text(new)
    diff = difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                f"a/{m.site.file}", f"b/{m.site.file}", n=2)
    (folder / "change.diff").write_text("".join(diff))
    return folder


# --- one mutant -----------------------------------------------------------------------------
def _first_build_error(exc: Exception) -> str:
    text = str(exc)
    log = text.rsplit("(log: ", 1)[-1].rstrip(")") if "(log: " in text else ""
    if log and Path(log).is_file():
        for line in Path(log).read_text(errors="replace").splitlines():
            if "%Error" in line or "error:" in line.lower():
                return line.strip()[:200]
    return text[:200]


def build_mutant(c: Campaign, build: BuildSpec, log: Path) -> None:
    """Build a mutant's model, its elaboration first under a time limit: a mutant can make a
    constant function loop for ever, and the simulator's own build has no limit (Icarus
    elaborated mont_dual's `while (r > 1)` for 71 minutes of a nightly). Raises ToolError
    when it does not elaborate in time or does not build; an ordinary elaboration error is
    left to the build, which reports it."""
    if not flow_build.up_to_date(build, c.design):
        err = meta.elaboration_error(build.sim, build.sources(c.design),
                                     build.toplevel(c.design), build.parameters(c.design),
                                     meta.ELABORATION_LIMIT_S)
        if err is not None and err.startswith(meta.ELABORATION_TIMEOUT):
            raise tools.ToolError(f"build of {build.key}: {err}")
    flow_build.build(build, c.design, log=log)


def elaboration_fatal(log: Path) -> str | None:
    """The message of a `$fatal` that fired at time 0 (an elaboration-time parameter check,
    `initial $fatal` in a generate branch: the design does not elaborate), or None."""
    if not log.is_file():
        return None
    lines = log.read_text(errors="replace").splitlines()
    for i, line in enumerate(lines):
        text = line.strip()
        if text.startswith("FATAL: ") and i + 1 < len(lines) \
                and lines[i + 1].strip().startswith("Time: 0 "):  # Icarus
            return text[:200]
        if text.startswith("[0] %Fatal: "):  # Verilator
            return text[4:204]
    return None


def smoke_run(dut: str, opts: Options, overlay: str = "",
              params: tuple[tuple[str, int], ...] = ()) -> RunSpec:
    """The design's default tests at a small width: the run every mutant must survive. In a
    process of its own it ends at its first failing test (a kill needs nothing more; the
    first error, the reason, is the same)."""
    build = BuildSpec(dut, opts.n, opts.bus_w, opts.sim, overlay=overlay, params=params)
    run = RunSpec(build, seed=opts.seed, txns=opts.txns, timeout_s=opts.timeout_s,
                  tests=opts.tests or ALL_TESTS, stop_at_failure=True)
    return run if opts.tests else with_design_tests(run)


def run_mutant(m: Mutant, c: Campaign) -> Mutant:
    """Build the mutant on its own (stillborn if that fails) and run it."""
    t0 = time.monotonic()
    m.build = "own"
    overlay = write_overlay(m, c.out)
    run = smoke_run(c.dut, c.options, str(overlay), mutant_params(c.design, m.site))
    try:
        build_mutant(c, run.build, c.out / "runs" / f"mut{m.id:04d}-build.log")
    except tools.ToolError as exc:
        m.status, m.reason = "stillborn", _first_build_error(exc)
        m.wall_s = time.monotonic() - t0
        return m
    _execute(m, run, c.out)
    m.wall_s = time.monotonic() - t0
    return m


def _execute(m: Mutant, run: RunSpec, out: Path, name: str = "") -> None:
    """Run the mutant's smoke tests and classify it: killed or survived, stillborn if an
    elaboration-time check fired ($fatal at time 0), error if the flow broke. The run's
    folder is runs/<name> (its own point's: mut<id>)."""
    try:
        outcome = simulate.execute(run, out / "runs" / (name or f"mut{m.id:04d}"), quiet=True)
    except Exception as exc:
        m.status, m.reason = "error", f"{type(exc).__name__}: {exc}"[:200]
        return
    _classify(m, outcome)


def _classify(m: Mutant, outcome: Outcome) -> None:
    """The mutant's status from its smoke run (see _execute)."""
    if FLOW_ERROR in outcome.extra:
        m.status, m.reason = "error", str(outcome.extra[FLOW_ERROR])
        return
    m.log_dir = str(outcome.log_dir)
    if outcome.interrupted:  # an interrupt ended it: no verdict (never counted as killed)
        m.status, m.reason = "error", outcome.first_error
    elif outcome.passed:
        m.status, m.reason = "survived", f"{outcome.tests} tests passed"
    elif fatal := elaboration_fatal(outcome.log_dir / "sim.log"):
        m.status, m.reason = "stillborn", f"does not elaborate: {fatal}"
    else:
        m.status = "killed"
        m.reason = ("killed by watchdog: " if outcome.first_error.startswith("watchdog")
                    else "") + outcome.first_error


def run_shared(m: Mutant, run: RunSpec, c: Campaign) -> Mutant:
    """Run one mutant of a meta-mutant build (run.mutant selects it)."""
    t0 = time.monotonic()
    _execute(m, run, c.out)
    m.wall_s += time.monotonic() - t0
    return m


# --- build-once-run-many --------------------------------------------------------------------
def _params_name(params: tuple[tuple[str, int], ...]) -> str:
    return "".join(f"-{k}{v}" for k, v in params)


def write_model(c: Campaign, folder: Path, members: list[tuple[Mutant, meta.Guard]]) -> None:
    """A meta-mutant model's overlay in `folder`: each mutated file with its members' guards,
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
        folder = c.out / "mutants" / ("meta" + _params_name(params))
        write_model(c, folder, live)
        run = smoke_run(c.dut, c.options, str(folder), params)
        progress(f"shared build: {len(live)} mutants in one model ({run.build.key}{at})")
        try:
            flow_build.build(run.build, c.design, log=c.out / "runs" / f"{folder.name}-build.log")
            original = simulate.execute(run, c.out / "runs" / f"{folder.name}-original", quiet=True)
        except tools.ToolError as exc:
            reason = f"failed: {_first_build_error(exc)}"
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


# --- equivalence by exhaustive simulation ---------------------------------------------------
def exhaustive_vectors(design: Design, bits: int) -> list[dict[str, str]]:
    """Every odd modulus M < 2^bits and every operand combination of the design's domain
    (operands below M range over 0..M-1, a carry-save group below 2M over 0..2M-1 with its
    second half 0, others over 0..2^bits-1)."""
    d = design
    halves = {h for g in d.carry_save_operands for h in g[1:]}
    bases = {g[0] for g in d.range_groups}  # the group's sum must stay below 2M
    out = []
    for m in range(1, 1 << bits, 2):
        ranges = [range(m) if r in d.below_modulus else range(1) if r in halves
                  else range(2 * m) if r in bases else range(1 << bits)
                  for r in d.operands[:-1]]
        for values in product(*ranges):
            vec = {r.lower(): str(v) for r, v in zip(d.operands[:-1], values, strict=True)}
            vec[d.modulus.lower()] = str(m)
            out.append(vec)
    return out


def wide_vectors(design: Design, n: int, count: int, seed: int) -> list[dict[str, str]]:
    """`count` full-width vectors (the exhaustive set only reaches small values): moduli in
    the top half of N bits (2^(N-1)+1 and 2^N-1 among them), operands from 0, 1, M-2, M-1 and
    random values. Deterministic in seed."""
    d = design
    halves = {h for g in d.carry_save_operands for h in g[1:]}
    bases = {g[0] for g in d.range_groups}
    rng = random.Random(seed)
    top = (1 << n) - 1
    out = []
    for i in range(count):
        m = (top, (1 << (n - 1)) + 1)[i % 2] if i < 8 else rng.randrange(1 << (n - 1), 1 << n) | 1

        def pick(reg: str, m: int = m) -> int:
            if reg in halves:
                return 0
            limit = (m if reg in d.below_modulus else min(2 * m, 1 << n) if reg in bases
                     else 1 << n)
            return rng.choice((0, 1, max(limit - 2, 0), limit - 1, rng.randrange(limit)))

        vec = {r.lower(): str(pick(r)) for r in d.operands[:-1]}
        vec[d.modulus.lower()] = str(m)
        out.append(vec)
    return out


def spread(groups: list[list[dict[str, str]]]) -> list[dict[str, str]]:
    """The groups' vectors in one list, interleaved in proportion to the groups' sizes (each
    in its own order): any first part of it holds about its share of every group."""
    keyed = [((i + 0.5) / len(g), k, i) for k, g in enumerate(groups) for i in range(len(g))]
    return [groups[k][i] for _, k, i in sorted(keyed)]


def boundary_vectors(design: Design, n: int, seed: int, tries: int = 20000,
                     per_event: int = 8, params: tuple[tuple[str, int], ...] = ()
                     ) -> list[dict[str, str]]:
    """Full-width vectors at the final reductions' bounds (Result.boundary_events: a compare
    met at its bound or one below it), found with the bit-accurate model: a mutant that only
    differs there (an off-by-one of a FIN compare) is rare among random vectors."""
    d = design
    if d.carry_save_operands or len(d.operands) != 3:
        return []
    algo = get_algo(design.model)
    try:
        func = algo.model(algo.resolve(n, dict(params)))
    except ModelInputError:  # a design the model cannot run at n: no extra vectors
        return []
    rng = random.Random(seed)
    ops = boundary_operands(lambda x, y, m: func(x, y, m, n), rng,
                            lambda: rng.randrange(3, 1 << n, 2), tries, per_event)
    a, b, mod = (r.lower() for r in d.operands)
    return [{a: str(x), b: str(y), mod: str(m)} for x, y, m in ops]


def eq_plan(c: Campaign) -> tuple[int, int] | str:
    """(width N the equivalence runs are built at, operand bits) or why there is none."""
    d = c.design
    loader = design_tb(c.dut)[2]
    if loader is not None and vector_keys(c.dut) is None:
        return f"not checked: {c.dut} has its own vector format"
    n = max(d.min_n, 1)
    bits = min(c.options.eq_bits, n)
    while bits > 1 and len(exhaustive_vectors(d, bits)) > c.options.eq_max:
        bits -= 1
    return n, bits


def eq_label(n: int, bits: int, wide: int) -> str:
    if bits >= n:
        return f"exhaustive at N={n}, results read after reset and CLEAR"
    return (f"at N={n}: exhaustive over every odd M < 2^{bits} and the operands of the "
            "design's domain, "
            f"plus {wide} full-width vectors and the model's boundary vectors, results "
            "read after reset and CLEAR")


def _point_name(p: Point) -> str:
    return f"n{p.n}" + _params_name(p.params)


def _point_vectors(c: Campaign, p: Point, bits: int) -> list[dict[str, str]]:
    """The equivalence vectors at a point beyond the campaign's own: the exhaustive set over
    `bits`-bit operands, full-width and boundary vectors at its N, cut (special moduli and
    boundary vectors first, then a deterministic sample) to what the budget allows."""
    special = wide_vectors(c.design, p.n, c.options.eq_wide, c.options.seed)
    first = special[:8] + boundary_vectors(c.design, p.n, c.options.seed, params=p.params)
    rest = special[8:] + exhaustive_vectors(c.design, bits)
    run = _vector_run(c, "", p, Path("-"))
    per_op = (run_cost(replace(run, txns=1000)) - run_cost(replace(run, txns=0))) / 1000
    keep = max(EQ_MIN_VECTORS, int(c.options.point_vectors_s / per_op)) if per_op > 0 \
        else len(first) + len(rest)
    if len(first) + len(rest) <= keep:
        return first + rest
    return (first + random.Random(c.options.seed).sample(rest, max(keep - len(first), 0)))[:keep]


def _vector_run(c: Campaign, overlay: str, p: Point, vectors: Path, sim: str = "") -> RunSpec:
    """An equivalence run at p on `sim` (default: the campaign's simulator), in the fast bus
    mode where the design has it (the same checks of every word, the pins' transaction log)."""
    fast = has_engine(c.dut)
    build = BuildSpec(c.dut, p.n, c.options.bus_w, sim or c.options.sim, overlay=overlay,
                      params=p.params, bus="engine" if fast else "pins")
    return RunSpec(build, seed=c.options.seed, vectors=str(vectors), tests=VECTOR_TESTS,
                   timeout_s=c.options.eq_timeout_s)


def _eq_run(c: Campaign, run: RunSpec, name: str) -> Outcome:
    """One equivalence run (the original's, a shared model's or a mutant's) into runs/name."""
    return simulate.execute(run, c.out / "runs" / name, quiet=True)


def _ref_log(c: Campaign, p: Point, out: Outcome) -> list[dict] | str:
    """An original's equivalence run's transaction log, or why it is no reference."""
    log = transactions(out.log_dir)
    if out.passed and log is not None:
        return log
    return (f"not checked: the original failed its equivalence run at {p.text(c.design)} on "
            f"{out.run.build.sim} ({out.first_error or 'no transaction log'})")


def _reference(c: Campaign, p: Point, path: Path, count: int,
               progress: Callable[[str], None]) -> list[dict] | str:
    """The original's transaction log on the `count` vectors of `path` at p (the reference
    the survivors' logs must equal), or why there is none. The campaign's simulator runs
    them all when the equivalence simulator is the same one, when the file holds at most
    Options.ref_share vectors, or when its first ref_share (run first, on their own) promise
    the rest within ref_full_s. Else the equivalence simulator runs them all (Icarus at N = 80
    would take minutes, Verilator seconds) and the first ref_share operations must give the
    same log on both simulators: a fault of the original on one of them (as Icarus 11's lost
    array writes in 3d86eb3) leaves the survivors unjudged."""
    sim, eq, share = c.options.sim, c.options.eq_sim, c.options.ref_share
    name = "original-exhaustive-" + _point_name(p)
    whole = _vector_run(c, "", p, path)
    if sim == eq or not 0 < share < count:
        return _ref_log(c, p, _eq_run(c, whole, name))
    first = c.out / f"{path.stem}-first{share}.json"
    data = json.loads(path.read_text())
    first.write_text(json.dumps(data | {"vectors": data["vectors"][:share]}) + "\n")
    part = _eq_run(c, _vector_run(c, "", p, first), f"{name}-first{share}")
    part_log = _ref_log(c, p, part)
    if isinstance(part_log, str):
        return part_log
    if part.wall_s * count / share <= c.options.ref_full_s:
        return _ref_log(c, p, _eq_run(c, whole, name))
    at = p.text(c.design)
    progress(f"equivalence: original on {count} vectors at {at} on {eq} (its first {share} on "
             f"{sim} took {part.wall_s:.1f} s)")
    log = _ref_log(c, p, _eq_run(c, _vector_run(c, "", p, path, eq), f"{name}-{eq}"))
    if isinstance(log, str):
        return log
    if (diff := first_difference(log[:share], part_log)) is not None:
        return (f"not checked: the original's first {share} operations at {at} differ "
                f"between {eq} and {sim}: {diff}")
    c.ref_on_eq_sim.append(at)
    return log


def _guards(survivors: list[Mutant]) -> dict[int, meta.Guard]:
    """The survivors whose site can be selected at run time (meta.guard), with their guard."""
    guards: dict[int, meta.Guard] = {}
    for m in survivors:
        g = meta.guard((ROOT / m.site.file).read_text(), m.site)
        if not isinstance(g, str):
            guards[m.id] = g
    return guards


def _model_build(c: Campaign, folder: str, p: Point) -> BuildSpec:
    """The build of a shared survivors' model at p: the equivalence simulator, fast bus."""
    return _vector_run(c, folder, p, Path("-"), c.options.eq_sim).build


def _shared_model(c: Campaign, p: Point, members: list[Mutant], check: RunSpec,
                  ref: list[dict] | None, phase: str, progress: Callable[[str], None]
                  ) -> str | None:
    """One meta-mutant model at p on the equivalence simulator holding `members` (two or
    more survivors that can be selected at run time), each of their runs there then selecting
    one (+MV_MUTANT): the model's folder, or None if it fails to build, or if `check` (a run
    whose build is replaced by the model's) without a mutant does not pass or, given `ref`,
    gives another transaction log than the original's. Built once per point and kept in
    c.models with the ids it holds: the equivalence phase reuses the points phase's model
    (its survivors are those that passed there). A build whose error names a line of the
    model's files is built again without the members whose sites are on that line (they are
    built on their own), while two or more remain."""
    keep = list(members)
    have = c.models.get(p)
    folder = c.out / "mutants" / f"meta-eq-{_point_name(p)}"
    where = f"{p.text(c.design)} on {c.options.eq_sim}"
    run = replace(check, build=_model_build(c, str(folder), p))
    while True:
        ids = frozenset(m.id for m in keep)
        try:
            if have is None or not ids <= have[1]:
                guards = _guards(keep)
                write_model(c, folder, [(m, guards[m.id]) for m in keep])
                build_mutant(c, run.build, c.out / "runs" / f"{folder.name}-build.log")
                c.models[p] = (str(folder), ids)
            original = _eq_run(c, run, f"{folder.name}-" + (
                "original" if phase == "equivalence" else f"{phase}-original"))
        except (tools.ToolError, ValueError) as exc:
            bad = _named_members(str(exc), folder, keep)
            if bad and len(keep) - len(bad) >= 2:
                progress(f"{phase}: the shared model at {where} failed on the line of "
                         + ", ".join(f"mut{m.id:04d}" for m in bad)
                         + f" ({_first_build_error(exc)}); built again without them")
                keep = [m for m in keep if m not in bad]
                continue
            progress(f"{phase}: the shared model at {where} failed "
                     f"({_first_build_error(exc)}); its survivors are built on their own")
            return None
        break
    if not original.passed or (ref is not None and transactions(original.log_dir) != ref):
        progress(f"{phase}: the shared model at {where} without a mutant "
                 f"{'fails' if not original.passed else 'differs from the original'}; its "
                 "survivors are built on their own")
        return None
    progress(f"{phase}: {len(keep)} survivors share one model at {where}")
    return str(folder)


def _named_members(error: str, folder: Path, members: list[Mutant]) -> list[Mutant]:
    """The members whose sites are on a line of the model's files that `error` names
    (`<folder>/<file>.sv:<line>`: the meta sources keep the original's line numbers)."""
    named = {(Path(f).name, int(line)) for f, line in re.findall(r"([^\s:'\"]+\.sv):(\d+)", error)
             if Path(f).parent.resolve() == folder.resolve()}
    return [m for m in members if (Path(m.site.file).name, m.site.line) in named]


def _meta_models(c: Campaign, survivors: list[Mutant], at: dict[int, list[Point]],
                 files: dict[Point, tuple[Path, int]], refs: dict[Point, list[dict] | str],
                 progress: Callable[[str], None]) -> dict[Point, tuple[str, frozenset[int]]]:
    """The equivalence phase's shared models (_shared_model): at each point where two or
    more survivors can be selected at run time (or one, in the model the points phase built
    there), whose run without a mutant must give the original's transaction log there.
    Returns {point: (the model's folder, the ids it holds)}."""
    guards = _guards(survivors)
    models: dict[Point, tuple[str, frozenset[int]]] = {}
    for p, (path, _) in sorted(files.items(), key=lambda kv: (kv[0].n, kv[0].params)):
        members = [m for m in survivors if m.id in guards and p in at[m.id]]
        ref = refs[p]
        built = p in c.models and {m.id for m in members} <= c.models[p][1]
        if not members or (len(members) < 2 and not built) or isinstance(ref, str):
            continue  # a lone survivor is built on its own, unless the point has its model
        folder = _shared_model(c, p, members, _vector_run(c, "", p, path), ref, "equivalence",
                               progress)
        if folder is not None:
            models[p] = (folder, c.models[p][1] & frozenset(m.id for m in members))
    return models


def _own_point(c: Campaign, m: Mutant) -> Point:
    """The point the campaign's exhaustive equivalence run is at (eq_plan's width)."""
    plan = eq_plan(c)
    return Point(plan[0] if not isinstance(plan, str) else c.options.n,
                 mutant_params(c.design, m.site))


_PROBE_FILES = threading.Lock()


def same_design(c: Campaign, m: Mutant, p: Point) -> bool:
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
        own = _own_point(c, m)
        need = [own.label, *(p.label for p in mutant_points(c, m)[1:] if simulable(c, p))]
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


def simulable(c: Campaign, p: Point) -> bool:
    """Whether a run at point p is within the campaign's budget (estimated seconds)."""
    return _point_cost(c, p) <= _point_budget(c)


def _point_budget(c: Campaign) -> float:
    return min(c.options.point_budget_s, c.options.timeout_s / 2)


def _point_cost(c: Campaign, p: Point) -> float:
    return run_cost(smoke_run(c.dut, replace(c.options, n=p.n), params=p.params))


def check_equivalence(c: Campaign, survivors: list[Mutant],
                      progress: Callable[[str], None]) -> None:
    """Survivors against the original on exhaustive vectors at the campaign's own point and
    on the budget's share of them at each other point they survived: identical transaction
    logs (results and cycle counts) at every point make a mutant equivalent, any difference
    is a hole."""
    plan = eq_plan(c)
    own = {m.id: _own_point(c, m) for m in survivors}
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
    files: dict[Point, tuple[Path, int]] = {}
    for m in survivors:
        files[own[m.id]] = (vectors, len(vecs))
        for p in c.passed_at.get(m.id, []):
            if p not in files:
                at = c.out / f"vectors-{_point_name(p)}.json"
                pv = _point_vectors(c, p, min(bits, p.n))
                at.write_text(json.dumps(vector_file(c.dut, pv)) + "\n")
                files[p] = (at, len(pv))
    if len(files) > len({own[m.id] for m in survivors}):
        c.eq_note += ("; then at each other parameter point of the lists a survivor passed, "
                      f"on as many of them as about {c.options.point_vectors_s:.0f} s allow")
    refs: dict[Point, list[dict] | str] = {}
    for p, (path, count) in sorted(files.items(), key=lambda kv: (kv[0].n, kv[0].params)):
        progress(f"equivalence: original on {count} vectors at {p.text(c.design)}")
        refs[p] = _reference(c, p, path, count, progress)
    if c.ref_on_eq_sim:
        c.eq_note += (f"; the original's log on {c.options.eq_sim} at {', '.join(c.ref_on_eq_sim)}"
                      f", its first {c.options.ref_share} operations the same on {c.options.sim}")

    points_at = {m.id: [own[m.id], *c.passed_at.get(m.id, [])] for m in survivors}
    models = _meta_models(c, survivors, points_at, files, refs, progress)
    c.extra["eq_shared_runs"] = sum(m.id in models[p][1] for m in survivors for p in points_at[m.id]
                                    if p in models)
    if c.extra["eq_shared_runs"]:
        c.eq_note += (f"; {c.extra['eq_shared_runs']} of the survivors' runs on one "
                      f"{c.options.eq_sim} model per point holding them all (+MV_MUTANT)")

    # the runs in the shared models first, several to a process (batched.py)
    selected = [(m, p) for m in survivors for p in points_at[m.id]
                if p in models and m.id in models[p][1]]
    runs = [(replace(_vector_run(c, models[p][0], p, files[p][0], c.options.eq_sim),
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
                    run = _vector_run(c, overlay, p, files[p][0], c.options.eq_sim)
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


def _eq_dir(c: Campaign, m: Mutant, p: Point) -> Path:
    """The folder of the mutant's equivalence run at p."""
    return c.out / "runs" / f"mut{m.id:04d}-eq-{_point_name(p)}"


def _equal_at(c: Campaign, m: Mutant, p: Point, ref_log: list[dict] | str, run: RunSpec,
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
            build_mutant(c, run.build, c.out / "runs" / f"{name}-build.log")
        out = ran or _eq_run(c, run, name)
    except tools.ToolError as exc:
        m.reason = f"not checked: the build at {at} failed: {_first_build_error(exc)}"
        return False
    if FLOW_ERROR in out.extra:
        m.reason = f"not checked: the equivalence run at {at}: {out.extra[FLOW_ERROR]}"
        return False
    if ran is not None and out.passed and (log := transactions(out.log_dir)) is not None \
            and first_difference(ref_log, log) is not None:
        out = _eq_run(c, run, name)  # a difference found in a shared process: alone it stands
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


def _smoke_on(c: Campaign, m: Mutant, p: Point, run: RunSpec, failed: Outcome) -> None:
    """The mutant's vector run failed on the equivalence simulator, not the campaign's (on
    Verilator, say, an RTL assertion the Icarus runs cannot evaluate): its smoke tests on that
    same model decide. Failing, it is killed (the lists run that simulator there too);
    passing, the vectors found a testbench hole."""
    at, sim = p.text(c.design), run.build.sim
    smoke = replace(smoke_run(c.dut, replace(c.options, n=p.n, sim=sim), params=p.params),
                    build=run.build, mutant=run.mutant)
    out = _eq_run(c, smoke, f"mut{m.id:04d}-smoke-{sim}-{_point_name(p)}")
    if out.passed or out.interrupted:
        m.reason = (f"testbench hole: the equivalence run at {at} on {sim} fails: "
                    f"{failed.first_error}")
    else:
        m.status, m.reason, m.log_dir = "killed", f"on {sim} at {at}: {out.first_error}", \
            str(out.log_dir)


# --- the design's other parameter points ----------------------------------------------------
def mutant_points(c: Campaign, m: Mutant) -> list[Point]:
    """The points the mutant is judged at, the campaign's own first (points.py)."""
    params = mutant_params(c.design, m.site)
    if not c.options.points:
        return [Point(c.options.n, params)]
    return campaign_points(c.dut, c.design, c.options.n, params,
                           block_selector(c.design, m.site))


def _originals_at(c: Campaign, todo: dict[Point, list[Mutant]],
                  progress: Callable[[str], None]) -> dict[Point, str]:
    """The original's smoke run at each point: "" where it passes, else why the point is
    not simulated (beyond the budget, or the original fails there)."""
    why_not: dict[Point, str] = {}
    for p in sorted(todo, key=lambda p: (p.n, p.params)):
        run = smoke_run(c.dut, replace(c.options, n=p.n), params=p.params)
        if not simulable(c, p):
            why_not[p] = (f"{p.text(c.design)}: a run there is estimated at "
                          f"{_point_cost(c, p):.0f} s, beyond the budget of "
                          f"{_point_budget(c):.0f} s")
            progress(f"points: not simulated at {why_not[p]}")
            continue
        progress(f"points: the original at {p.text(c.design)} "
                 f"({len(todo[p])} survivor(s) to run there)")
        out = simulate.execute(run, c.out / "runs" / f"original-{_point_name(p)}", quiet=True)
        why_not[p] = "" if out.passed else \
            f"{p.text(c.design)}: the original fails there ({out.first_error})"
    return why_not


def _points_shared(c: Campaign, todo: dict[Point, list[Mutant]], why_not: dict[Point, str],
                   guards: dict[int, meta.Guard], progress: Callable[[str], None]
                   ) -> dict[Point, str]:
    """The survivors' shared model at each simulated point that has two of them or more."""
    shared: dict[Point, str] = {}
    for p in sorted(todo, key=lambda p: (p.n, p.params)):
        members = [m for m in todo[p] if m.id in guards]
        if not why_not[p] and len(members) >= 2:
            check = smoke_run(c.dut, replace(c.options, n=p.n, sim=c.options.eq_sim),
                              params=p.params)
            if (folder := _shared_model(c, p, members, check, None, "points", progress)):
                shared[p] = folder
    return shared


def _settle(c: Campaign, every: list[tuple[Mutant, Point]], why_not: dict[Point, str],
            probes: dict[tuple[int, Point], Mutant]) -> None:
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
    todo: dict[Point, list[Mutant]] = {}
    for m in survivors:
        for p in mutant_points(c, m)[1:]:
            todo.setdefault(p, []).append(m)
    c.extra["points"] = sorted(p.label for p in todo)
    why_not = _originals_at(c, todo, progress)
    shared = _points_shared(c, todo, why_not, _guards(survivors), progress)
    order = sorted(todo, key=lambda p: (p.n, p.params))
    every = [(m, p) for p in order for m in todo[p]]
    jobs = [(m, p) for m, p in every if not why_not[p]]
    # the runs in the points' shared models first, several to a process (batched.py)
    selected = [(m, p) for m, p in jobs if p in shared and m.id in c.models[p][1]]
    runs = [(replace(smoke_run(c.dut, replace(c.options, n=p.n, sim=c.options.eq_sim),
                               params=p.params),
                     build=_model_build(c, shared[p], p), mutant=m.id),
             c.out / "runs" / f"mut{m.id:04d}-{_point_name(p)}") for m, p in selected]
    rank = {p: i for i, p in enumerate(order)}
    probes: dict[tuple[int, Point], Mutant] = {}
    first_kill: dict[int, int] = {}  # mutant id -> rank of the first point that killed it
    lock = threading.Lock()

    def judged(m: Mutant, p: Point, probe: Mutant) -> None:
        with lock:
            probes[(m.id, p)] = probe
            if probe.status not in ("survived", "error"):
                first_kill[m.id] = min(first_kill.get(m.id, rank[p]), rank[p])
        progress(f"  mut{m.id:04d} at {p.text(c.design)}: "
                 f"{probe.status if probe.status != 'survived' else 'passed'}"
                 + (f" ({SAME_DESIGN})" if probe.reason == SAME_DESIGN else ""))

    for (m, p), out in zip(selected, run_batched(runs, c.options.jobs), strict=True):
        probe = Mutant(m.id, m.site)
        _classify(probe, out)
        if FAILED_IN_BATCH in out.extra:
            progress(f"  mut{m.id:04d} at {p.text(c.design)}: failed after another run in its "
                     f"process ({out.extra[FAILED_IN_BATCH]}), passed in a process of its own")
        m.wall_s += out.wall_s
        judged(m, p, probe)

    def one(job: tuple[Mutant, Point]) -> None:
        """A survivor's smoke run at a point on its own build (the point's guard is fixed at
        elaboration, or the point has no shared model)."""
        m, p = job
        with lock:
            if first_kill.get(m.id, len(order)) < rank[p]:
                return  # killed at an earlier point (the lists' order)
        t0 = time.monotonic()
        run = smoke_run(c.dut, replace(c.options, n=p.n),
                        str(c.out / "mutants" / f"mut{m.id:04d}"), p.params)
        name = f"mut{m.id:04d}-{_point_name(p)}"
        probe = Mutant(m.id, m.site)
        if same_design(c, m, p):  # no build, no run: the original passed there
            probe.status, probe.reason = "survived", SAME_DESIGN
            m.wall_s += time.monotonic() - t0
            judged(m, p, probe)
            return
        try:
            build_mutant(c, run.build, c.out / "runs" / f"{name}-build.log")
        except tools.ToolError as exc:
            probe.status, probe.reason = "killed", f"does not build: {_first_build_error(exc)}"
        else:
            _execute(probe, run, c.out, name)  # beside its own point's run, never over it
            if probe.status != "survived" and not c.options.keep_builds:
                _remove_build(run.build.key)
        m.wall_s += time.monotonic() - t0
        judged(m, p, probe)

    with ThreadPoolExecutor(max_workers=c.options.jobs) as pool:
        list(pool.map(one, [(m, p) for m, p in jobs if (m.id, p) not in probes]))
    _settle(c, every, why_not, probes)
    for m in survivors:  # the points in the lists' order, whatever order the jobs ended in
        c.passed_at[m.id] = [p for p in mutant_points(c, m)[1:] if p in c.passed_at.get(m.id, [])]


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


# --- the campaign ---------------------------------------------------------------------------
def baseline(dut: str, design: Design, opts: Options, out: Path,
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
                 opts: Options, out: Path, progress: Callable[[str], None]) -> Campaign:
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
        run_mutant(m, c) if run is None else run_shared(m, run, c)
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
        survivors = take_recorded(c, survivors, progress)
    if survivors and opts.points and not simulate.ending():
        check_points(c, survivors, progress)
        survivors = [m for m in survivors if m.status == "survived"]
    if survivors and not simulate.ending():
        check_equivalence(c, survivors, progress)
    if simulate.ending():
        unjudged(c, progress)
    if not opts.keep_builds:
        for m in mutants:
            overlay = str(out / "mutants" / f"mut{m.id:04d}")
            builds = {smoke_run(dut, opts, overlay, mutant_params(design, m.site)).build}
            builds |= {smoke_run(dut, replace(opts, n=p.n), overlay, p.params).build
                       for p in c.passed_at.get(m.id, [])}
            builds |= {_vector_run(c, overlay, p, Path("-"), opts.eq_sim).build  # its vectors'
                       for p in [_own_point(c, m), *c.passed_at.get(m.id, [])]}
            for b in builds:
                _remove_build(b.key)
        for p, (folder, _) in c.models.items():
            _remove_build(_model_build(c, folder, p).key)
        for params in {mutant_params(design, m.site) for m in mutants}:
            _remove_build(smoke_run(dut, opts, str(out / "mutants" / ("meta" + _params_name(
                params))), params).build.key)
    c.wall_s = time.monotonic() - t0
    return c


SURVIVOR_SHARE = 0.3  # about the share of mutants that survive a campaign's own runs


def estimated_cost(dut: str, design: Design, opts: Options, mutants: int) -> float:
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
        judge += run_cost(replace(_vector_run(c, "", Point(n, ()), Path("-"), opts.eq_sim),
                                  txns=count))
    if opts.points:
        judge += sum(_point_cost(c, p) + opts.point_vectors_s
                     for p in campaign_points(dut, design, opts.n)[1:] if simulable(c, p))
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


def _remove_build(key: str) -> None:
    folder = sim_builds() / key
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
    (sim_builds() / f"{key}.lock").unlink(missing_ok=True)


def score(mutants: list[Mutant]) -> tuple[int, int, float | None]:
    """(killed, survived non-equivalent, killed / (killed + survived non-equivalent)); the
    score with only formally shown equivalents left out: mscore.of (regress/mutate/score.py)."""
    sc = mscore.of((m.status, m.proof) for m in mutants)
    return sc.killed, sc.survived, sc.value
