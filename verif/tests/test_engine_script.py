"""The fast mode's script layout (verif/bus/engine.py): entries sit at a stride of whole
bytes (the engine's EntStride), so the script is packed as machine words; the packed number
is the same as the entries shifted together one by one at that stride."""

from __future__ import annotations

import random

import pytest

from verif import regmap
from verif.bus.engine import entry_bits, entry_stride, pack_entries


def _shifted(entries: list[int], stride: int) -> int:
    script = 0
    for entry in reversed(entries):
        script = script << stride | entry
    return script


@pytest.mark.parametrize("bus_w", regmap.load().bus_widths)
def test_entries_pack_at_their_stride(bus_w):
    addr_w = regmap.load().addr_width
    bits, stride = entry_bits(addr_w, bus_w), entry_stride(addr_w, bus_w)
    assert stride >= bits and stride % 8 == 0
    assert stride // 2 < bits or stride == 8  # no wider than needed
    rng = random.Random(bus_w)
    entries = [rng.getrandbits(bits) for _ in range(37)] + [0, 1, (1 << bits) - 1]
    script = pack_entries(entries, stride)
    assert script == _shifted(entries, stride)
    assert [(script >> (k * stride)) & ((1 << stride) - 1) for k in range(len(entries))] \
        == entries


def test_stride_of_wide_entries_is_whole_64_bit_words():
    assert entry_stride(14, 64) == 128  # 84 bits: packed byte-wise, not as one struct code
    assert pack_entries([1, 2], 128) == 1 | 2 << 128
