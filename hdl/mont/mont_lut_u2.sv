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
  localparam int CntW       = $clog2(LoopCycles + 1);
  localparam int LutAddrW   = 4;
  localparam int LutBins    = Unfold << LutAddrW;         // 32 table addresses
  localparam int LutBinsW   = $clog2(LutBins);
  localparam int HitW       = 32;

  // The four precomputed table values (selection codes)
  localparam int SelW = 2;
  localparam logic [SelW-1:0] SelZero = 2'd0;
  localparam logic [SelW-1:0] SelM    = 2'd1;
  localparam logic [SelW-1:0] SelY    = 2'd2;
  localparam logic [SelW-1:0] SelR    = 2'd3;

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StPre  = 2'd1,
    StLoop = 2'd2,
    StFin  = 2'd3
  } state_e;

  state_e          state_q;
  logic [N-1:0]    x_q;      // X shift register: x_q[0] = x_i, x_q[1] = x_(i+1)
  logic [N:0]      r_q;      // R = Y + M
  logic [N:0]      s_q, c_q;
  logic [N-1:0]    p_q;
  logic [CntW-1:0] cnt_q;
  logic            last_loop;

  assign last_loop = (cnt_q == CntW'(LoopCycles - 1));

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

  // Final carry-propagate addition and conditional subtraction
  logic [N:0]   p_full;
  logic [N+1:0] p_diff;
  logic         sub_taken;
  assign p_full    = s_q + c_q;
  assign p_diff    = {1'b0, p_full} - {2'b00, m_i};
  assign sub_taken = !p_diff[N+1];  // P >= M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      x_q     <= '0;
      r_q     <= '0;
      s_q     <= '0;
      c_q     <= '0;
      p_q     <= '0;
      cnt_q   <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            x_q <= '0;
            r_q <= '0;
            s_q <= '0;
            c_q <= '0;
            p_q <= '0;
          end else if (start_i) begin
            x_q     <= x_i;
            s_q     <= '0;
            c_q     <= '0;
            cnt_q   <= '0;
            state_q <= StPre;
          end
        end
        StPre: begin
          r_q     <= {1'b0, y_i} + {1'b0, m_i};
          state_q <= StLoop;
        end
        StLoop: begin
          s_q     <= s_nxt;
          c_q     <= c_nxt;
          x_q     <= x_q >> Unfold;
          cnt_q   <= cnt_q + 1'b1;
          if (last_loop) begin
            state_q <= StFin;
          end
        end
        StFin: begin
          p_q     <= sub_taken ? p_diff[N-1:0] : p_full[N-1:0];
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  assign busy_o = (state_q != StIdle);
  assign last_o = (state_q == StFin);
  assign p_o    = p_q;
  assign s_o    = s_q;
  assign c_o    = c_q;

`ifndef SYNTHESIS
  // Simulation-only observation (hdl/common/mv_observe.sv): hits per table address (stage 0: 0..15, stage 1: 16..31)
  // in the last operation, and whether FIN subtracted M; read by the testbench at done.
  logic [LutBinsW-1:0] hit0, hit1;
  assign hit0 = {1'b0, addr0};
  assign hit1 = {1'b1, addr1};
  // Named first: Icarus 11 turns an enum compared inside a port connection into Z.
  logic obs_clear, obs_loop, obs_fin, obs_loop1;
  assign obs_clear = (state_q == StIdle) && start_i;
  assign obs_loop  = (state_q == StLoop);
  assign obs_fin   = (state_q == StFin);
  assign obs_loop1 = (state_q == StLoop) && !half;
  mv_observe #(
    .Bins(LutBins),
    .HitW(HitW)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (obs_clear),
    .count0_i   (obs_loop),
    .addr0_i    (hit0),
    .count1_i   (obs_loop1),
    .addr1_i    (hit1),
    .fin_i      (obs_fin),
    .sub_taken_i(sub_taken)
  );
`endif

endmodule
