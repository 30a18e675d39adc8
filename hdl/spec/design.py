"""A design's descriptor (hdl/<family>/<design>.toml), read and checked: everything the
project knows about one design. docs/own-design.md describes every key.

Every other place that needs a fact about a design takes it from here: the simulated top
(montverif.spec.top), the register map's design ids (montverif.spec.generate), the registry of
models (montverif.models.registry), the testbench, the flow, the test points and the README.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from montverif.host.errors import ConfigError
from montverif.host.paths import COMMON, HDL, shown
from montverif.host.tomlfile import read_toml
from montverif.spec import foreign, formula, schema, stream
from montverif.spec.fields import Table, shown_value
from montverif.spec.foreign import ForeignCore
from montverif.spec.regmap import Region, RegMap
from montverif.spec.regmap import load as regmap_load
from montverif.spec.sections import (
    SIMULATORS,
    CoverageGoal,
    Observe,
    PaperCycles,
    PaperFigure,
    Rsa,
    RsaMonitor,
    RsaVariant,
    SecondField,
    SimPoints,
    Testbench,
)
from montverif.spec.stream import StreamCore
from montverif.spec.svnames import is_keyword

# An operand's domain ([operands] domain): below M, any N-bit value, or (a carry-save group,
# named by its first register) a sum below 2M. The loader refuses START outside it (ERR_RANGE).
DOMAINS = tuple(schema.definition("operands", "domain")["additionalProperties"]["enum"])
# The operands the bus loader's range rule can check, each by a parameter of its own
# (mv_bus_loader's RangeX, RangeY; a carry-save operand by its group's sum).
LOADER_RANGE_OPERANDS = ("X", "Y")
# What a design promises over its domain ([operands] promise): relations in the names below
# and its build parameters. p: the result P; v: the value its final reduction starts from
# (S + C, or the unreduced result of a design without S, C).
PROMISE_KEYS = tuple(schema.definition("operands", "promise")["properties"])
PROMISE_NAMES = ("x", "y", "m", "n", "r", "p", "v")
LOADER_SOURCE = COMMON / "mv_bus_loader.sv"  # the bus loader: the testbench's register file
COMMON_SOURCES = (COMMON / "mv_regmap_pkg.sv", LOADER_SOURCE)
# the streaming harness's source and sink (simulation only): a streaming design's builds
# compile it instead of the bus loader
STREAM_ENGINE = COMMON / "mv_stream_engine.sv"
# The RSA core's multiplier interfaces as its monitors read them (verif/env/rsa_env.py):
# <prefix>_<signal> in the core for each prefix of [rsa] mults, plus the modulus input.
MULT_SIGNALS = ("busy", "x", "y", "p", "s", "c")
RSA_MODULUS = "m_i"
TOP_SUFFIX = "_top"


@dataclass(frozen=True)
class Param:
    """A build parameter beyond N: an RTL parameter of the same name. With `choices` its
    value is one of them by name (the RTL gets the index)."""

    name: str
    default: int | str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    doc: str = ""
    # the largest value the paper's hardware allows (a digit width its multiplier takes),
    # and where the paper says so: legal above it only when asked (--beyond-paper)
    paper_max: int | None = None
    paper: str = ""

    def value(self, given: int | str) -> int:
        """The RTL value of `given` (a choice's index, or the integer itself), checked."""
        if self.choices:
            if isinstance(given, str):
                if given not in self.choices:
                    raise ConfigError(f"{self.name}={given} is not one of "
                                      f"{', '.join(self.choices)}")
                return self.choices.index(given)
            if not 0 <= given < len(self.choices):
                raise ConfigError(f"{self.name}={given}: one of {', '.join(self.choices)} "
                                  f"(or its index 0..{len(self.choices) - 1})")
            return given
        if isinstance(given, str):
            raise ConfigError(f"{self.name}={given}: expected an integer")
        if self.low is not None and given < self.low:
            raise ConfigError(f"{self.name}={given} is below its least value {self.low}")
        if self.high is not None and given > self.high:
            raise ConfigError(f"{self.name}={given} is above its largest value {self.high}")
        return given

    def name_of(self, value: int) -> str:
        """How a value is written in keys and repro lines (a choice by name)."""
        return self.choices[value] if self.choices else str(value)


@dataclass(frozen=True)
class Design:
    """One design, as its descriptor says. Paths are absolute."""

    name: str
    id: int
    family: str
    paper: str
    algorithm: str
    notes: str
    descriptor: Path
    rtl: tuple[Path, ...]  # the design's own RTL, in compile order
    shared: tuple[Path, ...]  # shared RTL it instantiates (observation modules ...)
    uses: tuple[str, ...]  # designs whose RTL it instantiates
    min_n: int  # the narrowest legal N at the default parameters
    max_n: int
    kind: str
    summary: str
    operands: tuple[str, ...]  # START reads these, in the model's argument order, M last
    # operand (a carry-save group by its first register) -> one of DOMAINS; the modulus and
    # the second halves have none
    domain: Mapping[str, str]
    model_function: str  # "<module>:<function>" in montverif.models
    cycles: str = ""  # this design's cycles per operation (an expression), "" if none
    cycles_field1: str = ""  # with CTRL.FIELD = 1
    cycles_note: str = ""  # what to show where no expression is given
    r_bits: str = "n"  # mont: P = X*Y*2^-r mod M
    field1: SecondField | None = None  # [function] field1: CTRL.FIELD = 1's kind, r_bits
    carry_save_operands: tuple[tuple[str, ...], ...] = ()
    # PROMISE_KEYS -> a relation the result satisfies over the domain (docs/design-notes.md)
    promise: Mapping[str, str] = field(default_factory=dict)
    precompute: Mapping[str, str] = field(default_factory=dict)  # register -> function
    # registers whose values are secret (the RSA core's private exponent): every log shows
    # a digest of them (montverif.host.secrets)
    secret: tuple[str, ...] = ()
    redundant_extra_bits: int | None = None  # None: the design keeps no S/C
    model_check: str = ""
    block_params: str = ""
    shape: str = ""  # [model] shape: what the RTL derives from N beyond the parameters
    parameters: Mapping[str, Param] = field(default_factory=dict)
    # [synthesis] parameters: RTL parameters of the core that only a synthesis sets (the
    # simulated top and the models keep them at their defaults), and the cycles with them
    synth_parameters: Mapping[str, Param] = field(default_factory=dict)
    synth_cycles: str = ""
    fault_params: Mapping[str, int] = field(default_factory=dict)
    observe: Observe = Observe()  # [observe]
    paper_cycles: PaperCycles = PaperCycles()  # [paper]: what the paper states
    # [formal] points: (N, build parameters) at which `montverif formal --dut` checks the core
    formal_points: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()
    formal_timeout: int = 0  # [formal] timeout: seconds a point may take (0: the command's)
    test: SimPoints = SimPoints()  # [test]: the points of its simulation tests
    coverage: CoverageGoal = CoverageGoal()  # [coverage]
    testbench: Testbench = Testbench()  # [testbench]
    rsa: Rsa | None = None  # [rsa]: the modexp core's monitored signals
    core: str = ""  # the core module (default: the design's name)
    ports: Mapping[str, str] = field(default_factory=dict)  # core port -> top expression
    used_rtl: tuple[Path, ...] = ()  # the RTL of the designs it uses, in compile order
    owns: tuple[Path, ...] = ()  # shared RTL whose mutants this design's campaign runs
    # its entries of the regression lists: list name -> entries (regress/lists.toml's keys)
    lists: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    foreign: ForeignCore | None = None  # [core]: a core with its own ports and handshake
    stream: StreamCore | None = None  # [stream]: a streaming core, behind the stream harness
    generic_model: bool = False  # [model] generic: P from the reference, cycles stated here
    # widths.min as an expression of the build parameters ("" when it is a number): the
    # narrowest N of a build depends on them (mont_dual: K + K * Units)
    min_n_expr: str = ""

    # --- identity ---------------------------------------------------------------------------
    @property
    def from_project(self) -> bool:
        """A user project's design (montverif.host.project): its descriptor is outside
        montverif's hdl/, so nothing derived from it is written into montverif's sources."""
        return not self.descriptor.is_relative_to(HDL)

    @property
    def model(self) -> str:
        """The registry name of the design's model (its own name)."""
        return self.name

    @property
    def toplevel(self) -> str:
        """The simulated top: the core behind the bus loader (montverif.spec.top), or a
        streaming core between the stream harness's source and sink (.stream_top)."""
        return self.name + TOP_SUFFIX

    @property
    def core_module(self) -> str:
        if self.foreign is not None:
            return self.foreign.module
        return self.core or self.name

    @property
    def rtl_sources(self) -> tuple[Path, ...]:
        """Every RTL file a build of the design compiles but its generated top."""
        ordered: dict[Path, None] = dict.fromkeys(
            (STREAM_ENGINE,) if self.stream is not None else COMMON_SOURCES)
        ordered |= dict.fromkeys(self.used_rtl)
        ordered |= dict.fromkeys(self.shared + self.rtl)
        return tuple(ordered)

    @property
    def core_sources(self) -> tuple[Path, ...]:
        """The RTL of the core alone (synthesis): rtl_sources without the bus loader."""
        return tuple(s for s in self.rtl_sources if s not in (LOADER_SOURCE, STREAM_ENGINE))

    # --- the register map -------------------------------------------------------------------
    @property
    def modulus(self) -> str:
        return self.operands[-1]

    @property
    def precomputed(self) -> tuple[str, ...]:
        return tuple(self.precompute)

    @property
    def has_field(self) -> bool:
        return self.field1 is not None

    def redundant_width(self, n: int) -> int | None:
        return None if self.redundant_extra_bits is None else n + self.redundant_extra_bits

    @functools.cached_property
    def below_modulus(self) -> tuple[str, ...]:
        """The operands whose domain is below M (the loader refuses one >= M)."""
        return tuple(r for r in self.operands if self.domain.get(r) == "below_m")

    @functools.cached_property
    def range_groups(self) -> tuple[tuple[str, ...], ...]:
        """The carry-save groups whose domain is a sum below 2M."""
        return tuple(g for g in self.carry_save_operands if self.domain.get(g[0]) == "below_2m")

    def range_checked(self, reg: str) -> bool:
        """Whether the loader's range rule covers this operand (or its group)."""
        return reg in self.below_modulus or any(g[0] == reg for g in self.range_groups)

    @functools.cached_property
    def range_rule_operands(self) -> tuple[str, ...]:
        """The operands the bus loader's range rule checks: the generated top leaves its
        Range<reg> on (the loader's default) for these and turns it off for the others of
        LOADER_RANGE_OPERANDS. None for a streaming design (no bus loader)."""
        if self.stream is not None:
            return ()
        return tuple(r for r in LOADER_RANGE_OPERANDS if self.range_checked(r))

    @property
    def has_range_rule(self) -> bool:
        """Whether the bus loader has a range rule at all, i.e. can answer ERR_RANGE (the
        coverage's ERR_RANGE bin): one of its Range<reg> parameters is on."""
        return bool(self.range_rule_operands)

    def out_of_range(self, values: Mapping[str, int]) -> bool:
        """The loader's range rule (ERR_RANGE): an operand whose domain is below M is >= M,
        or a carry-save group whose domain is below 2M sums to >= 2M."""
        m = values[self.modulus]
        for r in self.below_modulus:  # loops, not any(genexpr): once per operation
            if values[r] >= m:
                return True
        for g in self.range_groups:
            if sum([values[r] for r in g]) >= 2 * m:
                return True
        return False

    def promise_holds(self, key: str, names: Mapping[str, int]) -> bool:
        """Whether the relation the design promises for `key` (PROMISE_KEYS) holds for these
        values (PROMISE_NAMES and the build parameters); True when it promises none."""
        expr = self.promise.get(key)
        return expr is None or bool(formula.relation(expr)(names))

    def maps(self, region: Region) -> bool:
        """Whether the design maps a region (optional regions only when it uses them)."""
        return (not region.optional or region.name in self.operands
                or region.name in self.precompute)

    def region_bits(self, rm: RegMap, region: str, n: int, bus_w: int) -> int | None:
        return rm.region_bits(region, n, self.redundant_width(n), bus_w)

    # --- parameters -------------------------------------------------------------------------
    def resolve(self, given: Mapping[str, int | str] | None = None) -> dict[str, int]:
        """The full parameter set of one build (defaults, then `given`), as the RTL takes it;
        ConfigError (one line) for an unknown name or a value out of its range (the model's
        `check` refuses illegal combinations: montverif.models.registry)."""
        given = dict(given or {})
        if unknown := sorted(set(given) - set(self.parameters)):
            known = ", ".join(self.parameters) or "none"
            only = [k for k in unknown if k in self.synth_parameters]
            why = f"; {', '.join(only)}: a synthesis parameter only" if only else ""
            raise ConfigError(f"{self.name} has no parameter(s) {', '.join(unknown)} "
                              f"(parameters: {known}{why})")
        out = {}
        for name, param in self.parameters.items():
            try:
                out[name] = param.value(given.get(name, param.default))
            except ConfigError as exc:
                raise ConfigError(f"{self.name}: {exc}") from None
        return out

    def beyond_paper(self, params: Mapping[str, int]) -> list[str]:
        """The parameters above the largest value the paper's hardware allows, those of one
        bound together: `V=32, W=32 > 17 (where the paper says so)`; [] when none is."""
        groups: dict[tuple[int, str], list[str]] = {}
        for name, p in self.parameters.items():
            if p.paper_max is not None and params.get(name, 0) > p.paper_max:
                groups.setdefault((p.paper_max, p.paper), []).append(f"{name}={params[name]}")
        return [f"{', '.join(names)} > {bound} ({why})" for (bound, why), names in groups.items()]

    def check_paper(self, params: Mapping[str, int], allowed: bool) -> None:
        """ConfigError (one line) when a parameter is beyond the paper's hardware and the
        user did not ask for it (--beyond-paper)."""
        if (beyond := self.beyond_paper(params)) and not allowed:
            raise ConfigError(f"{self.name}: {'; '.join(beyond)}: beyond the hardware the "
                              "paper assumes (--beyond-paper runs it anyway, flagged as such)")

    def normalize(self, given: Mapping[str, int | str]) -> tuple[tuple[str, int], ...]:
        """Given parameters as the RTL takes them (a choice's name as its index), in the
        order given; unknown names and illegal values are ConfigErrors."""
        full = self.resolve(given)
        return tuple((k, full[k]) for k in given)

    def param_text(self, name: str, value: int) -> str:
        param = self.parameters.get(name)
        return param.name_of(value) if param else str(value)

    def min_n_at(self, params: Mapping[str, int | str] | None = None) -> int:
        """The narrowest legal N of a build with these parameters (defaults filled in)."""
        if not self.min_n_expr:
            return self.min_n
        return int(formula.evaluate(self.min_n_expr, self.resolve(params)))

    def _with_defaults(self, params: Mapping[str, int]) -> dict[str, int]:
        """The parameters given, the others at their defaults (as the RTL takes them),
        synthesis parameters included."""
        every = (*self.parameters.values(), *self.synth_parameters.values())
        return {p.name: p.value(p.default) for p in every} | dict(params)

    def resolve_synth(self, given: Mapping[str, int | str] | None = None) -> dict[str, int]:
        """As resolve, with the [synthesis] parameters as well (defaults filled in): the
        parameters of a synthesis of the core."""
        given = dict(given or {})
        if unknown := sorted(set(given) - set(self.parameters) - set(self.synth_parameters)):
            known = ", ".join(self.parameters) or "none"
            raise ConfigError(f"{self.name} has no parameter(s) {', '.join(unknown)} "
                              f"(parameters: {known}; of a synthesis only: "
                              f"{', '.join(self.synth_parameters) or 'none'})")
        own = {k: v for k, v in given.items() if k in self.synth_parameters}
        out = self.resolve({k: v for k, v in given.items() if k not in own})
        for name, param in self.synth_parameters.items():
            try:
                out[name] = param.value(own.get(name, param.default))
            except ConfigError as exc:
                raise ConfigError(f"{self.name}: {exc}") from None
        return out

    def normalize_synth(self, given: Mapping[str, int | str]) -> tuple[tuple[str, int], ...]:
        """As normalize, [synthesis] parameters accepted."""
        full = self.resolve_synth(given)
        return tuple((k, full[k]) for k in given)

    def cycles_at(self, n: int, params: Mapping[str, int], field1: bool = False) -> int | None:
        """This design's cycles per operation from its descriptor (None: not stated); the
        parameters not given at their defaults. Parameters of a synthesis ([synthesis]
        parameters) count with its `cycles`."""
        expr = self.cycles_field1 if field1 else self.cycles
        if not expr:
            return None
        names = self._with_defaults(params)
        cycles = formula.integer(expr, n, names)
        if self.synth_cycles and not field1 and set(params) & set(self.synth_parameters):
            return formula.integer(self.synth_cycles, n, names | {"cycles": cycles})
        return cycles

    def r_bits_at(self, n: int, params: Mapping[str, int], field1: bool = False) -> int:
        expr = self.field1.r_bits if field1 and self.field1 is not None else self.r_bits
        return formula.integer(expr, n, self._with_defaults(params))

    # --- the testbench ----------------------------------------------------------------------
    def probe_paths(self) -> list[str]:
        """The signals inside the DUT the testbench reads through VPI, as paths from the
        design's top ([observe]'s paths; [rsa]'s multiplier signals, modulus and wipe and
        clear registers, of the table and its variants): the Verilator build makes only
        these and the toplevel's ports visible (montverif.regress.flow.build)."""
        paths = {v for v in self.observe.paths() if "." in v}
        if self.rsa is not None:  # the table and its variants (rsa_at)
            core = self.rsa.table.core
            paths |= {f"{core}.{RSA_MODULUS}"}
            parts: list[RsaMonitor | RsaVariant] = [self.rsa.table, *self.rsa.variants]
            for rsa in parts:
                paths |= {f"{core}.{m}_{s}" for m in rsa.mults or () for s in MULT_SIGNALS}
                paths |= {*(rsa.wipe or ()), *(rsa.clear or ())}
        return sorted(paths)

    def probe_leaves(self) -> list[str]:
        """The last element of each of probe_paths."""
        return sorted({p.rsplit(".", 1)[-1] for p in self.probe_paths()})

    def rsa_at(self, params: Mapping[str, int]) -> RsaMonitor:
        """The [rsa] table of a build with these parameters (the others at their defaults):
        the table, each of its `variants` whose `when` the parameters match laid over it (a
        core whose multipliers a parameter chooses, e.g. rsa_core's Units = 1)."""
        if self.rsa is None:
            raise ConfigError(f"{self.name} has no [rsa] table (not a modexp core)")
        full = self._with_defaults(params)
        out = self.rsa.table
        for variant in self.rsa.variants:
            when = {k: self.parameters[k].value(v) if k in self.parameters else v
                    for k, v in variant.when.items()}
            if all(full.get(k) == v for k, v in when.items()):
                out = dataclasses.replace(out, **{
                    k: getattr(variant, k) for k in ("mults", "wipe", "clear", "width")
                    if getattr(variant, k) is not None})
        return out


# --- reading a descriptor ---------------------------------------------------------------------
# Its tables, keys, types and ranges are descriptor.schema.json's (montverif.spec.schema),
# checked before anything below reads it; docs/own-design.md describes each key. Below: what
# depends on other keys.
MAX_ID: int = schema.definition("design", "id")["maximum"]  # INFO[23:16]


def _param(name: str, raw: dict[str, Any], where: str) -> Param:
    file, _, label = where.rpartition(": ")
    table = Table(raw, f"{label} {name}" if label.endswith("]") else f"{label}.{name}", file)
    choices = tuple(raw.get("choices", ()))
    paper_max = raw.get("paper_max")
    if paper_max is not None and not raw.get("paper"):
        raise ConfigError(f"{where}.{name}: paper_max is an integer, with `paper` saying "
                          "where the paper bounds it")
    low, high = raw.get("min"), raw.get("max")
    default = raw["default"]
    if isinstance(default, str) and not choices:
        raise table.error("default", f"expected an integer (got {shown_value(default)})")
    if choices and (low is not None or high is not None):
        raise table.error_at("a parameter with choices has no min or max")
    if low is not None and high is not None and low > high:
        raise table.error("min", f"{low} is above max {high}")
    param = Param(name, default, low, high, choices, table.text("doc"), paper_max,
                  table.text("paper"))
    try:
        param.value(param.default)  # the default itself must be legal
    except ConfigError as exc:
        raise ConfigError(f"{where}.{name}: {exc}") from None
    if paper_max is not None and isinstance(param.default, int) and param.default > paper_max:
        raise ConfigError(f"{where}.{name}: the default {param.default} is beyond paper_max "
                          f"{paper_max}")
    return param


def _domain(ops: Mapping[str, Any], registers: tuple[str, ...],
            groups: tuple[tuple[str, ...], ...], where: str) -> dict[str, str]:
    """[operands] domain: every operand but the modulus (a carry-save group by its first
    register) named once, with one of DOMAINS; below_2m only for a group, whose domain is
    either that or below_2n (any halves)."""
    raw = ops["domain"]
    seconds = {r for g in groups for r in g[1:]}
    firsts = {g[0] for g in groups}
    wanted = [r for r in registers[:-1] if r not in seconds]
    if missing := [r for r in wanted if r not in raw]:
        raise ConfigError(f"{where}: [operands] domain names no domain for "
                          f"{', '.join(missing)}")
    if unknown := sorted(set(raw) - set(wanted)):
        raise ConfigError(f"{where}: [operands] domain: {', '.join(unknown)} is no operand "
                          f"with a domain of its own ({', '.join(wanted)})")
    for reg, value in raw.items():
        if (value == "below_2m") != (reg in firsts) and value != "below_2n":
            what = "a carry-save group is below_2m or below_2n" if reg in firsts else \
                "below_2m is for a carry-save group only"
            raise ConfigError(f"{where}: [operands] domain: {reg} = {value!r} ({what})")
    return {r: str(raw[r]) for r in wanted}


def _promise(ops: Mapping[str, Any], params: Mapping[str, Param], where: str
             ) -> dict[str, str]:
    """[operands] promise: { p = "...", v = "..." }, each a relation in PROMISE_NAMES and
    the build parameters, checked by evaluating it once."""
    raw = ops.get("promise", {})
    sample = dict.fromkeys(PROMISE_NAMES, 1) | {p.name: p.value(p.default)
                                                for p in params.values()}
    for key, expr in raw.items():
        try:
            formula.check(expr, sample)
            formula.holds(expr, sample)
        except (ConfigError, ArithmeticError) as exc:
            raise ConfigError(f"{where}: [operands] promise.{key}: {exc} (a relation in "
                              f"{', '.join(PROMISE_NAMES)} and the build parameters)") from None
    return {k: str(v) for k, v in raw.items()}


def _secret(ops: Mapping[str, Any], registers: tuple[str, ...], kind: str,
            where: str) -> tuple[str, ...]:
    """[operands] secret: registers the design reads (operands or precomputed ones), of a
    modexp design only: a multiplier's result gives a secret factor back (Y = P * 2^r / X
    mod M), so its logs could not keep one."""
    secret = tuple(ops.get("secret", ()))
    known = registers + tuple(ops.get("precomputed", {}))
    if unknown := [r for r in secret if r not in known]:
        raise ConfigError(f"{where}: [operands] secret: {', '.join(unknown)} is no register "
                          f"the design reads ({', '.join(known)})")
    if secret and kind != "modexp":
        raise ConfigError(f"{where}: [operands] secret: only a modexp design keeps a secret "
                          f"operand out of its logs (a {kind} design's P gives it back from "
                          "the other operands)")
    return secret


def _synthesis(raw: Mapping[str, Any], params: Mapping[str, Param], where: str
               ) -> tuple[dict[str, Param], str]:
    """[synthesis]: `parameters` (tables as [parameters] has them; names of their own) and
    `cycles` (the design's cycles with them: an expression in n, every parameter and
    `cycles`, the design's own count)."""
    syn = Table(raw.get("synthesis", {}), "[synthesis]", where)
    own = {k: _param(k, v, f"{where}: [synthesis] parameters")
           for k, v in syn.table("parameters").raw.items()}
    if clash := sorted(set(own) & set(params)):
        raise ConfigError(f"{where}: [synthesis] parameters {', '.join(clash)} are in "
                          "[parameters] already")
    cycles = syn.text("cycles")
    if cycles and not own:
        raise ConfigError(f"{where}: [synthesis] cycles is an expression, with parameters")
    syn.expression("cycles", {"n", "cycles", *params, *own})
    return own, cycles


def _stream(raw: Mapping[str, Any], registers: tuple[str, ...], names: set[str],
            where: str) -> StreamCore | None:
    """[stream]: a streaming core; one that has one has no [core] (the bus loader's
    adapter) and no precomputed registers (the harness offers X, Y and M)."""
    found = stream.parse_stream(raw, registers, names, where)
    if found is not None and "core" in raw:
        raise ConfigError(f"{where}: [stream] and [core] exclude each other (a streaming "
                          "core runs behind the stream harness, not the bus loader)")
    return found


def _sections(raw: Mapping[str, Any], where: str) -> dict[str, Table]:
    """Every section of a descriptor as a Table (an empty one when absent), once the schema
    has checked it (a key an earlier version had: what replaced it)."""
    if isinstance(raw.get("operands"), dict) and "below_modulus" in raw["operands"]:
        raise ConfigError(f"{where}: [operands] below_modulus is replaced by domain (e.g. "
                          'domain = { X = "below_2n", Y = "below_m" }: docs/own-design.md)')
    schema.check(raw, where)
    return {s: Table(raw.get(s, {}), f"[{s}]", where) for s in schema.section_keys()
            if s not in ("core", "synthesis", "formal", "stream")}


def _name(d: Table, path: Path) -> str:
    name = str(d.need("name"))
    if is_keyword(name):
        raise d.error("name", f"{name} is a SystemVerilog keyword (it names the core module)")
    if path.stem != name:
        raise d.error("name", f"the file must be named after the design ({name}.toml)")
    return name


def _sources(d: Table, own: Path) -> tuple[tuple[Path, ...], tuple[Path, ...], tuple[Path, ...]]:
    """[design] rtl (beside the descriptor), shared (below hdl/) and owns (of shared)."""
    rtl = tuple(own / f for f in _relative(d, "rtl"))
    if not rtl:
        raise d.error("rtl", "names no RTL file (the design's own sources, compile order)")
    shared = tuple(HDL / f for f in _relative(d, "shared"))
    for key, files in (("rtl", rtl), ("shared", shared)):
        for src in files:
            if not src.is_file():
                raise d.error(key, f"no such RTL file {shown(src)}")
    owns = tuple(HDL / f for f in _relative(d, "owns"))
    if stray := [shown(src) for src in owns if src not in shared]:
        raise d.error("owns", f"{', '.join(stray)}, which shared does not list")
    return rtl, shared, owns


def _relative(d: Table, key: str) -> tuple[str, ...]:
    """A list of relative paths, none leaving its folder."""
    files = d.texts(key)
    for f in files:
        if not f or Path(f).is_absolute() or ".." in Path(f).parts:
            raise d.error(key, f"{f!r} is not a path inside its folder")
    return files


def _widths(d: Table, params: Mapping[str, Param]) -> tuple[int, str, int]:
    """[design] widths: (min at the defaults, min as an expression or "", max)."""
    widths = d.table("widths")
    min_n, min_expr = _min_width(widths.raw, params, widths.where)
    if min_n < 1:
        raise widths.error("min", f"{min_n} at the default parameters: at least 1")
    max_n = int(widths.need("max"))
    if max_n < min_n:
        raise widths.error("max", f"{max_n} is below min ({min_n})")
    return min_n, min_expr, max_n


def _registers(ops: Table) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...],
                                    dict[str, str]]:
    """[operands] registers (the modulus last), carry_save groups and precomputed, each a
    register of the register map."""
    registers = ops.texts("registers")
    regions = regmap_load().regions
    groups_raw = ops.get("carry_save", [])
    if not all(r in registers for g in groups_raw for r in g):
        raise ops.error("carry_save", "expected a list of groups of registers (e.g. "
                                      "[[\"X\", \"X2\"]])")
    precompute = ops.strings("precomputed")
    for key, regs in (("registers", registers), ("precomputed", tuple(precompute))):
        if unknown := [r for r in regs if r not in regions]:
            raise ops.error(key, f"{', '.join(unknown)} is not in the register map "
                                 f"(hdl/common/regmap.json)")
    return registers, tuple(tuple(g) for g in groups_raw), precompute


