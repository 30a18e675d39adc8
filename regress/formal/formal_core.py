"""The formal harness of a design's core, generated from its descriptor (docs/formal.md).

`montverif formal --dut D --n N` proves the core of design D against what its descriptor
says it computes, for every input at width N:

- the operands X, Y (or their carry-save halves) and the modulus M are free constants
  (`anyconst`), constrained only by the loader's range rule, i.e. the descriptor's operand
  domain (M odd, an operand whose domain is below_m below M, a carry-save group whose domain
  is below_2m below 2M, any N-bit value otherwise) and, for a host-precomputed register, by
  the relation that defines it (m' = -M^-1 mod 2^W);
- reset in cycle 0, START in cycle 1, CLEAR never;
- a design with a field bit (CTRL.FIELD) gets it as one more free constant, so both
  fields are checked in the same run;
- the core's `last_o` comes exactly in the cycle its descriptor's cycle formula names (per
  field; for kind `modexp`, whose count may depend on the exponent, the model's count for
  each exponent), and from the next cycle on P is the function's result: kind `mont`
  P = X Y 2^-r mod M (r = the descriptor's r_bits), kind `inter` P = X Y mod M, kind
  `modexp` P = X^E mod M, and in the binary field (field1 kind `mont_gf2`)
  P(x) = X(x) Y(x) x^-r mod M(x), each computed by a behavioural reference in the harness (a
  miter); a design whose Y may reach past M and that promises a bound on P other than P < M
  (mont_r2, mont_csa, mont_lut: P < max(Y, M)) gets P congruent to that value mod M and
  its promise (regress/formal/formal_promise.py);
- the core's own assertions (hdl/common/mv_assert.svh) hold in every cycle on the way.

A bounded model check to a depth past the result cycle covers the whole first operation
after reset for every input: the core's function is proved at that width for one operation
from reset (not for an operation that follows another; docs/formal.md says what that
leaves open).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from montverif.host import templates
from montverif.host.errors import ConfigError
from montverif.models import rsa as rsa_model
from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.formal import formal_promise
from montverif.spec import top
from montverif.spec.design import Design
from montverif.spec.formula import integer

_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the harness's text
KINDS = ("mont", "inter", "modexp")  # what a harness can state
FIELD1_KINDS = ("mont_gf2",)  # what it can state of a design's second field (CTRL.FIELD = 1)
MIN_N, MAX_N = 4, 16  # formal widths: the state and the checked product grow with N
MAX_CYCLES = 1000  # the longest operation a harness checks (its depth: this and 4)

# Cycles of a design whose count depends on its operands (no [design] cycles formula): its
# model function -> the model's count for an exponent E at width n and the build parameters.
# The harness asserts the count of the exponent it is given (constant time: one count).
OPERAND_CYCLES: dict[str, Callable[..., int]] = {
    "rsa:rsa_core": rsa_model.rsa_cycles,
}

# A host-precomputed register the harness can constrain: the descriptor's function ->
# (free helper constants it declares, the relation that defines the value the host loads),
# in SystemVerilog over the harness's signals, the core's parameters and the harness's
# localparams (RB: log2 R of the multiplier inside a modexp core, from its model).
PRECOMPUTED: dict[str, tuple[tuple[str, ...], str]] = {
    # m' = -M^-1 mod 2^W: the low W bits of m' * M + 1 are zero, the bits above are zero
    "scalable:mwrkmm_mprime": ((), "(mp >> W) == '0 && ((2*N)'(mp) * (2*N)'(m) + 1) % (2**W) "
                                   "== 0"),
    # M-hat = (M' M + 1) / 2^2V with M' = -M^-1 mod 2^2V (Jiang-Harris, section III): M' is
    # the free 2V-bit constant mq that makes M' M + 1 a multiple of 2^2V
    "vhr:mhat": (("logic [2*V-1:0] mq;",),
                 "((2*N+2*V)'(mq) * (2*N+2*V)'(m) + 1) % (2**(2*V)) == 0 && "
                 "(2*N+2*V)'(mhat) == ((2*N+2*V)'(mq) * (2*N+2*V)'(m) + 1) >> (2*V)"),
    # R2 = R^2 mod M = 2^(2 RB) mod M: below M, and 2^(2 RB) - R2 a multiple r2q of M
    "rsa:r2": (("logic [2*RB:0] r2q;",),
               "r2 < m && (4*RB+2)'(r2q) * (4*RB+2)'(m) + (4*RB+2)'(r2) == "
               "(4*RB+2)'(1) << (2*RB)"),
    # MP: m' = -M^-1 mod 2^N for the bit-serial multipliers and mwrkmm (Mult != 5), M-hat as
    # vhr:mhat for mont_qp (Mult = 5, with the free 2V-bit M' mq)
    "rsa:mprime": (("logic [2*V-1:0] mq;",),
                   "Mult == 5 ? (((2*N+2*V)'(mq) * (2*N+2*V)'(m) + 1) % (2**(2*V)) == 0 && "
                   "(2*N+2*V)'(mp) == ((2*N+2*V)'(mq) * (2*N+2*V)'(m) + 1) >> (2*V)) : "
                   "((2*N)'(mp) * (2*N)'(m) + 1) % (2**N) == 0"),
    # MP of the unified multiplier: m' = -M^-1 mod 2^K in bits [K-1:0] (GF(p)) and the
    # inverse q(x) = M(x)^-1 mod x^W in bits [K+W-1:K] (GF(2^n), W = K*Units), nothing above
    "dual:mp_pack": ((), "(mp >> (K + K*Units)) == '0 && ((2*N)'(mp[K-1:0]) * (2*N)'(m) + 1) "
                         "% (2**K) == 0 && clmulw(mp[K +: K*Units], m[K*Units-1:0]) == "
                         "(K*Units)'(1)"),
}
# localparams a relation above uses: the function -> (name, its value from the model at
# (n, build parameters))
RELATION_PARAMS: dict[str, tuple[str, Callable[..., int]]] = {
    "rsa:r2": ("RB", rsa_model.r_bits),
}
# helper functions a relation above uses, declared in the harness when it does (their text:
# templates/relation_<name>.sv.j2)
RELATION_FUNCS = ("clmulw",)


@dataclass(frozen=True)
class CoreProof:
    """What the harness of one design at one point checks."""

    design: Design
    n: int
    params: dict[str, int]  # the core's build parameters beyond N, defaults filled in
    cycles: int  # last_o in cycle 1 + cycles (START in cycle 1): the longest operation
    r_bits: int  # kind mont: P = X Y 2^-r mod M
    # a field bit: (cycles, r) of CTRL.FIELD = 1 (its kind is the descriptor's field1 kind)
    field1: tuple[int, int] | None = None
    # cycles that depend on the operands (kind modexp): (the operand, ((value, cycles), ...))
    by_operand: tuple[str, tuple[tuple[int, int], ...]] | None = None
    # localparams the relations of the precomputed registers use (RELATION_PARAMS)
    consts: tuple[tuple[str, int], ...] = ()

    @property
    def module(self) -> str:
        return f"{self.design.core_module}_formal"

    @property
    def depth(self) -> int:
        """The BMC depth that reaches two cycles past the result (SBY counts from step 0)."""
        return self.cycles + 4

    @property
    def result_cycle(self) -> int:
        """The cycle of last_o (START in cycle 1)."""
        return self.cycles + 1

    def holds(self) -> str:
        """What the harness checks beside the function, in words."""
        return "the cycle count"

    def result_at(self) -> str:
        """Where the result comes, in words."""
        return f"last_o in cycle {self.result_cycle}"

    @property
    def halves(self) -> bool:
        """The operands come in carry-save halves."""
        return bool(self.design.carry_save_operands)

    @property
    def used(self) -> set[str]:
        """The loader's registers the core reads, by the harness's signal names."""
        d = self.design
        return {top.LOADER_REGS[r] for r in (*d.operands, *d.precomputed)
                if r in top.LOADER_REGS}

    @property
    def ww(self) -> int:
        """The reference's width: enough for X*Y and P*2^r (in either field)."""
        xw = self.n + 1 if self.halves else self.n  # an operand's value (a group's sum)
        r = max(self.r_bits, self.field1[1] if self.field1 else 0)
        return 2 * xw + r + 2

    @property
    def wide_y(self) -> bool:
        """A Montgomery product (of one field) whose Y may be any N-bit value: T = (X*Y +
        Q*M) / 2^r reaches past 5M, so the reference reduces it by division."""
        d = self.design
        return d.kind == "mont" and self.field1 is None and d.domain.get("Y") == "below_2n"

    @property
    def promise_p(self) -> str | None:
        """The bound on P the harness asserts beside a congruence, or None when P must equal
        the fully reduced value (the design promises P < M, or no bound)."""
        promise = self.design.promise.get("p")
        return promise if self.wide_y and promise not in (None, "p < m") else None

    def relation(self) -> str:
        """What the harness asserts of P, in words."""
        if self.design.kind == "inter":
            return "P = X*Y mod M"
        if self.design.kind == "modexp":
            return "P = X^E mod M"
        if self.promise_p:
            return f"P = X*Y*2^-{self.r_bits} (mod M), {self.promise_p}"
        gfp = f"P = X*Y*2^-{self.r_bits} mod M"
        if self.field1 is None:
            return gfp
        return f"{gfp} (GF(p)) and P = X(x)*Y(x)*x^-{self.field1[1]} mod M(x) (GF(2^n))"


