"""The register map, read from hdl/common/regmap.json (its single source of truth).

The testbench reads the map through this module; `montverif regmap --write` generates
the RTL package hdl/common/mv_regmap_pkg.sv and docs/regmap.md from the same file, and
`--check` fails when either is stale.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JSON_PATH = ROOT / "hdl" / "common" / "regmap.json"
SV_PATH = ROOT / "hdl" / "common" / "mv_regmap_pkg.sv"
MD_PATH = ROOT / "docs" / "regmap.md"


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
class Design:
    name: str
    id: int
    family: str
    redundant_extra_bits: int | None  # None: the design keeps no S/C
    operands: tuple[str, ...] = ("X", "Y", "M")  # START reads these; the modulus is last
    below_modulus: tuple[str, ...] = ("X", "Y")  # must be < M, else ERR_RANGE
    # groups (register, second half, ...) holding one carry-save operand: sum < 2M
    carry_save_operands: tuple[tuple[str, ...], ...] = ()
    # registers the host computes from M (and the build parameters) and loads with it
    precomputed: tuple[str, ...] = ()

    @property
    def modulus(self) -> str:
        return self.operands[-1]

    def redundant_width(self, n: int) -> int | None:
        return None if self.redundant_extra_bits is None else n + self.redundant_extra_bits

    def out_of_range(self, values: dict[str, int]) -> bool:
        """The loader's range rule (ERR_RANGE): an operand of below_modulus >= M, or the sum
        of a carry-save group >= 2M."""
        m = values[self.modulus]
        return (any(values[r] >= m for r in self.below_modulus)
                or any(sum(values[r] for r in g) >= 2 * m for g in self.carry_save_operands))

    def maps(self, region: Region) -> bool:
        """Whether the design maps a region (optional regions only when it uses them)."""
        return (not region.optional or region.name in self.operands
                or region.name in self.precomputed)


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
    designs: dict[str, Design]

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

    def region_bits(self, region: str, n: int, design: Design, bus_w: int) -> int | None:
        """Width in bits of a region for one build (None where the design does not map it)."""
        size = self.regions[region].size
        if size == "word":
            return bus_w
        if size == "counter":
            return self.counter_width
        if size == "operand":
            return n
        return design.redundant_width(n)

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
UINT_FORMAT = {8: "B", 16: "H", 32: "I", 64: "Q"}


def split(value: int, bits: int, bus_w: int) -> list[int]:
    """Little-endian bus words of a value (of its low words(bits) * bus_w bits)."""
    count = words(bits, bus_w)
    code = UINT_FORMAT.get(bus_w)
    if code is None or value < 0:
        mask = (1 << bus_w) - 1
        return [(value >> (k * bus_w)) & mask for k in range(count)]
    low = value & ((1 << (count * bus_w)) - 1)
    return list(struct.unpack(f"<{count}{code}", low.to_bytes(count * bus_w // 8, "little")))


def join(parts: list[int], bus_w: int) -> int:
    """Inverse of split()."""
    code = UINT_FORMAT.get(bus_w)
    if code is not None:
        try:
            return int.from_bytes(struct.pack(f"<{len(parts)}{code}", *parts), "little")
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
    designs = {d["name"]: Design(d["name"], d["id"], d["family"], d.get("redundant_extra_bits"),
                                 tuple(d.get("operands", ("X", "Y", "M"))),
                                 tuple(d.get("below_modulus", ("X", "Y"))),
                                 tuple(tuple(g) for g in d.get("carry_save_operands", ())),
                                 tuple(d.get("precomputed", ())))
               for d in raw["designs"]}
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
        designs=designs,
    )


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.lower().split("_"))


def emit_sv(rm: RegMap) -> str:
    lines = [
        "// GENERATED from hdl/common/regmap.json by `montverif regmap --write`.",
        "// Do not edit: change the JSON and regenerate (`make regmap`).",
        "package mv_regmap_pkg;",
        "  // Not every design uses every constant of the shared map.",
        "  /* verilator lint_off UNUSEDPARAM */",
        f"  localparam int RegmapVersion = {rm.version};",
        f"  localparam int RegionW = {rm.region_width};",
        f"  localparam int IndexW = {rm.index_width};",
        f"  localparam int AddrW = {rm.addr_width};",
        f"  localparam int CounterW = {rm.counter_width};",
        f"  localparam int ErrW = {rm.fields['STATUS']['ERR'].width};",
        "",
        "  // Regions: address = {region, word index}",
    ]
    for r in rm.regions.values():
        lines.append(f"  localparam logic [RegionW-1:0] Region{_camel(r.name)} = "
                     f"{rm.region_width}'d{r.code};")
    lines.append("")
    lines.append("  // Register fields (bit positions)")
    for reg, fs in rm.fields.items():
        for f in fs.values():
            lines.append(f"  localparam int {_camel(reg)}{_camel(f.name)}Lsb = {f.lsb};")
            if f.width > 1:
                lines.append(f"  localparam int {_camel(reg)}{_camel(f.name)}W = "
                             f"{f.width};")
    lines.append("")
    lines.append("  // Error codes (STATUS.ERR)")
    err_w = rm.fields["STATUS"]["ERR"].width
    for name, code in rm.errors.items():
        lines.append(f"  localparam logic [ErrW-1:0] {_camel(name)} = {err_w}'d{code};")
    lines.append("")
    lines.append("  // Design ids (INFO[23:16])")
    for d in rm.designs.values():
        lines.append(f"  localparam int DesignId{_camel(d.name)} = {d.id};")
    lines.append("  /* verilator lint_on UNUSEDPARAM */")
    lines.append("endpackage")
    return "\n".join(lines) + "\n"


def emit_md(rm: RegMap) -> str:
    out = [
        "# Register map",
        "",
        "Generated from `hdl/common/regmap.json` by `make regmap`; do not edit by hand.",
        "",
        f"Version {rm.version}. Address = `{{region[{rm.region_width - 1}:0], "
        f"index[{rm.index_width - 1}:0]}}` ({rm.addr_width} bits); the index selects a bus word, "
        "little-endian (word 0 holds the least significant bits). Bus widths: "
        + ", ".join(str(w) for w in rm.bus_widths) + ".",
        "",
        "| region | code | access | size | description |",
        "|---|---|---|---|---|",
    ]
    raw = json.loads(JSON_PATH.read_text())
    for r in rm.regions.values():
        out.append(f"| {r.name} | {r.code} | {r.access} | {raw['sizes'][r.size]} | {r.doc} |")
    out += ["", "## Fields", "", "| register | field | bits |", "|---|---|---|"]
    for reg, fs in rm.fields.items():
        for f in fs.values():
            bits = str(f.lsb) if f.width == 1 else f"{f.lsb + f.width - 1}:{f.lsb}"
            out.append(f"| {reg} | {f.name} | {bits} |")
    out += ["", "## Error codes (STATUS.ERR)", "", "| code | name | meaning |", "|---|---|---|"]
    for name, code in rm.errors.items():
        out.append(f"| {code} | {name} | {rm.error_docs[name]} |")
    out += ["", "## Designs (INFO[23:16])", "", "| id | design | family |", "|---|---|---|"]
    for d in rm.designs.values():
        out.append(f"| {d.id} | {d.name} | {d.family} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="montverif regmap", description=__doc__)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate the SV package and docs")
    mode.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = ap.parse_args(argv)
    rm = load()
    targets = {SV_PATH: emit_sv(rm), MD_PATH: emit_md(rm)}
    stale = [p for p, text in targets.items() if not p.exists() or p.read_text() != text]
    if args.write:
        for path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(targets[path])
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    for path in stale:
        print(f"error: {path.relative_to(ROOT)} is stale; run `montverif regmap --write`",
              file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