def _function(fn: Table, names: set[str]) -> tuple[str, str, SecondField | None]:
    """[function]: kind, r_bits and field1 (the second field's kind and r_bits)."""
    kind = fn.need("kind")
    r_bits = fn.expression("r_bits", names, "n")
    field1 = fn.table("field1")
    if field1.raw:
        field1.expression("r_bits", names)
    second = SecondField(field1.text("kind"), field1.text("r_bits")) if field1.raw else None
    return str(kind), r_bits, second


def _model(model: Table, kind: str, cycles: str) -> tuple[bool, str]:
    """[model]: generic, or a function (and its checks: references only, the models'
    registry finds them)."""
    generic = bool(model.get("generic", False))
    if generic and (kind == "modexp" or not cycles):
        raise model.error("generic", "a generic model needs kind mont or inter and the "
                                     "design's cycles ([design] cycles)")
    function = "" if generic else model.text("function")
    if not generic and not function:
        raise model.error("function", "missing (\"<module>:<function>\" of montverif.models, "
                                      "or generic = true)")
    return generic, function


def _evaluable(keys: tuple[tuple[Table, str], ...], widths: tuple[int, ...],
               names: Mapping[str, int]) -> None:
    """Each formula evaluates at the narrowest and widest N with the default parameters."""
    for table, key in keys:
        expr = table.get(key, "")
        for n in widths if expr else ():
            try:
                formula.formula(str(expr), n, names)
            except (ConfigError, ArithmeticError, TypeError, ValueError) as exc:
                raise table.error(key, f"cannot be evaluated at n={n} with the default "
                                       f"parameters ({exc})") from None


