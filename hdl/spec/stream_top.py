"""The simulated top of a streaming design ([stream]): the core between the stream harness's
source and sink (hdl/common/mv_stream_engine.sv), instead of behind the bus loader.

The top declares N, BusW and AckWait (every build passes them; a streaming top uses
neither), StreamDepth (the most operations of one batch) and every parameter of the core's
own header; its ports are the clock, the reset and the engine's control (go, len, timeout,
fin, timeout flag, counts). Nothing here is written by hand per design.

The decisions (the parameters, the tag's width, the core's connections) are made here; the
text is the Jinja2 template hdl/spec/templates/stream_top.sv.j2 (montverif.host.templates)."""

from __future__ import annotations

from pathlib import Path

from montverif.host import templates
from montverif.host.errors import ConfigError
from montverif.host.paths import shown
from montverif.spec.design import Design
from montverif.spec.stream import check_ports

ENGINE_MODULE = "mv_stream_engine"
ENGINE_INSTANCE = "u_engine"
DEPTH = 1024  # StreamDepth: operations a batch holds at most (the top's default)
GAP_BITS = 4  # idle and hold cycles drawn per operation: 0..15
_TEMPLATES = Path(__file__).resolve().parent / "templates"


def tag_width(design: Design, params: dict[str, tuple[str, str]]) -> str:
    """The tag's width as the top writes it (a core parameter, or a number; 1 untagged)."""
    s = design.stream
    assert s is not None
    if not s.tagged:
        return "1"
    if s.tag_width.isdigit() or s.tag_width in params:
        return s.tag_width
    raise ConfigError(f"[stream] tag_width {s.tag_width!r}: no parameter of "
                      f"{design.core_module} and no number")


def emit(design: Design, header_params: dict[str, tuple[str, str]],
         ports: dict[str, tuple[str, str]], params: list[tuple[str, str, str]]) -> str:
    """The text of the streaming design's top (templates/stream_top.sv.j2). `header_params`:
    the core's parameters (name -> (type, default)); `ports`: its ports (name -> (direction,
    width)); `params`: the top's parameters (type, name, default) as montverif.spec.top makes
    them."""
    s = design.stream
    assert s is not None
    try:
        check_ports(s, ports, design.core_module)
        tag_w = tag_width(design, header_params)
    except ConfigError as exc:
        raise ConfigError(f"{shown(design.descriptor)}: {exc}") from None
    return templates.render(_TEMPLATES, "stream_top.sv.j2",
        descriptor=shown(design.descriptor), name=design.name, paper=design.paper,
        algorithm=design.algorithm, top=design.toplevel,
        params=[*params, ("int", "StreamDepth", str(DEPTH))],
        min_n=design.min_n_expr or design.min_n, tag_width=tag_w, tagged=s.tagged,
        engine_module=ENGINE_MODULE, engine_instance=ENGINE_INSTANCE, gap_bits=GAP_BITS,
        core_module=design.core_module, core_params=list(header_params), pins=_pins(design))


def _pins(design: Design) -> list[tuple[str, str]]:
    """(core port, the top's signal) of the core's instance: clock, reset, the input
    handshake, an operand port per register, the output handshake, the result, the tags."""
    s = design.stream
    assert s is not None
    regs = {reg: port for port, reg in s.inputs.items()}
    pins = [(s.clock, "clk_i"), (s.reset, "rst_ni"), (s.in_valid, "in_valid"),
            (s.in_ready, "in_ready"), *((port, reg.lower()) for reg, port in regs.items()),
            (s.out_valid, "out_valid"), (s.out_ready, "out_ready"), (s.result, "p")]
    if s.tagged:
        pins += [(s.tag_in, "tag_in"), (s.tag_out, "tag_out")]
    return pins