def unsupported(design: Design) -> str:
    """Why no harness can state the design's function yet ("" when one can)."""
    if design.foreign is not None:
        return f"{design.name}: a core of its own ([core]) has no formal harness yet"
    if design.kind not in KINDS:
        return (f"{design.name}: its function kind {design.kind!r} has no formal harness yet "
                f"(known: {', '.join(KINDS)})")
    if design.field1 is not None and design.field1.kind not in FIELD1_KINDS:
        return (f"{design.name}: its field 1 kind {design.field1.kind!r} has no formal "
                f"harness yet (known: {', '.join(FIELD1_KINDS)})")
    if not cycle_formula(design) and design.model_function not in OPERAND_CYCLES:
        return f"{design.name}: its descriptor states no cycle formula"
    if missing := [f for f in design.precompute.values() if f not in PRECOMPUTED]:
        return f"{design.name}: no formal relation for its precomputed {', '.join(missing)}"
    return ""


def cycle_formula(design: Design) -> str:
    """The formula of the cycles a proof checks: a streaming core's latency ([stream], clocks
    from taking the operands to offering the result; formal_stream), else the cycle count."""
    return design.stream.latency if design.stream is not None else design.cycles


def default_n(design: Design) -> int:
    """A design's formal width when neither the command nor its descriptor names one: N = 4,
    or its narrowest width at the default parameters where that is above MAX_N (mont_dual
    at its defaults: 80)."""
    return design.min_n if design.min_n > MAX_N else MIN_N


