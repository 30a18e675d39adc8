"""cocotb test of `make bench`'s simulator floor: the engine wrapper's HDL clock runs
MV_FLOOR_CYCLES cycles with the design idle and Python waiting on one Timer, so the time is
the simulator's own cost of a clock cycle under cocotb (its main loop, VPI callbacks and the
delay scheduler of --timing), with no testbench Python. The raw harness measures the same
figure without cocotb; the bench sets the two side by side (docs/generated/bench/results.md)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import cocotb
from cocotb.triggers import Timer

from montverif.host import environment
from montverif.verif.config import CLOCK_PERIOD_NS

RESET_CYCLES = 3


@cocotb.test()
async def floor(dut: object) -> None:
    cycles = int(environment.FLOOR_CYCLES.required())
    dut.rst_ni.value = 0  # type: ignore[attr-defined]
    await Timer(RESET_CYCLES * CLOCK_PERIOD_NS, "ns")
    dut.rst_ni.value = 1  # type: ignore[attr-defined]
    await Timer(RESET_CYCLES * CLOCK_PERIOD_NS, "ns")
    t0 = time.perf_counter()
    await Timer(cycles * CLOCK_PERIOD_NS, "ns")
    seconds = time.perf_counter() - t0
    Path(environment.FLOOR_OUT.required()).write_text(
        json.dumps({"cycles": cycles, "seconds": seconds}) + "\n")
