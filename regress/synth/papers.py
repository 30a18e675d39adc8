"""The papers' implementation figures beside the project's synthesis results: the generated
page docs/generated/papers.md (`montverif synth papers --write`; docs/papers.md, by hand,
says how to read it).

docs/papers/figures.toml holds, by hand, every area and time figure of the papers'
implementation tables that concerns a design the project has, each with its citation,
device and configuration and the project's design and parameters that correspond; `load`
reads it and refuses, one line, what does not hold together (an unknown quantity, design
or device, a figure without a citation, a design of another paper, parameters the design
refuses). regress/synth/synth-results.json holds the project's own results (synth_results).

`render` sets them side by side, paper by paper, normalised where a fair unit exists:

- **LUTs plus flip-flops** where the paper counts both; its LUTs are its family's size
  (4 inputs on Virtex-E, Virtex-II, Virtex-II Pro and Virtex-4; 6 on Spartan-6). The
  project's 7-series count (Yosys, LUT6) and ECP5 count (Yosys, LUT4) stand beside it, each
  with its ratio to the paper's where the LUTs are of the same size. A paper that gives
  only slices bounds the count: slices x (LUTs + flip-flops per slice). A paper that gives
  LUTs only is compared in LUTs.
- **Multiplier blocks**: an 18 x 18 multiplier (MULT18X18, DSP48, DSP48A1, MULT18X18D) or a
  DSP48E1 per product of up to 17 x 17 bits: counted one for one.
- **Time per multiplication at the paper's clock**: the project's cycles per
  multiplication (its descriptor's count) times the paper's clock period: what the
  project's design takes at that clock, against what the paper's does; and per
  exponentiation, with the paper's count of multiplications (or, for the RSA core, its own
  steps: (n + 2)(Lm + 1), a worst-case exponent of n ones).
- Nothing where none exists: an ASIC's gates, a table without an operand width (only
  ratios to the paper's own baseline design compare, at `project_n`), a configuration the
  project has no design for. Each says why.

The project's figures are those of the results file, each with the revision it was taken
at; a configuration without a result is listed as not synthesised yet, with the command
that synthesises it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.models import rsa as rsa_model
from montverif.regress.synth import pnr, synth, synth_results, xc7_floor
from montverif.spec.designs import known_designs, load_design

FIGURES = ROOT / "docs" / "papers" / "figures.toml"
DEFAULT_OUT = pages.GENERATED / "papers.md"
COMMAND = "montverif synth papers --write"

# The quantities a figure may give: name -> how the table words it (unit after the value).
AREA = {
    "slices": "slices", "slices_pct": "% of slices", "luts": "LUTs", "luts_pct": "% of LUTs",
    "ffs": "FFs", "ffs_pct": "% of FFs", "mults": "multipliers",
    "mults_pct": "% of multipliers", "gates": "gates", "equivalent_gates": "equivalent gates",
    "mux_carrys": "MUX CARRYs",
}
TIME = {
    "period_ns": "ns period", "clock_mhz": "MHz", "delay_ns": "ns delay",
    "cycles": "cycles", "product_ns": "ns", "product_us": "µs", "exp_ms": "ms",
    "exp_ns": "ns", "exp_products": "multiplications",
    "area_time": "area × time", "area_delay": "area × delay",
}
TEXT = {"ram": "RAM", "area_relative": "area"}  # quantities given as words, not numbers
QUANTITIES = {**AREA, **TIME, **TEXT}
_NUMBER = re.compile(r"^-?[0-9][0-9,]*(\.[0-9]+)?$")


@dataclass(frozen=True)
class Family:
    key: str
    name: str
    source: str
    lut_inputs: int = 0  # 0: no LUTs (an ASIC)
    luts_per_slice: int = 0
    ffs_per_slice: int = 0
    multiplier: str = ""
    asic: bool = False
    process: str = ""  # the silicon process, as its data sheet gives it

    @property
    def node(self) -> str:
        """The process alone ("0.13 µm"), without its source."""
        return self.process.split(" (")[0]

    @property
    def lut(self) -> str:
        return f"LUT{self.lut_inputs}"


@dataclass(frozen=True)
class PaperDevice:
    key: str
    name: str
    family: Family
    source: str
    capacity: dict[str, int] = field(default_factory=dict)  # slices, luts, ffs, mults


@dataclass(frozen=True)
class Paper:
    key: str
    name: str  # as the descriptors' [design] paper gives it
    title: str
    tool: str
    scope: str
    cite: dict[str, str]
    relative_to: str = ""  # a design: only ratios to its row compare
    project_n: int = 0  # the width the project compares at, when the paper gives none
    # designs of other papers that this one measures too: design -> what the paper calls it
    others: dict[str, str] = field(default_factory=dict)
    # its figures leave a carry-save loop's final adder out: the project's loops alone
    # (synth.synth.LOOP_ONLY) beside them
    loop_only: bool = False
    # its dual-field design runs both fields at one clock: each field alone
    # (synth.synth.FIELD_VARIANTS) beside it
    per_field: bool = False


@dataclass(frozen=True)
class Figure:
    paper: Paper
    label: str  # the paper's name for the design
    device: PaperDevice
    quantities: dict[str, str]  # as printed
    design: str = ""  # the project's design ("" none, see why)
    why: str = ""
    config: str = ""  # the paper's configuration in its words
    n: int = 0  # the operand width (0: the paper gives none)
    params: dict[str, int | str] = field(default_factory=dict)
    gf: int = 0  # the TOML's `field`: mont_dual's CTRL.FIELD, 1 for GF(2^n)
    cite: dict[str, str] = field(default_factory=dict)
    misprints: tuple[str, ...] = ()
    note: str = ""

    def text(self, q: str) -> str | None:
        return self.quantities.get(q)

    def value(self, q: str) -> float | None:
        """The quantity as a number (None: not given, or a misprint the paper's own figures
        contradict, see `note`)."""
        given = self.quantities.get(q)
        if given is None or q in self.misprints or q in TEXT:
            return None
        return float(given.replace(",", ""))

    def citation(self, q: str) -> str:
        return self.cite.get(q) or self.paper.cite.get(q, "")

    @property
    def width(self) -> int:
        """The width the project's figure is taken at: the paper's, else the paper's
        project_n."""
        return self.n or self.paper.project_n

    def project_params(self) -> dict[str, int]:
        """Every parameter of the project's design beyond N, defaults filled in (as a
        result's `parameters` holds them)."""
        return load_design(self.design).resolve_synth(self.params) if self.design else {}

    def spec(self, variant: str = "") -> synth.SynthSpec:
        """The project's synthesis of this configuration (the parameters as given), or of
        its `variant` (synth.synth.VARIANTS: the part the paper times alone)."""
        return synth.SynthSpec(self.design, self.width,
                               load_design(self.design).normalize_synth(self.params),
                               variant=variant)

    def where(self) -> str:
        config = f", {self.config}" if self.config else (f", n = {self.n}" if self.n else "")
        return f"{self.label}{config}"


