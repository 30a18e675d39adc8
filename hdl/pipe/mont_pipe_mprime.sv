// mont_pipe_mprime: m' = -M^-1 mod 2^K of an odd M, by Newton (Hensel) lifting on K bits.
//
// Part of mont_pipe (hdl/pipe/mont_pipe.sv): the quotient digit of radix-2^K Montgomery
// multiplication needs m' = -M^-1 mod 2^K (Koc, Acar and Kaliski, IEEE Micro 16(3), 1996:
// n'_0 of the word-level methods; Tanimura et al. 2008, slide "Montgomery Multiplication":
// q = -P^-1 mod 2^k). mont_pipe computes it from M in its input stage, so the host
// precomputes nothing. Combinational; only the K low bits of M matter.
//
// Newton's iteration for the inverse modulo a power of two:
//   u_0 = M mod 2^K                 M*M = 1 mod 8 for every odd M: u_0 is right in 3 bits
//   u_(s+1) = u_s * (2 - M*u_s)     if M*u_s = 1 + e with e = 0 mod 2^b, then
//                                   M*u_(s+1) = (1 + e)(1 - e) = 1 - e^2 = 1 mod 2^(2b)
//   m' = -u_Steps mod 2^K           Steps = the least s with 3*2^s >= K
// all in K bits (the products' high halves are never needed: everything is mod 2^K). K = 1, 2,
// 3 need no step (m' = -M mod 2^K; for K = 2 that is mont_r4's {~m_1, 1}); K = 4..6 one, 7..12
// two, 13..24 three, 25..48 four. Each step is two K x K low-half products and a
// subtraction.
module mont_pipe_mprime #(
  parameter int K = 4  // digit bits, 1..48
) (
  input  logic [K-1:0] m_i,   // M mod 2^K (M odd)
  output logic [K-1:0] mp_o   // -M^-1 mod 2^K
);

  localparam int Steps = (K <= 3) ? 0 : (K <= 6) ? 1 : (K <= 12) ? 2 : (K <= 24) ? 3 : 4;

  logic [Steps:0][K-1:0] u;  // u[s]: M^-1 mod 2^min(K, 3*2^s)
  assign u[0] = m_i;
  for (genvar s = 0; s < Steps; s++) begin : g_newton
    assign u[s+1] = u[s] * (K'(2) - m_i * u[s]);
  end
  assign mp_o = -u[Steps];

endmodule
