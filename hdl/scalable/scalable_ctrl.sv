// scalable_ctrl: control, word-serial final subtraction and observation of a scalable core.
//
// Michalski-Buell (2006), section 5.4 (final result) for Algorithm 1 (MWR2MM) and
// Algorithm 2 (MWRkMM). IDLE waits for start_i; RUN counts the clocks from the start edge
// (cyc); FIN, the last busy clock, writes p_o. The last job's S (< 2M) leaves its PE one
// word per clock from clock TOut on (res_word_i): the final unit latches each word (res_o,
// Words words of WordW bits, word 0 first) and subtracts the matching word of M with a
// borrow chain; RUN ends after clock TFin - 1, and in FIN the borrow selects S - M (no
// borrow: S >= M) or S, so p_o is fully reduced. load_o (START while idle, also with CLEAR)
// starts the core's array; CLEAR while idle zeroes the result registers.
//
// Observation (simulation only, hdl/common/mv_observe.sv as u_observe): per operation the word
// steps of every PE (obs_step_i, Ports ports, at obs_addr_i) and, in FIN, whether M was
// subtracted. The result register P and busy/last: hdl/common/mv_result.sv.
//
// Used by mwr2mm and mwrkmm.
//
// Assertions (docs/formal.md): the FSM's states and transitions, the clock counter in range,
// and the final unit's input bound S < 2M (section 5.4: one subtraction reduces fully).
`include "mv_assert.svh"
`include "mv_core_ports.svh"

module scalable_ctrl #(
  parameter int N        = 32,                // width of M and of the result
  parameter int WordW    = 8,
  parameter int Words    = 5,                 // Words * WordW >= N + 1
  parameter int TOut     = 2,                 // the first result word at res_word_i
  parameter int TFin     = 7,                 // the FIN clock
  parameter int Ports    = 1,                 // observation: count ports (the PEs)
  parameter int ObsBins  = 16,
  parameter int ObsAddrW = (ObsBins > 1) ? $clog2(ObsBins) : 1
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic                      start_i,
  input  logic                      clear_i,
  input  logic [N-1:0]              m_i,
  input  logic [WordW-1:0]          res_word_i,  // the last S, one word per clock
  output logic                      load_o,      // idle and START: load the array
  output logic                      run_o,
  output logic                      busy_o,
  output logic                      last_o,      // high during the last busy cycle (FIN)
  output logic [N-1:0]              p_o,
  output logic [Words*WordW-1:0]    res_o,       // the latched S (before the subtraction)
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [Ports-1:0]          obs_step_i,
  input  logic [Ports*ObsAddrW-1:0] obs_addr_i
  /* verilator lint_on UNUSEDSIGNAL */
);

  localparam int Bits = Words * WordW;
  localparam int CycW = $clog2(TFin + 1);
  localparam int HitW = 32;

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StRun  = 2'd1,
    StFin  = 2'd2
  } state_e;

  state_e          state_q;
  logic [CycW-1:0] cyc_q;
  logic            idle, fin;
  assign idle   = (state_q == StIdle);
  assign fin    = (state_q == StFin);
  assign load_o = idle && start_i;
  assign run_o  = (state_q == StRun);

  logic            fin_take;
  // S < 2M needs N + 1 of the Bits bits: the top bits stay zero
  /* verilator lint_off UNUSEDSIGNAL */
  logic [Bits-1:0] res_q, dif_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [Bits-1:0] mfin_q;
  logic            borrow_q;
  logic [WordW:0]  dword;
  assign fin_take = (state_q == StRun) && (cyc_q >= CycW'(TOut));
  assign dword    = {1'b0, res_word_i} - {1'b0, mfin_q[WordW-1:0]} - (WordW+1)'(borrow_q);

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
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            res_q  <= '0;
            dif_q  <= '0;
            mfin_q <= '0;
          end else if (start_i) begin
            cyc_q    <= '0;
            res_q    <= '0;
            dif_q    <= '0;
            mfin_q   <= Bits'(m_i);
            borrow_q <= 1'b0;
            state_q  <= StRun;
          end
        end
        StRun: begin
          cyc_q <= cyc_q + 1'b1;
          if (fin_take) begin
            res_q    <= {res_word_i, res_q[Bits-1:WordW]};
            dif_q    <= {dword[WordW-1:0], dif_q[Bits-1:WordW]};
            mfin_q   <= mfin_q >> WordW;
            borrow_q <= dword[WordW];
          end
          if (cyc_q == CycW'(TFin - 1)) begin
            state_q <= StFin;
          end
        end
        StFin: begin
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  assign res_o = res_q;

  // The result register and the handshake (mv_result.sv): FIN takes S - M (no borrow) or S.
  logic [N-1:0] p_fin;
  assign p_fin = sub_taken ? dif_q[N-1:0] : res_q[N-1:0];
  mv_result #(
    .ResW(N)
  ) u_result (
    `MV_RESULT_CORE_CONN,
    .idle_i(idle),
    .last_i(fin),
    .p_i   (p_fin)
  );

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  `ASSERT_INIT(ScalParamsLegal_A, TOut >= 0 && TFin > TOut && Bits >= N + 1)
  // Legal states; IDLE -> RUN only on START (without CLEAR), RUN for TFin clocks, FIN one.
  `ASSERT(ScalStateLegal_A, idle || run_o || fin, clk_i, assert_off)
  `ASSERT_IMPL(ScalRunOnStart_A, $past(idle) && !idle, $past(start_i && !clear_i) && run_o
               && cyc_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(ScalCycInRange_A, run_o, int'(cyc_q) < TFin, clk_i, assert_off)
  `ASSERT_IMPL(ScalCycSteps_A, $past(run_o) && run_o, cyc_q == $past(cyc_q) + 1'b1, clk_i,
               assert_off)
  `ASSERT_IMPL(ScalRunToFin_A, $past(run_o) && !run_o, fin && int'($past(cyc_q)) == TFin - 1,
               clk_i, assert_off)
  `ASSERT_IMPL(ScalFinOneCycle_A, $past(fin), idle, clk_i, assert_off)
  // Michalski-Buell (2006), section 5.4 (and Tenca-Koc's MWR2MM bound): the last job's
  // S < 2M, so the one word-serial subtraction in FIN leaves P fully reduced.
  `ASSERT_IMPL(ScalSBelow2M_A, fin, (Bits + 1)'(res_q) < ((Bits + 1)'(m_i) << 1), clk_i,
               assert_off)

`ifndef SYNTHESIS
  mv_observe #(
    .Bins (ObsBins),
    .HitW (HitW),
    .Ports(Ports)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (load_o),
    .count_i    (obs_step_i),
    .addr_i     (obs_addr_i),
    .fin_i      (fin),
    .sub_taken_i(sub_taken)
  );
`endif

endmodule
