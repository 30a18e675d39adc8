// mont_r2: radix-2 Montgomery multiplication with carry-propagate adders.
//
// Amanor (2005), Algorithm 1a (after Bunimov and Schimmler): P = X*Y*2^-N mod M, M odd.
// One loop cycle per bit x_i of X, least significant first:
//   step 3: T := P + x_i*Y          (carry-propagate adder)
//   step 4: T := T + q_i*M, q_i = t_0 (the LSB of T after step 3: the paper's p_0)
//   step 5: P := T div 2            (T is even, the shift drops a zero)
// Selection signal (observed for coverage): address {x_i, q_i}, 4 bins; all four occur for
// every N >= 2 (exhaustive enumeration in models/tests/test_mont.py).
//
// Widths: P < 2M holds after every iteration ((P + Y + M) / 2 < (2M + M + M) / 2), so P is
// N+1 bits and T (< 4M) is N+2 bits. After N iterations the FIN cycle subtracts M once if
// P >= M (step 6) and P leaves the core fully reduced.
//
// Cycles: N (loop) + 1 (FIN) = N + 1, from the start edge.
module mont_r2 #(
  parameter int N        = 32,
  // Test only: when FaultEn is set, the add-M decision q_i is inverted whenever the
  // selection address {x_i, q_i} equals FaultSel. Used by the negative tests.
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
  output logic [N-1:0] p_o
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
  logic [N:0]      acc_q;    // the loop's P (< 2M)
  logic [N-1:0]    p_q;      // result register (fully reduced)
  logic [CntW-1:0] cnt_q;

  // Step 3: T = P + x_i*Y
  logic [N+1:0] t3;
  assign t3 = {1'b0, acc_q} + {2'b00, y_i & {N{x_q[0]}}};

  // Selection: q_i is the LSB of T after step 3
  logic                q_i;
  logic [SelAddrW-1:0] sel_addr;
  logic                fault_hit;
  logic                add_m;
  assign q_i       = t3[0];
  assign sel_addr  = {x_q[0], q_i};
  assign fault_hit = FaultEn && (sel_addr == SelAddrW'(FaultSel));
  assign add_m     = q_i ^ fault_hit;

  // Step 4: T = T + q_i*M; t4[0] is 0 by construction and is shifted out (step 5).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N+1:0] t4;
  /* verilator lint_on UNUSEDSIGNAL */
  assign t4 = t3 + {2'b00, m_i & {N{add_m}}};

  // Step 6: conditional subtraction
  logic [N+1:0] p_diff;
  logic         sub_taken;
  assign p_diff    = {1'b0, acc_q} - {2'b00, m_i};
  assign sub_taken = !p_diff[N+1];  // P >= M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      x_q     <= '0;
      acc_q   <= '0;
      p_q     <= '0;
      cnt_q   <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            x_q   <= '0;
            acc_q <= '0;
            p_q   <= '0;
          end else if (start_i) begin
            x_q     <= x_i;
            acc_q   <= '0;
            cnt_q   <= '0;
            state_q <= StLoop;
          end
        end
        StLoop: begin
          acc_q <= t4[N+1:1];
          x_q   <= x_q >> 1;
          cnt_q <= cnt_q + 1'b1;
          if (cnt_q == CntW'(N - 1)) begin
            state_q <= StFin;
          end
        end
        StFin: begin
          p_q     <= sub_taken ? p_diff[N-1:0] : acc_q[N-1:0];
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  assign busy_o = (state_q != StIdle);
  assign last_o = (state_q == StFin);
  assign p_o    = p_q;

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
