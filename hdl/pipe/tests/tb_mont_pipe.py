"""cocotb tests of mont_pipe (hdl/pipe/mont_pipe.sv) on its own, without the project's harness.

The streams are driven and watched clock by clock: the inputs change on the falling edge and
the handshake is read once it has settled (ReadOnly), so every clock's transfers are known
before the rising edge that makes them. Every result is checked in order, by its tag, against
the model (models/mont_pipe.py) and gmpy2; each operation's latency against the model's
L = ceil(N/K) + 2 plus the stalled clocks it waited; the output held while stalled; in_ready_o
against the global-stall rule. Loaded by cocotb (test_mont_pipe_rtl.py runs it), not collected
by pytest. The build's parameters come as plusargs: +pipe_n, +pipe_k, +pipe_tag_w, +pipe_ops
(operations of the random test).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any

import cocotb
import gmpy2
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly

from montverif.models.mont_pipe import digits, latency, mont_pipe

CLOCK_NS = 10
RESET_CYCLES = 3


def _plusarg(name: str, default: int) -> int:
    value = cocotb.plusargs.get(name, default)
    return int(value) if not isinstance(value, bool) else default


@dataclass
class Op:
    """One operation: its operands and tag, the expected P, the clock it was accepted in and
    the clock its result was first valid in (0: not yet)."""

    tag: int
    x: int
    y: int
    m: int
    p: int
    accepted: int = 0
    first_valid: int = 0


@dataclass
class Traffic:
    """How the environment behaves: the chance of an idle input clock, of a clock with
    out_ready_i low, and of starting a stall burst (out_ready_i low for `burst` clocks)."""

    idle: float = 0.0
    stall: float = 0.0
    burst_start: float = 0.0
    burst: int = 0


class PipeBench:
    """The core's two streams, a reference and the checks of every clock."""

    def __init__(self, dut: Any) -> None:
        self.dut = dut
        self.n = _plusarg("pipe_n", 16)
        self.k = _plusarg("pipe_k", 4)
        self.tag_w = _plusarg("pipe_tag_w", 8)
        self.lat = latency(self.n, self.k)
        self.rng = random.Random(f"{cocotb.RANDOM_SEED}:mont_pipe")
        self.rinv: dict[int, int] = {}
        self.cycle = 0
        self.stalls = [0]  # stalls[c]: clocks with out_valid_o && !out_ready_i in 1..c
        self.made = 0
        self.done: list[Op] = []
        assert len(dut.p_o) == self.n and len(dut.tag_i) == self.tag_w, \
            f"build and plusargs disagree: p_o {len(dut.p_o)} bits, tag {len(dut.tag_i)} bits"

    async def reset(self) -> None:
        dut = self.dut
        Clock(dut.clk_i, CLOCK_NS, unit="ns", impl="gpi").start()
        dut.rst_ni.value = 0
        dut.in_valid_i.value = 0
        dut.out_ready_i.value = 0
        for port in (dut.x_i, dut.y_i, dut.m_i, dut.tag_i):
            port.value = 0
        await ClockCycles(dut.clk_i, RESET_CYCLES)
        dut.rst_ni.value = 1

    def operands(self) -> tuple[int, int, int]:
        """X < 2^N, Y < M, M odd: mostly full-width, with the domain's edges mixed in."""
        n, rng = self.n, self.rng
        pick = rng.random()
        if pick < 0.1:
            m = rng.choice([1, 3, 2**n - 1, 2 ** (n - 1) + 1])
        elif pick < 0.25:
            m = rng.getrandbits(rng.randrange(2, n + 1)) | 1
        else:
            m = rng.getrandbits(n) | 1 | 1 << (n - 1)
        x = rng.choice([0, 2**n - 1, m - 1]) if rng.random() < 0.15 else rng.getrandbits(n)
        y = rng.choice([0, m - 1]) if rng.random() < 0.15 else rng.randrange(m)
        return x, y, m

    def expected(self, x: int, y: int, m: int) -> int:
        """The model's P, held to gmpy2's X*Y*2^(-K*D) mod M."""
        p = mont_pipe(x, y, m, self.n, K=self.k).p
        if m not in self.rinv:
            self.rinv[m] = int(gmpy2.invert(gmpy2.mpz(2) ** (self.k * digits(self.n, self.k)),
                                            m)) if m > 1 else 0
        assert p == x * y * self.rinv[m] % m, f"model disagrees with gmpy2: {x=} {y=} {m=}"
        return p

    def new_op(self) -> Op:
        x, y, m = self.operands()
        op = Op(self.made % (1 << self.tag_w), x, y, m, self.expected(x, y, m))
        self.made += 1
        return op

    def drive_input(self, op: Op | None) -> None:
        """The input stream: the operation offered (held until accepted), else valid low and
        random data (which the core must ignore)."""
        dut, n = self.dut, self.n
        dut.in_valid_i.value = op is not None
        if op is None:
            dut.x_i.value, dut.y_i.value = self.rng.getrandbits(n), self.rng.getrandbits(n)
            dut.m_i.value = self.rng.getrandbits(n)
            dut.tag_i.value = self.rng.getrandbits(self.tag_w)
        else:
            dut.x_i.value, dut.y_i.value, dut.m_i.value, dut.tag_i.value = \
                op.x, op.y, op.m, op.tag

    async def run(self, ops: int, traffic: Traffic, fill: int = 0) -> None:
        """Offer `ops` operations and take every result. `fill`: out_ready_i low for the first
        `fill` clocks (the pipeline fills up)."""
        dut, rng = self.dut, self.rng
        offered: Op | None = None
        waiting: deque[Op] = deque()  # accepted, result not yet taken
        sent = 0
        burst = 0
        held: tuple[int, int] | None = None  # (p, tag) of a result stalled last clock
        limit = self.cycle + (ops + self.lat) * 20 + fill + 1000
        while sent < ops or offered is not None or waiting:
            await FallingEdge(dut.clk_i)
            self.cycle += 1
            assert self.cycle < limit, f"watchdog: {len(waiting)} results missing"
            if offered is None and sent < ops and rng.random() >= traffic.idle:
                offered = self.new_op()
                sent += 1
            self.drive_input(offered)
            if burst == 0 and rng.random() < traffic.burst_start:
                burst = traffic.burst
            ready = not (burst or fill or rng.random() < traffic.stall)
            burst, fill = max(0, burst - 1), max(0, fill - 1)
            dut.out_ready_i.value = ready
            await ReadOnly()
            out_valid = bool(dut.out_valid_o.value)
            in_ready = bool(dut.in_ready_o.value)
            assert in_ready == (not out_valid or ready), \
                f"clock {self.cycle}: in_ready_o {in_ready} against the global stall"
            out = (int(dut.p_o.value), int(dut.tag_o.value)) if out_valid else None
            if held is not None:
                assert out == held, \
                    f"clock {self.cycle}: output changed while stalled: {held} -> {out}"
            if out is not None:
                self.take(waiting, out, ready)
            stalled = out_valid and not ready
            self.stalls.append(self.stalls[-1] + stalled)
            held = out if stalled else None
            if offered is not None and in_ready:
                offered.accepted = self.cycle
                waiting.append(offered)
                offered = None

    def take(self, waiting: deque[Op], out: tuple[int, int], ready: bool) -> None:
        """A valid result on the output this clock: it is the oldest operation's, with its
        tag, P and latency (L plus the stalled clocks since it was accepted)."""
        assert waiting, f"clock {self.cycle}: out_valid_o with no operation in flight"
        op, (p, tag) = waiting[0], out
        if not op.first_valid:
            op.first_valid = self.cycle
            stalled = self.stalls[self.cycle - 1] - self.stalls[op.accepted]
            assert op.first_valid - op.accepted == self.lat + stalled, (
                f"LATENCY tag {op.tag}: accepted in clock {op.accepted}, valid in "
                f"{op.first_valid}, expected L = {self.lat} + {stalled} stalled clocks")
        assert tag == op.tag, f"ORDER clock {self.cycle}: tag {tag}, expected {op.tag}"
        assert p == op.p, (f"MISMATCH tag {op.tag}: P = {p:#x}, expected {op.p:#x} "
                           f"(X = {op.x:#x}, Y = {op.y:#x}, M = {op.m:#x}, N = {self.n}, "
                           f"K = {self.k})")
        if ready:
            self.done.append(waiting.popleft())


