"""The registry of models: one entry per design, built from its descriptor (montverif.spec)
and the model functions the descriptor names; the gmpy2 references of what each computes.

Nothing here is written per design: a design's kind, R, parameters, precomputed registers
and checks are its descriptor's; the functions are looked up by the names it gives
(`<module>:<function>` in montverif.models).
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import gmpy2

from montverif.host.errors import ConfigError
from montverif.models import generic, gf2, ref
from montverif.models.result import ModelInputError, Result, short_hex
from montverif.spec import designs, formula
from montverif.spec.design import Design

# "mont": X*Y*2^-r mod M; "inter": X*Y mod M; "mont_gf2": the binary-field Montgomery product
# X(x)*Y(x)*x^-r mod M(x) (polynomials over GF(2), M holds the whole p(x), so deg p < N);
# "modexp": X^E mod M (the RSA core)
Kind = Literal["mont", "inter", "mont_gf2", "modexp"]
ModelFunc = Callable[..., Result]  # (x, y, m, n), or (x1, x2, y1, y2, m, n) with halves
MODULE = re.compile(r"[a-z][a-z0-9_]*")  # a module of montverif.models a descriptor names


def function(ref_text: str, key: str) -> Callable[..., Any]:
    """The function a descriptor names as "<module>:<function>" of montverif.models (at its
    field `key`, e.g. `[model] function`); ConfigError "<key>: ..." if there is none."""
    module, _, name = ref_text.partition(":")
    if not MODULE.fullmatch(module):
        raise ConfigError(f"{key}: {module!r} is no module of montverif.models ({ref_text!r})")
    try:
        found = getattr(importlib.import_module(f"montverif.models.{module}"), name)
    except (ImportError, AttributeError):
        found = None
    except Exception as exc:  # a model file that fails to import: this design's fault only
        raise ConfigError(f"{key}: montverif.models.{module} cannot be imported "
                          f"({type(exc).__name__}: {exc})") from None
    if not callable(found):
        raise ConfigError(f"{key}: no function {name} in montverif.models.{module} "
                          f"({ref_text!r})")
    return found


def _no_check(n: int, **_params: int) -> None:
    return None


def _no_blocks(_label: str) -> dict[str, int] | None:
    return None


def _one_shape(_n: int, **_params: int) -> tuple[int, ...]:
    return ()


@dataclass(frozen=True)
class AlgoInfo:
    """One design's model: the function, what it computes, its parameters and checks."""

    design: Design
    func: ModelFunc
    # check(n, **params) raises ModelInputError for an illegal combination (one line)
    check: Callable[..., None] = _no_check
    # registers the host computes and loads besides the operands: (register, f(m, n, **p))
    precompute: tuple[tuple[str, Callable[..., int]], ...] = ()
    # the build parameters that elaborate a generate block, by its label (None: any build
    # does); the mutation flow builds a mutant inside such a block with them
    block_params: Callable[[str], dict[str, int] | None] = _no_blocks
    # shape(n, **params): what the RTL elaborates differently with N at fixed parameters
    # (mwr2mm's ring has 0, 1 or more delay registers); the mutation flow judges a survivor
    # at each shape the lists' widths build
    shape: Callable[..., tuple[int, ...]] = _one_shape

    @property
    def name(self) -> str:
        return self.design.name

    @property
    def kind(self) -> Kind:
        return self.design.kind  # type: ignore[return-value]

    @property
    def summary(self) -> str:
        return self.design.summary

    @property
    def has_sc(self) -> bool:
        """The design returns a redundant pair S, C."""
        return self.design.redundant_extra_bits is not None

    @property
    def has_lut(self) -> bool:
        """The model reports a table-address (or selection) histogram."""
        return bool(self.design.observe.lut_bins)

    @property
    def halves(self) -> bool:
        """Operands are carry-save pairs: func(x1, x2, y1, y2, m, n), X = x1 + x2."""
        return bool(self.design.carry_save_operands)

    @property
    def has_field(self) -> bool:
        """Whether each operation chooses its field (CTRL.FIELD at START)."""
        return self.design.has_field

    @property
    def field1_kind(self) -> Kind | None:
        return self.design.field1.kind if self.design.field1 else None  # type: ignore[return-value]

    @functools.cached_property
    def params(self) -> tuple[tuple[str, int], ...]:
        """The build parameters beyond N and their defaults (as the RTL takes them); a
        design's defaults never change, so they are resolved once."""
        return tuple(self.design.resolve().items())

    def r_bits(self, n: int, **params: int) -> int:
        """mont: the product is X*Y*2^-r_bits mod M."""
        return self.design.r_bits_at(n, self.defaults() | params)

    def field1_r_bits(self, n: int, **params: int) -> int:
        return self.design.r_bits_at(n, self.defaults() | params, field1=True)

    def defaults(self) -> dict[str, int]:
        return dict(self.params)

    def resolve(self, n: int, given: Mapping[str, int | str] | None = None) -> dict[str, int]:
        """The full parameter set of one build (defaults | given), checked; raises
        ModelInputError for an unknown name, a value out of range or an illegal
        combination."""
        try:
            params = self.design.resolve(given)
        except ConfigError as exc:
            raise ModelInputError(str(exc)) from None
        self.check(n, **params)
        return params

    def model(self, params: dict[str, int], domain: bool = True) -> ModelFunc:
        """The model function with the build parameters bound, held to the design's operand
        domain (ModelInputError outside it, as the loader's ERR_RANGE) and checked against
        what the design promises over it (AssertionError, as the models' own checks).
        `domain=False`: for a caller that refuses operands outside the domain itself, by the
        same rule (the predictor's ERR_RANGE: Design.out_of_range; test_domain holds the two
        to each other); the promise is still checked."""
        func = functools.partial(self.func, **params) if params else self.func
        merged = self.defaults() | params
        design = self.design
        # the promise's relations, each built once, and the names one build and field fix
        relations = [(key, formula.relation(design.promise[key])) for key in ("p", "v")
                     if key in design.promise]
        value_args = _value_args(design)
        # x and y each one argument (no carry-save pair): their positions, read directly
        single = tuple(g[0] for g in value_args) if len(value_args) >= 2 \
            and all(len(g) == 1 for g in value_args) else None
        fixed: dict[tuple[int, int], dict[str, int]] = {}

        def checked(*args: int, **kwargs: int) -> Result:
            if domain:
                check_domain(design, args)
            result = func(*args, **kwargs)
            if relations:  # _broken's relations, its names made without its layers
                field, n = kwargs.get("field", 0), args[-1]
                base = fixed.get((n, field))
                if base is None:
                    base = fixed[(n, field)] = dict(_build_names(self, n, field, merged))
                if single is not None:
                    x, y = args[single[0]], args[single[1]]
                else:
                    ops = args[:-2]
                    x, y = ([sum(ops[i] for i in g) for g in value_args] + [0, 0])[:2]
                v = result.before_sub
                names = {**base, "x": x, "y": y, "m": args[-2], "p": result.p, "v": v or 0}
                for key, holds in relations:
                    if (key == "p" or v is not None) and not holds(names):
                        broken = _broken(self, result.p, v, args, field, merged)
                        raise AssertionError(f"{self.name}: {broken[0]}")
            return result

        return checked

    def precomputed(self, m: int, n: int, params: dict[str, int]) -> dict[str, int]:
        return {reg: f(m, n, **params) for reg, f in self.precompute}

    def run(self, params: dict[str, int], *args: int, field: int = 0) -> Result:
        """The model on one operation (args: operands..., n); field only for has_field."""
        if self.has_field:
            return self.model(params)(*args, field=field)
        return self.model(params)(*args)


