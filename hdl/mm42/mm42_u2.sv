// mm42_u2: MM42_Multiplier unfolded by two (two iterations per clock).
//
// Gajbhiye (2018), unfolding with J = 2 (section on the unfolded DFG, Fig. 8 "Proposed
// Unfolding of MM24_Multiplier"): the loop body of MM42 (see mm42.sv) is duplicated and
// chained, so iteration 2j runs in compressor 0 and iteration 2j+1 in compressor 1 on its
// output, in the same clock. Per step: selection (A_i, q_i), q_i = (S1_0 + S2_0 +
// A_i (B1_0 + B2_0)) mod 2, adds (0, 0), (M, 0), (B1, B2) or D = (D1, D2) = B1 + B2 + M with a
// 4:2 compressor (two carry-save adders) and halves by routing. The serial adder over the A1,
// A2 shift registers produces two bits of A = A1 + A2 per clock (two full adders in a row).
// The per-clock selection address {sel_2j, sel_2j+1} has 16 values, all reachable for
// N >= 3 (exhaustive enumeration, models/tests/test_mm42.py).
//
// Range: A, B in [0, 2M) (Walter); the loop needs at least N + 2 iterations and runs an even
// number, 2*ceil((N+2)/2): R = 2^(N+2) for even N, 2^(N+3) for odd N (one more iteration
// only shrinks S further, S1 + S2 < 2M still holds). Widths as mm42: S1, S2, D1, D2 are
// N + 2 bits, the compressors N + 3 bits. The FIN cycle adds P = S1 + S2 and subtracts M
// once if P >= M; s_o, c_o keep S1, S2.
//
// Cycles: 1 (PRE: D, compressor 0) + ceil((N+2)/2) (loop) + 1 (FIN) = ceil((N+2)/2) + 2.
//
// Assertions (docs/formal.md): S1 + S2 < 3M after every iteration, step 0's as well as step
// 1's, and < 2M after the last.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mm42_u2 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, a step whose selection address is FaultAddr (0..3,
  // {A_i, q_i}) adds the wrong pair ((0,0) <-> (M,0), B <-> D), in both chained steps.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_HALVES_SC_PORTS(N + 2)  // s_o: S1, c_o: S2 after the loop
);

  localparam int W        = N + 2;             // S1, S2, D1, D2
  localparam int CW       = W + 1;             // compressor width
  localparam int Clocks   = (N + 2 + 1) / 2;   // ceil((N+2)/2) loop clocks, 2 steps each
  localparam int SelW     = 2;                 // per-step selection {A_i, q_i}
  localparam int AddrW    = 2 * SelW;          // per-clock address {sel_2j, sel_2j+1}
  localparam int AddrSize = 1 << AddrW;

  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0]    a1_q, a2_q;  // A shift registers (u_regs), two bits per clock
  /* verilator lint_on UNUSEDSIGNAL */
  logic            ac_q;        // serial adder carry
  logic [W-1:0]    d1_q, d2_q;
  logic [W-1:0]    s1_q, s2_q;
  logic [N-1:0]    p_fin;       // the result, held by u_ctrl
  logic            clear, load, pre, loop, sub_taken;

  // Step 0 (iteration 2j; in PRE it computes D = B1 + B2 + M + 0) and step 1 (iteration
  // 2j+1) on step 0's halved outputs, in series.
  logic            a_carry0, a_carry1;
  logic [SelW-1:0] sel0, sel1;
  logic [CW-1:0]   sum0, carry0;
  // Bit 0 of both is 0 by construction (the selection makes the sum even); it is dropped.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [CW-1:0]   sum1, carry1;
  /* verilator lint_on UNUSEDSIGNAL */
  mm42_step #(.N(N), .FaultEn(FaultEn), .FaultAddr(FaultAddr)) u_step0 (
    .pre_i(pre), .a1_i(a1_q[0]), .a2_i(a2_q[0]), .ac_i(ac_q), .s1_i(s1_q), .s2_i(s2_q), .b1_i,
    .b2_i, .m_i, .d1_i(d1_q), .d2_i(d2_q), .ac_o(a_carry0), .sel_o(sel0), .sum_o(sum0),
    .carry_o(carry0));
  mm42_step #(.N(N), .FaultEn(FaultEn), .FaultAddr(FaultAddr)) u_step1 (
    .pre_i(1'b0), .a1_i(a1_q[1]), .a2_i(a2_q[1]), .ac_i(a_carry0), .s1_i(sum0[CW-1:1]),
    .s2_i(carry0[CW-1:1]), .b1_i, .b2_i, .m_i, .d1_i(d1_q), .d2_i(d2_q), .ac_o(a_carry1),
    .sel_o(sel1), .sum_o(sum1), .carry_o(carry1));

  // Control (IDLE, PRE: D, ceil((N + 2)/2) loop clocks, FIN) and observation: hits per
  // per-clock selection {sel_2j, sel_2j+1} and whether FIN subtracted M.
  logic [AddrW-1:0] hit_addr;
  assign hit_addr = {sel0, sel1};
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(Clocks), .PreCycles(1), .ObsBins(AddrSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(hit_addr), .obs_count1_i(1'b0), .obs_addr1_i(hit_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // FIN: P = S1 + S2 (< 2M < 2^(N+1)), minus M if P >= M
  mv_final_sub #(.N(N), .SumW(CW), .DiffW(CW)) u_final (
    .s_i(CW'(s1_q)), .c_i(CW'(s2_q)), .cin_i(1'b0), .m_i, .p_o(p_fin),
    .sub_taken_o(sub_taken));

  // PRE: D < 3M < 2^W, bit W of both outputs is 0. Loop: sum1[0] is 0 as well.
  mm42_regs #(.N(N), .AShift(2)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .pre_i(pre), .step_i(loop), .a1_i, .a2_i,
    .d1_i(sum0[W-1:0]), .d2_i(carry0[W-1:0]), .s1_i(sum1[CW-1:1]), .s2_i(carry1[CW-1:1]),
    .ac_i(a_carry1), .a1_o(a1_q), .a2_o(a2_q), .ac_o(ac_q), .d1_o(d1_q), .d2_o(d2_q),
    .s1_o(s1_q), .s2_o(s2_q));
  assign s_o = s1_q;
  assign c_o = s2_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Gajbhiye (2018), MM42_Multiplier unfolded (J = 2) and Walter's bound it quotes (this
  // header): with A, B in [0, 2M), D = B + M < 3M, so S1 + S2 < 3M after every iteration
  // (step 0's halved output in every loop cycle, the registers after it), and < 2M after the
  // last (an extra iteration for odd N only halves S further): one subtraction in FIN
  // (mv_final_sub) reduces P fully.
  `ASSERT_SUM_BELOW(MidSumBelow3M_A, loop, sum0[CW-1:1], carry0[CW-1:1],
                    CW'(m_i) + (CW'(m_i) << 1), CW, clk_i, assert_off)
  `ASSERT_SUM_BELOW(SumBelow3M_A, $past(loop), s1_q, s2_q, CW'(m_i) + (CW'(m_i) << 1), CW,
                    clk_i, assert_off)
  `ASSERT_SUM_BELOW(SumBelow2MAtEnd_A, $past(loop) && !loop, s1_q, s2_q, CW'(m_i) << 1, CW,
                    clk_i, assert_off)

endmodule
