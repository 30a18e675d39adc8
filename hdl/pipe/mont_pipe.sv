// mont_pipe: fully pipelined radix-2^K Montgomery multiplier, a new operation every clock.
//
// Radix-2^k Montgomery multiplication: Koc, Acar and Kaliski, "Analyzing and comparing
// Montgomery multiplication algorithms", IEEE Micro 16(3), 1996 (the word-level methods, one
// k-bit digit of the multiplier per iteration, with n'_0 = -n_0^-1 mod 2^k); the loop as
// Tanimura et al. 2008 state it (slide "Montgomery Multiplication"):
//   q = -P^-1 mod 2^k;  C := 0;  for i = 0 to m-1:  t_i := (c_0 + a_i b_0) q mod 2^k,
//   C := (C + a_i B + t_i P) / 2^k;  if C > P then C := C - P
// The loop unrolled: Gajbhiye and Joshi 2018, section "Proposed Architectural Modifications"
// (the unfolding U_i -> V_((i + w) % J) of the loop's data-flow graph with unfolding factor J;
// their J = 2 takes K/2 cycles for K bits). Here J = D, the number of digit iterations: the
// D copies of the iteration form a chain (each operation starts from T = 0, so the loop's
// one delay, the feedback of T, becomes that constant), and a register after every copy
// pipelines the chain (a feed-forward cut: it adds latency and changes no value). One
// pipeline stage per digit iteration; every stage holds a different operation.
//
// Function: P = X Y 2^(-K D) mod M, D = ceil(N/K), R = 2^(K D) (for N % K != 0, X is
// padded with zero bits to K D bits). Operand domain: M odd, 0 < M < 2^N; X < 2^N (any N-bit
// value: X is only scanned, digit by digit); Y < M. P < M.
//
// Iteration i = 0..D-1 (mont_pipe_stage.sv), digit x_i = X[K i + K - 1 : K i], with the
// accumulator T = S + C (T = 0 before digit 0) in carry-save form:
//   t   = (T + x_i Y) mod 2^K       q_i = t m' mod 2^K,  m' = -M^-1 mod 2^K
//   T'  = (T + x_i Y + q_i M) / 2^K (exact: q_i M = -t mod 2^K)
// x_i Y and q_i M enter as K partial-product rows each, through two chains of K carry-save
// adders. Rows added least significant first leave each chain's carry vector with a zero low
// digit (mont_pipe_stage.sv says why), so t is the low digit of the chain's sum vector (no
// adder) and the division by 2^K is a shift of S and C alone (no carry out of the low digit to
// keep, unlike mont_r4, which adds each product as one row). m' is computed from M in the
// input stage by Newton lifting on K bits (mont_pipe_mprime.sv): the host precomputes
// nothing.
//
// Bound: T < 2M after every iteration. T = 0 first; with T < 2M, x_i, q_i <= 2^K - 1 and
// Y < M: T' < (2M + (2^K - 1) M + (2^K - 1) M) / 2^K = 2M. After D iterations T = X Y R^-1
// mod M (plus 0 or M): the final stage (mont_pipe_final.sv) adds T = S + C and subtracts M
// once if T >= M.
//
// Carry-save, not carry-propagate: the pipeline's clock is its slowest stage. With a
// carry-propagate T every digit stage would hold an (N+K+1)-bit carry chain; in carry-save
// form a digit stage is 2K full-adder levels and a K x K low-half product (for q_i),
// independent of N, the point of a pipeline at 256-384 bits. The price is the C register,
// N + 1 bits more per digit stage (of about 4N + K D: below), and one stage of two
// (N+1)-bit adders side by side at the end (mont_pipe_final.sv; the only N-bit carry chains).
//
// Stages and registers (the data registers load only with a valid operation):
//   input stage    valid, tag, X (K D bits), Y, M, m' (K bits)
//   digit stage i  valid, tag, S, C (N + 1 bits each), M; and unless i = D-1 the digits of X
//                  still to come (K (D-1-i) bits), Y and m'
//   output stage   out_valid_o, tag_o, p_o
// Flip-flops (models/mont_pipe.py register_bits): 1 + TagW + K D + 2N + K in the input
// stage, 4N + K + TagW + 3 + K (D-1-i) in digit stage i < D-1, 3N + TagW + 3 in the last
// digit stage, 1 + TagW + N at the output. N = 384, K = 4, TagW = 8 (D = 96): 1165, 1931 down
// to 1555, 1163 and 393; 168306 in all.
//
// Handshake: valid/ready streams (AXI-Stream rules). An operation is accepted in a clock with
// in_valid_i && in_ready_o; results leave in order with out_valid_o && out_ready_i, and
// out_valid_o, p_o, tag_o stay stable until then. Global stall: the whole pipeline advances
// when !(out_valid_o && !out_ready_i), and in_ready_o is that advance; a stage without an
// operation holds valid = 0 (bubbles move through).
//
// Latency: L = D + 2 = ceil(N/K) + 2 clocks from the clock that accepts an operation to the
// clock its result is first on p_o with out_valid_o (input stage, D digit stages, output
// stage), plus one for every stalled clock in between. Throughput: one operation per clock
// while out_ready_i is high.
//
// Assertions (mv_assert.svh; Verilator runs them): output stable while stalled, no X on the
// output while valid, m' M = -1 mod 2^K in the input stage, and per digit stage the exact
// division by 2^K and the bound T < 2M (mont_pipe_stage.sv); assumptions on the input stream
// (M odd, Y < M, held while not accepted).
`include "mv_assert.svh"

module mont_pipe #(
  parameter int N          = 16,    // operand bits, >= 4
  parameter int K          = 4,     // digit bits (radix 2^K), 1..48
  parameter int TagW       = 8,     // tag bits, carried with each operation
  // Test only: with FaultEn, digit stage FaultStage (0..D-1) flips bit 0 of its quotient
  // digit q_i, so T + x_i Y + q_i M is not divisible by 2^K. Used by the negative tests.
  parameter bit FaultEn    = 1'b0,
  parameter int FaultStage = 0
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // input stream
  input  logic            in_valid_i,
  output logic            in_ready_o,
  input  logic [N-1:0]    x_i,
  input  logic [N-1:0]    y_i,
  input  logic [N-1:0]    m_i,
  input  logic [TagW-1:0] tag_i,
  // output stream
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [N-1:0]    p_o,
  output logic [TagW-1:0] tag_o
);

  localparam int D  = (N + K - 1) / K;  // digit iterations = digit stages
  localparam int XW = D * K;            // X padded to whole digits

  // Global stall: everything moves unless a result waits for out_ready_i.
  logic advance;
  assign advance    = !out_valid_o || out_ready_i;
  assign in_ready_o = advance;

  // Between the stages: index 0 is the input stage's register, index i + 1 digit stage i's.
  // The digits of X still to come shrink by K bits a stage (x_d[i] uses its K (D - i) low
  // bits); after the last digit only valid, tag, S, C and M are left.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [D:0]           valid_d;
  logic [D:0][TagW-1:0] tag_d;
  logic [D:0][XW-1:0]   x_d;
  logic [D:0][N-1:0]    y_d, m_d;
  logic [D:0][K-1:0]    mp_d;
  logic [D:0][N:0]      s_d, c_d;
  /* verilator lint_on UNUSEDSIGNAL */

  // ---------------------------------------------------------------------------------------
  // Input stage: the operands and m' = -M^-1 mod 2^K
  // ---------------------------------------------------------------------------------------
  logic [K-1:0] mp_in;
  mont_pipe_mprime #(.K(K)) u_mprime (.m_i(K'(m_i)), .mp_o(mp_in));

  logic            in_valid_q;
  logic [TagW-1:0] in_tag_q;
  logic [XW-1:0]   in_x_q;
  logic [N-1:0]    in_y_q, in_m_q;
  logic [K-1:0]    in_mp_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q <= 1'b0;
    end else if (advance) begin
      in_valid_q <= in_valid_i;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_tag_q <= '0;
      in_x_q   <= '0;
      in_y_q   <= '0;
      in_m_q   <= '0;
      in_mp_q  <= '0;
    end else if (advance && in_valid_i) begin
      in_tag_q <= tag_i;
      in_x_q   <= XW'(x_i);
      in_y_q   <= y_i;
      in_m_q   <= m_i;
      in_mp_q  <= mp_in;
    end
  end
  assign valid_d[0] = in_valid_q;
  assign tag_d[0]   = in_tag_q;
  assign x_d[0]     = in_x_q;
  assign y_d[0]     = in_y_q;
  assign m_d[0]     = in_m_q;
  assign mp_d[0]    = in_mp_q;
  assign s_d[0]     = '0;  // T = 0 before digit 0
  assign c_d[0]     = '0;

  // ---------------------------------------------------------------------------------------
  // Digit stages 0..D-1
  // ---------------------------------------------------------------------------------------
  for (genvar i = 0; i < D; i++) begin : g_stage
    localparam int XIn  = (D - i) * K;
    localparam int XOut = (XIn > K) ? XIn - K : 1;
    mont_pipe_stage #(
      .N(N), .K(K), .TagW(TagW), .XInW(XIn), .Index(i), .FaultEn(FaultEn),
      .FaultStage(FaultStage)
    ) u_stage (
      .clk_i, .rst_ni, .en_i(advance),
      .valid_i(valid_d[i]), .tag_i(tag_d[i]), .x_i(x_d[i][XIn-1:0]), .y_i(y_d[i]),
      .m_i(m_d[i]), .mp_i(mp_d[i]), .s_i(s_d[i]), .c_i(c_d[i]),
      .valid_o(valid_d[i+1]), .tag_o(tag_d[i+1]), .x_o(x_d[i+1][XOut-1:0]),
      .y_o(y_d[i+1]), .m_o(m_d[i+1]), .mp_o(mp_d[i+1]), .s_o(s_d[i+1]), .c_o(c_d[i+1]));
    if (XOut < XW) begin : g_xpad
      assign x_d[i+1][XW-1:XOut] = '0;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Output stage: P = S + C, minus M if >= M
  // ---------------------------------------------------------------------------------------
  logic [N-1:0] p_fin;
  mont_pipe_final #(.N(N)) u_final (
    .s_i(s_d[D]), .c_i(c_d[D]), .m_i(m_d[D]), .p_o(p_fin));

  logic            out_valid_q;
  logic [TagW-1:0] out_tag_q;
  logic [N-1:0]    p_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
    end else if (advance) begin
      out_valid_q <= valid_d[D];
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_tag_q <= '0;
      p_q       <= '0;
    end else if (advance && valid_d[D]) begin
      out_tag_q <= tag_d[D];
      p_q       <= p_fin;
    end
  end
  assign out_valid_o = out_valid_q;
  assign tag_o       = out_tag_q;
  assign p_o         = p_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (mv_assert.svh)
  // ---------------------------------------------------------------------------------------
  `MV_ASSERT_OFF(clk_i, rst_ni)

  `ASSERT_INIT(PipeParamsLegal_A, N >= 4 && K >= 1 && K <= 48 && TagW >= 1
                                  && (!FaultEn || (FaultStage >= 0 && FaultStage < D)))
  // AXI-Stream: a result not taken stays, unchanged, until it is.
  `ASSERT_IMPL(PipeOutStable_A, $past(out_valid_o && !out_ready_i),
               out_valid_o && $stable(p_o) && $stable(tag_o), clk_i, assert_off)
  `ASSERT_KNOWN(PipeOutValidKnown_A, out_valid_o, clk_i, assert_off)
  `ASSERT_KNOWN(PipeOutKnown_A, {p_o, tag_o} & {(N + TagW){out_valid_o}}, clk_i, assert_off)
  // The input stage's m': M m' = -1 mod 2^K (mont_pipe_mprime.sv). The product is cast,
  // not its factor: yosys 0.70 sizes `(K'(in_m_q) * in_mp_q) == ...` at N bits, the cast's
  // operand's width, and fails it for N > K >= 3 (docs/formal.md, "Tools").
  `ASSERT_IMPL(PipeMPrime_A, in_valid_q, K'(in_m_q * in_mp_q) == {K{1'b1}}, clk_i,
               assert_off)
  // The input stream's promises: the operand domain, and AXI-Stream's rule that an operation
  // not accepted stays, unchanged, until it is.
  `ASSUME_IMPL(PipeInMOdd_M, in_valid_i, m_i[0], clk_i, assert_off)
  `ASSUME_IMPL(PipeInYBelowM_M, in_valid_i, y_i < m_i, clk_i, assert_off)
  `ASSUME_IMPL(PipeInStable_M, $past(in_valid_i && !in_ready_o),
               in_valid_i && $stable({x_i, y_i, m_i, tag_i}), clk_i, assert_off)

endmodule
