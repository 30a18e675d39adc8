"""One simulation run: validate, build (when stale), run the cocotb tests in the simulator
(the command cocotb's runner gives: flow.launch) under the supervisor (host.supervise) and a
wall-clock watchdog, and record the Outcome in the run folder (outcome.json, with the
verdict, the first error and the repro command).

The run owns its folder while it runs (host.claim: a second writer is refused). The
supervisor runs in a session of its own, so that the watchdog ends the whole process group;
it also ends with this process, however this process ends: an interrupt (SIGINT, SIGTERM)
ends every running simulation (`end_all`) and marks its folder interrupted, and if this
process is killed outright the supervisor sees the pipe from it close, marks the folder
interrupted and ends the simulation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

from montverif.host import claim, environment, processes, readback, tools
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, sim_builds, work
from montverif.regress.flow import launch
from montverif.regress.flow.build import build
from montverif.regress.flow.check import validate
from montverif.regress.flow.spec import Outcome, RunSpec, engine_hdl_clock, with_design_tests
from montverif.spec import designs
from montverif.spec.design import Design
from montverif.spec.designs import load_design

# simulations this process runs at once (the scheduler's `parallel` sets it): a run gets the
# scoreboard's checker thread only when every one of them can have a second core
CONCURRENT_JOBS = 1
# cocotb's limit of failing tests in one process, after which it runs no further test
MAX_FAILURES = "COCOTB_MAX_FAILURES"
# what the supervisor records in the run folder when this process ends before the simulation
ORPHANED = json.dumps({"passed": False, "interrupted": True,
                       "first_error": "interrupted: the runner ended before the simulation "
                                     "finished"}, indent=1) + "\n"


def results_of(xml: Path) -> tuple[int, int, str]:
    """(tests, failed, first failure message) from a cocotb results.xml."""
    root = readback.read_xml(xml)
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


# ... and a $fatal: Icarus's `FATAL: <file>:<line>: <why>`, Verilator's `[0] %Fatal: <file>:
# <line>: Assertion failed in <scope>: <why>`
_FIRST_ERROR = re.compile(r"(MISMATCH .*|watchdog: .*|AssertionError: .*|Error: .*|"
                          r"(?<=^FATAL: ).*|(?<=%Fatal: ).*)")
# an RTL assertion that failed (hdl/common/mv_assert.svh): its own words, not the simulator's
# prefix, so that the first error (and the failure bucket) starts with the assertion's name
_ASSERT_FAILED = re.compile(r"ASSERT FAILED .*")
# cocotb's regression manager: "running <module>.<Test> (i/n)", "<module>.<Test> passed"
_TEST_START = re.compile(r"cocotb\.regression\s+running \S*?(\w+) \((\d+)/(\d+)\)")
_TEST_END = re.compile(r"cocotb\.regression\s+\S*?(\w+) (passed|failed)")


def tests_in_log(log: Path) -> tuple[list[str], list[str], str, int]:
    """From a log cut short: the tests that passed, those that failed, the one running when
    it ended ("" if none) and how many the run had (0 if unknown)."""
    passed: list[str] = []
    failed: list[str] = []
    running, total = "", 0
    if not log.exists():
        return passed, failed, running, total
    for line in log.read_text(errors="replace").splitlines():
        if m := _TEST_START.search(line):
            running, total = m.group(1), int(m.group(3))
        elif m := _TEST_END.search(line):
            (passed if m.group(2) == "passed" else failed).append(m.group(1))
            running = ""
    return passed, failed, running, total


# the simulations' child processes are registered with every other tool's tree
# (host.processes): an interrupt ends them all
CHILDREN = processes.TREES
kill_group = processes.kill_group
end_all = processes.end_all
ending = processes.ending
allow_starts = processes.allow_starts


def first_log_error(log: Path) -> str:
    if not log.exists():
        return ""
    for line in log.read_text(errors="replace").splitlines():
        if m := _ASSERT_FAILED.search(line) or _FIRST_ERROR.search(line):
            return m.group(0).strip()[:300]
    return ""


def exit_text(code: int) -> str:
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
    the build without Python's GIL (verif/env/scoreboard.py, verif/bus/engine_main.cpp), or
    a streaming run checks one batch while the simulator runs the next (verif/tb_stream.py).

    MV_CHECK_THREAD=1 or 0 decides; unset, a Verilator engine build or streaming design gets
    it when this process has two cores for each simulation it runs at once (CONCURRENT_JOBS,
    or pytest-xdist's workers). On a single core the thread costs time: the two threads take
    turns."""
    given = environment.CHECK_THREAD.get()
    if given in ("0", "1"):
        return given == "1"
    if given:
        raise ConfigError(f"MV_CHECK_THREAD={given!r}: use 1 (on) or 0 (off), or leave it "
                          "unset (on when a core is spare)")
    b = run.build
    stream = load_design(b.dut).stream is not None
    if (b.bus != "engine" and not stream) or b.sim != "verilator" or engine_hdl_clock():
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
    log_dir = (log_dir or work("runs") / run.key).resolve()
    # a run folder is a run's scratch: a run into it again replaces it (and nothing else)
    with claim.output(log_dir, claim.RUN, claim.Mode.REPLACE):
        if CHILDREN.ending:  # after an interrupt: not started at all
            return record(interrupted_outcome(run, log_dir, 0.0, 0.0), design)
        return execute_claimed(run, design, log_dir)


