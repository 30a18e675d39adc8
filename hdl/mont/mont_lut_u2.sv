// mont_lut_u2: Montgomery multiplication with a lookup table, unfolded by two.
//
// Gajbhiye (2018), "Pre-computed [8] with proposed unfolding" (Fig. 7): the loop of Amanor
// (2005) Algorithm 3 (Fig. 2: one table lookup + one CSA per bit of X) unfolded with J = 2
// (DFG unfolding, Gajbhiye Fig. 5/6): two lookups and two CSAs in series per clock.
// P = X*Y*2^-N mod M. The four values {0, M, Y, R = Y + M} are precomputed (R in the PRE
// cycle); both stages select from them with the table of Algorithm 3 (steps 3-6):
//   x = 0: I = 0 if s_0 == c_0 else M
//   x = 1: I = Y if s_0 ^ c_0 ^ y_0 == 0 else R
// stage 0: address {x_i,     y_0, s_0,  c_0 } from the S, C registers,
//          (S', C') = (S + C + I0) / 2 (one CSA, shift by routing);
// stage 1: address {x_(i+1), y_0, s'_0, c'_0} from stage 0's shifted outputs, i.e. bits 1 of
//          stage 0's CSA sum and bit 0 of its carry (the table-CSA-table-CSA critical path),
//          (S'', C'') = (S' + C' + I1) / 2; S'', C'' are registered.
// Table addresses for coverage: 16*stage + {x, y_0, s_0, c_0}, 32 in all; every address of
// both stages is reachable for N >= 4 (derived by enumeration in models/tests/test_mont_u2.py).
// Gajbhiye's Table I has one wrong entry (x_i = 0, y_0 = 0, c_0 = s_0 = 1 -> Y; Algorithm 3
// gives 0, used here), see mont_lut.
//
// Widths: as in mont_lut, S + C < 2M after every iteration (I <= Y + M < 2M), S < 2^N and
// C < 2^(N+1): S, C and R are N+1 bits in both stages and nothing overflows.
//
// Odd N: the last loop cycle is a half step: only stage 0 runs (stage 1 is bypassed), so
// exactly N iterations are done and R = 2^N (padding X with a zero bit would divide by
// 2^(N+1)).
//
// Cycles: 1 (PRE: R = Y + M) + ceil(N/2) (loop) + 1 (FIN: P = S + C, subtract M once if
// P >= M) = ceil(N/2) + 2, from the start edge.
module mont_lut_u2 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, table address FaultAddr (16*stage + address) returns
  // the wrong entry (0 <-> M, Y <-> R). Used by the negative tests.
  parameter bit          FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         start_i,
  input  logic         clear_i,
  input  logic [N-1:0] x_i,
  input  logic [N-1:0] y_i,
  input  logic [N-1:0] m_i,
  output logic         busy_o,
  output logic         last_o,  // high during the last busy cycle (FIN)
  output logic [N-1:0] p_o,
  output logic [N:0]   s_o,
  output logic [N:0]   c_o
);

  localparam int Unfold     = 2;                          // J: iterations per loop cycle
  localparam int LoopCycles = (N + Unfold - 1) / Unfold;  // ceil(N / 2)
  localparam bit HalfStep   = (N % Unfold) != 0;          // odd N: last cycle runs stage 0
  localparam int LutAddrW   = 4;
  localparam int LutBins    = Unfold << LutAddrW;         // 32 table addresses
  localparam int LutBinsW   = $clog2(LutBins);

  // The four precomputed table values (selection codes)
  localparam int SelW = 2;
  localparam logic [SelW-1:0] SelZero = 2'd0;
  localparam logic [SelW-1:0] SelM    = 2'd1;
  localparam logic [SelW-1:0] SelY    = 2'd2;
  localparam logic [SelW-1:0] SelR    = 2'd3;

  logic [N-1:0] x_q;  // X shift register: x_q[0] = x_i, x_q[1] = x_(i+1)
  logic [N:0]   r_q;  // R = Y + M
  logic [N:0]   s_q, c_q;
  logic [N-1:0] p_q;
  logic         last_loop;

  // Lookup table: address {x, y_0, s_0, c_0} -> which precomputed value to add.
  function automatic logic [SelW-1:0] lut_sel(input logic [LutAddrW-1:0] addr);
    logic xb, y0, s0, c0;
    {xb, y0, s0, c0} = addr;
    if (!xb) begin
      lut_sel = (s0 == c0) ? SelZero : SelM;
    end else begin
      lut_sel = (s0 ^ c0 ^ y0) ? SelR : SelY;
    end
  endfunction

  // The selected value
  function automatic logic [N:0] lut_val(input logic [SelW-1:0] sel, input logic [N-1:0] y,
                                         input logic [N-1:0] m, input logic [N:0] r);
    case (sel)
      SelZero: lut_val = '0;
      SelM:    lut_val = {1'b0, m};
      SelY:    lut_val = {1'b0, y};
      default: lut_val = r;
    endcase
  endfunction

  // One CSA and the shift: returns {S', C'}. The table makes S + C + I even, so the sum's
  // bit 0 is 0 and is dropped; the carry (weight 2^(k+1)) is kept unshifted.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [2*N+1:0] csa_step(input logic [N:0] s, input logic [N:0] c,
                                              input logic [N:0] v);
    logic [N:0] sum, carry;
    sum      = s ^ c ^ v;
    carry    = (s & c) | (s & v) | (c & v);
    csa_step = {1'b0, sum[N:1], carry};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Stage 0 (bit x_i) and stage 1 (bit x_(i+1)) in series
  logic [LutAddrW-1:0] addr0, addr1;
  logic [SelW-1:0]     sel0, sel1;
  logic [2*N+1:0]      st0, st1;
  logic [N:0]          s_mid, c_mid, s_nxt, c_nxt;
  logic                fault0, fault1;

  assign addr0  = {x_q[0], y_i[0], s_q[0], c_q[0]};
  // Test only: the faulty build swaps the entry at FaultAddr for its neighbour.
  assign fault0 = FaultEn && ({1'b0, addr0} == LutBinsW'(FaultAddr));
  assign sel0   = lut_sel(addr0) ^ (fault0 ? SelM : SelZero);
  assign st0    = csa_step(s_q, c_q, lut_val(sel0, y_i, m_i, r_q));
  assign s_mid  = st0[2*N+1:N+1];
  assign c_mid  = st0[N:0];

  assign addr1  = {x_q[1], y_i[0], s_mid[0], c_mid[0]};
  assign fault1 = FaultEn && ({1'b1, addr1} == LutBinsW'(FaultAddr));
  assign sel1   = lut_sel(addr1) ^ (fault1 ? SelM : SelZero);
  assign st1    = csa_step(s_mid, c_mid, lut_val(sel1, y_i, m_i, r_q));

  logic half;  // this loop cycle runs stage 0 only (last cycle of an odd N)
  assign half  = HalfStep && last_loop;
  assign s_nxt = half ? s_mid : st1[2*N+1:N+1];
  assign c_nxt = half ? c_mid : st1[N:0];

  // Control (IDLE, PRE: R = Y + M, ceil(N/2) loop cycles, FIN) and observation: hits per
  // table address (stage 0: 0..15, stage 1: 16..31) and whether FIN subtracted M.
  logic [LutBinsW-1:0] hit0, hit1;
  assign hit0 = {1'b0, addr0};
  assign hit1 = {1'b1, addr1};
  logic clear, load, pre, loop, fin;
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.LoopCycles(LoopCycles), .PreCycles(1), .ObsBins(LutBins)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .clear_o(clear), .load_o(load), .pre_o(pre),
    .loop_o(loop), .last_loop_o(last_loop), .fin_o(fin), .cnt_o(), .busy_o, .last_o,
    .obs_addr0_i(hit0), .obs_count1_i(!half), .obs_addr1_i(hit1),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // FIN: P = S + C, minus M if P >= M
  logic [N-1:0] p_fin;
  logic         sub_taken;
  mv_final_sub #(.N(N)) u_final (
    .s_i(s_q), .c_i(c_q), .cin_i(1'b0), .m_i, .p_o(p_fin), .sub_taken_o(sub_taken));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {x_q, r_q, s_q, c_q, p_q} <= '0;
    end else if (clear) begin
      {x_q, r_q, s_q, c_q, p_q} <= '0;
    end else if (load) begin
      x_q <= x_i;
      s_q <= '0;
      c_q <= '0;
    end else if (pre) begin
      r_q <= {1'b0, y_i} + {1'b0, m_i};
    end else if (loop) begin
      s_q <= s_nxt;
      c_q <= c_nxt;
      x_q <= x_q >> Unfold;
    end else if (fin) begin
      p_q <= p_fin;
    end
  end

  assign p_o = p_q;
  assign s_o = s_q;
  assign c_o = c_q;

endmodule
