// inter_r2: standard interleaved modular multiplication, MSB first: P = X*Y mod M.
//
// Amanor (2005), Algorithm 2 (after Bunimov and Schimmler): for i = N-1 downto 0
//   P := 2P + x_i*Y;  if (P >= M) P := P - M;  if (P >= M) P := P - M;
// Datapath: one carry-propagate adder for 2P + x_i*Y (the shift is routing, x_i*Y an AND
// row) and two cascaded carry-propagate subtractors with their comparisons, all in one loop
// cycle. No redundant S/C.
//
// Invariant: P < M before every iteration, so 2P + x_i*Y <= 2(M-1) + (M-1) < 3M and two
// subtractions bring it below M again; P is N bits, the sum N+2 bits. This holds for every
// M < 2^N (no normalisation is needed): the result after the loop is fully reduced.
//
// Selection observed for coverage: q = number of subtractions taken in the iteration
// (0, 1 or 2; all three are reachable for N >= 3).
//
// Cycles: N (the loop; the last iteration writes the result), from the start edge.
`include "mv_core_ports.svh"

module inter_r2 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, an iteration whose selection is FaultAddr (number of
  // subtractions) takes one subtraction fewer. Used by the negative tests.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 1
) (
  `MV_CORE_PORTS
);

  localparam int SumW    = N + 2;  // 2P + x_i*Y < 3M < 2^(N+2)
  localparam int SelW    = 2;
  localparam int SelSize = 3;      // 0, 1 or 2 subtractions

  logic [N-1:0] x_q;  // X shift register: x_i is bit N-1 (MSB first)
  logic [N-1:0] p_q;

  // Step (3)-(5): T = 2P + x_i*Y
  logic [SumW-1:0] m_ext, t0;
  assign m_ext = SumW'(m_i);
  assign t0    = {1'b0, p_q, 1'b0} + (x_q[N-1] ? SumW'(y_i) : '0);

  // Steps (6), (7): two conditional subtractions
  logic            ge1, ge2;
  logic [SumW-1:0] t1, t2;
  assign ge1 = (t0 >= m_ext);
  assign t1  = ge1 ? t0 - m_ext : t0;
  assign ge2 = (t1 >= m_ext);
  assign t2  = ge2 ? t1 - m_ext : t1;

  // Selection (number of subtractions) and the test-only fault: one subtraction fewer
  logic [SelW-1:0] sel;
  logic            fault_hit;
  logic [N-1:0]    p_next;  // t2 < M < 2^N
  assign sel       = SelW'(ge1) + SelW'(ge2);
  assign fault_hit = FaultEn && (sel == SelW'(FaultAddr)) && ge1;
  assign p_next    = N'(fault_hit ? (ge2 ? t1 : t0) : t2);

  // Control (IDLE, N loop cycles; no FIN: the last iteration's result is P) and
  // observation: hits per number of subtractions per iteration in the last operation.
  logic clear, load, loop;
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(N), .FinCycle(1'b0), .ObsBins(SelSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i({N{1'b0}}), .p_o(), .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(sel), .obs_count1_i(1'b0), .obs_addr1_i(sel), .obs_sub_taken_i(1'b0));
  /* verilator lint_on PINCONNECTEMPTY */

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {x_q, p_q} <= '0;
    end else if (clear) begin
      {x_q, p_q} <= '0;
    end else if (load) begin
      x_q <= x_i;
      p_q <= '0;
    end else if (loop) begin
      p_q <= p_next;
      x_q <= x_q << 1;
    end
  end

  assign p_o = p_q;

endmodule
