// mont_lut_u2: Montgomery multiplication with a lookup table, unfolded by two.
//
// Gajbhiye (2018), "Pre-computed [8] with proposed unfolding" (Fig. 7): the loop of Amanor
// (2005) Algorithm 3 (Fig. 2: one table lookup + one CSA per bit of X) unfolded with J = 2
// (DFG unfolding, Gajbhiye Fig. 5/6): two lookups and two CSAs in series per clock.
// P = X*Y*2^-N mod M. The four values {0, M, Y, R = Y + M} are precomputed (R in the PRE
// cycle); both stages select from them with the table of Algorithm 3 (steps 3-6):
//   x = 0: I = 0 if s_0 == c_0 else M
//   x = 1: I = Y if s_0 ^ c_0 ^ y_0 == 0 else R
// stage 0: address {x_i,     y_0, s_0,  c_0 } from the S, C registers,
//          (S', C') = (S + C + I0) / 2 (one CSA, shift by routing);
// stage 1: address {x_(i+1), y_0, s'_0, c'_0} from stage 0's shifted outputs, i.e. bits 1 of
//          stage 0's CSA sum and bit 0 of its carry (the table-CSA-table-CSA critical path),
//          (S'', C'') = (S' + C' + I1) / 2; S'', C'' are registered.
// Table addresses for coverage: 16*stage + {x, y_0, s_0, c_0}, 32 in all; every address of
// both stages is reachable for N >= 4 (derived by enumeration in models/tests/test_mont_u2.py).
// Gajbhiye's Table I has one wrong entry (x_i = 0, y_0 = 0, c_0 = s_0 = 1 -> Y; Algorithm 3
// gives 0, used here), see mont_lut.
//
// Widths: as in mont_lut, S + C < 2M after every iteration (I <= Y + M < 2M), S < 2^N and
// C < 2^(N+1): S, C and R are N+1 bits in both stages and nothing overflows.
//
// Odd N: the last loop cycle is a half step: only stage 0 runs (stage 1 is bypassed), so
// exactly N iterations are done and R = 2^N (padding X with a zero bit would divide by
// 2^(N+1)).
//
// Cycles: 1 (PRE: R = Y + M) + ceil(N/2) (loop) + 1 (FIN: P = S + C, subtract M once if
// P >= M) = ceil(N/2) + 2, from the start edge.
//
// Assertions (docs/formal.md): the loop invariant S + C < 2M after every iteration, stage 0's
// as well as stage 1's, and the table addresses the first clock (two iterations) can reach.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_lut_u2 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, table address FaultAddr (16*stage + address) returns
  // the wrong entry (0 <-> M, Y <-> R). Used by the negative tests.
  parameter bit          FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_SC_PORTS(N + 1)
);

  localparam int Unfold     = 2;                          // J: iterations per loop cycle
  localparam int LoopCycles = (N + Unfold - 1) / Unfold;  // ceil(N / 2)
  localparam bit HalfStep   = (N % Unfold) != 0;          // odd N: last cycle runs stage 0
  localparam int LutAddrW   = 4;
  localparam int LutBins    = Unfold << LutAddrW;         // 32 table addresses
  localparam int LutBinsW   = $clog2(LutBins);

  /* verilator lint_off UNUSEDSIGNAL */
  logic [N-1:0] x_q;  // X shift register (u_regs): x_q[0] = x_i, x_q[1] = x_(i+1)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N:0]   s_q, c_q;
  logic [N-1:0] p_fin;
  logic         last_loop, clear, load, pre, loop, sub_taken;

  // One CSA and the shift: returns {S', C'}. The table makes S + C + I even, so the sum's
  // bit 0 is 0 and is dropped; the carry (weight 2^(k+1)) is kept unshifted.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [2*N+1:0] csa_step(input logic [N:0] s, input logic [N:0] c,
                                              input logic [N:0] v);
    logic [N:0] sum, carry;
    sum      = s ^ c ^ v;
    carry    = (s & c) | (s & v) | (c & v);
    csa_step = {1'b0, sum[N:1], carry};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Stage 0 (bit x_i) and stage 1 (bit x_(i+1)) in series
  logic [LutAddrW-1:0] addr0, addr1;
  logic [N:0]          val0, val1;
  logic [2*N+1:0]      st0, st1;
  logic [N:0]          s_mid, c_mid, s_nxt, c_nxt;
  logic                fault0, fault1;

  assign addr0  = {x_q[0], y_i[0], s_q[0], c_q[0]};
  // Test only: the faulty build swaps the entry at FaultAddr for its neighbour.
  assign fault0 = FaultEn && ({1'b0, addr0} == LutBinsW'(FaultAddr));
  assign st0    = csa_step(s_q, c_q, val0);
  assign s_mid  = st0[2*N+1:N+1];
  assign c_mid  = st0[N:0];

  assign addr1  = {x_q[1], y_i[0], s_mid[0], c_mid[0]};
  assign fault1 = FaultEn && ({1'b1, addr1} == LutBinsW'(FaultAddr));
  assign st1    = csa_step(s_mid, c_mid, val1);

  // The table (R = Y + M in PRE): one value I per stage
  mont_lut_table #(.N(N)) u_table (
    .clk_i, .rst_ni, .clear_i(clear), .pre_i(pre), .y_i, .m_i, .addr0_i(addr0),
    .fault0_i(fault0), .val0_o(val0), .addr1_i(addr1), .fault1_i(fault1), .val1_o(val1));

  logic half;  // this loop cycle runs stage 0 only (last cycle of an odd N)
  assign half  = HalfStep && last_loop;
  assign s_nxt = half ? s_mid : st1[2*N+1:N+1];
  assign c_nxt = half ? c_mid : st1[N:0];

  // Control (IDLE, PRE: R = Y + M, ceil(N/2) loop cycles, FIN) and observation: hits per
  // table address (stage 0: 0..15, stage 1: 16..31) and whether FIN subtracted M.
  logic [LutBinsW-1:0] hit0, hit1;
  assign hit0 = {1'b0, addr0};
  assign hit1 = {1'b1, addr1};
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(LoopCycles), .PreCycles(1), .ObsBins(LutBins)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(last_loop),
    .fin_o(), .obs_addr0_i(hit0), .obs_count1_i(!half), .obs_addr1_i(hit1),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // FIN: P = S + C, minus M if P >= M; u_ctrl holds the result.
  mv_final_sub #(.N(N)) u_final (
    .s_i(s_q), .c_i(c_q), .cin_i(1'b0), .m_i, .p_o(p_fin), .sub_taken_o(sub_taken));

  // The loop's registers: S, C := stage 1's (stage 0's in a half step), X shifted
  mv_sc_regs #(.XW(N), .SW(N + 1), .XShift(Unfold)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .step_i(loop), .x_i, .s_i(s_nxt),
    .c_i(c_nxt), .x_o(x_q), .s_o(s_q), .c_o(c_q));
  assign s_o = s_q;
  assign c_o = c_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 3, steps 3-8, unfolded (Gajbhiye 2018, Fig. 7: the same
  // iterations, two per clock): I <= R = Y + M < 2M, so S + C < 2M after every iteration:
  // stage 0's output in every loop cycle, the registers (stage 1's, or stage 0's in a half
  // step) after it. The one subtraction in FIN (mv_final_sub) then reduces P fully.
  `ASSERT_SUM_BELOW(MidSumBelow2M_A, loop, s_mid, c_mid, (N + 2)'(m_i) << 1, N + 2, clk_i,
                    assert_off)
  `ASSERT_SUM_BELOW(SumBelow2M_A, $past(loop), s_q, c_q, (N + 2)'(m_i) << 1, N + 2, clk_i,
                    assert_off)
  // The table addresses {x, y_0, s_0, c_0} (Algorithm 3, Fig. 2). Over an operation all 32
  // are reachable (this header); the first clock reaches fewer. Step 1 (S = C = 0): stage
  // 0's address has s_0 = c_0 = 0; its CSA's carry is maj(0, 0, I) = 0, so stage 1's has
  // c_0 = 0.
  `ASSERT_IMPL(LutAddrFirstClk_A, loop && $past(pre), addr0[1:0] == 2'b00 && !addr1[0], clk_i,
               assert_off)

endmodule