@cocotb.test()
async def full_rate(dut: Any) -> None:
    """in_valid_i and out_ready_i always high: one operation accepted and one result given
    every clock (initiation interval 1), each exactly L clocks after its acceptance."""
    tb = PipeBench(dut)
    await tb.reset()
    ops = 3 * tb.lat + 16
    await tb.run(ops, Traffic())
    accepted = [op.accepted for op in tb.done]
    valid = [op.first_valid for op in tb.done]
    assert len(tb.done) == ops
    assert accepted == list(range(accepted[0], accepted[0] + ops)), "an input clock was lost"
    assert valid == [a + tb.lat for a in accepted], "a result was late or early"


@cocotb.test()
async def fill_and_drain(dut: Any) -> None:
    """out_ready_i low while operations keep coming: the pipeline takes exactly L of them (one
    in every stage) and then holds in_ready_o low; released, it gives them back one a clock."""
    tb = PipeBench(dut)
    await tb.reset()
    fill = 3 * tb.lat
    await tb.run(tb.lat + 8, Traffic(), fill=fill)
    first = tb.done[0].accepted
    early = [op for op in tb.done if op.accepted < first + fill]
    assert len(early) == tb.lat, f"{len(early)} operations in a pipeline of {tb.lat} stages"
    assert [op.accepted for op in early] == list(range(first, first + tb.lat))
    # the first result waits at the output; the others follow it one a clock once released
    assert [op.first_valid for op in early] == \
        [first + tb.lat] + [first + fill + j for j in range(1, tb.lat)]


@cocotb.test()
async def random_traffic(dut: Any) -> None:
    """Random idle input clocks, random back-pressure and stall bursts longer than the
    pipeline, then a stretch with little of either; every result in order with its tag and
    latency."""
    tb = PipeBench(dut)
    await tb.reset()
    ops = _plusarg("pipe_ops", 300)
    await tb.run(ops, Traffic(idle=0.3, stall=0.3, burst_start=0.02, burst=tb.lat + 3))
    await tb.run(ops // 4, Traffic(idle=0.05, stall=0.05))
    assert len(tb.done) == ops + ops // 4
    tags = [op.tag for op in tb.done]
    assert tags == [i % (1 << tb.tag_w) for i in range(len(tags))]
