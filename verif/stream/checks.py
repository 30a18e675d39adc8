"""The stream harness's scoreboard: every batch's log checked whole, once per batch.

- Function: each result against the bit-accurate model and gmpy2, in the order the
  operations were taken (or matched by tag, `order = "tagged"`); a tagged core's tag must
  come back with its result.
- Latency: an operation none of whose cycles in flight saw the sink's ready low takes exactly
  the descriptor's latency L; one that was held back takes between L and L plus the cycles it
  was held (a core may absorb a stall).
- Initiation interval: the next operation is taken within max(interval, its idle cycles + 1)
  clocks of the last one unless the sink held the pipeline back meanwhile.
- A batch whose results stop coming is a hang, named by its first operation without one.

Every operation goes to txns.jsonl (test, index within the test, operands, tag, the cycles
it was taken and its result was, the latency, P); every mismatch is one MISMATCH line
naming the test and the operation.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from montverif.models.registry import AlgoInfo, matches_reference
from montverif.verif.stream.coverage import StreamCoverage, depth_class, wait_class
from montverif.verif.stream.engine import BatchLog, StreamOp

MAX_ERRORS = 20  # mismatches kept (the first is the run's first error)


@dataclass
class StreamChecker:
    algo: AlgoInfo
    n: int
    params: dict[str, int]
    latency: int
    interval: int
    tagged_order: bool
    coverage: StreamCoverage
    log: TextIO
    errors: list[str] = field(default_factory=list)
    checked: int = 0
    hung: bool = False

    def __post_init__(self) -> None:
        self.model = self.algo.model(self.params)

    def fail(self, test: str, index: int, what: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(f"{test} op {index}: {what}")

    def check(self, test: str, first: int, ops: Sequence[StreamOp], log: BatchLog) -> None:
        """One batch: operation k of it is operation first + k of the test."""
        order = self._results_order(test, first, ops, log)
        stalls = [(log.out_at[j] - ops[order[j]].hold, log.out_at[j])
                  for j in range(len(log.out_at)) if ops[order[j]].hold]
        done = {k: j for j, k in enumerate(order)}
        for k, op in enumerate(ops):
            index = first + k
            self.coverage.sample_operands(op.x, op.y, op.m, self.n)
            self.coverage.sample("gap", wait_class(op.gap))
            self.coverage.sample("hold", wait_class(op.hold))
            if k not in done:
                if log.timed_out and not self.hung:
                    self.hung = True
                    where = "its operands were taken" if k < len(log.taken_at) else \
                        "its operands were never taken"
                    self.fail(test, index, f"hang: no result came ({where}; "
                                           f"{len(log.p)} of {len(ops)} results in)")
                self._write(test, index, op, log, k, None, error="hang")
                continue
            j = done[k]
            p = log.p[j]
            self._check_value(test, index, op, p)
            if k < len(log.taken_at):
                self._check_timing(test, index, op, log.taken_at[k], log.out_at[j], stalls)
                self._sample_depth(k, log, stalls)
            self._write(test, index, op, log, k, j)
            self.checked += 1
        self._sample_stalls(log, stalls)
        for k in range(len(ops) - 1):
            if k + 1 < len(log.taken_at):
                self._check_interval(test, first + k + 1, ops[k + 1], log.taken_at[k],
                                     log.taken_at[k + 1], stalls)
        self.log.flush()

    def _results_order(self, test: str, first: int, ops: Sequence[StreamOp],
                       log: BatchLog) -> list[int]:
        """For each result, the operation it belongs to: in order, or by tag."""
        if not self.tagged_order:
            for j, tag in enumerate(log.tags):
                if j < len(ops) and tag != ops[j].tag:
                    self.fail(test, first + j, f"result {j} came with tag {tag:#x}, "
                                               f"expected {ops[j].tag:#x} (in order)")
            return list(range(len(log.p)))
        waiting = {op.tag: k for k, op in enumerate(ops)}
        order = []
        for j, tag in enumerate(log.tags):
            if tag not in waiting:
                self.fail(test, first + j, f"result {j} came with tag {tag:#x}, which no "
                                           "operation in flight has")
                order.append(j)
            else:
                order.append(waiting.pop(tag))
        return order

    def _check_value(self, test: str, index: int, op: StreamOp, p: int) -> None:
        expected = self.model(op.x, op.y, op.m, self.n).p
        if p != expected:
            self.fail(test, index, f"P = {p:#x}, model expects {expected:#x} (x={op.x:#x}, "
                                   f"y={op.y:#x}, m={op.m:#x})")
        elif not matches_reference(self.algo, p, op.x, op.y, op.m, self.n, **self.params):
            self.fail(test, index, f"P = {p:#x} is no Montgomery product of x={op.x:#x}, "
                                   f"y={op.y:#x}, m={op.m:#x} (gmpy2)")

    def _check_timing(self, test: str, index: int, op: StreamOp, taken: int, out: int,
                      stalls: list[tuple[int, int]]) -> None:
        held = sum(max(0, min(b, out) - max(a, taken)) for a, b in stalls)
        latency = out - taken
        if held == 0 and latency != self.latency:
            self.fail(test, index, f"latency {latency} cycles, the descriptor's is "
                                   f"{self.latency} (nothing held it back)")
        elif not self.latency <= latency <= self.latency + held:
            self.fail(test, index, f"latency {latency} cycles, outside {self.latency}.."
                                   f"{self.latency + held} (held back {held} cycles)")

    def _check_interval(self, test: str, index: int, op: StreamOp, before: int, taken: int,
                        stalls: list[tuple[int, int]]) -> None:
        offered = before + 1 + op.gap
        bound = max(self.interval, op.gap + 1)
        held = any(min(b, taken) > max(a, offered) for a, b in stalls)
        if taken - before > bound and not held:
            self.fail(test, index, f"taken {taken - before} cycles after the one before, "
                                   f"with nothing held back: the interval is {self.interval}"
                                   f" (+ {op.gap} idle)")

    def _sample_depth(self, k: int, log: BatchLog, stalls: list[tuple[int, int]]) -> None:
        # the operations taken before it whose results were not out by then (the results
        # come out in time order: a bisection, not a walk of the batch)
        taken = log.taken_at[k]
        depth = k - bisect.bisect_right(log.out_at, taken, 0, min(k, len(log.out_at)))
        self.coverage.sample("depth", depth_class(depth, self.latency))

    def _sample_stalls(self, log: BatchLog, stalls: list[tuple[int, int]]) -> None:
        """Each time the sink held a result back: was the pipeline full (as many operations
        in flight as the latency holds) when it began?"""
        for a, _ in stalls:
            depth = sum(1 for k, t in enumerate(log.taken_at)
                        if t < a and (k >= len(log.out_at) or log.out_at[k] >= a))
            full = depth_class(depth, self.latency) == "full"
            self.coverage.sample("stall", "stalled_full" if full else "stalled_not_full")

    def _write(self, test: str, index: int, op: StreamOp, log: BatchLog, k: int,
               j: int | None, error: str = "") -> None:
        """Operation k of the batch (index of the test), its result j."""
        parts = [f'"test": "{test}"', f'"op": {index}', f'"x": "{op.x:#x}"',
                 f'"y": "{op.y:#x}"', f'"m": "{op.m:#x}"', f'"tag": {op.tag}',
                 f'"gap": {op.gap}', f'"hold": {op.hold}']
        if k < len(log.taken_at):
            parts.append(f'"taken_cycle": {log.taken_at[k]}')
        if error:
            parts.append(f'"error": "{error}"')
        elif j is not None:
            parts += [f'"p": "{log.p[j]:#x}"', f'"out_cycle": {log.out_at[j]}']
            if k < len(log.taken_at):  # clocks from taken to out, stalls included
                parts.append(f'"latency": {log.out_at[j] - log.taken_at[k]}')
        self.log.write("{" + ", ".join(parts) + "}\n")

