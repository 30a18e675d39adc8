// scalable_ring: the S-word paths of a scalable systolic array of Pes processing elements.
//
// Michalski-Buell (2006), sections 4 and 5: PE k takes the S words PE k-1 emits; PE 0 takes
// those of PE Pes-1 (the previous round's jobs) through the shift register used when
// P < p_max, Dly registers cleared at the start (S = 0 in round 0; Dly <= 0: none). The final
// unit (section 5.4) takes the words of PE KLast, the PE that runs the last job.
//
// Used by mwr2mm (Algorithm 1: Dly = E - 2P, PE latency 2) and mwrkmm (Algorithm 2:
// Dly = n - 3P, PE latency 3).
module scalable_ring #(
  parameter int WordW = 8,
  parameter int Pes   = 1,
  parameter int Dly   = 0,
  parameter int KLast = 0
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clear_i,     // operation start: zero the ring
  input  logic [Pes*WordW-1:0] s_pe_i,      // word k: out of PE k
  output logic [Pes*WordW-1:0] s_pe_o,      // word k: into PE k
  output logic [WordW-1:0]     res_word_o   // out of PE KLast, to the final unit
);

  scalable_delay #(
    .Width(WordW),
    .Depth((Dly > 0) ? Dly : 0)
  ) u_ring (
    .clk_i,
    .rst_ni,
    .clear_i,
    .d_i    (s_pe_i[(Pes-1)*WordW +: WordW]),
    .q_o    (s_pe_o[WordW-1:0])
  );

  if (Pes > 1) begin : g_chain
    assign s_pe_o[Pes*WordW-1:WordW] = s_pe_i[(Pes-1)*WordW-1:0];
  end

  assign res_word_o = s_pe_i[KLast*WordW +: WordW];

endmodule
