"""The Python side of the stream harness's engine (hdl/common/mv_stream_engine.sv): one batch
of operations written into the engine's variables, the go toggled, one wake at the engine's
fin, its log read back. Python never wakes per clock: a batch of Depth operations costs two
writes of each array, one await and one read of each log array."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from montverif.spec.stream_top import ENGINE_INSTANCE, GAP_BITS
from montverif.verif.bus.handles import Handle
from montverif.verif.bus.vpi import MemorySignal, WideSignal, open_wide, read_uint

GAP_MAX = (1 << GAP_BITS) - 1  # idle or hold cycles an operation: the engine's GapW bits
INPUTS = ("tb_x", "tb_y", "tb_m", "tb_tag", "tb_gap", "tb_hold")
OUTPUTS = ("tb_acc_q", "tb_out_q", "tb_p_q", "tb_otag_q")


@dataclass(frozen=True)
class StreamOp:
    """One operation offered: its operands, its tag, the idle cycles the source waits before
    offering it and the cycles the sink holds ready low once its result is offered."""

    x: int
    y: int
    m: int
    tag: int
    gap: int = 0
    hold: int = 0


@dataclass(frozen=True)
class BatchLog:
    """What the engine logged of one batch: per operation the cycle it was taken, per result
    the cycle it was taken, its value and its tag (cycles from the go), and whether it gave
    up waiting (a hang)."""

    taken_at: tuple[int, ...]
    out_at: tuple[int, ...]
    p: tuple[int, ...]
    tags: tuple[int, ...]
    timed_out: bool


class _Array:
    """One of the engine's variables, written or read whole (in place, as VPI words or
    through cocotb)."""

    def __init__(self, handle: Handle) -> None:
        self.handle, self.width = handle, len(handle)
        self.io: MemorySignal | WideSignal | None = open_wide(handle)
        self.bytes = 4 * -(-self.width // 32)

    def write(self, value: int) -> None:
        if self.io is None:
            self.handle.value = value
        else:
            self.io.write_bytes(value.to_bytes(self.bytes, "little"))

    def read(self) -> int:
        if self.io is None:
            return read_uint(self.handle)
        return int.from_bytes(self.io.read_bytes(), "little") & ((1 << self.width) - 1)


def pack(values: Sequence[int], width: int) -> int:
    """values[k] at bits [k*width +: width] of one int."""
    out = 0
    for k in range(len(values) - 1, -1, -1):
        out = (out << width) | values[k]
    return out


def unpack(value: int, width: int, count: int) -> tuple[int, ...]:
    mask = (1 << width) - 1
    return tuple((value >> (k * width)) & mask for k in range(count))


class StreamEngine:
    """Runs batches of operations through the engine of the top `top` (N-bit operands; its
    depth and tag width read from the engine's variables)."""

    def __init__(self, top: Handle, n: int) -> None:
        eng = getattr(top, ENGINE_INSTANCE)
        self.top, self.n = top, n
        self.arrays = {name: _Array(getattr(eng, name)) for name in (*INPUTS, *OUTPUTS)}
        self.depth = self.arrays["tb_x"].width // n
        self.tag_w = self.arrays["tb_tag"].width // self.depth
        self.go = 0
        top.tb_go_i.value = 0

    async def run(self, ops: Sequence[StreamOp], timeout_cycles: int) -> BatchLog:
        """Offer `ops` (at most depth), take their results; the log at the engine's fin."""
        assert 0 < len(ops) <= self.depth, (len(ops), self.depth)
        n, tag_w, a = self.n, self.tag_w, self.arrays
        a["tb_x"].write(pack([o.x for o in ops], n))
        a["tb_y"].write(pack([o.y for o in ops], n))
        a["tb_m"].write(pack([o.m for o in ops], n))
        a["tb_tag"].write(pack([o.tag for o in ops], tag_w))
        a["tb_gap"].write(pack([o.gap for o in ops], GAP_BITS))
        a["tb_hold"].write(pack([o.hold for o in ops], GAP_BITS))
        self.top.tb_len_i.value = len(ops)
        self.top.tb_timeout_i.value = timeout_cycles
        self.go ^= 1
        self.top.tb_go_i.value = self.go
        await self.top.tb_fin_o.value_change
        count = len(ops)
        taken = read_uint(self.top.tb_taken_o)
        results = read_uint(self.top.tb_results_o)
        return BatchLog(unpack(a["tb_acc_q"].read(), 32, taken),
                        unpack(a["tb_out_q"].read(), 32, results),
                        unpack(a["tb_p_q"].read(), n, results),
                        unpack(a["tb_otag_q"].read(), tag_w, results),
                        bool(read_uint(self.top.tb_timeout_o)) or results < count)
