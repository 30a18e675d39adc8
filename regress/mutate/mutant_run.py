"""One mutant's build and run: its smoke run (the design's default tests at a small width),
its classification (killed, survived, stillborn, error), the equivalence runs' specs, and
the names of a parameter point's folders."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import sim_builds
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import simulate
from montverif.regress.flow.spec import (
    ALL_TESTS,
    VECTOR_TESTS,
    BuildSpec,
    Outcome,
    RunSpec,
    has_engine,
    with_design_tests,
)
from montverif.regress.mutate import meta
from montverif.regress.mutate.batched import FLOW_ERROR
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.mutate.sites import Mutant, mutant_params
from montverif.regress.mutate.state import Campaign, CampaignOptions, write_overlay


def first_build_error(exc: Exception) -> str:
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


def smoke_run(dut: str, opts: CampaignOptions, overlay: str = "",
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
        m.status, m.reason = "stillborn", first_build_error(exc)
        m.wall_s = time.monotonic() - t0
        return m
    execute_mutant(m, run, c.out)
    m.wall_s = time.monotonic() - t0
    return m


def execute_mutant(m: Mutant, run: RunSpec, out: Path, name: str = "") -> None:
    """Run the mutant's smoke tests and classify it: killed or survived, stillborn if an
    elaboration-time check fired ($fatal at time 0), error if the flow broke. The run's
    folder is runs/<name> (its own point's: mut<id>)."""
    try:
        outcome = simulate.execute(run, out / "runs" / (name or f"mut{m.id:04d}"), quiet=True)
    except Exception as exc:
        m.status, m.reason = "error", f"{type(exc).__name__}: {exc}"[:200]
        return
    classify(m, outcome)


def classify(m: Mutant, outcome: Outcome) -> None:
    """The mutant's status from its smoke run (see execute_mutant)."""
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
    execute_mutant(m, run, c.out)
    m.wall_s += time.monotonic() - t0
    return m


def params_name(params: tuple[tuple[str, int], ...]) -> str:
    return "".join(f"-{k}{v}" for k, v in params)


def point_name(p: ParamPoint) -> str:
    return f"n{p.n}" + params_name(p.params)


def vector_run(c: Campaign, overlay: str, p: ParamPoint, vectors: Path, sim: str = "") -> RunSpec:
    """An equivalence run at p on `sim` (default: the campaign's simulator), in the fast bus
    mode where the design has it (the same checks of every word, the pins' transaction log)."""
    fast = has_engine(c.dut)
    build = BuildSpec(c.dut, p.n, c.options.bus_w, sim or c.options.sim, overlay=overlay,
                      params=p.params, bus="engine" if fast else "pins")
    return RunSpec(build, seed=c.options.seed, vectors=str(vectors), tests=VECTOR_TESTS,
                   timeout_s=c.options.eq_timeout_s)


def eq_run(c: Campaign, run: RunSpec, name: str) -> Outcome:
    """One equivalence run (the original's, a shared build's or a mutant's) into runs/name."""
    return simulate.execute(run, c.out / "runs" / name, quiet=True)


def remove_build(key: str) -> None:
    folder = sim_builds() / key
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
    (sim_builds() / f"{key}.lock").unlink(missing_ok=True)
