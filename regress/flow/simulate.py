"""One simulation run: validate, build (when stale), run the cocotb tests in a child process
(`montverif.regress.flow.child`) under a wall-clock watchdog, and record the Outcome in the
run folder (outcome.json, with the verdict, the first error and the repro command)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict
from pathlib import Path

from montverif.regress.flow import tools
from montverif.regress.flow.build import build
from montverif.regress.flow.check import validate
from montverif.regress.flow.paths import ROOT, RUNS_ROOT, SIM_BUILDS, remove_tree
from montverif.regress.flow.spec import Outcome, RunSpec, engine_hdl_clock, with_design_tests
from montverif.spec import environment
from montverif.spec.errors import ConfigError

# simulations this process runs at once (the scheduler's `parallel` sets it): a run gets the
# scoreboard's checker thread only when every one of them can have a second core
CONCURRENT_JOBS = 1


def _results(xml: Path) -> tuple[int, int, str]:
    """(tests, failed, first failure message) from a cocotb results.xml."""
    root = ET.parse(xml).getroot()
    tests = failed = 0
    first = ""
    for case in root.iter("testcase"):
        tests += 1
        fail = case.find("failure")
        if fail is None:
            fail = case.find("error")
        if fail is not None:
            failed += 1
            if not first:
                msg = fail.get("message") or (fail.text or "").strip().splitlines()[-1:]
                first = f"{case.get('name')}: {msg if isinstance(msg, str) else ''.join(msg)}"
    return tests, failed, first


_FIRST_ERROR = re.compile(r"(MISMATCH .*|watchdog: .*|AssertionError: .*|Error: .*)")


def _first_log_error(log: Path) -> str:
    if not log.exists():
        return ""
    for line in log.read_text(errors="replace").splitlines():
        if m := _FIRST_ERROR.search(line):
            return m.group(1).strip()[:300]
    return ""


def _exit_text(code: int) -> str:
    """Why a simulation left no results: killed by a signal (crash, OOM killer) or exit code."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"simulator killed by signal {name} with no results"
    return f"simulator exited with code {code} and no results"


def check_thread(run: RunSpec) -> bool:
    """Whether the run's scoreboard checks on a worker thread while the engine's main loop runs
    the model without Python's GIL (verif/env/scoreboard.py, verif/bus/engine_main.cpp).

    MV_CHECK_THREAD=1 or 0 decides; unset, a Verilator engine build gets it when this process
    has two cores for each simulation it runs at once (CONCURRENT_JOBS, or pytest-xdist's
    workers). On a single core the thread costs time: the two threads take turns."""
    given = environment.CHECK_THREAD.get()
    if given in ("0", "1"):
        return given == "1"
    if given:
        raise ConfigError(f"MV_CHECK_THREAD={given!r}: use 1 (on) or 0 (off), or leave it "
                          "unset (on when a core is spare)")
    b = run.build
    if b.bus != "engine" or b.sim != "verilator" or engine_hdl_clock():
        return False
    jobs = max(CONCURRENT_JOBS, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))
    return available_cores() >= 2 * jobs


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def execute(run: RunSpec, log_dir: Path | None = None, quiet: bool = False) -> Outcome:
    """Validate, build and run in a child process under the wall-clock watchdog."""
    run = with_design_tests(run)
    design = validate(run)
    log_dir = (log_dir or RUNS_ROOT / run.key).resolve()
    if log_dir.exists():
        remove_tree(log_dir)
    log_dir.mkdir(parents=True)
    _, build_s = build(run.build, design)
    t0 = time.monotonic()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env[environment.CHECK_THREAD.name] = "1" if check_thread(run) else "0"
    if run.bias:  # the run's own steering (a list entry's `bias`) wins over the caller's
        env[environment.BIAS.name] = run.bias
    if environment.PROFILE.is_set():
        env["COCOTB_ENABLE_PROFILING"] = "1"
    cmd = [sys.executable, "-m", "montverif.regress.flow.child", json.dumps(asdict(run)),
           str(log_dir)]
    sim_log = log_dir / "sim.log"
    timed_out = False
    with sim_log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
                                start_new_session=True)
        try:
            proc.wait(timeout=run.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - t0
    outcome = Outcome(run, False, log_dir, wall_s=wall, build_s=build_s)
    xml = log_dir / "results.xml"
    if timed_out:
        outcome.first_error = f"watchdog: simulation killed after {run.timeout_s}s wall time"
    elif not xml.exists():
        outcome.first_error = _first_log_error(sim_log) or _exit_text(proc.returncode)
    else:
        outcome.tests, outcome.failed, first = _results(xml)
        outcome.passed = outcome.failed == 0 and outcome.tests > 0 and proc.returncode == 0
        if not outcome.passed:
            outcome.first_error = _first_log_error(sim_log) or first or "no test ran"
    build_dir = SIM_BUILDS / run.build.key
    for wave in (log_dir / "dump.fst", build_dir / f"{run.build.toplevel(design)}.fst"):
        if run.build.waves and wave.exists():
            outcome.waves = log_dir / "waves.fst"
            shutil.move(str(wave), outcome.waves)
            break
    record = {"key": run.key, "passed": outcome.passed, "tests": outcome.tests,
              "failed": outcome.failed, "first_error": outcome.first_error,
              "wall_s": round(wall, 3), "build_s": round(build_s, 3), "repro": run.repro(),
              "git": tools.git_revision(ROOT), "versions": tools.versions(), "run": asdict(run),
              "params": run.build.design_params(design)}
    (log_dir / "outcome.json").write_text(json.dumps(record, indent=1) + "\n")
    return outcome
