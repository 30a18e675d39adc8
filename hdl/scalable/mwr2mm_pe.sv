// mwr2mm_pe: one processing element of the MWR2MM systolic array.
//
// Michalski-Buell (2006), Algorithm 1 (Tenca-Koc MWR2MM): the PE takes one bit x_i of X per
// job and one W-bit word j of Y, M and S per clock (word 0 first). Word 0 decides the
// reduction bit q = (S(0) + x_i Y(0))_0; every word then computes
//   (C, S(j)) = C + x_i Y(j) + q M(j) + S(j)        (C: two bits, at most 2)
// and emits the right-shifted word S(j-1) = (S(j)_0, S(j-1)_{W-1:1}) one clock later; the top
// word S(e-1) = (C, S(e-1)_{W-1:1}) leaves in the clock after the last word, which may be
// the first word of the PE's next job (word 0 emits nothing). The next PE gets the Y/M token
// two clocks later, in step with S(j): PE latency 2.
//
// Assertions (docs/formal.md): the job counter in range and stepping one job at a time, the
// carry C at most 2.
`include "mv_assert.svh"

module mwr2mm_pe #(
  parameter int W       = 8,
  parameter int Jobs    = 1,     // bits of X this PE processes (bits k, k + P, ...)
  parameter bit FaultEn = 1'b0   // test only: invert the reduction bit q of every job
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            load_i,       // operation start: zero the state, load the X bits
  input  logic [Jobs-1:0] xbits_i,      // bit r is x_(rP + k)
  // token {valid, first (j = 0), last (j = e - 1), Y(j), M(j)}; S(j) from the previous PE
  input  logic [2*W+2:0]  tok_i,
  input  logic [W-1:0]    s_i,
  // the same token two clocks later (valid only in jobs this PE accepted), and the shifted
  // S words of this PE's job
  output logic [2*W+2:0]  tok_o,
  output logic [W-1:0]    s_o,
  // observation: a word step in this clock and whether its carry C is non-zero
  output logic            step_o,
  output logic            carry_nz_o
);

  localparam int CW   = 2;                        // carry C <= 2
  localparam int JobW = $clog2(Jobs + 1);
  localparam int Dly  = 2;                        // token delay to the next PE
  localparam int TokW = 3 + 2 * W;

  logic [Jobs-1:0] xbits_q;
  logic [JobW-1:0] jobs_q;
  logic            live_q;                        // inside an accepted job
  logic            x_q, q_q;                      // x_i and q of the running job
  // S(j) not yet emitted; its bit 0 went to the top of S(j-1) (or was 0 for j = 0)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [W-1:0]    sreg_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [CW-1:0]   c_q;
  logic            pend_q;                        // S(e-1) waits to be emitted
  logic [W-1:0]    s_q;

  logic         tok_valid, tok_first, tok_last;
  logic [W-1:0] tok_y, tok_m;
  assign {tok_valid, tok_first, tok_last, tok_y, tok_m} = tok_i;

  logic accept_first, act;
  assign accept_first = tok_valid && tok_first && (jobs_q != JobW'(Jobs));
  assign act          = tok_first ? accept_first : (tok_valid && live_q);

  logic            x_cur, q_first, q_cur;
  logic [W-1:0]    ysel, msel;
  logic [CW-1:0]   cin;
  logic [W+CW-1:0] sum;
  logic            fault;
  assign fault   = FaultEn;
  assign x_cur   = tok_first ? xbits_q[0] : x_q;
  assign ysel    = x_cur ? tok_y : '0;
  assign q_first = (s_i[0] ^ ysel[0]) ^ fault;   // (S(0) + x_i Y(0))_0
  assign q_cur   = tok_first ? q_first : q_q;
  assign msel    = q_cur ? tok_m : '0;
  assign cin     = tok_first ? '0 : c_q;
  assign sum     = (W+CW)'(s_i) + (W+CW)'(ysel) + (W+CW)'(msel) + (W+CW)'(cin);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      xbits_q <= '0;
      jobs_q  <= '0;
      live_q  <= 1'b0;
      x_q     <= 1'b0;
      q_q     <= 1'b0;
      sreg_q  <= '0;
      c_q     <= '0;
      pend_q  <= 1'b0;
      s_q     <= '0;
    end else if (load_i) begin
      xbits_q <= xbits_i;
      jobs_q  <= '0;
      live_q  <= 1'b0;
      x_q     <= 1'b0;
      q_q     <= 1'b0;
      sreg_q  <= '0;
      c_q     <= '0;
      pend_q  <= 1'b0;
      s_q     <= '0;
    end else begin
      if (act) begin
        sreg_q <= sum[W-1:0];
        c_q    <= sum[W+CW-1:W];
        pend_q <= tok_last;
        live_q <= !tok_last;
        if (tok_first) begin
          x_q     <= x_cur;
          q_q     <= q_first;
          xbits_q <= xbits_q >> 1;
          jobs_q  <= jobs_q + 1'b1;
          if (pend_q) begin
            s_q <= (sreg_q >> 1) | (W'(c_q[0]) << (W - 1));  // top word, previous job
          end
        end else begin
          s_q <= (sreg_q >> 1) | (W'(sum[0]) << (W - 1));   // S(j-1)
        end
      end else if (pend_q) begin
        s_q    <= (sreg_q >> 1) | (W'(c_q[0]) << (W - 1));  // S(e-1) = (C, S(e-1)_{W-1:1})
        pend_q <= 1'b0;
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
    .d_i    ({act, tok_first, tok_last, tok_y, tok_m}),
    .q_o    (tok_o)
  );

  assign s_o        = s_q;
  assign step_o     = act;
  assign carry_nz_o = (sum[W+CW-1:W] != '0);

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // The job counter (Michalski-Buell 2006, section 4: bit i = rP + k on PE k): at most Jobs
  // jobs per operation, one more per accepted first word, none outside a job.
  `ASSERT(PeJobsInRange_A, int'(jobs_q) <= Jobs, clk_i, assert_off)
  `ASSERT_IMPL(PeJobsStep_A, !$past(load_i), jobs_q == $past(jobs_q)
               + JobW'($past(accept_first)), clk_i, assert_off)
  `ASSERT_IMPL(PeLiveInJob_A, live_q || pend_q, jobs_q != '0, clk_i, assert_off)
  // Algorithm 1 (Tenca-Koc MWR2MM) and eq. (12): S(j) + x_i Y(j) + q M(j) + C
  // <= 3(2^W - 1) + 2, so the carry C is at most 2 (two bits).
  `ASSERT(PeCarryBelow3_A, c_q <= CW'(2), clk_i, assert_off)

endmodule
