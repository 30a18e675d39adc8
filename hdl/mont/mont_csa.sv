// mont_csa: fast Montgomery multiplication with two carry-save adders in series.
//
// Amanor (2005), Algorithm 1b and Fig. 1 (after Bunimov and Schimmler): P = X*Y*2^-N mod M,
// M odd. One loop cycle per bit x_i of X, least significant first:
//   step 3: S', C' := CSA(S, C, x_i*Y)
//   step 4: S'', C'' := CSA(S', C', s'_0*M), s'_0 = the LSB of S' (C' has a zero LSB, so
//           s'_0 is the parity of S + C + x_i*Y and S'' + C'' is even)
//   step 5: S := S'' div 2; C := C'' div 2   (both LSBs are zero: routing only)
// Selection signal (observed for coverage): address {x_i, s'_0}, 4 bins; all four occur for
// every N >= 2 (exhaustive enumeration in models/tests/test_mont.py).
//
// Widths: S and C stay below 2^N after every shift. By induction: with S, C, Y, M < 2^N,
// S' < 2^N and C' < 2^(N+1) (C' = majority << 1); the majority of CSA 2 has bit N zero (S'
// and M have none), so C = that majority is N bits, and S'' < 2^(N+1) gives S < 2^N. So S
// and C are N-bit registers (the register map's redundant_extra_bits = 0). S + C < 2M (it is
// Algorithm 1a's P). After N iterations the FIN cycle adds P = S + C with a carry-propagate
// adder and subtracts M once if P >= M (steps 6 and 7); S and C stay readable.
//
// Cycles: N (loop) + 1 (FIN) = N + 1, from the start edge.
module mont_csa #(
  parameter int N        = 32,
  // Test only: when FaultEn is set, the add-M decision s'_0 is inverted whenever the
  // selection address {x_i, s'_0} equals FaultSel. Used by the negative tests.
  parameter bit FaultEn  = 1'b0,
  parameter int FaultSel = 0
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
  output logic [N-1:0] s_o,
  output logic [N-1:0] c_o
);

  localparam int CntW     = $clog2(N + 1);
  localparam int SelAddrW = 2;
  localparam int SelSize  = 1 << SelAddrW;
  localparam int HitW     = 32;

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StLoop = 2'd1,
    StFin  = 2'd2
  } state_e;

  state_e          state_q;
  logic [N-1:0]    x_q;      // X shift register: x_i is bit 0
  logic [N-1:0]    s_q, c_q;
  logic [N-1:0]    p_q;
  logic [CntW-1:0] cnt_q;

  // CSA 1 (step 3): S' = S ^ C ^ x_i*Y, majority bit k has weight 2^(k+1)
  logic [N-1:0] xy, s1, maj1;
  assign xy   = y_i & {N{x_q[0]}};
  assign s1   = s_q ^ c_q ^ xy;
  assign maj1 = (s_q & c_q) | (s_q & xy) | (c_q & xy);

  // Selection: s'_0 decides whether CSA 2 adds M
  logic                q_i;
  logic [SelAddrW-1:0] sel_addr;
  logic                fault_hit;
  logic                add_m;
  assign q_i       = s1[0];
  assign sel_addr  = {x_q[0], q_i};
  assign fault_hit = FaultEn && (sel_addr == SelAddrW'(FaultSel));
  assign add_m     = q_i ^ fault_hit;

  // CSA 2 (step 4) on S', C' = {maj1, 0} and s'_0*M. Its sum bit 0 is 0 by construction and
  // is shifted out; its majority (bits 0..N-1; bit N is always 0) is the new C after the
  // shift (step 5).
  logic [N-1:0] qm;
  logic [N:0]   c1;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N:0]   s2;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [N-1:0] maj2;
  assign qm   = m_i & {N{add_m}};
  assign c1   = {maj1, 1'b0};
  assign s2   = {1'b0, s1} ^ c1 ^ {1'b0, qm};
  assign maj2 = (s1 & c1[N-1:0]) | (s1 & qm) | (c1[N-1:0] & qm);

  // Final carry-propagate addition and conditional subtraction (steps 6, 7)
  logic [N:0]   p_full;
  logic [N+1:0] p_diff;
  logic         sub_taken;
  assign p_full    = {1'b0, s_q} + {1'b0, c_q};
  assign p_diff    = {1'b0, p_full} - {2'b00, m_i};
  assign sub_taken = !p_diff[N+1];  // P >= M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      x_q     <= '0;
      s_q     <= '0;
      c_q     <= '0;
      p_q     <= '0;
      cnt_q   <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            x_q <= '0;
            s_q <= '0;
            c_q <= '0;
            p_q <= '0;
          end else if (start_i) begin
            x_q     <= x_i;
            s_q     <= '0;
            c_q     <= '0;
            cnt_q   <= '0;
            state_q <= StLoop;
          end
        end
        StLoop: begin
          s_q   <= s2[N:1];
          c_q   <= maj2;
          x_q   <= x_q >> 1;
          cnt_q <= cnt_q + 1'b1;
          if (cnt_q == CntW'(N - 1)) begin
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
  // Simulation-only observation (hdl/common/mv_observe.sv): hits per selection {x_i, q_i}
  // in the last operation, and whether FIN subtracted M; read by the testbench at done.
  // Named first: Icarus 11 turns an enum compared inside a port connection into Z.
  logic obs_clear, obs_loop, obs_fin;
  assign obs_clear = (state_q == StIdle) && start_i;
  assign obs_loop  = (state_q == StLoop);
  assign obs_fin   = (state_q == StFin);
  mv_observe #(
    .Bins(SelSize),
    .HitW(HitW)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (obs_clear),
    .count0_i   (obs_loop),
    .addr0_i    (sel_addr),
    .count1_i   (1'b0),
    .addr1_i    (sel_addr),  // unused: count1_i is 0
    .fin_i      (obs_fin),
    .sub_taken_i(sub_taken)
  );
`endif

endmodule
