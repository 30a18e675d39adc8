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
  localparam int CycW   = $clog2(TFin + 1);
  localparam int WordW  = $clog2(E + 1);
  localparam int RndW   = $clog2(Rounds + 1);
  localparam int ObsSlots = 8;                    // observation: PE index mod 8
  localparam int ObsBins  = 2 * ObsSlots;
  localparam int ObsAddrW = 4;
  localparam int HitW     = 32;

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

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StRun  = 2'd1,
    StFin  = 2'd2
  } state_e;

  state_e          state_q;
  logic [CycW-1:0] cyc_q;
  logic            load;
  assign load = (state_q == StIdle) && start_i;

  // --- Y/M word injection into PE 0: E words per round, Rounds rounds -------------------
  logic [EW-1:0]    yrot_q, mrot_q;
  logic [WordW-1:0] wj_q;
  logic [RndW-1:0]  rnd_q;
  logic             inj;
  assign inj = (state_q == StRun) && (rnd_q != RndW'(Rounds));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      yrot_q <= '0;
      mrot_q <= '0;
      wj_q   <= '0;
      rnd_q  <= '0;
    end else if (load) begin
      yrot_q <= EW'(y_i);
      mrot_q <= EW'(m_i);
      wj_q   <= '0;
      rnd_q  <= '0;
    end else if (inj) begin
      yrot_q <= {yrot_q[W-1:0], yrot_q[EW-1:W]};
      mrot_q <= {mrot_q[W-1:0], mrot_q[EW-1:W]};
      if (wj_q == WordW'(E - 1)) begin
        wj_q  <= '0;
        rnd_q <= rnd_q + 1'b1;
      end else begin
        wj_q <= wj_q + 1'b1;
      end
    end
  end

  // --- the PE array ------------------------------------------------------------------------
  // tokens into PE k (index P: out of the last PE, unused: PE 0 takes fresh words)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [P:0]         tv, tf, tl;
  logic [W-1:0]       ty [P+1];
  logic [W-1:0]       tm [P+1];
  /* verilator lint_on UNUSEDSIGNAL */
  logic [W-1:0]       sv [P+1];   // sv[k]: S words into PE k; sv[P]: out of PE P-1
  logic [P-1:0]       obs_step;
  logic [P*ObsAddrW-1:0] obs_addr;

  assign tv[0] = inj;
  assign tf[0] = (wj_q == '0);
  assign tl[0] = (wj_q == WordW'(E - 1));
  assign ty[0] = yrot_q[W-1:0];
  assign tm[0] = mrot_q[W-1:0];

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
  if (Dly <= 0) begin : g_ring_direct
    assign sv[0] = sv[P];
  end else begin : g_ring_delay
    logic [W-1:0] dly_q [Dly];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int d = 0; d < Dly; d++) dly_q[d] <= '0;
      end else if (load) begin
        for (int d = 0; d < Dly; d++) dly_q[d] <= '0;
      end else begin
        dly_q[0] <= sv[P];
        for (int d = 1; d < Dly; d++) dly_q[d] <= dly_q[d-1];
      end
    end
    assign sv[0] = dly_q[Dly-1];
  end

  // --- final unit: latch the last S word by word, subtract M with a borrow chain ----------
  logic [W-1:0]  res_word;
  logic          fin_take;
  logic [EW-1:0] res_q, dif_q, mfin_q;
  logic          borrow_q;
  logic [W:0]    dword;
  logic [N-1:0]  p_q;
  assign res_word = sv[KLast+1];
  assign fin_take = (state_q == StRun) && (cyc_q >= CycW'(TOut));
  assign dword    = {1'b0, res_word} - {1'b0, mfin_q[W-1:0]} - (W+1)'(borrow_q);

  logic sub_taken;
  assign sub_taken = !borrow_q;  // S >= M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      cyc_q    <= '0;
      res_q    <= '0;
      dif_q    <= '0;
      mfin_q   <= '0;
      borrow_q <= 1'b0;
      p_q      <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            res_q  <= '0;
            dif_q  <= '0;
            mfin_q <= '0;
            p_q    <= '0;
          end else if (start_i) begin
            cyc_q    <= '0;
            res_q    <= '0;
            dif_q    <= '0;
            mfin_q   <= EW'(m_i);
            borrow_q <= 1'b0;
            state_q  <= StRun;
          end
        end
        StRun: begin
          cyc_q <= cyc_q + 1'b1;
          if (fin_take) begin
            res_q    <= {res_word, res_q[EW-1:W]};
            dif_q    <= {dword[W-1:0], dif_q[EW-1:W]};
            mfin_q   <= mfin_q >> W;
            borrow_q <= dword[W];
          end
          if (cyc_q == CycW'(TFin - 1)) begin
            state_q <= StFin;
          end
        end
        StFin: begin
          p_q     <= sub_taken ? dif_q[N-1:0] : res_q[N-1:0];
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  assign busy_o = (state_q != StIdle);
  assign last_o = (state_q == StFin);
  assign p_o    = p_q;

`ifndef SYNTHESIS
  // Simulation-only observation (scalable_observe.sv): per PE word step, address
  // {PE mod 8, carry C non-zero}; and whether FIN subtracted M.
  logic obs_fin;
  assign obs_fin = (state_q == StFin);
  scalable_observe #(
    .Bins (ObsBins),
    .HitW (HitW),
    .Ports(P)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (load),
    .count_i    (obs_step),
    .addr_i     (obs_addr),
    .fin_i      (obs_fin),
    .sub_taken_i(sub_taken)
  );
`endif

endmodule
