// mont_pipe_final: P = S + C, minus M if that is >= M, both sums side by side.
//
// Part of mont_pipe (hdl/pipe/mont_pipe.sv): the loop leaves T = S + C < 2M, so one
// conditional subtraction reduces it fully (Tanimura et al. 2008, slide "Montgomery
// Multiplication": if C > P then C := C - P; Amanor 2005, Algorithm 1b steps 6-7). Unlike
// hdl/common/mv_final_sub.sv, which adds S + C and then subtracts M from the sum (two carry
// chains one after the other, fine in a multi-cycle core's FIN cycle), this computes T and
// T - M at once: a pipeline's clock is its slowest stage, and this stage is the only one
// with carry chains across N bits. In Wd = N + 1 bits (T < 2M < 2^(N+1), and T - M lies in
// [-2^N, 2^N), so the top bit of the difference is its sign):
//   sum  = S + C
//   (DS, DC) = CSA(S, C, ~M), 1 in DC's free LSB       DS + DC = S + C + ~M + 1
//   diff = DS + DC = T - M mod 2^Wd                      (~M = 2^Wd - 1 - M in Wd bits)
//   P    = diff if diff >= 0 (its top bit clear), else sum
// Combinational; mont_pipe registers P.
module mont_pipe_final #(
  parameter int N = 16
) (
  input  logic [N:0]   s_i,
  input  logic [N:0]   c_i,
  input  logic [N-1:0] m_i,
  output logic [N-1:0] p_o   // T mod M, for T = S + C < 2M
);

  localparam int Wd = N + 1;

  logic [Wd-1:0] s_ext, c_ext, m_ext, nm, ds, dc;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [Wd-1:0] sum, maj, diff;  // maj's top bit has weight 2^Wd (dropped: mod 2^Wd)
  /* verilator lint_on UNUSEDSIGNAL */
  assign s_ext = s_i;
  assign c_ext = c_i;
  assign sum   = s_ext + c_ext;
  assign m_ext = Wd'(m_i);
  assign nm    = ~m_ext;
  assign ds    = s_ext ^ c_ext ^ nm;
  assign maj   = (s_ext & c_ext) | (s_ext & nm) | (c_ext & nm);
  assign dc    = {maj[Wd-2:0], 1'b1};
  assign diff  = ds + dc;
  assign p_o   = diff[Wd-1] ? sum[N-1:0] : diff[N-1:0];

endmodule
