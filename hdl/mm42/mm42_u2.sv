// mm42_u2: MM42_Multiplier unfolded by two (two iterations per clock).
//
// Gajbhiye (2018), unfolding with J = 2 (section on the unfolded DFG, Fig. 8 "Proposed
// Unfolding of MM24_Multiplier"): the loop body of MM42 (see mm42.sv) is duplicated and
// chained, so iteration 2j runs in compressor 0 and iteration 2j+1 in compressor 1 on its
// output, in the same clock. Per step: selection (A_i, q_i), q_i = (S1_0 + S2_0 +
// A_i (B1_0 + B2_0)) mod 2, adds (0, 0), (M, 0), (B1, B2) or D = (D1, D2) = B1 + B2 + M with a
// 4:2 compressor (two carry-save adders) and halves by routing. The serial adder over the A1,
// A2 shift registers produces two bits of A = A1 + A2 per clock (two full adders in a row).
// The per-clock selection address {sel_2j, sel_2j+1} has 16 values, all reachable for
// N >= 3 (exhaustive enumeration, models/tests/test_mm42.py).
//
// Range: A, B in [0, 2M) (Walter); the loop needs at least N + 2 iterations and runs an even
// number, 2*ceil((N+2)/2): R = 2^(N+2) for even N, 2^(N+3) for odd N (one more iteration
// only shrinks S further, S1 + S2 < 2M still holds). Widths as mm42: S1, S2, D1, D2 are
// N + 2 bits, the compressors N + 3 bits. The FIN cycle adds P = S1 + S2 and subtracts M
// once if P >= M; s_o, c_o keep S1, S2.
//
// Cycles: 1 (PRE: D, compressor 0) + ceil((N+2)/2) (loop) + 1 (FIN) = ceil((N+2)/2) + 2.
module mm42_u2 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, a step whose selection address is FaultAddr (0..3,
  // {A_i, q_i}) adds the wrong pair ((0,0) <-> (M,0), B <-> D), in both chained steps.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           start_i,
  input  logic           clear_i,
  input  logic [N-1:0]   a1_i,
  input  logic [N-1:0]   a2_i,
  input  logic [N-1:0]   b1_i,
  input  logic [N-1:0]   b2_i,
  input  logic [N-1:0]   m_i,
  output logic           busy_o,
  output logic           last_o,  // high during the last busy cycle (FIN)
  output logic [N-1:0]   p_o,
  output logic [N+1:0]   s_o,     // S1 after the loop
  output logic [N+1:0]   c_o      // S2 after the loop
);

  localparam int W        = N + 2;             // S1, S2, D1, D2
  localparam int CW       = W + 1;             // compressor width
  localparam int Clocks   = (N + 2 + 1) / 2;   // ceil((N+2)/2) loop clocks, 2 steps each
  localparam int SelW     = 2;                 // per-step selection {A_i, q_i}
  localparam int AddrW    = 2 * SelW;          // per-clock address {sel_2j, sel_2j+1}
  localparam int AddrSize = 1 << AddrW;

  localparam logic [SelW-1:0] SelZero = 2'd0;
  localparam logic [SelW-1:0] SelM    = 2'd1;
  localparam logic [SelW-1:0] SelB    = 2'd2;
  localparam logic [SelW-1:0] SelD    = 2'd3;

  logic [N-1:0] a1_q, a2_q;  // A shift registers, two bits per clock
  logic         ac_q;        // serial adder carry
  logic [W-1:0] d1_q, d2_q;
  logic [W-1:0] s1_q, s2_q;
  logic [N-1:0] p_q;
  logic         clear, load, pre, loop, fin;  // phases (u_ctrl)

  // 4:2 compressor: two carry-save adders; returns {carry, sum} (see mm42.sv).
  function automatic logic [2*CW-1:0] compress42(input logic [CW-1:0] a, input logic [CW-1:0] b,
                                                  input logic [CW-1:0] c, input logic [CW-1:0] d);
    logic [CW-1:0] t_s, t_c, u_s, u_c;
    t_s = a ^ b ^ c;
    t_c = ((a & b) | (a & c) | (b & c)) << 1;
    u_s = t_s ^ t_c ^ d;
    u_c = ((t_s & t_c) | (t_s & d) | (t_c & d)) << 1;
    compress42 = {u_c, u_s};
  endfunction

  // The pair added for a selection (with the test-only fault).
  function automatic logic [2*W-1:0] addend(input logic [SelW-1:0] sel_addr,
                                            input logic [N-1:0] b1, input logic [N-1:0] b2,
                                            input logic [N-1:0] m, input logic [W-1:0] d1,
                                            input logic [W-1:0] d2);
    logic [SelW-1:0] sel;
    sel = sel_addr ^ ((FaultEn && sel_addr == SelW'(FaultAddr)) ? SelM : SelZero);
    case (sel)
      SelZero: addend = '0;
      SelM:    addend = {W'(0), W'(m)};
      SelB:    addend = {W'(b2), W'(b1)};
      SelD:    addend = {d2, d1};
      default: addend = '0;
    endcase
  endfunction

  logic b0;
  assign b0 = b1_i[0] ^ b2_i[0];

  // Step 0 (iteration 2j): serial adder bit, selection, compressor 0 (also PRE's D).
  logic            a_bit0, a_carry0, q_bit0;
  logic [SelW-1:0] sel0;
  logic [W-1:0]    add01, add02;
  logic [CW-1:0]   in01, in02, in03, in04, sum0, carry0;
  assign a_bit0   = a1_q[0] ^ a2_q[0] ^ ac_q;
  assign a_carry0 = (a1_q[0] & a2_q[0]) | (a1_q[0] & ac_q) | (a2_q[0] & ac_q);
  assign q_bit0   = s1_q[0] ^ s2_q[0] ^ (a_bit0 & b0);
  assign sel0     = {a_bit0, q_bit0};
  assign {add02, add01} = addend(sel0, b1_i, b2_i, m_i, d1_q, d2_q);
  assign in01 = pre ? CW'(b1_i) : CW'(s1_q);
  assign in02 = pre ? CW'(b2_i) : CW'(s2_q);
  assign in03 = pre ? CW'(m_i)  : CW'(add01);
  assign in04 = pre ? '0        : CW'(add02);
  assign {carry0, sum0} = compress42(in01, in02, in03, in04);

  // Step 1 (iteration 2j+1) on step 0's halved outputs.
  logic [W-1:0]    s1_mid, s2_mid;
  logic            a_bit1, a_carry1, q_bit1;
  logic [SelW-1:0] sel1;
  logic [W-1:0]    add11, add12;
  // Bit 0 of both is 0 by construction (the selection makes the sum even); it is dropped.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [CW-1:0]   sum1, carry1;
  /* verilator lint_on UNUSEDSIGNAL */
  assign s1_mid   = sum0[CW-1:1];    // sum0[0] is 0: S1 + S2 + addend is even
  assign s2_mid   = carry0[CW-1:1];
  assign a_bit1   = a1_q[1] ^ a2_q[1] ^ a_carry0;
  assign a_carry1 = (a1_q[1] & a2_q[1]) | (a1_q[1] & a_carry0) | (a2_q[1] & a_carry0);
  assign q_bit1   = s1_mid[0] ^ s2_mid[0] ^ (a_bit1 & b0);
  assign sel1     = {a_bit1, q_bit1};
  assign {add12, add11} = addend(sel1, b1_i, b2_i, m_i, d1_q, d2_q);
  assign {carry1, sum1} = compress42(CW'(s1_mid), CW'(s2_mid), CW'(add11), CW'(add12));

  // Control (IDLE, PRE: D, ceil((N + 2)/2) loop clocks, FIN) and observation: hits per
  // per-clock selection {sel_2j, sel_2j+1} and whether FIN subtracted M.
  logic [AddrW-1:0] hit_addr;
  assign hit_addr = {sel0, sel1};
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.LoopCycles(Clocks), .PreCycles(1), .ObsBins(AddrSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .clear_o(clear), .load_o(load), .pre_o(pre),
    .loop_o(loop), .last_loop_o(), .fin_o(fin), .cnt_o(), .busy_o, .last_o,
    .obs_addr0_i(hit_addr), .obs_count1_i(1'b0), .obs_addr1_i(hit_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // FIN: P = S1 + S2 (< 2M < 2^(N+1)), minus M if P >= M
  logic [N-1:0] p_fin;
  logic         sub_taken;
  mv_final_sub #(.N(N), .SumW(CW), .DiffW(CW)) u_final (
    .s_i(CW'(s1_q)), .c_i(CW'(s2_q)), .cin_i(1'b0), .m_i, .p_o(p_fin),
    .sub_taken_o(sub_taken));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {a1_q, a2_q, ac_q, d1_q, d2_q, s1_q, s2_q, p_q} <= '0;
    end else if (clear) begin
      {a1_q, a2_q, ac_q, d1_q, d2_q, s1_q, s2_q, p_q} <= '0;
    end else if (load) begin
      a1_q <= a1_i;
      a2_q <= a2_i;
      ac_q <= 1'b0;
      s1_q <= '0;
      s2_q <= '0;
    end else if (pre) begin
      d1_q <= sum0[W-1:0];    // D < 3M < 2^W: bit W of both outputs is 0
      d2_q <= carry0[W-1:0];
    end else if (loop) begin
      s1_q <= sum1[CW-1:1];   // sum1[0] is 0 as well
      s2_q <= carry1[CW-1:1];
      a1_q <= a1_q >> 2;
      a2_q <= a2_q >> 2;
      ac_q <= a_carry1;
    end else if (fin) begin
      p_q <= p_fin;
    end
  end

  assign p_o = p_q;
  assign s_o = s1_q;
  assign c_o = s2_q;

endmodule
