// scalable_observe: simulation-only observation of the scalable (multi-PE) cores.
//
// Not part of the paper's datapath (Michalski-Buell, Algorithms 1 and 2). The common
// hdl/common/mv_observe.sv counts at most two addresses per clock; a systolic array has every
// PE emitting a word per clock, so this variant takes one count port per PE (Ports). It keeps
// the same registers (lut_hits_q: one HitW-bit counter per address; sub_taken_q: the final
// subtraction of the last operation), read by the testbench at the rising edge of done_o.
module scalable_observe #(
  parameter int Bins  = 16,
  parameter int HitW  = 32,
  parameter int Ports = 2,
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

  // Per address, how many ports count it in this clock.
  logic [Bins*HitW-1:0] inc;
  always_comb begin
    logic [Bins*HitW-1:0] acc;
    acc = '0;
    for (int b = 0; b < Bins; b++) begin
      for (int k = 0; k < Ports; k++) begin
        if (count_i[k] && addr_i[k*AddrW +: AddrW] == AddrW'(b)) begin
          acc[b*HitW +: HitW] = acc[b*HitW +: HitW] + 1'b1;
        end
      end
    end
    inc = acc;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lut_hits_q  <= '0;
      sub_taken_q <= 1'b0;
    end else if (clear_i) begin
      lut_hits_q  <= '0;
      sub_taken_q <= 1'b0;
    end else begin
      for (int b = 0; b < Bins; b++) begin
        lut_hits_q[b*HitW +: HitW] <= lut_hits_q[b*HitW +: HitW] + inc[b*HitW +: HitW];
      end
      if (fin_i) begin
        sub_taken_q <= sub_taken_i;
      end
    end
  end

endmodule
