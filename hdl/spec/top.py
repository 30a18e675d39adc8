"""A design's simulated top, generated from its descriptor: the core behind the bus loader.

The top declares N, BusW and AckWait and every parameter of the core's own header (same type
and default), sets the loader's options from the descriptor (the registers START reads, the
precomputed ones, the carry-save halves, the field bit, the width of S and C), and connects
the core by its port names: clk_i, rst_ni, start_i, clear_i, <register>_i for every register
it reads, field_i, busy_o, last_o, p_o, s_o, c_o. A core whose ports are named otherwise is
connected by the descriptor's [top] ports (core port -> expression of the top's signals);
outputs the top does not use are left open. Nothing here is written by hand per design.

The decisions (which parameters, signals, flags and connections) are made here; the text is
the Jinja2 template hdl/spec/templates/top.sv.j2 (montverif.host.templates), which they fill.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from montverif.host import templates
from montverif.host.errors import ConfigError
from montverif.host.paths import INCLUDE_DIRS, cache, shown, work
from montverif.spec import adapter, foreign, stream_top
from montverif.spec.design import LOADER_RANGE_OPERANDS, Design
from montverif.spec.svnames import camel


def generated_root() -> Path:
    """The generated tops, <design>/<design>_top.sv: derived from the source tree, so kept
    in its cache beside the builds that compile them."""
    return cache("gen")


# loader output -> the top's signal, by the register the design names
LOADER_REGS = {"X": "x", "Y": "y", "M": "m", "MP": "mp", "MHAT": "mhat", "R2": "r2", "E": "e"}
LOADER_FLAGS = {"MP": "HasMp", "MHAT": "HasMhat", "R2": "HasR2", "E": "HasE"}
_TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Port:
    name: str
    direction: str  # "input" or "output"
    width: str  # "" for one bit, else the packed range, e.g. "N-1:0"


@dataclass(frozen=True)
class Header:
    """A module's parameters (name -> (type, default)) and ports, from its SV header."""

    module: str
    params: dict[str, tuple[str, str]]
    ports: dict[str, Port]


_MODULE = re.compile(r"^\s*module\s+(\w+)\b(.*?)\);", re.M | re.S)
_PARAM = re.compile(r"parameter\s+(int|bit|logic(?:\s*\[[^\]]*\])?|integer)\s+(\w+)\s*=\s*"
                    r"([^,\n/)]+)")
_PORT = re.compile(r"\b(input|output)\s+logic\s*(?:\[([^\]]+)\])?\s*(\w+)")


_INCLUDE = re.compile(r'^[ \t]*`include[ \t]+"([^"]+)"', re.M)
_DEFINE = re.compile(r"^[ \t]*`define[ \t]+(\w+)(\([^)]*\))?[ \t]*(.*)$", re.M)
_DIRECTIVE = re.compile(r"^[ \t]*`(?:include|define|ifndef|ifdef|else|endif|undef)\b.*$", re.M)
_USE = re.compile(r"`(\w+)")


