// mv_cover_hit: one cover statement of a coverage bin, for `montverif formal --covers`
// (regress/formal/formal_cover.py) only. A module of its own so that each instance names its
// statement apart (u_observe.g_bin[5].u_cover.Hit_C): yosys gives a labelled statement in a
// generate loop the label alone, the same in every iteration.
module mv_cover_hit (
  input logic clk_i,
  input logic en_i,   // the clocks the bin counts in
  input logic hit_i   // the bin is hit in this clock
);
  always @(posedge clk_i) begin
    if (en_i) Hit_C: cover (hit_i);
  end
endmodule