def _observe(obs: Table) -> Observe:
    bins = obs.get("lut_bins", 0)
    if bad := [b for b in obs.get("illegal_bins", ()) if b >= bins]:
        raise obs.error("illegal_bins", f"{bad[0]} is no bin (lut_bins = {bins})")
    return Observe.of(obs.raw)


def _test(test: Table, params: Mapping[str, Param]) -> SimPoints:
    """[test]: points [N, BusW, txns, AckWait, {params}] per simulator (their parameters
    legal), quick tests."""
    for sim in SIMULATORS:
        for point in test.get(sim, ()):
            if len(point) == 5:
                _given(point[4], params, test, sim)
    return SimPoints.of(test.raw)


def _given(given: Mapping[str, int | str], params: Mapping[str, Param], table: Table, key: str
           ) -> tuple[tuple[str, int], ...]:
    """A table of build parameters { NAME = value } (a choice by name), as the RTL takes
    them."""
    if unknown := sorted(set(given) - set(params)):
        raise table.error(key, f"no parameter {', '.join(unknown)}")
    try:
        return tuple((k, params[k].value(v)) for k, v in given.items())
    except ConfigError as exc:
        raise table.error(key, str(exc)) from None


_RSA_LISTS = ("mults", "wipe", "clear")


def _rsa(rsa: Table, params: Mapping[str, Param], names: set[str]) -> Rsa | None:
    """[rsa]: the core instance, its multipliers' prefixes, the registers wiped and
    cleared, the products' width; `variants` laid over it where their `when` matches."""
    if not rsa.raw:
        return None
    if not rsa.text("core"):
        raise rsa.error("core", "expected the core's instance path (u_core)")
    for table in (rsa, *(Table(v, f"{rsa.label} variants[{i}]", rsa.where)
                         for i, v in enumerate(rsa.get("variants", ())))):
        for key in _RSA_LISTS:
            if table is rsa:
                rsa.need(key)
        table.expression("width", names)
        if table is not rsa:
            _given(table.get("when", {}), params, table, "when")
    return Rsa.of(rsa.raw)


