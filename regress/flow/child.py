"""The simulator's child process of one run (flow.simulate starts it in a session of its
own, so that the watchdog can end the whole process group):

    python -m montverif.regress.flow.child RUN_JSON LOG_DIR [WATCH_FD]

WATCH_FD is the read end of a pipe whose write end only the parent holds: when the parent
ends, however it ends (SIGKILL too), the read sees end-of-file, and the child marks the run
folder interrupted and ends its whole process group (itself and the simulator).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path

from cocotb_tools.runner import get_runner

from montverif.regress.flow import tools
from montverif.regress.flow.paths import SIM_BUILDS
from montverif.regress.flow.spec import TIMESCALE, BuildSpec, RunSpec, design_tb
from montverif.spec import environment
from montverif.spec.designs import load_design
from montverif.verif.config import RunConfig


def _child_test(run: RunSpec, log_dir: Path) -> int:
    b = run.build
    design = load_design(b.dut)
    tools.setup_env(b.sim)
    cfg = RunConfig(dut=b.dut, n=b.n, bus_w=b.bus_w, ack_wait=b.ack_wait, txns=run.txns,
                    seed=run.seed, log_dir=log_dir,
                    vectors=Path(run.vectors).resolve() if run.vectors else None,
                    idle_max=run.idle_max, params=b.design_params(design), bus=b.bus,
                    check_thread=environment.CHECK_THREAD.equals("1", ""),
                    measure=not environment.MEASURE.equals("0", "1"),
                    keep_secrets=run.keep_secrets)
    runner = get_runner(b.sim)
    runner.test(test_module=design_tb(b.dut)[0], hdl_toplevel=b.toplevel(design),
                hdl_toplevel_lang="verilog", build_dir=SIM_BUILDS / b.key,
                test_dir=log_dir, seed=run.seed, extra_env=cfg.to_env(),
                testcase=list(run.tests), waves=b.waves, results_xml=str(log_dir / "results.xml"),
                parameters=b.parameters(design), timescale=TIMESCALE,
                plusargs=list(run.plusargs))
    return 0


def run_from_json(text: str) -> RunSpec:
    """The RunSpec the parent serialised with dataclasses.asdict."""
    raw = json.loads(text)
    raw["build"]["params"] = tuple(tuple(p) for p in raw["build"]["params"])
    raw["build"] = BuildSpec(**raw["build"])
    raw["tests"] = tuple(raw["tests"])
    return RunSpec(**raw)


def _watch_parent(fd: int, log_dir: Path) -> None:
    """Block until the parent's end of the pipe closes; then end this process group."""
    while os.read(fd, 1):
        pass
    record = {"passed": False, "interrupted": True,
              "first_error": "interrupted: the runner ended before the simulation finished"}
    try:
        (log_dir / "outcome.json").write_text(json.dumps(record, indent=1) + "\n")
    finally:
        os.killpg(os.getpgrp(), signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    run_json, log_dir = args[:2]
    if len(args) > 2:
        threading.Thread(target=_watch_parent, args=(int(args[2]), Path(log_dir)),
                         daemon=True).start()
    return _child_test(run_from_json(run_json), Path(log_dir))


if __name__ == "__main__":
    code = main()
    # The simulator has ended and written everything; this process only wrapped it. It ends
    # without the interpreter's teardown of cocotb and pytest (about 0.05 s a run, which the
    # runner waits for): its own output flushed, nothing else of it is open.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
