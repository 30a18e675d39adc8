"""Functional coverage of a streaming run (cocotb-coverage, mergeable XML like the bus
testbench's): how many operations were in flight when one was taken (its depth, against the
latency L: empty, low, mid, high, full), the idle cycles before an operation and the
ready-low cycles before a result (none, a few, many), a result held back while the pipeline
was full, and the operands' corner classes. Sampled once per batch from the engine's log,
never per clock."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from cocotb_coverage.coverage import CoverPoint

from montverif.verif.env.coverage import export_to, summary_of
from montverif.verif.operands import M_CLASSES, X_CLASSES, modulus_class, operand_class

DEPTHS = ["empty", "low", "mid", "high", "full"]
WAITS = ["none", "few", "many"]  # 0, 1..3, 4..15 cycles
FULL_STALL = ["stalled_full", "stalled_not_full"]


def depth_class(depth: int, latency: int) -> str:
    """An operation's in-flight depth (operations taken before it still without a result)
    against the latency: empty 0, full >= L - 1, between in thirds."""
    if depth == 0:
        return "empty"
    if depth >= max(latency - 1, 1):
        return "full"
    third = max(latency - 1, 3) / 3
    return "low" if depth < third else "mid" if depth < 2 * third else "high"


def wait_class(cycles: int) -> str:
    return "none" if cycles == 0 else "few" if cycles <= 3 else "many"


class StreamCoverage:
    """The cover points of one design's streaming runs (named below the design)."""

    def __init__(self, design: str) -> None:
        self.design = design
        self._counts: Counter[tuple[str, object]] = Counter()
        top = f"{design}.stream"

        @CoverPoint(f"{top}.depth", bins=DEPTHS)
        def depth(v: str) -> None: ...

        @CoverPoint(f"{top}.gap", bins=WAITS)
        def gap(v: str) -> None: ...

        @CoverPoint(f"{top}.hold", bins=WAITS)
        def hold(v: str) -> None: ...

        @CoverPoint(f"{top}.stall", bins=FULL_STALL)
        def stall(v: str) -> None: ...

        @CoverPoint(f"{design}.operands.x", bins=X_CLASSES)
        def x(v: str) -> None: ...

        @CoverPoint(f"{design}.operands.y", bins=X_CLASSES)
        def y(v: str) -> None: ...

        @CoverPoint(f"{design}.operands.m", bins=M_CLASSES)
        def m(v: str) -> None: ...

        self._points = {"depth": depth, "gap": gap, "hold": hold, "stall": stall, "x": x,
                        "y": y, "m": m}

    def sample(self, point: str, value: str) -> None:
        self._counts[(point, value)] += 1

    def sample_operands(self, x: int, y: int, m: int, n: int) -> None:
        self.sample("x", operand_class(x, y, m, n))
        self.sample("y", operand_class(y, x, m, n))
        self.sample("m", modulus_class(m, n))

    def flush(self) -> None:
        """The counted samples into cocotb-coverage's database: one call per distinct
        sample (the bins need one hit; a call scans every bin of its point)."""
        for point, value in self._counts:
            self._points[point](value)
        self._counts.clear()

    def summary(self) -> dict[str, dict[str, object]]:
        self.flush()
        return summary_of(self.design)

    def export(self, log_dir: Path) -> None:
        self.flush()
        export_to(self.design, log_dir)
