// rsa_core_top: the RSA exponentiation core (Michalski-Buell 2006, Algorithm 4, Fig. 7)
// behind the bus loader. The five operands of the paper are loaded over the acknowledged
// bus: message X, exponent E (write-only), modulus M, R^2 mod M (R2) and m' (MP; M-hat when
// the multiplier inside is mont_qp).
module rsa_core_top
  import mv_regmap_pkg::*;
#(
  parameter int N         = 32,
  parameter int BusW      = 32,
  parameter int AckWait   = 0,
  parameter int Mult      = 0,     // see rsa_mont_mult
  parameter int V         = 16,    // mwrkmm / mont_qp only, see rsa_mont_mult
  parameter int W         = 16,
  parameter int P         = 1,
  parameter bit ConstTime = 1'b1,  // see rsa_core
  parameter bit FaultEn   = 1'b0,  // test only, see rsa_core
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
  localparam int RedW = 1;  // the core keeps no redundant result: S and C are unmapped
  if (N < MinN) begin : g_bad_n
    initial $fatal(1, "rsa_core_top: N must be at least %0d (got %0d)", MinN, N);
  end

  logic         start, clear, core_busy, core_last;
  logic [N-1:0] x, m, e, r2, mp, p;

  /* verilator lint_off PINCONNECTEMPTY */
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0] y_unused;  // Y is mapped by the loader but not used by the exponentiation
  /* verilator lint_on UNUSEDSIGNAL */
  mv_bus_loader #(
    .N       (N),
    .BusW    (BusW),
    .RedW    (RedW),
    .HasRed  (1'b0),
    .DesignId(DesignIdRsaCore),
    .AckWait (AckWait),
    .HasMp   (1'b1),
    .HasR2   (1'b1),
    .HasE    (1'b1),
    .UsesY   (1'b0)
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
    .y_o         (y_unused),
    .m_o         (m),
    .mp_o        (mp),
    .mhat_o      (),
    .r2_o        (r2),
    .e_o         (e),
    .field_o     (),
    .core_busy_i (core_busy),
    .core_last_i (core_last),
    .p_i         (p),
    .s_i         ('0),
    .c_i         ('0)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  rsa_core #(
    .N        (N),
    .Mult     (Mult),
    .V        (V),
    .W        (W),
    .P        (P),
    .ConstTime(ConstTime),
    .FaultEn  (FaultEn),
    .FaultAddr(FaultAddr)
  ) u_core (
    .clk_i,
    .rst_ni,
    .start_i(start),
    .clear_i(clear),
    .x_i    (x),
    .e_i    (e),
    .m_i    (m),
    .r2_i   (r2),
    .mp_i   (mp),
    .busy_o (core_busy),
    .last_o (core_last),
    .p_o    (p)
  );

endmodule
