"""Functional coverage with cocotb-coverage (mergeable XML via coverage_db.export_to_xml).

Sampled once per operation from what the DUT itself presented: the table-address hit
counters and the final-subtraction flag read at the done edge, plus operand corner classes
and the error codes the DUT reported.

Samples are counted as they come and reach cocotb-coverage's database when the coverage is
read (`flush`, called by `summary` and `export`): one call of a sampling function per
distinct sample, its other occurrences added to the bins that call hit. A sampling call of
cocotb-coverage scans every bin of its points and recomputes their coverage twice, about 5 us;
an operation samples seven or more, which made coverage a tenth of the testbench's Python time
per operation (measured at N = 1024).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db

from montverif.verif.operands import M_CLASSES, X_CLASSES, modulus_class, operand_class

ERRORS = ["ERR_EVEN_MODULUS", "ERR_RANGE", "ERR_BUSY", "ERR_UNMAPPED"]
FIELDS = ["gfp", "gf2n"]  # CTRL.FIELD 0, 1
# operand width classes crossed with the field (designs with a binary-field mode)
WIDTHS = ["n_le_128", "n_129_192", "n_193_256", "n_gt_256"]


def forget_coverage() -> None:
    """Every cover point and its hits forgotten (cocotb-coverage's database is one per
    process): the next run of a process that runs several (verif/batch.py) starts from no
    coverage, as in a process of its own."""
    coverage_db.clear()


# the widths of each class: a build (one N) reaches one class
WIDTH_RANGES: dict[str, tuple[int, int | None]] = {
    "n_le_128": (1, 128), "n_129_192": (129, 192), "n_193_256": (193, 256),
    "n_gt_256": (257, None)}


def width_class(n: int) -> str:
    return next(w for w, (lo, hi) in WIDTH_RANGES.items() if lo <= n and (hi is None or n <= hi))


def widths_text(cls: str) -> str:
    lo, hi = WIDTH_RANGES[cls]
    return f"N in {lo}..{hi}" if hi is not None else f"N >= {lo}"


def unreachable(n: int, has_field: bool) -> dict[str, str]:
    """The bins (named below the design, as its coverage files name them) that no operation
    of a build at width n can hit, each with the widths it needs: a binary-field design's
    field x width cross has a column per width class, and a build reaches one."""
    if not has_field:
        return {}
    here = width_class(n)
    return {f"cross.field_x_width:{(f, w)!r}": widths_text(w)
            for w in WIDTHS if w != here for f in FIELDS}


def _used(lut_hits: tuple[bool, ...], addr: int) -> bool:
    """Bin `addr` of the table-address point is hit: the address was used."""
    return addr < len(lut_hits) and lut_hits[addr] > 0


def _add_hits(item: CoverPoint | CoverCross, extra: int) -> None:
    """`extra` more hits on every bin that the item's last sample hit (its new_hits), and its
    parents' coverage updated as cocotb-coverage's own sampling does."""
    before = item.coverage
    bins = item.new_hits
    labels = getattr(item, "_bins_labels", None)
    if labels is not None:  # a point's new_hits name its bins by label
        by_label = {label: b for b, label in item._labels_bins.items()}
        bins = [by_label[label] for label in bins]
    for b in bins:
        item._hits[b] += extra
    item._parent._update_coverage(item.coverage - before)


class Batched:
    """A cocotb-coverage sampling function whose samples are counted (each argument tuple
    must be hashable) and applied by `flush`: one call per distinct sample, then the bins
    that call hit in `items` (every point and cross the function samples) get the sample's
    other occurrences."""

    def __init__(self, fn: Callable[..., None], items: list[str]) -> None:
        self.fn, self.items = fn, items
        self.pending: Counter[tuple[object, ...]] = Counter()
        # plain functions, not methods: cocotb-coverage would find that out at a point's
        # first sample by inspecting every member of the first argument (0.2 ms a point)
        for name in items:
            if isinstance(item := coverage_db[name], CoverPoint):
                item._decorates_method = False

    def __call__(self, *args: object) -> None:
        self.pending[args] += 1

    def flush(self) -> None:
        pending, self.pending = self.pending, Counter()
        for args, count in pending.items():
            self.fn(*args)
            if count > 1:
                for name in self.items:
                    _add_hits(coverage_db[name], count - 1)


# one operation's samples: the table addresses used (None: no table, or none used), the X,
# Y and M classes, the final subtraction and the field
OpSample = tuple[tuple[bool, ...] | None, str, str, str, bool, int]


class OperationSamples:
    """Operations' samples counted as one tuple each (a Counter: one increment an operation
    instead of one a point); `hand_out` gives each distinct tuple and its count to `to` (the
    points' own counts, Batched) and starts again."""

    def __init__(self, to: Callable[[OpSample, int], None]) -> None:
        self.to = to
        self.counts: Counter[OpSample] = Counter()

    def hand_out(self) -> None:
        counts, self.counts = self.counts, Counter()
        for sample, count in counts.items():
            self.to(sample, count)


class Coverage:
    """The coverage model of one design; point names start with the design's name."""

    def __init__(self, design: str, lut_bins: int, illegal_bins: tuple[int, ...] = (),
                 carry_save: tuple[tuple[str, ...], ...] = (),
                 has_field: bool = False, has_sub: bool = True,
                 beyond: tuple[str, ...] = (), has_range: bool = True) -> None:
        """`lut_bins` table/selection addresses, of which `illegal_bins` are unreachable:
        they get no bin (coverage goals exclude them); hitting one fails the scoreboard. A
        design that observes no table (lut_bins = 0) has no table point, and one that does not
        report its final subtraction (has_sub False: a core of its own) has no final_sub
        point and no cross with it: no bin the design cannot hit.
        `carry_save`: operand groups such as ("X", "X2") whose sum is the operand's value
        (the operand classes use the value; `operands.halves` covers how it was split).
        `beyond`: the operands whose domain reaches beyond M (below_2n): `operands.domain`
        has a bin for each at or above M (a carry-save pair: at or above 2M, the old rule's
        bound). `has_range`: the loader has a range rule (Design.has_range_rule: an operand
        whose domain is below M or 2M); without one `errors.code` has no ERR_RANGE bin."""
        self.design = design
        self.carry_save = {g[0]: g for g in carry_save}
        self.lut_bins = lut_bins
        self.illegal_bins = frozenset(illegal_bins)
        top = design

        # one sample per operation: the hit counters, each address with hits is a bin hit
        # (one call instead of one per address: a cocotb-coverage call costs ~4 us)
        self._lut: Batched | None = None
        if lut_bins:
            @CoverPoint(f"{top}.lut.addr", rel=_used, inj=False,
                        bins=[a for a in range(lut_bins) if a not in self.illegal_bins])
            def _lut(lut_hits: tuple[bool, ...]) -> None: ...

            self._lut = Batched(_lut, [f"{top}.lut.addr"])

        @CoverPoint(f"{top}.operands.x", bins=X_CLASSES)
        def _x(cls: str) -> None: ...

        @CoverPoint(f"{top}.operands.y", bins=X_CLASSES)
        def _y(cls: str) -> None: ...

        @CoverPoint(f"{top}.operands.m", bins=M_CLASSES)
        def _m(cls: str) -> None: ...

        # ERR_RANGE only where the loader has a range rule (an operand of any N-bit value
        # never leaves its domain: mont_r2, mont_csa, mont_lut)
        self.errors = [e for e in ERRORS if has_range or e != "ERR_RANGE"]

        @CoverPoint(f"{top}.errors.code", bins=self.errors)
        def _err(name: str) -> None: ...

        self._sub: Batched | None = None
        self._cross: Batched | None = None
        if has_sub:
            @CoverPoint(f"{top}.final_sub", bins=[True, False],
                        bins_labels=["taken", "not_taken"])
            def _sub(taken: bool) -> None: ...

            @CoverPoint(f"{top}.cross_src.sub", vname="taken", bins=[True, False])
            @CoverPoint(f"{top}.cross_src.m", vname="mcls", bins=M_CLASSES)
            @CoverCross(f"{top}.cross.sub_x_m",
                        items=[f"{top}.cross_src.sub", f"{top}.cross_src.m"])
            def _cross(taken: bool, mcls: str) -> None: ...

            self._sub = Batched(_sub, [f"{top}.final_sub"])
            self._cross = Batched(_cross, [f"{top}.cross_src.sub", f"{top}.cross_src.m",
                                           f"{top}.cross.sub_x_m"])

        self._halves: Batched | None = None
        if carry_save:
            kinds = ("both_nonzero", "one_zero", "ge_m", "2m_minus_1")

            @CoverPoint(f"{top}.operands.halves",
                        bins=[f"{g[0]}_{k}" for g in carry_save for k in kinds])
            def _halves(name: str) -> None: ...

            self._halves = Batched(_halves, [f"{top}.operands.halves"])
        self._beyond: Batched | None = None
        self.beyond = {reg: (2 if reg in self.carry_save else 1) for reg in beyond}
        if beyond:
            @CoverPoint(f"{top}.operands.domain",
                        bins=[f"{r}_ge_{k if k > 1 else ''}m" for r, k in self.beyond.items()])
            def _beyond(name: str) -> None: ...

            self._beyond = Batched(_beyond, [f"{top}.operands.domain"])
        self._field: Batched | None = None
        self._field_cross: Batched | None = None
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

            self._field = Batched(_field, [f"{top}.field"])
            self._field_cross = Batched(_field_cross, [
                f"{top}.cross_src.field", f"{top}.cross_src.width", f"{top}.cross_src.fm",
                f"{top}.cross.field_x_width", f"{top}.cross.field_x_m"])
        self._x = Batched(_x, [f"{top}.operands.x"])
        self._y = Batched(_y, [f"{top}.operands.y"])
        self._m = Batched(_m, [f"{top}.operands.m"])
        self._err = Batched(_err, [f"{top}.errors.code"])
        # each operation's samples (lut, x, y, m, sub, field), counted as one
        self._ops = OperationSamples(self._hand_out)
        self._n = 0  # the width the operations were sampled at (the field x width cross)

    def flush(self) -> None:
        """Apply the counted samples to cocotb-coverage's database."""
        for samples in list(vars(self).values()):  # first to each point's own counts
            if isinstance(samples, OperationSamples):
                samples.hand_out()
        for sampler in list(vars(self).values()):
            if isinstance(sampler, Batched):
                sampler.flush()

    def _hand_out(self, sample: OpSample, count: int) -> None:
        """`count` operations' samples `sample` (sample_operation) to each point's counts."""
        lut, x, y, mcls, sub, field = sample
        if lut is not None and self._lut is not None:
                self._lut.pending[(lut,)] += count
        self._x.pending[(x,)] += count
        self._y.pending[(y,)] += count
        self._m.pending[(mcls,)] += count
        if self._sub is not None and self._cross is not None:
            self._sub.pending[(sub,)] += count
            self._cross.pending[(sub, mcls)] += count
        if self._field is not None and self._field_cross is not None:
            self._field.pending[(FIELDS[field],)] += count
            self._field_cross.pending[(FIELDS[field], width_class(self._n), mcls)] += count

    def sample_operation(self, operands: dict[str, int], n: int, lut_hits: list[int],
                         sub_taken: bool, field: int = 0) -> None:
        """One operation's samples, counted as one (`flush` hands each point its share): the
        table addresses used, the operand and modulus classes, the final subtraction and the
        field; the carry-save halves and the operands beyond M as samples of their own."""
        lut = tuple(map(bool, lut_hits)) if self._lut is not None and any(lut_hits) else None
        m = next(reversed(operands.values()))
        if self.carry_save:
            x, y = (sum(operands[r] for r in self.carry_save.get(b, (b,))) for b in ("X", "Y"))
        else:
            x, y = operands["X"], operands["Y"]
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
        if self._beyond is not None:
            for reg, k in self.beyond.items():
                if {"X": x, "Y": y}[reg] >= k * m:
                    self._beyond(f"{reg}_ge_{k if k > 1 else ''}m")
        self._n = n
        self._ops.counts[(lut, operand_class(x, y, m, n), operand_class(y, x, m, n),
                   modulus_class(m, n), sub_taken, field)] += 1

    def sample_error(self, name: str) -> None:
        if name in self.errors:
            self._err(name)

    def summary(self) -> dict[str, dict[str, object]]:
        """Per cover item: covered/size bins and the names of uncovered bins."""
        self.flush()
        return summary_of(self.design)

    def export(self, log_dir: Path) -> None:
        self.flush()
        export_to(self.design, log_dir)


def summary_of(design: str) -> dict[str, dict[str, object]]:
    """The design's cover items in cocotb-coverage's database: covered/size bins and the
    names of uncovered bins (the bus testbench's and the streaming harness's alike)."""
    out: dict[str, dict[str, object]] = {}
    for name, item in coverage_db.items():
        if not isinstance(item, CoverPoint | CoverCross):
            continue  # a group: its points are listed themselves
        if not name.startswith(design + ".") or ".cross_src." in name:
            continue
        hits = getattr(item, "detailed_coverage", {})
        at_least = getattr(item, "_at_least", 1)
        missing = [str(b) for b, h in hits.items() if h < at_least]
        out[name] = {"covered": item.cover_percentage, "size": item.size,
                     "hits": item.coverage, "missing": missing}
    return out


def export_to(design: str, log_dir: Path) -> None:
    """coverage.xml (mergeable) and coverage.json (summary_of) in the run's folder."""
    coverage_db.export_to_xml(filename=str(log_dir / "coverage.xml"))
    (log_dir / "coverage.json").write_text(json.dumps(summary_of(design), indent=1) + "\n")
