// rsa_mont_mult: one modular multiplier of the RSA core, chosen by a build parameter.
//
// Michalski and Buell (2006), section 5.5 and Fig. 7 use two identical Montgomery multipliers
// in the RSA core; here the multiplier architecture is a parameter so that one exponentiation
// core compares the multipliers of this project. Mult = 0..3 compute P = X*Y*2^-N mod M,
// fully reduced, for X < 2^N and Y < M; Mult = 4 the same with its own ranges (mwrkmm's
// header); Mult = 5 computes X*Y*2^-r mod M, r = V (ceil(N/V) + 1), fully reduced only with
// Reduce = 1 (below); Mult = 6 is no Montgomery multiplier: P = X*Y mod M (R = 1); Mult = 7
// and 8 take and give carry-save pairs (below):
//   Mult = 0: mont_lut    (Amanor 2005, Algorithm 3)              N + 2 cycles
//   Mult = 1: mont_csa    (Amanor 2005, Algorithm 1b)             N + 1 cycles
//   Mult = 2: mont_csa_u2 (Gajbhiye 2018, Algorithm 1b unfolded)  ceil(N/2) + 1 cycles
//   Mult = 3: mont_lut_u2 (Gajbhiye 2018, Algorithm 3 unfolded)   ceil(N/2) + 2 cycles
//   Mult = 4: mwrkmm      (Michalski-Buell 2006, Algorithm 2; V, W, P, PeLatency)  R = 2^N
//   Mult = 5: mont_qp     (Jiang-Harris, quotient pipelined; V, W, P)   R = 2^(V (ceil(N/V)+1))
//   Mult = 6: inter_lut   (Amanor 2005, Algorithm 5, optimised interleaved)  N + 9 cycles
//   Mult = 7: mm42        (Gajbhiye 2018, MM42_Multiplier)  NH + 4 cycles, R = 2^(NH+2)
//   Mult = 8: mm42_u2     (Gajbhiye 2018, MM42 unfolded by 2)  ceil((NH+2)/2) + 2 cycles,
//                         R = 2^(2 ceil((NH+2)/2))
// Mult = 7, 8 (MM42: operands and result are carry-save pairs, which is why it exists: a
// product feeds the next one without a carry-propagate addition between them): x_i, y_i
// and p_o hold a pair {half 2, half 1}, each half NH = N / 2 bits (the core passes
// N = 2 (N_core + 1): every half is at most its pair's value, below 2M < 2^NH). p_o is the
// product's pair (S2, S1) as the loop leaves it, S1 + S2 < 2M, unreduced; s_o carries the
// multiplier's own reduced P (its FIN cycle: S1 + S2 minus M once), c_o = 0.
// The word-based multipliers take their reduction constant from mp_i: m' (its low W bits) for
// mwrkmm, M-hat for mont_qp (the host loads the one the build needs into MP).
// Reduce (mont_qp only): 0 builds it without its reducer, every product left in Orup's range
// (rsa_core's Lazy mode); the other multipliers always reduce (their P < M).
// The redundant S and C leave zero-extended to N + 2 bits (mont_csa keeps N-bit halves,
// inter_lut's C is N + 2 bits), so the testbench can recompute the final reduction of every
// product: one conditional subtraction of S + C for the Montgomery ones (S + C >= M), and
// (S + C) mod M for inter_lut (its FIN cycle's four subtractions); the word-based multipliers
// give their unreduced result (< 2M; mont_qp with Reduce = 0 its raw result) as S and C = 0.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module rsa_mont_mult #(
  parameter int N         = 32,
  parameter int Mult      = 0,
  parameter int V         = 16,  // mwrkmm / mont_qp only: word and digit widths, PEs
  parameter int W         = 16,
  parameter int P         = 1,
  parameter int PeLatency = 3,   // mwrkmm only: 3, or 4 (the subpipelined PE)
  parameter bit Reduce    = 1'b1,  // mont_qp only: 0 leaves every product unreduced
  // Test only: corrupt one table entry / selection of the chosen multiplier (its FaultAddr,
  // FaultSel for mont_csa; the quotient digit of PE FaultAddr mod P for mwrkmm / mont_qp).
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_SC_PORTS(N + 2),
  /* verilator lint_off UNUSEDSIGNAL */  // the bit-serial multipliers need no constant
  input  logic [N-1:0] mp_i     // m' = -M^-1 mod 2^N (mwrkmm) or M-hat (mont_qp)
  /* verilator lint_on UNUSEDSIGNAL */
);

  localparam int MultMontLut   = 0;
  localparam int MultMontCsa   = 1;
  localparam int MultMontCsaU2 = 2;
  localparam int MultMontLutU2 = 3;
  localparam int MultMwrkmm    = 4;
  localparam int MultMontQp    = 5;
  localparam int MultInterLut  = 6;
  localparam int MultMm42      = 7;
  localparam int MultMm42U2    = 8;
  localparam int NH            = N / 2;  // MM42: the halves of a pair
  localparam int FaultPe       = (P > 0) ? FaultAddr % P : 0;

  if (Mult == MultMontLut) begin : g_mont_lut
    logic [N:0] s, c;
    mont_lut #(
      .N        (N),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultAddr)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .busy_o, .last_o, .p_o, .s_o(s),
      .c_o(c)
    );
    assign s_o = {1'b0, s};
    assign c_o = {1'b0, c};
  end else if (Mult == MultMontCsa) begin : g_mont_csa
    logic [N-1:0] s, c;
    mont_csa #(
      .N       (N),
      .FaultEn (FaultEn),
      .FaultSel(FaultAddr)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .busy_o, .last_o, .p_o,
      .s_o(s), .c_o(c)
    );
    assign s_o = {2'b0, s};
    assign c_o = {2'b0, c};
  end else if (Mult == MultMontCsaU2) begin : g_mont_csa_u2
    logic [N-1:0] s, c;
    mont_csa_u2 #(
      .N        (N),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultAddr)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .busy_o, .last_o, .p_o,
      .s_o(s), .c_o(c)
    );
    assign s_o = {2'b0, s};
    assign c_o = {2'b0, c};
  end else if (Mult == MultMontLutU2) begin : g_mont_lut_u2
    logic [N:0] s, c;
    mont_lut_u2 #(
      .N        (N),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultAddr)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .busy_o, .last_o, .p_o, .s_o(s),
      .c_o(c)
    );
    assign s_o = {1'b0, s};
    assign c_o = {1'b0, c};
  end else if (Mult == MultMwrkmm) begin : g_mwrkmm
    logic [N:0] s;
    mwrkmm #(
      .N      (N),
      .V      (V),
      .W      (W),
      .P      (P),
      .PeLatency(PeLatency),
      .FaultEn(FaultEn),
      .FaultPe(FaultPe)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .mp_i(mp_i[W-1:0]), .busy_o,
      .last_o, .p_o, .s_o(s)
    );
    assign s_o = {1'b0, s};
    assign c_o = '0;
  end else if (Mult == MultMontQp) begin : g_mont_qp
    logic [N:0] s;
    mont_qp #(
      .N        (N),
      .V        (V),
      .W        (W),
      .P        (P),
      .Reduce   (Reduce),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultPe)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .mhat_i(mp_i), .busy_o, .last_o,
      .p_o, .s_o(s)
    );
    assign s_o = {1'b0, s};
    assign c_o = '0;
  end else if (Mult == MultInterLut) begin : g_inter_lut
    inter_lut #(
      .N        (N),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultAddr)
    ) u_mult (
      .clk_i, .rst_ni, .start_i, .clear_i, .x_i, .y_i, .m_i, .busy_o, .last_o, .p_o, .s_o, .c_o
    );
  end else if (Mult == MultMm42 || Mult == MultMm42U2) begin : g_mm42_pair
    // (the two MM42 multipliers share their pair wiring; each is its own generate block)
    logic [NH+1:0] s1, s2;  // the loop's pair: each half below 2M < 2^NH (header)
    logic [NH-1:0] p;       // S1 + S2 reduced (FIN)
    logic [NH-1:0] a1, a2, b1, b2, m_h;  // the operands' halves, M (below 2^NH)
    assign {a2, a1} = x_i;
    assign {b2, b1} = y_i;
    assign m_h      = m_i[NH-1:0];
    if (Mult == MultMm42) begin : g_mm42
      mm42 #(.N(NH), .FaultEn(FaultEn), .FaultAddr(FaultAddr % 4)) u_mult (
        .clk_i, .rst_ni, .start_i, .clear_i, .a1_i(a1), .a2_i(a2), .b1_i(b1), .b2_i(b2),
        .m_i(m_h), .busy_o, .last_o, .p_o(p), .s_o(s1), .c_o(s2));
    end else begin : g_mm42_u2
      mm42_u2 #(.N(NH), .FaultEn(FaultEn), .FaultAddr(FaultAddr % 4)) u_mult (
        .clk_i, .rst_ni, .start_i, .clear_i, .a1_i(a1), .a2_i(a2), .b1_i(b1), .b2_i(b2),
        .m_i(m_h), .busy_o, .last_o, .p_o(p), .s_o(s1), .c_o(s2));
    end
    assign p_o = {s2[NH-1:0], s1[NH-1:0]};
    assign s_o = (N + 2)'(p);
    assign c_o = '0;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [N-NH-1:0] unused_m;  // M < 2^NH: its upper half is 0
    assign unused_m = m_i[N-1:NH];
    /* verilator lint_on UNUSEDSIGNAL */

    // off in reset and in the first clock after it (mv_assert.svh)
    `MV_ASSERT_OFF(clk_i, rst_ni)
    // the header: each half of the result is below 2M < 2^NH, so the pair keeps it whole
    `ASSERT_IMPL(MultPairHalvesFit_A, last_o, s1[NH+1:NH] == '0 && s2[NH+1:NH] == '0, clk_i,
                 assert_off)
  end else begin : g_bad_mult
    initial $fatal(1, "rsa_mont_mult: Mult must be 0..8 (got %0d)", Mult);
  end

endmodule
