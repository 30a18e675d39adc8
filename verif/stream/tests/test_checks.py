"""The stream harness's checks, on logs made here: a right log passes, and each kind of wrong
one (a value, a tag, a latency, an interval, a hang) is one mismatch naming its test and
operation; the coverage classes of depth and waiting."""

from __future__ import annotations

import io

import pytest

from montverif.models.mont_pipe import latency as pipe_latency
from montverif.models.mont_pipe import mont_pipe
from montverif.models.registry import get_algo
from montverif.verif.stream.checks import StreamChecker
from montverif.verif.stream.coverage import StreamCoverage, depth_class, wait_class
from montverif.verif.stream.engine import BatchLog, StreamOp, pack, unpack

N, K = 16, 4
L = pipe_latency(N, K)  # 6
OPS = [StreamOp(0x5842, 0x6928, 0x94E3, 0), StreamOp(0xADE1, 0x720E, 0x8389, 1),
       StreamOp(0x15FF, 0x6770, 0xE547, 2, gap=2), StreamOp(0x1234, 0x0042, 0xFFF1, 3)]


def right_log(ops: list[StreamOp]) -> BatchLog:
    """What a pipeline of latency L at one operation a clock logs for `ops`, nothing held."""
    taken, t = [], 0
    for k, op in enumerate(ops):
        t = t + 1 + op.gap if k else op.gap
        taken.append(t)
    return BatchLog(tuple(taken), tuple(t + L for t in taken),
                    tuple(mont_pipe(o.x, o.y, o.m, N, K).p for o in ops),
                    tuple(o.tag for o in ops), False)


def checker() -> StreamChecker:
    return StreamChecker(get_algo("mont_pipe"), N, {"K": K}, L, 1, False,
                         StreamCoverage("mont_pipe_checks"), io.StringIO())


def test_a_right_log_passes_and_is_logged() -> None:
    c = checker()
    c.check("T", 10, OPS, right_log(OPS))
    assert c.errors == [] and c.checked == len(OPS)
    lines = c.log.getvalue().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 4 and '"test": "T", "op": 12' in lines[2] and f'"latency": {L}' in lines[2]


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda g: g.__class__(g.taken_at, g.out_at, (g.p[0], g.p[1] ^ 1, *g.p[2:]), g.tags,
                           False), "T op 11: P = "),
    (lambda g: g.__class__(g.taken_at, g.out_at, g.p, (0, 2, 1, 3), False),
     "T op 11: result 1 came with tag 0x2, expected 0x1"),
    (lambda g: g.__class__(g.taken_at, (*g.out_at[:3], g.out_at[3] + 1), g.p, g.tags, False),
     f"T op 13: latency {L + 1} cycles, the descriptor's is {L}"),
    (lambda g: g.__class__((*g.taken_at[:3], g.taken_at[3] + 2),
                           (*g.out_at[:3], g.out_at[3] + 2), g.p, g.tags, False),
     "T op 13: taken 3 cycles after the one before, with nothing held back"),
    (lambda g: g.__class__(g.taken_at, g.out_at[:2], g.p[:2], g.tags[:2], True),
     "T op 12: hang: no result came (its operands were taken; 2 of 4 results in)"),
])
def test_each_wrong_log_is_one_mismatch_naming_its_operation(edit, needle: str) -> None:
    c = checker()
    c.check("T", 10, OPS, edit(right_log(OPS)))
    assert c.errors and c.errors[0].startswith(needle), c.errors


def test_a_held_result_may_delay_what_is_in_flight() -> None:
    held = [OPS[0], StreamOp(OPS[1].x, OPS[1].y, OPS[1].m, 1, hold=3), *OPS[2:]]
    log = right_log(held)
    # result 1 waits 3 cycles for ready; a global stall delays every result after it too
    out = (log.out_at[0], log.out_at[1] + 3, log.out_at[2] + 3, log.out_at[3] + 3)
    taken = (*log.taken_at[:3], log.taken_at[3] + 3)  # nothing taken while stalled
    c = checker()
    c.check("T", 0, held, BatchLog(log.taken_at[:3] + taken[3:], out, log.p, log.tags, False))
    assert c.errors == []
    late = (out[0], out[1], out[2], out[3] + 4)  # more than it was held: wrong
    c.check("T", 0, held, BatchLog(taken, late, log.p, log.tags, False))
    assert any("outside" in e for e in c.errors), c.errors


def test_depth_and_wait_classes() -> None:
    assert [depth_class(d, 8) for d in (0, 1, 3, 5, 7, 9)] == \
        ["empty", "low", "mid", "high", "full", "full"]
    assert [wait_class(c) for c in (0, 1, 3, 4, 15)] == ["none", "few", "few", "many", "many"]


def test_packing_is_little_endian_by_entry() -> None:
    assert pack([1, 2, 3], 4) == 0x321
    assert unpack(0x321, 4, 3) == (1, 2, 3)