def _uncommented(text: str) -> str:
    """The text without comments, continued lines (a backslash at the end) joined."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"\\[ \t]*\n", " ", text)


def _defines(path: Path, seen: set[Path]) -> dict[str, tuple[list[str], str]]:
    """The macros `path` defines, with those of the files it includes (searched beside it,
    then in INCLUDE_DIRS): name -> (formal arguments, body)."""
    text = _uncommented(path.read_text())
    out: dict[str, tuple[list[str], str]] = {}
    for name in _INCLUDE.findall(text):
        found = next((d / name for d in (path.parent, *INCLUDE_DIRS) if (d / name).is_file()),
                     None)
        if found is None:
            raise ConfigError(f"{path.name}: `include \"{name}\" is in none of "
                              f"{', '.join(shown(d) for d in INCLUDE_DIRS)}")
        if found.resolve() not in seen:
            seen.add(found.resolve())
            out |= _defines(found, seen)
    for name, args, body in _DEFINE.findall(text):
        formals = [a.strip() for a in args[1:-1].split(",")] if args else []
        out[name] = (formals, body.strip())
    return out


def _actuals(text: str, at: int) -> tuple[list[str], int]:
    """The comma-separated arguments of a macro call whose "(" is at text[at]; the index
    after its ")"."""
    depth, start = 0, at + 1
    args: list[str] = []
    for i in range(at, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return [*args, text[start:i].strip()], i + 1
        elif text[i] == "," and depth == 1:
            args.append(text[start:i].strip())
            start = i + 1
    raise ConfigError("a macro call without its closing parenthesis")


def preprocess(path: Path) -> str:
    """`path` without comments and preprocessor directives, its macros (its own and those of
    the files it includes) expanded: what the simulators read of a module's header."""
    macros = _defines(path, set())
    text = _DIRECTIVE.sub("", _uncommented(path.read_text()))
    for _ in range(32):  # nested macros: expand until none is left
        out, pos, changed = [], 0, False
        for m in _USE.finditer(text):
            if m.start() < pos or m.group(1) not in macros:
                continue
            formals, body = macros[m.group(1)]
            end = m.end()
            if formals:
                paren = re.match(r"\s*\(", text[end:])
                if paren is None:
                    raise ConfigError(f"{path.name}: `{m.group(1)} needs its arguments")
                actuals, end = _actuals(text, end + paren.end() - 1)
                if len(actuals) != len(formals):
                    raise ConfigError(f"{path.name}: `{m.group(1)} takes {len(formals)} "
                                      f"arguments, not {len(actuals)}")
                for formal, actual in zip(formals, actuals, strict=True):
                    body = re.sub(rf"\b{re.escape(formal)}\b", actual.replace("\\", r"\\"),
                                  body)
            out += [text[pos:m.start()], body]
            pos, changed = end, True
        text = "".join(out) + text[pos:]
        if not changed:
            return text
    raise ConfigError(f"{path.name}: macros nested too deep")


def header(path: Path, module: str) -> Header:
    """The parameters and ports of `module` in `path` (the lowRISC ANSI style the cores use:
    `parameter <type> Name = default`, `input|output logic [range] name`, and the port
    macros of hdl/common/mv_core_ports.svh, expanded)."""
    text = preprocess(path)
    for m in _MODULE.finditer(text):
        if m.group(1) != module:
            continue
        body = m.group(2)
        params = {name: (kind, default.strip()) for kind, name, default in _PARAM.findall(body)}
        ports = {name: Port(name, direction, (width or "").replace(" ", ""))
                 for direction, width, name in _PORT.findall(body)}
        return Header(module, params, ports)
    raise ConfigError(f"{path.name}: no module {module}")


def core_header(design: Design) -> Header:
    for src in reversed(design.rtl):
        try:
            return header(src, design.core_module)
        except ConfigError:
            continue
    raise ConfigError(f"{design.name}: no module {design.core_module} in its rtl files")


def core_connections(design: Design, core: Header) -> list[tuple[str, str]]:
    """(core port, the top's expression) for every core port; outputs the top does not
    use get "" (left open)."""
    ours = {"clk_i": "", "rst_ni": "", "start_i": "start", "clear_i": "clear",
            "busy_o": "core_busy", "last_o": "core_last", "p_o": "p"}
    if design.has_field:
        ours["field_i"] = "field"
    for reg in (*design.operands, *design.precomputed):
        if reg in LOADER_REGS:
            ours[f"{LOADER_REGS[reg]}_i"] = LOADER_REGS[reg]
    if design.redundant_extra_bits is not None:
        ours |= {"s_o": "s", "c_o": "c"}
    out = []
    for port in core.ports.values():
        if port.name in design.ports:
            out.append((port.name, design.ports[port.name]))
        elif port.name in ours:
            out.append((port.name, ours[port.name]))
        elif port.direction == "output":
            out.append((port.name, ""))
        else:
            raise ConfigError(f"{design.name}: core input {port.name} is none of the loader's "
                              "signals; connect it in the descriptor's [top] ports")
    if unknown := sorted(set(design.ports) - set(core.ports)):
        raise ConfigError(f"{design.name}: [top] ports names {', '.join(unknown)}, which "
                          f"{core.module} does not have")
    return out