def info_of(design: Design) -> AlgoInfo:
    """A design's registry entry, its functions looked up by the names its descriptor gives
    (a generic model: montverif.models.generic)."""
    func = (functools.partial(generic.model, design=design) if design.generic_model
            else function(design.model_function, "[model] function"))
    return AlgoInfo(
        design=design, func=func,
        check=(function(design.model_check, "[model] check") if design.model_check
               else _no_check),
        precompute=tuple((reg, function(f, f"[operands] precomputed.{reg}"))
                         for reg, f in design.precompute.items()),
        block_params=(function(design.block_params, "[model] block_params")
                      if design.block_params else _no_blocks),
        shape=function(design.shape, "[model] shape") if design.shape else _one_shape)


# every descriptor's model functions are found when the descriptors are read: a design whose
# descriptor names one that is not there is broken (montverif.spec.designs), the others work
designs.add_check(info_of)
_ALL = {d.name: info_of(d) for d in designs.every()}
# The multipliers (`montverif models list/run` and the multiplier tests iterate over them);
# cores built around them (kind "modexp": P = X^E mod M, the RSA core) are in CORES.
ALGOS: dict[str, AlgoInfo] = {k: a for k, a in _ALL.items() if a.kind != "modexp"}
CORES: dict[str, AlgoInfo] = {k: a for k, a in _ALL.items() if a.kind == "modexp"}


