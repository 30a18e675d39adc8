// mv_bus_engine: simulation-only bus host of the testbench's fast mode (`BUS=engine`).
//
// The Python driver hands over one bus item at a time (a burst of `count` transfers to
// consecutive addresses, or a wait for done) through the tb_* inputs and toggles go_i; this
// engine performs the transfers with the same protocol and timing rules as the Python pin
// driver (requests driven after a falling edge, held until ack, optional idle cycles before
// each transfer) and records, per transfer, the read data and the time of the ack edge.
// It toggles fin_o when the item is complete, so Python wakes once per item instead of
// several times per transfer. The transfer log is what the pins showed: the predictor and
// the scoreboard check every transfer exactly as in pin mode.
module mv_bus_engine #(
  parameter int BusW   = 32,
  parameter int AddrW  = 14,
  parameter int Depth  = 2,   // most transfers in one item (the widest register's words)
  parameter int IdleW  = 4,
  parameter int CountW = 16
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // one item, written by Python before it toggles go_i
  input  logic                   go_i,
  input  logic [1:0]             kind_i,     // KindWrite, KindRead or KindWaitDone
  input  logic [AddrW-1:0]       addr_i,
  input  logic [CountW-1:0]      count_i,
  input  logic [Depth*BusW-1:0]  wdata_i,
  input  logic [Depth*IdleW-1:0] idle_i,     // idle cycles before each transfer
  input  logic [31:0]            timeout_i,  // cycles without ack / done before giving up
  output logic                   fin_o,      // toggles when the item is complete
  output logic                   timeout_o,  // the item gave up (no ack / no done)
  output logic [Depth*BusW-1:0]  rdata_o,
  output logic [Depth*64-1:0]    time_o,     // $time of the falling edge after each ack
  // the loader's bus
  output logic                   req_o,
  output logic                   we_o,
  output logic [AddrW-1:0]       addr_o,
  output logic [BusW-1:0]        wdata_o,
  input  logic                   ack_i,
  input  logic [BusW-1:0]        rdata_i,
  input  logic                   done_i
);

  localparam logic [1:0] KindWrite    = 2'd0;
  localparam logic [1:0] KindRead     = 2'd1;
  localparam logic [1:0] KindWaitDone = 2'd2;
  localparam logic [1:0] StIdle = 2'd0, StGap = 2'd1, StReq = 2'd2, StDone = 2'd3;

  logic [1:0]        state_q;
  logic              go_seen_q;
  logic [CountW-1:0] k_q;
  logic [IdleW-1:0]  gap_q;
  logic [31:0]       wait_q;

  // Drive transfer k (or start its idle gap) at this falling edge.
  task automatic begin_transfer(input logic [CountW-1:0] k);
    logic [IdleW-1:0] gap;
    gap = idle_i[32'(k) * IdleW +: IdleW];
    k_q    <= k;
    wait_q <= '0;
    if (gap != '0) begin
      req_o   <= 1'b0;
      gap_q   <= gap;
      state_q <= StGap;
    end else begin
      req_o   <= 1'b1;
      we_o    <= (kind_i == KindWrite);
      addr_o  <= addr_i + AddrW'(k);
      wdata_o <= (kind_i == KindWrite) ? wdata_i[32'(k) * BusW +: BusW] : '0;
      state_q <= StReq;
    end
  endtask

  task automatic finish(input logic gave_up);
    req_o     <= 1'b0;
    timeout_o <= gave_up;
    fin_o     <= ~fin_o;
    state_q   <= StIdle;
  endtask

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      go_seen_q   <= 1'b0;
      k_q         <= '0;
      gap_q       <= '0;
      wait_q      <= '0;
      fin_o       <= 1'b0;
      timeout_o   <= 1'b0;
      rdata_o     <= '0;
      time_o      <= '0;
      req_o       <= 1'b0;
      we_o        <= 1'b0;
      addr_o      <= '0;
      wdata_o     <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (go_i != go_seen_q) begin
            go_seen_q <= go_i;
            wait_q    <= '0;
            if (kind_i == KindWaitDone) begin
              if (done_i) begin
                time_o[63:0] <= $time;
                finish(1'b0);
              end else begin
                state_q <= StDone;
              end
            end else begin
              begin_transfer('0);
            end
          end
        end
        StGap: begin
          if (gap_q == IdleW'(1)) begin
            gap_q <= '0;
            req_o   <= 1'b1;
            we_o    <= (kind_i == KindWrite);
            addr_o  <= addr_i + AddrW'(k_q);
            wdata_o <= (kind_i == KindWrite) ? wdata_i[32'(k_q) * BusW +: BusW] : '0;
            state_q <= StReq;
          end else begin
            gap_q <= gap_q - 1'b1;
          end
        end
        StReq: begin
          if (ack_i) begin
            rdata_o[32'(k_q) * BusW +: BusW] <= (kind_i == KindRead) ? rdata_i : '0;
            time_o[32'(k_q) * 64 +: 64]      <= $time;  // half a period after the ack edge
            if (k_q + 1'b1 == count_i) begin
              finish(1'b0);
            end else begin
              begin_transfer(k_q + 1'b1);
            end
          end else if (wait_q == timeout_i) begin
            finish(1'b1);
          end else begin
            wait_q <= wait_q + 1'b1;
          end
        end
        StDone: begin
          if (done_i) begin
            time_o[63:0] <= $time;
            finish(1'b0);
          end else if (wait_q == timeout_i) begin
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
