// Written into hdl/cores/ by `montverif generate` (each build writes the same text into build/gen/).
// GENERATED from hdl/scalable/mwrkmm.toml by montverif.spec.top: the
// mwrkmm core (Michalski-Buell 2006: Algorithm 2 (MWRkMM): V-bit words, W-bit digits, m' loaded, P PEs of latency 3 or 4 (subpipelined), two CPAs or section 5.2's CSA tree and one CPA)
// behind the bus loader. Do not edit: change the descriptor.
module mwrkmm_top
  import mv_regmap_pkg::*;
#(
  parameter int N = 32,
  parameter int BusW = 32,
  parameter int AckWait = 0,
  parameter int V = 8,
  parameter int W = 1,
  parameter int P = 1,
  parameter int PeLatency = 3,
  parameter int PeAdder = 0,
  parameter bit FaultEn = 1'b0,
  parameter int FaultPe = 0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             bus_req_i,
  input  logic             bus_we_i,
  input  logic [AddrW-1:0] bus_addr_i,
  input  logic [BusW-1:0]  bus_wdata_i,
  output logic             bus_ack_o,
  output logic [BusW-1:0]  bus_rdata_o,
  output logic             busy_o,
  output logic             done_o
);

  localparam int MinN = 8;
  localparam int RedW = 1;
  if (N < MinN) begin : g_bad_n
    initial $fatal(1, "mwrkmm_top: N must be at least %0d (got %0d)", MinN, N);
  end

  logic            start, clear, core_busy, core_last;
  logic [N-1:0]    x, y, m, p;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0]    mp;  // the core takes a part
  /* verilator lint_on UNUSEDSIGNAL */
  logic [RedW-1:0] s, c;

  /* verilator lint_off PINCONNECTEMPTY */
  mv_bus_loader #(
    .N        (N),
    .BusW     (BusW),
    .RedW     (RedW),
    .HasRed   (1'b0),
    .DesignId (DesignIdMwrkmm),
    .AckWait  (AckWait),
    .HasMp    (1'b1),
    .RangeX   (1'b0)
  ) u_loader (
    .clk_i,
    .rst_ni,
    .bus_req_i,
    .bus_we_i,
    .bus_addr_i,
    .bus_wdata_i,
    .bus_ack_o,
    .bus_rdata_o,
    .busy_o,
    .done_o,
    .core_start_o(start),
    .core_clear_o(clear),
    .x_o         (x),
    .y_o         (y),
    .m_o         (m),
    .mp_o        (mp),
    .mhat_o      (),
    .r2_o        (),
    .e_o         (),
    .field_o     (),
    .core_busy_i (core_busy),
    .core_last_i (core_last),
    .p_i         (p),
    .s_i         (s),
    .c_i         (c)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign s = '0;  // the core keeps no redundant S, C: they are unmapped
  assign c = '0;

  mwrkmm #(
    .N        (N),
    .V        (V),
    .W        (W),
    .P        (P),
    .PeLatency(PeLatency),
    .PeAdder  (PeAdder),
    .FaultEn  (FaultEn),
    .FaultPe  (FaultPe)
  ) u_core (
    /* verilator lint_off PINCONNECTEMPTY */
    .clk_i,
    .rst_ni,
    .start_i     (start),
    .clear_i     (clear),
    .x_i         (x),
    .y_i         (y),
    .m_i         (m),
    .busy_o      (core_busy),
    .last_o      (core_last),
    .p_o         (p),
    .mp_i        (mp[W-1:0]),
    .s_o         ()
    /* verilator lint_on PINCONNECTEMPTY */
  );

endmodule
