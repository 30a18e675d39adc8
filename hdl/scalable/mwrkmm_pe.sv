// mwrkmm_pe: one processing element of the MWRkMM array, latency 3 or 4 (Latency), with
// one of two addition units (Adder).
//
// Michalski-Buell (2006), Algorithm 2 and sections 4, 5.1, 5.2. The PE takes one W-bit digit
// x_i of X per job and the V-bit words of Y, M and S one per clock. Its three states:
//   A: u' = m' S(0) mod 2^W on the u'M multiplier (S(0) straight from the previous PE),
//      overlapped with step j = n-1 of the previous job (M(n-1) = 0: no u'M product);
//   B: step j = 0: (Cum, Pum(0)) = u' M(0), (Cmod, Smod(0)) = S(0) + Pum(0), overlapped with
//      step j = n of the previous job (Y(n-1) = 0: no xY product, only the carries);
//   C: steps j = 1 .. n-2: (Cum, Pum(j)) = u' M(j); (Cmod, Smod(j)) = Cmod + S(j) + Cum + Pum(j);
//      S'(j-1) = (Smod(j)_{W-1:0}, Smod(j-1)_{V-1:W}) (the division by 2^W);
//      (Cxy, Pxy(j-1)) = x_i Y(j-1) (Y delayed one clock); (Cadd, S(j-1)) = S'(j-1) + Pxy(j-1)
//      + Cxy + Cadd, registered as the next PE's S word.
// Two multipliers (u'M and xY, W x V: the FPGA's DSP multiplier, written as `*`) serve the
// three products. The S words leave at T + 3 + j for a job whose state A is at T: the next PE
// runs the next digit three clocks later (latency 3).
// Latency = 4 is the paper's subpipelined PE (section 7: "a pipeline stage after the PE
// multiplier output to improve critical path timing"): both products are registered, and the
// adders (with the S word, the step flags and their carries) work one clock after the
// multipliers; the multiplier side keeps its clocks (u' is still taken straight from the
// m' S(0) product in state A), the S words leave one clock later, at T + 4 + j, and the next
// PE runs four clocks later. The critical path ends at the product register instead of going
// on through both adders.
//
// The addition unit (Adder; both give every S word in the same clock: the words are the
// radix-2^V digits of the same value, and digits are unique):
//   0: the recurrences as written, two carry-propagate adders one after the other. Cmod and
//      Cadd are at most 2 (eq. 12).
//   1: section 5.2's unit: "a combination of carry-save carry-propagate architectures ... for
//      the addition of five inputs", one carry-save tree and one carry-propagate adder. Figs.
//      5 and 6 are not in our copy of the paper: this datapath is our reading of the text
//      (docs/scalable.md, "The carry-save addition unit"):
//      R (the reduction, carry-save): one row of 3:2 compressors over S(j), Pum(j) and Cum:
//        Ra(j) = S ^ Pum ^ Cum, and the majority shifted left one place, whose bit V
//        (weight 2^V) is registered as k(j+1) and enters the next clock's word at bit 0, the
//        place the shift frees: Rb(j) = {maj[V-2:0], k(j)} (k(0) = 0). No carry propagates,
//        Cmod is never formed, and sum_j (Ra(j) + Rb(j)) 2^(Vj) = sum_j Smod(j) 2^(Vj):
//        the value is the same, only its digits are not resolved.
//      alignment (the division by 2^W, section 5.2: "a portion of the output registered and
//        combined with the previous clock's shifted result"), bit for bit on each vector:
//        A(j-1) = (Ra(j)_{W-1:0}, Ra(j-1)_{V-1:W}), B(j-1) = (Rb(j)_{W-1:0}, Rb(j-1)_{V-1:W}).
//        The split is by bit position, so the words keep the value; only the low W bits of
//        word 0 leave it. u' makes Smod(0) = 0 mod 2^W, so Ra(0)_{W-1:0} + Rb(0)_{W-1:0}
//        (two W-bit numbers, each below 2^W) is 0 or exactly 2^W: it is 0 only when both are
//        0, and the carry into bit W is z = OR(Ra(0)_{W-1:0} | Rb(0)_{W-1:0}), registered in
//        state B and added at step j = 1 (PeWord0Carry_A checks the low bits of the sum are
//        zero and its carry is z). Then sum_j (A(j) + B(j)) 2^(Vj) + z = sum_j S'(j) 2^(Vj).
//      X (the S + xY addition): A(j-1) + B(j-1) + Pxy(j-1) + Cxy + Cin, Cin = Cadd (the CPA's
//        carry of the previous word), or z at j = 1 (where Cadd is 0): two rows of 3:2
//        compressors, (A, B, Pxy) and then (sum, carry, Cxy). Five inputs below bit W (Cxy is
//        W bits) and three above it, as section 5.2 says ("reduces to three inputs when the
//        current bit position i is greater than the carry word width w"). Cin takes no
//        adder: its bit 1 (weight 2) is bit 0 of both shifted carry vectors, its bit 0 the
//        CPA's carry in. The one CPA: (Cadd, S(j-1)) = sum + carry + Cin_0, in V + 3 bits.
//      The carry bound (eq. 12 with more terms): A, B and Pxy are below 2^V, Cxy below 2^W
//        <= 2^V, so with Cin <= c, 4 (2^V - 1) + c = c 2^V + (2^V - 1) holds for c = 3
//        (eq. 12's three terms give 2): Cadd <= 3, still two bits; the CPA's bit V + 2 stays
//        zero (PeCpaCarryBelow4_A).
//
// Assertions (docs/formal.md): the job counter in range and stepping one job at a time;
// Adder 0: Cmod and Cadd at most 2; Adder 1: the word-0 carry, the CPA's carry at most 3.
`include "mv_assert.svh"

module mwrkmm_pe #(
  parameter int V       = 8,
  parameter int W       = 8,
  parameter int Jobs    = 1,     // digits of X this PE processes (digits k, k + P, ...)
  parameter int Latency = 3,     // 3, or 4: a register after each multiplier (subpipelined)
  parameter int Adder   = 0,     // 0: two carry-propagate adders; 1: section 5.2's CSA + CPA
  parameter bit FaultEn = 1'b0   // test only: flip bit 0 of every u' of this PE
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              load_i,       // operation start: zero the state, load the digits
  input  logic [Jobs*W-1:0] xdig_i,       // digit r is x_(rP + k)
  input  logic [W-1:0]      mp_i,         // m' = -M^-1 mod 2^W
  // token {a (the state-A marker), valid, first (j = 0), last (j = n - 2), Y(j), M(j)}
  input  logic [2*V+3:0]    tok_i,
  input  logic [V-1:0]      s_i,          // S words of the previous job (previous PE)
  // the same token Latency clocks later (only in jobs this PE accepted), and the S words of
  // this PE's job
  output logic [2*V+3:0]    tok_o,
  output logic [V-1:0]      s_o,
  // observation: a word of S leaves in this clock; a carry out of this step is non-zero
  // (Adder 0: Cmod or Cadd; Adder 1: k or Cadd)
  output logic              step_o,
  output logic              carry_nz_o
);

  localparam int CW   = 2;                  // Cmod, Cadd <= 2 (Adder 0); Cadd <= 3 (Adder 1)
  localparam int JobW = $clog2(Jobs + 1);
  localparam int Dly  = Latency;            // PE latency: token delay to the next PE
  localparam int TokW = 4 + 2 * V;
  localparam int PW   = V + W;              // product width
  localparam int AW   = V + CW;             // adder width (Adder 0)

  // off in reset and in the first clock after it (mv_assert.svh); the addition units'
  // assertions sit in their generate blocks
  `MV_ASSERT_OFF(clk_i, rst_ni)

  logic [Jobs*W-1:0] xdig_q;
  logic [JobW-1:0]   jobs_q;
  logic              live_q;
  logic [W-1:0]      u_q, x_q;
  logic [V-1:0]      y_prev_q, sin_q, s_q;
  logic [W-1:0]      cum_q, cxy_q;
  logic              t1_q, t2_q;            // steps j = n-1 and j = n of the job

  logic         tok_a, tok_valid, tok_first, tok_last;
  logic [V-1:0] tok_y, tok_m;
  assign {tok_a, tok_valid, tok_first, tok_last, tok_y, tok_m} = tok_i;

  logic a_act, tok_act, b_act, w_act;
  assign a_act   = tok_a && (jobs_q != JobW'(Jobs));
  assign tok_act = tok_valid && live_q;
  assign b_act   = tok_act && tok_first;
  assign w_act   = tok_act && !tok_first;

  // u'M multiplier, shared with u' = m' S(0) in state A
  logic [W-1:0]  mul1_a;
  logic [V-1:0]  mul1_b;
  logic [PW-1:0] prod1;
  logic [W-1:0]  u_new;
  assign mul1_a = a_act ? mp_i : u_q;
  assign mul1_b = a_act ? V'(s_i[W-1:0]) : tok_m;
  assign prod1  = PW'(mul1_a) * PW'(mul1_b);
  assign u_new  = prod1[W-1:0] ^ W'(FaultEn);

  // xY multiplier (Y delayed one clock)
  logic [PW-1:0] prod2;
  assign prod2 = PW'(x_q) * PW'(y_prev_q);

  // The adder side: the products, the S word and the step flags as the adders see them,
  // straight (Latency 3) or one clock later (Latency 4, the subpipelined PE)
  logic          b_s, w_s, t1_s, t2_s, out_act;
  logic [V-1:0]  sin_s;
  logic [PW-1:0] prod1_s, prod2_s;
  if (Latency == 4) begin : g_subpipe
    logic          b_d, w_d, t1_d, t2_d;
    logic [V-1:0]  sin_d;
    logic [PW-1:0] prod1_d, prod2_d;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        {b_d, w_d, t1_d, t2_d} <= '0;
        sin_d                  <= '0;
        prod1_d                <= '0;
        prod2_d                <= '0;
      end else if (load_i) begin
        {b_d, w_d, t1_d, t2_d} <= '0;
        sin_d                  <= '0;
        prod1_d                <= '0;
        prod2_d                <= '0;
      end else begin
        {b_d, w_d, t1_d, t2_d} <= {b_act, w_act, t1_q, t2_q};
        sin_d                  <= sin_q;
        prod1_d                <= prod1;
        prod2_d                <= prod2;
      end
    end
    assign {b_s, w_s, t1_s, t2_s} = {b_d, w_d, t1_d, t2_d};
    assign sin_s   = sin_d;
    assign prod1_s = prod1_d;
    assign prod2_s = prod2_d;
  end else begin : g_direct
    assign {b_s, w_s, t1_s, t2_s} = {b_act, w_act, t1_q, t2_q};
    assign sin_s   = sin_q;
    assign prod1_s = prod1;
    assign prod2_s = prod2;
  end
  assign out_act = w_s || t1_s || t2_s;

  logic [V-1:0] pum;
  logic [W-1:0] cum_next;
  assign pum      = (b_s || w_s) ? prod1_s[V-1:0] : '0;   // M(n-1) = 0 at step n-1
  assign cum_next = (b_s || w_s) ? prod1_s[PW-1:V] : '0;

  logic [PW-1:0] pxy;
  assign pxy = t2_s ? '0 : prod2_s;                          // Y(n-1) = 0 at step n

  // The addition unit: the next S word (registered below when a word leaves) and whether a
  // carry out of this step is non-zero (observation)
  logic [V-1:0] s_next;
  logic         carry_nz;
  if (Adder == 0) begin : g_cpa2
    // Smod(j-1): its low W bits went into S'(j-2) (or were zero for j-1 = 0); all unused if
    // W = V
    /* verilator lint_off UNUSEDSIGNAL */
    logic [V-1:0]  smod_prev_q;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [CW-1:0] cmod_q, cadd_q;

    // reduction adder: (Cmod, Smod(j)) = Cmod + S(j) + Cum + Pum(j)
    logic [AW-1:0] smod_full, smod_t2;
    assign smod_full = AW'(sin_s) + AW'(pum) + (b_s ? '0 : AW'(cum_q))
                     + (b_s ? '0 : AW'(cmod_q));
    assign smod_t2   = AW'(cmod_q) + AW'(cum_q);             // step n: S(n) = M(n) = 0

    // Smod(j): only its low W bits enter S'(j-1) now (the rest next clock via smod_prev_q)
    /* verilator lint_off UNUSEDSIGNAL */
    logic [V-1:0] smod_cur;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [V-1:0] shifted;
    assign smod_cur = t2_s ? smod_t2[V-1:0] : smod_full[V-1:0];
    if (W >= V) begin : g_shift_word  // W > V is illegal (mwrkmm stops at elaboration)
      assign shifted = smod_cur;
    end else begin : g_shift_split
      assign shifted = {smod_cur[W-1:0], smod_prev_q[V-1:W]};
    end

    // the S + xY adder
    logic [AW-1:0] snew;
    assign snew = AW'(shifted) + AW'(pxy[V-1:0]) + AW'(cxy_q) + AW'(cadd_q);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        smod_prev_q <= '0;
        cmod_q      <= '0;
        cadd_q      <= '0;
      end else if (load_i) begin
        smod_prev_q <= '0;
        cmod_q      <= '0;
        cadd_q      <= '0;
      end else if (b_s) begin               // state B: a new job's first word
        cmod_q      <= smod_full[AW-1:V];
        smod_prev_q <= smod_full[V-1:0];
        cadd_q      <= '0;
      end else if (w_s || t1_s) begin       // state C and step n-1
        cmod_q      <= smod_full[AW-1:V];
        smod_prev_q <= smod_full[V-1:0];
        cadd_q      <= snew[AW-1:V];
      end
    end

    assign s_next   = snew[V-1:0];
    assign carry_nz = t2_s ? ((smod_t2[AW-1:V] != '0) || (snew[AW-1:V] != '0))
                           : ((smod_full[AW-1:V] != '0) || (snew[AW-1:V] != '0));

    // Eq. (12): three V-bit terms and a carry, 3(2^V - 1) + carry = carry 2^V + (2^V - 1),
    // hold for carry = 2: Cmod and Cadd are at most 2 (two bits).
    `ASSERT(PeCarryBelow3_A, cmod_q <= CW'(2) && cadd_q <= CW'(2), clk_i, assert_off)
  end else begin : g_csa
    localparam int TW = V + 3;              // the tree's vectors and the CPA (the header)

    // R: S(j) + Pum(j) + Cum in carry-save form (one row of 3:2 compressors). In state B
    // (word 0) the carries belong to the previous job: Cum = 0 and k(0) = 0.
    logic [V-1:0] red_cum, red_sum, red_maj;
    logic [V:0]   red_car;                  // {k(j+1), Rb(j)}
    logic         k_q;                      // k(j): bit V of the previous word's carry vector
    assign red_cum = b_s ? '0 : V'(cum_q);
    assign red_sum = sin_s ^ pum ^ red_cum;
    assign red_maj = (sin_s & pum) | (sin_s & red_cum) | (pum & red_cum);
    assign red_car = {red_maj, b_s ? 1'b0 : k_q};

    // word j's vectors; at step n (S(n) = M(n) = 0) they are Cum and k alone: the word of
    // the previous job that state B's clock finishes beside the new job's word 0. Only their
    // low W bits enter A(j-1), B(j-1) now (the rest next clock via ra_prev_q, rb_prev_q).
    /* verilator lint_off UNUSEDSIGNAL */
    logic [V-1:0] ra_cur, rb_cur;
    /* verilator lint_on UNUSEDSIGNAL */
    assign ra_cur = t2_s ? V'(cum_q) : red_sum;
    assign rb_cur = t2_s ? V'(k_q) : red_car[V-1:0];

    // alignment: the division by 2^W on each vector, bit for bit
    // Ra(j-1), Rb(j-1): their low W bits went into A(j-2), B(j-2) (or out of the value:
    // word 0); all unused if W = V
    /* verilator lint_off UNUSEDSIGNAL */
    logic [V-1:0] ra_prev_q, rb_prev_q;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [V-1:0] al_a, al_b;
    if (W >= V) begin : g_shift_word  // W > V is illegal (mwrkmm stops at elaboration)
      assign al_a = ra_cur;
      assign al_b = rb_cur;
    end else begin : g_shift_split
      assign al_a = {ra_cur[W-1:0], ra_prev_q[V-1:W]};
      assign al_b = {rb_cur[W-1:0], rb_prev_q[V-1:W]};
    end

    // word 0's low W bits sum to 0 or 2^W (the header): the carry into bit W is their OR
    logic z_new, z_q;
    assign z_new = |(red_sum[W-1:0] | red_car[W-1:0]);

    // X: A + B + Pxy, then + Cxy (two rows of 3:2 compressors), Cin = Cadd or z (j = 1)
    logic [CW-1:0] cadd_q, cin;
    // (a majority has no bit at V or above: two of its three terms are below 2^V)
    /* verilator lint_off UNUSEDSIGNAL */
    logic [TW-1:0] maj1, maj2;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [TW-1:0] x_a, x_b, x_p, x_c, sum1, car1, sum2, car2, cpa;
    assign cin  = cadd_q | CW'(z_q);
    assign x_a  = TW'(al_a);
    assign x_b  = TW'(al_b);
    assign x_p  = TW'(pxy[V-1:0]);
    assign x_c  = TW'(cxy_q);
    assign sum1 = x_a ^ x_b ^ x_p;
    assign maj1 = (x_a & x_b) | (x_a & x_p) | (x_b & x_p);
    assign car1 = {maj1[TW-2:0], cin[1]};
    assign sum2 = sum1 ^ car1 ^ x_c;
    assign maj2 = (sum1 & car1) | (sum1 & x_c) | (car1 & x_c);
    assign car2 = {maj2[TW-2:0], cin[1]};
    // the one carry-propagate adder: (Cadd, S(j-1))
    assign cpa  = sum2 + car2 + TW'(cin[0]);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        ra_prev_q <= '0;
        rb_prev_q <= '0;
        k_q       <= 1'b0;
        z_q       <= 1'b0;
        cadd_q    <= '0;
      end else if (load_i) begin
        ra_prev_q <= '0;
        rb_prev_q <= '0;
        k_q       <= 1'b0;
        z_q       <= 1'b0;
        cadd_q    <= '0;
      end else if (b_s) begin               // state B: a new job's first word
        ra_prev_q <= red_sum;
        rb_prev_q <= red_car[V-1:0];
        k_q       <= red_car[V];
        z_q       <= z_new;
        cadd_q    <= '0;
      end else if (w_s || t1_s) begin       // state C and step n-1
        ra_prev_q <= red_sum;
        rb_prev_q <= red_car[V-1:0];
        k_q       <= red_car[V];
        z_q       <= 1'b0;
        cadd_q    <= cpa[V+1:V];
      end
    end

    assign s_next   = cpa[V-1:0];
    assign carry_nz = (!t2_s && red_car[V]) || (cpa[TW-1:V] != '0);

    // Word 0 (state B): the low W bits of Ra(0) + Rb(0) are zero (u' = m' S(0) mod 2^W) and
    // the carry out of them is z, their OR.
    `ASSERT_IMPL(PeWord0Carry_A, b_s,
                 ((W+1)'(red_sum[W-1:0]) + (W+1)'(red_car[W-1:0])) == ((W+1)'(z_new) << W),
                 clk_i, assert_off)
    // z rides on Cin only where Cadd is zero (step 1: state B cleared it)
    `ASSERT_IMPL(PeWord0CarryAlone_A, z_q, cadd_q == '0, clk_i, assert_off)
    // Eq. (12) with four V-bit terms (the header): the CPA's carry is at most 3, its bit
    // V + 2 zero, in every clock a word leaves.
    `ASSERT_IMPL(PeCpaCarryBelow4_A, out_act, cpa[TW-1:V] <= 3'd3, clk_i, assert_off)
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      xdig_q   <= '0;
      jobs_q   <= '0;
      live_q   <= 1'b0;
      u_q      <= '0;
      x_q      <= '0;
      y_prev_q <= '0;
      sin_q    <= '0;
      s_q      <= '0;
      cum_q    <= '0;
      cxy_q    <= '0;
      t1_q     <= 1'b0;
      t2_q     <= 1'b0;
    end else if (load_i) begin
      xdig_q   <= xdig_i;
      jobs_q   <= '0;
      live_q   <= 1'b0;
      u_q      <= '0;
      x_q      <= '0;
      y_prev_q <= '0;
      sin_q    <= '0;
      s_q      <= '0;
      cum_q    <= '0;
      cxy_q    <= '0;
      t1_q     <= 1'b0;
      t2_q     <= 1'b0;
    end else begin
      sin_q <= s_i;
      t1_q  <= tok_act && tok_last;
      t2_q  <= t1_q;
      if (a_act) begin
        u_q    <= u_new;
        jobs_q <= jobs_q + 1'b1;
        live_q <= 1'b1;
      end else if (tok_act && tok_last) begin
        live_q <= 1'b0;
      end
      // the multiplier side: a new job's digit in state B, Y delayed one clock
      if (b_act) begin
        x_q      <= xdig_q[W-1:0];
        xdig_q   <= xdig_q >> W;
      end
      if (b_act || w_act || t1_q) begin
        y_prev_q <= tok_y;
      end
      // the adder side: the S word, the multipliers' carries (the addition unit keeps its own)
      if (out_act) begin
        s_q <= s_next;
      end
      if (b_s) begin                        // state B: a new job's first word
        cum_q <= cum_next;
        cxy_q <= '0;
      end else if (w_s || t1_s) begin       // state C and step n-1
        cum_q <= cum_next;
        cxy_q <= pxy[PW-1:V];
      end
    end
  end

  // Token pipeline to the next PE (only the tokens of jobs this PE accepted)
  scalable_delay #(
    .Width(TokW),
    .Depth(Dly)
  ) u_tok (
    .clk_i,
    .rst_ni,
    .clear_i(load_i),
    .d_i    ({a_act, tok_act, tok_first, tok_last, tok_y, tok_m}),
    .q_o    (tok_o)
  );

  assign s_o        = s_q;
  assign step_o     = out_act;
  assign carry_nz_o = carry_nz;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // The job counter (Michalski-Buell 2006, section 5: digit j = rP + k on PE k): at most
  // Jobs jobs per operation, one more per state A, none outside a job.
  `ASSERT(PeJobsInRange_A, int'(jobs_q) <= Jobs, clk_i, assert_off)
  `ASSERT_IMPL(PeJobsStep_A, !$past(load_i), jobs_q == $past(jobs_q) + JobW'($past(a_act)),
               clk_i, assert_off)
  `ASSERT_IMPL(PeLiveInJob_A, live_q || t1_q || t2_q, jobs_q != '0, clk_i, assert_off)
  `ASSERT_INIT(PeLatency_A, Latency == 3 || Latency == 4)
  `ASSERT_INIT(PeAdder_A, Adder == 0 || Adder == 1)

endmodule
