// mm42: MM42_Multiplier, Montgomery multiplication with carry-save operands and result.
//
// Gajbhiye (2018), "Algorithm: MM42_Multiplier [12]" and Fig. 3: P = A*B*2^-(N+2) mod M
// with A = A1 + A2, B = B1 + B2 given as carry-save pairs. D = (D1, D2) = B1 + B2 + M + 0 is
// precomputed by the 4:2 compressor in the PRE cycle (step 1). Each iteration (steps 4-12)
// selects by (A_i, q_i), q_i = (S1_0 + S2_0 + A_i (B1_0 + B2_0)) mod 2, one of
//   (0, 0)  -> 0: A_i = 0, q_i = 0      (N, 0)   -> 1: A_i = 0, q_i = 1
//   (B1, B2) -> 2: A_i = 1, q_i = 0     (D1, D2) -> 3: A_i = 1, q_i = 1
// adds it to (S1, S2) with a 4:2 compressor (two carry-save adders) and halves both outputs
// by routing: q_i makes S1 + S2 + addend even, so the compressor's sum bit 0 is 0. All four
// selection addresses are reachable (exhaustive enumeration, models/tests/test_mm42.py).
// A_i is bit i of the value A1 + A2, produced LSB first by a one-bit serial adder (full
// adder + carry flip-flop) over the A1 and A2 shift registers.
//
// Range (Walter, as quoted by the paper): A, B in [0, 2M) and K + 2 = N + 2 iterations keep
// S1 + S2 < 3M inside the loop and S1 + S2 < 2M at the end; the result relation is the
// Montgomery product with R = 2^(N+2), not 2^N. Each half of a carry-save pair is at most
// its value, so S1, S2, D1, D2 are N + 2 bits and the compressor N + 3 bits; nothing
// overflows. The paper returns (S1, S2); this core also adds P = S1 + S2 with a
// carry-propagate adder in the FIN cycle and subtracts M once if P >= M, so P is fully
// reduced, and keeps S1, S2 readable as s_o, c_o.
//
// Cycles: 1 (PRE: D) + (N + 2) (loop) + 1 (FIN) = N + 4, from the start edge.
//
// Assertions (docs/formal.md): S1 + S2 < 3M after every iteration and < 2M after the last.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mm42 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, selection address FaultAddr adds the wrong pair
  // ((0,0) <-> (M,0), B <-> D). Used by the negative tests.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_HALVES_SC_PORTS(N + 2)  // s_o: S1, c_o: S2 after the loop
);

  localparam int W        = N + 2;      // S1, S2, D1, D2: each half <= its value < 3M
  localparam int CW       = W + 1;      // compressor width
  localparam int Iter     = N + 2;      // Walter: K + 2 iterations
  localparam int SelW     = 2;          // selection address {A_i, q_i}
  localparam int SelSize  = 1 << SelW;

  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0]    a1_q, a2_q;  // A shift registers (u_regs): bit 0 feeds the serial adder
  /* verilator lint_on UNUSEDSIGNAL */
  logic            ac_q;        // serial adder carry
  logic [W-1:0]    d1_q, d2_q;  // D = B1 + B2 + M (carry-save)
  logic [W-1:0]    s1_q, s2_q;
  logic [N-1:0]    p_fin;       // the result, held by u_ctrl
  logic            clear, load, pre, loop, sub_taken;
  logic            a_carry;
  logic [SelW-1:0] sel_addr;
  logic [CW-1:0]   cmp_sum, cmp_carry;

  // The one step: PRE computes D = B1 + B2 + M + 0, the loop S1 + S2 + addend.
  mm42_step #(.N(N), .FaultEn(FaultEn), .FaultAddr(FaultAddr)) u_step (
    .pre_i(pre), .a1_i(a1_q[0]), .a2_i(a2_q[0]), .ac_i(ac_q), .s1_i(s1_q), .s2_i(s2_q), .b1_i,
    .b2_i, .m_i, .d1_i(d1_q), .d2_i(d2_q), .ac_o(a_carry), .sel_o(sel_addr), .sum_o(cmp_sum),
    .carry_o(cmp_carry));

  // Control (IDLE, PRE: D = B1 + B2 + M, N + 2 loop cycles, FIN) and observation: hits per
  // selection {A_i, q_i} in the last operation and whether FIN subtracted M.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(Iter), .PreCycles(1), .ObsBins(SelSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(sel_addr), .obs_count1_i(1'b0), .obs_addr1_i(sel_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // D < 3M < 2^W: bit W of both outputs is 0. S1 + S2 + addend is even: cmp_sum[0] is 0 and
  // the halving drops nothing.
  mm42_regs #(.N(N)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .pre_i(pre), .step_i(loop), .a1_i, .a2_i,
    .d1_i(cmp_sum[W-1:0]), .d2_i(cmp_carry[W-1:0]), .s1_i(cmp_sum[CW-1:1]),
    .s2_i(cmp_carry[CW-1:1]), .ac_i(a_carry), .a1_o(a1_q), .a2_o(a2_q), .ac_o(ac_q),
    .d1_o(d1_q), .d2_o(d2_q), .s1_o(s1_q), .s2_o(s2_q));
  assign s_o = s1_q;
  assign c_o = s2_q;

  // FIN: P = S1 + S2 (< 2M < 2^(N+1)), minus M if P >= M
  mv_final_sub #(.N(N), .SumW(CW), .DiffW(CW)) u_final (
    .s_i(CW'(s1_q)), .c_i(CW'(s2_q)), .cin_i(1'b0), .m_i, .p_o(p_fin),
    .sub_taken_o(sub_taken));

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Gajbhiye (2018), MM42_Multiplier and Walter's bound it quotes (this header): with A, B in
  // [0, 2M), D = B + M < 3M, so S1 + S2 < 3M after every iteration ((S + D) / 2 < 3M), and
  // after the K + 2 = N + 2 iterations S1 + S2 = (AB + QM) / 2^(N+2) < 2M: one subtraction
  // in FIN (mv_final_sub) reduces P fully.
  `ASSERT_SUM_BELOW(SumBelow3M_A, $past(loop), s1_q, s2_q, CW'(m_i) + (CW'(m_i) << 1), CW,
                    clk_i, assert_off)
  `ASSERT_SUM_BELOW(SumBelow2MAtEnd_A, $past(loop) && !loop, s1_q, s2_q, CW'(m_i) << 1, CW,
                    clk_i, assert_off)

endmodule
