// mv_bus_engine: simulation-only bus host of the testbench's fast mode (`BUS=engine`).
//
// The Python driver hands over a script (a flat list of up to Depth entries, each a write,
// a read or a wait for done, with its address, write data and idle cycles) in tb_script and
// toggles go_i; this engine runs the whole script with the same protocol and timing rules as
// the Python pin driver (requests driven after a falling edge, held until ack, optional idle
// cycles before each transfer, the next entry started at the falling edge that saw the ack or
// done) and logs, per entry, the read data and the falling edge (counted in cycles from the
// script's start) that saw its ack or done. It toggles fin_o when the script is complete, at
// the rising edge after the falling edge that ended it: the log, the position and the timeout
// flag are then half a cycle old, so a callback on fin_o reads them settled in any simulator,
// without waiting for a read-only phase. Python wakes once per script (up to DoneSlots
// operations: load, START, wait, read back) instead of several times per transfer. The log is what the pins
// showed: the predictor and the scoreboard check every transfer exactly as in pin mode.
//
// The script and the log are the engine's own variables, not ports: the testbench writes
// tb_script and reads tb_log_q straight through VPI (made public by the build's Verilator
// control file, regress/flow/simulate.py). Verilator copies every port of the toplevel whole at every
// evaluation; as ports of the wrapper these two (23,000 bits at N = 1024) were copied at
// every evaluation, twice per clock cycle.
//
// The engine also stands in for the testbench's done observer: at every falling edge it
// compares done_i with its value half a cycle before, and at a rise (done_o rose at the
// rising edge just before) counts it in tb_done_rises_q, records that falling edge's $time in
// slot (rises - 1) % DoneSlots of tb_done_time_q and captures obs_i (the design's observation
// signals: table-address hit counters and final-subtraction flag, connected by the generated
// wrapper) in the same slot of tb_done_obs_q: one slot per operation of a script.
// The design changes nothing between the two edges, so the capture is what pin mode reads at
// the rising edge of done_o; Python reads it after the script instead of waking at the edge.
//
// Entries are two slots of Slot = EntStride / 2 bits each (the generated wrapper passes
// EntStride = 2 * max(BusW, 32)), so that Python packs and unpacks them as machine words, the
// two slots of a whole script as two interleaved arrays. Entry k of tb_script, at
// [k*EntStride +: EntStride]: the write data in the low slot ([0 +: BusW]), and in the high slot
// ([Slot +: MetaW]) the kind (2 bits), the address (AddrW) and the idle cycles (IdleW). Entry k
// of tb_log_q, at [k*EntStride +: EntStride]: in the low slot the cycle of the falling edge
// after its ack (or its done) counted from the falling edge that started the script (32 bits),
// in the high slot the read data (BusW; 0 for writes and waits).
module mv_bus_engine #(
  parameter int BusW  = 32,
  parameter int AddrW = 14,
  parameter int Depth = 2,   // most entries in one script (one whole operation)
  parameter int IdleW = 4,
  parameter int EntStride = 64,  // bits of a script or log entry: two slots
  parameter int LenW  = 16,
  parameter int ObsW  = 1,   // bits of obs_i
  parameter int DoneSlots = 1  // done captures kept: the most operations in one script
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // one script, written by Python before it toggles go_i
  input  logic                   go_i,
  input  logic [LenW-1:0]        len_i,           // entries in the script (<= Depth)
  input  logic [31:0]            ack_timeout_i,   // cycles without ack before giving up
  input  logic [31:0]            done_timeout_i,  // cycles without done before giving up
  output logic                   fin_o,           // toggles when the script is complete
  output logic                   timeout_o,       // the script gave up (no ack / no done)
  output logic [LenW-1:0]        pos_o,           // the entry running (that gave up)
  output logic [63:0]            start_o,         // $time of the falling edge of the go
  // the loader's bus
  output logic                   req_o,
  output logic                   we_o,
  output logic [AddrW-1:0]       addr_o,
  output logic [BusW-1:0]        wdata_o,
  input  logic                   ack_i,
  input  logic [BusW-1:0]        rdata_i,
  input  logic                   done_i,
  input  logic [ObsW-1:0]        obs_i            // captured when done_i rises
);

  localparam int Slot  = EntStride / 2;
  localparam int MetaW = 2 + AddrW + IdleW;  // kind, address, idle cycles
  localparam int CycW  = 32;                 // a log entry's cycle
  localparam int LogW  = EntStride;

  initial begin
    if (EntStride % 16 != 0 || Slot < BusW || Slot < MetaW || Slot < CycW) begin
      $fatal(1, "mv_bus_engine: EntStride %0d is not two slots of whole bytes holding BusW %0d, %0d bits of kind, address and idle, and a %0d-bit cycle",
             EntStride, BusW, MetaW, CycW);
    end
  end
  localparam logic [1:0] KindWrite    = 2'd0;
  localparam logic [1:0] KindRead     = 2'd1;
  localparam logic [1:0] KindWaitDone = 2'd2;
  localparam logic [1:0] StIdle = 2'd0, StGap = 2'd1, StReq = 2'd2, StDone = 2'd3;

  logic [1:0]       state_q;
  logic             go_seen_q;
  logic [LenW-1:0]  pos_q;
  logic [IdleW-1:0] gap_q;
  logic [31:0]      wait_q;
  logic [31:0]      cyc_q;  // falling edges since the script started
  logic             fin_q;  // toggled at the falling edge that ends a script

  assign pos_o = pos_q;

  // written by the testbench only (VPI), before it toggles go_i
  /* verilator lint_off UNDRIVEN */
  logic [Depth*EntStride-1:0] tb_script;
  /* verilator lint_on UNDRIVEN */
  // read by the testbench only (VPI), after fin_o toggled
  /* verilator lint_off UNUSED */
  logic [Depth*LogW-1:0] tb_log_q;
  /* verilator lint_on UNUSED */

  // the done observation: read by the testbench only (VPI), after fin_o toggled
  localparam int SlotW = DoneSlots > 1 ? $clog2(DoneSlots) : 1;
  logic             done_seen_q;  // done_i at the previous falling edge
  logic [SlotW-1:0] done_slot_q;  // the slot of the next rise
  /* verilator lint_off UNUSED */
  logic [31:0]      tb_done_rises_q;  // rises of done_i since reset
  // per slot: $time of the falling edge that saw a rise, obs_i at that edge
  logic [DoneSlots*64-1:0]   tb_done_time_q;
  logic [DoneSlots*ObsW-1:0] tb_done_obs_q;
  /* verilator lint_on UNUSED */

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_seen_q     <= 1'b0;
      done_slot_q     <= '0;
      tb_done_rises_q <= '0;
      tb_done_time_q  <= '0;
      tb_done_obs_q   <= '0;
    end else begin
      done_seen_q <= done_i;
      if (done_i && !done_seen_q) begin
        tb_done_rises_q <= tb_done_rises_q + 1'b1;
        tb_done_time_q[32'(done_slot_q) * 64 +: 64]   <= $time;
        tb_done_obs_q[32'(done_slot_q) * ObsW +: ObsW] <= obs_i;
        done_slot_q <= (32'(done_slot_q) == DoneSlots - 1) ? '0 : done_slot_q + 1'b1;
      end
    end
  end

  // fields of entry k
  function automatic logic [1:0] kind_of(input logic [LenW-1:0] k);
    return tb_script[32'(k) * EntStride + Slot +: 2];
  endfunction

  function automatic logic [AddrW-1:0] addr_of(input logic [LenW-1:0] k);
    return tb_script[32'(k) * EntStride + Slot + 2 +: AddrW];
  endfunction

  function automatic logic [BusW-1:0] wdata_of(input logic [LenW-1:0] k);
    return tb_script[32'(k) * EntStride +: BusW];
  endfunction

  function automatic logic [IdleW-1:0] idle_of(input logic [LenW-1:0] k);
    return tb_script[32'(k) * EntStride + Slot + 2 + AddrW +: IdleW];
  endfunction

  // Drive the request of entry k (a write or a read) at this falling edge.
  task automatic drive(input logic [LenW-1:0] k);
    req_o   <= 1'b1;
    we_o    <= (kind_of(k) == KindWrite);
    addr_o  <= addr_of(k);
    wdata_o <= (kind_of(k) == KindWrite) ? wdata_of(k) : '0;
    state_q <= StReq;
  endtask

  // Start transfer k (or its idle gap) at this falling edge.
  task automatic begin_transfer(input logic [LenW-1:0] k);
    pos_q  <= k;
    wait_q <= '0;
    if (idle_of(k) != '0) begin
      req_o   <= 1'b0;
      gap_q   <= idle_of(k);
      state_q <= StGap;
    end else begin
      drive(k);
    end
  endtask

  task automatic finish(input logic gave_up);
    req_o     <= 1'b0;
    timeout_o <= gave_up;
    fin_q     <= ~fin_q;
    state_q   <= StIdle;
  endtask

  task automatic log_entry(input logic [LenW-1:0] k, input logic [31:0] cyc,
                           input logic [BusW-1:0] data);
    tb_log_q[32'(k) * LogW +: LogW] <= (LogW'(data) << Slot) | LogW'(cyc);
  endtask

  // Start entry k at this falling edge (cycle `cyc` of the script). A wait whose done is
  // already high completes at once and the entry after it starts at the same edge, as the
  // pin driver does (a second wait right after it starts at the next edge).
  task automatic begin_entry(input logic [LenW-1:0] k, input logic [31:0] cyc);
    logic [LenW-1:0] k1;
    k1 = k + 1'b1;
    if (k == len_i) begin
      finish(1'b0);
    end else if (kind_of(k) != KindWaitDone) begin
      begin_transfer(k);
    end else begin
      req_o  <= 1'b0;
      wait_q <= '0;
      pos_q  <= k;
      if (!done_i) begin
        state_q <= StDone;
      end else begin
        log_entry(k, cyc, '0);
        if (k1 == len_i) begin
          finish(1'b0);
        end else if (kind_of(k1) != KindWaitDone) begin
          begin_transfer(k1);
        end else begin
          pos_q   <= k1;
          state_q <= StDone;
        end
      end
    end
  endtask

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fin_o <= 1'b0;
    end else begin
      fin_o <= fin_q;
    end
  end

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      go_seen_q <= 1'b0;
      pos_q     <= '0;
      gap_q     <= '0;
      wait_q    <= '0;
      cyc_q     <= '0;
      fin_q     <= 1'b0;
      timeout_o <= 1'b0;
      start_o   <= '0;
      tb_log_q  <= '0;
      req_o     <= 1'b0;
      we_o      <= 1'b0;
      addr_o    <= '0;
      wdata_o   <= '0;
    end else begin
      cyc_q <= cyc_q + 1'b1;
      case (state_q)
        StIdle: begin
          if (go_i != go_seen_q) begin
            go_seen_q <= go_i;
            start_o   <= $time;
            cyc_q     <= 32'd1;
            begin_entry('0, '0);
          end
        end
        StGap: begin
          if (gap_q == IdleW'(1)) begin
            gap_q <= '0;
            drive(pos_q);
          end else begin
            gap_q <= gap_q - 1'b1;
          end
        end
        StReq: begin
          if (ack_i) begin
            log_entry(pos_q, cyc_q, (kind_of(pos_q) == KindRead) ? rdata_i : '0);
            begin_entry(pos_q + 1'b1, cyc_q);
          end else if (wait_q == ack_timeout_i) begin
            finish(1'b1);
          end else begin
            wait_q <= wait_q + 1'b1;
          end
        end
        StDone: begin
          if (done_i) begin
            log_entry(pos_q, cyc_q, '0);
            begin_entry(pos_q + 1'b1, cyc_q);
          end else if (wait_q == done_timeout_i) begin
            finish(1'b1);
          end else begin
            wait_q <= wait_q + 1'b1;
          end
        end
        default: state_q <= StIdle;
      endcase
    end
  end

endmodule
