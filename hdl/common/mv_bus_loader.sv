// mv_bus_loader: the narrow acknowledged bus in front of every multiplier core.
//
// After the input register blocks of Amanor (2005), Fig. 15 and section 5.4 (Fig. 17): the
// operands X, Y, M are loaded a bus word at a time into registers that feed the core, the
// core is started once loading is complete, and results are read back a word at a time.
// Michalski-Buell (Fig. 7) use the same scheme with a z-bit bus.
//
// Protocol: the host holds req/we/addr/wdata until the loader raises ack for one cycle. The
// loader performs the transfer on the edge that raises ack, AckWait cycles after it first
// sees req; rdata is valid while ack is high. A request is not taken while ack is high, so
// the host may keep req asserted for the next transfer.
//
// The register map (regions, fields, error codes) comes from mv_regmap_pkg, generated from
// hdl/common/regmap.json; see docs/generated/regmap.md.
//
// Assertions (hdl/common/mv_assert.svh; on in Verilator builds and under FORMAL, absent in
// Icarus) check the bus handshake, the busy/done/error rules and the core's port contract;
// `montverif formal --block mv_bus_loader` proves them (docs/formal.md).
`include "mv_assert.svh"

`ifdef FORMAL  // yosys' own front end takes a package import at file level only
import mv_regmap_pkg::*;
`endif

module mv_bus_loader
`ifndef FORMAL
  import mv_regmap_pkg::*;
