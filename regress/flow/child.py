"""The simulator's child process of a batch of runs of one build (flow.batch starts it in a
session of its own, so that the watchdog can end the whole process group; a single run's
simulator is started by flow.simulate itself, with the command flow.launch gives):

    python -m montverif.regress.flow.child --batch BATCH_DIR RUNS_JSON [WATCH_FD [LOG_DIR...]]

RUNS_JSON lists the batch's runs, each with its log folder; BATCH_DIR receives the plan the
simulator reads (verif/batch.py), its progress file and cocotb's results of the whole batch;
the LOG_DIRs that may follow only name the runs' folders again (for `ps`).
WATCH_FD is the read end of a pipe whose write end only the parent holds: when the parent
ends, however it ends (SIGKILL too), the read sees end-of-file, and the child marks the run
folders interrupted and ends its whole process group (itself and the simulator).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from dataclasses import asdict
from pathlib import Path

from cocotb_tools.runner import get_runner

from montverif.host import tools
from montverif.host.paths import sim_builds
from montverif.regress.flow.launch import run_config
from montverif.regress.flow.spec import TIMESCALE, BuildSpec, RunSpec, design_tb
from montverif.spec.designs import load_design
from montverif.verif.config import BATCH_MODULE, BATCH_PLAN_ARG

PLAN, PROGRESS, RESULTS = "plan.json", "progress", "results.xml"  # in a batch's folder


def _child_batch(batch_dir: Path, runs: list[tuple[RunSpec, Path]]) -> int:
    """The runs one after another in one simulator process (verif/batch.py): cocotb's
    results of the whole batch in BATCH_DIR/results.xml, each run's own files in its folder."""
    first, first_dir = runs[0]
    b = first.build
    design = load_design(b.dut)
    tools.setup_env(b.sim)
    configs = [run_config(run, log_dir) for run, log_dir in runs]
    plan = {"module": design_tb(b.dut)[0], "progress": str(batch_dir / PROGRESS),
            "runs": [{"config": cfg.to_dict(), "tests": list(run.tests)}
                     for cfg, (run, _) in zip(configs, runs, strict=True)]}
    (batch_dir / PLAN).write_text(json.dumps(plan, indent=1) + "\n")
    runner = get_runner(b.sim)
    # the first run's environment and seed, as in a process of its own; the others' come
    # from the plan
    runner.test(test_module=BATCH_MODULE, hdl_toplevel=b.toplevel(design),
                hdl_toplevel_lang="verilog", build_dir=sim_builds() / b.key,
                test_dir=first_dir, seed=first.seed, extra_env=configs[0].to_env(),
                waves=False, results_xml=str(batch_dir / RESULTS),
                parameters=b.parameters(design), timescale=TIMESCALE,
                plusargs=[*first.plusargs, f"+{BATCH_PLAN_ARG}={batch_dir / PLAN}"])
    return 0


def runs_to_json(runs: list[tuple[RunSpec, Path]]) -> str:
    return json.dumps([{"run": asdict(run), "log_dir": str(log_dir)} for run, log_dir in runs])


def runs_from_json(text: str) -> list[tuple[RunSpec, Path]]:
    return [(run_from_json(json.dumps(item["run"])), Path(item["log_dir"]))
            for item in json.loads(text)]


def run_from_json(text: str) -> RunSpec:
    """The RunSpec the parent serialised with dataclasses.asdict."""
    raw = json.loads(text)
    raw["build"]["params"] = tuple(tuple(p) for p in raw["build"]["params"])
    raw["build"] = BuildSpec(**raw["build"])
    raw["tests"] = tuple(raw["tests"])
    return RunSpec(**raw)


def _watch_parent(fd: int, log_dirs: list[Path]) -> None:
    """Block until the parent's end of the pipe closes; then mark the run folders without an
    outcome interrupted and end this process group."""
    while os.read(fd, 1):
        pass
    record = {"passed": False, "interrupted": True,
              "first_error": "interrupted: the runner ended before the simulation finished"}
    try:
        for log_dir in log_dirs:
            if len(log_dirs) == 1 or not (log_dir / "outcome.json").exists():
                (log_dir / "outcome.json").write_text(json.dumps(record, indent=1) + "\n")
    finally:
        os.killpg(os.getpgrp(), signal.SIGKILL)


def _watch(fd: str, log_dirs: list[Path]) -> None:
    threading.Thread(target=_watch_parent, args=(int(fd), log_dirs), daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3 or args[0] != "--batch":
        print("error: python -m montverif.regress.flow.child --batch BATCH_DIR RUNS_JSON "
              "[WATCH_FD [LOG_DIR...]]", file=sys.stderr)
        return 2
    batch_dir, runs = Path(args[1]), runs_from_json(args[2])
    if len(args) > 3:
        _watch(args[3], [log_dir for _, log_dir in runs])
    return _child_batch(batch_dir, runs)


if __name__ == "__main__":
    code = main()
    # The simulator has ended and written everything; this process only wrapped it. It ends
    # without the interpreter's teardown of cocotb and pytest (about 0.05 s a run, which the
    # runner waits for): its own output flushed, nothing else of it is open.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
