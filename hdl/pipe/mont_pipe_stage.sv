// mont_pipe_stage: one digit iteration of mont_pipe and the pipeline register after it.
//
// Part of mont_pipe (hdl/pipe/mont_pipe.sv, whose header states the algorithm, the papers,
// the bound and the widths). Iteration i = Index of radix-2^K Montgomery multiplication
// (Tanimura et al. 2008, slide "Montgomery Multiplication": t_i := (c_0 + a_i b_0) q mod 2^k,
// C := (C + a_i B + t_i P) / 2^k), on a carry-save accumulator. From the registers of the
// stage before, T = S + C (< 2M), the digits of X still to come (x_i is their low K bits), Y,
// M and m' = -M^-1 mod 2^K, with W = N + K + 1:
//   chain 1, K CSAs:  (SA, CA) = S + C + sum_j x_i[j] 2^j Y       rows in order j = 0..K-1
//   t   = SA mod 2^K = (T + x_i Y) mod 2^K                         (CA mod 2^K = 0, below)
//   q_i = t m' mod 2^K                                            K x K, low half
//   chain 2, K CSAs:  (SB, CB) = SA + CA + sum_j q_i[j] 2^j M      rows in order j = 0..K-1
//   S' = SB >> K, C' = CB >> K        T' = S' + C' = (T + x_i Y + q_i M) / 2^K
// Each chain leaves its carry vector's low digit 0, whatever the digits are: CSA j writes
// carry bit b + 1 from bit b of its three inputs, and for b < j its row (shifted by j) and,
// by induction, its carry input are 0 there, so its carry output is 0 in bits 0..j; after K
// rows, in bits 0..K-1. So t needs no adder (SA's low digit is that of SA + CA), and the
// division drops nothing: SB mod 2^K = (T + x_i Y + q_i M) mod 2^K = 0, as q_i M = -t mod
// 2^K. (Unlike mont_r4, which adds x_i Y and q_i M as one row each and keeps a carry out of
// its low digit.)
// Every vector is W bits: SB + CB < 2M + 2 (2^K - 1) M = 2^(K+1) M < 2^W, so no CSA carry
// out of bit W-1 is dropped; S' and C' are N + 1 bits (T' < 2M < 2^(N+1)).
//
// The register (enabled by en_i, the pipeline's advance; data only with a valid operation)
// holds valid, tag, S', C', M and, unless this is the last digit (XInW = K), the digits of X
// above x_i, Y and m'. Its outputs are the next stage's inputs.
//
// Assertions: the carry vectors' low digits CA mod 2^K and CB mod 2^K are 0, so is SB mod 2^K
// (the division by 2^K is exact), and the registered T' = S' + C' < 2M (mont_pipe's bound,
// per stage).
`include "mv_assert.svh"

module mont_pipe_stage #(
  parameter int N          = 16,
  parameter int K          = 4,
  parameter int TagW       = 8,
  parameter int XInW       = K,     // bits of X still to scan: x_i and the digits above it
  parameter int Index      = 0,     // the digit iteration i this stage computes
  // Test only: with FaultEn, the stage with Index == FaultStage flips bit 0 of its q_i.
  parameter bit FaultEn    = 1'b0,
  parameter int FaultStage = 0,
  parameter int XOutW      = (XInW > K) ? XInW - K : 1  // x_o: the digits above x_i
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             en_i,     // the pipeline advances this clock
  input  logic             valid_i,
  input  logic [TagW-1:0]  tag_i,
  input  logic [XInW-1:0]  x_i,
  input  logic [N-1:0]     y_i,
  input  logic [N-1:0]     m_i,
  input  logic [K-1:0]     mp_i,
  input  logic [N:0]       s_i,
  input  logic [N:0]       c_i,
  output logic             valid_o,
  output logic [TagW-1:0]  tag_o,
  output logic [XOutW-1:0] x_o,      // 0 after the last digit
  output logic [N-1:0]     y_o,      // 0 after the last digit
  output logic [N-1:0]     m_o,
  output logic [K-1:0]     mp_o,     // 0 after the last digit
  output logic [N:0]       s_o,
  output logic [N:0]       c_o
);

  localparam int  W         = N + K + 1;
  localparam bit  Last      = XInW <= K;
  localparam bit  FaultHere = FaultEn && (Index == FaultStage);

  // Chain 1: S + C + x_i Y, one partial-product row of Y per bit of x_i.
  logic [K:0][W-1:0] sa, ca;  // the pair after j rows
  assign sa[0] = W'(s_i);
  assign ca[0] = W'(c_i);
  for (genvar j = 0; j < K; j++) begin : g_xrow
    logic [W-1:0] row;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [W-1:0] maj;  // bit W-1 is 0: the pair's sum stays below 2^W
    /* verilator lint_on UNUSEDSIGNAL */
    assign row       = x_i[j] ? (W'(y_i) << j) : '0;
    assign sa[j+1]   = sa[j] ^ ca[j] ^ row;
    assign maj       = (sa[j] & ca[j]) | (sa[j] & row) | (ca[j] & row);
    assign ca[j+1]   = {maj[W-2:0], 1'b0};
  end

  // The quotient digit from the low digit of T + x_i Y: SA's, CA's being 0.
  logic [K-1:0] t, q, q_sel;
  assign t     = sa[K][K-1:0];
  assign q     = t * mp_i;
  assign q_sel = q ^ K'(FaultHere);

  // Chain 2: + q_i M, one row of M per bit of q_i.
  logic [K:0][W-1:0] sb, cb;
  assign sb[0] = sa[K];
  assign cb[0] = ca[K];
  for (genvar j = 0; j < K; j++) begin : g_qrow
    logic [W-1:0] row;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [W-1:0] maj;  // bit W-1 is 0 (as above)
    /* verilator lint_on UNUSEDSIGNAL */
    assign row       = q_sel[j] ? (W'(m_i) << j) : '0;
    assign sb[j+1]   = sb[j] ^ cb[j] ^ row;
    assign maj       = (sb[j] & cb[j]) | (sb[j] & row) | (cb[j] & row);
    assign cb[j+1]   = {maj[W-2:0], 1'b0};
  end

  logic            valid_q;
  logic [TagW-1:0] tag_q;
  logic [N:0]      s_q, c_q;
  logic [N-1:0]    m_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (en_i) begin
      valid_q <= valid_i;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tag_q <= '0;
      s_q   <= '0;
      c_q   <= '0;
      m_q   <= '0;
    end else if (en_i && valid_i) begin
      tag_q <= tag_i;
      s_q   <= sb[K][W-1:K];
      c_q   <= cb[K][W-1:K];
      m_q   <= m_i;
    end
  end
  assign valid_o = valid_q;
  assign tag_o   = tag_q;
  assign s_o     = s_q;
  assign c_o     = c_q;
  assign m_o     = m_q;

  // What the later digits still need: the digits of X above x_i, Y and m'.
  if (Last) begin : g_last
    assign x_o  = '0;
    assign y_o  = '0;
    assign mp_o = '0;
  end else begin : g_more
    logic [XOutW-1:0] x_q;
    logic [N-1:0]     y_q;
    logic [K-1:0]     mp_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        x_q  <= '0;
        y_q  <= '0;
        mp_q <= '0;
      end else if (en_i && valid_i) begin
        x_q  <= x_i[XInW-1:K];
        y_q  <= y_i;
        mp_q <= mp_i;
      end
    end
    assign x_o  = x_q;
    assign y_o  = y_q;
    assign mp_o = mp_q;
  end

  // ---------------------------------------------------------------------------------------
  // Assertions (mv_assert.svh)
  // ---------------------------------------------------------------------------------------
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // The chains' carry vectors leave the low digit 0 (this header), so t is SA's low digit.
  `ASSERT_IMPL(PipeCarryLowZero_A, valid_i, {ca[K][K-1:0], cb[K][K-1:0]} == '0, clk_i,
               assert_off)
  // The division by 2^K drops no one bit: q_i M = -(T + x_i Y) mod 2^K.
  `ASSERT_IMPL(PipeLowDigitZero_A, valid_i, sb[K][K-1:0] == '0, clk_i, assert_off)
  // mont_pipe's bound after every digit: T' = S' + C' < 2M, from T < 2M, x_i, q_i <= 2^K - 1
  // and Y < M: T' < (2M + 2 (2^K - 1) M) / 2^K = 2M.
  `ASSERT_SUM_BELOW(PipeStageBound_A, valid_q, s_q, c_q, (N + 2)'(m_q) << 1, N + 2, clk_i,
                    assert_off)

endmodule
