// mv_sc_regs: the registers of a carry-save loop: the multiplier's shift register X and the
// redundant accumulator (S, C).
//
// The loop of Amanor (2005) Algorithms 1b and 4 and of their table-driven and unfolded
// variants: START loads X and zeroes S and C (S = C = 0 before the first iteration), every
// loop step takes the core's next S and C and shifts X by XShift bits (right, least
// significant digit first, or left with XLeft: most significant first), CLEAR and reset zero
// all three.
//
// Used by mont_csa, mont_csa_u2, mont_lut, mont_lut_u2, inter_csa and inter_lut.
module mv_sc_regs #(
  parameter int XW     = 32,    // width of X
  parameter int SW     = 32,    // width of S
  parameter int CW     = SW,    // width of C
  parameter int XShift = 1,     // bits of X per loop step
  parameter bit XLeft  = 1'b0   // shift X left (MSB first)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          clear_i,  // zero X, S, C
  input  logic          load_i,   // X := x_i, S := C := 0
  input  logic          step_i,   // S := s_i, C := c_i, shift X
  input  logic [XW-1:0] x_i,
  input  logic [SW-1:0] s_i,
  input  logic [CW-1:0] c_i,
  output logic [XW-1:0] x_o,
  output logic [SW-1:0] s_o,
  output logic [CW-1:0] c_o
);

  logic [XW-1:0] x_q;
  logic [SW-1:0] s_q;
  logic [CW-1:0] c_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q <= '0;
      s_q <= '0;
      c_q <= '0;
    end else if (clear_i) begin
      x_q <= '0;
      s_q <= '0;
      c_q <= '0;
    end else if (load_i) begin
      x_q <= x_i;
      s_q <= '0;
      c_q <= '0;
    end else if (step_i) begin
      x_q <= XLeft ? (x_q << XShift) : (x_q >> XShift);
      s_q <= s_i;
      c_q <= c_i;
    end
  end

  assign x_o = x_q;
  assign s_o = s_q;
  assign c_o = c_q;

endmodule