@dataclass(frozen=True)
class Figures:
    families: dict[str, Family]
    devices: dict[str, PaperDevice]
    papers: list[Paper]
    figures: list[Figure]

    def of(self, paper: Paper) -> list[Figure]:
        return [f for f in self.figures if f.paper.key == paper.key]

    def configurations(self) -> list[Figure]:
        """One figure per project configuration (design, width, parameters), in order."""
        seen: set[str] = set()
        out = []
        for f in self.figures:
            if f.design and (key := f.spec().key) not in seen:
                seen.add(key)
                out.append(f)
        return out


# --- reading figures.toml -------------------------------------------------------------------

def _str(table: Mapping[str, object], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or (default is None and not value):
        raise ConfigError(f"{where}: `{key}` must be a non-empty string")
    return value


def _int(table: Mapping[str, object], key: str, where: str) -> int:
    value = table.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"{where}: `{key}` must be a whole number >= 0")
    return value


def _table(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table")
    return value


def _only(table: Mapping[str, object], keys: Sequence[str], where: str) -> None:
    if unknown := sorted(set(table) - set(keys)):
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _cite(value: object, where: str) -> dict[str, str]:
    table = _table(value, where)
    for q, text in table.items():
        if q not in QUANTITIES:
            raise ConfigError(f"{where}: unknown quantity {q!r}")
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{where}: the citation of {q} must be a non-empty string")
    return {str(q): str(t) for q, t in table.items()}


def _family(key: str, raw: object) -> Family:
    where = f"families.{key}"
    t = _table(raw, where)
    _only(t, ("name", "source", "lut_inputs", "luts_per_slice", "ffs_per_slice", "multiplier",
              "asic", "process"), where)
    asic = t.get("asic", False) is True
    fam = Family(key, _str(t, "name", where), _str(t, "source", where),
                 _int(t, "lut_inputs", where), _int(t, "luts_per_slice", where),
                 _int(t, "ffs_per_slice", where), _str(t, "multiplier", where, ""), asic,
                 _str(t, "process", where, ""))
    if not asic and not (fam.lut_inputs and fam.luts_per_slice and fam.ffs_per_slice):
        raise ConfigError(f"{where}: an FPGA family needs lut_inputs, luts_per_slice and "
                          "ffs_per_slice")
    return fam


def _device(key: str, raw: object, families: Mapping[str, Family]) -> PaperDevice:
    where = f"devices.{key}"
    t = _table(raw, where)
    _only(t, ("name", "family", "source", "slices", "luts", "ffs", "mults"), where)
    family = _str(t, "family", where)
    if family not in families:
        raise ConfigError(f"{where}: unknown family {family!r}")
    capacity: dict[str, int] = {k: _int(t, k, where) for k in ("slices", "luts", "ffs", "mults")
                                if k in t}
    return PaperDevice(key, _str(t, "name", where), families[family], _str(t, "source", where),
                  capacity)


def _paper(key: str, raw: object) -> Paper:
    where = f"papers.{key}"
    t = _table(raw, where)
    _only(t, ("name", "title", "tool", "scope", "cite", "relative_to", "project_n",
              "others", "loop_only", "per_field"), where)
    others = _table(t.get("others", {}), f"{where}.others")
    loop_only, per_field = t.get("loop_only", False), t.get("per_field", False)
    if not isinstance(loop_only, bool) or not isinstance(per_field, bool):
        raise ConfigError(f"{where}: `loop_only` and `per_field` must be true or false")
    paper = Paper(key, _str(t, "name", where), _str(t, "title", where),
                  _str(t, "tool", where), _str(t, "scope", where),
                  _cite(t.get("cite", {}), f"{where}.cite"),
                  _str(t, "relative_to", where, ""), _int(t, "project_n", where),
                  {str(k): _str(others, k, f"{where}.others") for k in others}, loop_only,
                  per_field)
    for design in (paper.relative_to, *paper.others):
        if design and design not in known_designs():
            raise ConfigError(f"{where}: names no design: {design!r}")
    return paper


def _figure(i: int, raw: object, papers: Mapping[str, Paper],
            devices: Mapping[str, PaperDevice]) -> Figure:
    where = f"figures[{i}]"
    t = _table(raw, where)
    _only(t, ("paper", "label", "device", "quantities", "design", "why", "config", "n",
              "params", "field", "cite", "misprints", "note"), where)
    paper_key, device_key = _str(t, "paper", where), _str(t, "device", where)
    if paper_key not in papers:
        raise ConfigError(f"{where}: unknown paper {paper_key!r}")
    if device_key not in devices:
        raise ConfigError(f"{where}: unknown device {device_key!r}")
    quantities = _table(t.get("quantities"), f"{where}.quantities")
    params = _table(t.get("params", {}), f"{where}.params")
    misprints = t.get("misprints", [])
    if not isinstance(misprints, list) or not all(isinstance(m, str) for m in misprints):
        raise ConfigError(f"{where}: `misprints` must be a list of quantity names")
    fig = Figure(papers[paper_key], _str(t, "label", where), devices[device_key],
                 {str(k): v for k, v in quantities.items() if isinstance(v, str)},
                 _str(t, "design", where, ""), _str(t, "why", where, ""),
                 _str(t, "config", where, ""), _int(t, "n", where),
                 {str(k): v for k, v in params.items() if isinstance(v, (int, str))},
                 _int(t, "field", where), _cite(t.get("cite", {}), f"{where}.cite"),
                 tuple(misprints), _str(t, "note", where, ""))
    where = f"{where} ({fig.paper.name}, {fig.label})"
    if len(fig.quantities) != len(quantities) or len(fig.params) != len(params):
        raise ConfigError(f"{where}: quantities are strings of the printed digits, "
                          "parameters numbers or names")
    for q, text in fig.quantities.items():
        if q not in QUANTITIES:
            raise ConfigError(f"{where}: unknown quantity {q!r}")
        if q not in TEXT and not _NUMBER.match(text):
            raise ConfigError(f"{where}: {q} = {text!r} is not a number as printed")
        if not fig.citation(q):
            raise ConfigError(f"{where}: {q} has no citation")
    if bad := sorted(set(fig.misprints) - set(fig.quantities)):
        raise ConfigError(f"{where}: misprints names no quantity of it: {', '.join(bad)}")
    if fig.misprints and not fig.note:
        raise ConfigError(f"{where}: a misprint needs a `note` saying how it shows")
    if not fig.design:
        if not fig.why:
            raise ConfigError(f"{where}: no project design (design = \"\") needs `why`")
        return fig
    design = load_design(fig.design)  # ConfigError for an unknown design
    if design.paper != fig.paper.name and fig.design not in fig.paper.others:
        raise ConfigError(f"{where}: {fig.design} is {design.paper}'s design, not "
                          f"{fig.paper.name}'s (nor among the paper's `others`)")
    if not fig.width:
        raise ConfigError(f"{where}: no width: give `n`, or the paper's `project_n`")
    if fig.gf not in (0, 1) or (fig.gf and not design.cycles_field1):
        raise ConfigError(f"{where}: field = {fig.gf}: {fig.design} has no such field")
    try:
        synth.plan(fig.spec())  # the width and the parameters as a synthesis checks them
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return fig


def load(path: Path = FIGURES) -> Figures:
    """The figures of `path`, checked; ConfigError (one line) for anything that does not
    hold together."""
    try:
        raw = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"cannot read the papers' figures {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not TOML ({exc})") from None
    try:
        _only(raw, ("families", "devices", "papers", "figures"), "the file")
        families = {k: _family(k, v) for k, v in _table(raw.get("families"),
                                                         "families").items()}
        devices = {k: _device(k, v, families) for k, v in _table(raw.get("devices"),
                                                                  "devices").items()}
        papers = {k: _paper(k, v) for k, v in _table(raw.get("papers"), "papers").items()}
        entries = raw.get("figures")
        if not isinstance(entries, list) or not entries:
            raise ConfigError("no [[figures]]")
        figures = [_figure(i, e, papers, devices) for i, e in enumerate(entries)]
    except ConfigError as exc:
        raise ConfigError(f"{path.name}: {exc}") from None
    for paper in papers.values():
        rows = [f for f in figures if f.paper.key == paper.key]
        if paper.relative_to and not any(f.design == paper.relative_to for f in rows):
            raise ConfigError(f"{path.name}: papers.{paper.key}: no figure of its "
                              f"relative_to design {paper.relative_to}")
    return Figures(families, devices, list(papers.values()), figures)


