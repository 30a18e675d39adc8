// mont_qp_top: the mont_qp core (Jiang and Harris, quotient-pipelined very-high-radix
// scalable Montgomery multiplier) behind the bus loader; the host loads M-hat (MHAT).
module mont_qp_top
  import mv_regmap_pkg::*;
#(
  parameter int N         = 64,
  parameter int V         = 8,
  parameter int W         = 16,
  parameter int P         = 2,
  parameter int BusW      = 32,
  parameter int AckWait   = 0,
  parameter bit FaultEn   = 1'b0,  // test only, see mont_qp
  parameter int FaultAddr = 0
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
  localparam int RedW = 1;  // dummy: the loader's S/C ports need a width
  if (N < MinN) begin : g_bad_n
    initial $fatal(1, "mont_qp_top: N must be at least %0d (got %0d)", MinN, N);
  end

  logic            start, clear, core_busy, core_last;
  logic [N-1:0]    x, y, m, mhat, p;
  logic [RedW-1:0] s, c;

  // M-hat is the only precomputed register this design uses.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_bus_loader #(
    .N       (N),
    .BusW    (BusW),
    .RedW    (RedW),
    .HasRed  (1'b0),
    .HasMhat (1'b1),
    .DesignId(DesignIdMontQp),
    .AckWait (AckWait)
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
    .mp_o        (),
    .mhat_o      (mhat),
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

  assign s = '0;
  assign c = '0;

  mont_qp #(
    .N        (N),
    .V        (V),
    .W        (W),
    .P        (P),
    .FaultEn  (FaultEn),
    .FaultAddr(FaultAddr)
  ) u_core (
    .clk_i,
    .rst_ni,
    .start_i(start),
    .clear_i(clear),
    .x_i    (x),
    .y_i    (y),
    .m_i    (m),
    .mhat_i (mhat),
    .busy_o (core_busy),
    .last_o (core_last),
    .p_o    (p),
    /* verilator lint_off PINCONNECTEMPTY */
    .s_o    ()  // the unreduced result: read by the RSA core's monitors only
    /* verilator lint_on PINCONNECTEMPTY */
  );

endmodule
