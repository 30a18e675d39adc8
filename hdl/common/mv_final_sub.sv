// mv_final_sub: the final carry-propagate addition of a redundant result and its one
// conditional subtraction, P = S + C + cin, then P - M if P >= M.
//
// Amanor (2005), Algorithm 1a step 6 and Algorithm 1b steps 6-7 (P = S + C; if P >= M then
// P = P - M); Kornerup's MM42 (1994) end correction of S1 + S2 alike. A loop that leaves
// S + C + cin < 2M gets it fully reduced; mont_r2, mont_csa and mont_lut, whose Y may reach
// past M, leave S + C < Y + M and get P < max(Y, M) (the sum and the difference fit the
// same widths: Y + M < 2^(N+1), P - M < Y < 2^N). Combinational: the core registers p_o in
// its FIN cycle and hands sub_taken_o to its observation.
//
// Used by mont_csa, mont_csa_u2, mont_lut, mont_lut_u2, mont_r2 (C = 0: P is the loop's
// accumulator), mont_r4 (with the carry-in of its radix-4 shift), mm42 and mm42_u2.
//
// Widths: S and C are SumW bits (the core zero-extends narrower ones), the sum is taken
// modulo 2^SumW and the difference in DiffW bits, whose top bit is the borrow: each core
// keeps the widths its datapath had.
module mv_final_sub #(
  parameter int N     = 32,        // width of M and of the result
  parameter int SumW  = N + 1,     // width of S, C and of the sum P
  parameter int DiffW = SumW + 1   // width of P - M (its top bit: P < M)
) (
  input  logic [SumW-1:0] s_i,
  input  logic [SumW-1:0] c_i,
  input  logic            cin_i,        // carry-in, weight 1
  input  logic [N-1:0]    m_i,
  output logic [N-1:0]    p_o,          // P mod M for P < 2M; P - M or P below 2^N + M
  output logic            sub_taken_o   // P >= M: M was subtracted
);

  /* verilator lint_off UNUSEDSIGNAL */
  logic [SumW-1:0]  p_full;
  logic [DiffW-1:0] p_diff;
  /* verilator lint_on UNUSEDSIGNAL */
  assign p_full      = s_i + c_i + SumW'(cin_i);
  assign p_diff      = DiffW'(p_full) - DiffW'(m_i);
  assign sub_taken_o = !p_diff[DiffW-1];  // no borrow: P >= M
  assign p_o         = sub_taken_o ? p_diff[N-1:0] : p_full[N-1:0];

endmodule
