// mwrkmm: scalable multiple-word radix-2^W Montgomery multiplier, P = X*Y*2^-N mod M.
//
// Michalski-Buell (2006), Algorithm 2 (MWRkMM) and sections 4, 5: Y, M and S are split into
// n = floor(N/V) + 2 words of V bits (the top word of Y and M is zero), X into N/W digits of
// W bits plus one zero digit. Job i reduces S by u' M with u' = m' S(0) mod 2^W (m' = -M^-1
// mod 2^W, precomputed by the host and loaded into MP), divides by 2^W and adds x_i Y: after
// the N/W + 1 jobs S = X Y 2^-N mod M + (0 or M). A systolic array of P PEs (mwrkmm_pe, PE
// latency 3) runs consecutive digits: job i = rP + k on PE k with its state-A clock at
// r*n + 3k. The S words of PE P-1 return to PE 0 through n - 3P delay registers (section 5:
// the shift register used when P < p_max); P above p_max = floor(n/3) (eq. 13) is rejected
// at elaboration, as are W > V and W not dividing N (section 6.1).
//
// Final result (section 5.4): the last job's S (< 2M) leaves PE (N/W) mod P one word per
// clock; the final unit latches each word and subtracts the matching word of M with a
// borrow chain; in the FIN clock the borrow selects S - M (S >= M) or S: p_o is fully
// reduced.
//
// Cycles: TLast + n + 4 with TLast = (ceil((N/W + 1)/P) - 1)*n + 3*((N/W) mod P).
module mwrkmm #(
  parameter int N       = 32,
  parameter int V       = 8,
  parameter int W       = 1,   // default legal for every N (W must divide N)
  parameter int P       = 1,
  // Test only: PE FaultPe flips bit 0 of its quotient digits u' (negative tests).
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
  input  logic [W-1:0] mp_i,    // m' = -M^-1 mod 2^W
  output logic         busy_o,
  output logic         last_o,  // high during the last busy cycle (FIN)
  output logic [N-1:0] p_o,
  output logic [N:0]   s_o      // the last job's S (< 2M) before the final subtraction
);

  localparam int NW     = N / V + 2;              // operand words (the paper's n)
  localparam int NWV    = NW * V;
  localparam int PMax   = NW / 3;                 // eq. (13)
  localparam int Digits = (W > 0) ? N / W : 1;
  localparam int Jobs   = Digits + 1;             // the last digit is zero
  localparam int Rounds = (Jobs + P - 1) / ((P > 0) ? P : 1);
  localparam int Dly    = NW - 3 * P;             // ring delay registers
  localparam int KLast  = Digits % ((P > 0) ? P : 1);
  localparam int TLast  = (Rounds - 1) * NW + 3 * KLast;
  localparam int TOut   = TLast + 3;
  localparam int TFin   = TLast + NW + 3;
  localparam int CycW   = $clog2(TFin + 1);
  localparam int SlotW  = $clog2(NW + 1);
  localparam int RndW   = $clog2(Rounds + 1);
  localparam int ObsSlots = 8;                    // observation: PE index mod 8
  localparam int ObsBins  = 2 * ObsSlots;
  localparam int ObsAddrW = 4;
  localparam int HitW     = 32;

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
  if (P < 1 || P > PMax) begin : g_bad_p
    initial $fatal(1, "mwrkmm: P=%0d must be in 1..p_max=%0d (eq. 13)", P, PMax);
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

  // --- injection into PE 0: per round the state-A slot, then words 0 .. n-2 of Y and M ------
  // The rotators hold Y and M rotated by one word so that slot s shows word s - 1 (slot 0:
  // the zero top word).
  logic [NWV-1:0]   yrot_q, mrot_q;
  logic [SlotW-1:0] sl_q;
  logic [RndW-1:0]  rnd_q;
  logic             inj;
  assign inj = (state_q == StRun) && (rnd_q != RndW'(Rounds));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      yrot_q <= '0;
      mrot_q <= '0;
      sl_q   <= '0;
      rnd_q  <= '0;
    end else if (load) begin
      yrot_q <= NWV'(y_i) << V;
      mrot_q <= NWV'(m_i) << V;
      sl_q   <= '0;
      rnd_q  <= '0;
    end else if (inj) begin
      yrot_q <= {yrot_q[V-1:0], yrot_q[NWV-1:V]};
      mrot_q <= {mrot_q[V-1:0], mrot_q[NWV-1:V]};
      if (sl_q == SlotW'(NW - 1)) begin
        sl_q  <= '0;
        rnd_q <= rnd_q + 1'b1;
      end else begin
        sl_q <= sl_q + 1'b1;
      end
    end
  end

  // --- the PE array ------------------------------------------------------------------------
  // tokens into PE k (index P: out of the last PE, unused: PE 0 takes fresh words)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [P:0]         ta, tv, tf, tl;
  logic [V-1:0]       ty [P+1];
  logic [V-1:0]       tm [P+1];
  /* verilator lint_on UNUSEDSIGNAL */
  logic [V-1:0]       sv [P+1];   // sv[k]: S words into PE k; sv[P]: out of PE P-1
  logic [P-1:0]       obs_step;
  logic [P*ObsAddrW-1:0] obs_addr;

  assign ta[0] = inj && (sl_q == '0);
  assign tv[0] = inj && (sl_q != '0);
  assign tf[0] = (sl_q == SlotW'(1));
  assign tl[0] = (sl_q == SlotW'(NW - 1));
  assign ty[0] = yrot_q[V-1:0];
  assign tm[0] = mrot_q[V-1:0];

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
    logic carry_nz;
    logic na, nv, nf, nl;
    logic [V-1:0] ny, nm;
    mwrkmm_pe #(
      .V      (V),
      .W      (W),
      .Jobs   (PeJobs),
      .FaultEn(FaultEn && (k == FaultPe))
    ) u_pe (
      .clk_i,
      .rst_ni,
      .load_i     (load),
      .xdig_i     (xdig),
      .mp_i,
      .a_i        (ta[k]),
      .tok_valid_i(tv[k]),
      .tok_first_i(tf[k]),
      .tok_last_i (tl[k]),
      .tok_y_i    (ty[k]),
      .tok_m_i    (tm[k]),
      .s_i        (sv[k]),
      .a_o        (na),
      .tok_valid_o(nv),
      .tok_first_o(nf),
      .tok_last_o (nl),
      .tok_y_o    (ny),
      .tok_m_o    (nm),
      .s_o        (sv[k+1]),
      .step_o     (obs_step[k]),
      .carry_nz_o (carry_nz)
    );
    assign ta[k+1] = na;
    assign tv[k+1] = nv;
    assign tf[k+1] = nf;
    assign tl[k+1] = nl;
    assign ty[k+1] = ny;
    assign tm[k+1] = nm;
    assign obs_addr[k*ObsAddrW +: ObsAddrW] = {3'(k % ObsSlots), carry_nz};
  end

  // Ring: S words of PE P-1 back to PE 0 through n - 3P delay registers (zero in round 0:
  // every register is cleared at the start, S = 0).
  if (Dly <= 0) begin : g_ring_direct
    assign sv[0] = sv[P];
  end else begin : g_ring_delay
    logic [V-1:0] dly_q [Dly];
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
  logic [V-1:0]   res_word;
  logic           fin_take;
  // S < 2M needs N + 1 of the n*V bits: the top bits stay zero
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NWV-1:0] res_q, dif_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [NWV-1:0] mfin_q;
  logic           borrow_q;
  logic [V:0]     dword;
  logic [N-1:0]   p_q;
  assign res_word = sv[KLast+1];
  assign fin_take = (state_q == StRun) && (cyc_q >= CycW'(TOut));
  assign dword    = {1'b0, res_word} - {1'b0, mfin_q[V-1:0]} - (V+1)'(borrow_q);

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
            mfin_q   <= NWV'(m_i);
            borrow_q <= 1'b0;
            state_q  <= StRun;
          end
        end
        StRun: begin
          cyc_q <= cyc_q + 1'b1;
          if (fin_take) begin
            res_q    <= {res_word, res_q[NWV-1:V]};
            dif_q    <= {dword[V-1:0], dif_q[NWV-1:V]};
            mfin_q   <= mfin_q >> V;
            borrow_q <= dword[V];
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
  assign s_o    = res_q[N:0];
  assign p_o    = p_q;

`ifndef SYNTHESIS
  // Simulation-only observation (scalable_observe.sv): per word of S leaving a PE, address
  // {PE mod 8, Cmod or Cadd non-zero}; and whether FIN subtracted M.
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
