// mv_observe: simulation-only observation of a multiplier core, for coverage and checking.
//
// Not part of any paper's datapath: every core instantiates it under `ifndef SYNTHESIS.
// It counts, per operation, how often each table or selection address was used (one
// HitW-bit counter per address, packed in lut_hits_q) and records whether the final
// subtraction was taken (sub_taken_q). The testbench reads both once per operation, at the
// rising edge of done_o, and compares them with the bit-accurate model's histogram.
// Two count ports serve the unfolded cores, which use two addresses per clock.
module mv_observe #(
  parameter int Bins  = 16,
  parameter int HitW  = 32,
  parameter int AddrW = (Bins > 1) ? $clog2(Bins) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,      // an operation starts: zero everything
  input  logic             count0_i,     // count addr0_i in this cycle
  input  logic [AddrW-1:0] addr0_i,
  input  logic             count1_i,     // count addr1_i in this cycle too
  input  logic [AddrW-1:0] addr1_i,
  input  logic             fin_i,        // the final cycle: record sub_taken_i
  input  logic             sub_taken_i
);

  localparam int Both = 2;  // both ports on one address in one cycle

  /* verilator lint_off UNUSEDSIGNAL */
  logic [Bins*HitW-1:0] lut_hits_q;
  logic                 sub_taken_q;
  /* verilator lint_on UNUSEDSIGNAL */

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lut_hits_q  <= '0;
      sub_taken_q <= 1'b0;
    end else if (clear_i) begin
      lut_hits_q  <= '0;
      sub_taken_q <= 1'b0;
    end else begin
      if (count0_i && count1_i && addr0_i == addr1_i) begin
        lut_hits_q[32'(addr0_i) * HitW +: HitW] <=
            lut_hits_q[32'(addr0_i) * HitW +: HitW] + HitW'(Both);
      end else begin
        if (count0_i) begin
          lut_hits_q[32'(addr0_i) * HitW +: HitW] <=
              lut_hits_q[32'(addr0_i) * HitW +: HitW] + 1'b1;
        end
        if (count1_i) begin
          lut_hits_q[32'(addr1_i) * HitW +: HitW] <=
              lut_hits_q[32'(addr1_i) * HitW +: HitW] + 1'b1;
        end
      end
      if (fin_i) begin
        sub_taken_q <= sub_taken_i;
      end
    end
  end

endmodule
