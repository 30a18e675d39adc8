// mont_qp_pe: one processing element of the quotient-pipelined very-high-radix scalable
// Montgomery multiplier (Jiang and Harris, Fig. 3 and Fig. 5; Orup 1995, d = 1).
//
// One PE runs one iteration i of Fig. 3 over the e words of Z, one word per clock, with a
// latency of two clocks (one PE cycle):
//   clock T + j     word j of Z (and of Y, M-hat, and reduce_prev x M-hat) arrives
//   clock T + j + 1 the shifted word (Z^(j+1)_(v-1:0), Z^j_(w-1:v)) (word j+1 is still on
//                   the input), oldreduce x M-hat^j and X^i x Y^j go through one
//                   carry-save adder; the redundant result is stored (Fig. 5: multiplier +
//                   CSA in the first clock)
//   clock T + j + 2 the carry-propagate adder resolves it with the carry digit C of word
//                   j-1: (C, Z'^j) = S + C_csa + C; Z'^j and reduce x M-hat^j leave for
//                   the next PE, which holds them in its input register
// reduce = Z^0_(v-1:0) is taken from the first input word. Its product with M-hat is
// computed here and handed to the next PE, which adds it one iteration later: the quotient
// is pipelined by one PE (the "oldreduce" of Fig. 3), and the product is formed one PE
// ahead of its use (section IV.A). The two v x w products are the DSP multipliers of the
// paper (`*` on small words). The last word uses Z^e = 0 for its upper v bits, so the next
// iteration's first word may arrive in the same clock (no bubble in Case I).
//
// Assertions (docs/formal.md): the carry digit C fits its v + 1 bits. The word and iteration
// counters of each PE's stream are checked in mont_qp, which knows e and the kernel cycles.
`include "mv_assert.svh"

module mont_qp_pe #(
  parameter int V       = 8,
  parameter int W       = 16,
  parameter bit FaultEn = 1'b0  // test only: flip bit 0 of this PE's reduce
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           clear_i,     // an operation starts (or CLEAR): empty the PE
  // word stream from the previous PE (or the sequencer / queue)
  input  logic           in_v_i,
  input  logic           in_first_i,  // word 0 of an iteration
  input  logic           in_last_i,   // word e-1
  input  logic           in_fin_i,    // the final kernel cycle
  input  logic [W-1:0]   z_i,
  input  logic [V+W-1:0] mq_i,        // oldreduce x M-hat^j (from the previous PE)
  input  logic [W-1:0]   y_i,
  input  logic [W-1:0]   mh_i,
  input  logic [V-1:0]   x_i,         // this PE's digit X^i, taken with word 0
  // word stream to the next PE
  output logic           out_v_o,
  output logic           out_first_o,
  output logic           out_last_o,
  output logic           out_fin_o,
  output logic [W-1:0]   z_o,
  output logic [V+W-1:0] mq_o,        // reduce x M-hat^j
  output logic [W-1:0]   y_o,
  output logic [W-1:0]   mh_o,
  output logic [V-1:0]   q_o,         // this iteration's reduce
  // observation: a word step in this clock and whether its carry digit is non-zero
  output logic           step_o,
  output logic           carry_nz_o
);

  localparam int SumW = V + W + 1;  // shifted word + two v x w products + C < 2^(v+w+1)
  localparam int CW   = V + 1;      // the (v+1)-bit carry digit C

  // cycle 1 input: word j held while word j+1 is on the input
  logic           hv_q, hfirst_q, hlast_q, hfin_q;
  logic [W-1:0]   z_q, y_q, mh_q;
  logic [V+W-1:0] mq_q;
  logic [V-1:0]   x_q, q_q;
  // cycle 2 input: the CSA result in redundant form and what travels with it
  logic            rv_q, rfirst_q, rlast_q, rfin_q;
  logic [V+W-1:0]  rs_q;
  logic [SumW-1:0] rc_q;
  logic [W-1:0]    ry_q, rmh_q;
  logic [V+W-1:0]  rmq_q;
  logic [CW-1:0]   c_q;

  // cycle 1: shift, the two v x w products, one carry-save adder
  logic [W-1:0]   upper;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*W-1:0] pair;  // {Z^(j+1), Z^j}: bits below v and above v+w-1 are not used
  /* verilator lint_on UNUSEDSIGNAL */
  logic [V+W-1:0] shifted, prod_xy, prod_qm, csa_s, csa_c;
  assign upper   = hlast_q ? '0 : z_i;
  assign pair    = {upper, z_q};
  assign shifted = (V + W)'(pair[V +: W]);
  assign prod_xy = (V + W)'(x_q) * (V + W)'(y_q);   // X^i x Y^j
  assign prod_qm = (V + W)'(q_q) * (V + W)'(mh_q);  // reduce x M-hat^j for the next PE
  assign csa_s   = shifted ^ mq_q ^ prod_xy;
  assign csa_c   = (shifted & mq_q) | (shifted & prod_xy) | (mq_q & prod_xy);  // weight x2

  // cycle 2: the carry-propagate adder resolves S + C and the carry digit of the last word
  logic [SumW-1:0] sum;
  logic [CW-1:0]   c_in;
  assign c_in = rfirst_q ? '0 : c_q;
  assign sum  = SumW'(rs_q) + rc_q + SumW'(c_in);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hv_q <= 1'b0; hfirst_q <= 1'b0; hlast_q <= 1'b0; hfin_q <= 1'b0;
      z_q <= '0; y_q <= '0; mh_q <= '0; mq_q <= '0; x_q <= '0; q_q <= '0;
      rv_q <= 1'b0; rfirst_q <= 1'b0; rlast_q <= 1'b0; rfin_q <= 1'b0;
      rs_q <= '0; rc_q <= '0; ry_q <= '0; rmh_q <= '0; rmq_q <= '0; c_q <= '0;
    end else if (clear_i) begin
      hv_q <= 1'b0; hfirst_q <= 1'b0; hlast_q <= 1'b0; hfin_q <= 1'b0;
      z_q <= '0; y_q <= '0; mh_q <= '0; mq_q <= '0; x_q <= '0; q_q <= '0;
      rv_q <= 1'b0; rfirst_q <= 1'b0; rlast_q <= 1'b0; rfin_q <= 1'b0;
      rs_q <= '0; rc_q <= '0; ry_q <= '0; rmh_q <= '0; rmq_q <= '0; c_q <= '0;
    end else begin
      // capture the input word (the held word's step uses the old x_q / q_q this clock)
      hv_q     <= in_v_i;
      hfirst_q <= in_v_i && in_first_i;
      hlast_q  <= in_v_i && in_last_i;
      hfin_q   <= in_v_i && in_fin_i;
      if (in_v_i) begin
        z_q  <= z_i;
        y_q  <= y_i;
        mh_q <= mh_i;
        mq_q <= mq_i;
        if (in_first_i) begin
          x_q <= x_i;
          q_q <= z_i[V-1:0] ^ V'(FaultEn);  // reduce = Z^0 (FaultEn: corrupted)
        end
      end
      // cycle 1 of the held word: CSA result stored for the CPA
      rv_q     <= hv_q;
      rfirst_q <= hv_q && hfirst_q;
      rlast_q  <= hv_q && hlast_q;
      rfin_q   <= hv_q && hfin_q;
      if (hv_q) begin
        rs_q  <= csa_s;
        rc_q  <= {csa_c, 1'b0};
        ry_q  <= y_q;
        rmh_q <= mh_q;
        rmq_q <= prod_qm;
      end
      // cycle 2: keep the carry digit for the next word
      if (rv_q) begin
        c_q <= sum[SumW-1:W];
      end
    end
  end

  // the word leaves during cycle 2 (the next PE holds it in its input register)
  assign out_v_o     = rv_q;
  assign out_first_o = rfirst_q;
  assign out_last_o  = rlast_q;
  assign out_fin_o   = rfin_q;
  assign z_o         = sum[W-1:0];
  assign mq_o        = rmq_q;
  assign y_o         = ry_q;
  assign mh_o        = rmh_q;
  assign q_o         = q_q;
  assign step_o      = rv_q;
  assign carry_nz_o  = |sum[SumW-1:W];

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Jiang-Harris, Fig. 3: (C, Z^j) = shifted word + oldreduce x M-hat^j + X^i x Y^j + C with
  // C the (v+1)-bit carry digit: the CPA's sum fits w + v + 1 bits (nothing is lost above C).
  `ASSERT_IMPL(QpPeCarryFits_A, rv_q, ((SumW + 1)'(rs_q) + (SumW + 1)'(rc_q)
               + (SumW + 1)'(c_in)) >> SumW == '0, clk_i, assert_off)

endmodule
