"""The formal harness of a design's core, generated from its descriptor (docs/formal.md).

`montverif formal --dut D --n N` proves the core of design D against what its descriptor
says it computes, for every input at width N:

- the operands X, Y (or their carry-save halves) and the modulus M are free constants
  (`anyconst`), constrained only by the loader's range rule, i.e. the descriptor's operand
  domain (M odd, an operand whose domain is below_m below M, a carry-save group whose domain
  is below_2m below 2M, any N-bit value otherwise) and, for a host-precomputed register, by
  the relation that defines it (m' = -M^-1 mod 2^W);
- reset in cycle 0, START in cycle 1, CLEAR never;
- the core's `last_o` comes exactly in the cycle its descriptor's cycle formula names, and
  from the next cycle on P is the function's result: kind `mont` P = X Y 2^-r mod M
  (r = the descriptor's r_bits), kind `inter` P = X Y mod M, both computed by a behavioural
  reference in the harness (a miter);
- the core's own assertions (hdl/common/mv_assert.svh) hold in every cycle on the way.

A bounded model check to a depth past the result cycle covers the whole first operation
after reset for every input: the core's function is proved at that width for one operation
from reset (not for an operation that follows another; docs/formal.md says what that
leaves open).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from montverif.regress.flow.spec import BuildSpec
from montverif.spec import top
from montverif.spec.design import Design
from montverif.spec.errors import ConfigError
from montverif.spec.formula import integer

KINDS = ("mont", "inter")  # what a harness can state (modexp and GF(2^n) are not yet)
MIN_N, MAX_N = 4, 16  # formal widths: the state and the checked product grow with N

# A host-precomputed register the harness can constrain: the descriptor's function ->
# (free helper constants it declares, the relation that defines the value the host loads),
# in SystemVerilog over the harness's signals and the core's parameters.
PRECOMPUTED: dict[str, tuple[tuple[str, ...], str]] = {
    # m' = -M^-1 mod 2^W: the low W bits of m' * M + 1 are zero, the bits above are zero
    "scalable:mwrkmm_mprime": ((), "(mp >> W) == '0 && ((2*N)'(mp) * (2*N)'(m) + 1) % (2**W) "
                                   "== 0"),
    # M-hat = (M' M + 1) / 2^2V with M' = -M^-1 mod 2^2V (Jiang-Harris, section III): M' is
    # the free 2V-bit constant mq that makes M' M + 1 a multiple of 2^2V
    "vhr:mhat": (("logic [2*V-1:0] mq;",),
                 "((2*N+2*V)'(mq) * (2*N+2*V)'(m) + 1) % (2**(2*V)) == 0 && "
                 "(2*N+2*V)'(mhat) == ((2*N+2*V)'(mq) * (2*N+2*V)'(m) + 1) >> (2*V)"),
}


@dataclass(frozen=True)
class CoreProof:
    """What the harness of one design at one point checks."""

    design: Design
    n: int
    params: dict[str, int]  # the core's build parameters beyond N, defaults filled in
    cycles: int  # last_o in cycle 1 + cycles (START in cycle 1)
    r_bits: int  # kind mont: P = X Y 2^-r mod M

    @property
    def module(self) -> str:
        return f"{self.design.core_module}_formal"

    @property
    def depth(self) -> int:
        """The BMC depth that reaches two cycles past the result (SBY counts from step 0)."""
        return self.cycles + 4

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
        """The reference's width: enough for X*Y and P*2^r."""
        xw = self.n + 1 if self.halves else self.n  # an operand's value (a group's sum)
        return 2 * xw + self.r_bits + 2

    def relation(self) -> str:
        """What the harness asserts of P, in words."""
        if self.design.kind == "inter":
            return "P = X*Y mod M"
        return f"P = X*Y*2^-{self.r_bits} mod M"


def unsupported(design: Design) -> str:
    """Why no harness can state the design's function yet ("" when one can)."""
    if design.foreign is not None:
        return f"{design.name}: a core of its own ([core]) has no formal harness yet"
    if design.kind not in KINDS:
        return (f"{design.name}: its function kind {design.kind!r} has no formal harness yet "
                f"(known: {', '.join(KINDS)})")
    if design.has_field:
        return f"{design.name}: a design with a field bit has no formal harness yet"
    if missing := [f for f in design.precompute.values() if f not in PRECOMPUTED]:
        return f"{design.name}: no formal relation for its precomputed {', '.join(missing)}"
    return ""


def prepare(design: Design, n: int, given: dict[str, int], fault: bool = False,
            max_n: int = MAX_N) -> CoreProof:
    """Check that the design can be proved at this point; raises ConfigError (one line).
    fault: the design's fault build (its descriptor's [fault] parameters), which must fail.
    max_n: the widest point (a cover run, which checks no product, goes beyond MAX_N)."""
    if why := unsupported(design):
        raise ConfigError(why)
    if not MIN_N <= n <= max_n:
        raise ConfigError(f"N={n}: formal proofs of a core run at {MIN_N} <= N <= {max_n} "
                          "(the solver's time grows steeply with N: docs/formal.md)")
    if not design.cycles:
        raise ConfigError(f"{design.name}: its descriptor states no cycle formula")
    build = BuildSpec(design.name, n, params=tuple(given.items()))
    try:
        params = build.design_params(design)
    except Exception as exc:  # the model's ModelInputError: an illegal combination
        raise ConfigError(str(exc)) from None
    cycles = integer(design.cycles, n, params)
    r_bits = integer(design.r_bits, n, params) if design.kind == "mont" else 0
    if fault:
        if not design.fault_params:
            raise ConfigError(f"{design.name}: its descriptor names no [fault] parameters")
        params = params | dict(design.fault_params)
    return CoreProof(design, n, params, cycles, r_bits)


