"""A core from elsewhere (a descriptor's [core]): its own port names, widths, reset and
handshake, connected to the bus loader by the generated top (montverif.spec.adapter) with no
wrapper written by hand (docs/own-design.md, "A core from elsewhere").

The descriptor maps every core input to an expression of the loader's registers and every
result to an expression of the core's outputs, in a small language that the top writes as
SystemVerilog:

    X, Y, M, MP, MHAT, R2, E     a register the loader holds (N bits), in `ports`
    name                         one of the core's outputs, in `result`
    e[hi:lo], e[i]               a slice or a bit (hi, lo, i: integers and N, + - * /)
    {e1, e2, ...}                a concatenation, e1 the most significant
    zext(e, W), sext(e, W)       zero- or sign-extended (or cut) to W bits
    8'd5, 2'b01, 16'h00ff        a sized constant: an input tied

Each expression's width is known (an expression of N), and so is each port's (its header's
range with the core's parameters as [core] params sets them): the top fits one to the other
(zero-extends a narrower expression) and stops the elaboration of any build in which an
expression is wider than its port, so nothing is cut silently.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from montverif.host.errors import ConfigError
from montverif.spec.fields import IDENTIFIER, Table

REGISTER_SIGNALS = {"X": "x", "Y": "y", "M": "m", "MP": "mp", "MHAT": "mhat", "R2": "r2",
                    "E": "e"}


@dataclass(frozen=True)
class ForeignCore:
    """A core written elsewhere, with its own port names and handshake (the descriptor's
    [core]): the generated top adapts it to the loader. It computes P only (no S, C)."""

    module: str
    clock: str
    reset: str
    reset_active_low: bool
    handshake: str  # start_done, valid_ready or latency
    ports: Mapping[str, str]  # core input -> expression of the loader's registers
    result: str  # expression of the core's outputs: P
    start: str = ""  # start_done: its start input; latency: an optional input pulsed
    start_level: bool = False  # start_done: held high until done (else a one-cycle pulse)
    done: str = ""  # start_done: its done output
    done_pulse: bool = True  # True: one cycle high when the result is ready; False: a level
    in_valid: str = ""  # valid_ready: the operands' valid (in), ready (out)
    in_ready: str = ""
    out_valid: str = ""  # valid_ready: the result's valid (out), ready (in; "" = none)
    out_ready: str = ""
    latency: str = ""  # latency: cycles from the start edge to the result (n, parameters)
    reset_sync: bool = False  # documentation: the core resets synchronously
    third_party: bool = True  # its sources' lint warnings are waived
    params: Mapping[str, str] = field(default_factory=dict)  # core parameter -> expression
    icarus: str = ""  # why Icarus cannot build it ("" = it can)


# --- the expression language -----------------------------------------------------------------

_LINEAR = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_TOKEN = re.compile(r"\s*(?:(\d+'[sS]?[bBdDhH][0-9a-fA-F_xXzZ]+)|(\d+)|([A-Za-z_]\w*)|(.))")
_INDEX = re.compile(r"[0-9N+\-*/() ]+")


@dataclass(frozen=True)
class Expr:
    """An expression as SystemVerilog text and its width (an SV expression of N)."""

    sv: str
    width: str
    names: frozenset[str] = frozenset()  # the registers or outputs it reads


class _Parser:
    def __init__(self, text: str, names: Mapping[str, str], what: str,
                 widths: Mapping[str, str]) -> None:
        self.tokens = [m.groups() for m in _TOKEN.finditer(text) if any(m.groups())]
        self.pos, self.names, self.what, self.text = 0, names, what, text
        self.widths = widths

    def fail(self, why: str) -> ConfigError:
        return ConfigError(f"{self.what}: {self.text!r}: {why}")

    def peek(self) -> str:
        if self.pos >= len(self.tokens):
            return ""
        return next(t for t in self.tokens[self.pos] if t)

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if not tok or (want is not None and tok != want):
            raise self.fail(f"expected {want!r}" if want else "ends too early")
        self.pos += 1
        return tok

    def index_text(self, stop: str) -> str:
        """Integer text up to `stop` at depth 0 (N, digits, + - * / and parentheses)."""
        out, depth = [], 0
        while (tok := self.peek()) and not (depth == 0 and tok == stop):
            depth += tok == "("
            depth -= tok == ")"
            out.append(self.take())
        text = " ".join(out)
        if not text or not _INDEX.fullmatch(text):
            raise self.fail(f"{text!r} is no integer expression of N")
        return text

    def expr(self) -> Expr:
        tok = self.peek()
        if tok == "{":
            self.take("{")
            parts = [self.expr()]
            while self.peek() == ",":
                self.take(",")
                parts.append(self.expr())
            self.take("}")
            got = Expr("{" + ", ".join(p.sv for p in parts) + "}",
                       simplified(" + ".join(f"({p.width})" for p in parts)),
                       frozenset().union(*(p.names for p in parts)))
        elif tok in ("zext", "sext"):
            self.take()
            self.take("(")
            inner = self.expr()
            self.take(",")
            width = self.index_text(")")
            self.take(")")
            arg = inner.sv if tok == "zext" else f"$signed({inner.sv})"
            got = Expr(f"({width})'({arg})", simplified(width), inner.names)
        elif "'" in tok:
            self.take()
            got = Expr(tok, tok.split("'")[0])
        elif tok in self.names:
            self.take()
            width = "N" if tok in REGISTER_SIGNALS else \
                self.widths.get(tok, f"$bits({self.names[tok]})")
            got = Expr(self.names[tok], width, frozenset([tok]))
        else:
            raise self.fail(f"{tok!r} is none of {', '.join(self.names)}" if tok else
                            "is empty")
        return self.slices(got)

    def slices(self, got: Expr) -> Expr:
        while self.peek() == "[":
            self.take("[")
            hi = self.index_text(":") if ":" in self._rest_of_bracket() else ""
            if hi:
                self.take(":")
                lo = self.index_text("]")
                got = Expr(f"{got.sv}[{hi}:{lo}]", simplified(f"({hi}) - ({lo}) + 1"),
                           got.names)
            else:
                bit = self.index_text("]")
                got = Expr(f"{got.sv}[{bit}]", "1", got.names)
            self.take("]")
        return got

    def _rest_of_bracket(self) -> list[str]:
        out = []
        for groups in self.tokens[self.pos:]:
            tok = next(t for t in groups if t)
            if tok == "]":
                break
            out.append(tok)
        return out


def parse_expression(text: str, names: Mapping[str, str], what: str,
                     widths: Mapping[str, str] | None = None) -> Expr:
    """`text` in the language above, over `names` (the language's name -> the SV signal;
    a register is N bits wide, another name as `widths` says); ConfigError naming `what`
    when it is not."""
    if not isinstance(text, str):
        raise ConfigError(f"{what}: expected an expression string")
    p = _Parser(text, names, what, widths or {})
    got = p.expr()
    if p.peek():
        raise p.fail(f"unexpected {p.peek()!r}")
    return got


def simplified(width: str) -> str:
    """A width in N with + - * and integers, written as a*N + b ("N + 1", "2*N", "8"); any
    other text (a $bits, a division) as it is."""
    def value(node: ast.AST, n: int) -> int:
        if isinstance(node, ast.Name) and node.id == "N":
            return n
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand, n)
        if isinstance(node, ast.BinOp) and type(node.op) in _LINEAR:
            return _LINEAR[type(node.op)](value(node.left, n), value(node.right, n))
        raise ValueError(width)
    try:
        tree = ast.parse(width, mode="eval").body
        at = [value(tree, n) for n in (0, 1, 2)]
    except (SyntaxError, ValueError):
        return width
    a, b = at[1] - at[0], at[0]
    if at[2] - at[1] != a:  # not linear in N (N*N): as written
        return width
    if a == 0:
        return str(b)
    head = "N" if a == 1 else f"{a}*N"
    return head if b == 0 else f"{head} {'+' if b > 0 else '-'} {abs(b)}"


# --- the core's header ---------------------------------------------------------------------

@dataclass(frozen=True)
class CorePort:
    name: str
    direction: str  # input or output
    width: str  # an SV expression of N (the core's parameters substituted), or $bits(type)


_HEADER = re.compile(r"\bmodule\s+(\w+)\s*(?:import\s[^;]*;\s*)*(#\s*\((.*?)\)\s*)?\((.*?)\)\s*;",
                     re.S)
_PARAM = re.compile(r"parameter\s+(?:(?:int|integer|logic|bit)\s*(?:\[[^\]]*\])?\s*)?(\w+)\s*=\s*"
                    r"([^,]+)")
_DIRECTION = re.compile(r"^(input|output|inout)\b\s*(.*)$", re.S)
_RANGE = re.compile(r"^\[([^:\]]+):([^\]]+)\]\s*")
_KINDS = ("wire", "logic", "reg", "bit", "var", "signed", "unsigned", "tri")


def _split(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return [*out, text[start:]]


def _substitute(text: str, values: Mapping[str, str]) -> str:
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: f"({values[m.group(0)]})"
                  if m.group(0) in values else m.group(0), text)


def core_ports(text: str, module: str, params: Mapping[str, str]) -> dict[str, CorePort]:
    """The ports of `module` in `text` (comments and macros gone), from its ANSI header:
    `input|output [wire|logic|reg] [signed] [range] name, name2`, or a type of its own
    (`input op_t op`: width $bits(op_t)). Ranges use the core's parameters as `params` sets
    them (else their defaults)."""
    for m in _HEADER.finditer(text):
        if m.group(1) != module:
            continue
        defaults = {n: v.strip() for n, v in _PARAM.findall(m.group(3) or "")}
        values = {**defaults, **params}
        ports: dict[str, CorePort] = {}
        direction, width = "", "1"
        for item in _split(m.group(4)):
            item = " ".join(item.split())
            if not item:
                continue
            if found := _DIRECTION.match(item):
                direction, rest = found.group(1), found.group(2)
                words = rest.split()
                while words and words[0] in _KINDS:
                    words.pop(0)
                rest = " ".join(words)
                width = "1"
                if rng := _RANGE.match(rest):
                    hi, lo = (_substitute(g.strip(), values) for g in rng.groups())
                    width = simplified(f"({hi}) - ({lo}) + 1")
                    rest = rest[rng.end():]
                elif len(parts := rest.split()) == 2:  # a type of its own
                    width = f"$bits({parts[0]})"
                    rest = parts[1]
                item = rest
            if not direction or not IDENTIFIER.fullmatch(item):
                raise ConfigError(f"{module}: cannot read its port list at {item!r}: the "
                                  "[core] adapter reads an ANSI-style header "
                                  "(module m #(...) (input [W-1:0] a, ...);)")
            ports[item] = CorePort(item, direction, width)
        return ports
    raise ConfigError(f"no module {module} in its rtl files")


def _package_of(texts: list[str], type_name: str) -> str:
    """The package of the core's sources that declares `type_name` ("" if none does)."""
    for text in texts:
        for pkg, body in re.findall(r"\bpackage\s+(\w+)\s*;(.*?)\bendpackage", text, re.S):
            name = re.escape(type_name)
            if re.search(rf"\btypedef\b(?:[^;{{]*|[^{{;]*\{{[^}}]*\}})\s*\b{name}\s*;", body):
                return str(pkg)
    return ""