def child_env(run: RunSpec) -> dict[str, str]:
    """The environment of a run's simulator (before cocotb's own variables), or of a batch's
    child process (flow.batch)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    # The simulation's Python (this child, the simulator's interpreter) keeps its bytecode,
    # even where PYTHONDONTWRITEBYTECODE is set: in build/pycache (or the caller's own
    # PYTHONPYCACHEPREFIX), never beside the sources. cocotb passes every module the tests
    # import through pytest's assertion rewriting, which else parses and compiles them again
    # in every run (about 0.6 s of a short run's fixed cost; measured, issue 33).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(work("pycache")))
    # cocotb makes a pytest Config only to rewrite assertions; the pytest plugins installed
    # for the test suite (xdist, hypothesis, anyio) have nothing to do in a simulation, and
    # loading them cost about 0.06 s of every run
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env[environment.CHECK_THREAD.name] = "1" if check_thread(run) else "0"
    # the designs as this process read them: the child and the simulator read no descriptor
    if (snapshot := designs.snapshot()) is not None:
        env[environment.DESIGNS.name] = str(snapshot)
    if run.bias:  # the run's own steering (a list entry's `bias`) wins over the caller's
        env[environment.BIAS.name] = run.bias
    if environment.PROFILE.is_set():
        env["COCOTB_ENABLE_PROFILING"] = "1"
    if run.stop_at_failure:  # the rest of the run's tests are not run (RunSpec)
        env[MAX_FAILURES] = "1"
    return env


def execute_claimed(run: RunSpec, design: Design, log_dir: Path) -> Outcome:
    """The run in its folder, which this process owns already (claim.output)."""
    _, build_s = build(run.build, design)
    t0 = time.monotonic()
    sim_cmd, env, cwd = launch.command(run, log_dir, child_env(run))
    # the supervisor watches the read end: when this process ends, however, the pipe closes
    watch_r, watch_w = os.pipe()
    cmd = processes.supervised(sim_cmd, watch_r, (log_dir / "outcome.json", ORPHANED))
    sim_log = log_dir / "sim.log"
    timed_out = interrupted = False
    with sim_log.open("w") as out:
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                    start_new_session=True, pass_fds=(watch_r,))
        finally:
            os.close(watch_r)
        CHILDREN.add(proc, kill_group)
        try:
            processes.wait(proc, run.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
            proc.wait()
        except BaseException:  # an interrupt of this process (KeyboardInterrupt, SystemExit)
            # ended before it finished (or as it did: its results may be cut short), the run
            # is marked interrupted; the interrupt goes on to the caller in every case
            kill_group(proc)
            proc.wait()
            record(interrupted_outcome(run, log_dir, time.monotonic() - t0, build_s), design)
            raise
        finally:
            os.close(watch_w)
            interrupted = CHILDREN.remove(proc) and not timed_out
    wall = time.monotonic() - t0
    if interrupted:
        return record(interrupted_outcome(run, log_dir, wall, build_s), design)
    outcome = Outcome(run, False, log_dir, wall_s=wall, build_s=build_s)
    xml = log_dir / "results.xml"
    if timed_out:
        watchdog(outcome, sim_log)
    else:
        judge(outcome, xml, sim_log, proc.returncode)
    build_dir = sim_builds() / run.build.key
    for wave in (log_dir / "dump.fst", build_dir / f"{run.build.toplevel(design)}.fst"):
        if run.build.waves and wave.exists():
            outcome.waves = log_dir / "waves.fst"
            shutil.move(str(wave), outcome.waves)
            break
    return record(outcome, design)


def judge(outcome: Outcome, xml: Path, sim_log: Path, code: int) -> None:
    """The verdict of a run whose simulation ended by itself with exit code `code`: from its
    cocotb results, else (none written: the simulator crashed) from its log."""
    if not xml.exists():
        outcome.first_error = first_log_error(sim_log) or exit_text(code)
        return
    outcome.tests, outcome.failed, first = results_of(xml)
    outcome.passed = outcome.failed == 0 and outcome.tests > 0 and code == 0
    if not outcome.passed:
        outcome.first_error = first_log_error(sim_log) or first or "no test ran"


def watchdog(outcome: Outcome, sim_log: Path, tests: int | None = None) -> None:
    """The outcome of a run the watchdog ended, from its log (`tests`: how many it has, when
    its log cannot tell)."""
    passed, failed, running, total = tests_in_log(sim_log)
    total = total if tests is None else tests
    outcome.tests = max(total, len(passed) + len(failed) + bool(running))
    outcome.failed = outcome.tests - len(passed)
    outcome.first_error = f"watchdog: simulation killed after {outcome.run.timeout_s}s wall time"
    if running:
        outcome.first_error += f" in {running}"
    if passed:
        outcome.first_error += f" ({len(passed)} test(s) had passed: {', '.join(passed)})"


def interrupted_outcome(run: RunSpec, log_dir: Path, wall: float, build_s: float) -> Outcome:
    return Outcome(run, False, log_dir, first_error="interrupted: the simulation was ended "
                   "before it finished", wall_s=wall, build_s=build_s, interrupted=True)


def record(outcome: Outcome, design: Design) -> Outcome:
    """outcome.json in the run folder."""
    run = outcome.run
    record = {"key": run.key, "passed": outcome.passed, "interrupted": outcome.interrupted,
              "tests": outcome.tests, "failed": outcome.failed,
              "first_error": outcome.first_error, "wall_s": round(outcome.wall_s, 3),
              "build_s": round(outcome.build_s, 3), "repro": run.repro(),
              "git": tools.git_revision(ROOT), "versions": tools.versions(), "run": asdict(run),
              "params": run.build.design_params(design)}
    (outcome.log_dir / "outcome.json").write_text(json.dumps(record, indent=1) + "\n")
    return outcome
