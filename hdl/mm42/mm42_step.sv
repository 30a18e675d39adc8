// mm42_step: one iteration of MM42_Multiplier, combinational.
//
// Gajbhiye (2018), "Algorithm: MM42_Multiplier" steps 4-12 (Fig. 3): the serial adder bit
// A_i = (A1 + A2)_i (full adder on the shift registers' bits and the carry), the selection
// q_i = (S1_0 + S2_0 + A_i (B1_0 + B2_0)) mod 2, the pair selected by (A_i, q_i):
//   (0, 0) -> 0, (M, 0) -> 1, (B1, B2) -> 2, (D1, D2) -> 3
// and the 4:2 compressor (two carry-save adders) that adds it to (S1, S2). With pre_i the
// compressor computes D = B1 + B2 + M + 0 instead (step 1, the PRE cycle). The outputs are
// unshifted: the caller halves sum_o and carry_o (bit 0 of the sum is 0: the selection makes
// S1 + S2 + addend even). Test only: with FaultEn, selection address FaultAddr adds the
// wrong pair ((0,0) <-> (M,0), B <-> D).
//
// Used by mm42 (one step per clock) and mm42_u2 (two steps per clock, in series).
module mm42_step #(
  parameter int N         = 32,
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0,
  parameter int W         = N + 2,  // S1, S2, D1, D2
  parameter int CW        = W + 1   // compressor width
) (
  input  logic          pre_i,     // compute D instead of an iteration
  input  logic          a1_i,      // bit i of the A1 and A2 shift registers
  input  logic          a2_i,
  input  logic          ac_i,      // serial adder carry in
  input  logic [W-1:0]  s1_i,
  input  logic [W-1:0]  s2_i,
  input  logic [N-1:0]  b1_i,
  input  logic [N-1:0]  b2_i,
  input  logic [N-1:0]  m_i,
  input  logic [W-1:0]  d1_i,
  input  logic [W-1:0]  d2_i,
  output logic          ac_o,      // serial adder carry out
  output logic [1:0]    sel_o,     // selection address {A_i, q_i}
  output logic [CW-1:0] sum_o,
  output logic [CW-1:0] carry_o    // bit k weighs 2^k
);

  localparam int SelW = 2;
  localparam logic [SelW-1:0] SelZero = 2'd0;
  localparam logic [SelW-1:0] SelM    = 2'd1;
  localparam logic [SelW-1:0] SelB    = 2'd2;
  localparam logic [SelW-1:0] SelD    = 2'd3;

  // Selection
  logic            a_bit, b0, q_bit, fault_hit;
  logic [SelW-1:0] sel;
  assign a_bit     = a1_i ^ a2_i ^ ac_i;
  assign ac_o      = (a1_i & a2_i) | (a1_i & ac_i) | (a2_i & ac_i);
  assign b0        = b1_i[0] ^ b2_i[0];
  assign q_bit     = s1_i[0] ^ s2_i[0] ^ (a_bit & b0);
  assign sel_o     = {a_bit, q_bit};
  assign fault_hit = FaultEn && (sel_o == SelW'(FaultAddr));
  assign sel       = sel_o ^ (fault_hit ? SelM : SelZero);

  logic [W-1:0] add1, add2;
  always_comb begin
    case (sel)
      SelZero: begin add1 = '0;             add2 = '0;             end
      SelM:    begin add1 = W'(m_i);        add2 = '0;             end
      SelB:    begin add1 = W'(b1_i);       add2 = W'(b2_i);       end
      SelD:    begin add1 = d1_i;           add2 = d2_i;           end
      default: begin add1 = '0;             add2 = '0;             end
    endcase
  end

  // The 4:2 compressor: two carry-save adders, the second adding in4 to the first's sum and
  // carry. The second carry's top bit is always 0 (sum bit W of the first CSA is 0). One
  // function, so that Icarus evaluates the compressor once per change of its inputs: as
  // separate continuous assignments it re-evaluated each of them as each input arrived,
  // and mm42 ran at half its speed (mm42_u2, with two steps in series, at a third).
  function automatic logic [2*CW-1:0] compress42(input logic [CW-1:0] a, input logic [CW-1:0] b,
                                                  input logic [CW-1:0] c, input logic [CW-1:0] d);
    logic [CW-1:0] t_s, t_c, u_s, u_c;
    t_s = a ^ b ^ c;
    t_c = ((a & b) | (a & c) | (b & c)) << 1;
    u_s = t_s ^ t_c ^ d;
    u_c = ((t_s & t_c) | (t_s & d) | (t_c & d)) << 1;
    compress42 = {u_c, u_s};
  endfunction
  logic [CW-1:0] in1, in2, in3, in4;
  assign in1     = pre_i ? CW'(b1_i) : CW'(s1_i);
  assign in2     = pre_i ? CW'(b2_i) : CW'(s2_i);
  assign in3     = pre_i ? CW'(m_i)  : CW'(add1);
  assign in4     = pre_i ? '0        : CW'(add2);
  assign {carry_o, sum_o} = compress42(in1, in2, in3, in4);

endmodule
