"""Mutants of one design: choose, write, build, run, classify, check survivors for equivalence.

Every mutant is an overlay folder holding the one changed source file (BuildSpec.overlay).
Build-once-run-many (Options.share, the default): the mutants whose sites can be selected at
run time (regress/mutate/meta.py) and that elaborate on their own go into one meta-mutant
build per parameter point, each run with +MV_MUTANT=<id>; the others (elaboration-time
constants) get their own build as before (share=False: every mutant does).

    killed      a test failed (reason: the first error; a hang is ended by the watchdog)
    survived    every test passed, and the survivor is not shown equivalent: a testbench hole
    equivalent  survived, and exhaustive simulation at a small width found no difference
    stillborn   does not compile or elaborate (never counted as killed)
    error       the flow itself failed (not counted either way)
"""

from __future__ import annotations

import difflib
import json
import random
import shutil
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
from montverif.regress.flow.paths import ROOT, SIM_BUILDS
from montverif.regress.flow.spec import (
    ALL_TESTS,
    VECTOR_TESTS,
    BuildSpec,
    Outcome,
    RunSpec,
    design_tb,
    with_design_tests,
)
from montverif.regress.flow.vectors import vector_file, vector_keys
from montverif.regress.mutate import meta, proofs
from montverif.regress.mutate.sites import Mutant, mutant_params
from montverif.regress.mutate.svmut import Site
from montverif.regress.regression.diffsim import transactions
from montverif.spec.design import Design
from montverif.spec.errors import ConfigError
from montverif.verif.steer import boundary_operands

STATUSES = ("killed", "survived", "equivalent", "stillborn", "error")
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
    use_proofs: bool = True  # survivors with a recorded proof (regress/mutate/proofs.py)
    share: bool = True  # build-once-run-many: run-time-selectable mutants share one build


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
    """The design's default tests at a small width: the run every mutant must survive."""
    build = BuildSpec(dut, opts.n, opts.bus_w, opts.sim, overlay=overlay, params=params)
    run = RunSpec(build, seed=opts.seed, txns=opts.txns, timeout_s=opts.timeout_s,
                      tests=opts.tests or ALL_TESTS)
    return run if opts.tests else with_design_tests(run)


def run_mutant(m: Mutant, c: Campaign) -> Mutant:
    """Build the mutant on its own (stillborn if that fails) and run it."""
    t0 = time.monotonic()
    m.build = "own"
    overlay = write_overlay(m, c.out)
    run = smoke_run(c.dut, c.options, str(overlay), mutant_params(c.design, m.site))
    try:
        flow_build.build(run.build, c.design, log=c.out / "runs" / f"mut{m.id:04d}-build.log")
    except tools.ToolError as exc:
        m.status, m.reason = "stillborn", _first_build_error(exc)
        m.wall_s = time.monotonic() - t0
        return m
    _execute(m, run, c.out)
    m.wall_s = time.monotonic() - t0
    return m


def _execute(m: Mutant, run: RunSpec, out: Path) -> None:
    """Run the mutant's smoke tests and classify it: killed or survived, stillborn if an
    elaboration-time check fired ($fatal at time 0), error if the flow broke."""
    try:
        outcome = simulate.execute(run, out / "runs" / f"mut{m.id:04d}", quiet=True)
    except Exception as exc:
        m.status, m.reason = "error", f"{type(exc).__name__}: {exc}"[:200]
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
    """Run one mutant of a meta-mutant build (run.plusargs selects it)."""
    t0 = time.monotonic()
    _execute(m, run, c.out)
    m.wall_s += time.monotonic() - t0
    return m


# --- build-once-run-many --------------------------------------------------------------------
def _params_name(params: tuple[tuple[str, int], ...]) -> str:
    return "".join(f"-{k}{v}" for k, v in params)


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
        folder.mkdir(parents=True, exist_ok=True)
        by_file: dict[str, list[tuple[int, Site, meta.Guard]]] = {}
        for m, g in live:
            by_file.setdefault(m.site.file, []).append((m.id, m.site, g))
        for file, entries in by_file.items():
            (folder / Path(file).name).write_text(
                meta.meta_source((ROOT / file).read_text(), entries))
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
        runs += [(m, replace(run, plusargs=(meta.plusarg(m.id),))) for m, _ in live]
    return runs, own


# --- equivalence by exhaustive simulation ---------------------------------------------------
def exhaustive_vectors(design: Design, bits: int) -> list[dict[str, str]]:
    """Every odd modulus M < 2^bits and every operand combination (operands that must be
    below M range over 0..M-1, second halves of carry-save operands are 0, others range over
    0..2^bits-1)."""
    d = design
    halves = {h for g in d.carry_save_operands for h in g[1:]}
    bases = {g[0] for g in d.carry_save_operands}  # the group's sum must stay below 2M
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
    bases = {g[0] for g in d.carry_save_operands}
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


def boundary_vectors(design: Design, n: int, seed: int, tries: int = 20000,
                     per_event: int = 8) -> list[dict[str, str]]:
    """Full-width vectors at the final reductions' bounds (Result.boundary_events: a compare
    met at its bound or one below it), found with the bit-accurate model: a mutant that only
    differs there (an off-by-one of a FIN compare) is rare among random vectors."""
    d = design
    if d.carry_save_operands or len(d.operands) != 3:
        return []
    algo = get_algo(design.model)
    try:
        func = algo.model(algo.resolve(n, {}))
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
    return (f"at N={n}: exhaustive over every odd M < 2^{bits} and operands < M, "
            f"plus {wide} full-width vectors and the model's boundary vectors, results "
            "read after reset and CLEAR")