def default_n(design: Design) -> int:
    """The top's N when a build names none."""
    return max(32, design.min_n)


def _core(design: Design) -> Header:
    """The core's header as the top sees it (a foreign core's: its fault option alone)."""
    if design.foreign is not None:
        return Header(design.foreign.module, {"FaultEn": ("bit", "1'b0")}, {})
    core = core_header(design)
    if "N" not in core.params:
        raise ConfigError(f"{design.name}: {core.module} has no parameter N")
    return core


def parameters(design: Design, core: Header | None = None) -> list[tuple[str, str, str]]:
    """The top's parameters, (type, name, default): N, BusW, AckWait, then every parameter
    of the core's header but N."""
    core = core or _core(design)
    params = [("int", "N", str(default_n(design))), ("int", "BusW", "32"),
              ("int", "AckWait", "0")]
    return params + [(kind, name, default) for name, (kind, default) in core.params.items()
                     if name != "N"]


def design_id(design: Design) -> str:
    """The loader's DesignId: the register package's constant for montverif's own designs;
    a user project's design is in no package of montverif's, so its number."""
    return str(design.id) if design.from_project else f"DesignId{camel(design.name)}"


def emit(design: Design) -> str:
    """The text of the design's top (templates/top.sv.j2; a streaming design's:
    montverif.spec.stream_top)."""
    core = _core(design)
    if design.stream is not None:  # between the stream harness's source and sink
        return stream_top.emit(design, core.params,
                               {n: (p.direction, p.width) for n, p in core.ports.items()},
                               parameters(design, core))
    return templates.render(_TEMPLATES, "top.sv.j2",
        descriptor=shown(design.descriptor), name=design.name, paper=design.paper,
        algorithm=design.algorithm, top=design.toplevel, params=parameters(design, core),
        foreign=design.foreign is not None, min_n=design.min_n_expr or design.min_n,
        red=design.redundant_extra_bits, field=design.has_field, **_declarations(design),
        loader_params=_loader_params(design), loader_ports=_loader_ports(design),
        adapter=_adapter(design) if design.foreign is not None else None,
        core=None if design.foreign is not None else _core_instance(design, core))


def _used(design: Design) -> set[str]:
    """The loader's outputs the design reads (x, y, m, ...)."""
    return {LOADER_REGS[r] for r in (*design.operands, *design.precomputed) if r in LOADER_REGS}


def _loader_params(design: Design) -> list[tuple[str, str]]:
    """(parameter, value) of the top's mv_bus_loader instance."""
    loader_params = [("N", "N"), ("BusW", "BusW"), ("RedW", "RedW"),
                     ("HasRed", "1'b1" if design.redundant_extra_bits is not None else "1'b0"),
                     ("DesignId", design_id(design)), ("AckWait", "AckWait")]
    loader_params += [(flag, "1'b1") for reg, flag in LOADER_FLAGS.items()
                      if reg in design.operands or reg in design.precomputed]
    if design.carry_save_operands:
        loader_params.append(("HasHalves", "1'b1"))
    if design.has_field:
        loader_params.append(("HasField", "1'b1"))
    # the range rule follows the operand domains (an operand the design does not read, or
    # one of any N-bit value, is not checked): Design.range_rule_operands, whose
    # has_range_rule the testbench reads too
    loader_params += [(f"Range{reg}", "1'b0") for reg in LOADER_RANGE_OPERANDS
                      if reg not in design.range_rule_operands]
    return loader_params


