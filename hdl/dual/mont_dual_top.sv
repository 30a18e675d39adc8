// mont_dual_top: the mont_dual core (Tanimura 2008, unified dual-radix FIOS Montgomery for
// GF(p) and GF(2^n)) behind the bus loader. CTRL.FIELD at START selects the field of each
// operation (HasField); MP carries the host-computed m' and GF(2^n) inverse (HasMp).
module mont_dual_top
  import mv_regmap_pkg::*;
#(
  parameter int N         = 256,
  parameter int BusW      = 32,
  parameter int AckWait   = 0,
  parameter bit FaultEn   = 1'b0,  // test only, see mont_dual
  parameter int FaultWord = 0
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

  localparam int MinN = 80;  // MP packs the 16-bit m' and the 64-bit GF(2^n) inverse
  localparam int RedW = 1;   // dummy: the core keeps no redundant S/C
  if (N < MinN) begin : g_bad_n
    initial $fatal(1, "mont_dual_top: N must be at least %0d (got %0d)", MinN, N);
  end

  logic            start, clear, core_busy, core_last, field;
  logic [N-1:0]    x, y, m, mp, p;
  logic [RedW-1:0] s, c;

  /* verilator lint_off PINCONNECTEMPTY */
  mv_bus_loader #(
    .N       (N),
    .BusW    (BusW),
    .RedW    (RedW),
    .HasRed  (1'b0),
    .DesignId(DesignIdMontDual),
    .AckWait (AckWait),
    .HasMp   (1'b1),
    .HasField(1'b1)
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
    .field_o     (field),
    .core_busy_i (core_busy),
    .core_last_i (core_last),
    .p_i         (p),
    .s_i         (s),
    .c_i         (c)
  );
  /* verilator lint_on PINCONNECTEMPTY */

  assign s = '0;
  assign c = '0;

  mont_dual #(
    .N        (N),
    .FaultEn  (FaultEn),
    .FaultWord(FaultWord)
  ) u_core (
    .clk_i,
    .rst_ni,
    .start_i(start),
    .clear_i(clear),
    .field_i(field),
    .x_i    (x),
    .y_i    (y),
    .m_i    (m),
    .mp_i   (mp),
    .busy_o (core_busy),
    .last_o (core_last),
    .p_o    (p)
  );

endmodule
