// mwrkmm_adders_tb: the mwrkmm core built twice, once with each PE addition unit (PeAdder = 0:
// two carry-propagate adders; PeAdder = 1: Michalski-Buell 2006 section 5.2's carry-save tree
// and one carry-propagate adder), running the same operations side by side. In every clock
// it compares what leaves each PE (its S word and its word-step flag), busy, last and P; per
// operation it prints P, the cycle count (START edge to the edge busy falls, as the loader's
// CYCLES) and the number of PE words compared. verif/tests/test_mwrkmm_adders.py writes the
// operations (+vectors=FILE: X, Y, M and m' one hex line each, N bits) and checks the lines.
// Simulation only: Icarus (-g2012) and Verilator (--binary --timing; the PEs' assertions on).

module mwrkmm_adders_tb #(
  parameter int N         = 32,
  parameter int V         = 8,
  parameter int W         = 4,
  parameter int P         = 1,
  parameter int PeLatency = 3,
  parameter int Ops       = 1
);

  logic         clk, rst_n, start;
  logic [N-1:0] x, y, m;
  logic [W-1:0] mp;
  logic [N-1:0] vec [0:4*Ops-1];
  logic         busy_cpa, busy_csa, last_cpa, last_csa;
  logic [N-1:0] p_cpa, p_csa;
  logic [N:0]   s_cpa, s_csa;
  int           mismatches, words;

  mwrkmm #(.N(N), .V(V), .W(W), .P(P), .PeLatency(PeLatency), .PeAdder(0)) u_cpa (
    .clk_i  (clk),
    .rst_ni (rst_n),
    .start_i(start),
    .clear_i(1'b0),
    .x_i    (x),
    .y_i    (y),
    .m_i    (m),
    .busy_o (busy_cpa),
    .last_o (last_cpa),
    .p_o    (p_cpa),
    .mp_i   (mp),
    .s_o    (s_cpa)
  );

  mwrkmm #(.N(N), .V(V), .W(W), .P(P), .PeLatency(PeLatency), .PeAdder(1)) u_csa (
    .clk_i  (clk),
    .rst_ni (rst_n),
    .start_i(start),
    .clear_i(1'b0),
    .x_i    (x),
    .y_i    (y),
    .m_i    (m),
    .busy_o (busy_csa),
    .last_o (last_csa),
    .p_o    (p_csa),
    .mp_i   (mp),
    .s_o    (s_csa)
  );

  initial clk = 1'b0;
  always #5 clk = ~clk;

  // every clock, between the edges: the words out of every PE (s_out: PE k's S register),
  // the step flags, busy, last, P and the S before the final subtraction (a checker: its
  // counters are blocking, read by the stimulus after the same edge)
  /* verilator lint_off BLKSEQ */
  /* verilator lint_off SYNCASYNCNET */
  always @(negedge clk) begin
    if (rst_n) begin
      if (u_cpa.s_out !== u_csa.s_out || u_cpa.pe_step !== u_csa.pe_step
          || busy_cpa !== busy_csa || last_cpa !== last_csa || p_cpa !== p_csa
          || s_cpa !== s_csa) begin
        mismatches = mismatches + 1;
        if (mismatches <= 5) begin
          $display("MISMATCH @ %0t: PE words %h / %h, steps %b / %b, busy %b / %b, last %b / %b",
                   $time, u_cpa.s_out, u_csa.s_out, u_cpa.pe_step, u_csa.pe_step, busy_cpa,
                   busy_csa, last_cpa, last_csa);
        end
      end
      words = words + $countones(u_cpa.pe_step);
    end
  end
  /* verilator lint_on SYNCASYNCNET */
  /* verilator lint_on BLKSEQ */

  initial begin
    string file;
    int    cycles, first;
    if (!$value$plusargs("vectors=%s", file)) begin
      $fatal(1, "mwrkmm_adders_tb: no +vectors=FILE");
    end
    $readmemh(file, vec);
    mismatches = 0;
    words      = 0;
    rst_n      = 1'b0;
    start      = 1'b0;
    {x, y, m}  = '0;
    mp         = '0;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);
    for (int i = 0; i < Ops; i++) begin
      x     = vec[4*i];
      y     = vec[4*i+1];
      m     = vec[4*i+2];
      mp    = vec[4*i+3][W-1:0];
      first = words;
      start = 1'b1;
      @(negedge clk);        // the START edge has passed
      start  = 1'b0;
      cycles = 0;
      do begin
        @(negedge clk);
        cycles = cycles + 1;
      end while (busy_cpa || busy_csa);
      $display("OP %0d P %h CYCLES %0d WORDS %0d", i, p_cpa, cycles, words - first);
      @(negedge clk);
    end
    $display("DONE MISMATCHES %0d", mismatches);
    $finish;
  end

endmodule
