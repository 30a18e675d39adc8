"""The generated top's adapter for a core from elsewhere (montverif.spec.foreign): the core's
reset polarity, its handshake turned into the loader's (start pulse in; busy and last out,
the result held in P until the next operation or CLEAR), its inputs fitted to the
expressions of the loader's registers that [core] ports gives, its result taken by the
expression [core] result gives.

Handshakes (busy runs from the start edge to the edge the result is taken, so the cycles the
loader counts are the core's latency plus one):

- start_done: `start` a one-cycle pulse (start_style = "pulse") or held high until the
  result (= "level"); `done` a one-cycle pulse (done_style = "pulse") or a level whose
  rising edge counts (= "level").
- valid_ready: `in_valid` is raised with START and held until `in_ready` takes the operands;
  `out_valid` (with `out_ready` held high while an operation runs, if the core has one) gives
  the result. An output outside an operation fails an assertion (CoreOutWithoutOp_A).
- latency: no done; the result is at the core's outputs `latency` clock edges after the edge
  that samples START (an optional `start` input is pulsed with it), and taken one edge later.

FaultEn (test only) flips bit 0 of the captured P: the negative test of a core that has no
fault of its own. A result wider than N fails CoreResultFits_A when its upper bits are not 0.
"""

from __future__ import annotations

import ast

from montverif.host.errors import ConfigError
from montverif.spec.foreign import (
    REGISTER_SIGNALS,
    CorePort,
    ForeignCore,
    parse_expression,
)

_SV_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/"}


