"""cocotb test module of a simulator process that runs several runs of one build, one after
another (regress/flow/batch.py starts it): each run's tests with the configuration, random
seeds, logs and coverage they have in a process of their own.

The plan (JSON; its path in the plusarg `+mv_runs=PATH`) names the design's test module, a
progress file and, per run, its RunConfig and its tests. For each run this module registers
a copy of each of the run's tests, in the order the design's module defines them (the order
cocotb runs a run's tests in), named `<module>.run<I>.<Test>`.

- When cocotb sets up a run's first test (before it logs `running <test>`): the process's
  output (file descriptors 1 and 2: Python's and the simulator's) goes to the run's own
  sim.log from there on, what the run before left in Python is forgotten (cocotb-coverage's
  database, the sequences' polynomial pool, frozen objects), and `start I TESTS TIME` is
  appended to the progress file (the parent's per-run watchdog, and which run a crash
  belongs to).
- When a test starts: Python's random module is seeded as cocotb seeds it for the test in a
  process of the run's own (COCOTB_RANDOM_SEED = the run's seed, plus the digest of the
  test's full name), and the test runs with the run's configuration (verif/config.py
  `running`).
- At the first rising edge of clk_i in a run's first test, `origin I FS` (the simulation
  time in femtoseconds) is appended to the progress file: the run's time origin. Everything
  a run does follows the clock edges it counts from there, so a time the run reports (an RTL
  assertion's `@ <t> ps`) less its origin, plus the first run's (which starts at time 0, as
  a run alone does), is the time it reports alone (regress/flow/batch.py rebases them).

The DUT is reset at the start of every test (its run_phase holds reset), between runs as
between the tests of one run.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

import cocotb
from cocotb.simtime import get_sim_time
from cocotb.triggers import RisingEdge

from montverif.verif.config import BATCH_PLAN_ARG, RunConfig, running
from montverif.verif.env.coverage import forget_coverage
from montverif.verif.sequences import forget_simulation_state

TestFunc = Callable[..., Coroutine[Any, Any, None]]


def selected(tests: Sequence[Any], names: Sequence[str]) -> list[Any]:
    """The tests (cocotb Test objects) a run of `names` runs: the filter cocotb's runner makes
    of a testcase list (a full name ending in `.<anything>Name`)."""
    pattern = re.compile(r"\.(" + "|".join(rf".*{re.escape(n)}" for n in names) + ")$")
    return [t for t in tests if pattern.search(t.fullname)]


def module_tests(module_name: str) -> list[Any]:
    """The cocotb tests of a module, in the order cocotb's discovery finds them."""
    found: list[Any] = []
    for obj in vars(import_module(module_name)).values():
        if hasattr(obj, "generate_tests") and hasattr(obj, "func"):  # a TestGenerator
            found.extend(obj.generate_tests())
        elif hasattr(obj, "fullname") and hasattr(obj, "func"):  # a Test
            found.append(obj)
    return found


def seed_as_alone(run_seed: int, fullname: str) -> None:
    """Python's random module as cocotb seeds it for the test `fullname` in a regression
    whose COCOTB_RANDOM_SEED is `run_seed` (cocotb restores its own state after the test)."""
    test_seed = run_seed + int(hashlib.sha1(fullname.encode()).hexdigest(), 16)
    random.seed(test_seed)
    cocotb.RANDOM_SEED = test_seed


def _output_to(log: Path) -> None:
    """This process's output (Python's and the simulator's C stdio) into `log` from here on."""
    sys.stdout.flush()
    sys.stderr.flush()
    ctypes.CDLL(None).fflush(None)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
    finally:
        os.close(fd)


class Batch:
    """The runs of one plan and the run under way."""

    def __init__(self, plan: dict) -> None:
        self.module = str(plan["module"])
        self.progress = Path(plan["progress"])
        self.runs = [(RunConfig.from_dict(r["config"]), tuple(r["tests"])) for r in plan["runs"]]
        self.started = -1  # the last run whose first test started
        originals = module_tests(self.module)
        self.tests = [selected(originals, names) for _, names in self.runs]

    def start(self, index: int) -> None:
        """Run `index` begins (and any run before it without tests of its own)."""
        for i in range(self.started + 1, index + 1):
            cfg = self.runs[i][0]
            # the mark first: from here on, a crash belongs to this run
            with self.progress.open("a") as out:
                out.write(f"start {i} {len(self.tests[i])} {time.time():.6f}\n")
            if i > 0:
                _output_to(cfg.log_dir / "sim.log")
            forget_coverage()
            forget_simulation_state()
            gc.unfreeze()
            gc.collect()
        self.started = max(self.started, index)

    async def origin(self, index: int, dut: Any) -> None:
        """Run `index`'s time origin: the first rising clock edge from its first test's
        start (a task beside the test, which drives nothing and which the test does not
        wait for)."""
        clock = getattr(dut, "clk_i", None)
        if clock is None:
            return
        await RisingEdge(clock)
        with self.progress.open("a") as out:
            out.write(f"origin {index} {round(get_sim_time('fs'))}\n")

    def copies(self) -> Iterator[tuple[str, Any]]:
        """(module attribute, cocotb TestGenerator) of every test of every run, in order."""
        for i, tests in enumerate(self.tests):
            for k, original in enumerate(tests):
                yield f"run{i + 1}_{original.name}", self._copy(i, k == 0, original)

    def _copy(self, index: int, first: bool, original: Any) -> Any:
        cfg = self.runs[index][0]
        func: TestFunc = original.func
        args, fullname = tuple(original.args), original.fullname

        async def body(dut: Any) -> None:
            seed_as_alone(cfg.seed, fullname)
            if first:
                cocotb.start_soon(self.origin(index, dut))
            with running(cfg):
                await func(dut, *args, **original.kwargs)

        def run_test(dut: Any) -> Coroutine[Any, Any, None]:
            # called when cocotb sets the test up: after the test before it was scored (its
            # `passed` line), before cocotb logs `running <test>`
            if first:
                self.start(index)
            return body(dut)

        run_test.__module__ = f"{original.module}.run{index + 1}"
        run_test.__qualname__ = original.name
        run_test.__doc__ = original.doc
        gen = cocotb.test(run_test)
        gen.timeout = original.timeout
        gen.expect_fail = original.expect_fail
        gen.expect_error = set(original.expect_error)
        gen.skip = original.skip
        gen.stage = original.stage
        return gen


def _plan() -> dict | None:
    path = getattr(cocotb, "plusargs", {}).get(BATCH_PLAN_ARG)
    return json.loads(Path(str(path)).read_text()) if path else None


if (_found := _plan()) is not None:
    BATCH = Batch(_found)
    globals().update(dict(BATCH.copies()))
