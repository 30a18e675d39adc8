"""The register map: one JSON source, generated RTL package and docs kept in step."""

from __future__ import annotations

import random
import re

import pytest

from montverif.host.paths import ROOT
from montverif.spec import generate, regmap


def test_generated_files_are_current():
    assert generate.stale() == [], "run `montverif generate`"


def test_rtl_package_matches_json():
    rm = regmap.load()
    sv = generate.SV_PATH.read_text()
    for region in rm.regions.values():
        camel = "".join(p.capitalize() for p in region.name.lower().split("_"))
        assert re.search(rf"Region{camel} = {rm.region_width}'d{region.code};", sv), region.name
    for name, code in rm.errors.items():
        camel = "".join(p.capitalize() for p in name.lower().split("_"))
        assert re.search(rf"{camel} = \d+'d{code};", sv), name
    assert f"AddrW = {rm.addr_width};" in sv


def test_loader_rtl_uses_only_package_constants():
    """No region code is typed into the loader: it must read them from the package."""
    rtl = (ROOT / "hdl/common/mv_bus_loader.sv").read_text()
    assert "import mv_regmap_pkg::*" in rtl
    assert not re.search(r"\b4'd\d+\b|4'h[0-9a-f]\b", rtl)


@pytest.mark.parametrize("bus_w", [8, 16, 32, 64])
@pytest.mark.parametrize("bits", [1, 8, 33, 97, 2049])
def test_split_join_roundtrip(bus_w, bits):
    value = (1 << bits) - 1 - (1 << (bits // 2))
    parts = regmap.split(value, bits, bus_w)
    assert len(parts) == regmap.words(bits, bus_w)
    assert all(0 <= p < (1 << bus_w) for p in parts)
    assert regmap.join(parts, bus_w) == value


@pytest.mark.parametrize("bus_w", [8, 12, 16, 32, 64])
def test_split_and_join_agree_with_word_by_word_shifts(bus_w):
    """split/join go through bytes for whole-byte bus widths: the same words as shifting
    word by word, also for a value wider than the register (its high bits are not loaded),
    a width that is no machine word (12) and a part that is no bus word."""
    rng = random.Random(bus_w)
    mask = (1 << bus_w) - 1
    for bits in (1, 31, 97, 1024, 2049):
        value = rng.getrandbits(bits + 40)  # wider than the register
        count = regmap.words(bits, bus_w)
        assert regmap.split(value, bits, bus_w) == [(value >> (k * bus_w)) & mask
                                                    for k in range(count)]
        parts = [rng.getrandbits(bus_w) for _ in range(count)]
        assert regmap.join(parts, bus_w) == sum(p << (k * bus_w) for k, p in enumerate(parts))
    wide = [1 << bus_w, 3]  # carries into the next word, as a sum of shifted parts does
    assert regmap.join(wide, bus_w) == (1 << bus_w) + (3 << bus_w)


def test_addr_decode_roundtrip():
    rm = regmap.load()
    for region in rm.regions.values():
        decoded, index = rm.decode(rm.addr(region.name, 5))
        assert decoded == region and index == 5
    with pytest.raises(ValueError):
        rm.addr("X", 1 << rm.index_width)