def check_domain(design: Design, args: tuple[int, ...]) -> None:
    """ModelInputError (one line) for operands outside the design's domain ([operands]
    domain; args as the model takes them, n last): the loader's ERR_RANGE. Anything that is
    not an operand of a legal modulus is left to the model's own checks and messages."""
    *ops, m, n = args
    for v in args:  # ints only (not bools): else the model's own checks speak
        if not isinstance(v, int) or isinstance(v, bool):
            return
    if m <= 0 or m % 2 == 0 or any(v < 0 for v in ops):
        return
    below, groups = _domain_args(design)
    for i in below:
        if args[i] >= m:
            reg = design.operands[i]
            raise ModelInputError(f"{reg} must be < M ({reg}={short_hex(args[i])}, "
                                  f"M={short_hex(m)})")
    for group in groups:
        total = sum(args[i] for i in group)
        if total >= 2 * m:
            names = " + ".join(design.operands[i] for i in group)
            raise ModelInputError(f"{names} must be < 2M ({names} = {short_hex(total)}, "
                                  f"M={short_hex(m)})")


# id(design) -> the design (kept, as in _VALUE_ARGS) and the model's argument positions of
# the operands below M and of each carry-save group below 2M (check_domain)
_DOMAIN_ARGS: dict[int, tuple[Design, tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}


def _domain_args(d: Design) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    found = _DOMAIN_ARGS.get(id(d))
    if found is None or found[0] is not d:
        where = {r: i for i, r in enumerate(d.operands)}
        found = _DOMAIN_ARGS[id(d)] = (d, tuple(where[r] for r in d.below_modulus),
                                       tuple(tuple(where[r] for r in g)
                                             for g in d.range_groups))
    return found[1], found[2]


def promise_names(info: AlgoInfo, args: tuple[int, ...], field: int,
                  params: Mapping[str, int]) -> dict[str, int]:
    """The values a promise is written in (montverif.spec.design.PROMISE_NAMES but p and v):
    x and y (a carry-save operand's value: the sum of its halves; y the second operand of a
    design without Y), m, n, r (log2 R of the operation's field) and the build parameters
    (`params`: every one, defaults filled in)."""
    *ops, m, n = args
    x, y = ([sum(ops[i] for i in group) for group in _value_args(info.design)] + [0, 0])[:2]
    return {**_build_names(info, n, field, params), "x": x, "y": y, "m": m}


# id(design) -> the design (kept: its id stays its own; a descriptor parsed again, say with
# another domain, is another object) and, for x and y, the positions of the model's
# arguments whose sum is the value
_VALUE_ARGS: dict[int, tuple[Design, tuple[tuple[int, ...], ...]]] = {}


def _value_args(d: Design) -> tuple[tuple[int, ...], ...]:
    """The positions in the model's arguments of the operands (but M) whose values a promise
    calls x and y: a carry-save group's halves together, in the operand order."""
    found = _VALUE_ARGS.get(id(d))
    if found is None or found[0] is not d:
        groups = {g[0]: g for g in d.carry_save_operands}
        seconds = {r for g in d.carry_save_operands for r in g[1:]}
        where = {r: i for i, r in enumerate(d.operands)}
        found = _VALUE_ARGS[id(d)] = (d, tuple(
            tuple(where[r] for r in groups.get(reg, (reg,)))
            for reg in d.operands[:-1] if reg not in seconds))
    return found[1]


# (design, n, field, parameters) -> the names of a promise that one build fixes
_BUILD_NAMES: dict[tuple[str, int, int, tuple[tuple[str, int], ...]], dict[str, int]] = {}


def _build_names(info: AlgoInfo, n: int, field: int, params: Mapping[str, int]
                 ) -> dict[str, int]:
    """Its parameters, n and r: the same for every operation of a run, so worked out once
    (the callers copy the dict)."""
    key = (info.name, n, field, tuple(params.items()))
    names = _BUILD_NAMES.get(key)
    if names is None:
        r = (info.design.r_bits_at(n, params, field1=bool(field)) if info.kind == "mont"
             else n)
        if len(_BUILD_NAMES) > 256:
            _BUILD_NAMES.clear()
        names = _BUILD_NAMES[key] = {**params, "n": n, "r": r}
    return names


def promise_broken(info: AlgoInfo, p: int, v: int | None, args: tuple[int, ...],
                   field: int = 0, params: Mapping[str, int] | None = None) -> list[str]:
    """The relations of the design's promise ([operands] promise) that P and the value before
    the final reduction v (None: the design reports none) break, described; [] when all
    hold. args: the model's (operands..., m, n); params: the build parameters (defaults
    filled in where not given)."""
    if not info.design.promise:
        return []
    return _broken(info, p, v, args, field, info.defaults() | dict(params or {}))


def _broken(info: AlgoInfo, p: int, v: int | None, args: tuple[int, ...], field: int,
            params: Mapping[str, int]) -> list[str]:
    """promise_broken with `params` holding every build parameter (defaults filled in)."""
    d = info.design
    names = promise_names(info, args, field, params)
    names["p"], names["v"] = p, v or 0
    out = []
    for key in ("p", "v"):
        if key in d.promise and (key == "p" or v is not None) \
                and not d.promise_holds(key, names):
            what = "P" if key == "p" else "the value before the final reduction"
            out.append(f"{what} breaks its promise {d.promise[key]} ({key}="
                       f"{short_hex(names[key])}, m={short_hex(names['m'])})")
    return out


def get_algo(name: str) -> AlgoInfo:
    """Look up an algorithm by name (a design whose descriptor is broken: its fault)."""
    if broken := designs.broken_design(name):  # (a check added since _ALL was made, too)
        raise ModelInputError(broken.message)
    if name not in _ALL and name in designs.known_designs():  # written since (new-design)
        _ALL[name] = info_of(designs.load_design(name))
    try:
        return _ALL[name]
    except KeyError:
        known = ", ".join(sorted(ALGOS))
        raise ModelInputError(f"unknown algorithm {name!r} (known: {known})") from None


def _product(info: AlgoInfo, args: tuple[int, ...], field: int, params: dict[str, int]
             ) -> tuple[int, int, int, Kind | None, int]:
    """A product's (x, y, m, kind, R bits) from the model's args (x, y, m, n), or (x1, x2,
    y1, y2, m, n) for carry-save operands (X = x1 + x2, Y = y1 + y2)."""
    *ops, m, n = args
    x, y = (ops[0] + ops[1], ops[2] + ops[3]) if info.halves else ops
    if field not in (0, 1) or (field and not info.has_field):
        raise ModelInputError(f"{info.name}: no field {field}")
    kind, r_bits = (info.field1_kind, info.field1_r_bits) if field else (info.kind, info.r_bits)
    return x, y, m, kind, r_bits(n, **params)


def matches_reference(info: AlgoInfo, p: int, *args: int, field: int = 0,
                      **params: int) -> bool:
    """p == reference(info, *args, field=field, **params); a Montgomery product is checked
    as a congruence (ref.is_mont_product, gf2.is_mont_product: no modular inverse, a few
    times faster). A Montgomery product at or above M is a match when it is congruent and
    the design promises a bound on P that it keeps (mont_r2, mont_csa, mont_lut: P below
    max(Y, M), for a Y that may reach past M); a design that promises none owes P < M."""
    if info.kind != "modexp":
        x, y, m, kind, r = _product(info, args, field, params)
        if kind == "mont":
            if isinstance(p, int) and p >= m > 0 and _promised(info, p, args, field, params):
                return ref.is_mont_congruent(p, x, y, m, r)
            return ref.is_mont_product(p, x, y, m, r)
        if kind == "mont_gf2":
            return gf2.is_mont_product(p, x, y, m, r)
    return p == reference(info, *args, field=field, **params)


def _promised(info: AlgoInfo, p: int, args: tuple[int, ...], field: int,
              params: Mapping[str, int]) -> bool:
    """Whether the design promises a bound on P ([operands] promise p) and P keeps it."""
    d = info.design
    if "p" not in d.promise:
        return False
    names = promise_names(info, args, field, info.defaults() | dict(params))
    names["p"] = p
    return d.promise_holds("p", names)


ReferenceCheck = Callable[[int, Sequence[int]], bool]


def reference_check(info: AlgoInfo, n: int, field: int, params: Mapping[str, int]
                    ) -> ReferenceCheck:
    """matches_reference(info, p, *args, n, field=field, **params) as a function of (p,
    args) for one build and field (args: the operands as the model takes them, without n):
    a Montgomery product's R is worked out once and the congruence taken at once for plain
    operands of a legal modulus (P below it); anything else goes through matches_reference,
    its checks and errors."""
    def general(p: int, args: Sequence[int]) -> bool:
        return matches_reference(info, p, *args, n, field=field, **params)

    if info.kind == "modexp" or field not in (0, 1) or (field and not info.has_field):
        return general
    kind, r_bits = (info.field1_kind, info.field1_r_bits) if field else (info.kind, info.r_bits)
    if kind != "mont":
        return general
    r = r_bits(n, **params)
    count = 5 if info.halves else 3
    mpz, f_mod = gmpy2.mpz, gmpy2.f_mod

    def check(p: int, args: Sequence[int]) -> bool:
        if len(args) == count:
            if count == 5:
                x, y, m = args[0] + args[1], args[2] + args[3], args[4]
            else:
                x, y, m = args
            if type(p) is int and type(x) is int and type(y) is int and type(m) is int \
                    and m > 0 and m & 1 and 0 <= p < m and x >= 0 and y >= 0 \
                    and m.bit_length() <= r:
                return f_mod((mpz(p) << r) - mpz(x) * y, m) == 0  # ref.is_mont_product
        return general(p, args)

    return check


def reference(info: AlgoInfo, *args: int, field: int = 0, **params: int) -> int:
    """Expected P for the algorithm's kind (gmpy2; models.gf2 for the binary field); args
    are the model's (x, y, m, n), or (x1, x2, y1, y2, m, n) for carry-save operands
    (X = x1 + x2, Y = y1 + y2); params are the build parameters beyond N; field is the
    operation's CTRL.FIELD (designs with has_field: 1 selects field1_kind)."""
    if info.kind == "modexp":  # (x, e, m, n)
        x, e, m, _ = args
        return ref.modexp(x, e, m)
    x, y, m, kind, r = _product(info, args, field, params)
    if kind == "mont":
        return ref.mont_product(x, y, m, r)
    if kind == "mont_gf2":
        return gf2.mont_product(x, y, m, r)
    return ref.inter_product(x, y, m)