def _declarations(design: Design) -> dict[str, list[str]]:
    """The top's signals between the loader and the core, by declaration: `wide` (the
    carry-save operands, two halves), `narrow` (N bits, P last) and `part` (N bits, of which
    the descriptor's [top] ports take a part: mp[W-1:0])."""
    used = _used(design)
    wide: list[str] = [s for s in ("x", "y") if s in used and design.carry_save_operands]
    narrow = [s for s in ("x", "y", "m", "mp", "mhat", "r2", "e") if s in used and s not in wide]
    sliced = {m.group(1) for expr in design.ports.values()
              for m in re.finditer(r"\b(\w+)\[", expr)} - set(wide)
    return {"wide": wide, "narrow": [*(s for s in narrow if s not in sliced), "p"],
            "part": [s for s in narrow if s in sliced]}


def _loader_ports(design: Design) -> list[tuple[str, str]]:
    """(port, expression) of the top's mv_bus_loader instance: "" connects the top's port
    of the same name, "-" leaves the port open."""
    used = _used(design)
    loader_ports = [("clk_i", ""), ("rst_ni", ""), ("bus_req_i", ""), ("bus_we_i", ""),
                    ("bus_addr_i", ""), ("bus_wdata_i", ""), ("bus_ack_o", ""),
                    ("bus_rdata_o", ""), ("busy_o", ""), ("done_o", ""),
                    ("core_start_o", "start"), ("core_clear_o", "clear")]
    loader_ports += [(f"{sig}_o", sig if sig in used else "-")
                     for sig in ("x", "y", "m", "mp", "mhat", "r2", "e")]
    loader_ports += [("field_o", "field" if design.has_field else "-"),
                     ("core_busy_i", "core_busy"), ("core_last_i", "core_last"),
                     ("p_i", "p"), ("s_i", "s"), ("c_i", "c")]
    return loader_ports


@dataclass(frozen=True)
class _CoreInstance:
    """The top's instance of the core (montverif's own): its module, its parameters (each
    set to the top's of the same name) and (port, expression) connections as the loader's
    ("" same name, "-" open); open_outputs: some output is left open."""

    module: str
    params: list[str]
    ports: list[tuple[str, str]]
    open_outputs: bool


def _core_instance(design: Design, core: Header) -> _CoreInstance:
    conns = core_connections(design, core)
    open_outputs = any(expr == "" and not name.endswith(("clk_i", "rst_ni"))
                       for name, expr in conns)
    return _CoreInstance(core.module, list(core.params),
                        [(n, "-" if e == "" and n not in ("clk_i", "rst_ni") else e)
                         for n, e in conns], open_outputs)


def _adapter(design: Design) -> list[str]:
    """A core from elsewhere ([core]): montverif.spec.adapter, its ports read from its RTL."""
    f = design.foreign
    assert f is not None
    try:
        ports = foreign.read_ports(f, design.rtl, preprocess)
        return adapter.emit(f, ports, (*design.operands, *design.precomputed),
                            design.toplevel)
    except ConfigError as exc:
        raise ConfigError(f"{shown(design.descriptor)}: {exc}") from None


def path(design: Design) -> Path:
    """Where the design's top is written: montverif's cache for its own designs, the work
    folder for a user project's."""
    root = work("gen") if design.from_project else generated_root()
    return root / design.name / f"{design.toplevel}.sv"


def write(design: Design) -> Path:
    """The design's top, written (atomically) when missing or different; its path."""
    target = path(design)
    text = emit(design)
    if not target.exists() or target.read_text() != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        # one temporary file per writer: two builds of one design in one process (threads)
        # regenerate its top at once, and a name of the process alone was shared by both
        tmp = target.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, target)
    return target


def sources(design: Design) -> list[Path]:
    """Everything a build of the design compiles, its generated top last."""
    return [*design.rtl_sources, write(design)]