def read_ports(core: ForeignCore, rtl: tuple[Path, ...], preprocess: Any) -> dict[str, CorePort]:
    """The core's ports from the last of its RTL files that declares it (`preprocess`: the
    text as the simulators read it, montverif.spec.top.preprocess). A port of a type a
    package of its sources declares is named by the package (`$bits(pkg::op_t)`): the top
    does not import it."""
    texts = [preprocess(src) for src in rtl]
    for text in reversed(texts):
        if re.search(rf"\bmodule\s+{re.escape(core.module)}\b", text):
            ports = core_ports(text, core.module, core.params)
            for name, port in ports.items():
                typed = re.fullmatch(r"\$bits\((\w+)\)", port.width)
                if typed and (pkg := _package_of(texts, typed.group(1))):
                    ports[name] = CorePort(name, port.direction,
                                           f"$bits({pkg}::{typed.group(1)})")
            return ports
    raise ConfigError(f"no module {core.module} in its rtl files")


# --- [core], read --------------------------------------------------------------------------

def _handshake(table: Table) -> dict[str, Any]:
    """The keys of the core's handshake."""
    kind = table.get("handshake", "start_done")
    need = {"start_done": ("start", "done"), "valid_ready": ("in_valid", "in_ready",
                                                             "out_valid"),
            "latency": ("latency",)}[kind]
    if missing := [k for k in need if k not in table]:
        raise table.error_at(f"handshake {kind} needs {', '.join(missing)}")
    out: dict[str, Any] = {"handshake": kind,
                           "start_level": table.get("start_style") == "level",
                           "done_pulse": table.get("done_style", "pulse") == "pulse"}
    for key in ("start", "done", "in_valid", "in_ready", "out_valid", "out_ready"):
        if key in table:
            out[key] = table.text(key)
    if kind == "latency":
        out["latency"] = table.expression("latency", {"n"})
    return out