`endif
#(
  parameter int N        = 32,  // operand width
  parameter int BusW     = 32,  // bus width: 8, 16, 32 or 64
  parameter int RedW     = 33,  // width of the core's redundant S and C
  parameter bit          HasRed   = 1'b1,  // the core keeps S and C (else S, C are unmapped)
  parameter int DesignId = 0,
  parameter int AckWait  = 0,   // wait states before each ack
  // Carry-save operands (Gajbhiye 2018, MM42): the second halves X2, Y2 are mapped, x_o and
  // y_o are 2N bits wide ({X2, X} and {Y2, Y}), and the range rule is X + X2 < 2M,
  // Y + Y2 < 2M (Walter's bound) instead of X, Y < M. With 0, X2/Y2 are unmapped and x_o,
  // y_o are N bits (the ports of the other tops are unchanged).
  parameter bit          HasHalves = 1'b0,
  // The operand domains (the design's descriptor, [operands] domain): with RangeX = 1 a START
  // needs X < M (X + X2 < 2M with HasHalves), with 0 any N-bit X (any halves) starts, e.g.
  // the operand a Montgomery loop only scans. RangeY likewise for Y (0 also for a design
  // that reads no Y, the RSA core: a Y >= M left in the register refuses nothing).
  parameter bit          RangeX    = 1'b1,
  parameter bit          RangeY    = 1'b1,
  // Host-precomputed registers (regmap `precomputed`) and RSA registers, each mapped only
  // when enabled: MP (m'), MHAT (M-hat), R2 (R^2 mod M), E (exponent: write-only, wiped when
  // an operation ends and by CLEAR). HasField maps CTRL.FIELD (0: GF(p), 1: GF(2^n)), latched
  // by an accepted START onto field_o. Disabled registers read as unmapped and drive 0.
  parameter bit          HasMp     = 1'b0,
  parameter bit          HasMhat   = 1'b0,
  parameter bit          HasR2     = 1'b0,
  parameter bit          HasE      = 1'b0,
  parameter bit          HasField  = 1'b0,
  localparam int         OpW       = HasHalves ? 2 * N : N  // width of x_o, y_o
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // host bus
  input  logic             bus_req_i,
  input  logic             bus_we_i,
  input  logic [AddrW-1:0] bus_addr_i,
  input  logic [BusW-1:0]  bus_wdata_i,
  output logic             bus_ack_o,
  output logic [BusW-1:0]  bus_rdata_o,
  // status pins (also readable in STATUS)
  output logic             busy_o,
  output logic             done_o,
  // core
  output logic             core_start_o,  // start the core on this edge
  output logic             core_clear_o,  // wipe the core's registers on this edge
  output logic [OpW-1:0]   x_o,           // {X2, X} with HasHalves, else X
  output logic [OpW-1:0]   y_o,           // {Y2, Y} with HasHalves, else Y
  output logic [N-1:0]     m_o,
  output logic [N-1:0]     mp_o,          // MP   (0 unless HasMp)
  output logic [N-1:0]     mhat_o,        // MHAT (0 unless HasMhat)
  output logic [N-1:0]     r2_o,          // R2   (0 unless HasR2)
  output logic [N-1:0]     e_o,           // E    (0 unless HasE)
  output logic             field_o,       // CTRL.FIELD of the last accepted START
  input  logic             core_busy_i,
  input  logic             core_last_i,   // the core's last busy cycle
  input  logic [N-1:0]     p_i,
  input  logic [RedW-1:0]  s_i,
  input  logic [RedW-1:0]  c_i
);

  localparam int OpWords  = (N + BusW - 1) / BusW;
  localparam int RedWords = (RedW + BusW - 1) / BusW;
  localparam int CntWords = (CounterW + BusW - 1) / BusW;
  localparam int OpPadW   = OpWords * BusW;
  localparam int RedPadW  = RedWords * BusW;
  localparam int CntPadW  = CntWords * BusW;
  localparam int WaitW    = (AckWait > 0) ? $clog2(AckWait + 1) : 1;
  localparam int NInfoW   = 16;
  localparam int IdInfoW  = 8;

  // Elaboration-time parameter checks: an illegal build stops here with a message.
  if (BusW != 8 && BusW != 16 && BusW != 32 && BusW != 64) begin : g_bad_busw
    initial $fatal(1, "mv_bus_loader: BusW must be 8, 16, 32 or 64 (got %0d)", BusW);
  end
  if (RedWords > (1 << IndexW)) begin : g_too_wide
    initial $fatal(1, "mv_bus_loader: N=%0d needs more words than the register map indexes at BusW=%0d", N, BusW);
  end
  if (N >= (1 << NInfoW)) begin : g_n_info
    initial $fatal(1, "mv_bus_loader: N=%0d does not fit the INFO register", N);
  end

  // ---------------------------------------------------------------------------------------
  // Transfer acceptance, with AckWait wait states
  // ---------------------------------------------------------------------------------------
  logic             ack_q;
  logic [WaitW-1:0] wait_q;
  logic             waiting;
  logic             accept;

  assign waiting = bus_req_i && !ack_q;
  assign accept  = waiting && (wait_q == WaitW'(AckWait));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wait_q <= '0;
    end else if (waiting && !accept) begin
      wait_q <= wait_q + 1'b1;
    end else begin
      wait_q <= '0;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Address decode
  // ---------------------------------------------------------------------------------------
  logic [RegionW-1:0] region;
  logic [IndexW-1:0]  index;
  assign region = bus_addr_i[AddrW-1 -: RegionW];
  assign index  = bus_addr_i[IndexW-1:0];

  logic mapped_rd;
  logic mapped_wr;
  always_comb begin
    mapped_rd = 1'b0;
    mapped_wr = 1'b0;
    case (region)
      RegionCtrl:                     mapped_wr = (index == '0);
      RegionStatus:                   mapped_rd = (index == '0);
      RegionCycles, RegionInfo:       mapped_rd = (32'(index) < CntWords);
      RegionX, RegionY, RegionM: begin
        mapped_rd = (32'(index) < OpWords);
        mapped_wr = (32'(index) < OpWords);
      end
      RegionX2, RegionY2: begin
        mapped_rd = HasHalves && (32'(index) < OpWords);
        mapped_wr = HasHalves && (32'(index) < OpWords);
      end
      RegionMp: begin
        mapped_rd = HasMp && (32'(index) < OpWords);
        mapped_wr = HasMp && (32'(index) < OpWords);
      end
      RegionMhat: begin
        mapped_rd = HasMhat && (32'(index) < OpWords);
        mapped_wr = HasMhat && (32'(index) < OpWords);
      end
      RegionR2: begin
        mapped_rd = HasR2 && (32'(index) < OpWords);
        mapped_wr = HasR2 && (32'(index) < OpWords);
      end
      RegionE:                        mapped_wr = HasE && (32'(index) < OpWords);
      RegionP:                        mapped_rd = (32'(index) < OpWords);
      RegionS, RegionC:               mapped_rd = HasRed && (32'(index) < RedWords);
      default: ;
    endcase
  end

  // ---------------------------------------------------------------------------------------
  // Operand registers (the input register blocks) and control
  // ---------------------------------------------------------------------------------------
  logic [OpPadW-1:0]  x_q, y_q, m_q;
  logic [OpPadW-1:0]  x2_q, y2_q;  // second halves, written only when HasHalves
  logic [OpPadW-1:0]  mp_q, mhat_q, r2_q;  // written only when enabled
  // E is write-only: its bus padding above N is never read.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [OpPadW-1:0]  e_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic               field_q;
  logic               done_q;
  logic [ErrW-1:0]    err_q;
  logic [CounterW-1:0] cycles_q;

  logic wr, rd, is_ctrl, want_start, want_clear, operands_ok, odd_modulus;
  assign wr          = accept && bus_we_i;
  assign rd          = accept && !bus_we_i;
  assign is_ctrl     = wr && mapped_wr && (region == RegionCtrl);
  assign want_clear  = is_ctrl && bus_wdata_i[CtrlClearLsb];
  assign want_start  = is_ctrl && bus_wdata_i[CtrlStartLsb] && !bus_wdata_i[CtrlClearLsb];
  assign odd_modulus = m_q[0];
  // Range rule, per operand whose domain has one (RangeX, RangeY): X < M, Y < M; with
  // carry-save operands X + X2 < 2M, Y + Y2 < 2M (N+1 bits).
  logic [N:0] x_sum, y_sum, m_twice;
  logic       x_ok, y_ok;
  assign x_sum   = {1'b0, x_q[N-1:0]} + {1'b0, x2_q[N-1:0]};
  assign y_sum   = {1'b0, y_q[N-1:0]} + {1'b0, y2_q[N-1:0]};
  assign m_twice = {m_q[N-1:0], 1'b0};
  assign x_ok = !RangeX || (HasHalves ? x_sum < m_twice : x_q[N-1:0] < m_q[N-1:0]);
  assign y_ok = !RangeY || (HasHalves ? y_sum < m_twice : y_q[N-1:0] < m_q[N-1:0]);
  assign operands_ok = odd_modulus && x_ok && y_ok;

  assign core_start_o = want_start && !core_busy_i && operands_ok;
  assign core_clear_o = want_clear && !core_busy_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q    <= '0;
      y_q    <= '0;
      m_q    <= '0;
      x2_q   <= '0;
      y2_q   <= '0;
      mp_q   <= '0;
      mhat_q <= '0;
      r2_q   <= '0;
      e_q    <= '0;
      field_q <= 1'b0;
      done_q <= 1'b0;
      err_q  <= ErrNone;
    end else begin
      if (core_last_i) begin
        done_q <= 1'b1;
        e_q    <= '0;  // the secret exponent does not outlive its operation
      end
      if ((rd && !mapped_rd) || (wr && !mapped_wr)) begin
        err_q <= ErrUnmapped;
      end else if (wr && core_busy_i) begin
        err_q <= ErrBusy;  // any write while busy is ignored
      end else if (core_clear_o) begin
        x_q    <= '0;
        y_q    <= '0;
        m_q    <= '0;
        x2_q   <= '0;
        y2_q   <= '0;
        mp_q   <= '0;
        mhat_q <= '0;
        r2_q   <= '0;
        e_q    <= '0;
        field_q <= 1'b0;
        done_q <= 1'b0;
        err_q  <= ErrNone;
      end else if (want_start) begin
        done_q <= 1'b0;
        if (core_start_o) begin
          field_q <= HasField && bus_wdata_i[CtrlFieldLsb];
        end
        if (!odd_modulus) begin
          err_q <= ErrEvenModulus;
        end else if (!operands_ok) begin
          err_q <= ErrRange;
        end else begin
          err_q <= ErrNone;
        end
      end else if (wr) begin
        case (region)
          RegionX: x_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionY: y_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionM: m_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionX2: if (HasHalves) x2_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionY2: if (HasHalves) y2_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionMp: if (HasMp) mp_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionMhat: if (HasMhat) mhat_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionR2: if (HasR2) r2_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          RegionE: if (HasE) e_q[32'(index) * BusW +: BusW] <= bus_wdata_i;
          default: ;  // CTRL with neither START nor CLEAR: no operation
        endcase
      end
    end
  end

  // Cycle counter: cleared on an accepted START or CLEAR, counts every busy cycle.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cycles_q <= '0;
    end else if (core_start_o || core_clear_o) begin
      cycles_q <= '0;
    end else if (core_busy_i && cycles_q != '1) begin
      cycles_q <= cycles_q + 1'b1;
    end
  end

  if (HasHalves) begin : g_halves_out
    assign x_o = {x2_q[N-1:0], x_q[N-1:0]};
    assign y_o = {y2_q[N-1:0], y_q[N-1:0]};
  end else begin : g_single_out
    assign x_o = x_q[N-1:0];
    assign y_o = y_q[N-1:0];
  end
  assign m_o     = m_q[N-1:0];
  assign mp_o    = mp_q[N-1:0];
  assign mhat_o  = mhat_q[N-1:0];
  assign r2_o    = r2_q[N-1:0];
  assign e_o     = e_q[N-1:0];
  assign field_o = field_q;
  assign busy_o = core_busy_i;
  assign done_o = done_q;

  // ---------------------------------------------------------------------------------------
  // Read mux (results read as zero while busy)
  // ---------------------------------------------------------------------------------------
  logic [OpPadW-1:0]  p_pad;
  logic [RedPadW-1:0] s_pad, c_pad;
  logic [CntPadW-1:0] cycles_pad, info_pad;
  logic [BusW-1:0]    status_word, rdata_d;

  assign p_pad      = OpPadW'(p_i);
  assign s_pad      = RedPadW'(s_i);
  assign c_pad      = RedPadW'(c_i);
  assign cycles_pad = CntPadW'(cycles_q);
  assign info_pad   = CntPadW'({RegmapVersion[7:0], DesignId[IdInfoW-1:0], N[NInfoW-1:0]});

  // One whole-vector assignment: Icarus 11 re-triggers an always_comb that assigns bit
  // selects of its own output (it reads the whole vector back) and loops forever.
  assign status_word = (BusW'(core_busy_i) << StatusBusyLsb)
                     | (BusW'(done_q) << StatusDoneLsb)
                     | (BusW'(err_q) << StatusErrLsb);

  always_comb begin
    rdata_d = '0;
    if (mapped_rd) begin
      case (region)
        RegionStatus: rdata_d = status_word;
        RegionCycles: rdata_d = cycles_pad[32'(index) * BusW +: BusW];
        RegionInfo:   rdata_d = info_pad[32'(index) * BusW +: BusW];
        RegionX:      rdata_d = x_q[32'(index) * BusW +: BusW];
        RegionY:      rdata_d = y_q[32'(index) * BusW +: BusW];
        RegionM:      rdata_d = m_q[32'(index) * BusW +: BusW];
        RegionX2:     rdata_d = x2_q[32'(index) * BusW +: BusW];
        RegionY2:     rdata_d = y2_q[32'(index) * BusW +: BusW];
        RegionMp:     rdata_d = mp_q[32'(index) * BusW +: BusW];
        RegionMhat:   rdata_d = mhat_q[32'(index) * BusW +: BusW];
        RegionR2:     rdata_d = r2_q[32'(index) * BusW +: BusW];
        RegionP:      rdata_d = core_busy_i ? '0 : p_pad[32'(index) * BusW +: BusW];
        RegionS:      rdata_d = core_busy_i ? '0 : s_pad[32'(index) * BusW +: BusW];
        RegionC:      rdata_d = core_busy_i ? '0 : c_pad[32'(index) * BusW +: BusW];
        default: ;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ack_q       <= 1'b0;
      bus_rdata_o <= '0;
    end else begin
      ack_q       <= accept;
      bus_rdata_o <= rd ? rdata_d : '0;
    end
  end

  assign bus_ack_o = ack_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md). `_A`: the loader's own properties; `_M`: what it assumes of
  // the host and of the core (assumptions under FORMAL, checked as assertions in simulation).
  // ---------------------------------------------------------------------------------------
  // The assertions are off in reset and in the first cycle after it (mv_assert.svh); the
  // assumptions hold from the first cycle out of reset under FORMAL, so that every $past an
  // assertion reads is constrained, and in simulation are checked as the assertions are.
  `MV_ASSERT_OFF(clk_i, rst_ni)
