// mv_bus_loader_formal: the formal harness of mv_bus_loader (montverif formal --block
// mv_bus_loader, docs/formal.md). Every input is free: the host's bus and the core's side
// (busy, last, P, S, C). The loader's own assumptions (`_M` in mv_bus_loader.sv) constrain
// them to the bus protocol and the core's port contract; this harness adds only the reset,
// asserted in the first cycle and never again. Read under FORMAL only (yosys read -formal).
module mv_bus_loader_formal
#(
  parameter int N         = 8,
  parameter int BusW      = 8,
  parameter int RedW      = N + 1,
  parameter bit HasRed    = 1'b1,
  parameter int AckWait   = 0,
  parameter bit HasHalves = 1'b0,
  parameter bit HasMp     = 1'b0,
  parameter bit HasMhat   = 1'b0,
  parameter bit HasR2     = 1'b0,
  parameter bit HasE      = 1'b0,
  parameter bit HasField  = 1'b0,
  parameter bit RangeX    = 1'b1,
  parameter bit RangeY    = 1'b1,
  localparam int OpW      = HasHalves ? 2 * N : N
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             bus_req_i,
  input  logic             bus_we_i,
  input  logic [mv_regmap_pkg::AddrW-1:0] bus_addr_i,
  input  logic [BusW-1:0]  bus_wdata_i,
  output logic             bus_ack_o,
  output logic [BusW-1:0]  bus_rdata_o,
  output logic             busy_o,
  output logic             done_o,
  output logic             core_start_o,
  output logic             core_clear_o,
  output logic [OpW-1:0]   x_o,
  output logic [OpW-1:0]   y_o,
  output logic [N-1:0]     m_o,
  output logic [N-1:0]     mp_o,
  output logic [N-1:0]     mhat_o,
  output logic [N-1:0]     r2_o,
  output logic [N-1:0]     e_o,
  output logic             field_o,
  input  logic             core_busy_i,
  input  logic             core_last_i,
  input  logic [N-1:0]     p_i,
  input  logic [RedW-1:0]  s_i,
  input  logic [RedW-1:0]  c_i
);

  // Reset in the first cycle only (a register with an initial value: the initial state).
  logic init_q = 1'b1;
  always @(posedge clk_i) begin
    init_q <= 1'b0;
  end
  always @(*) begin
    assume (rst_ni == !init_q);
  end
  // In reset the core is reset too (idle) and the host requests nothing.
  always @(*) begin
    if (!rst_ni) begin
      assume (!core_busy_i && !core_last_i && !bus_req_i);
    end
  end

  // Covers (the proof's second task, mode cover): what the loader is for stays reachable
  // under the assumptions, so that a proof is not vacuous.
  logic past_ok_q = 1'b0;
  always @(posedge clk_i) begin
    past_ok_q <= rst_ni;
  end
  always @(posedge clk_i) begin
    if (past_ok_q && rst_ni) begin
      StartAccepted_C: cover (core_start_o);
      OperationEnds_C: cover ($rose(done_o));
      ClearAccepted_C: cover (core_clear_o);
      ReadReturnsData_C: cover (bus_ack_o && bus_rdata_o != '0);
      BackToBackAcks_C: cover (bus_ack_o && $past(bus_ack_o, AckWait + 2));
    end
  end

  mv_bus_loader #(
    .N        (N),
    .BusW     (BusW),
    .RedW     (RedW),
    .HasRed   (HasRed),
    .AckWait  (AckWait),
    .HasHalves(HasHalves),
    .HasMp    (HasMp),
    .HasMhat  (HasMhat),
    .HasR2    (HasR2),
    .HasE     (HasE),
    .HasField (HasField),
    .RangeX   (RangeX),
    .RangeY   (RangeY)
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
    .core_start_o,
    .core_clear_o,
    .x_o,
    .y_o,
    .m_o,
    .mp_o,
    .mhat_o,
    .r2_o,
    .e_o,
    .field_o,
    .core_busy_i,
    .core_last_i,
    .p_i,
    .s_i,
    .c_i
  );

endmodule
