// mv_stream_engine: simulation-only source and sink of the streaming harness
// (verif/stream/, docs/streaming.md), for cores that take a new operation every clock or
// every few clocks and hold many in flight.
//
// Python writes a batch of up to Depth operations into the engine's variables (operands,
// tags, and per operation the idle cycles the source waits before offering it, per result
// the cycles the sink holds its ready low once that result is offered), then toggles go_i.
// The engine offers the operations on the core's input stream (valid/ready: valid and data
// held until ready), takes the results from its output stream, and logs, per operation,
// the cycle its operands were taken and, per result, the cycle it was taken, its value and
// its tag; cycles count from the go. It toggles fin_o when all `len_i` results are in, or
// when no operation was taken and no result came for timeout_i cycles (timeout_o). Python
// wakes once per batch, never per clock: it reads the log at fin_o and checks it.
//
// The variables are written and read whole through VPI (made public by the build's control
// file for Verilator) or in place (the storage export of the main loop of a Verilator build):
//   tb_x, tb_y, tb_m   operation k at [k*N +: N]
//   tb_tag             operation k's tag at [k*TagW +: TagW]
//   tb_gap, tb_hold    operation k's idle cycles, result k's ready-low cycles, GapW bits each
//   tb_acc_q           the cycle operation k was taken, 32 bits each
//   tb_out_q           the cycle result k was taken, 32 bits each
//   tb_p_q, tb_otag_q  result k's value (N bits) and tag (TagW bits)
module mv_stream_engine #(
  parameter int N     = 16,
  parameter int TagW  = 8,
  parameter int Depth = 64,
  parameter int GapW  = 4,
  parameter int LenW  = 16
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            go_i,
  input  logic [LenW-1:0] len_i,
  input  logic [31:0]     timeout_i,
  output logic            fin_o,
  output logic            timeout_o,
  output logic [LenW-1:0] taken_o,   // operations taken so far
  output logic [LenW-1:0] results_o, // results taken so far
  // the core's input stream
  output logic            in_valid_o,
  input  logic            in_ready_i,
  output logic [N-1:0]    x_o,
  output logic [N-1:0]    y_o,
  output logic [N-1:0]    m_o,
  output logic [TagW-1:0] tag_o,
  // the core's output stream
  input  logic            out_valid_i,
  output logic            out_ready_o,
  input  logic [N-1:0]    p_i,
  input  logic [TagW-1:0] tag_i
);

  // written by Python (through VPI), read by the engine
  /* verilator lint_off UNDRIVEN */
  logic [Depth*N-1:0]    tb_x, tb_y, tb_m;
  logic [Depth*TagW-1:0] tb_tag;
  logic [Depth*GapW-1:0] tb_gap, tb_hold;
  /* verilator lint_on UNDRIVEN */
  // written by the engine, read by Python
  /* verilator lint_off UNUSED */
  logic [Depth*32-1:0]   tb_acc_q, tb_out_q;
  logic [Depth*N-1:0]    tb_p_q;
  logic [Depth*TagW-1:0] tb_otag_q;
  /* verilator lint_on UNUSED */

  logic            go_q, running_q;
  logic [31:0]     cyc_q, quiet_q;
  logic [LenW-1:0] si_q, ki_q;       // the next operation to offer, result to take
  logic [GapW-1:0] gap_q, hold_q;    // idle cycles left before it; ready-low cycles left
  logic            src_on, take_in, take_out;

  // the operation on offer, registered: the engine reads Python's variables only at clock
  // edges (a variable written in place is seen by nothing that waits for its change)
  logic [N-1:0]    x_q, y_q, m_q;
  logic [TagW-1:0] tag_q;
  logic [31:0]     load_idx;  // the operation to load: 0 at the go, si_q + 1 when one is taken
  assign load_idx = (go_i != go_q) ? '0 : 32'(si_q) + 1;

  assign src_on      = running_q && si_q < len_i && gap_q == '0;
  assign in_valid_o  = src_on;
  assign x_o         = x_q;
  assign y_o         = y_q;
  assign m_o         = m_q;
  assign tag_o       = tag_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q   <= '0;
      y_q   <= '0;
      m_q   <= '0;
      tag_q <= '0;
    end else if (go_i != go_q || take_in) begin
      x_q   <= tb_x[load_idx * N +: N];
      y_q   <= tb_y[load_idx * N +: N];
      m_q   <= tb_m[load_idx * N +: N];
      tag_q <= tb_tag[load_idx * TagW +: TagW];
    end
  end
  assign out_ready_o = running_q && ki_q < len_i && hold_q == '0;
  assign take_in     = src_on && in_ready_i;
  assign take_out    = out_valid_i && out_ready_o;
  assign taken_o     = si_q;
  assign results_o   = ki_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      go_q      <= 1'b0;
      running_q <= 1'b0;
      fin_o     <= 1'b0;
      timeout_o <= 1'b0;
      cyc_q     <= '0;
      quiet_q   <= '0;
      si_q      <= '0;
      ki_q      <= '0;
      gap_q     <= '0;
      hold_q    <= '0;
    end else if (go_i != go_q) begin  // a new batch
      go_q      <= go_i;
      running_q <= len_i != '0;
      fin_o     <= len_i == '0 ? !fin_o : fin_o;
      timeout_o <= 1'b0;
      cyc_q     <= '0;
      quiet_q   <= '0;
      si_q      <= '0;
      ki_q      <= '0;
      gap_q     <= tb_gap[0 +: GapW];
      hold_q    <= tb_hold[0 +: GapW];
      // the log of this batch alone, and no X where nothing is logged (a wide zero: its
      // width is Depth entries, beyond the replication lint's guess of what is sane)
      /* verilator lint_off WIDTHCONCAT */
      tb_acc_q  <= '0;
      tb_out_q  <= '0;
      tb_p_q    <= '0;
      tb_otag_q <= '0;
      /* verilator lint_on WIDTHCONCAT */
    end else if (running_q) begin
      cyc_q <= cyc_q + 1;
      if (gap_q != '0) begin
        gap_q <= gap_q - 1'b1;
      end
      if (take_in) begin
        tb_acc_q[si_q * 32 +: 32] <= cyc_q;
        si_q <= si_q + 1'b1;
        gap_q <= si_q + 1'b1 < len_i ? tb_gap[32'(si_q + 1'b1) * GapW +: GapW] : '0;
      end
      // the sink holds ready low for the result's hold cycles once it is offered
      if (out_valid_i && hold_q != '0) begin
        hold_q <= hold_q - 1'b1;
      end
      if (take_out) begin
        tb_out_q[ki_q * 32 +: 32] <= cyc_q;
        tb_p_q[ki_q * N +: N] <= p_i;
        tb_otag_q[ki_q * TagW +: TagW] <= tag_i;
        ki_q <= ki_q + 1'b1;
        hold_q <= ki_q + 1'b1 < len_i ? tb_hold[32'(ki_q + 1'b1) * GapW +: GapW] : '0;
      end
      quiet_q <= (take_in || take_out) ? '0 : quiet_q + 1;
      if ((take_out && ki_q + 1'b1 == len_i) || quiet_q >= timeout_i) begin
        running_q <= 1'b0;
        fin_o     <= !fin_o;
        timeout_o <= !(take_out && ki_q + 1'b1 == len_i);
      end
    end
  end

endmodule
