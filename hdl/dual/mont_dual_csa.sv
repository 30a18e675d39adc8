// mont_dual_csa: a row of dual-field full adders (a 3:2 carry-save adder for GF(p) and
// GF(2^n)).
//
// Tanimura et al. (ASP-DAC 2008), "Scalable Unified Dual-Radix Architecture for Montgomery
// Multiplication in GF(P) and GF(2^n)", slide "Unified Montgomery Multiplier": one datapath
// computes in both fields, after Savas, Tenca and Koc (CHES 2000, the paper's [6]), whose
// dual-field full adder is a full adder with its carry output AND-ed with the field select.
// Here: sum_o = x ^ y ^ z in both fields; the carries maj(x, y, z) AND gfp_i, one column up
// (bit k of carry_o weighs 2^k), so that sum_o + carry_o = x + y + z mod 2^Width in GF(p)
// and carry_o = 0, sum_o = x ^ y ^ z (carry-less addition) in GF(2^n). The carry out of the
// top column leaves the row: the datapath's sums fit Width bits (mont_dual_mul).
//
// Used by mont_dual_mul, whose carry-save tree is made of these rows.
module mont_dual_csa #(
  parameter int Width = 8
) (
  input  logic             gfp_i,    // 1: GF(p), carries kept; 0: GF(2^n), carries suppressed
  input  logic [Width-1:0] x_i,
  input  logic [Width-1:0] y_i,
  input  logic [Width-1:0] z_i,
  output logic [Width-1:0] sum_o,
  output logic [Width-1:0] carry_o   // bit k weighs 2^k (bit 0 is 0)
);

  localparam int CarryW = Width - 1;  // the columns whose carry stays in the row

  logic [CarryW-1:0] maj;
  assign maj = (x_i[CarryW-1:0] & y_i[CarryW-1:0]) | (x_i[CarryW-1:0] & z_i[CarryW-1:0])
             | (y_i[CarryW-1:0] & z_i[CarryW-1:0]);

  assign sum_o   = x_i ^ y_i ^ z_i;
  assign carry_o = {maj & {CarryW{gfp_i}}, 1'b0};

endmodule