def sv_integer(expr: str) -> str:
    """A descriptor formula in n (+ - * // and ceil(a / b), min, max) as a SystemVerilog
    constant expression in N."""

    def show(node: ast.AST) -> str:
        if isinstance(node, ast.Name) and node.id == "n":
            return "N"
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return str(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _SV_OPS:
            return f"({show(node.left)} {_SV_OPS[type(node.op)]} {show(node.right)})"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if node.func.id == "ceil" and len(args) == 1 and isinstance(args[0], ast.BinOp) \
                    and isinstance(args[0].op, ast.Div):
                a, b = show(args[0].left), show(args[0].right)
                return f"(({a} + {b} - 1) / {b})"
            if node.func.id in ("min", "max") and len(args) == 2:
                a, b = show(args[0]), show(args[1])
                op = "<" if node.func.id == "min" else ">"
                return f"(({a} {op} {b}) ? {a} : {b})"
        raise ConfigError(f"[core] latency {expr!r}: only n, integers, + - * //, "
                          "ceil(a / b), min and max become RTL")

    return show(ast.parse(expr, mode="eval").body)


def _inputs(core: ForeignCore, ports: dict[str, CorePort], registers: tuple[str, ...],
            top: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(core input, the top's expression) for every mapped input, and the elaboration checks
    that no expression is wider than its port."""
    names = {r: REGISTER_SIGNALS[r] for r in registers if r in REGISTER_SIGNALS}
    conns, checks = [], []
    for port, text in core.ports.items():
        found = ports.get(port)
        if found is None or found.direction != "input":
            inputs = ", ".join(p for p, v in ports.items() if v.direction == "input")
            raise ConfigError(f"[core] ports: {port} is no input of {core.module} "
                              f"(its inputs: {inputs})")
        expr = parse_expression(text, names, f"[core] ports.{port}")
        if expr.width == found.width:
            conns.append((port, expr.sv))
            continue
        fitted = expr.sv if found.width.startswith("$bits") else f"({found.width})'({expr.sv})"
        conns.append((port, fitted))
        checks += [f"  if (({expr.width}) > ({found.width})) begin : g_wide_{port}",
                   f'    initial $fatal(1, "{top}: [core] ports.{port} is %0d bits, wider '
                   f'than {core.module}\'s {port} (%0d): take a slice", {expr.width}, '
                   f"{found.width});", "  end"]
    return conns, checks


def _control(core: ForeignCore) -> dict[str, str]:
    """The core's control inputs -> the adapter's signals."""
    reset = "rst_ni" if core.reset_active_low else "!rst_ni"
    out = {core.clock: "clk_i", core.reset: reset}
    if core.handshake == "start_done":
        out[core.start] = "start || busy_q" if core.start_level else "start"
    elif core.handshake == "valid_ready":
        out[core.in_valid] = "in_valid"
        if core.out_ready:
            out[core.out_ready] = "busy_q"
    elif core.start:
        out[core.start] = "start"
    return out


def _done(core: ForeignCore) -> tuple[str, list[str]]:
    """The adapter's `core_done` (the cycle the result is taken) and its declarations."""
    if core.handshake == "start_done":
        if core.done_pulse:
            return f"co_{core.done}", []
        return f"co_{core.done} && !done_q", ["done_q"]
    if core.handshake == "valid_ready":
        return f"co_{core.out_valid}", []
    return "count_q == '0", []


def emit(core: ForeignCore, ports: dict[str, CorePort], registers: tuple[str, ...],
         top: str) -> list[str]:
    """The adapter's lines inside the top (after the loader)."""
    conns, checks = _inputs(core, ports, registers, top)
    control = _control(core)
    if unmapped := [p for p, v in ports.items() if v.direction == "input"
                    and p not in control and p not in core.ports]:
        raise ConfigError(f"[core] ports: {core.module}'s input {unmapped[0]} is not "
                          "connected: map it to an expression (a register, a slice, a "
                          "constant such as 1'b0)")
    for name in control:
        if name not in ports:
            raise ConfigError(f"[core]: {name} is no port of {core.module}")
    outputs = {p: v for p, v in ports.items() if v.direction == "output"}
    result = parse_expression(core.result, {p: f"co_{p}" for p in outputs}, "[core] result",
                              {p: o.width for p, o in outputs.items()})
    done, extra = _done(core)
    used_outputs = set(result.names) | {x for x in (core.done, core.out_valid, core.in_ready)
                                        if x}
    if missing := [o for o in used_outputs if o not in outputs]:
        raise ConfigError(f"[core]: {missing[0]} is no output of {core.module}")
    lines = [f"  // {core.module}, a core from elsewhere ([core] handshake = "
             f"\"{core.handshake}\"),", "  // adapted to the loader (montverif.spec.adapter).",
             "  `include \"mv_assert.svh\"", "  /* verilator lint_off UNUSEDSIGNAL */"]
    lines += [f"  logic [({o.width})-1:0] co_{name};" for name, o in outputs.items()
              if name in used_outputs]
    lines += [f"  logic [({result.width})-1:0] result_full;",
              "  /* verilator lint_on UNUSEDSIGNAL */",
              f"  logic busy_q, core_done{''.join(', ' + e for e in extra)};",
              "  logic [N-1:0] result, p_q;"]
    lines += _handshake_regs(core)
    lines += [f"  assign result_full = {result.sv};",
              "  assign result = N'(result_full);", *_fits(result.width),
              f"  assign core_done = busy_q && ({done});", *_registers(core, extra),
              "  assign core_busy = busy_q;",
              "  assign core_last = core_done;",
              "  assign p         = p_q;", "", *checks]
    lines += _instance(core, conns, control, outputs, used_outputs)
    return lines


def _fits(width: str) -> list[str]:
    """A result wider than N: its upper bits must be 0 when it is taken (no silent cut)."""
    if width == "N":
        return []
    return ["  if ((" + width + ") > N) begin : g_result_fits",
            *_check("CoreResultFits_A", "!core_done || (result_full >> N) == '0",
                    "the result has bits set above N"), "  end"]


def _check(name: str, prop: str, why: str) -> list[str]:
    """An assertion of the adapter's, in Icarus too (which has no concurrent assertions:
    an immediate check there, ending the run with the same ASSERT FAILED line)."""
    return ["`ifdef __ICARUS__",
            "    always @(posedge clk_i) begin",
            f"      if (rst_ni && !({prop})) begin",
            f'        $fatal(1, "ASSERT FAILED {name} @ %0t ps: %m: {why}", $time);',
            "      end", "    end", "`else",
            f"    `ASSERT({name}, {prop}, clk_i, !rst_ni)", "`endif"]


def _handshake_regs(core: ForeignCore) -> list[str]:
    if core.handshake == "valid_ready":
        return ["  // the operands are offered from START until the core takes them",
                "  logic in_valid, in_pend_q;",
                "  assign in_valid = start || in_pend_q;",
                "  always_ff @(posedge clk_i or negedge rst_ni) begin",
                "    if (!rst_ni) in_pend_q <= 1'b0;",
                f"    else in_pend_q <= in_valid && !co_{core.in_ready};",
                "  end",
                *_check("CoreOutWithoutOp_A", f"!co_{core.out_valid} || busy_q",
                        "a result came out while no operation ran")]
    if core.handshake == "latency":
        return ["  // the result is at the core's outputs `Latency` edges after the START edge",
                f"  localparam int Latency = {sv_integer(core.latency)};",
                "  localparam int CountW = $clog2(Latency + 2);",
                "  if (Latency < 0) begin : g_bad_latency",
                "    initial $fatal(1, \"[core] latency must not be negative (got %0d)\", "
                "Latency);", "  end",
                "  logic [CountW-1:0] count_q;",
                "  always_ff @(posedge clk_i or negedge rst_ni) begin",
                "    if (!rst_ni) count_q <= '0;",
                "    else if (start) count_q <= CountW'(Latency);",
                "    else if (busy_q && count_q != '0) count_q <= count_q - 1'b1;",
                "  end"]
    return []


def _registers(core: ForeignCore, extra: list[str]) -> list[str]:
    lines = ["  always_ff @(posedge clk_i or negedge rst_ni) begin",
             "    if (!rst_ni) begin", "      busy_q <= 1'b0;",
             *(f"      {e} <= 1'b0;" for e in extra), "      p_q    <= '0;",
             "    end else begin",
             *(f"      done_q <= co_{core.done};" for _ in extra[:1]),
             "      if (start) begin", "        busy_q <= 1'b1;",
             "      end else if (core_done) begin", "        busy_q <= 1'b0;",
             "        p_q    <= result ^ N'(FaultEn);  // test only: FaultEn flips bit 0",
             "      end else if (clear) begin", "        p_q    <= '0;", "      end",
             "    end", "  end"]
    return lines


def _instance(core: ForeignCore, conns: list[tuple[str, str]], control: dict[str, str],
              outputs: dict[str, CorePort], used: set[str]) -> list[str]:
    params = list(core.params.items())
    lines = [f"  {core.module}" + (" #(" if params else " u_core (")]
    if params:
        lines += [f"    .{name:<9}({value})" + ("," if i < len(params) - 1 else "")
                  for i, (name, value) in enumerate(params)]
        lines.append("  ) u_core (")
    pins = [*control.items(), *conns,
            *((name, f"co_{name}" if name in used else "") for name in outputs)]
    if any(not expr for _, expr in pins):
        lines.append("    /* verilator lint_off PINCONNECTEMPTY */")
    lines += [f"    .{name:<12}({expr})" + ("," if i < len(pins) - 1 else "")
              for i, (name, expr) in enumerate(pins)]
    if any(not expr for _, expr in pins):
        lines.append("    /* verilator lint_on PINCONNECTEMPTY */")
    lines.append("  );")
    return lines
