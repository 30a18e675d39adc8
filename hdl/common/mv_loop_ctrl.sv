// mv_loop_ctrl: the control every folded and unfolded loop core shares, and its observation.
//
// The FSM skeleton of the bit-serial and digit-serial cores (Amanor 2005, Algorithms 1a and
// 1b; Kornerup 1994, MM42; the interleaved cores' step loop): IDLE waits for start_i, an
// optional PRE phase of PreCycles cycles precomputes (tables, odd multiples), LOOP runs
// LoopCycles iterations of the core's equation, and an optional FIN cycle (FinCycle) adds
// and reduces the result. cnt_o counts the PRE cycles, then (from 0 again) the LOOP cycles.
// The core's registers follow the one-hot phase outputs: clear_o (CLEAR while idle: zero
// them), load_o (START while idle: load the operands), pre_o, loop_o, fin_o. With a FIN
// cycle the result register P is here too: it takes p_fin_i in FIN (the core's final
// addition and reduction) and reads 0 after reset and CLEAR (unused without FIN).
//
// Observation (simulation only, hdl/common/mv_observe.sv as u_observe): per operation, the
// hits per selection address (obs_addr0_i every LOOP cycle, obs_addr1_i too in LOOP cycles
// with obs_count1_i set: the unfolded cores' second stage) and, in FIN, obs_sub_taken_i.
// The counters are cleared when START is seen while idle (also together with CLEAR).
//
// Used by mont_csa, mont_csa_u2, mont_lut, mont_lut_u2, mont_r2, mont_r4, mm42, mm42_u2,
// inter_csa, inter_lut and inter_r2 (no FIN: its last LOOP cycle ends the operation).
//
// Assertions (docs/formal.md): the phases and their order, the counter's range per phase,
// last exactly once per operation and only while busy, P changed only by FIN and CLEAR.
`include "mv_assert.svh"

module mv_loop_ctrl #(
  parameter int ResW       = 32,    // width of the result P
  parameter int LoopCycles = 32,
  parameter int PreCycles  = 0,     // 0: no PRE phase
  parameter bit FinCycle   = 1'b1,  // 0: no FIN cycle, last_o in the last LOOP cycle
  parameter int CntW       = $clog2(LoopCycles + 1),
  parameter int ObsBins    = 4,
  parameter int ObsAddrW   = (ObsBins > 1) ? $clog2(ObsBins) : 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                start_i,
  input  logic                clear_i,
  output logic                clear_o,      // idle and CLEAR: zero the core's registers
  output logic                load_o,       // idle and START (no CLEAR): load the operands
  output logic                pre_o,
  output logic                loop_o,
  output logic                last_loop_o,  // the last LOOP cycle
  output logic                fin_o,
  output logic [CntW-1:0]     cnt_o,
  output logic                busy_o,
  output logic                last_o,       // high during the last busy cycle
  input  logic [ResW-1:0]     p_fin_i,      // the result, taken in FIN
  output logic [ResW-1:0]     p_o,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [ObsAddrW-1:0] obs_addr0_i,
  input  logic                obs_count1_i,
  input  logic [ObsAddrW-1:0] obs_addr1_i,
  input  logic                obs_sub_taken_i
  /* verilator lint_on UNUSEDSIGNAL */
);

  localparam int HitW = 32;

  typedef enum logic [1:0] {StIdle, StPre, StLoop, StFin} state_e;

  state_e          state_q;
  logic [CntW-1:0] cnt_q;
  logic            idle;

  assign idle        = (state_q == StIdle);
  assign clear_o     = idle && clear_i;
  assign load_o      = idle && !clear_i && start_i;
  assign pre_o       = (state_q == StPre);
  assign loop_o      = (state_q == StLoop);
  assign last_loop_o = (cnt_q == CntW'(LoopCycles - 1));
  assign fin_o       = (state_q == StFin);
  assign cnt_o       = cnt_q;
  assign busy_o      = !idle;
  assign last_o      = FinCycle ? fin_o : (loop_o && last_loop_o);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      cnt_q   <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (load_o) begin
            cnt_q   <= '0;
            state_q <= (PreCycles > 0) ? StPre : StLoop;
          end
        end
        StPre: begin
          cnt_q <= cnt_q + 1'b1;
          if (cnt_q == CntW'(PreCycles - 1)) begin
            cnt_q   <= '0;
            state_q <= StLoop;
          end
        end
        StLoop: begin
          cnt_q <= cnt_q + 1'b1;
          if (last_loop_o) begin
            state_q <= FinCycle ? StFin : StIdle;
          end
        end
        StFin: begin
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  // The result register (without a FIN cycle it stays 0: the core keeps its own result)
  logic [ResW-1:0] p_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_q <= '0;
    end else if (clear_o) begin
      p_q <= '0;
    end else if (fin_o) begin
      p_q <= p_fin_i;
    end
  end
  assign p_o = p_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md). Not a paper's equation: the control this module implements.
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // The counter holds every PRE step and LOOP iteration, and LoopCycles after the loop.
  `ASSERT_INIT(LoopParamsLegal_A, LoopCycles >= 1 && PreCycles >= 0
                                  && PreCycles <= (1 << CntW) && LoopCycles < (1 << CntW))
  // Legal phases: PRE only with PreCycles > 0, FIN only with FinCycle; one phase at a time.
  `ASSERT(LoopPhaseLegal_A, (!pre_o || PreCycles > 0) && (!fin_o || FinCycle), clk_i,
          assert_off)
  `ASSERT(LoopPhaseOneHot_A, $onehot0({clear_o, load_o, pre_o, loop_o, fin_o}), clk_i,
          assert_off)
  // Legal transitions: IDLE -> (PRE ->) LOOP -> (FIN ->) IDLE, leaving IDLE only on START,
  // PRE after PreCycles cycles, LOOP after its last iteration, FIN after one cycle.
  `ASSERT_IMPL(LoopStartsOnLoad_A, $past(idle) && !idle, $past(load_o), clk_i, assert_off)
  `ASSERT_IMPL(LoopLoadEntersPhase_A, $past(load_o), ((PreCycles > 0) ? pre_o : loop_o)
               && cnt_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(LoopPreExit_A, $past(pre_o) && !pre_o, loop_o && cnt_q == '0
               && int'($past(cnt_q)) == PreCycles - 1, clk_i, assert_off)
  `ASSERT_IMPL(LoopLoopExit_A, $past(loop_o) && !loop_o, $past(last_loop_o)
               && (FinCycle ? fin_o : idle), clk_i, assert_off)
  `ASSERT_IMPL(LoopFinOneCycle_A, $past(fin_o), idle, clk_i, assert_off)
  // Counter in range for the phase, one step per PRE or LOOP cycle, LoopCycles in FIN.
  `ASSERT_IMPL(LoopCntInPre_A, pre_o, int'(cnt_q) < PreCycles, clk_i, assert_off)
  `ASSERT_IMPL(LoopCntInLoop_A, loop_o, int'(cnt_q) < LoopCycles, clk_i, assert_off)
  `ASSERT_IMPL(LoopCntSteps_A, $past(pre_o || loop_o) && $stable(state_q),
               cnt_q == $past(cnt_q) + 1'b1, clk_i, assert_off)
  `ASSERT_IMPL(LoopCntAtFin_A, fin_o, int'(cnt_q) == LoopCycles, clk_i, assert_off)
  `ASSERT_IMPL(LoopCntIdle_A, idle, cnt_q == '0 || int'(cnt_q) == LoopCycles, clk_i,
               assert_off)
  // last_o: only while busy and exactly once per operation (IDLE follows it, and busy ends
  // only after it).
  `ASSERT_IMPL(LoopLastWhileBusy_A, last_o, busy_o, clk_i, assert_off)
  `ASSERT_IMPL(LoopIdleAfterLast_A, $past(last_o), idle, clk_i, assert_off)
  `ASSERT_IMPL(LoopBusyEndsOnLast_A, $past(busy_o) && idle, $past(last_o), clk_i, assert_off)
  // P changes only in FIN (the result) and on CLEAR (zero): stable while idle otherwise.
  `ASSERT_IMPL(LoopResultStable_A, $past(!fin_o && !clear_o), $stable(p_o), clk_i, assert_off)

`ifndef SYNTHESIS
  // Named first: Icarus 11 turns an enum compared inside a port connection into Z.
  logic obs_clear, obs_count1;
  assign obs_clear  = idle && start_i;
  assign obs_count1 = loop_o && obs_count1_i;
  mv_observe #(
    .Bins (ObsBins),
    .HitW (HitW),
    .Ports(2)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (obs_clear),
    .count_i    ({obs_count1, loop_o}),
    .addr_i     ({obs_addr1_i, obs_addr0_i}),
    .fin_i      (fin_o),
    .sub_taken_i(obs_sub_taken_i)
  );
`endif

endmodule
