// inter_norm: normalisation of the modulus for the interleaved carry-save cores.
//
// Amanor (2005), Algorithms 4 and 5 assume that M has exactly N bits; the bus accepts any
// odd M < 2^N. So the first PRE cycle (en_i) shifts M and Y left by z = N - bitlen(M) (the
// leading zeros of M): M' = M*2^z has its top bit set, Y' = Y*2^z < M', and
// X*Y' mod M' = 2^z * (X*Y mod M); the FIN cycle shifts the result back by z (inter_fin).
// Also 2^N mod M' = 2^N - M' (minus M' once more when M' = 2^(N-1)), the tables' first
// non-zero entry. The registers reset to 0; CLEAR leaves them (START rewrites them).
//
// Used by inter_csa and inter_lut.
module inter_norm #(
  parameter int N    = 32,
  parameter int CntW = $clog2(N + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            en_i,       // the first PRE cycle: register z, M', Y'
  input  logic [N-1:0]    m_i,
  input  logic [N-1:0]    y_i,
  output logic [CntW-1:0] z_new_o,    // leading zeros of m_i (this cycle)
  output logic [CntW-1:0] z_o,
  output logic [N-1:0]    mn_o,       // M' = M*2^z
  output logic [N-1:0]    yn_o,       // Y' = Y*2^z
  output logic [N-1:0]    pow2_mod_o  // 2^N mod M'
);

  function automatic logic [CntW-1:0] lead_zeros(input logic [N-1:0] v);
    int i;  // declared here, not in the loop: montverif.spec.portability
    lead_zeros = CntW'(N);
    for (i = 0; i < N; i++) begin
      if (v[i]) lead_zeros = CntW'(N - 1 - i);
    end
  endfunction

  logic [CntW-1:0] z_q;
  logic [N-1:0]    mn_q, yn_q;

  assign z_new_o = lead_zeros(m_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {z_q, mn_q, yn_q} <= '0;
    end else if (en_i) begin
      z_q  <= z_new_o;
      mn_q <= m_i << z_new_o;
      yn_q <= y_i << z_new_o;
    end
  end

  logic [N:0] pow2_diff;  // 2^N - M' <= 2^(N-1)
  assign pow2_diff  = {1'b1, {N{1'b0}}} - {1'b0, mn_q};
  assign pow2_mod_o = (pow2_diff >= {1'b0, mn_q}) ? N'(pow2_diff - {1'b0, mn_q}) : N'(pow2_diff);

  assign z_o  = z_q;
  assign mn_o = mn_q;
  assign yn_o = yn_q;

endmodule
