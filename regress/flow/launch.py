"""The simulator's command line of one run, as cocotb's runner would start it.

A run's simulator used to be started by a child process (`python -m
montverif.regress.flow.child`) that imported cocotb's runner and called its `test()`: about a
quarter of a second of every run (an interpreter, cocotb and pytest imported) before the
simulator started. Here this process asks the same runner for the same run and keeps what
it would execute, the command, its environment and its folder, instead of executing it;
flow.simulate starts that command itself, under the supervisor (host.supervise).

The runner takes its environment from the process's own (`os.environ`); the child's was the
run's environment (flow.simulate.child_env). `_Capture` gives the runner that environment
instead, and the child's module search path, so that the simulator sees what it saw when the
child started it (PYTHONPATH is how the simulator's embedded Python finds the project's
packages and its dependencies).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

import cocotb_tools.config
from cocotb_tools.runner import Icarus, Runner, Verilator
from find_libpython import find_libpython

from montverif.host import environment
from montverif.host.paths import sim_builds
from montverif.host.tools import ToolError
from montverif.regress.flow.spec import TIMESCALE, RunSpec, clock_source, design_tb
from montverif.spec.designs import load_design
from montverif.verif.config import NO_MUTANT, RunConfig


def run_config(run: RunSpec, log_dir: Path, env: Mapping[str, str] | None = None) -> RunConfig:
    """What the testbench is told of the run (this process's environment, or `env`, decides
    the switches: the scoreboard's checker thread, the probes, the steering of a run without its
    own); a run on a meta-mutant build always names its mutant, the original's too, so that
    no run inherits the one before it in a batch."""
    b = run.build
    design = load_design(b.dut)
    mutant = run.mutant if run.mutant is not None else (
        NO_MUTANT if b.selects_mutants(design) else None)
    return RunConfig(dut=b.dut, n=b.n, bus_w=b.bus_w, ack_wait=b.ack_wait, txns=run.txns,
                     seed=run.seed, log_dir=log_dir,
                     vectors=Path(run.vectors).resolve() if run.vectors else None,
                     idle_max=run.idle_max, params=b.design_params(design), bus=b.bus,
                     clock=clock_source(b),
                     check_thread=environment.CHECK_THREAD.equals("1", "", env),
                     measure=not environment.MEASURE.equals("0", "1", env),
                     keep_secrets=run.keep_secrets,
                     bias=run.bias or environment.BIAS.get(env=env), mutant=mutant)


class _Captured(Exception):
    def __init__(self, cmds: Sequence[Sequence[str]], env: dict[str, str], cwd: Path) -> None:
        super().__init__()
        self.cmds, self.env, self.cwd = [list(c) for c in cmds], env, cwd


@cache
def _libpython() -> str:
    """The shared libpython the simulator loads (cocotb's runner looks it up for every run:
    an `ldconfig -p` each time)."""
    found = find_libpython()
    if found is None:
        raise ToolError("no shared libpython found for the simulator's Python; install "
                        "libpython3-dev (make setup does)")
    return str(found)


def _search_path(cwd: str, env: Mapping[str, str]) -> str:
    """The module search path of `python -m ...` started in `cwd` with `env` (the child's,
    which cocotb handed to the simulator)."""
    return _python_path(cwd, tuple(sorted((k, v) for k, v in env.items()
                                          if k.startswith("PYTHON") or k == "VIRTUAL_ENV")))


@cache
def _python_path(cwd: str, python_vars: tuple[tuple[str, str], ...]) -> str:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env.update(python_vars)
    out = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path))"],
                         cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout
    # `-c` puts "" first where `-m` puts the folder it started in
    return os.pathsep.join(cwd if p == "" else p for p in json.loads(out))


class _Capture(Runner):
    """cocotb's runner over a given environment, stopping where it would execute."""

    base_env: Mapping[str, str] = {}

    def _simulator_in_path(self) -> None:
        """The build found the simulator already (flow.check)."""

    def _set_env_common(self) -> None:
        # what cocotb's runner sets (cocotb_tools.runner.Runner._set_env_common, as pinned),
        # over `base_env` where it takes this process's; test_launch compares the result with
        # what the runner itself sets, so a cocotb upgrade that changes it fails there
        self.env.update(self.base_env)
        users = self.env.get("GPI_USERS")
        self.env["PATH"] += os.pathsep + str(cocotb_tools.config.libs_dir)
        self.env["PYTHONPATH"] = _search_path(os.getcwd(), self.base_env)
        self.env["PYGPI_PYTHON_BIN"] = sys.executable
        if users is None:
            libpython = self.env.get("LIBPYTHON_LOC")
            libpython = _libpython() if libpython is None else libpython
            self.env["GPI_USERS"] = f"{libpython};{cocotb_tools.config.pygpi_entry_point()}"

    def _execute(self, cmds: Sequence[Sequence[str]], cwd: Any) -> NoReturn:
        raise _Captured(cmds, dict(self.env), Path(cwd))


class _IcarusCapture(_Capture, Icarus):
    pass


class _VerilatorCapture(_Capture, Verilator):
    pass


RUNNERS: dict[str, type[_Capture]] = {"icarus": _IcarusCapture, "verilator": _VerilatorCapture}


def command(run: RunSpec, log_dir: Path,
            env: Mapping[str, str]) -> tuple[list[str], dict[str, str], Path]:
    """(command, environment, folder) of the run's simulator: what cocotb's runner executes
    for `runner.test()` with the run's tests, seed, parameters and plusargs, over `env` (the
    run's environment: flow.simulate.child_env)."""
    b = run.build
    design = load_design(b.dut)
    cfg = run_config(run, log_dir, env)
    runner = RUNNERS[b.sim]()
    runner.base_env = env
    try:
        runner.test(test_module=design_tb(b.dut)[0], hdl_toplevel=b.toplevel(design),
                    hdl_toplevel_lang="verilog", build_dir=sim_builds() / b.key,
                    test_dir=log_dir, seed=run.seed, extra_env=cfg.to_env(),
                    testcase=list(run.tests), waves=b.waves,
                    results_xml=str(log_dir / "results.xml"), parameters=b.parameters(design),
                    timescale=TIMESCALE, plusargs=run.sim_plusargs())
    except _Captured as got:
        if len(got.cmds) != 1:
            raise ToolError(f"cocotb's runner gave {len(got.cmds)} commands for one run, "
                            "expected one") from None
        return got.cmds[0], got.env, got.cwd
    raise ToolError("cocotb's runner ran no simulator for the run")