# --- normalisation ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Norm:
    """A figure in a unit fair to both sides, or why there is none (value None)."""

    value: float | None
    unit: str  # "LUT4 + FF", "LUT4", "LUT4 + FF, at most"
    how: str  # the arithmetic, or the reason


def slices_of(fig: Figure) -> float | None:
    """The slices the figure gives, or its percentage of the device's slices."""
    if (slices := fig.value("slices")) is not None:
        return slices
    pct, total = fig.value("slices_pct"), fig.device.capacity.get("slices")
    return pct * total / 100 if pct is not None and total else None


def paper_area(fig: Figure) -> Norm:
    """The paper's area in LUTs plus flip-flops (of its family's LUT size), in LUTs alone
    where it counts no flip-flops, or bounded by its slices; else why not."""
    fam = fig.device.family
    if fam.asic:
        return Norm(None, "", f"not comparable: an ASIC ({fig.device.name}) has no LUTs or "
                              "flip-flops")
    luts, ffs = fig.value("luts"), fig.value("ffs")
    if luts is not None and ffs is not None:
        return Norm(luts + ffs, f"{fam.lut} + FF", f"{luts:.0f} + {ffs:.0f}")
    slices = slices_of(fig)
    if slices is not None:
        per = fam.luts_per_slice + fam.ffs_per_slice
        return Norm(slices * per, f"{fam.lut} + FF, at most",
                    f"{slices:.0f} slices × ({fam.luts_per_slice} {fam.lut} + "
                    f"{fam.ffs_per_slice} FF)")
    if luts is not None:
        return Norm(luts, fam.lut, "LUTs only: the paper counts no flip-flops")
    return Norm(None, "", "no LUT, flip-flop or slice count")