def build_params(design: Design, n: int, given: dict[str, int]) -> dict[str, int]:
    """The build parameters at this point, checked by the model (ConfigError, one line).
    Below the design's simulated minimum width (widths.min), a model that refuses the width
    itself (a refusal that names none of the design's parameters: rsa_core's N >= 8) is asked
    about the parameters at that minimum: the core's own logic is legal below it (its RTL
    checks its parameters when it elaborates), only the simulated design is not."""
    try:
        return _checked(design, n, given)
    except ModelInputError as exc:
        why = str(exc)
    names = design.resolve({})
    low = design.min_n_at(given)
    if n < low and not any(re.search(rf"\b{re.escape(p)}\b", why) for p in names):
        try:
            _checked(design, low, given)
        except ModelInputError as exc:
            raise ConfigError(str(exc)) from None
        return design.resolve(given)
    raise ConfigError(why)


def _checked(design: Design, n: int, given: dict[str, int]) -> dict[str, int]:
    return get_algo(design.model).resolve(n, dict(given))


def operand_cycles(design: Design, n: int, params: dict[str, int]
                   ) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The cycle count for each value of the operand it depends on (the exponent E), from
    the model."""
    count = OPERAND_CYCLES[design.model_function]
    return "e", tuple((e, count(e, n, **params)) for e in range(1 << n))


def prepare(design: Design, n: int, given: dict[str, int], fault: bool = False,
            max_n: int = MAX_N) -> CoreProof:
    """Check that the design can be proved at this point; raises ConfigError (one line).
    fault: the design's fault build (its descriptor's [fault] parameters), which must fail.
    max_n: the widest point (a cover run, which checks no product, goes beyond MAX_N)."""
    if why := unsupported(design):
        raise ConfigError(why)
    low = design.min_n_at(given)
    if low > max_n and n != low:
        raise ConfigError(f"N={n}: {design.name} is checked at its narrowest width only, "
                          f"N={low} (its core is not legal below it, and the "
                          f"solver's time grows steeply with N: docs/formal.md)")
    if low <= max_n and not MIN_N <= n <= max_n:
        raise ConfigError(f"N={n}: formal proofs of a core run at {MIN_N} <= N <= {max_n} "
                          "(the solver's time grows steeply with N: docs/formal.md)")
    params = build_params(design, n, given)
    field1, by_operand = None, None
    if cycle_formula(design):
        cycles = integer(cycle_formula(design), n, params)
    elif n > MAX_N:  # one count per exponent value: 2^N of them
        raise ConfigError(f"N={n}: {design.name}'s cycle count depends on its operands; "
                          f"a harness checks it up to N={MAX_N}")
    else:
        by_operand = operand_cycles(design, n, params)
        cycles = max(c for _, c in by_operand[1])
        if cycles == min(c for _, c in by_operand[1]):
            by_operand = None  # the same for every operand (constant time)
    r_bits = integer(design.r_bits, n, params) if design.kind == "mont" else 0
    consts = tuple((RELATION_PARAMS[f][0], RELATION_PARAMS[f][1](n, **params))
                   for f in design.precompute.values() if f in RELATION_PARAMS)
    if design.has_field:
        field1 = (integer(design.cycles_field1, n, params),
                  design.r_bits_at(n, params, field1=True))
        cycles = max(cycles, field1[0])
    if cycles > MAX_CYCLES:
        raise ConfigError(f"{design.name}: one operation takes {cycles} cycles at N={n}; "
                          f"a harness checks at most {MAX_CYCLES}")
    if fault:
        if not design.fault_params:
            raise ConfigError(f"{design.name}: its descriptor names no [fault] parameters")
        params = params | dict(design.fault_params)
    return CoreProof(design, n, params, cycles, r_bits, field1, by_operand, consts)


def reference(proof: CoreProof, x: str, y: str) -> dict[str, Any]:
    """`expected`, the function's value, computed by a behavioural reference that shares
    nothing with the core (templates/part_reference.sv.j2): the full product X*Y, then
    (kind mont) r halving steps that add M when the value is odd (REDC, one bit at a time)
    and conditional subtractions of M, or (kind inter) the remainder of restoring division,
    one product bit at a time; (kind modexp) square-and-multiply over the exponent's bits
    with each product reduced by restoring division; (field kind mont_gf2) the carry-less
    product and r steps that XOR M(x) when the constant term is 1 and divide by x. Adders
    and compares only: a solver handles them at these widths, a `%` by a free M it does not.
    `x`, `y`: the operands' values in WW bits."""
    return {"kind": proof.design.kind, "x": x, "y": y, "r": proof.r_bits,
            "gfp": "expected_gfp" if proof.field1 else "expected",
            "field1_r": proof.field1[1] if proof.field1 else None, "wide_y": proof.wide_y}


