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
module inter_csa #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, table entry FaultAddr is read with its LSB flipped.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 1
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         start_i,
  input  logic         clear_i,
  input  logic [N-1:0] x_i,
  input  logic [N-1:0] y_i,
  input  logic [N-1:0] m_i,
  output logic         busy_o,
  output logic         last_o,  // high during the last busy cycle (FIN)
  output logic [N-1:0] p_o,
  output logic [N+1:0] s_o,
  output logic [N+1:0] c_o
);

  localparam int CntW     = $clog2(N + 1);
  localparam int TabSize  = 7;             // k*2^N mod M' for k = 0..6
  localparam int AddrW    = 3;
  localparam int PreLast  = TabSize - 1;   // PRE cycles 0..6
  localparam int RedW     = N + 2;         // S, C
  localparam int VW       = N + 3;         // S + C < 7*2^N

  logic [N-1:0]     x_q;     // X shift register: x_i is bit N-1 (MSB first)
  logic [N-1:0]     yn_q;    // Y' = Y*2^z
  logic [N-1:0]     mn_q;    // M' = M*2^z
  logic [CntW-1:0]  z_q;
  logic [TabSize-1:0][N-1:0] tab_q;
  logic [RedW-1:0]  s_q, c_q;
  logic [AddrW-1:0] k_q;     // address of A for the current iteration
  logic [N-1:0]     p_q;
  logic [CntW-1:0]  cnt;     // PRE step, then loop iteration (u_ctrl)
  logic             clear, load, pre, loop, fin;

  // Normalisation: z = number of leading zeros of M
  function automatic logic [CntW-1:0] lead_zeros(input logic [N-1:0] v);
    lead_zeros = CntW'(N);
    for (int i = 0; i < N; i++) begin
      if (v[i]) lead_zeros = CntW'(N - 1 - i);
    end
  endfunction

  logic [CntW-1:0] z_new;
  assign z_new = lead_zeros(m_i);

  // PRE: a1 = 2^N mod M' and the modular adder a(k-1) + a1
  logic [N:0]   pow2_diff;  // 2^N - M' <= 2^(N-1)
  logic [N-1:0] a1_new;
  assign pow2_diff = {1'b1, {N{1'b0}}} - {1'b0, mn_q};
  assign a1_new    = (pow2_diff >= {1'b0, mn_q}) ? N'(pow2_diff - {1'b0, mn_q}) : N'(pow2_diff);

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

  // FIN: V = S + C, four conditional subtractions (8M', 4M', 2M', M'), shift back by z
  logic [VW-1:0] v0, v1, v2, v3, v4, mv8, mv4, mv2, mv1;
  assign mv8 = VW'(mn_q) << 3;
  assign mv4 = VW'(mn_q) << 2;
  assign mv2 = VW'(mn_q) << 1;
  assign mv1 = VW'(mn_q);
  assign v0  = VW'(s_q) + VW'(c_q);
  assign v1  = (v0 >= mv8) ? v0 - mv8 : v0;
  assign v2  = (v1 >= mv4) ? v1 - mv4 : v1;
  assign v3  = (v2 >= mv2) ? v2 - mv2 : v2;
  assign v4  = (v3 >= mv1) ? v3 - mv1 : v3;
  logic [N-1:0] p_fin;
  assign p_fin = v4[N-1:0] >> z_q;
  // v4 < M' < 2^N: its top bits are 0
  /* verilator lint_off UNUSEDSIGNAL */
  logic [VW-N-1:0] v4_top;
  assign v4_top = v4[VW-1:N];
  /* verilator lint_on UNUSEDSIGNAL */

  // Control (IDLE, PRE: normalise and the table, N loop cycles, FIN) and observation: hits
  // per table address k in the last operation.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.LoopCycles(N), .PreCycles(PreLast + 1), .CntW(CntW), .ObsBins(TabSize))
      u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .clear_o(clear), .load_o(load), .pre_o(pre),
    .loop_o(loop), .last_loop_o(), .fin_o(fin), .cnt_o(cnt), .busy_o, .last_o,
    .obs_addr0_i(k_q), .obs_count1_i(1'b0), .obs_addr1_i(k_q), .obs_sub_taken_i(1'b0));
  /* verilator lint_on PINCONNECTEMPTY */

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {x_q, yn_q, mn_q, z_q, s_q, c_q, k_q, p_q} <= '0;
    end else if (clear) begin
      {x_q, s_q, c_q, p_q} <= '0;
    end else if (load) begin
      x_q <= x_i;
      s_q <= '0;
      c_q <= '0;
      k_q <= '0;
    end else if (pre) begin
      if (cnt == '0) begin
        z_q  <= z_new;
        mn_q <= m_i << z_new;
        yn_q <= y_i << z_new;
      end
    end else if (loop) begin
      s_q <= s2;
      c_q <= c2;
      k_q <= k_new;
      x_q <= x_q << 1;
    end else if (fin) begin
      p_q <= p_fin;
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

  assign p_o = p_q;
  assign s_o = s_q;
  assign c_o = c_q;

endmodule