def project_area(result: synth_results.Result, luts_only: bool = False) -> int:
    """The project's LUTs (+ flip-flops): 7-series LUT6 cells (synth.json), or ECP5 LUT4s,
    a carry cell counted as its two LUT4s (pnr.json): `cells.luts` of either."""
    cells = result["cells"]
    assert isinstance(cells, Mapping)
    luts, ffs = int(cells["luts"]), int(cells["flip_flops"])
    return luts if luts_only else luts + ffs


def project_mults(result: synth_results.Result, target: str) -> int:
    cells = result["cells"]
    assert isinstance(cells, Mapping)
    return int(cells["dsp48e1" if target == synth.FAMILY else "mult18x18d"])


def paper_clock_ns(fig: Figure) -> tuple[float, str] | None:
    """The paper's clock period and where it comes from: its period, its frequency, or
    (neither given) its time per multiplication over its cycles (implied)."""
    if (period := fig.value("period_ns")) is not None:
        return period, f"{fig.text('period_ns')} ns ({fig.citation('period_ns')})"
    if (mhz := fig.value("clock_mhz")) is not None:
        return 1000 / mhz, f"{fig.text('clock_mhz')} MHz ({fig.citation('clock_mhz')})"
    product, cycles = paper_product_ns(fig), fig.value("cycles")
    if product is not None and cycles:
        return product[0] / cycles, (f"{1000 * cycles / product[0]:.0f} MHz, implied by "
                                     f"{fig.text('cycles')} cycles ({fig.citation('cycles')}) "
                                     f"in {product[1]}")
    return None


