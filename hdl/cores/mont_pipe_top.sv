// Written into hdl/cores/ by `montverif generate` (each build writes the same text into build/gen/).
// GENERATED from hdl/pipe/mont_pipe.toml by montverif.spec.stream_top: the
// mont_pipe core (radix-2^k Montgomery unrolled (Koc 1996; Tanimura 2008; Gajbhiye 2018): fully pipelined radix-2^K: one digit iteration a stage, a new operation every clock)
// between the stream harness's source and sink. Do not edit: change the descriptor.
module mont_pipe_top #(
  parameter int N = 32,
  parameter int BusW = 32,
  parameter int AckWait = 0,
  parameter int K = 4,
  parameter int TagW = 8,
  parameter bit FaultEn = 1'b0,
  parameter int FaultStage = 0,
  parameter int StreamDepth = 1024
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        tb_go_i,
  input  logic [15:0] tb_len_i,
  input  logic [31:0] tb_timeout_i,
  output logic        tb_fin_o,
  output logic        tb_timeout_o,
  output logic [15:0] tb_taken_o,
  output logic [15:0] tb_results_o
);

  localparam int MinN = 4;
  localparam int TagBits = TagW;
  if (N < MinN) begin : g_bad_n
    initial $fatal(1, "mont_pipe_top: N must be at least %0d (got %0d)", MinN, N);
  end
  // every build passes the bus loader's parameters: a streaming top uses neither
  /* verilator lint_off UNUSEDPARAM */
  localparam int UnusedBus = BusW + AckWait;
  /* verilator lint_on UNUSEDPARAM */

  logic               in_valid, in_ready, out_valid, out_ready;
  logic [N-1:0]       x, y, m, p;
  logic [TagBits-1:0] tag_in, tag_out;

  mv_stream_engine #(
    .N    (N),
    .TagW (TagBits),
    .Depth(StreamDepth),
    .GapW (4)
  ) u_engine (
    .clk_i, .rst_ni,
    .go_i       (tb_go_i),
    .len_i      (tb_len_i),
    .timeout_i  (tb_timeout_i),
    .fin_o      (tb_fin_o),
    .timeout_o  (tb_timeout_o),
    .taken_o    (tb_taken_o),
    .results_o  (tb_results_o),
    .in_valid_o (in_valid),
    .in_ready_i (in_ready),
    .x_o        (x),
    .y_o        (y),
    .m_o        (m),
    .tag_o      (tag_in),
    .out_valid_i(out_valid),
    .out_ready_o(out_ready),
    .p_i        (p),
    .tag_i      (tag_out)
  );

  mont_pipe #(
    .N         (N),
    .K         (K),
    .TagW      (TagW),
    .FaultEn   (FaultEn),
    .FaultStage(FaultStage)
  ) u_core (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (in_valid),
    .in_ready_o  (in_ready),
    .x_i         (x),
    .y_i         (y),
    .m_i         (m),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready),
    .p_o         (p),
    .tag_i       (tag_in),
    .tag_o       (tag_out)
  );

endmodule
