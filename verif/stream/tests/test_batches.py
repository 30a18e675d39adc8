"""run_batches: the same batches run and are checked whether the checks run inline or on a
worker thread; a mismatch ends the test after the batch that follows its own, a hang after
its own; a check's exception reaches the test."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Sequence

import pytest

from montverif.verif.stream import sequences
from montverif.verif.stream.engine import BatchLog, StreamOp
from montverif.verif.tb_stream import run_batches


class FakeEngine:
    """Returns every batch's results at once; batch `hang` (if any) times out."""

    tag_w = 8

    def __init__(self, hang: int = -1) -> None:
        self.hang, self.ran = hang, 0

    async def run(self, ops: Sequence[StreamOp], timeout_cycles: int) -> BatchLog:
        index, self.ran = self.ran, self.ran + 1
        count = len(ops) if index != self.hang else 0
        return BatchLog(tuple(range(len(ops))), tuple(range(count)),
                        tuple(o.x for o in ops[:count]), tuple(o.tag for o in ops[:count]),
                        index == self.hang)


def drive(thread: bool, bad: int = -1, hang: int = -1, raise_at: int = -1
          ) -> tuple[list[int], int, list[str]]:
    """Six batches of 4 operations; batch `bad`'s check finds a mismatch, batch `raise_at`'s
    raises. Returns (the first operation of each batch checked, batches run, the threads
    the checks ran on)."""
    engine, errors = FakeEngine(hang), []
    checked: list[int] = []
    threads: list[str] = []

    def check(first: int, batch: list[StreamOp], result: BatchLog) -> None:
        threads.append(threading.current_thread().name)
        if first // 4 == raise_at:
            raise RuntimeError("model failed")
        checked.append(first)
        if first // 4 == bad:
            errors.append(f"op {first}")

    batches = ([(k, 1, 3)] * 4 for k in range(6))
    asyncio.run(run_batches(engine, batches, sequences.full_rate,  # type: ignore[arg-type]
                            random.Random(1), check, lambda: bool(errors), thread, 100,
                            lambda first: None))
    return checked, engine.ran, threads


@pytest.mark.parametrize("thread", [False, True])
def test_every_batch_is_checked_in_order(thread: bool) -> None:
    checked, ran, threads = drive(thread)
    assert checked == [0, 4, 8, 12, 16, 20] and ran == 6
    on_thread = [t.startswith("stream-checks") for t in threads]
    assert on_thread == [thread] * 6


@pytest.mark.parametrize("thread", [False, True])
def test_a_mismatch_ends_the_test_after_the_next_batch(thread: bool) -> None:
    assert drive(thread, bad=2)[:2] == ([0, 4, 8, 12], 4)


@pytest.mark.parametrize("thread", [False, True])
def test_a_hang_ends_the_test_after_its_own_batch(thread: bool) -> None:
    assert drive(thread, hang=1)[:2] == ([0, 4], 2)


@pytest.mark.parametrize("thread", [False, True])
def test_a_check_that_raises_stops_the_test(thread: bool) -> None:
    with pytest.raises(RuntimeError, match="model failed"):
        drive(thread, raise_at=3)
