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
module mwr2mm #(
  parameter int N       = 32,
  parameter int W       = 8,
  parameter int P       = 1,
  // Test only: PE FaultPe inverts its reduction bit q (negative tests).
  parameter bit FaultEn = 1'b0,
  parameter int FaultPe = 0
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
  output logic [N-1:0] p_o
);

  localparam int E      = (N + W) / W;            // ceil((N + 1) / W) words
  localparam int EW     = E * W;
  localparam int PMax   = (E / 2 > 1) ? E / 2 : 1;
  localparam int Rounds = (N + P - 1) / P;        // jobs of PE 0
  localparam int Dly    = E - 2 * P;              // ring delay registers
  localparam int KLast  = (N - 1) % P;            // the PE of the last bit
  localparam int TLast  = (Rounds - 1) * E + 2 * KLast;
  localparam int TOut   = TLast + 2;              // first result word at the final unit
  localparam int TFin   = TLast + E + 2;
  localparam int SlotW  = $clog2(E + 1);
  localparam int ObsSlots = 8;                    // observation: PE index mod 8
  localparam int ObsBins  = 2 * ObsSlots;
  localparam int ObsAddrW = 4;

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

  // --- control, final unit and observation (scalable_ctrl.sv) ------------------------------
  logic          load, run;
  logic [W-1:0]  res_word;
  logic [P-1:0]  obs_step;
  logic [P*ObsAddrW-1:0] obs_addr;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [EW-1:0] res;   // the latched S: only p_o leaves this core
  /* verilator lint_on UNUSEDSIGNAL */
  scalable_ctrl #(
    .N       (N),
    .WordW   (W),
    .Words   (E),
    .TOut    (TOut),
    .TFin    (TFin),
    .Ports   (P),
    .ObsBins (ObsBins),
    .ObsAddrW(ObsAddrW)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .start_i,
    .clear_i,
    .m_i,
    .res_word_i(res_word),
    .load_o    (load),
    .run_o     (run),
    .busy_o,
    .last_o,
    .p_o,
    .res_o     (res),
    .obs_step_i(obs_step),
    .obs_addr_i(obs_addr)
  );

  // --- Y/M word injection into PE 0: E words per round, Rounds rounds -------------------
  logic             inj;
  logic [SlotW-1:0] wj;
  logic [W-1:0]     yw, mw;
  scalable_inject #(
    .WordW (W),
    .Words (E),
    .Rounds(Rounds),
    .SlotW (SlotW)
  ) u_inject (
    .clk_i,
    .rst_ni,
    .load_i(load),
    .run_i (run),
    .y_i   (EW'(y_i)),
    .m_i   (EW'(m_i)),
    .inj_o (inj),
    .slot_o(wj),
    .y_o   (yw),
    .m_o   (mw)
  );

  // --- the PE array ------------------------------------------------------------------------
  // tokens into PE k (index P: out of the last PE, unused: PE 0 takes fresh words)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [P:0]         tv, tf, tl;
  logic [W-1:0]       ty [P+1];
  logic [W-1:0]       tm [P+1];
  /* verilator lint_on UNUSEDSIGNAL */
  logic [W-1:0]       sv [P+1];   // sv[k]: S words into PE k; sv[P]: out of PE P-1

  assign tv[0] = inj;
  assign tf[0] = (wj == '0);
  assign tl[0] = (wj == SlotW'(E - 1));
  assign ty[0] = yw;
  assign tm[0] = mw;

  for (genvar k = 0; k < P; k++) begin : g_pe
    localparam int Jobs = (N - k + P - 1) / P;
    logic [Jobs-1:0] xbits;
    for (genvar r = 0; r < Jobs; r++) begin : g_x
      assign xbits[r] = x_i[r * P + k];
    end
    logic carry_nz;
    logic nv, nf, nl;
    logic [W-1:0] ny, nm;
    mwr2mm_pe #(
      .W      (W),
      .Jobs   (Jobs),
      .FaultEn(FaultEn && (k == FaultPe))
    ) u_pe (
      .clk_i,
      .rst_ni,
      .load_i     (load),
      .xbits_i    (xbits),
      .tok_valid_i(tv[k]),
      .tok_first_i(tf[k]),
      .tok_last_i (tl[k]),
      .tok_y_i    (ty[k]),
      .tok_m_i    (tm[k]),
      .s_i        (sv[k]),
      .tok_valid_o(nv),
      .tok_first_o(nf),
      .tok_last_o (nl),
      .tok_y_o    (ny),
      .tok_m_o    (nm),
      .s_o        (sv[k+1]),
      .step_o     (obs_step[k]),
      .carry_nz_o (carry_nz)
    );
    assign tv[k+1] = nv;
    assign tf[k+1] = nf;
    assign tl[k+1] = nl;
    assign ty[k+1] = ny;
    assign tm[k+1] = nm;
    assign obs_addr[k*ObsAddrW +: ObsAddrW] = {3'(k % ObsSlots), carry_nz};
  end

  // Ring: S words of PE P-1 back to PE 0 through Dly delay registers (zero in round 0:
  // every register is cleared at the start, S = 0).
  scalable_delay #(
    .Width(W),
    .Depth((Dly > 0) ? Dly : 0)
  ) u_ring (
    .clk_i,
    .rst_ni,
    .clear_i(load),
    .d_i    (sv[P]),
    .q_o    (sv[0])
  );

  // The final unit takes the last bit's S words from the PE that ran it.
  assign res_word = sv[KLast+1];

endmodule
