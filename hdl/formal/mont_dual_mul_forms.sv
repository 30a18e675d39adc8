// mont_dual_mul_forms: the formal harness that proves mont_dual_mul's two forms equal
// (montverif formal --block mont_dual_mul, docs/formal.md). mont_dual_mul.sv describes its
// function twice: the paper's datapath, a Wallace tree of dual-field carry-save rows and a
// dual-field carry-propagate adder (Tanimura et al., ASP-DAC 2008, slide "Unified Montgomery
// Multiplier"), which Verilator, synthesis, formal and mutation see; and, for Icarus only
// (`ifdef MV_FAST_FORMS), one expression per field, a*b + c + d mod 2^(2W) in GF(p) and the
// carry-less product XOR c XOR d in GF(2^n), which Icarus simulates much
// faster. The proof reads mont_dual_mul.sv a second time with MV_FAST_FORMS defined and that
// module renamed mont_dual_mul_icarus (formal.BLOCKS' prelude), drives both with the same
// free inputs and asserts equal products: mode prove at depth 1, every input of one W.
// Read under FORMAL only (yosys read -formal).
module mont_dual_mul_forms #(
  parameter int W = 8
) (
  input  logic           gfp_i,
  input  logic [W-1:0]   a_i,
  input  logic [W-1:0]   b_i,
  input  logic [2*W-1:0] c_i,
  input  logic [W-1:0]   d_i,
  output logic [2*W-1:0] p_o
);

  logic [2*W-1:0] p_icarus;

  mont_dual_mul #(
    .W(W)
  ) u_tree (
    .gfp_i,
    .a_i,
    .b_i,
    .c_i,
    .d_i,
    .p_o
  );

  mont_dual_mul_icarus #(
    .W(W)
  ) u_icarus (
    .gfp_i,
    .a_i,
    .b_i,
    .c_i,
    .d_i,
    .p_o(p_icarus)
  );

  always_comb begin
    FormsEqual_A: assert (p_o == p_icarus);
    // Covers (the proof's second task): the cases where the forms could part stay reachable
    // with every input free: a GF(p) sum that wraps past 2^(2W), and a GF(2^n) product whose
    // top partial products meet in one column (a carry there would be wrong).
    SumWraps_C: cover (gfp_i && p_o < c_i);
    TopColumn_C: cover (!gfp_i && a_i[W-1] && b_i[W-1] && a_i[W-2] && b_i[W-2]);
  end

endmodule
