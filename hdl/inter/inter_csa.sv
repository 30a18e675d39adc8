// inter_csa: interleaved modular multiplication with carry-save adders: P = X*Y mod M.
//
// Amanor (2005), Algorithm 4 and Fig. 3 (after Bunimov and Schimmler), MSB first:
//   for i = N-1 downto 0:
//     S := 2*(S mod 2^N);  C := 2*(C mod 2^N);              (steps 3-6: routing)
//     (S, C) := CSA(S, C, x_i*Y);  (S, C) := CSA(S, C, 2A);  (steps 7-10: two CSAs)
//     A := (2 S_(N+1) + S_N + 2 C_(N+1) + C_N) * 2^N mod M   (step 11: table of k*2^N mod M)
//   P := (S + C) mod M                                        (step 12, done here in FIN)
// The table holds k*2^N mod M for k = 0..6, the register k_q holds the address of A for the
// next iteration (A = table[k_q] is read in the loop cycle, so k_q = 0 gives A = 0 at first).
//
// Normalisation: the thesis assumes M has exactly N bits. The bus accepts any odd M < 2^N, so
// the PRE cycle shifts M and Y left by z = N - bitlen(M): M' = M*2^z has its top bit set, Y' =
// Y*2^z < M', and X*Y' mod M' = 2^z * (X*Y mod M); FIN shifts the reduced result right by z.
// Everything below refers to M', Y'.
//
// Table (PRE cycles 1-6, one modular adder): a1 = 2^N mod M' = 2^N - M' (minus M' once more
// when M' = 2^(N-1)), ak = (a(k-1) + a1) mod M'. Entry 0 is 0.
//
// Widths and reachability (proved in docs/interleaved.md, checked by the model's assertions
// and exhaustive enumeration): S, C < 2^(N+2) (N+2 bits); S + C < 7*2^N after the loop, so
// k <= 6 as the thesis says; moreover S_(N+1) = 1 forces S_N = 0 or C_(N+1) = 0, so in fact
// k <= 5: entry 6 is never addressed (kept, as in the thesis; an illegal coverage bin).
//
// FIN (relaxed range): S + C < 7*2^N <= 14 M', so four conditional subtractions of 8M', 4M',
// 2M', M' (one restoring-division step each) give (S + C) mod M', then P = that >> z. S and C
// are kept as they are after the loop (S + C = P*2^z mod M', not reduced).
//
// Cycles: 1 (PRE: normalise) + 6 (PRE: a1..a6) + N (loop) + 1 (FIN) = N + 8.
`include "mv_core_ports.svh"

module inter_csa #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, table entry FaultAddr is read with its LSB flipped.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 1
) (
  `MV_CORE_SC_PORTS(N + 2)
);

  localparam int CntW     = $clog2(N + 1);
  localparam int TabSize  = 7;             // k*2^N mod M' for k = 0..6
  localparam int AddrW    = 3;
  localparam int PreLast  = TabSize - 1;   // PRE cycles 0..6
  localparam int RedW     = N + 2;         // S, C
  
  logic [N-1:0]     x_q;     // X shift register (u_regs): x_i is bit N-1 (MSB first)
  logic [N-1:0]     yn_q;    // Y' = Y*2^z
  logic [N-1:0]     mn_q;    // M' = M*2^z
  logic [CntW-1:0]  z_q;
  logic [TabSize-1:0][N-1:0] tab_q;
  logic [RedW-1:0]  s_q, c_q;
  logic [AddrW-1:0] k_q;     // address of A for the current iteration
  logic [CntW-1:0]  cnt;     // PRE step, then loop iteration (u_ctrl)
  logic             clear, load, pre, loop;

  // Normalisation (first PRE cycle): z, M' = M*2^z, Y' = Y*2^z; and 2^N mod M'
  logic [N-1:0] a1_new;
  /* verilator lint_off PINCONNECTEMPTY */
  inter_norm #(.N(N), .CntW(CntW)) u_norm (
    .clk_i, .rst_ni, .en_i(pre && cnt == '0), .m_i, .y_i, .z_new_o(), .z_o(z_q), .mn_o(mn_q),
    .yn_o(yn_q), .pow2_mod_o(a1_new));
  /* verilator lint_on PINCONNECTEMPTY */

  // PRE: the modular adder a(k-1) + a1

  logic [N:0]   madd_sum;
  logic [N-1:0] madd_res;
  assign madd_sum = {1'b0, tab_q[cnt[AddrW-1:0] - 1'b1]} + {1'b0, tab_q[1]};
  assign madd_res = (madd_sum >= {1'b0, mn_q}) ? N'(madd_sum - {1'b0, mn_q}) : N'(madd_sum);

  // Loop: the table value A (test-only fault flips the LSB of one entry)
  logic [N-1:0] a_val;
  logic         fault_hit;
  assign fault_hit = FaultEn && (k_q == AddrW'(FaultAddr));
  assign a_val     = tab_q[k_q] ^ N'(fault_hit);

  // Steps 3-6: S, C := 2*(S mod 2^N), 2*(C mod 2^N)
  logic [N:0] s_sh, c_sh, i_val, a2;
  assign s_sh  = {s_q[N-1:0], 1'b0};
  assign c_sh  = {c_q[N-1:0], 1'b0};
  assign i_val = {1'b0, x_q[N-1] ? yn_q : {N{1'b0}}};
  assign a2    = {a_val, 1'b0};

  // Step 9: CSA(S, C, x_i*Y); step 10: CSA(S, C, 2A)
  logic [N:0]      s1, maj1, maj2;
  logic [N+1:0]    c1;
  logic [RedW-1:0] s2, c2;
  assign s1   = s_sh ^ c_sh ^ i_val;
  assign maj1 = (s_sh & c_sh) | (s_sh & i_val) | (c_sh & i_val);
  assign c1   = {maj1, 1'b0};
  assign maj2 = (s1 & c1[N:0]) | (s1 & a2) | (c1[N:0] & a2);  // s1, a2 have no bit N+1
  assign s2   = {c1[N+1], s1 ^ c1[N:0] ^ a2};
  assign c2   = {maj2, 1'b0};

  // Step 11: k = S div 2^N + C div 2^N
  logic [AddrW-1:0] k_new;
  assign k_new = AddrW'(s2[N+1:N]) + AddrW'(c2[N+1:N]);

  // FIN: P = (S + C) mod M' >> z (four conditional subtractions)
  logic [N-1:0] p_fin;
  inter_fin #(.N(N), .SW(RedW), .CW(RedW), .CntW(CntW)) u_fin (
    .s_i(s_q), .c_i(c_q), .mn_i(mn_q), .z_i(z_q), .p_o(p_fin));

  // Control (IDLE, PRE: normalise and the table, N loop cycles, FIN) and observation: hits
  // per table address k in the last operation.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(N), .PreCycles(PreLast + 1), .CntW(CntW),
                 .ObsBins(TabSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(cnt),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(k_q), .obs_count1_i(1'b0), .obs_addr1_i(k_q), .obs_sub_taken_i(1'b0));
  /* verilator lint_on PINCONNECTEMPTY */

  // Steps 3-11: the loop's registers (X shifted left: MSB first) and the next address k
  mv_sc_regs #(.XW(N), .SW(RedW), .XLeft(1'b1)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .step_i(loop), .x_i, .s_i(s2), .c_i(c2),
    .x_o(x_q), .s_o(s_q), .c_o(c_q));
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      k_q <= '0;
    end else if (load) begin
      k_q <= '0;
    end else if (loop) begin
      k_q <= k_new;
    end
  end

  // The table registers (no reset: written in PRE before the loop reads them)
  always_ff @(posedge clk_i) begin
    if (pre) begin
      if (cnt == '0) begin
        tab_q[0] <= '0;
      end else if (cnt == CntW'(1)) begin
        tab_q[1] <= a1_new;
      end else begin
        tab_q[cnt[AddrW-1:0]] <= madd_res;
      end
    end
  end

  assign s_o = s_q;
  assign c_o = c_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md): the table address k in its reachable set, S + C bounded
  // after every iteration.
  // ---------------------------------------------------------------------------------------
`include "mv_assert.svh"
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 4, step 1 (A := 0: k = 0 in the first iteration) and step 11
  // (section 3.2: k = 0..6). S_(N+1) = 1 forces S_N = 0 or C_(N+1) = 0 (this header,
  // docs/interleaved.md), so k <= 5: entry 6 is never addressed (an illegal coverage bin).
  `ASSERT_IMPL(KFirstIter_A, loop && cnt == '0, k_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(KBelow6_A, loop, k_q <= AddrW'(5), clk_i, assert_off)
  // Steps 3-10: S + C = 2(S mod 2^N) + 2(C mod 2^N) + x_i Y' + 2A < 4 * 2^N + 3M' after
  // every iteration (docs/interleaved.md; the thesis' k <= 6 is S + C < 7 * 2^N), so FIN's
  // four conditional subtractions (inter_fin) reduce it fully.
  `ASSERT_SUM_BELOW(SumBound_A, $past(loop), s_q, c_q, ((N + 3)'(1) << (N + 2))
                    + (N + 3)'(mn_q) + ((N + 3)'(mn_q) << 1), N + 3, clk_i, assert_off)

endmodule
