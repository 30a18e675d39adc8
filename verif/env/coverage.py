"""Functional coverage with cocotb-coverage (mergeable XML via coverage_db.export_to_xml).

Sampled once per operation from what the DUT itself presented: the table-address hit
counters and the final-subtraction flag read at the done edge, plus operand corner classes
and the error codes the DUT reported.
"""

from __future__ import annotations

import json
from pathlib import Path

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db

X_CLASSES = ["zero", "one", "m_minus_1", "equal_other", "short", "wide"]
M_CLASSES = ["pow2_plus_1", "all_ones", "top_bit", "short"]
ERRORS = ["ERR_EVEN_MODULUS", "ERR_RANGE", "ERR_BUSY", "ERR_UNMAPPED"]
FIELDS = ["gfp", "gf2n"]  # CTRL.FIELD 0, 1
# operand width classes crossed with the field (designs with a binary-field mode)
WIDTHS = ["n_le_128", "n_129_192", "n_193_256", "n_gt_256"]


def width_class(n: int) -> str:
    if n <= 128:
        return "n_le_128"
    if n <= 192:
        return "n_129_192"
    return "n_193_256" if n <= 256 else "n_gt_256"


def operand_class(v: int, other: int, m: int, n: int) -> str:
    if v == 0:
        return "zero"
    if v == 1:
        return "one"
    if v == m - 1:
        return "m_minus_1"
    if v == other:
        return "equal_other"
    return "short" if v.bit_length() <= n // 2 else "wide"


def modulus_class(m: int, n: int) -> str:
    if m == (1 << (n - 1)) + 1:
        return "pow2_plus_1"
    if m == (1 << n) - 1:
        return "all_ones"
    return "top_bit" if m >> (n - 1) else "short"


def _used(lut_hits: list[int], addr: int) -> bool:
    """Bin `addr` of the table-address point is hit: the address was used."""
    return addr < len(lut_hits) and lut_hits[addr] > 0


class Coverage:
    """The coverage model of one design; point names start with the design's name."""

    def __init__(self, design: str, lut_bins: int, illegal_bins: tuple[int, ...] = (),
                 carry_save: tuple[tuple[str, ...], ...] = (),
                 has_field: bool = False) -> None:
        """`lut_bins` table/selection addresses, of which `illegal_bins` are unreachable:
        they get no bin (coverage goals exclude them); hitting one fails the scoreboard.
        `carry_save`: operand groups such as ("X", "X2") whose sum is the operand's value
        (the operand classes use the value; `operands.halves` covers how it was split)."""
        self.design = design
        self.carry_save = {g[0]: g for g in carry_save}
        self.lut_bins = lut_bins
        self.illegal_bins = frozenset(illegal_bins)
        top = design

        # one sample per operation: the hit counters, each address with hits is a bin hit
        # (one call instead of one per address: a cocotb-coverage call costs ~4 us)
        @CoverPoint(f"{top}.lut.addr", rel=_used, inj=False,
                    bins=[a for a in range(lut_bins) if a not in self.illegal_bins])
        def _lut(lut_hits: list[int]) -> None: ...

        @CoverPoint(f"{top}.operands.x", bins=X_CLASSES)
        def _x(cls: str) -> None: ...

        @CoverPoint(f"{top}.operands.y", bins=X_CLASSES)
        def _y(cls: str) -> None: ...

        @CoverPoint(f"{top}.operands.m", bins=M_CLASSES)
        def _m(cls: str) -> None: ...

        @CoverPoint(f"{top}.final_sub", bins=[True, False], bins_labels=["taken", "not_taken"])
        def _sub(taken: bool) -> None: ...

        @CoverPoint(f"{top}.errors.code", bins=ERRORS)
        def _err(name: str) -> None: ...

        @CoverPoint(f"{top}.cross_src.sub", vname="taken", bins=[True, False])
        @CoverPoint(f"{top}.cross_src.m", vname="mcls", bins=M_CLASSES)
        @CoverCross(f"{top}.cross.sub_x_m", items=[f"{top}.cross_src.sub", f"{top}.cross_src.m"])
        def _cross(taken: bool, mcls: str) -> None: ...

        self._halves = None
        if carry_save:
            kinds = ("both_nonzero", "one_zero", "ge_m", "2m_minus_1")

            @CoverPoint(f"{top}.operands.halves",
                        bins=[f"{g[0]}_{k}" for g in carry_save for k in kinds])
            def _halves(name: str) -> None: ...

            self._halves = _halves
        self._field = None
        if has_field:  # field of each operation, crossed with the width and the modulus class
            @CoverPoint(f"{top}.field", bins=FIELDS)
            def _field(f: str) -> None: ...

            @CoverPoint(f"{top}.cross_src.field", vname="f", bins=FIELDS)
            @CoverPoint(f"{top}.cross_src.width", vname="w", bins=WIDTHS)
            @CoverPoint(f"{top}.cross_src.fm", vname="mcls", bins=M_CLASSES)
            @CoverCross(f"{top}.cross.field_x_width",
                        items=[f"{top}.cross_src.field", f"{top}.cross_src.width"])
            @CoverCross(f"{top}.cross.field_x_m",
                        items=[f"{top}.cross_src.field", f"{top}.cross_src.fm"])
            def _field_cross(f: str, w: str, mcls: str) -> None: ...

            self._field, self._field_cross = _field, _field_cross
        self._lut, self._x, self._y, self._m = _lut, _x, _y, _m
        self._sub, self._err, self._cross = _sub, _err, _cross

    def sample_operation(self, operands: dict[str, int], n: int, lut_hits: list[int],
                         sub_taken: bool, field: int = 0) -> None:
        if any(lut_hits):
            self._lut(lut_hits)
        m = list(operands.values())[-1]
        x, y = (sum(operands[r] for r in self.carry_save.get(b, (b,))) for b in ("X", "Y"))
        if self._halves is not None:
            for base, group in self.carry_save.items():
                halves = [operands[r] for r in group]
                value = sum(halves)
                if all(halves):
                    self._halves(f"{base}_both_nonzero")
                elif any(halves):
                    self._halves(f"{base}_one_zero")
                if value >= m:
                    self._halves(f"{base}_ge_m")
                if value == 2 * m - 1:
                    self._halves(f"{base}_2m_minus_1")
        self._x(operand_class(x, y, m, n))
        self._y(operand_class(y, x, m, n))
        mcls = modulus_class(m, n)
        self._m(mcls)
        self._sub(sub_taken)
        self._cross(sub_taken, mcls)
        if self._field is not None:
            self._field(FIELDS[field])
            self._field_cross(FIELDS[field], width_class(n), mcls)

    def sample_error(self, name: str) -> None:
        if name in ERRORS:
            self._err(name)

    def summary(self) -> dict[str, dict[str, object]]:
        """Per cover item: covered/size bins and the names of uncovered bins."""
        out: dict[str, dict[str, object]] = {}
        for name, item in coverage_db.items():
            if not isinstance(item, CoverPoint | CoverCross):
                continue  # a group: its points are listed themselves
            if not name.startswith(self.design + ".") or ".cross_src." in name:
                continue
            hits = getattr(item, "detailed_coverage", {})
            at_least = getattr(item, "_at_least", 1)
            missing = [str(b) for b, h in hits.items() if h < at_least]
            out[name] = {"covered": item.cover_percentage, "size": item.size,
                         "hits": item.coverage, "missing": missing}
        return out

    def export(self, log_dir: Path) -> None:
        coverage_db.export_to_xml(filename=str(log_dir / "coverage.xml"))
        (log_dir / "coverage.json").write_text(json.dumps(self.summary(), indent=1) + "\n")
