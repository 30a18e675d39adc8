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

from montverif.host.errors import ConfigError
from montverif.models import rsa as rsa_model
from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.formal import formal_promise
from montverif.spec import top
from montverif.spec.design import Design
from montverif.spec.formula import integer

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
# helper functions a relation above uses, declared in the harness when it does
RELATION_FUNCS = {
    "clmulw": [
        "  // the low K*Units bits of a carry-less (GF(2)[x]) product",
        "  function automatic logic [K*Units-1:0] clmulw(input logic [K*Units-1:0] a,",
        "                                                input logic [K*Units-1:0] b);",
        "    logic [K*Units-1:0] acc;",
        "    acc = '0;",
        "    for (int i = 0; i < K*Units; i++) acc = acc ^ (b[i] ? a << i : '0);",
        "    clmulw = acc;",
        "  endfunction",
    ],
}


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
    if design.has_field and design.field1.get("kind") not in FIELD1_KINDS:
        return (f"{design.name}: its field 1 kind {design.field1.get('kind')!r} has no formal "
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


def reference(proof: CoreProof, x: str, y: str) -> list[str]:
    """`expected`, the function's value, computed by a behavioural reference that shares
    nothing with the core: the full product X*Y, then (kind mont) r halving steps that add M
    when the value is odd (REDC, one bit at a time) and conditional subtractions of M, or
    (kind inter) the remainder of restoring division, one product bit at a time; (kind
    modexp) square-and-multiply over the exponent's bits with each product reduced by
    restoring division; (field kind mont_gf2) the carry-less product and r steps that XOR
    M(x) when the constant term is 1 and divide by x. Adders and compares only: a solver
    handles them at these widths, a `%` by a free M it does not."""
    kind = proof.design.kind
    if kind == "modexp":
        return _modexp_reference()
    lines = ["  // the reference (behavioural: adders and compares, no division)",
             "  logic [WW-1:0] prod, expected;",
             f"  assign prod = {x} * {y};"]
    if kind == "inter":
        lines += [
            "  localparam int PW = WW - 2;  // the product's bits (its top two are zero)",
            "  logic [N:0] rem [PW+1];",
            "  assign rem[0] = '0;",
            "  for (genvar i = 0; i < PW; i++) begin : g_div",
            "    logic [N+1:0] t;",
            "    assign t = {rem[i], prod[PW-1-i]};",
            "    assign rem[i+1] = (t >= (N+2)'(m)) ? (N+1)'(t - (N+2)'(m)) : t[N:0];",
            "  end",
            "  assign expected = WW'(rem[PW]);",
        ]
        return lines + [""]
    r = proof.r_bits
    gfp = "expected_gfp" if proof.field1 else "expected"
    lines += [
        *([f"  logic [WW-1:0] {gfp};"] if proof.field1 else []),
        f"  logic [WW-1:0] red [{r + 1}];",
        "  assign red[0] = prod;",
        f"  for (genvar i = 0; i < {r}; i++) begin : g_redc",
        "    assign red[i+1] = (red[i] + (red[i][0] ? WW'(m) : '0)) >> 1;",
        "  end",
    ]
    if proof.wide_y:
        return lines + [
            "  // T = (X*Y + Q*M) / 2^r < X*Y/2^r + M < Y + M, past 5M for an N-bit Y: T mod M",
            "  // by restoring division, one bit of T at a time",
            "  logic [WW-1:0] t_full;",
            f"  assign t_full = red[{r}];",
            *mod_lines(gfp, "t_full", "WW"), ""]
    lines += [
        "  // T = (X*Y + Q*M) / 2^r < X*Y/2^r + M < 5M over the operand domains (X < 2^r,"
        "  // Y < 2M): subtract 4M, 2M and M where they fit",
        "  logic [WW-1:0] sub4, sub2;",
        f"  assign sub4 = red[{r}] >= 4 * WW'(m) ? red[{r}] - 4 * WW'(m) : red[{r}];",
        "  assign sub2 = sub4 >= 2 * WW'(m) ? sub4 - 2 * WW'(m) : sub4;",
        f"  assign {gfp} = sub2 >= WW'(m) ? sub2 - WW'(m) : sub2;",
    ]
    if proof.field1:
        lines += _gf2_reference(proof, gfp)
    return lines + [""]


def _gf2_reference(proof: CoreProof, gfp: str) -> list[str]:
    """The binary field's value (field kind mont_gf2; X and Y whole, not carry-save) and
    `expected` by the field bit."""
    assert proof.field1 is not None
    r = proof.field1[1]
    return [
        "  // GF(2^n): P(x) = X(x)*Y(x)*x^-r mod M(x). The carry-less product, then r steps",
        "  // that add (XOR) M(x) when the constant term is 1 and divide by x: deg X < N <= r",
        "  // and deg Y <= deg M (Y < M), so the degree ends below deg M: fully reduced",
        "  logic [WW-1:0] cprod, expected_gf2;",
        "  always @(*) begin",
        "    cprod = '0;",
        "    for (int i = 0; i < N; i++) cprod = cprod ^ (y[i] ? WW'(x) << i : '0);",
        "  end",
        f"  logic [WW-1:0] gred [{r + 1}];",
        "  assign gred[0] = cprod;",
        f"  for (genvar i = 0; i < {r}; i++) begin : g_redx",
        "    assign gred[i+1] = (gred[i] ^ (gred[i][0] ? WW'(m) : '0)) >> 1;",
        "  end",
        f"  assign expected_gf2 = gred[{r}];",
        f"  assign expected = field ? expected_gf2 : {gfp};",
    ]


def _modexp_reference() -> list[str]:
    """kind modexp: `expected` = X^E mod M, right-to-left square-and-multiply over the
    exponent's N bits, each product reduced by restoring division (1 mod M is 0 for M = 1,
    so E = 0 gives 1 mod M)."""
    return [
        "  // the reference: X^E mod M by square-and-multiply, each product reduced by",
        "  // restoring division (adders and compares only)",
        "  function automatic logic [N-1:0] mulmod(input logic [N-1:0] a, input logic [N-1:0] b,",
        "                                          input logic [N-1:0] mod);",
        "    logic [2*N-1:0] pr;",
        "    logic [N+1:0] t;",
        "    logic [N:0] rm;",
        "    pr = (2*N)'(a) * (2*N)'(b);",
        "    rm = '0;",
        "    for (int i = 2*N-1; i >= 0; i--) begin",
        "      t = {rm, pr[i]};",
        "      rm = (t >= (N+2)'(mod)) ? (N+1)'(t - (N+2)'(mod)) : t[N:0];",
        "    end",
        "    mulmod = rm[N-1:0];",
        "  endfunction",
        "  logic [N-1:0] base [N+1];",
        "  logic [N-1:0] acc [N+1];",
        "  logic [WW-1:0] expected;",
        "  assign base[0] = x;",
        "  assign acc[0] = (m == N'(1)) ? '0 : N'(1);",
        "  for (genvar i = 0; i < N; i++) begin : g_pow",
        "    assign acc[i+1] = e[i] ? mulmod(acc[i], base[i], m) : acc[i];",
        "    assign base[i+1] = mulmod(base[i], base[i], m);",
        "  end",
        "  assign expected = WW'(acc[N]);",
        "",
    ]


def operand_lines(proof: CoreProof, free: str = "anyconst") -> tuple[list[str], dict[str, str]]:
    """The harness's operands and the rules a host keeps for them: their declarations, free
    constants (`anyconst`) or, with free="anyseq", free in every cycle; the loader's range
    rule (the operand domains: M odd, an operand of `below_modulus` below M, a carry-save
    group of domain below_2m below 2M, any N-bit value otherwise) and the relation of each
    host-precomputed register, assumed in every cycle. Also returns the
    value of X and Y in WW bits (a carry-save group's sum) by signal name."""
    d = proof.design
    wide = [s for s in ("x", "y") if s in proof.used and proof.halves]
    narrow = [s for s in ("x", "y", "m", "mp", "mhat", "r2", "e")
              if s in proof.used and s not in wide]
    lines = []
    if wide:
        lines.append(f"  (* {free} *) logic [2*N-1:0] {', '.join(wide)};  // {{half 2, half 1}}")
    lines.append(f"  (* {free} *) logic [N-1:0] {', '.join(narrow)};")
    if d.has_field:
        lines.append(f"  (* {free} *) logic field;  // CTRL.FIELD: 0 GF(p), 1 GF(2^n)")
    lines += [f"  (* {free} *) {decl}  // defines a precomputed register"
              for func in d.precompute.values() for decl in PRECOMPUTED[func][0]]
    lines += [line for name, text in RELATION_FUNCS.items()
              if any(name in PRECOMPUTED[f][1] for f in d.precompute.values())
              for line in text]
    val: dict[str, str] = {s: f"(WW'({s}[N-1:0]) + WW'({s}[2*N-1:N]))" if s in wide
                           else f"WW'({s})" for s in ("x", "y")}
    lines += ["", "  // the loader's range rule (the operand domains: an operand of any N-bit",
              "  // value is free) and the host's precomputed registers",
              "  always @(*) begin", "    assume (m[0]);"]
    for reg in d.below_modulus:
        lines.append(f"    assume ({top.LOADER_REGS[reg]} < m);")
    for group in d.range_groups:
        sig = top.LOADER_REGS[group[0]]
        lines.append(f"    assume ({val[sig]} < 2 * WW'(m));")
    for reg, func in d.precompute.items():
        lines.append(f"    assume ({PRECOMPUTED[func][1]});  // {reg}: {func}")
    return [*lines, "  end", ""], val


def cycles_text(proof: CoreProof) -> str:
    """Where the cycle count comes from, for the harness's comment."""
    d = proof.design
    text = d.cycles or "the model's count, the longest"
    return text + (f"; {d.cycles_field1} with the field bit" if proof.field1 else "")


def cycle_lines(proof: CoreProof) -> list[str]:
    """`ops_cycles`, the cycles of this operation: Cycles, or by the field bit, or by the
    operand the count depends on (the model's count for each of its values)."""
    d = proof.design
    if proof.field1 is not None:
        gfp = integer(d.cycles, proof.n, proof.params)
        return ["  logic [15:0] ops_cycles;",
                f"  assign ops_cycles = field ? 16'd{proof.field1[0]} : 16'd{gfp};"]
    if proof.by_operand is None:
        return ["  logic [15:0] ops_cycles;", "  assign ops_cycles = 16'(Cycles);"]
    sig, table = proof.by_operand
    by_count: dict[int, list[int]] = {}
    for value, count in table:
        by_count.setdefault(count, []).append(value)
    lines = ["  // the model's cycle count for each value of " + sig.upper(),
             "  logic [15:0] ops_cycles;", "  always @(*) begin",
             f"    case ({sig})"]
    longest, q = max(by_count), "'"
    lines += [f"      {', '.join(f'{proof.n}{q}d{v}' for v in values)}: ops_cycles = 16'd{count};"
              for count, values in sorted(by_count.items()) if count != longest]
    return [*lines, f"      default: ops_cycles = 16'd{longest};", "    endcase", "  end"]


def control_lines(proof: CoreProof, every: bool = False) -> list[str]:
    """The harness's parameters, its cycle counter and its control: reset in cycle 0, START
    in cycle 1 (`every`: in any cycle the core is idle, operations back to back), CLEAR
    never."""
    start = (("  (* anyseq *) logic start_any;",
              "  assign start = start_any && rst_ni && !core_busy;")
             if every else ("  assign start = (cyc_q == 16'd1);",))
    return [
        f"  localparam int N = {proof.n};",
        *(f"  localparam int {k} = {v};" for k, v in proof.params.items()),
        *(f"  localparam int {k} = {v};" for k, v in proof.consts),
        f"  localparam int Cycles = {proof.cycles};  // {cycles_text(proof)}",
        f"  localparam int WW = {proof.ww};",
        "",
        "  // cycle 0: reset; " + ("then START whenever the core is idle" if every else
                                   "cycle 1: START; then the operation"),
        "  logic [15:0] cyc_q = '0;",
        "  always @(posedge clk_i) begin",
        "    if (cyc_q != 16'hffff) cyc_q <= cyc_q + 1'b1;",
        "  end",
        "  always @(*) assume (rst_ni == (cyc_q != '0));",
        "",
        "  logic start, clear, core_busy, core_last;",
        *start,
        "  assign clear = 1'b0;",
    ]


def core_lines(proof: CoreProof) -> list[str]:
    """The core's outputs and its instance, u_core, connected to the harness's signals."""
    d, n = proof.design, proof.n
    core = top.core_header(d)
    red = d.redundant_extra_bits
    lines = ["  logic [N-1:0] p;"]
    if red is not None:
        lines.append(f"  logic [{n + red - 1 if red else n - 1}:0] s, c;")
    core_params = [(name, name) for name in core.params if name in proof.params or name == "N"]
    lines.append(f"  {core.module} #(")
    lines += [f"    .{name}({value})" + ("," if i < len(core_params) - 1 else "")
              for i, (name, value) in enumerate(core_params)]
    lines.append("  ) u_core (")
    conns = top.core_connections(d, core)
    # "" is the same name (clock, reset) or an output the harness leaves open
    lines += [f"    .{name}({expr or (name if name in ('clk_i', 'rst_ni') else '')})"
              + ("," if i < len(conns) - 1 else "") for i, (name, expr) in enumerate(conns)]
    return [*lines, "  );", ""]


def mod_lines(name: str, value: str, width: str) -> list[str]:
    """`name` (WW bits) = `value` (a signal of `width` bits) mod M, by restoring division:
    adders and compares, one bit of the value at a time (the remainder stays below M)."""
    return [
        f"  logic [N:0] {name}_rem [{width}+1];",
        f"  assign {name}_rem[0] = '0;",
        f"  for (genvar i = 0; i < {width}; i++) begin : g_{name}",
        "    logic [N+1:0] t;",
        f"    assign t = {{{name}_rem[i], {value}[{width}-1-i]}};",
        f"    assign {name}_rem[i+1] = (t >= (N+2)'(m)) ? (N+1)'(t - (N+2)'(m)) : t[N:0];",
        "  end",
        f"  assign {name} = WW'({name}_rem[{width}]);",
    ]


def promise_lines(proof: CoreProof, val: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """P reduced mod M and the promise's assertion, for a harness that checks a congruence
    (CoreProof.promise_p): its declarations and its assertion lines (none otherwise)."""
    promise = proof.promise_p
    if promise is None:
        return [], []
    names = {"p": "WW'(p)", "x": val["x"], "y": val["y"], "m": "WW'(m)", "n": "WW'(N)",
             "r": f"WW'({proof.r_bits})", **{k: f"WW'({k})" for k in proof.params}}
    cond = formal_promise.condition(promise, names)
    decl = ["  // P is congruent to the product and within the design's promise (it may reach",
            f"  // past M: {promise})", "  logic [WW-1:0] p_mod;", *mod_lines("p_mod", "p", "N"),
            ""]
    return decl, [f"      if (done_q) CorePromise_A: assert ({cond});"]


def held_lines(proof: CoreProof) -> list[str]:
    """Operations back to back: the operands (and the field bit) change only with START, as
    the loader writes them before it; so after a result they are still its operation's."""
    held = sorted(proof.used | ({"field"} if proof.design.has_field else set()))
    return ["  // the operands change only with START (the loader writes them before it)",
            "  always @(posedge clk_i) begin",
            "    if (cyc_q != '0 && !start) assume ("
            + " && ".join(f"{s} == $past({s})" for s in held) + ");",
            "  end", ""]


def result_lines(proof: CoreProof, ok: str, promise: list[str], every: bool) -> list[str]:
    """The checks of the result and the cycle count: of the one operation from reset, or
    (`every`) of each operation, counted from its START (since_q, running_q)."""
    if not every:
        return [
            "  // the result: last_o in cycle 1 + ops_cycles exactly, then P",
            "  logic done_q = 1'b0;",
            "  always @(posedge clk_i) begin",
            "    if (core_last) done_q <= 1'b1;",
            "  end",
            "  always @(posedge clk_i) begin",
            "    if (rst_ni) begin",
            "      CoreCycles_A: assert (core_last == (cyc_q == 16'd1 + ops_cycles));",
            "      CoreBusy_A: assert (core_busy == (cyc_q >= 16'd2 && "
            "cyc_q <= 16'd1 + ops_cycles));",
            f"      if (done_q) CoreResult_A: assert ({ok});",
            *promise,
            "      CoreDone_C: cover (done_q);",
            "    end",
            "  end",
        ]
    return [
        "  // each operation: busy from the cycle after its START, last_o ops_cycles cycles",
        "  // after it, then P until the next START; two back to back are covered",
        "  logic running_q = 1'b0, done_q = 1'b0;",
        "  logic [15:0] since_q = '0;",
        "  logic [1:0] ops_q = '0;",
        "  logic ending;",
        "  assign ending = running_q && since_q == ops_cycles;",
        "  always @(posedge clk_i) begin",
        "    if (!rst_ni) begin",
        "      running_q <= 1'b0;",
        "      done_q <= 1'b0;",
        "    end else if (start) begin",
        "      running_q <= 1'b1;",
        "      done_q <= 1'b0;",
        "      since_q <= 16'd1;",
        "      if (ops_q != 2'd3) ops_q <= ops_q + 1'b1;",
        "    end else begin",
        "      if (since_q != 16'hffff) since_q <= since_q + 1'b1;",
        "      if (ending) begin",
        "        running_q <= 1'b0;",
        "        done_q <= 1'b1;",
        "      end",
        "    end",
        "  end",
        "  always @(posedge clk_i) begin",
        "    if (rst_ni) begin",
        "      CoreCycles_A: assert (core_last == ending);",
        "      CoreBusy_A: assert (core_busy == running_q);",
        f"      if (done_q && !start) CoreResult_A: assert ({ok});",
        *(line.replace("if (done_q)", "if (done_q && !start)") for line in promise),
        "      CoreDone_C: cover (done_q);",
        "      CoreSecond_C: cover (done_q && ops_q == 2'd2);",
        "    end",
        "  end",
    ]


def harness(proof: CoreProof, every: bool = False) -> str:
    """The harness's SystemVerilog (read by yosys -formal only): one operation from reset,
    or (`every`, for k-induction) any sequence of operations, START whenever the core is
    idle and the operands free with each."""
    d, n = proof.design, proof.n
    scope = ("any operations back to back, for all time" if every
             else "one operation from reset")
    lines = [
        f"// GENERATED by montverif.regress.formal.formal_core from {d.descriptor.name}: the",
        f"// {d.name} core ({d.paper}: {d.algorithm}) against {proof.relation()}",
        f"// at N = {n}, for every input, {scope}. Do not edit.",
        f"module {proof.module} (",
        "  input logic clk_i,",
        "  input logic rst_ni",
        ");",
        *control_lines(proof, every),
    ]
    operands, val = operand_lines(proof, "anyseq" if every else "anyconst")
    lines += operands
    lines += held_lines(proof) if every else []
    lines += core_lines(proof)
    x, y = val["x"], (val["y"] if "y" in proof.used else "WW'(1)")
    lines += reference(proof, x, y)
    congruence, promise = promise_lines(proof, {**val, "y": y})
    lines += congruence
    lines += cycle_lines(proof)
    ok = "p_mod == expected" if promise else "WW'(p) == expected"
    lines += result_lines(proof, ok, promise, every)
    return "\n".join([*lines, "endmodule"]) + "\n"


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
