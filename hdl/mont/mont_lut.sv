// mont_lut: faster Montgomery multiplication with one carry-save adder and a lookup table.
//
// Amanor (2005), Algorithm 3 and Fig. 2 (after Bunimov and Schimmler): P = X*Y*2^-N mod M.
// The four values {0, M, Y, R = Y + M} are precomputed (R in the PRE cycle) and a 16-entry
// table addressed by {x_i, y_0, s_0, c_0} selects the one to add:
//   x_i = 0: I = 0 if s_0 == c_0 else M            (Algorithm 3 steps 3, 4)
//   x_i = 1: I = Y if s_0 ^ c_0 ^ y_0 == 0 else R  (steps 5, 6)
// so that S + C + I is even; one CSA adds it and both halves shift right by one (routing).
// All 16 addresses are reachable (y_0 is fixed per operation, x_i, s_0, c_0 vary).
// Gajbhiye (2018) Table I reprints this table with x_i = 0, c_0 = s_0 = 1 -> Y for y_0 = 0; that
// entry adds Y for a zero bit of X and is wrong: Algorithm 3 gives 0 there, as used here.
//
// Widths: S + C < Y + M holds after every iteration (I <= R = Y + M), for any N-bit Y; S
// stays below 2^N and C below 2^(N+1), so S, C and R are N+1 bits and nothing overflows.
// After N iterations the FIN cycle adds P = S + C with a carry-propagate adder and subtracts
// M once if P >= M (the thesis leaves this step out): P leaves the core below max(Y, M),
// fully reduced for Y < M.
//
// Cycles: 1 (PRE: R = Y + M) + N (loop) + 1 (FIN) = N + 2, from the start edge.
//
// Assertions (docs/formal.md): the loop invariant S + C < Y + M after every iteration, and the
// table addresses the first two iterations can reach.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_lut #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, table address FaultAddr returns the wrong entry. Used
  // by the negative tests to prove that the testbench catches a corrupted table.
  parameter bit          FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_SC_PORTS(N + 1)
);

  localparam int LutAddrW = 4;
  localparam int LutSize  = 1 << LutAddrW;
  localparam int CntW     = $clog2(N + 1);

  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0] x_q;    // X shift register (u_regs): x_i is bit 0
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N:0]   s_q, c_q;
  logic [N-1:0] p_fin;  // the result, held by u_ctrl
  logic         clear, load, pre, loop, sub_taken;
  logic [CntW-1:0] cnt;  // the loop iteration (u_ctrl)

  logic [LutAddrW-1:0] lut_addr;
  logic [N:0]          lut_val;
  // csa_sum[0] is 0 by construction (the table makes S + C + I even) and is shifted out.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N:0]          csa_sum;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N:0]          csa_carry;  // carry bit k has weight 2^(k+1)

  assign lut_addr = {x_q[0], y_i[0], s_q[0], c_q[0]};

  // Test only: the faulty build swaps the entry at FaultAddr for its neighbour.
  logic fault_hit;
  assign fault_hit = FaultEn && (lut_addr == LutAddrW'(FaultAddr));

  // The table (R = Y + M in PRE): the value I to add
  /* verilator lint_off PINCONNECTEMPTY */
  mont_lut_table #(.N(N)) u_table (
    .clk_i, .rst_ni, .clear_i(clear), .pre_i(pre), .y_i, .m_i, .addr0_i(lut_addr),
    .fault0_i(fault_hit), .val0_o(lut_val), .addr1_i(4'd0), .fault1_i(1'b0), .val1_o());
  /* verilator lint_on PINCONNECTEMPTY */

  // One carry-save adder
  assign csa_sum   = s_q ^ c_q ^ lut_val;
  assign csa_carry = (s_q & c_q) | (s_q & lut_val) | (c_q & lut_val);

  // Control (IDLE, PRE: R = Y + M, N loop cycles, FIN) and observation: hits per table
  // address {x_i, y_0, s_0, c_0} in the last operation and whether FIN subtracted M.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(N), .PreCycles(1), .ObsBins(LutSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(cnt),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(lut_addr), .obs_count1_i(1'b0), .obs_addr1_i(lut_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // Loop: S + C + I is even, so csa_sum[0] is 0 and the shift drops nothing.
  mv_sc_regs #(.XW(N), .SW(N + 1)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .step_i(loop), .x_i,
    .s_i({1'b0, csa_sum[N:1]}), .c_i(csa_carry), .x_o(x_q), .s_o(s_q), .c_o(c_q));
  assign s_o = s_q;
  assign c_o = c_q;

  // FIN: P = S + C, minus M if P >= M
  mv_final_sub #(.N(N)) u_final (
    .s_i(s_q), .c_i(c_q), .cin_i(1'b0), .m_i, .p_o(p_fin), .sub_taken_o(sub_taken));

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 3, steps 3-8 (and this header): I <= R = Y + M, so
  // (S + C + I) / 2 < Y + M: S + C < Y + M after every iteration, and after the one
  // subtraction of step 10 (mv_final_sub) P < max(Y, M), fully reduced for Y < M.
  `ASSERT_SUM_BELOW(SumBelowYM_A, $past(loop), s_q, c_q, (N + 2)'(y_i) + (N + 2)'(m_i), N + 2,
                    clk_i, assert_off)
  // The table address {x_i, y_0, s_0, c_0} (Algorithm 3, Fig. 2). Over an operation all 16
  // are reachable (this header); the first two iterations reach fewer. Step 1 (S = C = 0):
  // the first iteration's address has s_0 = c_0 = 0; its CSA's carry is maj(0, 0, I) = 0, so
  // the second iteration's has c_0 = 0.
  `ASSERT_IMPL(LutAddrFirstIter_A, loop && cnt == '0, lut_addr[1:0] == 2'b00, clk_i,
               assert_off)
  `ASSERT_IMPL(LutAddrSecondIter_A, loop && cnt == CntW'(1), !lut_addr[0], clk_i, assert_off)

endmodule