def _top(top: Table) -> tuple[str, dict[str, str]]:
    return top.text("core"), dict(top.get("ports", {}))


def parse(path: Path, uses_rtl: tuple[Path, ...] = (), raw: dict[str, Any] | None = None
          ) -> Design:
    """A descriptor file as a Design; ConfigError with a one-line message naming the file and
    the field if malformed: first against the schema (montverif.spec.schema: types, ranges,
    keys), then what depends on other keys.
    `raw`: the file's TOML when the caller has parsed it already (designs: once a file)."""
    where = shown(path)
    if raw is None:
        raw = read_toml(path, where)
    t = _sections(raw, where)
    d, ops = t["design"], t["operands"]
    name = _name(d, path)
    ident = int(d.need("id"))
    family = d.text("family", path.parent.name)
    if "core" in raw and t["results"].get("redundant_extra_bits") is not None:
        raise ConfigError(f"{where}: a [core] of its own returns P only (no S, C)")
    rtl, shared, owns = _sources(d, path.parent)
    params = {k: _param(k, v, f"{where}: [parameters]") for k, v in t["parameters"].raw.items()}
    synth_params, synth_cycles = _synthesis(raw, params, where)
    names = {"n", *params, *synth_params}
    min_n, min_expr, max_n = _widths(d, params)
    kind, r_bits, field1 = _function(t["function"], names)
    cycles = d.expression("cycles", names)
    d.expression("cycles_field1", names)
    generic, function = _model(t["model"], kind, cycles)
    registers, groups, precompute = _registers(ops)
    defaults = {p.name: p.value(p.default) for p in (*params.values(), *synth_params.values())}
    _evaluable(((d, "cycles"), (d, "cycles_field1"), (t["function"], "r_bits"),
                (t["function"].table("field1"), "r_bits")), (min_n, max_n), defaults)
    extra = t["results"].get("redundant_extra_bits")
    paper = t["paper"]
    paper.expression("cycles", {"n", *params})
    core, ports = _top(t["top"])
    return Design(
        name=name, id=ident, family=family,
        paper=d.text("paper"), algorithm=d.text("algorithm"),
        notes=d.text("notes"), descriptor=path, rtl=rtl, shared=shared,
        uses=d.texts("uses"),
        min_n=min_n, max_n=max_n, kind=kind,
        summary=t["function"].text("summary"), operands=registers,
        domain=_domain(ops.raw, registers, groups, where),
        model_function=function, cycles=cycles,
        cycles_field1=d.text("cycles_field1"),
        cycles_note=d.text("cycles_note"), r_bits=r_bits,
        field1=field1,
        carry_save_operands=groups, promise=_promise(ops.raw, params, where),
        precompute=precompute,
        secret=_secret(ops.raw, registers, kind, where),
        redundant_extra_bits=extra,
        model_check=t["model"].text("check"), block_params=t["model"].text("block_params"),
        shape=t["model"].text("shape"),
        parameters=params, synth_parameters=synth_params, synth_cycles=synth_cycles,
        fault_params=dict(t["fault"].raw),
        observe=_observe(t["observe"]), paper_cycles=PaperCycles.of(
            paper.raw, _figures(paper.raw, params, f"{where}: [paper] figures")),
        test=_test(t["test"], params), coverage=CoverageGoal.of(t["coverage"].raw),
        testbench=Testbench.of(t["testbench"].raw), rsa=_rsa(t["rsa"], params, {"n", *params}),
        core=core, ports=ports, used_rtl=uses_rtl, owns=owns,
        lists=_lists(raw, where),
        foreign=foreign.parse_core(raw, (*registers, *precompute), where),
        stream=_stream(raw, registers, names, where),
        generic_model=generic,
        formal_points=_formal_points(raw, params, where),
        formal_timeout=_formal_timeout(raw), min_n_expr=min_expr)


