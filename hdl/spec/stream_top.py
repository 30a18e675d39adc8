"""The simulated top of a streaming design ([stream]): the core between the stream harness's
source and sink (hdl/common/mv_stream_engine.sv), instead of behind the bus loader.

The top declares N, BusW and AckWait (every build passes them; a streaming top uses
neither), StreamDepth (the most operations of one batch) and every parameter of the core's
own header; its ports are the clock, the reset and the engine's control (go, len, timeout,
fin, timeout flag, counts). Nothing here is written by hand per design."""

from __future__ import annotations

from montverif.host.errors import ConfigError
from montverif.host.paths import shown
from montverif.spec.design import Design
from montverif.spec.stream import check_ports

ENGINE_MODULE = "mv_stream_engine"
ENGINE_INSTANCE = "u_engine"
DEPTH = 1024  # StreamDepth: operations a batch holds at most (the top's default)
GAP_BITS = 4  # idle and hold cycles drawn per operation: 0..15


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
    """The text of the streaming design's top. `header_params`: the core's parameters
    (name -> (type, default)); `ports`: its ports (name -> (direction, width)); `params`:
    the top's parameters (type, name, default) as montverif.spec.top makes them."""
    s = design.stream
    assert s is not None
    try:
        check_ports(s, ports, design.core_module)
        tag_w = tag_width(design, header_params)
    except ConfigError as exc:
        raise ConfigError(f"{shown(design.descriptor)}: {exc}") from None
    top = design.toplevel
    regs = {reg: port for port, reg in s.inputs.items()}
    all_params = [*params, ("int", "StreamDepth", str(DEPTH))]
    lines = [
        f"// GENERATED from {shown(design.descriptor)} by montverif.spec.stream_top: the",
        f"// {design.name} core ({design.paper}: {design.algorithm})",
        "// between the stream harness's source and sink. Do not edit: change the descriptor.",
        f"module {top} #(",
        *(f"  parameter {kind} {name} = {default}" + ("," if i < len(all_params) - 1 else "")
          for i, (kind, name, default) in enumerate(all_params)),
        ") (",
        "  input  logic        clk_i,",
        "  input  logic        rst_ni,",
        "  input  logic        tb_go_i,",
        "  input  logic [15:0] tb_len_i,",
        "  input  logic [31:0] tb_timeout_i,",
        "  output logic        tb_fin_o,",
        "  output logic        tb_timeout_o,",
        "  output logic [15:0] tb_taken_o,",
        "  output logic [15:0] tb_results_o",
        ");",
        "",
        f"  localparam int MinN = {design.min_n_expr or design.min_n};",
        f"  localparam int TagBits = {tag_w};",
        "  if (N < MinN) begin : g_bad_n",
        f'    initial $fatal(1, "{top}: N must be at least %0d (got %0d)", MinN, N);',
        "  end",
        "  // every build passes the bus loader's parameters: a streaming top uses neither",
        "  /* verilator lint_off UNUSEDPARAM */",
        "  localparam int UnusedBus = BusW + AckWait;",
        "  /* verilator lint_on UNUSEDPARAM */",
        "",
        "  logic               in_valid, in_ready, out_valid, out_ready;",
        "  logic [N-1:0]       x, y, m, p;",
        "  logic [TagBits-1:0] tag_in, tag_out;",
        "",
        f"  {ENGINE_MODULE} #(",
        "    .N    (N),",
        "    .TagW (TagBits),",
        "    .Depth(StreamDepth),",
        f"    .GapW ({GAP_BITS})",
        f"  ) {ENGINE_INSTANCE} (",
        "    .clk_i, .rst_ni,",
        "    .go_i       (tb_go_i),",
        "    .len_i      (tb_len_i),",
        "    .timeout_i  (tb_timeout_i),",
        "    .fin_o      (tb_fin_o),",
        "    .timeout_o  (tb_timeout_o),",
        "    .taken_o    (tb_taken_o),",
        "    .results_o  (tb_results_o),",
        "    .in_valid_o (in_valid),",
        "    .in_ready_i (in_ready),",
        "    .x_o        (x),",
        "    .y_o        (y),",
        "    .m_o        (m),",
        "    .tag_o      (tag_in),",
        "    .out_valid_i(out_valid),",
        "    .out_ready_o(out_ready),",
        "    .p_i        (p),",
        "    .tag_i      (tag_out)",
        "  );",
    ]
    if not s.tagged:
        lines += ["  assign tag_out = tag_in;  // untagged: the engine's own tag, unused",
                  "  /* verilator lint_off UNUSEDSIGNAL */",
                  "  logic unused_tag;", "  assign unused_tag = ^tag_in;",
                  "  /* verilator lint_on UNUSEDSIGNAL */"]
    pins = [(s.clock, "clk_i"), (s.reset, "rst_ni"), (s.in_valid, "in_valid"),
            (s.in_ready, "in_ready"), *((port, reg.lower()) for reg, port in regs.items()),
            (s.out_valid, "out_valid"), (s.out_ready, "out_ready"), (s.result, "p")]
    if s.tagged:
        pins += [(s.tag_in, "tag_in"), (s.tag_out, "tag_out")]
    core_params = list(header_params)
    lines += ["", f"  {design.core_module} #("]
    lines += [f"    .{name:<10}({name})" + ("," if i < len(core_params) - 1 else "")
              for i, name in enumerate(core_params)]
    lines.append("  ) u_core (")
    lines += [f"    .{name:<12}({expr})" + ("," if i < len(pins) - 1 else "")
              for i, (name, expr) in enumerate(pins)]
    lines += ["  );", "", "endmodule"]
    return "\n".join(lines) + "\n"
