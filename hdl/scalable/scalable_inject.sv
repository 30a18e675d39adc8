// scalable_inject: the Y/M word injection into PE 0 of a scalable systolic array.
//
// Michalski-Buell (2006), sections 4 and 5: PE 0 takes one word of Y and of M per clock, the
// Words words of an operand once per round (one round: one job per PE), for Rounds rounds.
// Two rotating registers, loaded at the start, show the current word in their low WordW bits;
// slot_o counts the words of the round (0 .. Words-1). inj_o is high in every clock of the
// Rounds rounds while the core runs (run_i). The core loads y_i and m_i already arranged
// (MWRkMM rotates them by one word so that slot 0 shows its zero top word) and derives its
// token markers from slot_o.
//
// Used by mwr2mm (Algorithm 1: E = ceil((N+1)/W) words) and mwrkmm (Algorithm 2: the state-A
// slot and n - 1 words of V bits).
module scalable_inject #(
  parameter int WordW  = 8,
  parameter int Words  = 2,
  parameter int Rounds = 1,
  parameter int SlotW  = $clog2(Words + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   load_i,   // operation start: load y_i, m_i
  input  logic                   run_i,    // the core runs
  input  logic [Words*WordW-1:0] y_i,
  input  logic [Words*WordW-1:0] m_i,
  output logic                   inj_o,    // a slot of the Rounds rounds
  output logic [SlotW-1:0]       slot_o,
  output logic [WordW-1:0]       y_o,      // the slot's word of Y and of M
  output logic [WordW-1:0]       m_o
);

  localparam int Bits = Words * WordW;
  localparam int RndW = $clog2(Rounds + 1);

  logic [Bits-1:0]  yrot_q, mrot_q;
  logic [SlotW-1:0] sl_q;
  logic [RndW-1:0]  rnd_q;
  assign inj_o = run_i && (rnd_q != RndW'(Rounds));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      yrot_q <= '0;
      mrot_q <= '0;
      sl_q   <= '0;
      rnd_q  <= '0;
    end else if (load_i) begin
      yrot_q <= y_i;
      mrot_q <= m_i;
      sl_q   <= '0;
      rnd_q  <= '0;
    end else if (inj_o) begin
      yrot_q <= {yrot_q[WordW-1:0], yrot_q[Bits-1:WordW]};
      mrot_q <= {mrot_q[WordW-1:0], mrot_q[Bits-1:WordW]};
      if (sl_q == SlotW'(Words - 1)) begin
        sl_q  <= '0;
        rnd_q <= rnd_q + 1'b1;
      end else begin
        sl_q <= sl_q + 1'b1;
      end
    end
  end

  assign slot_o = sl_q;
  assign y_o    = yrot_q[WordW-1:0];
  assign m_o    = mrot_q[WordW-1:0];

endmodule