def paper_product_ns(fig: Figure) -> tuple[float, str] | None:
    """The paper's time per multiplication: as printed, or its time per exponentiation over
    its count of multiplications (derived)."""
    if (ns := fig.value("product_ns")) is not None:
        return ns, f"{fig.text('product_ns')} ns ({fig.citation('product_ns')})"
    if (us := fig.value("product_us")) is not None:
        return us * 1000, f"{fig.text('product_us')} µs ({fig.citation('product_us')})"
    exp, count = paper_exp_ns(fig), fig.value("exp_products")
    if exp is not None and count:
        return exp[0] / count, (f"{exp[0] / count / 1000:.3g} µs = {exp[1]} / "
                                f"{fig.text('exp_products')} ({fig.citation('exp_products')})")
    return None


def paper_exp_ns(fig: Figure) -> tuple[float, str] | None:
    if (ms := fig.value("exp_ms")) is not None:
        return ms * 1e6, f"{fig.text('exp_ms')} ms ({fig.citation('exp_ms')})"
    if (ns := fig.value("exp_ns")) is not None:
        return ns, f"{fig.text('exp_ns')} ns ({fig.citation('exp_ns')})"
    return None


def project_cycles(fig: Figure) -> int | None:
    """The project's cycles per multiplication at the figure's configuration (the RSA
    core: one step of its multipliers, Lm + 1)."""
    if not fig.design:
        return None
    params = fig.project_params()
    if fig.design == "rsa_core":
        vwp = {k: params[k] for k in ("V", "W", "P", "PeLatency")}
        return rsa_model.mult_cycles(params["Mult"], fig.width, **vwp) + \
            rsa_model.CAPTURE_CYCLES
    return load_design(fig.design).cycles_at(fig.width, params, field1=fig.gf == 1)


def project_exp_cycles(fig: Figure) -> int | None:
    """The project's cycles per exponentiation: the RSA core's own count for an exponent of
    n ones (the worst case, as the paper's), else the paper's count of multiplications times
    the project's cycles per multiplication."""
    if not fig.design:
        return None
    if fig.design == "rsa_core":
        params = fig.project_params()
        return rsa_model.rsa_cycles((1 << fig.width) - 1, fig.width, **params)
    cycles, count = project_cycles(fig), fig.value("exp_products")
    return int(cycles * count) if cycles is not None and count else None


def estimate_ns(result: synth_results.Result, target: str, cycles: int) -> float | None:
    """The project's own time for `cycles`: x the 7-series period floor (a lower bound,
    regress/synth/xc7_floor.py), or over the ECP5 routed Fmax."""
    timing = result["timing"]
    assert isinstance(timing, Mapping)
    if target == synth.FAMILY:
        floor = xc7_floor.period_floor_ns(result)
        return cycles * floor if floor is not None else None
    fmax = timing.get("fmax_mhz")
    return cycles * 1000 / float(fmax) if isinstance(fmax, (int, float)) and fmax > 0 else None


# --- rendering -------------------------------------------------------------------------------

def fmt_time(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.3g} ns"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _head(*columns: str) -> list[str]:
    return [_row(columns), "|" + "---|" * len(columns)]


def given(fig: Figure, names: Mapping[str, str]) -> str:
    """The figure's quantities of `names` as printed, each with its citation."""
    out = []
    for q, unit in names.items():
        if (text := fig.text(q)) is None:
            continue
        mark = " (misprint, see below)" if q in fig.misprints else ""
        if q in TEXT:
            out.append(f"{unit}: {text} [{fig.citation(q)}]")
            continue
        sep = "" if unit.startswith("%") else " "
        out.append(f"{text}{sep}{unit}{mark} [{fig.citation(q)}]")
    return "; ".join(out) or "–"


