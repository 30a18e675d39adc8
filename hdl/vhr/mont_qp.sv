// mont_qp: 1-stage quotient-pipelined very-high-radix scalable Montgomery multiplier.
//
// Jiang and Harris, "Quotient Pipelined Very High Radix Scalable Montgomery Multipliers"
// (Orup 1995 quotient pipelining with d = 1): Fig. 2/3 algorithm, Fig. 4 architecture with
// P processing elements (mont_qp_pe) in a systolic chain and a queue from the last PE back
// to the first, section IV.B latency (Case I / Case II). With the host-precomputed
//   M-hat = ((M' mod 2^2V) M + 1) / 2^2V,   M' = -M^-1 mod 2^2V   (MHAT register)
// every iteration i = 0..F (F = ceil((N + 2V) / V)) computes
//   reduce = Z_(V-1:0);  Z = Z >> V + oldreduce x M-hat + X^i x Y;  oldreduce = reduce
// on E words of W bits; PE k runs iterations i = c P + k in kernel cycle c. PE 0 starts a
// kernel cycle every K = max(E, 2P + 1) clocks: E when the last PE's first word is back in
// time (Case I), 2P + 1 when PE 0 has to wait for it (Case II, a stall of 2P + 1 - E).
// The queue is a delay line of K - 2P stages (its occupancy is fixed by K).
//
// Result: Z << V + oldreduce = X Y 2^-(V (F - 1)) mod M, in [0, M~ + M) with M~ < 2^2V M
// (Orup's redundant range) for X < 2^N, Y < M. The paper leaves it there (Figs. 2 and 3;
// that its results feed the next multiplication is the project's reading). With Reduce = 1
// (the default) this core then reduces it fully with 2V restoring subtraction steps
// (subtract M << s if not negative, s = 2V-1 .. 0), so p_o < M. With Reduce = 0 it has no
// reducer (nor its (E W + V + 1)-bit subtractor, the
// longest path of the core) and ends with the raw result in p_o, as the paper's does; the
// caller keeps it in range: for X, Y < 2^N and M < 2^(N - 2V - 2) the raw result stays below
// 2^N (X Y / 2^(V (F - 1)) < 2^(N - V), M~ + M <= 2^2V M), so any number of such products
// can feed each other (rsa_core's Lazy mode, which reduces its last result itself).
//
// Cycles from the start edge: floor(F/P) K + 2 (F mod P) + E + 2, + 2V with Reduce
// (docs/vhr.md).
//
// Assertions (docs/formal.md): the FSM's states and transitions, the kernel-clock, kernel-
// cycle and reduction-step counters in range, the value below 2M before the last step, and
// an unreduced result below 2^N.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_qp #(
  parameter int N         = 64,
  parameter int V         = 8,   // digit of X (radix 2^V)
  parameter int W         = 16,  // word of Y, M-hat, Z
  parameter int P         = 2,   // processing elements
  parameter bit Reduce    = 1'b1,  // 1: P reduced fully (2V restoring steps); 0: raw result
  // Test only: FaultEn flips bit 0 of the reduce of PE FaultAddr (negative tests).
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_PORTS,
  input  logic [N-1:0] mhat_i,
  output logic [N:0]   s_o      // the raw result before the last reduction step (< 2M), or
                                // the raw result itself (Reduce = 0)
);

  localparam int MaxPes = 16;  // observation bins of the PEs (PE k >= 1: 1 + (k-1) mod 15)
  localparam int F      = (N + 2 * V + V - 1) / V;           // last iteration index
  localparam int E      = (N + W - 1) / W + 1 + ((W == V) ? 1 : 0);  // words of Z
  localparam int K      = (E > 2 * P + 1) ? E : 2 * P + 1;   // clocks per kernel cycle
  localparam int Kc     = F / P + 1;                         // kernel cycles (last partial)
  localparam int Lk     = F % P;                             // PE of the last iteration
  localparam int D      = K - 2 * P;                         // queue stages (>= 1)
  localparam int EW     = E * W;
  localparam int RW     = EW + V;                            // Z << V + oldreduce
  localparam int XW     = Kc * P * V;                        // X padded to all kernel cycles
  localparam int QW     = W + V + W;                         // queue word: {Z, reduce x M-hat}
  localparam int PMax   = F + 1;                             // one iteration per PE at least
  localparam int KtW    = $clog2(K + 1);
  localparam int KcW    = $clog2(Kc + 2);
  localparam int SW     = $clog2(2 * V + 1);
  localparam int SubSteps = 2 * V;
  // observation bins (models/vhr.py BIN_*)
  localparam int ObsBins     = 24;
  localparam int ObsAddrW    = $clog2(ObsBins);
  localparam int BinStall    = MaxPes;
  localparam int BinNoStall  = MaxPes + 1;
  localparam int BinCarry    = MaxPes + 2;
  localparam int BinNoCarry  = MaxPes + 3;
  localparam int BinSub      = MaxPes + 4;
  localparam int BinNoSub    = MaxPes + 5;

  // Elaboration-time checks (models/vhr.py check): one-line messages
  if (V < 1) begin : g_bad_v
    initial $fatal(1, "mont_qp: V must be >= 1 (got V=%0d)", V);
  end
  if (W < V) begin : g_bad_w
    initial $fatal(1, "mont_qp: V must not exceed W (got V=%0d, W=%0d)", V, W);
  end
  if (P < 1 || P > PMax) begin : g_bad_p
    initial $fatal(1, "mont_qp: P must be 1..%0d for N=%0d, V=%0d (got P=%0d)", PMax, N, V, P);
  end

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StRun  = 2'd1,
    StRed  = 2'd2
  } state_e;

  state_e          state_q;
  logic [KtW-1:0]  kt_q;      // clock within the kernel cycle
  logic [KcW-1:0]  kc_q;      // kernel cycle
  logic            waited_q;  // PE 0 idled in this kernel cycle (Case II stall)
  logic [XW-1:0]   xs_q;      // X digits of the current kernel cycle at the bottom
  logic [EW-W-1:0] res_q;     // words 0..E-2 of the last iteration, shifted in from the top
  logic [RW-1:0]   red_q;     // final reduction
  logic [SW-1:0]   sub_q;     // reduction step s

  // --- streams: index 0 feeds PE 0, index k+1 leaves PE k --------------------------------
  // (the last PE's Y / M-hat words, the reduce of PEs other than Lk and the step flags of
  // PEs other than PE 0 are not used)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [P:0]           sv, sfirst, slast, sfin;
  logic [(P+1)*W-1:0]   sz, sy, smh;
  logic [(P+1)*(V+W)-1:0] smq;
  logic [P*V-1:0]       sq;
  logic [P-1:0]         pe_step, pe_carry_nz;
  /* verilator lint_on UNUSEDSIGNAL */

  // --- sequencer: presents words 0..E-1 of kernel cycle kc_q to PE 0 ----------------------
  logic          seq_v, seq_first;
  logic [KtW-1:0] wj;
  logic [EW-1:0] y_pad, mh_pad;
  logic [QW-1:0] queue_out;
  assign seq_v     = (state_q == StRun) && (32'(kc_q) < Kc) && (32'(kt_q) < E);
  assign seq_first = seq_v && (kt_q == '0);
  assign wj        = seq_v ? kt_q : '0;
  assign y_pad     = EW'(y_i);
  assign mh_pad    = EW'(mhat_i);

  assign sv[0]     = seq_v;
  assign sfirst[0] = seq_first;
  assign slast[0]  = seq_v && (32'(kt_q) == E - 1);
  assign sfin[0]   = seq_v && (32'(kc_q) == Kc - 1);
  assign sz[0 +: W]      = (kc_q == '0) ? '0 : queue_out[V + W +: W];
  assign smq[0 +: V + W] = (kc_q == '0) ? '0 : queue_out[0 +: V + W];
  assign sy[0 +: W]      = y_pad[32'(wj) * W +: W];
  assign smh[0 +: W]     = mh_pad[32'(wj) * W +: W];

  // --- the PE chain ------------------------------------------------------------------------
  // Named first: Icarus 11 turns an enum compared inside a port connection into Z.
  logic pe_clear;
  assign pe_clear = ((state_q == StIdle) && start_i) || clear_i;
  for (genvar k = 0; k < P; k++) begin : g_pe
    mont_qp_pe #(
      .V      (V),
      .W      (W),
      .FaultEn(FaultEn && (k == FaultAddr))
    ) u_pe (
      .clk_i,
      .rst_ni,
      .clear_i    (pe_clear),
      .in_v_i     (sv[k]),
      .in_first_i (sfirst[k]),
      .in_last_i  (slast[k]),
      .in_fin_i   (sfin[k]),
      .z_i        (sz[k * W +: W]),
      .mq_i       (smq[k * (V + W) +: V + W]),
      .y_i        (sy[k * W +: W]),
      .mh_i       (smh[k * W +: W]),
      .x_i        (xs_q[k * V +: V]),
      .out_v_o    (sv[k + 1]),
      .out_first_o(sfirst[k + 1]),
      .out_last_o (slast[k + 1]),
      .out_fin_o  (sfin[k + 1]),
      .z_o        (sz[(k + 1) * W +: W]),
      .mq_o       (smq[(k + 1) * (V + W) +: V + W]),
      .y_o        (sy[(k + 1) * W +: W]),
      .mh_o       (smh[(k + 1) * W +: W]),
      .q_o        (sq[k * V +: V]),
      .step_o     (pe_step[k]),
      .carry_nz_o (pe_carry_nz[k])
    );
  end

  // --- queue: the last PE's words back to PE 0, K - 2P clocks later -------------------------
  /* verilator lint_off UNUSEDSIGNAL */
  logic [(D+1)*QW-1:0] queue_q;  // stage 0 newest; the top stage is never read
  /* verilator lint_on UNUSEDSIGNAL */
  assign queue_out = queue_q[(D - 1) * QW +: QW];

  // --- result collection ("tristate bus": the output of PE Lk in the final kernel cycle) --
  logic           col_v, col_last;
  logic [W-1:0]   col_z;
  logic [EW-1:0]  res_next;
  assign col_v    = (state_q == StRun) && sv[Lk + 1] && sfin[Lk + 1];
  assign col_last = col_v && slast[Lk + 1];
  assign col_z    = sz[(Lk + 1) * W +: W];
  assign res_next = {col_z, res_q};

  // Z << V + oldreduce (raw_last: its last word is in, the product is not reduced: P)
  logic [RW-1:0] raw;
  logic          raw_last;
  assign raw      = {res_next, sq[Lk * V +: V]};
  assign raw_last = col_last && !Reduce;

  // --- final reduction step: subtract M << s unless negative --------------------------------
  logic [RW-1:0] m_shift;
  logic [RW:0]   diff;
  logic          take;
  assign m_shift = RW'(m_i) << sub_q;
  assign diff    = {1'b0, red_q} - {1'b0, m_shift};
  assign take    = !diff[RW];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      kt_q     <= '0;
      kc_q     <= '0;
      waited_q <= 1'b0;
      xs_q     <= '0;
      res_q    <= '0;
      red_q    <= '0;
      sub_q    <= '0;
      queue_q  <= '0;
    end else begin
      queue_q <= {queue_q[D*QW-1:0], sz[P * W +: W], smq[P * (V + W) +: V + W]};
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            xs_q    <= '0;
            res_q   <= '0;
            red_q   <= '0;
            queue_q <= '0;
          end else if (start_i) begin
            xs_q     <= XW'(x_i);
            kt_q     <= '0;
            kc_q     <= '0;
            waited_q <= 1'b0;
            queue_q  <= '0;
            state_q  <= StRun;
          end
        end
        StRun: begin
          // kernel cycles
          if (32'(kt_q) == K - 1) begin
            kt_q <= '0;
            kc_q <= kc_q + 1'b1;
          end else begin
            kt_q <= kt_q + 1'b1;
          end
          if (seq_first) begin
            waited_q <= 1'b0;
          end else if (!seq_v) begin
            waited_q <= 1'b1;
          end
          // the last PE has taken its digit: next kernel cycle's digits to the bottom
          if (sv[P - 1] && sfirst[P - 1]) begin
            xs_q <= xs_q >> (P * V);
          end
          if (col_v) begin
            res_q <= res_next[EW-1:W];
          end
          if (col_last) begin
            red_q   <= raw;  // Z << V + oldreduce
            sub_q   <= SW'(SubSteps - 1);
            state_q <= Reduce ? StRed : StIdle;
          end
        end
        StRed: begin
          // the last step (s = 0) writes P only (u_result): red_q keeps the value below 2M (s_o)
          if (Reduce && take && sub_q != '0) begin
            red_q <= diff[RW-1:0];
          end
          sub_q <= sub_q - 1'b1;
          if (sub_q == '0) begin
            state_q <= StIdle;
          end
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  assign s_o = red_q[N:0];

  // The result register and the handshake (hdl/common/mv_result.sv): the last reduction
  // step (s = 0) writes P, or without a reducer (Reduce = 0) the raw result's last word.
  logic         idle, red_last;
  logic [N-1:0] p_fin;
  assign idle     = (state_q == StIdle);
  assign red_last = Reduce && (state_q == StRed) && (sub_q == '0);
  assign p_fin    = !Reduce ? raw[N-1:0] : (take ? diff[N-1:0] : red_q[N-1:0]);
  mv_result #(
    .ResW(N)
  ) u_result (
    `MV_RESULT_CORE_CONN,
    .idle_i(idle),
    .last_i(red_last || raw_last),
    .p_i   (p_fin)
  );

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  `ASSERT(QpStateLegal_A, state_q == StIdle || state_q == StRun || state_q == StRed, clk_i,
          assert_off)
  // IDLE -> RUN only on START (without CLEAR), counters from 0; RUN -> RED with 2V steps
  // (s = 2V-1 .. 0), one per clock, or RUN -> IDLE without a reducer; RED -> IDLE after the
  // last.
  `ASSERT_IMPL(QpStartsOnStart_A, $past(idle) && !idle, $past(start_i && !clear_i)
               && state_q == StRun && kt_q == '0 && kc_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(QpRunToRed_A, $past(state_q == StRun) && state_q != StRun, Reduce
               ? (state_q == StRed && int'(sub_q) == SubSteps - 1) : idle, clk_i, assert_off)
  `ASSERT_IMPL(QpRedSteps_A, $past(state_q == StRed) && state_q == StRed,
               sub_q == $past(sub_q) - 1'b1, clk_i, assert_off)
  `ASSERT_IMPL(QpRedToIdle_A, $past(state_q == StRed) && state_q != StRed, idle
               && $past(sub_q) == '0, clk_i, assert_off)
  // Counters in range (section IV.B): the clock within the kernel cycle kt < K, the kernel
  // cycle kc <= Kc = floor(F/P) + 1 (the last one partial, then the drain), step s < 2V.
  `ASSERT_IMPL(QpKtInRange_A, state_q == StRun, int'(kt_q) < K, clk_i, assert_off)
  `ASSERT_IMPL(QpKcInRange_A, state_q == StRun, int'(kc_q) <= Kc, clk_i, assert_off)
  `ASSERT_IMPL(QpSubInRange_A, state_q == StRed, int'(sub_q) < SubSteps, clk_i, assert_off)
  // This header (Orup's range [0, M~ + M), M~ < 2^2V M, after 2V - 1 restoring steps): the
  // value the last step s = 0 sees is below 2M (s_o), so P < M.
  `ASSERT_IMPL(QpBelow2MAtLastStep_A, red_last, (RW + 1)'(red_q) < ((RW + 1)'(m_i) << 1),
               clk_i, assert_off)
  // This header: a result left unreduced (Reduce = 0) fits P (the caller's guard bits:
  // M < 2^(N-2V-2)).
  `ASSERT_IMPL(QpRawFits_A, raw_last, (raw >> N) == '0, clk_i, assert_off)
`ifdef MV_ASSERT_ON
  // The PEs' counters (Jiang-Harris, Fig. 3 and section IV.B), shadowed on each PE's input
  // stream k: iteration i runs over words j = 0 .. e-1, one per clock (first at j = 0, last
  // at j = e-1), and each PE runs at most one iteration per kernel cycle, Kc in all.
  // Each PE's checks are a bit per PE, asserted once for all PEs: an assertion inside the
  // generate loop would repeat its name, which yosys (formal) refuses.
  logic [P-1:0] pe_word_ok, pe_row_ok, pe_iter_ok;
  for (genvar k = 0; k < P; k++) begin : g_pe_assert
    logic [KtW-1:0] word_q;  // the word j the next input word must be
    logic [KcW-1:0] iter_q;  // iterations started on this PE in this operation
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        word_q <= '0;
        iter_q <= '0;
      end else if (pe_clear) begin
        word_q <= '0;
        iter_q <= '0;
      end else if (sv[k]) begin
        word_q <= slast[k] ? '0 : word_q + 1'b1;
        iter_q <= iter_q + KcW'(sfirst[k]);
      end
    end
    assign pe_word_ok[k] = !sv[k] || (int'(word_q) < E && sfirst[k] == (word_q == '0)
                                      && slast[k] == (int'(word_q) == E - 1));
    assign pe_row_ok[k]  = word_q == '0 || sv[k];
    assign pe_iter_ok[k] = int'(iter_q) <= Kc;
  end
  `ASSERT(QpPeWordInRange_A, &pe_word_ok, clk_i, assert_off)
  `ASSERT(QpPeWordsInARow_A, &pe_row_ok, clk_i, assert_off)
  `ASSERT(QpPeItersInRange_A, &pe_iter_ok, clk_i, assert_off)
`endif

`ifndef SYNTHESIS
  // Simulation-only observation (hdl/common/mv_observe.sv), bins of models/vhr.py:
  // port 0: an iteration starts on PE k (bin k; PE 0 after its first kernel cycle: stall /
  // no stall); port 1: PE 0's word steps (carry digit non-zero or zero), then the reduction
  // steps (subtracted or not). Iterations past F in the final kernel cycle are not counted.
  logic                obs_clear, obs_run, obs_red;
  logic                obs_cnt0, obs_cnt1;
  logic [ObsAddrW-1:0] obs_addr0, obs_addr1;
  assign obs_clear = (state_q == StIdle) && start_i;
  assign obs_run   = (state_q == StRun);
  assign obs_red   = (state_q == StRed);
  always_comb begin
    obs_cnt0  = 1'b0;
    obs_addr0 = '0;
    for (int k = 0; k < P; k++) begin
      if (sv[k] && sfirst[k] && !(sfin[k] && k > Lk)) begin
        obs_cnt0 = obs_run;
        if (k != 0) begin
          obs_addr0 = ObsAddrW'(1 + (k - 1) % (MaxPes - 1));
        end else if (kc_q == '0) begin
          obs_addr0 = '0;
        end else begin
          obs_addr0 = waited_q ? ObsAddrW'(BinStall) : ObsAddrW'(BinNoStall);
        end
      end
    end
  end
  assign obs_cnt1  = (obs_run && pe_step[0]) || obs_red;
  assign obs_addr1 = obs_red ? (take ? ObsAddrW'(BinSub) : ObsAddrW'(BinNoSub))
                             : (pe_carry_nz[0] ? ObsAddrW'(BinCarry) : ObsAddrW'(BinNoCarry));
  mv_observe #(
    .Bins (ObsBins),
    .HitW (32),
    .Ports(2)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (obs_clear),
    .count_i    ({obs_cnt1, obs_cnt0}),
    .addr_i     ({obs_addr1, obs_addr0}),
    .fin_i      (last_o),
    .sub_taken_i(take)
  );
`endif

endmodule