# widths.min as an expression: the operators the generated top's SystemVerilog reads as is
_MIN_NODES = (ast.Expression, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Name, ast.Constant,
              ast.Load)


def _min_width(widths: Mapping[str, Any], params: Mapping[str, Param], where: str
               ) -> tuple[int, str]:
    """`widths.min`: a number, or an expression of the build parameters in + - * (the top's
    MinN takes it as it stands); its value at the defaults and the expression (or "")."""
    raw = widths["min"]
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw, ""
    bad = f"{where}: [design] widths.min must be a number or an expression of the build " \
          "parameters in + - * (e.g. \"K + K * Units\")"
    if not isinstance(raw, str):
        raise ConfigError(bad)
    try:
        tree = ast.parse(raw, mode="eval")
    except SyntaxError:
        raise ConfigError(bad) from None
    nodes = list(ast.walk(tree))
    if any(not isinstance(nd, _MIN_NODES) for nd in nodes) or any(
            isinstance(nd, ast.Name) and nd.id not in params for nd in nodes) or any(
            isinstance(nd, ast.Constant) and type(nd.value) is not int for nd in nodes):
        raise ConfigError(bad)
    value = formula.evaluate(raw, {p.name: p.value(p.default) for p in params.values()})
    return int(value), raw


def _formal_points(raw: Mapping[str, Any], params: Mapping[str, Param], where: str
                   ) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
    """`[formal] points`: [{ n, params = {..} }, ...] (a choice parameter by its name)."""
    table = Table(raw.get("formal", {}), "[formal]", where)
    out = []
    for point in table.get("points", ()):
        given = point.get("params", {})
        out.append((point["n"], _given(given, params, table, "points")))
    return tuple(out)