def operands(proof: CoreProof, free: str = "anyconst") -> tuple[dict[str, Any], dict[str, str]]:
    """The harness's operands and the rules a host keeps for them
    (templates/part_operands.sv.j2): their declarations, free constants (`anyconst`) or,
    with free="anyseq", free in every cycle; the loader's range rule (the operand domains:
    M odd, an operand of `below_modulus` below M, a carry-save group of domain below_2m
    below 2M, any N-bit value otherwise) and the relation of each host-precomputed
    register, assumed in every cycle. Also returns the value of X and Y in WW bits (a
    carry-save group's sum) by signal name."""
    d = proof.design
    wide = [s for s in ("x", "y") if s in proof.used and proof.halves]
    narrow = [s for s in ("x", "y", "m", "mp", "mhat", "r2", "e")
              if s in proof.used and s not in wide]
    decls = [decl for func in d.precompute.values() for decl in PRECOMPUTED[func][0]]
    funcs = [name for name in RELATION_FUNCS
             if any(name in PRECOMPUTED[f][1] for f in d.precompute.values())]
    val: dict[str, str] = {s: f"(WW'({s}[N-1:0]) + WW'({s}[2*N-1:N]))" if s in wide
                           else f"WW'({s})" for s in ("x", "y")}
    below = [top.LOADER_REGS[reg] for reg in d.below_modulus]
    groups = [val[top.LOADER_REGS[group[0]]] for group in d.range_groups]
    relations = [(reg, func, PRECOMPUTED[func][1]) for reg, func in d.precompute.items()]
    return {"free": free, "wide": wide, "narrow": narrow, "field": d.has_field,
            "decls": decls, "funcs": funcs, "below": below, "groups": groups,
            "relations": relations}, val


