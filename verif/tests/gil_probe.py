"""cocotb test module (not collected by pytest) behind test_engine_sim's test that the engine
main loop (verif/bus/engine_main.cpp) hands Python's GIL back while only the model runs
(MV_CHECK_THREAD=1): a Python thread counts while the test awaits a timer many cycles away
(every slot before it is quiet), and the count it reached during the wait goes to the JSON
file MV_PROBE_OUT. With the GIL held by the simulator's thread, the counter cannot move."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import cocotb
from cocotb.triggers import Timer

from verif.config import CLOCK_PERIOD_NS

WAIT_CYCLES = 20_000


@cocotb.test()
async def gil_probe(dut: object) -> None:
    del dut
    count = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            count[0] += 1

    await Timer(CLOCK_PERIOD_NS, unit="ns")  # past the first slots' callbacks
    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    before = count[0]
    await Timer(WAIT_CYCLES * CLOCK_PERIOD_NS, unit="ns")
    during = count[0] - before
    stop.set()
    spinner.join()
    Path(os.environ["MV_PROBE_OUT"]).write_text(json.dumps({"during_wait": during}))
