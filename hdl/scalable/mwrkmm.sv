// mwrkmm: scalable multiple-word radix-2^W Montgomery multiplier, P = X*Y*2^-N mod M.
//
// Michalski-Buell (2006), Algorithm 2 (MWRkMM) and sections 4, 5: Y, M and S are split into
// n = floor(N/V) + 2 words of V bits (the top word of Y and M is zero), X into N/W digits of
// W bits plus one zero digit. Job i reduces S by u' M with u' = m' S(0) mod 2^W (m' = -M^-1
// mod 2^W, precomputed by the host and loaded into MP), divides by 2^W and adds x_i Y: after
// the N/W + 1 jobs S = X Y 2^-N mod M + (0 or M). A systolic array of P PEs (mwrkmm_pe, PE
// latency L = PeLatency: 3, or 4 for the subpipelined PE of section 7) runs consecutive
// digits: job i = rP + k on PE k with its state-A clock at r*n + Lk. The S words of PE P-1
// return to PE 0 through n - LP delay registers (section 5: the shift register used when
// P < p_max); P above p_max = floor(n/L) (eq. 13 for L = 3; the subpipelined core's 15 PEs
// at 1024 bits, section 7, for L = 4) is rejected at elaboration, as are W > V and W not
// dividing N (section 6.1). PeAdder chooses the PEs' addition unit: 0, two carry-propagate
// adders (the recurrences as written); 1, section 5.2's carry-save tree and one
// carry-propagate adder (mwrkmm_pe.sv's header): the same S words in the same clocks.
//
// Final result (section 5.4): the last job's S (< 2M) leaves PE (N/W) mod P one word per
// clock; the final unit latches each word and subtracts the matching word of M with a
// borrow chain; in the FIN clock the borrow selects S - M (S >= M) or S: p_o is fully
// reduced.
//
// Cycles: TLast + n + L + 1 with TLast = (ceil((N/W + 1)/P) - 1)*n + L*((N/W) mod P).
`include "mv_core_ports.svh"

module mwrkmm #(
  parameter int N       = 32,
  parameter int V       = 8,
  parameter int W       = 1,   // default legal for every N (W must divide N)
  parameter int P       = 1,
  parameter int PeLatency = 3, // 3, or 4: the subpipelined PE (section 7)
  parameter int PeAdder = 0,   // the PE's addition unit: 0 two CPAs, 1 CSA tree + CPA (5.2)
  // Test only: PE FaultPe flips bit 0 of its quotient digits u' (negative tests).
  parameter bit FaultEn = 1'b0,
  parameter int FaultPe = 0
) (
  `MV_CORE_PORTS,
  input  logic [W-1:0] mp_i,    // m' = -M^-1 mod 2^W
  output logic [N:0]   s_o      // the last job's S (< 2M) before the final subtraction
);

  localparam int NW     = N / V + 2;              // operand words (the paper's n)
  localparam int NWV    = NW * V;
  localparam int PMax   = NW / PeLatency;         // eq. (13) (latency 3), section 7 (4)
  localparam int Digits = (W > 0) ? N / W : 1;
  localparam int Jobs   = Digits + 1;             // the last digit is zero
  localparam int PeLat  = PeLatency;              // mwrkmm_pe: clocks to the next PE
  localparam int SlotW  = $clog2(NW + 1);

  // Elaboration-time checks (the runner rejects the same combinations with one line).
  if (W < 1 || W > V) begin : g_bad_w
    initial $fatal(1, "mwrkmm: W=%0d must be in 1..V=%0d (the paper requires w <= v)", W, V);
  end
  if (W > 0 && N % W != 0) begin : g_bad_wn
    initial $fatal(1, "mwrkmm: W=%0d must divide N=%0d (the paper requires it)", W, N);
  end
  if (V > N) begin : g_bad_v
    initial $fatal(1, "mwrkmm: V=%0d must be <= N=%0d", V, N);
  end
  if (PeLatency != 3 && PeLatency != 4) begin : g_bad_lat
    initial $fatal(1, "mwrkmm: PeLatency=%0d must be 3 or 4 (section 7)", PeLatency);
  end
  if (PeAdder != 0 && PeAdder != 1) begin : g_bad_adder
    initial $fatal(1, "mwrkmm: PeAdder=%0d must be 0 or 1 (section 5.2)", PeAdder);
  end
  if (P < 1 || P > PMax) begin : g_bad_p
    initial $fatal(1, "mwrkmm: P=%0d must be in 1..p_max=%0d (eq. 13)", P, PMax);
  end

  // --- control, final unit, observation, Y/M injection, S-word ring (scalable_frame.sv) --
  // The injector holds Y and M rotated by one word so that slot s shows word s - 1 (slot 0:
  // the zero top word); per round PE 0 takes the state-A slot, then words 0 .. n-2.
  // tok[k]: the token {a, valid, first, last, Y(j), M(j)} into PE k (tok[P]: out of the last
  // PE, unused: PE 0 takes fresh words)
  logic             load, inj;
  logic [SlotW-1:0] slot;
  logic [V-1:0]     yw, mw;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*V+3:0]   tok [P+1];
  // S < 2M needs N + 1 of the n*V bits: the top bits stay zero
  logic [NWV-1:0]   res;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [P*V-1:0]   s_in, s_out;   // word k: S words into / out of PE k
  logic [P-1:0]     pe_step, pe_carry_nz;
  scalable_frame #(
    .N    (N),
    .WordW(V),
    .Words(NW),
    .Jobs (Jobs),
    .Pes  (P),
    .PeLat(PeLat),
    .SlotW(SlotW)
  ) u_frame (
    `SCALABLE_FRAME_CONN,
    .y_words_i(NWV'(y_i) << V),
    .m_words_i(NWV'(m_i) << V)
  );

  assign s_o = res[N:0];

  // --- the PE array: digit j = rP + k on PE k; the last job's S words leave PE KLast ------
  assign tok[0] = {inj && (slot == '0), inj && (slot != '0), slot == SlotW'(1), slot == SlotW'(NW - 1),
                   yw, mw};

  for (genvar k = 0; k < P; k++) begin : g_pe
    localparam int PeJobs = (Jobs - k + P - 1) / P;
    logic [PeJobs*W-1:0] xdig;
    for (genvar r = 0; r < PeJobs; r++) begin : g_x
      if ((r * P + k) < Digits) begin : g_digit
        assign xdig[r*W +: W] = x_i[(r * P + k) * W +: W];
      end else begin : g_zero
        assign xdig[r*W +: W] = '0;            // x_(N/W) = 0
      end
    end
    mwrkmm_pe #(
      .V      (V),
      .W      (W),
      .Jobs   (PeJobs),
      .Latency(PeLatency),
      .Adder  (PeAdder),
      .FaultEn(FaultEn && (k == FaultPe))
    ) u_pe (
      .clk_i,
      .rst_ni,
      .load_i    (load),
      .xdig_i    (xdig),
      .mp_i,
      .tok_i     (tok[k]),
      .s_i       (s_in[k*V +: V]),
      .tok_o     (tok[k+1]),
      .s_o       (s_out[k*V +: V]),
      .step_o    (pe_step[k]),
      .carry_nz_o(pe_carry_nz[k])
    );
  end

endmodule
