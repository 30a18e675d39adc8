// mont_r2: radix-2 Montgomery multiplication with carry-propagate adders.
//
// Amanor (2005), Algorithm 1a (after Bunimov and Schimmler): P = X*Y*2^-N mod M, M odd.
// One loop cycle per bit x_i of X, least significant first:
//   step 3: T := P + x_i*Y          (carry-propagate adder)
//   step 4: T := T + q_i*M, q_i = t_0 (the LSB of T after step 3: the paper's p_0)
//   step 5: P := T div 2            (T is even, the shift drops a zero)
// Selection signal (observed for coverage): address {x_i, q_i}, 4 bins; all four occur for
// every N >= 2 (exhaustive enumeration in models/tests/test_mont.py).
//
// Widths: P < Y + M holds after every iteration ((P + Y + M) / 2 < (Y + M + Y + M) / 2), for
// any N-bit Y, so P (< 2^(N+1)) is N+1 bits and T (< 2(Y + M)) is N+2 bits. After N
// iterations the FIN cycle subtracts M once if P >= M (step 6): P leaves the core below
// max(Y, M), congruent to X*Y*2^-N mod M, and fully reduced for Y < M (the thesis's input
// domain; it runs the loop on 1024-bit Y >= M too, section 4.2.3).
//
// Cycles: N (loop) + 1 (FIN) = N + 1, from the start edge.
//
// Assertions (docs/formal.md): the loop invariant P < Y + M after every iteration.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_r2 #(
  parameter int N        = 32,
  // Test only: when FaultEn is set, the add-M decision q_i is inverted whenever the
  // selection address {x_i, q_i} equals FaultSel. Used by the negative tests.
  parameter bit FaultEn  = 1'b0,
  parameter int FaultSel = 0
) (
  `MV_CORE_PORTS
);

  localparam int SelAddrW = 2;
  localparam int SelSize  = 1 << SelAddrW;

  logic [N-1:0] x_q;    // X shift register: x_i is bit 0
  logic [N:0]   acc_q;  // the loop's P (< 2M)
  logic [N-1:0] p_fin;  // the result (fully reduced), held by u_ctrl
  logic         clear, load, loop, sub_taken;

  // Step 3: T = P + x_i*Y
  logic [N+1:0] t3;
  assign t3 = {1'b0, acc_q} + {2'b00, x_q[0] ? y_i : '0};  // x_i*Y: a select, not a replicated AND

  // Selection: q_i is the LSB of T after step 3
  logic                q_i;
  logic [SelAddrW-1:0] sel_addr;
  logic                fault_hit;
  logic                add_m;
  assign q_i       = t3[0];
  assign sel_addr  = {x_q[0], q_i};
  assign fault_hit = FaultEn && (sel_addr == SelAddrW'(FaultSel));
  assign add_m     = q_i ^ fault_hit;

  // Step 4: T = T + q_i*M; t4[0] is 0 by construction and is shifted out (step 5).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N+1:0] t4;
  /* verilator lint_on UNUSEDSIGNAL */
  assign t4 = t3 + {2'b00, add_m ? m_i : '0};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {x_q, acc_q} <= '0;
    end else if (clear) begin
      {x_q, acc_q} <= '0;
    end else if (load) begin
      x_q   <= x_i;
      acc_q <= '0;
    end else if (loop) begin
      acc_q <= t4[N+1:1];
      x_q   <= x_q >> 1;
    end
  end

  // Control (IDLE, N loop cycles, FIN) and observation: hits per selection {x_i, q_i} in
  // the last operation and whether FIN subtracted M, read by the testbench at done.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(N), .ObsBins(SelSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(sel_addr), .obs_count1_i(1'b0), .obs_addr1_i(sel_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // Step 6 (FIN): P - M if P >= M (P is the accumulator: C = 0)
  mv_final_sub #(.N(N)) u_final (.s_i(acc_q), .c_i({(N + 1){1'b0}}), .cin_i(1'b0), .m_i,
                                 .p_o(p_fin), .sub_taken_o(sub_taken));

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 1a, steps 3-5 (and this header): P < Y + M after every
  // iteration, (P + Y + M) / 2 < (Y + M + Y + M) / 2; so after the one subtraction of step
  // 6 (mv_final_sub) P < max(Y, M), fully reduced for Y < M.
  `ASSERT_IMPL(AccBelowYM_A, $past(loop),
               (N + 2)'(acc_q) < (N + 2)'(y_i) + (N + 2)'(m_i), clk_i, assert_off)

endmodule