def cycles_text(proof: CoreProof) -> str:
    """Where the cycle count comes from, for the harness's comment."""
    d = proof.design
    text = d.cycles or "the model's count, the longest"
    return text + (f"; {d.cycles_field1} with the field bit" if proof.field1 else "")


def cycle_table(proof: CoreProof) -> dict[str, Any]:
    """`ops_cycles`, the cycles of this operation: Cycles, or by the field bit (`field1`:
    its cycles, `gfp`: GF(p)'s), or by the operand the count depends on (the model's count
    for each of its values: `by_count`, (count, values) but the longest, the default)."""
    d = proof.design
    out: dict[str, Any] = {"field1": None, "gfp": None, "operand": None, "by_count": None,
                           "longest": None}
    if proof.field1 is not None:
        return out | {"field1": proof.field1[0], "gfp": integer(d.cycles, proof.n, proof.params)}
    if proof.by_operand is None:
        return out
    sig, table = proof.by_operand
    by_count: dict[int, list[int]] = {}
    for value, count in table:
        by_count.setdefault(count, []).append(value)
    longest = max(by_count)
    return out | {"operand": sig, "longest": longest,
                  "by_count": [(count, values) for count, values in sorted(by_count.items())
                               if count != longest]}


def control(proof: CoreProof, every: bool = False) -> dict[str, Any]:
    """The harness's parameters, its cycle counter and its control
    (templates/part_control.sv.j2): reset in cycle 0, START in cycle 1 (`every`: in any
    cycle the core is idle, operations back to back), CLEAR never."""
    return {"n": proof.n, "params": [*proof.params.items(), *proof.consts],
            "cycles": proof.cycles, "cycles_text": cycles_text(proof), "ww": proof.ww,
            "every": every}


def instance(proof: CoreProof) -> dict[str, Any]:
    """The core's outputs and its instance, u_core, connected to the harness's signals
    (templates/part_core.sv.j2): `red_top`, the top bit of S and C (None: the core has
    none), `params`, each set to the harness's of the same name, `conns`, (port,
    expression), "" an output the harness leaves open."""
    d, n = proof.design, proof.n
    core = top.core_header(d)
    red = d.redundant_extra_bits
    params = [name for name in core.params if name in proof.params or name == "N"]
    conns = top.core_connections(d, core)
    return {"module": core.module,
            "red_top": None if red is None else n + red - 1 if red else n - 1,
            "params": params,
            # "" is the same name (clock, reset) or an output the harness leaves open
            "conns": [(name, expr or (name if name in ("clk_i", "rst_ni") else ""))
                      for name, expr in conns]}


def promise(proof: CoreProof, val: Mapping[str, str]) -> dict[str, str] | None:
    """P reduced mod M (p_mod) and the promise's assertion, for a harness that checks a
    congruence (CoreProof.promise_p): the bound in words and the assertion's condition;
    None otherwise."""
    bound = proof.promise_p
    if bound is None:
        return None
    names = {"p": "WW'(p)", "x": val["x"], "y": val["y"], "m": "WW'(m)", "n": "WW'(N)",
             "r": f"WW'({proof.r_bits})", **{k: f"WW'({k})" for k in proof.params}}
    return {"bound": bound, "condition": formal_promise.condition(bound, names)}


def harness(proof: CoreProof, every: bool = False) -> str:
    """The harness's SystemVerilog (read by yosys -formal only; templates/core.sv.j2): one
    operation from reset, or (`every`, for k-induction) any sequence of operations, START
    whenever the core is idle and the operands free with each; the operands (and the field
    bit) then change only with START, as the loader writes them before it."""
    d = proof.design
    relation, ctl = proof.relation(), control(proof, every)
    ops, val = operands(proof, "anyseq" if every else "anyconst")
    held = sorted(proof.used | ({"field"} if d.has_field else set()))
    core = instance(proof)
    x, y = val["x"], (val["y"] if "y" in proof.used else "WW'(1)")
    ref = reference(proof, x, y)
    check = promise(proof, {**val, "y": y})
    cycles = cycle_table(proof)
    return templates.render(
        _TEMPLATES, "core.sv.j2", descriptor=d.descriptor.name, name=d.name, paper=d.paper,
        algorithm=d.algorithm, relation=relation, n=proof.n, module=proof.module,
        every=every, control=ctl, operands=ops, held=held, core=core, reference=ref,
        promise=check, cycles=cycles,
        ok="p_mod == expected" if check is not None else "WW'(p) == expected")