@dataclass(frozen=True)
class OurResults:
    """The project's results for one figure's configuration (None: none on file), and
    the 7-series synthesis of its loop alone (a paper that times the loop: relative_to)."""

    xc7: synth_results.Result | None
    ecp5: synth_results.Result | None
    loop: synth_results.Result | None = None

    @property
    def results(self) -> list[synth_results.Result]:
        return [r for r in (self.xc7, self.ecp5, self.loop) if r is not None]


def alone(fig: Figure) -> str:
    """The synthesis variant that times the part of the design the paper times alone: the
    loop (a paper that leaves the final adder out, a design with a carry-save result), one
    field (a dual-field paper: the figure's field), or "" (the core as a whole)."""
    if not fig.design:
        return ""
    design = load_design(fig.design)
    for wanted, variant in ((fig.paper.loop_only, synth.LOOP_ONLY),
                            (fig.paper.per_field, f"field{fig.gf}")):
        if wanted and synth.variant_refusal(design, variant) is None:
            return variant
    return ""


def project_of(fig: Figure, results: synth_results.Results) -> OurResults:
    if not fig.design:
        return OurResults(None, None)
    params = fig.project_params()
    variant = alone(fig)
    loop = (synth_results.find(results[synth.FAMILY], fig.design, fig.width, params, variant)
            if variant else None)
    return OurResults(synth_results.find(results[synth.FAMILY], fig.design, fig.width, params),
                   synth_results.find(results[pnr.FAMILY], fig.design, fig.width, params),
                   loop)


def to_measure(figures: Figures, place: bool = False) -> list[tuple[Figure, str]]:
    """The syntheses `--papers --measure` takes: each configuration as a whole, and
    (7-series) the part each figure's paper times alone (alone(): a loop, a field)."""
    out = [(fig, "") for fig in figures.configurations()]
    if not place:
        parts = {fig.spec(alone(fig)).key: fig for fig in figures.figures if alone(fig)}
        out += [(fig, alone(fig)) for fig in parts.values()]
    return out


def design_cell(fig: Figure) -> str:
    if not fig.design:
        return f"none: {fig.why}"
    shown = [f"{k}={v}" for k, v in fig.params.items()] + (["GF(2^n)"] if fig.gf else [])
    return f"`{fig.design}` N={fig.width}" + (f" ({', '.join(shown)})" if shown else "")


NOT_YET = {synth.FAMILY: "not synthesised yet", pnr.FAMILY: "not placed and routed yet"}


def _area_cell(result: synth_results.Result | None, target: str, norm: Norm,
               same_lut: bool, luts_only: bool) -> str:
    if result is None:
        return NOT_YET[target]
    value = project_area(result, luts_only)
    if norm.value is not None and same_lut:
        return f"{value} ({ratio(value, norm.value)})"
    return str(value)


def area_rows(figs: Sequence[Figure], results: synth_results.Results) -> list[str]:
    several = len({f.device.key for f in figs}) > 1  # else the heading names the device
    lines = _head("paper: design, configuration", *(["device"] if several else []),
                  "the paper's area", "paper: normalised", "project",
                  "project: xc7 LUT6 + FF (÷ paper)", "project: ECP5 LUT4 + FF (÷ paper)",
                  "multipliers: paper / xc7 / ECP5")
    for fig in figs:
        norm, proj = paper_area(fig), project_of(fig, results)
        luts_only = norm.unit == fig.device.family.lut
        lut = fig.device.family.lut_inputs
        mults = fig.text("mults")
        if fig.design:
            xc7 = _area_cell(proj.xc7, synth.FAMILY, norm, lut == 6, luts_only)
            ecp5 = _area_cell(proj.ecp5, pnr.FAMILY, norm, lut == 4, luts_only)
            got = [str(project_mults(r, t)) if r is not None else "–"
                   for r, t in ((proj.xc7, synth.FAMILY), (proj.ecp5, pnr.FAMILY))]
            mult_cell = f"{mults or '–'} / {' / '.join(got)}" if mults or any(
                g not in ("0", "–") for g in got) else "–"
        else:
            xc7 = ecp5 = "–"
            mult_cell = mults or "–"
        if luts_only and fig.design:
            xc7, ecp5 = f"{xc7} (LUTs)", f"{ecp5} (LUTs)"
        normalised = (f"{norm.value:.0f} {norm.unit} ({norm.how})" if norm.value is not None
                      else norm.how)
        lines.append(_row([fig.where(), *([fig.device.name] if several else []),
                           given(fig, {**AREA, **TEXT}), normalised, design_cell(fig), xc7, ecp5,
                           mult_cell]))
    return lines


