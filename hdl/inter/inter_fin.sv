// inter_fin: the final reduction of the interleaved carry-save cores (relaxed range).
//
// Amanor (2005), Algorithm 4 step 12 and Algorithm 5's last step, P := (S + C) mod M, done
// in one FIN cycle: S + C < 7*2^N <= 14 M' (M' = M*2^z, its top bit set), so four
// conditional subtractions of 8M', 4M', 2M', M' (one restoring-division step each) give
// (S + C) mod M', and P = that >> z undoes the normalisation (inter_norm).
//
// Used by inter_csa and inter_lut.
module inter_fin #(
  parameter int N    = 32,
  parameter int SW   = N + 2,  // width of S
  parameter int CW   = N + 2,  // width of C
  parameter int CntW = $clog2(N + 1)
) (
  input  logic [SW-1:0]   s_i,
  input  logic [CW-1:0]   c_i,
  input  logic [N-1:0]    mn_i,  // M'
  input  logic [CntW-1:0] z_i,
  output logic [N-1:0]    p_o
);

  localparam int VW = N + 3;  // S + C < 7*2^N

  logic [VW-1:0] v0, v1, v2, v3, v4, mv8, mv4, mv2, mv1;
  assign mv8 = VW'(mn_i) << 3;
  assign mv4 = VW'(mn_i) << 2;
  assign mv2 = VW'(mn_i) << 1;
  assign mv1 = VW'(mn_i);
  assign v0  = VW'(s_i) + VW'(c_i);
  assign v1  = (v0 >= mv8) ? v0 - mv8 : v0;
  assign v2  = (v1 >= mv4) ? v1 - mv4 : v1;
  assign v3  = (v2 >= mv2) ? v2 - mv2 : v2;
  assign v4  = (v3 >= mv1) ? v3 - mv1 : v3;
  assign p_o = v4[N-1:0] >> z_i;
  // v4 < M' < 2^N: its top bits are 0
  /* verilator lint_off UNUSEDSIGNAL */
  logic [VW-N-1:0] v4_top;
  assign v4_top = v4[VW-1:N];
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
