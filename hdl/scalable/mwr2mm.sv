// mwr2mm: scalable multiple-word radix-2 Montgomery multiplier, P = X*Y*2^-N mod M.
//
// Michalski-Buell (2006), Algorithm 1 and section 4 (Tenca-Koc MWR2MM): Y, M and S are
// split into E = ceil((N+1)/W) words of W bits and X is scanned bit by bit. A systolic array
// of P processing elements (mwr2mm_pe) works on consecutive bits: bit i = rP + k runs on PE k,
// starting at clock r*E + 2k and taking one word per clock, PE k+1 two clocks behind PE k
// (latency 2). The words S of PE P-1 feed PE 0 through E - 2P delay registers (the PEs are
// kept busy every clock when P = floor(E/2)); Y and M words enter PE 0 from two rotating
// word registers and travel with the S words through the array. P above p_max = floor(E/2)
// would only stall the pipeline and is rejected at elaboration.
//
// Final result (section 5.4): the words of the last bit's S (< 2M) leave PE (N-1) mod P one
// per clock; the final unit latches each word and subtracts the matching word of M with a
// borrow chain; in the FIN clock the borrow selects S - M (no borrow: S >= M) or S, so p_o is
// fully reduced.
//
// Cycles: TLast + E + 3 with TLast = (ceil(N/P) - 1)*E + 2*((N-1) mod P), from the start edge.
`include "mv_core_ports.svh"

module mwr2mm #(
  parameter int N       = 32,
  parameter int W       = 8,
  parameter int P       = 1,
  // Test only: PE FaultPe inverts its reduction bit q (negative tests).
  parameter bit FaultEn = 1'b0,
  parameter int FaultPe = 0
) (
  `MV_CORE_PORTS
);

  localparam int E      = (N + W) / W;            // ceil((N + 1) / W) words
  localparam int EW     = E * W;
  localparam int PMax   = (E / 2 > 1) ? E / 2 : 1;
  localparam int PeLat  = 2;                      // mwr2mm_pe: clocks to the next PE
  localparam int SlotW  = $clog2(E + 1);

  // Elaboration-time checks (the runner rejects the same combinations with one line).
  if (W < 2) begin : g_bad_w
    initial $fatal(1, "mwr2mm: W must be >= 2 (got W=%0d)", W);
  end
  if (W > N) begin : g_bad_wn
    initial $fatal(1, "mwr2mm: W=%0d must be <= N=%0d (at least two words)", W, N);
  end
  if (P < 1 || P > PMax) begin : g_bad_p
    initial $fatal(1, "mwr2mm: P=%0d must be in 1..p_max=%0d (p_max = floor(e/2))", P, PMax);
  end

  // --- control, final unit, observation, Y/M injection, S-word ring (scalable_frame.sv) --
  // tok[k]: the token {valid, first, last, Y(j), M(j)} into PE k (tok[P]: out of the last
  // PE, unused: PE 0 takes fresh words)
  logic             load, inj;
  logic [SlotW-1:0] slot;
  logic [W-1:0]     yw, mw;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*W+2:0]   tok [P+1];
  logic [EW-1:0]    res;   // the latched S: only p_o leaves this core
  /* verilator lint_on UNUSEDSIGNAL */
  logic [P*W-1:0]   s_in, s_out;   // word k: S words into / out of PE k
  logic [P-1:0]     pe_step, pe_carry_nz;
  scalable_frame #(
    .N    (N),
    .WordW(W),
    .Words(E),
    .Jobs (N),
    .Pes  (P),
    .PeLat(PeLat),
    .SlotW(SlotW)
  ) u_frame (
    `SCALABLE_FRAME_CONN,
    .y_words_i(EW'(y_i)),
    .m_words_i(EW'(m_i))
  );


  // --- the PE array: bit i = rP + k on PE k; the last bit's S words leave PE KLast --------
  assign tok[0] = {inj, slot == '0, slot == SlotW'(E - 1), yw, mw};

  for (genvar k = 0; k < P; k++) begin : g_pe
    localparam int Jobs = (N - k + P - 1) / P;
    logic [Jobs-1:0] xbits;
    for (genvar r = 0; r < Jobs; r++) begin : g_x
      assign xbits[r] = x_i[r * P + k];
    end
    mwr2mm_pe #(
      .W      (W),
      .Jobs   (Jobs),
      .FaultEn(FaultEn && (k == FaultPe))
    ) u_pe (
      .clk_i,
      .rst_ni,
      .load_i    (load),
      .xbits_i   (xbits),
      .tok_i     (tok[k]),
      .s_i       (s_in[k*W +: W]),
      .tok_o     (tok[k+1]),
      .s_o       (s_out[k*W +: W]),
      .step_o    (pe_step[k]),
      .carry_nz_o(pe_carry_nz[k])
    );
  end

endmodule
