// mont_csa_u2: Montgomery multiplication with carry-save adders, unfolded by two.
//
// Gajbhiye (2018), "Two-CSA [8] with proposed unfolding": the loop of Amanor (2005)
// Algorithm 1b (Fig. 1, two CSAs per bit of X) unfolded with J = 2 (the DFG unfolding of
// Gajbhiye Fig. 5/6: the loop body is duplicated, stage 1 takes stage 0's S, C combinationally
// and the one register delay of the loop sits after stage 1). P = X*Y*2^-N mod M.
// Per clock two iterations i and i+1, i.e. four CSAs in series:
//   stage j (j = 0: bit x_i, j = 1: bit x_(i+1)), from (S, C):
//     CSA 1: (S1, C1) = S + C + x * Y                 (step 3)
//     q      = LSB of S1 = s_0 ^ c_0 ^ (x & y_0)      (C1 has a zero LSB)
//     CSA 2: (S2, C2) = S1 + C1 + q * M               (step 4)
//     S, C   = S2 / 2, C2 / 2                         (step 5, routing)
// Selection: per stage the address {x, q} (which of 0 / Y and 0 / M are added) is counted for
// coverage; selection address 4*j + {x, q}, 8 in all, all reachable for N >= 3
// (models/tests/test_mont_u2.py).
//
// Widths: S, C < 2^N before a stage and S + C < 2M hold after every iteration, so S and C
// are N-bit registers: S1 < 2^N, C1 = 2 * maj1 with maj1 < 2^N; S2 < 2^(N+1) with a zero LSB;
// C2 = 2 * maj2 whose bit N is 0 (S1, M have no bit N), so C2 / 2 = maj2 fits N bits.
// The carries are kept unshifted (maj, weight 2^(k+1)), so the division by 2 is free.
//
// Odd N: the last loop cycle is a half step: only stage 0 runs (stage 1 is bypassed), so
// exactly N iterations are done and R = 2^N. Padding X with a zero bit would give N + 1
// iterations and X*Y*2^-(N+1).
//
// Cycles: ceil(N/2) (loop) + 1 (FIN: P = S + C, subtract M once if P >= M) = ceil(N/2) + 1.
//
// Assertions (docs/formal.md): the loop invariant S + C < 2M after every iteration, stage 0's
// as well as stage 1's.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_csa_u2 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, the M selection q of selection address FaultAddr
  // (4*stage + 2*x + q) is inverted. Used by the negative tests.
  parameter bit          FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_SC_PORTS(N)
);

  localparam int Unfold     = 2;                          // J: iterations per loop cycle
  localparam int LoopCycles = (N + Unfold - 1) / Unfold;  // ceil(N / 2)
  localparam bit HalfStep   = (N % Unfold) != 0;          // odd N: last cycle runs stage 0
  localparam int SelAddrW   = 2;                          // {x, q}
  localparam int SelBins    = Unfold << SelAddrW;         // 8 selection addresses
  localparam int SelBinsW   = $clog2(SelBins);

  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0] x_q;  // X shift register (u_regs): x_q[0] = x_i, x_q[1] = x_(i+1)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N-1:0] s_q, c_q, p_fin;
  logic         last_loop, clear, load, loop, sub_taken;

  // One iteration of Algorithm 1b (two CSAs and the shift) with the M selection q given.
  // Returns {S', C'}; C' is the unshifted majority of CSA 2.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [2*N-1:0] alg1b_step(input logic [N-1:0] s, input logic [N-1:0] c,
                                                input logic [N-1:0] y, input logic [N-1:0] m,
                                                input logic xb, input logic q);
    logic [N-1:0] add_y, sum1, maj1;
    logic [N:0]   car1, add_m, ext1, sum2, maj2;
    add_y = xb ? y : '0;
    sum1  = s ^ c ^ add_y;                                 // CSA 1
    maj1  = (s & c) | (s & add_y) | (c & add_y);
    car1  = {maj1, 1'b0};
    ext1  = {1'b0, sum1};
    add_m = q ? {1'b0, m} : '0;
    sum2  = ext1 ^ car1 ^ add_m;                           // CSA 2
    maj2  = (ext1 & car1) | (ext1 & add_m) | (car1 & add_m);
    alg1b_step = {sum2[N:1], maj2[N-1:0]};                 // sum2[0] = 0, maj2[N] = 0
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Stage 0 (bit x_i) and stage 1 (bit x_(i+1)) in series
  logic               q0, q1, q0_eff, q1_eff;
  logic [SelAddrW-1:0] sel0, sel1;
  logic [2*N-1:0]     st0, st1;
  logic [N-1:0]       s_mid, c_mid, s_nxt, c_nxt;

  assign q0   = s_q[0] ^ c_q[0] ^ (x_q[0] & y_i[0]);
  assign sel0 = {x_q[0], q0};
  // Test only: the faulty build inverts the M selection at FaultAddr.
  assign q0_eff = q0 ^ (FaultEn && ({1'b0, sel0} == SelBinsW'(FaultAddr)));
  assign st0  = alg1b_step(s_q, c_q, y_i, m_i, x_q[0], q0_eff);
  assign s_mid = st0[2*N-1:N];
  assign c_mid = st0[N-1:0];

  assign q1   = s_mid[0] ^ c_mid[0] ^ (x_q[1] & y_i[0]);
  assign sel1 = {x_q[1], q1};
  assign q1_eff = q1 ^ (FaultEn && ({1'b1, sel1} == SelBinsW'(FaultAddr)));
  assign st1  = alg1b_step(s_mid, c_mid, y_i, m_i, x_q[1], q1_eff);

  logic half;  // this loop cycle runs stage 0 only (last cycle of an odd N)
  assign half  = HalfStep && last_loop;
  assign s_nxt = half ? s_mid : st1[2*N-1:N];
  assign c_nxt = half ? c_mid : st1[N-1:0];

  // Control (IDLE, ceil(N/2) loop cycles, FIN) and observation: hits per selection (stage
  // 0: 0..3, stage 1: 4..7) in the last operation and whether FIN subtracted M.
  logic [SelBinsW-1:0] hit0, hit1;
  assign hit0 = {1'b0, sel0};
  assign hit1 = {1'b1, sel1};
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(LoopCycles), .ObsBins(SelBins)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(), .loop_o(loop), .last_loop_o(last_loop),
    .fin_o(), .obs_addr0_i(hit0), .obs_count1_i(!half), .obs_addr1_i(hit1),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // The loop's registers: S, C := S'', C'' of stage 1 (stage 0 in a half step), X shifted
  mv_sc_regs #(.XW(N), .SW(N), .XShift(Unfold)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .step_i(loop), .x_i, .s_i(s_nxt),
    .c_i(c_nxt), .x_o(x_q), .s_o(s_q), .c_o(c_q));
  assign s_o = s_q;
  assign c_o = c_q;

  // FIN: P = S + C, minus M if P >= M; u_ctrl holds the result.
  mv_final_sub #(.N(N)) u_final (
    .s_i({1'b0, s_q}), .c_i({1'b0, c_q}), .cin_i(1'b0), .m_i, .p_o(p_fin),
    .sub_taken_o(sub_taken));

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 1b, steps 3-5, unfolded (Gajbhiye 2018, Fig. 5/6: the same
  // iterations, two per clock): S + C is Algorithm 1a's P, below 2M after every iteration,
  // so the one subtraction in FIN (mv_final_sub) reduces P = S + C fully. Stage 0's output
  // in every loop cycle, the registers (stage 1's, or stage 0's in a half step) after it.
  `ASSERT_SUM_BELOW(MidSumBelow2M_A, loop, s_mid, c_mid, (N + 2)'(m_i) << 1, N + 2, clk_i,
                    assert_off)
  `ASSERT_SUM_BELOW(SumBelow2M_A, $past(loop), s_q, c_q, (N + 2)'(m_i) << 1, N + 2, clk_i,
                    assert_off)

endmodule
