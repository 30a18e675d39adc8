// scalable_frame: a scalable systolic core around its array of processing elements.
//
// Michalski-Buell (2006), sections 4 and 5: what Algorithm 1 (MWR2MM) and Algorithm 2
// (MWRkMM) build alike around their PEs. It holds the control with the word-serial final
// subtraction and the observation (scalable_ctrl.sv as u_ctrl), the Y/M word injection into
// PE 0 (scalable_inject.sv) and the S-word ring of the array (scalable_ring.sv). The core
// gives the operands as its injector rotates them (y_words_i, m_words_i), forms PE 0's token
// from inj_o, slot_o, y_o and m_o, runs its own PEs on the S words of s_pe_o (word k: into
// PE k) and returns theirs on s_pe_i. Each PE reports its word steps (step_i) and whether its
// carry is non-zero (carry_nz_i); the observation counts them at address
// 2*(PE mod 8) + carry_nz.
//
// The schedule follows from the jobs, the PEs, the words and the PE latency L (section 5:
// job j = rP + k runs on PE k, its first word at clock r*Words + L*k): Rounds = ceil(Jobs /
// Pes), the last job on PE KLast = (Jobs - 1) mod Pes from clock TLast = (Rounds - 1)*Words
// + L*KLast, its first S word at the final unit at TOut = TLast + L, FIN at TFin = TLast +
// Words + L, and Words - L*Pes delay registers from PE Pes-1 back to PE 0.
//
// Used by mwr2mm (L = 2) and mwrkmm (L = 3); the cores connect it with
// `SCALABLE_FRAME_CONN (mv_core_ports.svh).
module scalable_frame #(
  parameter int N      = 32,                 // width of M and of the result
  parameter int WordW  = 8,
  parameter int Words  = 5,                  // Words * WordW >= N + 1
  parameter int Jobs   = 32,                 // jobs of the array (bits or digits of X)
  parameter int Pes    = 1,
  parameter int PeLat  = 2,                  // clocks from one PE to the next
  parameter int SlotW  = $clog2(Words + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   start_i,
  input  logic                   clear_i,
  input  logic [N-1:0]           m_i,
  input  logic [Words*WordW-1:0] y_words_i,   // Y and M as the injector rotates them
  input  logic [Words*WordW-1:0] m_words_i,
  output logic                   load_o,      // idle and START: load the array
  output logic                   inj_o,       // into PE 0: a slot of the rounds,
  output logic [SlotW-1:0]       slot_o,      // its number in the round,
  output logic [WordW-1:0]       y_o,         // its word of Y and of M
  output logic [WordW-1:0]       m_o,
  output logic [Pes*WordW-1:0]   s_pe_o,      // word k: S into PE k
  input  logic [Pes*WordW-1:0]   s_pe_i,      // word k: S out of PE k
  input  logic [Pes-1:0]         step_i,      // PE k took a word (observation)
  input  logic [Pes-1:0]         carry_nz_i,  // PE k's carry is non-zero (observation)
  output logic                   busy_o,
  output logic                   last_o,      // high during the last busy cycle (FIN)
  output logic [N-1:0]           p_o,
  output logic [Words*WordW-1:0] res_o        // the latched S (before the subtraction)
);

  localparam int PesG     = (Pes > 0) ? Pes : 1;             // the cores reject Pes < 1
  localparam int Rounds   = (Jobs + PesG - 1) / PesG;        // rounds of jobs
  localparam int KLast    = (Jobs - 1) % PesG;               // the PE of the last job
  localparam int TLast    = (Rounds - 1) * Words + PeLat * KLast;
  localparam int TOut     = TLast + PeLat;                   // first result word
  localparam int TFin     = TLast + Words + PeLat;           // the FIN clock
  localparam int Dly      = Words - PeLat * Pes;             // ring delay registers

  localparam int ObsSlots = 8;                // observation: PE index mod 8
  localparam int ObsBins  = 2 * ObsSlots;
  localparam int ObsAddrW = 4;

  logic                  run;
  logic [WordW-1:0]      res_word;
  logic [Pes*ObsAddrW-1:0] obs_addr;
  for (genvar k = 0; k < Pes; k++) begin : g_obs
    assign obs_addr[k*ObsAddrW +: ObsAddrW] = {3'(k % ObsSlots), carry_nz_i[k]};
  end

  // Control, final unit and observation
  scalable_ctrl #(
    .N       (N),
    .WordW   (WordW),
    .Words   (Words),
    .TOut    (TOut),
    .TFin    (TFin),
    .Ports   (Pes),
    .ObsBins (ObsBins),
    .ObsAddrW(ObsAddrW)
  ) u_ctrl (
    .clk_i,
    .rst_ni,
    .start_i,
    .clear_i,
    .m_i,
    .res_word_i(res_word),
    .load_o,
    .run_o     (run),
    .busy_o,
    .last_o,
    .p_o,
    .res_o,
    .obs_step_i(step_i),
    .obs_addr_i(obs_addr)
  );

  // Y/M word injection into PE 0: Words words per round, Rounds rounds
  scalable_inject #(
    .WordW (WordW),
    .Words (Words),
    .Rounds(Rounds),
    .SlotW (SlotW)
  ) u_inject (
    .clk_i,
    .rst_ni,
    .load_i(load_o),
    .run_i (run),
    .y_i   (y_words_i),
    .m_i   (m_words_i),
    .inj_o,
    .slot_o,
    .y_o,
    .m_o
  );

  // PE k-1 feeds PE k; PE Pes-1 feeds PE 0 through Dly delay registers (zero in round 0:
  // every register is cleared at the start, S = 0); the final unit takes the last job's S
  // words from PE KLast.
  scalable_ring #(
    .WordW(WordW),
    .Pes  (Pes),
    .Dly  (Dly),
    .KLast(KLast)
  ) u_ring (
    .clk_i,
    .rst_ni,
    .clear_i   (load_o),
    .s_pe_i,
    .s_pe_o,
    .res_word_o(res_word)
  );

endmodule
