// mont_csa: fast Montgomery multiplication with two carry-save adders in series.
//
// Amanor (2005), Algorithm 1b and Fig. 1 (after Bunimov and Schimmler): P = X*Y*2^-N mod M,
// M odd. One loop cycle per bit x_i of X, least significant first:
//   step 3: S', C' := CSA(S, C, x_i*Y)
//   step 4: S'', C'' := CSA(S', C', s'_0*M), s'_0 = the LSB of S' (C' has a zero LSB, so
//           s'_0 is the parity of S + C + x_i*Y and S'' + C'' is even)
//   step 5: S := S'' div 2; C := C'' div 2   (both LSBs are zero: routing only)
// Selection signal (observed for coverage): address {x_i, s'_0}, 4 bins; all four occur for
// every N >= 2 (exhaustive enumeration in models/tests/test_mont.py).
//
// Widths: S and C stay below 2^N after every shift. By induction: with S, C, Y, M < 2^N,
// S' < 2^N and C' < 2^(N+1) (C' = majority << 1); the majority of CSA 2 has bit N zero (S'
// and M have none), so C = that majority is N bits, and S'' < 2^(N+1) gives S < 2^N. So S
// and C are N-bit registers (the register map's redundant_extra_bits = 0), whatever the
// N-bit Y. S + C < Y + M (it is Algorithm 1a's P). After N iterations the FIN cycle adds
// P = S + C with a carry-propagate adder and subtracts M once if P >= M (steps 6 and 7): P
// is below max(Y, M), fully reduced for Y < M; S and C stay readable.
//
// Cycles: N (loop) + 1 (FIN) = N + 1, from the start edge.
//
// Assertions (docs/formal.md): the loop invariant S + C < Y + M after every iteration.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_csa #(
  parameter int N        = 32,
  // Test only: when FaultEn is set, the add-M decision s'_0 is inverted whenever the
  // selection address {x_i, s'_0} equals FaultSel. Used by the negative tests.
  parameter bit FaultEn  = 1'b0,
  parameter int FaultSel = 0
) (
  `MV_CORE_SC_PORTS(N)
);

  localparam int SelAddrW = 2;
  localparam int SelSize  = 1 << SelAddrW;

  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0] x_q;  // X shift register: x_i is bit 0 (u_regs)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N-1:0] s_q, c_q;
  logic         clear, load, loop, sub_taken;

  // Steps 6, 7 (FIN): P = S + C, minus M if P >= M; u_ctrl holds the result.
  logic [N-1:0] p_fin;
  mv_final_sub #(.N(N)) u_final (.s_i({1'b0, s_q}), .c_i({1'b0, c_q}), .cin_i(1'b0), .m_i,
                                 .p_o(p_fin), .sub_taken_o(sub_taken));

  // CSA 1 (step 3): S' = S ^ C ^ x_i*Y, majority bit k has weight 2^(k+1)
  logic [N-1:0] xy, s1, maj1;
  assign xy   = x_q[0] ? y_i : '0;  // x_i*Y: a select, not a replicated AND
  assign s1   = s_q ^ c_q ^ xy;
  assign maj1 = (s_q & c_q) | (s_q & xy) | (c_q & xy);

  // Selection: s'_0 decides whether CSA 2 adds M
  logic                q_i;
  logic [SelAddrW-1:0] sel_addr;
  logic                fault_hit;
  logic                add_m;
  assign q_i       = s1[0];
  assign sel_addr  = {x_q[0], q_i};
  assign fault_hit = FaultEn && (sel_addr == SelAddrW'(FaultSel));
  assign add_m     = q_i ^ fault_hit;

  // Control (IDLE, N loop cycles, FIN) and observation: hits per selection {x_i, q_i} in
  // the last operation and whether FIN subtracted M, read by the testbench at done.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(N), .ObsBins(SelSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(sel_addr), .obs_count1_i(1'b0), .obs_addr1_i(sel_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // CSA 2 (step 4) on S', C' = {maj1, 0} and s'_0*M. Its sum bit 0 is 0 by construction and
  // is shifted out; its majority (bits 0..N-1; bit N is always 0) is the new C after the
  // shift (step 5).
  logic [N-1:0] qm;
  logic [N:0]   c1;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N:0]   s2;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N-1:0] maj2;
  assign qm   = add_m ? m_i : '0;
  assign c1   = {maj1, 1'b0};
  assign s2   = {1'b0, s1} ^ c1 ^ {1'b0, qm};
  assign maj2 = (s1 & c1[N-1:0]) | (s1 & qm) | (c1[N-1:0] & qm);

  // Step 5: S := S'' div 2, C := C'' (the majority is already shifted), X shifted
  mv_sc_regs #(.XW(N), .SW(N)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .step_i(loop), .x_i, .s_i(s2[N:1]),
    .c_i(maj2), .x_o(x_q), .s_o(s_q), .c_o(c_q));
  assign s_o = s_q;
  assign c_o = c_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 1b, steps 3-5 (and this header): S + C is Algorithm 1a's P, so
  // S + C < Y + M after every iteration, and after the one subtraction of step 7
  // (mv_final_sub) P < max(Y, M), fully reduced for Y < M.
  `ASSERT_SUM_BELOW(SumBelowYM_A, $past(loop), s_q, c_q, (N + 2)'(y_i) + (N + 2)'(m_i), N + 2,
                    clk_i, assert_off)

endmodule
