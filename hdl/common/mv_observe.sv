// mv_observe: simulation-only observation of a multiplier core, for coverage and checking.
//
// Not part of any paper's datapath: every core instantiates it under `ifndef SYNTHESIS.
// It counts, per operation, how often each table or selection address was used (one
// HitW-bit counter per address, packed in lut_hits_q) and records whether the final
// subtraction was taken (sub_taken_q). The testbench reads both once per operation, at the
// rising edge of done_o, and compares them with the bit-accurate model's histogram.
// Ports count ports, each counting one address per clock: one for the cores that use one
// address a clock, two for the unfolded cores, one per processing element for the systolic
// arrays (mwr2mm, mwrkmm). Ports that count the same address in one clock add up.
module mv_observe #(
  parameter int Bins  = 16,
  parameter int HitW  = 32,
  parameter int Ports = 1,
  parameter int AddrW = (Bins > 1) ? $clog2(Bins) : 1
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   clear_i,      // an operation starts: zero everything
  input  logic [Ports-1:0]       count_i,      // port k counts addr_i[k] in this clock
  input  logic [Ports*AddrW-1:0] addr_i,
  input  logic                   fin_i,        // the final clock: record sub_taken_i
  input  logic                   sub_taken_i
);

  /* verilator lint_off UNUSEDSIGNAL */
  logic [Bins*HitW-1:0] lut_hits_q;
  logic                 sub_taken_q;
  /* verilator lint_on UNUSEDSIGNAL */

  // The counters after this clock: every counting port adds one at its address.
  logic [Bins*HitW-1:0] lut_hits_d;
  always_comb begin
    lut_hits_d = lut_hits_q;
    for (int k = 0; k < Ports; k++) begin
      if (count_i[k]) begin
        lut_hits_d[32'(addr_i[k*AddrW +: AddrW]) * HitW +: HitW] =
            lut_hits_d[32'(addr_i[k*AddrW +: AddrW]) * HitW +: HitW] + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lut_hits_q  <= '0;
      sub_taken_q <= 1'b0;
    end else if (clear_i) begin
      lut_hits_q  <= '0;
      sub_taken_q <= 1'b0;
    end else begin
      lut_hits_q <= lut_hits_d;
      if (fin_i) begin
        sub_taken_q <= sub_taken_i;
      end
    end
  end

`ifdef MV_COVER_LUT
  // Formal cover statements of the coverage bins this block observes, for
  // `montverif formal --covers` (regress/formal/formal_cover.py), which reads the RTL with
  // -D MV_COVER_LUT and/or -D MV_COVER_SUB; no other build defines them. yosys' -formal
  // front end defines FORMAL instead of SYNTHESIS, so the cores keep this block there.
  // Bin lut.addr:a: some port counts address a in a clock that does not clear the counters.
  for (genvar a = 0; a < Bins; a++) begin : g_bin
    logic used;
    always_comb begin
      used = 1'b0;
      for (int k = 0; k < Ports; k++) begin
        used = used | (count_i[k] && 32'(addr_i[k*AddrW +: AddrW]) == a);
      end
    end
    mv_cover_hit u_cover (.clk_i, .en_i(rst_ni && !clear_i), .hit_i(used));  // hdl/formal
  end
`endif
`ifdef MV_COVER_SUB
  // Bins final_sub:taken and final_sub:not_taken: the flag recorded in the final clock.
  always @(posedge clk_i) begin
    if (rst_ni && !clear_i && fin_i) begin
      SubTaken_C: cover (sub_taken_i);
      SubNotTaken_C: cover (!sub_taken_i);
    end
  end
`endif

endmodule
