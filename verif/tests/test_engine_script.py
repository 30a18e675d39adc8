"""The fast mode's script layout (verif/bus/engine_layout.py, mv_bus_engine.sv): an entry
is two machine-word slots (EntStride = 2 * max(BusW, 32) bits), the write data in the low one
and the kind, address and idle cycles in the high one, so Python packs a script as one array
of words; the packed number is the same as the entries' fields shifted into place one by one."""

from __future__ import annotations

import random

import pytest

from montverif.spec import regmap
from montverif.verif.bus.engine import KIND_CODE, EngineBusDriver, pack_entries
from montverif.verif.bus.engine_layout import IDLE_W, EngineError, entry_stride, meta_bits
from montverif.verif.bus.item import BusItem, Kind

ADDR_W = regmap.load().addr_width


def _fields(script: int, k: int, stride: int, bus_w: int) -> tuple[int, int, int, int]:
    """Entry k's (kind, addr, wdata, idle), cut out as the engine's functions do."""
    entry = script >> (k * stride)
    slot = stride // 2
    meta = entry >> slot
    return (meta & 3, (meta >> 2) & ((1 << ADDR_W) - 1), entry & ((1 << bus_w) - 1),
            (meta >> (2 + ADDR_W)) & ((1 << IDLE_W) - 1))


def _driver(bus_w: int, idle_max: int = 0) -> EngineBusDriver:
    drv = EngineBusDriver.__new__(EngineBusDriver)  # only what _words uses
    drv.idle_max, drv.bus_w, drv.addr_w = idle_max, bus_w, ADDR_W
    drv.rng = random.Random(bus_w)
    drv._plain = {}
    return drv


def test_entries_made_once_keep_no_data():
    """Entries of the same (kind, address, count) are made once: a write's data never shows
    in a later write's or read's entries, and the caller's list is not the one kept."""
    drv = _driver(32)
    addr = regmap.load().addr("X")
    first = drv._words(BusItem(Kind.WRITE, addr, [1, 2]))
    second = drv._words(BusItem(Kind.WRITE, addr, [3, 4]))
    read = drv._words(BusItem(Kind.READ, addr, count=2))
    assert first[0::2] == [1, 2] and second[0::2] == [3, 4]
    assert first[1::2] == second[1::2]
    assert read[0::2] == [0, 0] and read[1::2] != first[1::2]  # another kind
    words: list[int] = []
    words += drv._words(BusItem(Kind.READ, addr, count=2))
    words[0] = 99  # the script being built
    assert drv._words(BusItem(Kind.READ, addr, count=2))[0] == 0


@pytest.mark.parametrize("bus_w", regmap.load().bus_widths)
def test_items_pack_into_their_fields(bus_w):
    stride = entry_stride(ADDR_W, bus_w)
    assert stride == 2 * max(bus_w, 32) and meta_bits(ADDR_W) <= stride // 2
    rng = random.Random(bus_w)
    data = [rng.getrandbits(bus_w) for _ in range(5)] + [(1 << bus_w) - 1]
    items = [BusItem(Kind.WRITE, 0x1234, data), BusItem(Kind.WAIT_DONE),
             BusItem(Kind.READ, 0x3FF0 & ((1 << ADDR_W) - 1), count=3)]
    drv = _driver(bus_w)
    words = [w for item in items for w in drv._words(item)]
    script = pack_entries(words, stride)
    expected = [(KIND_CODE[Kind.WRITE], 0x1234 + k, d, 0) for k, d in enumerate(data)]
    expected += [(KIND_CODE[Kind.WAIT_DONE], 0, 0, 0)]
    expected += [(KIND_CODE[Kind.READ], items[2].addr + k, 0, 0) for k in range(3)]
    assert [_fields(script, k, stride, bus_w) for k in range(len(expected))] == expected
    assert script >> (len(expected) * stride) == 0


def test_idle_cycles_sit_above_the_address():
    drv = _driver(32, idle_max=20)
    item = BusItem(Kind.WRITE, 0x40, [7, 8, 9, 10, 11, 12, 13, 14])
    script = pack_entries(drv._words(item), 64)
    idles = [_fields(script, k, 64, 32)[3] for k in range(8)]
    rng = random.Random(32)  # the driver's stream
    draws = [min(rng.randint(0, 20), (1 << IDLE_W) - 1) for _ in range(8)]
    assert idles == draws and any(idles)
    assert [_fields(script, k, 64, 32)[1:3] for k in range(8)] == [
        (0x40 + k, 7 + k) for k in range(8)]
    item.tight = True  # no idle cycles, the same draws made
    assert [_fields(pack_entries(drv._words(item), 64), k, 64, 32)[3] for k in range(8)] \
        == [0] * 8


def test_a_layout_that_does_not_fit_is_refused():
    with pytest.raises(EngineError, match="no engine entry layout"):
        entry_stride(40, 8)  # kind, address and idle would not fit one 32-bit slot
