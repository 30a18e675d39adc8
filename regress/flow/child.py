"""The simulator's child process of one run (flow.simulate starts it in a session of its
own, so that the watchdog can end the whole process group):

    python -m montverif.regress.flow.child RUN_JSON LOG_DIR
"""

from __future__ import annotations

import json
import sys
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


def main(argv: list[str] | None = None) -> int:
    run_json, log_dir = sys.argv[1:] if argv is None else argv
    return _child_test(run_from_json(run_json), Path(log_dir))


if __name__ == "__main__":
    sys.exit(main())
