"""flow.launch: the simulator's command, environment and folder this process computes for a
run are what cocotb's own runner executed for it in the child process it replaced (a process
with the run's environment as its own calling the runner's `test()`): the oracle is that
child, cocotb's runner unchanged but for the execution, which it records instead."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from montverif.host import tools
from montverif.regress.flow import launch, simulate
from montverif.regress.flow.spec import BuildSpec, RunSpec

ORACLE = '''
import json, sys
from pathlib import Path
from cocotb_tools import runner
from montverif.host import tools
from montverif.host.paths import sim_builds
from montverif.regress.flow.child import run_from_json
from montverif.regress.flow.launch import run_config
from montverif.regress.flow.spec import TIMESCALE, design_tb
from montverif.spec.designs import load_design

def record(self, cmds, cwd):
    with open(sys.argv[3], "w") as out:
        json.dump({"cmds": [list(c) for c in cmds], "env": self.env, "cwd": str(cwd)}, out)
    raise SystemExit(0)

runner.Runner._execute = record
run, log_dir = run_from_json(sys.argv[1]), Path(sys.argv[2])
b = run.build
design = load_design(b.dut)
tools.setup_env(b.sim)
runner.get_runner(b.sim).test(
    test_module=design_tb(b.dut)[0], hdl_toplevel=b.toplevel(design),
    hdl_toplevel_lang="verilog", build_dir=sim_builds() / b.key, test_dir=log_dir,
    seed=run.seed, extra_env=run_config(run, log_dir).to_env(), testcase=list(run.tests),
    waves=b.waves, results_xml=str(log_dir / "results.xml"), parameters=b.parameters(design),
    timescale=TIMESCALE, plusargs=run.sim_plusargs())
'''


def _oracle(tmp_path: Path, run: RunSpec, log_dir: Path, env: dict[str, str]) -> dict:
    """What the child ran: `python -m` in tmp_path (the module search path it gives)."""
    (tmp_path / "oracle.py").write_text(ORACLE)
    out = tmp_path / "oracle.json"
    subprocess.run([sys.executable, "-m", "oracle", json.dumps(asdict(run)), str(log_dir),
                    str(out)], cwd=tmp_path, env=env, check=True)
    return json.loads(out.read_text())


@pytest.mark.parametrize("run", [
    RunSpec(BuildSpec("mont_r2", 32, sim="verilator"), seed=3, txns=2),
    RunSpec(BuildSpec("mont_lut", 32, 16, "icarus", 2, waves=True), seed=9, txns=4,
            tests=("RandomTest",), plusargs=("+x=1",), bias="hits"),
    RunSpec(BuildSpec("mm42", 40, bus="engine"), seed=5, txns=1, stop_at_failure=True),
], ids=["verilator", "icarus-waves", "engine"])
def test_the_command_is_what_cocotbs_runner_ran_in_the_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: RunSpec) -> None:
    tools.setup_env(run.build.sim)  # as flow.check does before a run
    monkeypatch.chdir(tmp_path)
    log_dir = tmp_path / "run"
    env = simulate.child_env(run)
    cmd, got_env, cwd = launch.command(run, log_dir, env)
    want = _oracle(tmp_path, run, log_dir, env)
    assert [cmd] == want["cmds"] and str(cwd) == want["cwd"]
    # the environment as cocotb gave it, but for what the oracle's own start adds
    assert got_env == {k: v for k, v in want["env"].items() if k not in ORACLE_ONLY}
    assert got_env["COCOTB_RANDOM_SEED"] == str(run.seed)
    assert got_env["COCOTB_RESULTS_FILE"] == str(log_dir / "results.xml")


# set by the interpreter that runs the oracle, not by the child it stands for
ORACLE_ONLY: set[str] = set()


def test_the_given_environment_is_the_simulators(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment given, not this process's, is the simulator's: its PYTHONPATH gives
    the module search path, a variable only this process has does not reach it."""
    run = RunSpec(BuildSpec("mont_r2", 32), seed=1, txns=1)
    tools.setup_env("verilator")
    env = {**simulate.child_env(run), "PYTHONPATH": "/nowhere"}
    monkeypatch.setenv("MV_ONLY_HERE", "1")
    _, got, _ = launch.command(run, tmp_path / "run", env)
    assert "/nowhere" in got["PYTHONPATH"].split(":")
    assert "MV_ONLY_HERE" not in got
