"""cocotb test module (not collected by pytest) behind test_engine_sim's test that the engine
main loop (verif/bus/engine_main.cpp) hands Python's GIL back while only the model runs
(MV_CHECK_THREAD=1). The test awaits a timer far away (every slot before it is quiet) while a
second Python thread notes when it first got to run; the JSON file MV_PROBE_OUT gets the
wait's wall time and that moment, both from the wait's start. With the GIL held by the
simulator's thread all along, the thread runs only after the wait."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import cocotb
from cocotb.triggers import Timer

from montverif.host import environment
from montverif.verif.config import CLOCK_PERIOD_NS

# quiet slots for a while (about 0.2 s at N = 32): time for the thread to be scheduled on a
# busy machine (2 ms were not enough with both cores busy)
WAIT_CYCLES = 2_000_000
# the thread sleeps first, so that it asks for the GIL only once the test is in the wait
SLEEP_S = 0.01


@cocotb.test()
async def gil_probe(dut: object) -> None:
    del dut
    first: list[float] = []

    def note_first_run() -> None:
        time.sleep(SLEEP_S)  # the GIL is needed again on waking: held, or handed back
        first.append(time.perf_counter())

    await Timer(CLOCK_PERIOD_NS, unit="ns")  # past the first slots' callbacks
    thread = threading.Thread(target=note_first_run, daemon=True)
    start = time.perf_counter()
    thread.start()
    await Timer(WAIT_CYCLES * CLOCK_PERIOD_NS, unit="ns")
    wait_s = time.perf_counter() - start
    thread.join()
    Path(environment.PROBE_OUT.required()).write_text(json.dumps(
        {"wait_s": wait_s, "first_run_s": first[0] - start}))