def reference(proof: CoreProof, x: str, y: str) -> list[str]:
    """`expected`, the function's value, computed by a behavioural reference that shares
    nothing with the core: the full product X*Y, then (kind mont) r halving steps that add M
    when the value is odd (REDC, one bit at a time) and conditional subtractions of M, or
    (kind inter) the remainder of restoring division, one product bit at a time. Adders and
    compares only: a solver handles them at these widths, a `%` by a free M it does not."""
    lines = ["  // the reference (behavioural: adders and compares, no division)",
             "  logic [WW-1:0] prod, expected;",
             f"  assign prod = {x} * {y};"]
    if proof.design.kind == "inter":
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
    else:
        r = proof.r_bits
        lines += [
            f"  logic [WW-1:0] red [{proof.r_bits + 1}];",
            "  assign red[0] = prod;",
            f"  for (genvar i = 0; i < {proof.r_bits}; i++) begin : g_redc",
            "    assign red[i+1] = (red[i] + (red[i][0] ? WW'(m) : '0)) >> 1;",
            "  end",
            "  // T = (X*Y + Q*M) / 2^r < X*Y/2^r + M < 5M over the operand domains (X < 2^r,",
            "  // Y < 2M): subtract 4M, 2M and M where they fit",
            "  logic [WW-1:0] sub4, sub2;",
            f"  assign sub4 = red[{r}] >= 4 * WW'(m) ? red[{r}] - 4 * WW'(m) : red[{r}];",
            "  assign sub2 = sub4 >= 2 * WW'(m) ? sub4 - 2 * WW'(m) : sub4;",
            "  assign expected = sub2 >= WW'(m) ? sub2 - WW'(m) : sub2;",
        ]
    return lines + [""]


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
    lines += [f"  (* {free} *) {decl}  // defines a precomputed register"
              for func in d.precompute.values() for decl in PRECOMPUTED[func][0]]
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


def control_lines(proof: CoreProof) -> list[str]:
    """The harness's parameters, its cycle counter and its control: reset in cycle 0, START
    in cycle 1, CLEAR never."""
    return [
        f"  localparam int N = {proof.n};",
        *(f"  localparam int {k} = {v};" for k, v in proof.params.items()),
        f"  localparam int Cycles = {proof.cycles};  // {proof.design.cycles}",
        f"  localparam int WW = {proof.ww};",
        "",
        "  // cycle 0: reset; cycle 1: START; then the operation",
        "  logic [15:0] cyc_q = '0;",
        "  always @(posedge clk_i) begin",
        "    if (cyc_q != 16'hffff) cyc_q <= cyc_q + 1'b1;",
        "  end",
        "  always @(*) assume (rst_ni == (cyc_q != '0));",
        "",
        "  logic start, clear, core_busy, core_last;",
        "  assign start = (cyc_q == 16'd1);",
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


def harness(proof: CoreProof) -> str:
    """The harness's SystemVerilog (read by yosys -formal only)."""
    d, n = proof.design, proof.n
    lines = [
        f"// GENERATED by montverif.regress.flow.formal_core from {d.descriptor.name}: the",
        f"// {d.name} core ({d.paper}: {d.algorithm}) against {proof.relation()}",
        f"// at N = {n}, for every input, one operation from reset. Do not edit.",
        f"module {proof.module} (",
        "  input logic clk_i,",
        "  input logic rst_ni",
        ");",
        *control_lines(proof),
    ]
    operands, val = operand_lines(proof)
    lines += operands
    lines += core_lines(proof)
    x, y = val["x"], (val["y"] if "y" in proof.used else "WW'(1)")
    lines += reference(proof, x, y)
    ok = "WW'(p) == expected"
    lines += [
        "  // the result: last_o in cycle 1 + Cycles exactly, then P",
        "  logic done_q = 1'b0;",
        "  always @(posedge clk_i) begin",
        "    if (core_last) done_q <= 1'b1;",
        "  end",
        "  always @(posedge clk_i) begin",
        "    if (rst_ni) begin",
        "      CoreCycles_A: assert (core_last == (cyc_q == 16'(1 + Cycles)));",
        "      CoreBusy_A: assert (core_busy == (cyc_q >= 16'd2 && cyc_q <= 16'(1 + Cycles)));",
        f"      if (done_q) CoreResult_A: assert ({ok});",
        "      CoreDone_C: cover (done_q);",
        "    end",
        "  end",
        "endmodule",
    ]
    return "\n".join(lines) + "\n"


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


def split_halves(proof: CoreProof, values: Mapping[str, int]) -> dict[str, int]:
    """Operand values by a vector file's names: a carry-save operand's two halves, packed
    side by side in the harness, as x and x2 (y and y2)."""
    out = {}
    for sig, value in values.items():
        if sig != "m" and proof.design.carry_save_operands:
            out[sig], out[sig + "2"] = value & ((1 << proof.n) - 1), value >> proof.n
        else:
            out[sig] = value
    return out


def counterexample_operands(proof: CoreProof, trace: Path) -> dict[str, int]:
    """The operands of a counterexample (the harness's free constants in its VCD trace), by
    the names a vector file uses (x, y, m; x2, y2 for the second carry-save halves)."""
    first = next(top_steps(trace, ("x", "y", "m")), {})
    return split_halves(proof, first)


def write_vector(proof: CoreProof, trace: Path, target: Path) -> Path:
    """The counterexample as a vector file (verif/vectors.py) that `montverif sim --vectors`
    replays."""
    ops = counterexample_operands(proof, trace)
    target.write_text(json.dumps({"vectors": [{k: hex(v) for k, v in sorted(ops.items())}]},
                                 indent=1) + "\n")
    return target
