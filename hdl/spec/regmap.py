"""The register map, read from hdl/common/regmap.json (its single source of truth): regions,
fields, error codes, bus widths. `montverif generate` writes the RTL package
hdl/common/mv_regmap_pkg.sv and docs/generated/regmap.md from it (montverif.spec.generate); which
regions a design maps is in its descriptor (montverif.spec.designs)."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Literal

from montverif.host.paths import REGMAP_JSON as JSON_PATH


@dataclass(frozen=True)
class Region:
    name: str
    code: int
    access: str  # "ro", "wo" or "rw"
    size: str  # "word", "counter", "operand" or "redundant"
    doc: str
    optional: bool = False  # mapped only for designs that list it (operands, precomputed)


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int

    def get(self, word: int) -> int:
        return (word >> self.lsb) & ((1 << self.width) - 1)

    def put(self, value: int) -> int:
        return (value & ((1 << self.width) - 1)) << self.lsb


@dataclass(frozen=True)
class RegMap:
    version: int
    region_width: int
    index_width: int
    bus_widths: tuple[int, ...]
    counter_width: int
    regions: dict[str, Region]
    fields: dict[str, dict[str, Field]]
    errors: dict[str, int]
    error_docs: dict[str, str]
    sizes: dict[str, str]  # what each region size means (docs/generated/regmap.md)

    @property
    def addr_width(self) -> int:
        return self.region_width + self.index_width

    def addr(self, region: str, index: int = 0) -> int:
        if not 0 <= index < (1 << self.index_width):
            raise ValueError(f"word index {index} outside the map's {self.index_width}-bit index")
        return (self.regions[region].code << self.index_width) | index

    def decode(self, addr: int) -> tuple[Region | None, int]:
        index_w = self.index_width
        return self._by_code.get(addr >> index_w), addr & ((1 << index_w) - 1)

    @cached_property
    def _by_code(self) -> dict[int, Region]:
        """Region code -> region (decode runs for every bus transfer the testbench checks)."""
        return {r.code: r for r in self.regions.values()}

    def region_bits(self, region: str, n: int, redundant_width: int | None, bus_w: int
                    ) -> int | None:
        """Width in bits of a region for one build (None where the design does not map it:
        `redundant_width` is the design's S/C width at n, None when it keeps none)."""
        size = self.regions[region].size
        if size == "word":
            return bus_w
        if size == "counter":
            return self.counter_width
        if size == "operand":
            return n
        return redundant_width

    def error_name(self, code: int) -> str:
        for name, value in self.errors.items():
            if value == code:
                return name
        return f"ERR_{code}"


def words(bits: int, bus_w: int) -> int:
    """Bus words needed to carry a value of `bits` bits."""
    return -(-bits // bus_w)


# struct codes of the bus widths that are whole machine words: their values are split and
# joined as bytes (a few times faster than word-by-word shifts at N = 1024; once per register
# per operation on the testbench's path)
UINT_FORMAT: dict[int, Literal["B", "H", "I", "Q"]] = {8: "B", 16: "H", 32: "I", 64: "Q"}


@cache
def _words_struct(count: int, bus_w: int) -> struct.Struct | None:
    """The struct of `count` little-endian bus words (None: no machine word of bus_w bits)."""
    code = UINT_FORMAT.get(bus_w)
    return struct.Struct(f"<{count}{code}") if code is not None else None


@cache
def _split_plan(bits: int, bus_w: int) -> tuple[int, int, struct.Struct | None]:
    """(words, mask of their bits, their struct) of a value of `bits` bits."""
    count = words(bits, bus_w)
    return count, (1 << (count * bus_w)) - 1, _words_struct(count, bus_w)


def split(value: int, bits: int, bus_w: int) -> list[int]:
    """Little-endian bus words of a value (of its low words(bits) * bus_w bits)."""
    count, low, packer = _split_plan(bits, bus_w)
    if packer is None or value < 0:
        mask = (1 << bus_w) - 1
        return [(value >> (k * bus_w)) & mask for k in range(count)]
    return list(packer.unpack((value & low).to_bytes(packer.size, "little")))


def join(parts: list[int], bus_w: int) -> int:
    """Inverse of split()."""
    packer = _words_struct(len(parts), bus_w)
    if packer is not None:
        try:
            return int.from_bytes(packer.pack(*parts), "little")
        except struct.error:  # a part that is no bus word (negative, too wide): summed below
            pass
    return sum(word << (k * bus_w) for k, word in enumerate(parts))


@cache
def load(path: Path = JSON_PATH) -> RegMap:
    raw = json.loads(path.read_text())
    regions = {r["name"]: Region(r["name"], r["code"], r["access"], r["size"], r["doc"],
                                 bool(r.get("optional", False)))
               for r in raw["regions"]}
    fields = {reg: {f["name"]: Field(f["name"], f["lsb"], f["width"]) for f in fs}
              for reg, fs in raw["fields"].items()}
    return RegMap(
        version=raw["version"],
        region_width=raw["region_width"],
        index_width=raw["index_width"],
        bus_widths=tuple(raw["bus_widths"]),
        counter_width=raw["counter_width"],
        regions=regions,
        fields=fields,
        errors={e["name"]: e["code"] for e in raw["errors"]},
        error_docs={e["name"]: e["doc"] for e in raw["errors"]},
        sizes=dict(raw["sizes"]),
    )