_VAR = re.compile(r"\$var\s+\S+\s+\d+\s+(\S+)\s+(\w+)(?:\s*\[[^\]]*\])?\s+\$end")


def top_steps(trace: Path, names: Collection[str]) -> Iterator[dict[str, int]]:
    """The harness's top-level signals of these names in a VCD trace, as they stand at the
    end of each time step (x and z read as 0), one dict per step."""
    scope, codes = 0, {}
    values: dict[str, int] = {}
    for line in trace.read_text().splitlines():
        if line.startswith("$scope"):
            scope += 1
        elif line.startswith("$upscope"):
            scope -= 1
        elif line.startswith("$var") and scope == 1 and (m := _VAR.match(line)):
            if m.group(2) in names:
                codes[m.group(1)] = m.group(2)
        elif line.startswith("#"):
            if values:
                yield dict(values)
        elif line[:1] == "b" and " " in line:
            bits, code = line[1:].split()
            if code in codes:
                values[codes[code]] = int(bits.replace("x", "0").replace("z", "0"), 2)
        elif line[:1] in "01xz" and len(line) > 1 and line[1:] in codes:
            values[codes[line[1:]]] = int(line[0] == "1")
    if values:
        yield dict(values)


# a vector file's names for the harness's signals where a design's vector loader reads
# others (kind modexp: the RSA loader's msg, exp, mod; verif/env/rsa_vectors.py)
VECTOR_NAMES: dict[str, dict[str, str]] = {"modexp": {"x": "msg", "e": "exp", "m": "mod"}}


def vector_signals(proof: CoreProof) -> tuple[str, ...]:
    """The harness's signals a vector file holds: the design's operands and its field bit."""
    d = proof.design
    ops = tuple(top.LOADER_REGS[r] for r in d.operands if r in top.LOADER_REGS)
    return ops + (("field",) if d.has_field else ())


def split_halves(proof: CoreProof, values: Mapping[str, int]) -> dict[str, int]:
    """Operand values by a vector file's names: a carry-save operand's two halves, packed
    side by side in the harness, as x and x2 (y and y2); kind modexp's by VECTOR_NAMES."""
    out = {}
    names = VECTOR_NAMES.get(proof.design.kind, {})
    for sig, value in values.items():
        if sig not in ("m", "field") and proof.design.carry_save_operands:
            out[sig], out[sig + "2"] = value & ((1 << proof.n) - 1), value >> proof.n
        else:
            out[names.get(sig, sig)] = value
    return out


def counterexample_operands(proof: CoreProof, trace: Path) -> dict[str, int]:
    """The operands of a counterexample (the harness's free constants in its VCD trace), by
    the names a vector file uses (x, y, m; x2, y2 for the second carry-save halves; msg,
    exp, mod for kind modexp; field for a design with a field bit)."""
    first = next(top_steps(trace, vector_signals(proof)), {})
    return split_halves(proof, first)


def sequence_operands(proof: CoreProof, trace: Path) -> list[dict[str, int]]:
    """The operands of every START of a counterexample of the harness of operations back to
    back, in order (the vector file replays them in order from reset)."""
    names = vector_signals(proof)
    starts: dict[int, dict[str, int]] = {}  # by cycle (a trace may list a step twice)
    for step in top_steps(trace, (*names, "start", "cyc_q")):
        if step.get("start") == 1:
            starts.setdefault(step.get("cyc_q", len(starts)),
                              split_halves(proof, {k: step[k] for k in names if k in step}))
    return [starts[cycle] for cycle in sorted(starts)]


def write_vector(proof: CoreProof, trace: Path, target: Path, every: bool = False) -> Path:
    """The counterexample as a vector file (verif/vectors.py) that `montverif sim --vectors`
    replays: its one operation, or (`every`) each operation it started, in order."""
    ops = sequence_operands(proof, trace) if every else [counterexample_operands(proof, trace)]
    target.write_text(json.dumps({"vectors": [{k: hex(v) for k, v in sorted(op.items())}
                                              for op in ops]}, indent=1) + "\n")
    return target
