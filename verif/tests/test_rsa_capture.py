"""The RSA fast mode's reader of the product record and its time order (without a
simulator: the entry layout of verif/hdl/mv_product_log.sv written by hand)."""

from __future__ import annotations

import pytest

from montverif.verif.bus.engine_layout import EngineError, ProductTap
from montverif.verif.bus.item import Burst
from montverif.verif.env.rsa_capture import ProductLog, TimeOrder, wipe_values
from montverif.verif.env.rsa_items import MultTxn, WipeObservation

TAP = ProductTap("u_core", ("ma", "ms"), ("u_core.a0_q", "u_core.s_q", "u_loader.e_q"), 40)
HALF = 5


def _entry(t0: int, t1: int, k: int, values: tuple[int, ...]) -> bytes:
    head = b"".join(v.to_bytes(8, "little") for v in (t0, t1, k))
    return head + b"".join(v.to_bytes(TAP.slot // 8, "little") for v in values)


class _Memory:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read_bytes(self, count: int | None = None) -> bytes:
        return self.data[:count]


def _log(entries: dict[int, bytes], count: int, seen: int = 0,
         tap: ProductTap = TAP) -> ProductLog:
    """A ProductLog over a hand-made record: `entries` by ring position, `count` recorded."""
    store = bytearray(tap.depth * tap.entry_bytes)
    for pos, data in entries.items():
        store[pos * tap.entry_bytes:(pos + 1) * tap.entry_bytes] = data
    log = ProductLog.__new__(ProductLog)
    log.tap, log.half, log.seen = tap, HALF, seen
    log.io = _Memory(bytes(store))  # type: ignore[assignment]
    log.count = lambda: count
    return log


def test_entries_decode_to_products_with_rising_edge_times() -> None:
    assert TAP.slot == 64 and TAP.entry_bytes == 24 + 6 * 8
    values = (0x11, 0x22, 0xFB, 0x33, 1 << 40, 0x7)  # x, y, m, p, s, c (s uses bit 40)
    log = _log({0: _entry(105, 455, 1, values), 1: _entry(115, 465, 0, values[::-1])}, 2)
    a, b = log.drain()
    assert (a.mult, a.x, a.y, a.m, a.p, a.s, a.c) == ("S", *values)
    assert (a.start_ns, a.end_ns) == (100, 450)
    assert (b.mult, b.x, b.c) == ("A", 0x7, 0x11)
    assert log.drain() == []  # nothing new


def test_one_multiplier_s_products_are_its_own() -> None:
    """A core with one multiplier (rsa_core Units = 1): its products, A*S and S*S in turn,
    all come from index 0 and go to the scoreboard as that multiplier's (U), never as A's."""
    tap = ProductTap("u_core", ("g_one.mu",), TAP.wipe, 40)
    log = _log({0: _entry(105, 455, 0, (1,) * 6), 1: _entry(465, 815, 0, (2,) * 6)}, 2,
               tap=tap)
    assert [(p.mult, p.x, p.start_ns) for p in log.drain()] == [("U", 1, 100), ("U", 2, 460)]


def test_the_ring_wraps_and_more_than_it_keeps_is_refused() -> None:
    last = TAP.depth - 1
    log = _log({last: _entry(5, 15, 0, (1,) * 6), 0: _entry(25, 35, 1, (2,) * 6)},
               count=TAP.depth + 1, seen=last)
    assert [(p.mult, p.x) for p in log.drain()] == [("A", 1), ("S", 2)]
    with pytest.raises(EngineError, match="between two reads"):
        _log({}, count=TAP.depth + 1).drain()


def test_wipe_registers_unpack_in_descriptor_order() -> None:
    packed = 3 | (0 << TAP.slot) | (9 << (2 * TAP.slot))
    assert wipe_values(TAP, packed) == {"u_core.a0_q": 3, "u_core.s_q": 0, "u_loader.e_q": 9}


def test_a_script_is_published_in_time_order() -> None:
    """START's burst, the products, done, then the reads: the pin-mode order, however the
    engine handed them over; consecutive bursts stay one publication."""
    prods = [MultTxn("A", 1, 1, 3, 1, 1, 0, 60, 100), MultTxn("S", 1, 1, 3, 1, 1, 0, 60, 100),
             MultTxn("A", 1, 1, 3, 1, 1, 0, 110, 300)]
    log = ProductLog.__new__(ProductLog)
    log.drain = lambda: list(prods)  # type: ignore[method-assign]
    out: list[object] = []
    order = TimeOrder(log, TAP, out.append, out.append, out.append)
    start = Burst(True, 0x10, [1], [], [4], 10, 10)  # acked at 50
    reads = [Burst(False, 0x20, [], [7], [40], 10, 10), Burst(False, 0x21, [], [8], [41], 10, 10)]
    order.on_bursts([start] + reads)
    order.on_done(350, 0)
    order.on_script_end()
    assert out[0] == [start]
    assert out[1:4] == prods
    assert isinstance(out[4], WipeObservation) and out[4].time_ns == 350
    assert out[5] == reads
    assert len(out) == 6
    out.clear()
    prods.clear()
    order.on_script_end()  # nothing held over
    assert out == []
