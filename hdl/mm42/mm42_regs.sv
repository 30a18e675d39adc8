// mm42_regs: the registers of MM42_Multiplier's loop.
//
// Gajbhiye (2018), "Algorithm: MM42_Multiplier" (Fig. 3): the A1 and A2 shift registers that
// feed the one-bit serial adder (AShift bits per clock) and its carry, D = (D1, D2) = B1 + B2
// + M (written in PRE, step 1) and the carry-save accumulator (S1, S2) (steps 4-12). START
// loads A1, A2 and zeroes S1, S2 and the carry; CLEAR and reset zero everything.
//
// Used by mm42 (AShift = 1) and mm42_u2 (AShift = 2).
module mm42_regs #(
  parameter int N      = 32,
  parameter int W      = N + 2,
  parameter int AShift = 1
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         clear_i,
  input  logic         load_i,   // A1, A2 := a1_i, a2_i; S1 = S2 = 0, carry 0
  input  logic         pre_i,    // D1, D2 := d1_i, d2_i
  input  logic         step_i,   // S1, S2 := s1_i, s2_i; carry := ac_i; A1, A2 shifted
  input  logic [N-1:0] a1_i,
  input  logic [N-1:0] a2_i,
  input  logic [W-1:0] d1_i,
  input  logic [W-1:0] d2_i,
  input  logic [W-1:0] s1_i,
  input  logic [W-1:0] s2_i,
  input  logic         ac_i,
  output logic [N-1:0] a1_o,
  output logic [N-1:0] a2_o,
  output logic         ac_o,
  output logic [W-1:0] d1_o,
  output logic [W-1:0] d2_o,
  output logic [W-1:0] s1_o,
  output logic [W-1:0] s2_o
);

  logic [N-1:0] a1_q, a2_q;
  logic         ac_q;
  logic [W-1:0] d1_q, d2_q, s1_q, s2_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {a1_q, a2_q, ac_q, d1_q, d2_q, s1_q, s2_q} <= '0;
    end else if (clear_i) begin
      {a1_q, a2_q, ac_q, d1_q, d2_q, s1_q, s2_q} <= '0;
    end else if (load_i) begin
      a1_q <= a1_i;
      a2_q <= a2_i;
      ac_q <= 1'b0;
      s1_q <= '0;
      s2_q <= '0;
    end else if (pre_i) begin
      d1_q <= d1_i;
      d2_q <= d2_i;
    end else if (step_i) begin
      s1_q <= s1_i;
      s2_q <= s2_i;
      a1_q <= a1_q >> AShift;
      a2_q <= a2_q >> AShift;
      ac_q <= ac_i;
    end
  end

  assign a1_o = a1_q;
  assign a2_o = a2_q;
  assign ac_o = ac_q;
  assign d1_o = d1_q;
  assign d2_o = d2_q;
  assign s1_o = s1_q;
  assign s2_o = s2_q;

endmodule