def parse_core(raw: Mapping[str, Any], registers: tuple[str, ...], where: str
               ) -> ForeignCore | None:
    """A descriptor's [core] table (None when absent), as the schema has checked it
    (montverif.spec.schema): the keys its handshake needs, the expressions parsed (the port
    names are checked against the core's header when the top is generated)."""
    table = Table(raw.get("core", {}), "[core]", where)
    if not table.raw:
        return None
    ports = dict(table.raw["ports"])
    names = {r: REGISTER_SIGNALS[r] for r in registers if r in REGISTER_SIGNALS}
    read: set[str] = set()
    for port, text in ports.items():
        read |= parse_expression(text, names, f"{where}: [core] ports.{port}").names
    if missing := [r for r in registers if r not in read]:
        raise table.error("ports", f"no core input reads {', '.join(missing)} (map a port "
                                   f"to an expression of it, e.g. a = \"{missing[0]}\")")
    return ForeignCore(
        module=table.text("module"), clock=table.text("clock", "clk_i"),
        reset=table.text("reset", "rst_ni"),
        reset_active_low=table.get("reset_active", "low") == "low",
        ports=ports, result=table.text("result"),
        reset_sync=bool(table.get("reset_sync", False)),
        third_party=bool(table.get("third_party", True)),
        params=dict(table.get("params", {})), icarus=table.text("icarus"), **_handshake(table))