def _eq_run(c: Campaign, overlay: str, n: int, vectors: Path, name: str,
            params: tuple[tuple[str, int], ...] = ()) -> Outcome:
    build = BuildSpec(c.dut, n, c.options.bus_w, c.options.sim, overlay=overlay,
                          params=params)
    run = RunSpec(build, seed=c.options.seed, vectors=str(vectors),
                      tests=VECTOR_TESTS, timeout_s=c.options.eq_timeout_s)
    return simulate.execute(run, c.out / "runs" / name, quiet=True)


def check_equivalence(c: Campaign, survivors: list[Mutant],
                      progress: Callable[[str], None]) -> None:
    """Survivors against the original on exhaustive vectors: identical transaction logs
    (results and cycle counts) make a mutant equivalent, any difference is a hole."""
    if c.options.use_proofs:  # proved before, on this very file text: not proved again
        recorded = proofs.load()
        todo = []
        for m in survivors:
            if (proof := proofs.lookup(m.site, recorded)) is None:
                todo.append(m)
                continue
            m.status = "equivalent"
            m.reason = f"{proofs.RECORDED} of {proof['recorded']}: {proof['proof']})"
            progress(f"  mut{m.id:04d} equivalent (recorded proof, file unchanged)")
        c.extra["recorded_proofs"] = len(survivors) - len(todo)
        survivors = todo
        if not survivors:
            c.eq_note = c.eq_note or "every survivor has a recorded proof"
            return
    plan = eq_plan(c)
    if isinstance(plan, str):
        c.eq_note = plan
        for m in survivors:
            m.reason = plan
        return
    n, bits = plan
    vectors = c.out / f"exhaustive-n{n}-b{bits}.json"
    wide = c.options.eq_wide if bits < n else 0
    vecs = exhaustive_vectors(c.design, bits) + wide_vectors(c.design, n, wide, c.options.seed)
    vecs += boundary_vectors(c.design, n, c.options.seed) if wide else []
    vectors.write_text(json.dumps(vector_file(c.dut, vecs)) + "\n")
    label = eq_label(n, bits, wide)
    if design_tb(c.dut)[2] is not None:
        label = label.replace(", results read after reset and CLEAR", "")
    c.eq_note = f"{label}: {len(vecs)} vectors"
    refs: dict[tuple[tuple[str, int], ...], list[dict] | str] = {}
    for params in sorted({mutant_params(c.design, m.site) for m in survivors}):
        at = "".join(f", {k}={v}" for k, v in params)
        progress(f"equivalence: original on {len(vecs)} vectors ({label}{at})")
        name = "original-exhaustive" + "".join(f"-{k}{v}" for k, v in params)
        ref = _eq_run(c, "", n, vectors, name, params)
        log = transactions(ref.log_dir)
        refs[params] = (log if ref.passed and log is not None else
                        f"not checked: the original failed its exhaustive run{at} "
                        f"({ref.first_error})")

    def one(m: Mutant) -> Mutant:
        t0 = time.monotonic()
        overlay = str(c.out / "mutants" / f"mut{m.id:04d}")
        params = mutant_params(c.design, m.site)
        ref_log = refs[params]
        if isinstance(ref_log, str):
            m.reason = ref_log
            return m
        try:
            out = _eq_run(c, overlay, n, vectors, f"mut{m.id:04d}-exhaustive", params)
        except tools.ToolError as exc:
            m.reason = f"not checked: the N={n} build failed: {_first_build_error(exc)}"
            return m
        finally:
            m.wall_s += time.monotonic() - t0
        log = transactions(out.log_dir)
        if not out.passed:
            m.reason = f"testbench hole: the equivalence run ({label}) fails: {out.first_error}"
        elif log is None:
            m.reason = "not checked: the exhaustive run left no transaction log"
        elif (diff := first_difference(ref_log, log)) is not None:
            m.reason = f"testbench hole: differs from the original ({label}): {diff}"
        else:
            m.status, m.reason = "equivalent", f"equivalent ({label}; {len(vecs)} vectors)"
        progress(f"  mut{m.id:04d} {m.status}: {m.reason}")
        return m

    with ThreadPoolExecutor(max_workers=c.options.jobs) as pool:
        list(pool.map(one, survivors))


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
    if survivors:
        check_equivalence(c, survivors, progress)
    if not opts.keep_builds:
        for m in mutants:
            for n in {opts.n, max(design.min_n, 1)}:
                key = replace(smoke_run(dut, opts, str(out / "mutants" / f"mut{m.id:04d}"),
                                        mutant_params(design, m.site)).build, n=n).key
                _remove_build(key)
        for params in {mutant_params(design, m.site) for m in mutants}:
            _remove_build(smoke_run(dut, opts, str(out / "mutants" / ("meta" + _params_name(
                params))), params).build.key)
    c.wall_s = time.monotonic() - t0
    return c


def _remove_build(key: str) -> None:
    folder = SIM_BUILDS / key
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
    (SIM_BUILDS / f"{key}.lock").unlink(missing_ok=True)


def score(mutants: list[Mutant]) -> tuple[int, int, float | None]:
    """(killed, survived non-equivalent, killed / (killed + survived non-equivalent))."""
    killed = sum(m.status == "killed" for m in mutants)
    survived = sum(m.status == "survived" for m in mutants)
    return killed, survived, (killed / (killed + survived) if killed + survived else None)
