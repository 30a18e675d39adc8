// scalable_delay: a delay line of Depth registers, cleared when an operation starts.
//
// Michalski-Buell (2006), section 5: the systolic array passes each PE's Y/M token to the
// next PE after the PE latency (2 clocks in Algorithm 1, MWR2MM; 3 in Algorithm 2, MWRkMM),
// and the S words of the last PE return to PE 0 through the shift register used when
// P < p_max (E - 2P resp. n - 3P registers). Every register is zeroed at reset and by
// clear_i (the start of an operation: S = 0 in round 0); Depth = 0 is a wire.
//
// Used by mwr2mm and mwrkmm (the ring) and mwr2mm_pe and mwrkmm_pe (the token pipeline).
module scalable_delay #(
  parameter int Width = 8,
  parameter int Depth = 1    // 0: q_o = d_i
) (
  /* verilator lint_off UNUSEDSIGNAL */  // unused when Depth = 0
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [Width-1:0] d_i,
  output logic [Width-1:0] q_o
);

  if (Depth <= 0) begin : g_wire
    assign q_o = d_i;
  end else begin : g_regs
    logic [Width-1:0] dly_q [Depth];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int d = 0; d < Depth; d++) dly_q[d] <= '0;
      end else if (clear_i) begin
        for (int d = 0; d < Depth; d++) dly_q[d] <= '0;
      end else begin
        dly_q[0] <= d_i;
        for (int d = 1; d < Depth; d++) dly_q[d] <= dly_q[d-1];
      end
    end
    assign q_o = dly_q[Depth-1];
  end

endmodule