def time_rows(figs: Sequence[Figure], results: synth_results.Results) -> list[str]:
    exps = any(paper_exp_ns(f) is not None for f in figs)
    columns = ["paper: design, configuration", "paper's clock", "paper's time per "
               "multiplication", "project cycles per multiplication",
               "project at the paper's clock (÷ paper)", "project: xc7 bound (≥)",
               "project: ECP5 routed"]
    loops = any(alone(f) for f in figs)
    if loops:
        columns += ["project: xc7, the part the paper times alone: period ≥ (÷ paper's "
                    "clock)"]
    if exps:
        columns += ["paper's exponentiation", "project's at the paper's clock (÷ paper)"]
    lines = _head(*columns)
    for fig in figs:
        clock, product = paper_clock_ns(fig), paper_product_ns(fig)
        proj = project_of(fig, results)
        cycles = project_cycles(fig)
        at_clock = own_xc7 = own_ecp5 = "–"
        if cycles is not None and clock is not None:
            ns = cycles * clock[0]
            at_clock = fmt_time(ns) + (f" ({ratio(ns, product[0])})" if product else "")
        if cycles is not None:
            for target, r in ((synth.FAMILY, proj.xc7), (pnr.FAMILY, proj.ecp5)):
                est = estimate_ns(r, target, cycles) if r is not None else None
                text = fmt_time(est) if est is not None else (
                    NOT_YET[target] if r is None else "–")
                if target == synth.FAMILY:
                    own_xc7 = text
                else:
                    own_ecp5 = text
        row = [fig.where(), clock[1] if clock else "not given",
               product[1] if product else "not given",
               str(cycles) if cycles is not None else (f"none: {fig.why}" if not fig.design
                                                      else "–"),
               at_clock, own_xc7, own_ecp5]
        if loops:
            row.append(loop_period(fig, proj.loop, clock))
        if exps:
            exp, exp_cycles = paper_exp_ns(fig), project_exp_cycles(fig)
            mine = "–"
            if exp_cycles is not None and clock is not None:
                ns = exp_cycles * clock[0]
                mine = f"{exp_cycles} cycles: {fmt_time(ns)}" + (
                    f" ({ratio(ns, exp[0])})" if exp else "")
            row += [exp[1] if exp else "–", mine]
        lines.append(_row(row))
    return lines


def relative_rows(paper: Paper, figs: Sequence[Figure],
                  results: synth_results.Results) -> list[str]:
    """A paper without operand widths: each row's area and delay over its baseline's (the
    row of `relative_to` on the same device), beside the project's ratios at project_n."""
    lines = _head("paper: design", "device", "the paper's figures", "area ÷ baseline",
                  "delay ÷ baseline", "project", "xc7 LUTs ÷ baseline",
                  "xc7 LUT + FF ÷ baseline", "cycles ÷ baseline",
                  "xc7 time per multiplication ÷ baseline",
                  "xc7 loop alone: time per bit of X ÷ baseline")
    for fig in figs:
        base = next((f for f in figs if f.design == paper.relative_to
                     and f.device.key == fig.device.key), fig)
        unit = "luts" if fig.value("luts") is not None else "gates"
        area, base_area = fig.value(unit), base.value(unit)
        delay, base_delay = fig.value("delay_ns"), base.value("delay_ns")
        paper_area_ratio = (ratio(area, base_area) + ("" if unit == "luts" else " (gates)")
                            if area is not None and base_area else "–")
        paper_delay_ratio = ratio(delay, base_delay) if delay and base_delay else "–"
        mine, theirs = project_of(fig, results).xc7, project_of(base, results).xc7
        cycles, base_cycles = project_cycles(fig), project_cycles(base)
        cells = ["not synthesised yet"] * 2 + ["–", "not synthesised yet"] + \
            [loop_ratio(project_of(fig, results).loop, project_of(base, results).loop,
                        cycles, base_cycles)]
        if cycles is not None and base_cycles:
            cells[2] = ratio(cycles, base_cycles)
        if mine is not None and theirs is not None:
            cells[0] = ratio(project_area(mine, True),
                             project_area(theirs, True))
            cells[1] = ratio(project_area(mine),
                             project_area(theirs))
            own = estimate_ns(mine, synth.FAMILY, cycles or 0)
            base_own = estimate_ns(theirs, synth.FAMILY, base_cycles or 0)
            cells[3] = ratio(own, base_own) if own and base_own else "–"
        lines.append(_row([fig.label, fig.device.name,
                           given(fig, {**AREA, **TIME}), paper_area_ratio, paper_delay_ratio,
                           design_cell(fig), *cells]))
    return lines