def _formal_timeout(raw: Mapping[str, Any]) -> int:
    """`[formal] timeout`: seconds each of the design's points may take (at least the
    command's own timeout), for a point whose solver needs longer."""
    return int(raw.get("formal", {}).get("timeout", 0))


def _figures(paper: Mapping[str, Any], params: Mapping[str, Param], where: str
             ) -> tuple[PaperFigure, ...]:
    """`[paper] figures`: [{ n, cycles, where, params = {..}, field }, ...]."""
    out = []
    for i, fig in enumerate(paper.get("figures", ())):
        at = f"{where}[{i}]"
        n, cycles, source = fig["n"], fig["cycles"], fig["where"]
        values = []
        for name, value in fig.get("params", {}).items():
            if name not in params:
                raise ConfigError(f"{at}: unknown parameter {name}")
            try:
                values.append((name, params[name].value(value)))
            except ConfigError as exc:
                raise ConfigError(f"{at}: {exc}") from None
        field_ = fig.get("field")
        out.append(PaperFigure(n, cycles, source, tuple(sorted(values)), field_))
    return tuple(out)


def _lists(raw: Mapping[str, Any], where: str) -> dict[str, tuple[Mapping[str, Any], ...]]:
    """[[lists.<list>]] entries (their keys are checked where the lists are read)."""
    out = {}
    for name, entries in raw.get("lists", {}).items():
        if any("dut" in e for e in entries):
            raise ConfigError(f"{where}: lists.{name}: an entry of a descriptor names no dut")
        out[name] = tuple(entries)
    return out
