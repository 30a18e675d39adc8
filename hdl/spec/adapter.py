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
from pathlib import Path

from montverif.host import templates
from montverif.host.errors import ConfigError
from montverif.spec.foreign import (
    REGISTER_SIGNALS,
    CorePort,
    ForeignCore,
    parse_expression,
)

_TEMPLATES = Path(__file__).resolve().parent / "templates"
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


def _inputs(core: ForeignCore, ports: dict[str, CorePort], registers: tuple[str, ...]
            ) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """(core input, the top's expression) for every mapped input, and (input, expression's
    width, port's width) of each the elaboration checks is no wider than its port."""
    names = {r: REGISTER_SIGNALS[r] for r in registers if r in REGISTER_SIGNALS}
    conns, wide = [], []
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
        wide.append((port, expr.width, found.width))
    return conns, wide


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


def _done(core: ForeignCore) -> tuple[str, str]:
    """The adapter's `core_done` (the cycle the result is taken), and the core's done output
    whose rising edge it is, if a level (registered in done_q)."""
    if core.handshake == "start_done":
        if core.done_pulse:
            return f"co_{core.done}", ""
        return f"co_{core.done} && !done_q", core.done
    if core.handshake == "valid_ready":
        return f"co_{core.out_valid}", ""
    return "count_q == '0", ""


def emit(core: ForeignCore, ports: dict[str, CorePort], registers: tuple[str, ...],
         top: str) -> list[str]:
    """The adapter's lines inside the top (after the loader): templates/adapter.sv.j2."""
    conns, wide = _inputs(core, ports, registers)
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
    done, done_output = _done(core)
    used = set(result.names) | {x for x in (core.done, core.out_valid, core.in_ready) if x}
    if missing := [o for o in used if o not in outputs]:
        raise ConfigError(f"[core]: {missing[0]} is no output of {core.module}")
    pins = [*control.items(), *conns,
            *((name, f"co_{name}" if name in used else "") for name in outputs)]
    text = templates.render(
        _TEMPLATES, "adapter.sv.j2", module=core.module, handshake=core.handshake, top=top,
        outputs=[(name, o.width) for name, o in outputs.items() if name in used],
        result_width=result.width, result_sv=result.sv, done=done, done_output=done_output,
        in_ready=core.in_ready, out_valid=core.out_valid,
        latency=sv_integer(core.latency) if core.handshake == "latency" else "",
        wide=wide, params=list(core.params.items()), pins=pins,
        open_pins=any(not expr for _, expr in pins))
    return text.splitlines()
