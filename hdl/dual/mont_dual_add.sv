// mont_dual_add: dual-field carry-propagate adder: a + b in GF(p), a ^ b in GF(2^n).
//
// Tanimura et al. (ASP-DAC 2008), "Scalable Unified Dual-Radix Architecture for Montgomery
// Multiplication in GF(P) and GF(2^n)", slide "Unified Montgomery Multiplier" (after Savas,
// Tenca and Koc, CHES 2000, the paper's [6]: the field select suppresses every carry in
// GF(2^n)). One adder serves both fields: its carry chain has the generate terms
// g_k = a_k & b_k & gfp_i and the propagate terms p_k = a_k ^ b_k, carry c_(k+1) = g_k | p_k & c_k,
// sum_k = p_k ^ c_k. In GF(2^n) no carry is generated, so the sum is p = a ^ b; in GF(p) it is
// a + b mod 2^Width. The chain is written as the sum (p | g) + g, which has exactly these
// generate and propagate terms (g & p = 0, so (p | g) ^ g = p and (p | g) & g = g), so that
// synthesis maps it onto the target's carry chain like any adder.
//
// Used by mont_dual_mul as the carry-propagate adder behind its carry-save tree.
module mont_dual_add #(
  parameter int Width = 8
) (
  input  logic             gfp_i,  // 1: GF(p), carries propagate; 0: GF(2^n), none generated
  input  logic [Width-1:0] a_i,
  input  logic [Width-1:0] b_i,
  output logic [Width-1:0] sum_o   // a + b mod 2^Width (GF(p)), a ^ b (GF(2^n))
);

  logic [Width-1:0] gen, prop;
  assign gen   = a_i & b_i & {Width{gfp_i}};
  assign prop  = a_i ^ b_i;
  assign sum_o = (prop | gen) + gen;

endmodule
