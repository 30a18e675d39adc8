"""cocotb test module (not collected by pytest) behind test_engine_sim's protocol test of the
engine main loop (verif/bus/engine_main.cpp): one engine script runs (loads, START, a wait
of N cycles for done, read-back) while a second coroutine awaits every kind of trigger, on
clock edges and between them, across the loop's quiet stretches, and notes what it sees
(time, clock, the engine's position, fin and cycle count, the design's busy and done). The
notes go to the JSON file MV_PROBE_OUT; with the loop's quiet slots and with the whole
protocol in every slot (MV_ENGINE_QUIET=0) they must be the same."""

from __future__ import annotations

import json
from pathlib import Path

import cocotb
from cocotb.triggers import (
    ClockCycles,
    FallingEdge,
    NextTimeStep,
    ReadOnly,
    ReadWrite,
    RisingEdge,
    Timer,
)
from cocotb.utils import get_sim_time

from montverif.host import environment
from montverif.spec import regmap
from montverif.verif.bus.engine import EngineBusDriver
from montverif.verif.bus.engine_layout import CYCLE_VAR
from montverif.verif.bus.item import BusItem, BusRequest, Kind
from montverif.verif.config import CLOCK_PERIOD_NS

RESET_CYCLES = 3
X, Y, M = 5, 7, 0xF1  # the operands; M odd, X and Y below it


def _script(rm: regmap.RegMap, n: int, bus_w: int) -> list[BusItem]:
    items = [BusItem(Kind.WRITE, rm.addr(r), regmap.split(v, n, bus_w))
             for r, v in (("X", X), ("Y", Y), ("M", M))]
    items += [BusItem(Kind.WRITE, rm.addr("CTRL"), [rm.fields["CTRL"]["START"].put(1)]),
              BusItem(Kind.WAIT_DONE, timeout_cycles=10 * n),
              BusItem(Kind.READ, rm.addr("P"), count=regmap.words(n, bus_w))]
    for item in items:
        item.tight = True
    return items


@cocotb.test()
async def main_loop_probe(dut: object) -> None:
    d = dut  # the wrapper toplevel
    n, bus_w = int(d.N.value), int(d.BusW.value)  # type: ignore[attr-defined]
    period = CLOCK_PERIOD_NS
    notes: list[list[object]] = []

    cycle = getattr(d.u_engine, CYCLE_VAR)  # type: ignore[attr-defined]

    def note(tag: str) -> None:  # the engine's cycle count moves at every falling edge
        notes.append([tag, get_sim_time("ps"), str(d.clk_i.value),  # type: ignore[attr-defined]
                      str(d.tb_pos_o.value), str(d.tb_fin_o.value),  # type: ignore[attr-defined]
                      str(d.busy_o.value), str(d.done_o.value),  # type: ignore[attr-defined]
                      str(cycle.value)])

    d.rst_ni.value = 0  # type: ignore[attr-defined]
    await Timer(RESET_CYCLES * period, "ns")  # a timer due on a rising edge
    note("reset held, on a rising edge")
    d.rst_ni.value = 1  # type: ignore[attr-defined]
    await Timer(period // 2, "ns")  # due on a falling edge
    note("on a falling edge")
    driver = EngineBusDriver(d, period, 0, bus_w, lambda _burst: None)
    items = _script(regmap.load(), n, bus_w)
    run = cocotb.start_soon(driver.send(BusRequest(items)))
    await Timer(3 * period, "ns")
    note("3 periods into the script")
    await Timer(period // 4, "ns")
    note("between edges")
    await RisingEdge(d.clk_i)  # type: ignore[attr-defined]
    note("rising edge")
    await FallingEdge(d.clk_i)  # type: ignore[attr-defined]
    note("falling edge")
    await NextTimeStep()
    note("next time step")
    await ReadWrite()
    note("read-write")
    await ReadOnly()
    note("read-only")
    await d.busy_o.value_change  # type: ignore[attr-defined]
    note("busy changed")
    await Timer(n // 2 * period, "ns")  # in the wait for done: a quiet stretch, due on an edge
    note("half the multiplication")
    await Timer(3 * period + period // 2, "ns")  # due on a falling edge, after a quiet stretch
    note("quiet, on a falling edge")
    await ClockCycles(d.clk_i, 5)  # type: ignore[attr-defined]
    note("five rising edges")
    await ClockCycles(d.clk_i, 3, rising=False)  # type: ignore[attr-defined]
    note("three falling edges")
    await Timer(2 * period, "ns")
    await FallingEdge(d.clk_i)  # type: ignore[attr-defined]
    note("a falling edge after a quiet stretch")
    await d.done_o.value_change  # type: ignore[attr-defined]
    note("done changed")
    await run
    note("script over")
    await Timer(7 * period, "ns")  # idle again: quiet to the next timer
    note("idle, 7 periods")
    notes += [[item.kind.value, item.time_ns, item.rdata] for item in items]
    Path(environment.PROBE_OUT.required()).write_text(json.dumps(notes, indent=1) + "\n")
