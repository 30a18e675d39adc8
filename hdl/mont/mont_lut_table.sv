// mont_lut_table: the lookup table of the table-driven fast Montgomery cores.
//
// Amanor (2005), Algorithm 3 and Fig. 2: the four values {0, M, Y, R = Y + M} (R registered
// in the PRE cycle) and the 16-entry table addressed by {x_i, y_0, s_0, c_0} that selects the
// one to add so that S + C + I is even:
//   x_i = 0: I = 0 if s_0 == c_0 else M            (Algorithm 3 steps 3, 4)
//   x_i = 1: I = Y if s_0 ^ c_0 ^ y_0 == 0 else R  (steps 5, 6)
// Two lookups share the values: lookup 0 and, for the unfolded core's second stage in the
// same clock, lookup 1. Test only: fault*_i swaps the selected entry for its neighbour
// (M for 0, R for Y and back).
//
// Used by mont_lut (lookup 0 only) and mont_lut_u2 (both).
module mont_lut_table #(
  parameter int N = 32
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         clear_i,   // zero R
  input  logic         pre_i,     // R := Y + M
  input  logic [N-1:0] y_i,
  input  logic [N-1:0] m_i,
  input  logic [3:0]   addr0_i,   // {x_i, y_0, s_0, c_0}
  input  logic         fault0_i,
  output logic [N:0]   val0_o,
  input  logic [3:0]   addr1_i,
  input  logic         fault1_i,
  output logic [N:0]   val1_o
);

  // The four precomputed table values (selection codes)
  localparam int SelW = 2;
  localparam logic [SelW-1:0] SelZero = 2'd0;
  localparam logic [SelW-1:0] SelM    = 2'd1;
  localparam logic [SelW-1:0] SelY    = 2'd2;
  localparam logic [SelW-1:0] SelR    = 2'd3;

  logic [N:0] r_q;  // R = Y + M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      r_q <= '0;
    end else if (clear_i) begin
      r_q <= '0;
    end else if (pre_i) begin
      r_q <= {1'b0, y_i} + {1'b0, m_i};
    end
  end

  // Address {x, y_0, s_0, c_0} -> which precomputed value to add.
  function automatic logic [SelW-1:0] lut_sel(input logic [3:0] addr);
    logic xb, y0, s0, c0;
    {xb, y0, s0, c0} = addr;
    if (!xb) begin
      lut_sel = (s0 == c0) ? SelZero : SelM;
    end else begin
      lut_sel = (s0 ^ c0 ^ y0) ? SelR : SelY;
    end
  endfunction

  // The selected value
  function automatic logic [N:0] lut_val(input logic [SelW-1:0] sel, input logic [N-1:0] y,
                                         input logic [N-1:0] m, input logic [N:0] r);
    case (sel)
      SelZero: lut_val = '0;
      SelM:    lut_val = {1'b0, m};
      SelY:    lut_val = {1'b0, y};
      default: lut_val = r;
    endcase
  endfunction

  assign val0_o = lut_val(lut_sel(addr0_i) ^ (fault0_i ? SelM : SelZero), y_i, m_i, r_q);
  assign val1_o = lut_val(lut_sel(addr1_i) ^ (fault1_i ? SelM : SelZero), y_i, m_i, r_q);

endmodule