def loop_period(fig: Figure, part: synth_results.Result | None,
                clock: tuple[float, str] | None) -> str:
    """The period floor of the part the paper times alone (alone(): the loop, its final
    adder left out; one field), over the paper's clock period."""
    variant = alone(fig)
    if not variant:
        return "–"
    if part is None:
        return "not synthesised yet"
    floor = xc7_floor.period_floor_ns(part)
    if floor is None:
        return "–"
    return (f"{synth.VARIANTS[variant]}: {floor:.2f} ns"
            + (f" ({ratio(floor, clock[0])})" if clock else ""))


def loop_ratio(mine: synth_results.Result | None, base: synth_results.Result | None,
               cycles: int | None, base_cycles: int | None) -> str:
    """The loop's own time per bit of X (its period floor x cycles / N: the paper's
    'critical path delay', the time to compute one bit) over the baseline's."""
    if mine is None or base is None:
        return "not synthesised yet"
    own = estimate_ns(mine, synth.FAMILY, cycles or 0)
    base_own = estimate_ns(base, synth.FAMILY, base_cycles or 0)
    if not own or not base_own:
        return "–"
    return ratio(own / int(str(mine["n"])), base_own / int(str(base["n"])))


def missing(figs: Sequence[Figure], results: synth_results.Results) -> list[str]:
    """The command of each configuration with no 7-series result on file (and of its loop
    alone, for a paper that times its loops)."""
    out: list[str] = []
    for fig in figs:
        if not fig.design:
            continue
        found = project_of(fig, results)
        for variant in dict.fromkeys(("", alone(fig))):
            if (found.loop if variant else found.xc7) is not None:
                continue
            spec = fig.spec(variant)
            params = "".join(f" --param {k}={load_design(fig.design).param_text(k, v)}"
                             for k, v in spec.params)
            option = (" --loop-only" if variant == synth.LOOP_ONLY else
                      f" --field {synth.FIELD_VARIANTS[variant]}" if variant else "")
            line = f"`montverif synth run --dut {spec.dut} --n {spec.n}{params}{option}`"
            if line not in out:
                out.append(line)
    return out


def used_results(figures: Figures, results: synth_results.Results) -> list[synth_results.Result]:
    out: list[synth_results.Result] = []
    for fig in figures.figures:
        for r in project_of(fig, results).results:
            if not any(r is o for o in out):
                out.append(r)
    return out


def render_paper(figures: Figures, paper: Paper, results: synth_results.Results) -> list[str]:
    figs = figures.of(paper)
    devices = ", ".join(dict.fromkeys(f.device.name for f in figs))
    lines = [f"## {paper.name}: {devices}", "",
             f"{paper.title}. Tool: {paper.tool}. What the figures cover: {paper.scope}.", ""]
    if paper.relative_to:
        lines += [f"No operand width is given: each row over the {paper.relative_to} row of "
                  f"the same device, the project's at N = {paper.project_n}.", "",
                  *relative_rows(paper, figs, results), ""]
    else:
        lines += ["Area:", "", *area_rows(figs, results), "", "Time:", "",
                  *time_rows(figs, results), ""]
    notes = [f"- {f.where()} ({f.device.name}): {f.note}" for f in figs if f.note]
    if notes:
        lines += ["Notes on the paper's figures:", "", *notes, ""]
    if todo := missing(figs, results):
        lines += ["Not synthesised yet: " + ", ".join(todo) + ".", ""]
    return lines


def render(figures: Figures, results: synth_results.Results,
           results_name: str = "regress/synth/synth-results.json") -> str:
    """The generated page's text: its title, the revisions of the project's figures, and the
    comparison paper by paper."""
    used = used_results(figures, results)
    revisions = sorted({str(r["revision"]) for r in used})
    tools = sorted({str(r["yosys"]) for r in used if r.get("yosys")} |
                   {str(r["nextpnr"]) for r in used if r.get("nextpnr")})
    said = (f"The project's figures: {len(used)} results of {results_name}, measured at "
            f"revision {', '.join(revisions)} with {', '.join(tools)}"
            if used else f"The project's figures: none in {results_name} yet")
    lines = ["# The papers' figures beside the project's synthesis", "",
             "How to read them, and what compares: docs/papers.md (written by hand).", "",
             f"{said}. The papers' figures: docs/papers/figures.toml.", ""]
    for paper in figures.papers:
        lines += render_paper(figures, paper, results)
    return "\n".join(lines).strip()


def write(text: str, page: Path = DEFAULT_OUT) -> None:
    """The page (ConfigError when `page` is someone's own file)."""
    pages.write(page, COMMAND, text)
