"""Several runs of one build in one simulator process, one after another (verif/batch.py
runs them), so that each run after the first pays no Python start, imports, simulator start
or pyuvm set-up. Each run keeps everything a run of its own has: its folder (claimed), its
outcome.json (verdict, first error, a repro command that runs it alone), sim.log, txns.jsonl,
coverage; its results are those of the run in a process of its own.

Each run has its own watchdog, started when the run starts (the simulator appends
`start I TESTS TIME` to the batch's progress file at the run's first test): a run that
overruns its timeout fails with its own `watchdog: ...` error; a simulator that dies fails the
run that was running. The runs of the batch not yet started then run in a fresh process. An
interrupt ends the process: the runs that had finished keep their verdicts, the others are
marked interrupted.

A time in a run's first error (an RTL assertion's `@ <t> ps`, a scoreboard's `@<t>ns`) is
the run's own, as it reports it alone: the batch's simulated time less the run's time origin
(its first clock edge, verif/batch.py) plus the first run's (`rebase_times`).

Not batched (`batchable`): traced builds (the waveform is one file per process) and
code-coverage builds (Verilator writes coverage.dat once, when the process ends). Runs batch
together when they share the build and the simulator's plusargs (`batch_key`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from montverif.host import claim, processes, readback
from montverif.host.paths import work
from montverif.regress.flow import simulate
from montverif.regress.flow.build import build
from montverif.regress.flow.check import validate
from montverif.regress.flow.child import PROGRESS, RESULTS, runs_to_json
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec, with_design_tests
from montverif.spec.design import Design


def batches_root() -> Path:
    """A folder per running batch (plan, progress, results)."""
    return work("batches")


POLL_S = 0.1  # how often the watchdog looks at the progress file

# a simulation time in a message: `@ 1060000 ps`, `@1060.0ns` (the unit's power of ten in fs)
_TIME = re.compile(r"@(\s*)(\d+(?:\.\d+)?)(\s*)(fs|ps|ns|us|ms|s)\b")
_UNIT_FS = {"fs": 0, "ps": 3, "ns": 6, "us": 9, "ms": 12, "s": 15}


def rebase_times(text: str, offset_fs: int) -> str:
    """`text` with each simulation time in it moved `offset_fs` femtoseconds earlier, in its
    own unit and form: an integer as an integer (the RTL's %t) where it stays whole, a
    decimal as Python writes a float (cocotb's times); whole femtoseconds, so a float's
    last digits do not show. A time that would fall below 0 is left as it is."""
    if not offset_fs:
        return text

    def one(m: re.Match[str]) -> str:
        places = _UNIT_FS[m[4]]
        value = round(Decimal(m[2]) - Decimal(offset_fs).scaleb(-places), places)
        if value < 0:
            return m[0]
        if "." in m[2]:
            shown = repr(float(value))
        elif value == value.to_integral_value():
            shown = str(int(value))
        else:
            shown = format(value.normalize(), "f")
        return f"@{m[1]}{shown}{m[3]}{m[4]}"

    return _TIME.sub(one, text)


def batchable(run: RunSpec) -> bool:
    """Whether a run's results stay its own in a shared process: not with waves (one
    waveform per process) nor with Verilator code coverage (coverage.dat at process end)."""
    return not run.build.waves and not run.build.coverage


def batch_key(run: RunSpec) -> tuple[BuildSpec, tuple[str, ...]] | None:
    """Runs with equal keys can share a process (None: this run cannot)."""
    return (run.build, run.plusargs) if batchable(run) else None


@dataclass
class _Progress:
    """The runs the simulator has started: (tests, wall-clock start) per run, in order, and
    each run's time origin (fs of simulated time: its first clock edge) once it had one."""

    path: Path
    starts: list[tuple[int, float]] = field(default_factory=list)
    origins: dict[int, int] = field(default_factory=dict)
    _offset: int = 0

    def read(self) -> bool:
        """Read the new lines; whether a run started since the last read."""
        try:
            with self.path.open() as f:
                f.seek(self._offset)
                text = f.read()
        except FileNotFoundError:
            return False
        whole = text[:text.rfind("\n") + 1]
        self._offset += len(whole)
        before = len(self.starts)
        for line in whole.splitlines():
            word, index, *rest = line.split()
            if word == "start" and int(index) == len(self.starts):
                tests, when = rest
                self.starts.append((int(tests), float(when)))
            elif word == "origin":
                self.origins[int(index)] = int(rest[0])
        return len(self.starts) > before

    def offset_fs(self, index: int) -> int:
        """How much later in the process's simulated time run `index` runs than it would
        alone: its time origin less the first run's (which started at time 0, as alone);
        0 when either is unknown."""
        if index in self.origins and 0 in self.origins:
            return self.origins[index] - self.origins[0]
        return 0


def execute_batch(runs: Sequence[tuple[RunSpec, Path]]) -> list[Outcome]:
    """Each (run, log folder) in turn in as few simulator processes as the runs allow;
    their Outcomes in the same order. One run: flow.simulate.execute."""
    if len(runs) == 1:
        return [simulate.execute(*runs[0])]
    every = [(with_design_tests(run), log_dir.resolve()) for run, log_dir in runs]
    designs = [validate(run) for run, _ in every]
    keys = {batch_key(run) for run, _ in every}
    if len(keys) != 1 or None in keys:
        raise ValueError("a batch holds runs of one build and plusargs, without waves or "
                         "code coverage")
    design = designs[0]
    with contextlib.ExitStack() as stack:
        for _, log_dir in every:
            stack.enter_context(claim.output(log_dir, claim.RUN, claim.Mode.REPLACE))
        if simulate.CHILDREN.ending:  # after an interrupt: none started
            return _interrupted(every, design)
        _, build_s = build(every[0][0].build, design)
        outcomes: list[Outcome] = []
        while len(outcomes) < len(every):
            todo = every[len(outcomes):]
            if len(todo) == 1:  # the last one (or the one left after a crash): alone
                outcomes.append(simulate.execute_claimed(todo[0][0], design, todo[0][1]))
            else:
                outcomes += _run(todo, design, build_s)
            build_s = 0.0
            if outcomes[-1].interrupted:
                outcomes += _interrupted(every[len(outcomes):], design)
        return outcomes


def _interrupted(runs: Sequence[tuple[RunSpec, Path]], design: Design) -> list[Outcome]:
    """Runs an interrupt kept from starting."""
    return [simulate.record(simulate.interrupted_outcome(run, log_dir, 0.0, 0.0), design)
            for run, log_dir in runs]


def _run(todo: list[tuple[RunSpec, Path]], design: Design, build_s: float) -> list[Outcome]:
    """One simulator process for the runs: the Outcomes of those it started (in order, the
    last one possibly hung, crashed or interrupted); the rest are left to a fresh process."""
    batches_root().mkdir(parents=True, exist_ok=True)
    batch_dir = Path(tempfile.mkdtemp(prefix=f"{todo[0][0].build.key}-", dir=batches_root()))
    try:
        return _run_in(todo, design, build_s, batch_dir)
    finally:
        shutil.rmtree(batch_dir, ignore_errors=True)


def _run_in(todo: list[tuple[RunSpec, Path]], design: Design, build_s: float,
            batch_dir: Path) -> list[Outcome]:
    # the caller's own steering (MV_BIAS), not the first run's: each run's RunConfig carries
    # its own (flow.launch.run_config), and a run without one gets the caller's, as alone.
    # Never a limit of failures: cocotb's counts the process's tests, so the runs after the
    # first failure would be reported failed without having run
    env = simulate.child_env(dataclasses.replace(todo[0][0], bias="", stop_at_failure=False))
    env.pop(simulate.MAX_FAILURES, None)
    watch_r, watch_w = os.pipe()
    # the run folders at the end as well: `ps` (and the tests) find a run's process by them
    cmd = [sys.executable, "-m", "montverif.regress.flow.child", "--batch", str(batch_dir),
           runs_to_json(todo), str(watch_r), *(str(log_dir) for _, log_dir in todo)]
    progress = _Progress(batch_dir / PROGRESS)
    launched = time.time()
    deadline = time.monotonic() + todo[0][0].timeout_s
    timed_out = interrupted = False
    pending: BaseException | None = None  # an interrupt of this process, raised at the end
    with (todo[0][1] / "sim.log").open("w") as out:
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True, pass_fds=(watch_r,))
        finally:
            os.close(watch_r)
        simulate.CHILDREN.add(proc, simulate.kill_group)
        try:
            while True:
                try:
                    processes.wait(proc, POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if progress.read() and len(progress.starts) > 1:  # a run after the first
                    deadline = time.monotonic() + todo[len(progress.starts) - 1][0].timeout_s
                if time.monotonic() > deadline:
                    timed_out = True
                    simulate.kill_group(proc)
                    proc.wait()
                    break
        except BaseException as exc:  # an interrupt of this process (KeyboardInterrupt, ...)
            pending = exc  # raised at the end, whether or not the simulation had finished
            simulate.kill_group(proc)
            proc.wait()
        finally:
            os.close(watch_w)
            interrupted = (simulate.CHILDREN.remove(proc) and not timed_out) or bool(pending)
    outcomes = _outcomes(todo, design, build_s, batch_dir, progress, launched, proc.returncode,
                         timed_out, interrupted)
    if pending is not None:
        _interrupted(todo[len(outcomes):], design)
        raise pending
    return outcomes


def _outcomes(todo: list[tuple[RunSpec, Path]], design: Design, build_s: float,
              batch_dir: Path, progress: _Progress, launched: float, code: int,
              timed_out: bool, interrupted: bool) -> list[Outcome]:
    """The recorded Outcome of each run the process started."""
    ended = time.time()
    progress.read()
    starts = progress.starts or [(0, launched)]
    whole = batch_dir / RESULTS
    cases = _cases(whole) if whole.exists() and not (timed_out or interrupted) else None
    outcomes = []
    for i, (tests, start) in enumerate(starts):
        run, log_dir = todo[i]
        last = i == len(starts) - 1
        wall = (ended if last else starts[i + 1][1]) - (launched if i == 0 else start)
        outcome = Outcome(run, False, log_dir, wall_s=wall, build_s=build_s if i == 0 else 0.0)
        sim_log = log_dir / "sim.log"
        if last and interrupted:
            outcome = simulate.interrupted_outcome(run, log_dir, wall, outcome.build_s)
        elif last and timed_out:
            simulate.watchdog(outcome, sim_log, tests)
        elif cases is not None:  # cocotb's results of the batch: the run's share of them
            xml = log_dir / "results.xml"
            _write_results(xml, cases.get(i + 1, []), run.seed)
            simulate.judge(outcome, xml, sim_log, code if last else 0)
        elif last:  # the simulator died: it failed the run under way
            simulate.judge(outcome, batch_dir / "none.xml", sim_log, code)
        else:  # finished before a hang, crash or interrupt: its log tells
            _judge_log(outcome, sim_log, tests)
        # the run's own time, as alone, not the batch's
        outcome.first_error = rebase_times(outcome.first_error, progress.offset_fs(i))
        outcomes.append(simulate.record(outcome, design))
    return outcomes


def _cases(xml: Path) -> dict[int, list[ET.Element]]:
    """cocotb's results of a batch: each run's test cases (classname `<module>.run<I>`)."""
    out: dict[int, list[ET.Element]] = {}
    for case in readback.read_xml(xml).iter("testcase"):
        module, _, tag = (case.get("classname") or "").rpartition(".")
        if module and tag.startswith("run") and tag[3:].isdigit():
            case.set("classname", module)
            out.setdefault(int(tag[3:]), []).append(case)
    return out


def _write_results(xml: Path, cases: list[ET.Element], seed: int) -> None:
    """A run's results.xml as cocotb writes it for the run in a process of its own."""
    root = ET.Element("testsuites", name="cocotb tests")
    suites: dict[str, ET.Element] = {}
    for case in cases:
        module = case.get("classname", "")
        if module not in suites:
            suites[module] = ET.SubElement(root, "testsuite", name=module)
        for prop in case.iter("property"):
            if prop.get("name") == "random_seed":
                prop.set("value", str(seed))
        for err in case.iter("system-err"):
            if err.text and "COCOTB_RANDOM_SEED=" in err.text:
                err.text = f"Test failed with COCOTB_RANDOM_SEED={seed}"
        suites[module].append(case)
    for suite in suites.values():
        found = list(suite.iter("testcase"))
        suite.set("tests", str(len(found)))
        suite.set("failures", str(sum(c.find("failure") is not None for c in found)))
        suite.set("errors", str(sum(c.find("error") is not None for c in found)))
        suite.set("skipped", str(sum(c.find("skipped") is not None for c in found)))
        suite.set("time", f"{sum(float(c.get('time', 0)) for c in found):.3f}")
    ET.ElementTree(root).write(xml, encoding="utf-8", xml_declaration=True)


def _judge_log(outcome: Outcome, sim_log: Path, tests: int) -> None:
    """The verdict of a run that finished before its batch ended early, from its log."""
    passed, failed, _, _ = simulate.tests_in_log(sim_log)
    outcome.tests = max(tests, len(passed) + len(failed))
    outcome.failed = outcome.tests - len(passed)
    outcome.passed = outcome.failed == 0 and outcome.tests > 0
    if not outcome.passed:
        outcome.first_error = (simulate.first_log_error(sim_log)
                               or (f"{failed[0]}: failed" if failed else "no test ran"))

