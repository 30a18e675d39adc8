"""The cocotb runners that compile a build (flow.build decides when one is stale): Verilator's
with the lean VPI visibility and the engine's main loop, Icarus's; each command they start runs
as a tool tree of this process (host.processes).

Imported only to compile (cocotb's runner imports cocotb and pytest, about 0.13 s): a command
whose builds are up to date never loads it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import TextIO

import cocotb_tools.config
from cocotb_tools.runner import Icarus, Runner, Verilator

from montverif.host import processes, tools
from montverif.host.paths import ROOT, aliased, sim_builds


class Supervised(Runner):
    """A cocotb runner whose build commands (verilator, make and the compiler; iverilog) run
    as tool trees of this process (host.processes): an interrupt ends them at once, and none
    outlives this process. (cocotb's runner has no public hook for how it starts a command:
    this overrides its private `_execute_cmds`, keeping its behaviour.)"""

    def _execute_cmds(self, cmds: Sequence[Sequence[str]], cwd: PathLike[str] | str,
                      stdout: TextIO | None = None) -> None:
        for cmd in cmds:
            result = processes.run(list(cmd), cwd=cwd, env=self.env, stdout=stdout,
                                   stderr=None if stdout is None else subprocess.STDOUT,
                                   what=f"the build ({Path(cmd[0]).name})")
            if result.returncode != 0:
                raise RuntimeError(f"Command failed with return code: {result.returncode}")


class SupervisedIcarus(Supervised, Icarus):
    pass


def verilator_runner(control: Path | None, main: Path | None = None):
    """cocotb's Verilator runner (a cocotb_tools runner), with the lean VPI visibility of
    vpi_control (control=None: cocotb's own flags) and, for engine builds, the engine's own
    main loop instead of cocotb's verilator.cpp (main=None: cocotb's)."""
    class LeanVerilator(Supervised, Verilator):
        def _build_command(self) -> list:
            cmds = super()._build_command()
            first = cmds[0]
            if control is not None and "--public-flat-rw" in first:
                i = first.index("--public-flat-rw")
                first[i:i + 1] = ["--public-depth", "1", str(control)]
            if main is not None:
                stock = [i for i, arg in enumerate(first) if arg.endswith("verilator.cpp")]
                if len(stock) != 1:
                    raise tools.ToolError("cocotb's Verilator build command has changed: "
                                          "cannot put the engine main loop in its place")
                first[stock[0]] = str(main)
            # every path (the sources, the build folder, cocotb's main and VPI library)
            # through an alias where make cannot take it (host.paths.alias)
            return [[aliased(arg, _BUILD_ROOTS) for arg in cmd] for cmd in cmds]

    return LeanVerilator()


# the folders a Verilator build names files in: the checkout, its builds, the Python
# environment and cocotb's own (the installed package may lie outside the environment)
_BUILD_ROOTS = tuple(dict.fromkeys(Path(p).resolve() for p in (
    ROOT, sim_builds(), sys.prefix, cocotb_tools.config.share_dir,
    cocotb_tools.config.libs_dir)))