`ifdef MV_ASSERT_ON
  logic assume_off;
`ifdef FORMAL
  assign assume_off = !rst_ni;
`else
  assign assume_off = assert_off;
`endif

  // Assertion-only shadow state: for how many cycles in a row a request has waited (req high,
  // ack low) before this cycle, saturating. It drives nothing.
  localparam int PendW = $clog2(AckWait + 3);
  logic [PendW-1:0] pend_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q <= '0;
    end else if (bus_req_i && !bus_ack_o) begin
      pend_q <= (pend_q == '1) ? pend_q : pend_q + 1'b1;
    end else begin
      pend_q <= '0;
    end
  end
`endif

  // The host (docs/generated/regmap.md): a request is held, unchanged, until its ack.
  `ASSUME_IMPL(HostHoldsRequest_M, $past(bus_req_i && !bus_ack_o) && !bus_ack_o,
               bus_req_i && $stable(bus_we_i) && $stable(bus_addr_i) && $stable(bus_wdata_i),
               clk_i, assume_off)

  // The core's port contract (docs/own-design.md): busy from the cycle after start to the
  // last cycle, last only while busy, the result stable after the operation while its
  // operands are.
  `ASSUME_IMPL(CoreLastWhileBusy_M, core_last_i, core_busy_i, clk_i, assume_off)
  `ASSUME_IMPL(CoreBusyAfterStart_M, $past(core_start_o), core_busy_i, clk_i, assume_off)
  `ASSUME_IMPL(CoreBusyRisesOnStart_M, $rose(core_busy_i), $past(core_start_o), clk_i, assume_off)
  `ASSUME_IMPL(CoreIdleAfterLast_M, $past(core_last_i), !core_busy_i, clk_i, assume_off)
  `ASSUME_IMPL(CoreBusyEndsAfterLast_M, $fell(core_busy_i), $past(core_last_i), clk_i, assume_off)
  `ASSUME_IMPL(CoreResultStable_M,
               $past(done_q && !core_busy_i) && done_q && !core_busy_i && $stable(x_o)
               && $stable(y_o) && $stable(m_o) && $stable(mp_o) && $stable(mhat_o)
               && $stable(r2_o) && $stable(e_o) && $stable(field_o),
               $stable(p_i) && $stable(s_i) && $stable(c_i), clk_i, assume_off)

`ifdef MV_ASSERT_ON
  // Handshake: every ack ends a request that waited exactly AckWait + 1 cycles (no ack
  // without a request), no request waits longer, and an ack lasts one cycle (one ack per
  // request); rdata is zero but under a read's ack.
  `ASSERT_IMPL(AckAfterWait_A, bus_ack_o, pend_q == PendW'(AckWait + 1), clk_i, assert_off)
  `ASSERT_IMPL(AckWithinBound_A, bus_req_i && !bus_ack_o, pend_q <= PendW'(AckWait),
               clk_i, assert_off)
`endif
  `ASSERT_IMPL(AckOneCycle_A, $past(bus_ack_o), !bus_ack_o, clk_i, assert_off)
  `ASSERT_IMPL(RdataOnlyOnReadAck_A, !bus_ack_o || $past(bus_we_i), bus_rdata_o == '0,
               clk_i, assert_off)
  // Counters in range: the wait-state counter never passes AckWait and restarts with each
  // request; the cycle counter steps by one and saturates.
  `ASSERT(WaitInRange_A, wait_q <= WaitW'(AckWait), clk_i, assert_off)
`ifdef MV_ASSERT_ON
  `ASSERT_IMPL(WaitTracksRequest_A, !bus_ack_o, PendW'(wait_q) == pend_q, clk_i, assert_off)
`endif
  `ASSERT(CyclesStep_A, cycles_q == '0 || cycles_q == $past(cycles_q)
                        || cycles_q == $past(cycles_q) + 1'b1, clk_i, assert_off)
  `ASSERT_IMPL(CyclesSaturate_A, $past(cycles_q == '1 && !core_start_o && !core_clear_o),
               cycles_q == '1, clk_i, assert_off)
  `ASSERT_IMPL(CyclesCountBusy_A, $past(core_busy_i && cycles_q != '1), cycles_q != '0
               && cycles_q == $past(cycles_q) + 1'b1, clk_i, assert_off)
  // Writes while busy have no effect on the operand registers (the exponent is only wiped
  // when the operation ends).
  `ASSERT_IMPL(NoWriteWhileBusy_A, $past(core_busy_i),
               $stable(x_q) && $stable(y_q) && $stable(m_q) && $stable(x2_q) && $stable(y2_q)
               && $stable(mp_q) && $stable(mhat_q) && $stable(r2_q) && $stable(field_q)
               && ($stable(e_q) || e_q == '0), clk_i, assert_off)
  `ASSERT_IMPL(WriteWhileBusyFlagged_A, $past(wr && mapped_wr && core_busy_i),
               err_q == ErrBusy, clk_i, assert_off)
  `ASSERT_IMPL(SecretWipedAtEnd_A, $past(core_last_i), e_q == '0, clk_i, assert_off)
  // Start and clear: only while idle, never both, a start only with legal operands; busy,
  // done and error agree.
  `ASSERT_NEVER(StartAndClear_A, core_start_o && core_clear_o, clk_i, assert_off)
  `ASSERT_IMPL(StartWhileIdle_A, core_start_o || core_clear_o, !core_busy_i, clk_i, assert_off)
  `ASSERT_IMPL(StartNeedsOddModulus_A, core_start_o, m_q[0], clk_i, assert_off)
  `ASSERT_IMPL(StartClearsStatus_A, $past(core_start_o), !done_o && err_q == ErrNone,
               clk_i, assert_off)
  `ASSERT_IMPL(ClearWipes_A, $past(core_clear_o), !done_o && err_q == ErrNone && x_q == '0
               && y_q == '0 && m_q == '0 && e_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(DoneAfterLast_A, $past(core_last_i), done_o, clk_i, assert_off)
  `ASSERT_IMPL(DoneRisesOnLast_A, $rose(done_o), $past(core_last_i), clk_i, assert_off)
  `ASSERT_IMPL(DoneFallsOnStartOrClear_A, $fell(done_o), $past(want_start || core_clear_o),
               clk_i, assert_off)
  `ASSERT_NEVER(DoneWhileBusy_A, done_o && core_busy_i, clk_i, assert_off)
  `ASSERT(ErrLegal_A, err_q <= ErrUnmapped, clk_i, assert_off)
  `ASSERT_IMPL(DisabledRegsZero_A, 1'b1, (HasMp || mp_o == '0) && (HasMhat || mhat_o == '0)
               && (HasR2 || r2_o == '0) && (HasE || e_o == '0) && (HasField || !field_o),
               clk_i, assert_off)
  `ASSERT_KNOWN(BusAckKnown_A, bus_ack_o, clk_i, assert_off)
  `ASSERT_KNOWN(CoreStartKnown_A, core_start_o, clk_i, assert_off)

endmodule
