// mont_dual_mul: the unified multiplier of mont_dual: one W x W array for GF(p) and GF(2^n),
// with the FIOS step's addends in its carry-save tree.
//
// Tanimura et al. (ASP-DAC 2008), "Scalable Unified Dual-Radix Architecture for Montgomery
// Multiplication in GF(P) and GF(2^n)", slide "Block Diagram of the Proposal": "64-bit
// multiplier in GF(2^n), 4 16-bit multipliers in parallel in GF(P)", and slide "Unified
// Montgomery Multiplier" (dual-field adders after Savas, Tenca and Koc, CHES 2000): one
// array of partial products serves both fields, its adders' carries suppressed in GF(2^n).
//
//   p_o = a_i * b_i + c_i + d_i mod 2^(2W)   (GF(p), gfp_i = 1)
//   p_o = a_i . b_i ^ c_i ^ d_i               (GF(2^n), gfp_i = 0: the carry-less product)
//
// Row k of the array is the partial product a_k AND b, k columns up (W AND gates). The W
// rows and the two addend rows (C_j and z, or the accumulator: mont_dual's T1, MA and MB add
// to the product) are reduced to two by a Wallace tree of rows: at each level every three
// rows go through one row of dual-field full adders (mont_dual_csa: the sum, and the carries
// AND-ed with gfp_i one column up) and the rest pass; the last two meet in one dual-field
// carry-propagate adder (mont_dual_add). In GF(2^n) every carry is 0, so each column reduces
// to the XOR of its bits. In GF(p) mont_dual drives a with a K-bit digit (a's bits K and up
// are 0), so only rows 0 .. K-1 are non-zero and the same array computes the K x W integer
// product that the paper's four 16-bit multipliers compute in parallel (each K x K tile of
// those rows is one of them); in GF(2^n) all W rows make the W x W carry-less product.
//
// Widths: every sum mont_dual asks for fits 2W bits (GF(p): below 2^(W+K+2), W >= K + 2;
// GF(2^n): degree <= 2W - 2), so the carries out of the top column, dropped, are always 0.
//
// Icarus builds another form of the same function (`ifdef MV_FAST_FORMS, which montverif's
// flow defines for an Icarus build without an overlay: regress/flow/build.py): the integer
// sum a*b + c + d mod 2^(2W), or the XOR of b shifted by each set bit of a with c and d.
// Icarus 11 evaluates the tree's rows as separate processes, each woken again whenever one of
// its inputs settles; one expression per field is evaluated once per change of the inputs
// (mont_dual's Icarus throughput with each: docs/generated/bench/results.md and CHANGELOG.md). The
// tree is what Verilator simulates, what synthesis and formal see, and what mutation mutates
// and simulates (a mutant's build has an overlay; regress/mutate/svmut.py mutates no
// MV_FAST_FORMS code). The two forms are proved equal for every input by SymbiYosys at
// W <= 6 (`montverif formal --block mont_dual_mul`, hdl/formal/mont_dual_mul_forms.sv; at
// W = 8 the solver gave no verdict within 600 s); at the paper's W = 64 each form is checked
// against the bit-accurate model by every run on its simulator.
module mont_dual_mul #(
  parameter int W = 8
) (
  input  logic           gfp_i,  // 1: GF(p), 0: GF(2^n)
  input  logic [W-1:0]   a_i,    // the digit (K bits in GF(p), the upper bits 0)
  input  logic [W-1:0]   b_i,    // a word of Y, of M, or q
  input  logic [2*W-1:0] c_i,    // addend: C_j, or the accumulator
  input  logic [W-1:0]   d_i,    // addend: the carry word z
  output logic [2*W-1:0] p_o
);

  localparam int SW = 2 * W;  // row width

`ifdef MV_FAST_FORMS
  // The tree's function in one expression per field (this header): Icarus only.
  function automatic logic [SW-1:0] product(input logic gfp, input logic [W-1:0] a,
                                            input logic [W-1:0] b, input logic [SW-1:0] c,
                                            input logic [W-1:0] d);
    logic [SW-1:0] acc;
    int k;  // declared here, not in the loop: montverif.spec.portability
    if (gfp) begin
      acc = SW'(a) * SW'(b) + c + SW'(d);
    end else begin
      acc = c ^ SW'(d);
      for (k = 0; k < W; k++) begin
        if (a[k]) begin
          acc = acc ^ (SW'(b) << k);
        end
      end
    end
    product = acc;  // the function's name, not `return`: Yosys 0.70 parses no `return`
  endfunction

  assign p_o = product(gfp_i, a_i, b_i, c_i, d_i);
`else

  // The rows at each level of the tree: three rows become two, the remainder passes. (Each
  // function on its own: Icarus 11 takes no constant function that calls another in a loop.)
  function automatic int rows_at(input int level);
    int r, l;  // l declared here, not in the loop: montverif.spec.portability
    r = W + 2;
    for (l = 0; l < level; l++) begin
      r = 2 * (r / 3) + r % 3;
    end
    rows_at = r;  // the function's name, not `return`: Yosys 0.70 parses no `return`
  endfunction

  function automatic int levels();
    int l, r;
    l = 0;
    r = W + 2;
    while (r > 2) begin
      r = 2 * (r / 3) + r % 3;
      l = l + 1;
    end
    levels = l;
  endfunction

  // The first row of a level in `rows` (every level's rows, level 0 first).
  function automatic int row_off(input int level);
    int off, r, l;  // l declared here, not in the loop: montverif.spec.portability
    off = 0;
    r = W + 2;
    for (l = 0; l < level; l++) begin
      off = off + r;
      r = 2 * (r / 3) + r % 3;
    end
    row_off = off;
  endfunction

  localparam int Levels = levels();
  localparam int Rows   = row_off(Levels + 1);

  // One variable per row: as one packed vector, every row's change would wake every reader
  // of the vector, and Icarus took seconds per evaluation at W = 64.
  logic [SW-1:0] rows [Rows];

  // Level 0: the W partial-product rows, then the two addends.
  for (genvar k = 0; k < W; k++) begin : g_pp
    assign rows[k] = SW'(b_i & {W{a_i[k]}}) << k;
  end
  assign rows[W]     = c_i;
  assign rows[W+1]   = SW'(d_i);

  for (genvar l = 0; l < Levels; l++) begin : g_level
    localparam int InOff  = row_off(l);
    localparam int OutOff = row_off(l + 1);
    localparam int Groups = rows_at(l) / 3;
    localparam int Pass   = rows_at(l) % 3;
    for (genvar g = 0; g < Groups; g++) begin : g_csa
      mont_dual_csa #(
        .Width(SW)
      ) u_csa (
        .gfp_i,
        .x_i    (rows[InOff + 3*g]),
        .y_i    (rows[InOff + 3*g + 1]),
        .z_i    (rows[InOff + 3*g + 2]),
        .sum_o  (rows[OutOff + 2*g]),
        .carry_o(rows[OutOff + 2*g + 1])
      );
    end
    for (genvar r = 0; r < Pass; r++) begin : g_pass
      assign rows[OutOff + 2*Groups + r] = rows[InOff + 3*Groups + r];
    end
  end

  mont_dual_add #(
    .Width(SW)
  ) u_cpa (
    .gfp_i,
    .a_i  (rows[row_off(Levels)]),
    .b_i  (rows[row_off(Levels) + 1]),
    .sum_o(p_o)
  );
`endif

endmodule
