"""A descriptor's tables as typed sections, each read from its table once the schema has
checked it (montverif.spec.schema): what a consumer of the table reads, by name, instead of
keys of a mapping. The Design (montverif.spec.design) holds them."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_GOAL = 100.0  # percent of a design's bins when its [coverage] names no goal
SIMULATORS = ("verilator", "icarus")  # [test]'s, in its order


@dataclass(frozen=True)
class CoverageGoal:
    """[coverage]: `goal`, the percent of the design's bins its regressions must cover;
    `waive`, bins the design cannot reach, as patterns relative to it (fnmatch, e.g.
    "final_sub:taken", "cross.sub_x_m:(True, *)"), left out of the total and listed as
    waived; `waive_reason`, why."""

    goal: float = DEFAULT_GOAL
    waive: tuple[str, ...] = ()
    waive_reason: str = ""

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> CoverageGoal:
        """The section from its table, as the schema has checked it."""
        return cls(float(table.get("goal", DEFAULT_GOAL)), tuple(table.get("waive", ())),
                   str(table.get("waive_reason", "")))

    def waived(self, dut: str, bin_name: str) -> bool:
        rel = bin_name.removeprefix(dut + ".")
        return any(fnmatch.fnmatchcase(rel, pat) for pat in self.waive)


@dataclass(frozen=True)
class Testbench:
    """[testbench]: the design's own cocotb test module ("": the multiplier testbench's), its
    default tests (empty: that testbench's), the loader of its vector files ("<module>:
    <function>", "": the multipliers'), and whether it runs in the fast bus mode (None: as
    the multiplier testbench does, when the module is that one)."""

    module: str = ""
    tests: tuple[str, ...] = ()
    vector_loader: str = ""
    engine: bool | None = None

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> Testbench:
        engine = table.get("engine")
        return cls(str(table.get("module", "")), tuple(table.get("tests", ())),
                   str(table.get("vector_loader", "")), None if engine is None else bool(engine))


@dataclass(frozen=True)
class SimPoint:
    """One point of [test]: `[N, BusW, txns, AckWait]` or `[N, BusW, txns, AckWait,
    { params }]` (a choice parameter by its name, as the descriptor gives it)."""

    n: int
    bus_w: int
    txns: int
    ack_wait: int
    params: Mapping[str, int | str] = field(default_factory=dict)

    @classmethod
    def of(cls, point: list[Any]) -> SimPoint:
        n, bus_w, txns, ack_wait = (int(v) for v in point[:4])
        return cls(n, bus_w, txns, ack_wait, dict(point[4]) if len(point) > 4 else {})


@dataclass(frozen=True)
class SimPoints:
    """[test]: the simulation points of the design's tests (verif/tests/test_designs_sim.py)
    per simulator; `quick_tests`, the tests that run at points from `quick_from_n`'s width of
    a simulator on (the others are slow there)."""

    verilator: tuple[SimPoint, ...] = ()
    icarus: tuple[SimPoint, ...] = ()
    quick_tests: tuple[str, ...] = ()
    quick_from_n: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> SimPoints:
        def points(sim: str) -> tuple[SimPoint, ...]:
            return tuple(SimPoint.of(p) for p in table.get(sim, ()))
        return cls(points("verilator"), points("icarus"), tuple(table.get("quick_tests", ())),
                   dict(table.get("quick_from_n", {})))

    def on(self, sim: str) -> tuple[SimPoint, ...]:
        """The points of simulator `sim` (verilator or icarus)."""
        points: tuple[SimPoint, ...] = getattr(self, sim)
        return points


@dataclass(frozen=True)
class Observe:
    """[observe]: what the testbench reads of the core when DONE rises: the table-address hit
    counters (`lut_hits`, a signal's path below the top; `lut_bins` counters of `hit_width`
    bits; `illegal_bins`, addresses the algorithm never takes) and the final-subtraction flag
    (`sub_taken`). "" or 0: the design has none."""

    lut_hits: str = ""
    lut_bins: int = 0
    illegal_bins: tuple[int, ...] = ()
    hit_width: int = 32
    sub_taken: str = ""

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> Observe:
        return cls(str(table.get("lut_hits", "")), int(table.get("lut_bins", 0)),
                   tuple(table.get("illegal_bins", ())), int(table.get("hit_width", 32)),
                   str(table.get("sub_taken", "")))

    def paths(self) -> tuple[str, ...]:
        """The signals it names (their paths below the top)."""
        return tuple(p for p in (self.lut_hits, self.sub_taken) if p)


@dataclass(frozen=True)
class RsaMonitor:
    """What the RSA testbench monitors of a modexp core at one build: the core's instance
    (`core`), its multipliers' signal prefixes (`mults`), the bits of their operands and
    products (`width`, a formula in n and the build parameters; "": n), the registers wiped
    at DONE (`wipe`) and those a CLEAR zeroes (`clear`)."""

    core: str
    mults: tuple[str, ...]
    wipe: tuple[str, ...]
    clear: tuple[str, ...]
    width: str = ""


@dataclass(frozen=True)
class RsaVariant:
    """One of [rsa] `variants`: the build parameters it holds for (`when`, a choice by its
    name) and what it lays over the table there (None: the table's)."""

    when: Mapping[str, int | str]
    mults: tuple[str, ...] | None = None
    wipe: tuple[str, ...] | None = None
    clear: tuple[str, ...] | None = None
    width: str | None = None


@dataclass(frozen=True)
class Rsa:
    """[rsa]: the table (a modexp core's monitor at the default build) and its variants."""

    table: RsaMonitor
    variants: tuple[RsaVariant, ...] = ()

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> Rsa:
        def paths(raw: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
            return tuple(raw[key]) if key in raw else None
        variants = tuple(RsaVariant(dict(v.get("when", {})), paths(v, "mults"), paths(v, "wipe"),
                                    paths(v, "clear"), v.get("width"))
                         for v in table.get("variants", ()))
        return cls(RsaMonitor(str(table["core"]), tuple(table["mults"]), tuple(table["wipe"]),
                              tuple(table["clear"]), str(table.get("width", ""))), variants)


@dataclass(frozen=True)
class PaperFigure:
    """A cycle count the paper states for its own design at one point (`[paper] figures`):
    docs/generated/cycles.md sets it beside the measured count where the width, the field and the
    parameters it names match (the most specific figure where several do)."""

    n: int
    cycles: int
    where: str  # the table or section it comes from, and what the paper's design is
    params: tuple[tuple[str, int], ...] = ()  # the build parameters it holds for (RTL values)
    field: int | None = None  # CTRL.FIELD it holds for (mont_dual), None: every operation

    def matches(self, n: int, params: Mapping[str, int], field: int | None) -> bool:
        return n == self.n and (self.field is None or field == self.field) and \
            all(params.get(k) == v for k, v in self.params)


@dataclass(frozen=True)
class PaperCycles:
    """[paper]: what the paper states for the design's cycle count: where (`source`), its
    formula (`cycles`, in n and the parameters; "" where it gives none), a `note`, and the
    counts it states at given points (`figures`)."""

    source: str = ""
    cycles: str = ""
    note: str = ""
    figures: tuple[PaperFigure, ...] = ()

    @classmethod
    def of(cls, table: Mapping[str, Any], figures: tuple[PaperFigure, ...]) -> PaperCycles:
        return cls(str(table.get("source", "")), str(table.get("cycles", "")),
                   str(table.get("note", "")), figures)

    @property
    def stated(self) -> bool:
        """Whether the descriptor says anything of the paper's count."""
        return bool(self.source or self.cycles or self.note or self.figures)


@dataclass(frozen=True)
class SecondField:
    """[function] field1: what the design computes when an operation sets CTRL.FIELD (its
    `kind`, e.g. mont_gf2, and `r_bits`, a formula in n and the parameters)."""

    kind: str
    r_bits: str
