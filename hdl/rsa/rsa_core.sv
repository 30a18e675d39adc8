// rsa_core: modular exponentiation P = X^E mod M with two Montgomery multipliers at once.
//
// Michalski and Buell (2006), section 5.5, Algorithm 4 (right-to-left binary exponentiation)
// and Fig. 7 (the RSA core: two Montgomery multipliers, an exponent shift register and the
// loop control). Algorithm 4 in the Montgomery domain (R = 2^N, mont(a, b) = a*b*R^-1 mod M):
//   step TO:   A <- mont(1, R2) = R mod M  and  S <- mont(X, R2) = X*R mod M   (R2 = R^2 mod M)
//   step LOOP: A <- mont(A, S) if e_0 = 1  and  S <- mont(S, S);  E <- E >> 1   (2.1 - 2.3)
//   step FROM: P <- mont(1, A) = X^E mod M                                       (step 3)
// Both products of a step run in parallel on two multipliers (u_mult_a, u_mult_s), as in the
// paper, so a step costs one multiplication time.
//
// Constant time (ConstTime = 1, the default): the loop runs exactly N steps (the exponent
// register's width), and every step runs both products; when e_0 = 0 the product A*S is
// computed and discarded. The cycle count depends on N and Mult only:
//   (N + 2) * (Lm + 1) cycles, Lm = the multiplier's cycles (rsa_mont_mult), +1 = the capture
//   cycle that takes both products and starts the next step.
// ConstTime = 0 follows Algorithm 4 literally: the loop stops when the remaining exponent is 0,
// A*S runs only when e_0 = 1 and S*S only while higher bits remain. It then takes
// (bitlen(E) + 2) * (Lm + 1) cycles (leaking the exponent's bit length) and multiplier A is
// idle exactly in the steps of the zero bits (visible to power or EM analysis).
// E = 0 is defined: no LOOP product is kept and P = mont(1, R mod M) = 1 mod M (0 for M = 1).
//
// Secrets: E is shifted out of e_q; e_q, A, S and both multipliers' registers (through their
// clear_i) are wiped on the edge that ends the operation (last_o) and by clear_i.
// Operand bounds: X, R2 < M (the loader refuses X >= M); every product is fully reduced (< M),
// so every multiplier input Y is below M as the multipliers require (X may be 1 >= M = 1).
//
// Assertions (docs/formal.md): the FSM's states, phases and transitions, the step counter in
// range, both products every LOOP step in constant time, every product reduced, and the
// secrets wiped at the end.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module rsa_core #(
  parameter int N         = 32,
  parameter int Mult      = 0,     // multiplier architecture, see rsa_mont_mult
  parameter int V         = 16,    // mwrkmm / mont_qp only (see rsa_mont_mult)
  parameter int W         = 16,
  parameter int P         = 1,
  parameter bit ConstTime = 1'b1,  // 1: fixed step count, both products every step
  // Test only: corrupt one table entry of multiplier A (negative test of the scoreboard).
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_CTRL_PORTS,
  input  logic [N-1:0] x_i,    // message
  input  logic [N-1:0] e_i,    // exponent
  input  logic [N-1:0] m_i,    // modulus (odd)
  input  logic [N-1:0] r2_i,   // R^2 mod M (host precomputed)
  // The multiplier's reduction constant (host precomputed): m' = -M^-1 mod 2^N, of which the
  // bit-serial multipliers need only bit 0 (1 for every odd M) and mwrkmm its low W bits;
  // M-hat for mont_qp (Mult = 5).
  input  logic [N-1:0] mp_i,
  `MV_CORE_RESULT_PORTS
);

  localparam int CntW = $clog2(N + 1);

  localparam logic [1:0] StIdle = 2'd0;
  localparam logic [1:0] StRun  = 2'd1;  // both multipliers busy
  localparam logic [1:0] StCap  = 2'd2;  // take the products, start the next step

  localparam logic [1:0] PhTo   = 2'd0;  // into the Montgomery domain
  localparam logic [1:0] PhLoop = 2'd1;  // one exponent bit
  localparam logic [1:0] PhFrom = 2'd2;  // out of the Montgomery domain

  localparam logic [N-1:0] One = N'(1);

  logic [1:0]      state_q, phase_q;
  logic [N-1:0]    a_q, s_q, e_q;
  logic [CntW-1:0] cnt_q;
  logic            ran_a_q, ran_s_q;  // which multipliers run in this step

  // The two multipliers
  logic         ma_start, ms_start, mult_clear;
  logic         ma_busy, ms_busy, ma_last, ms_last;
  logic [N-1:0] ma_x, ma_y, ms_x, ms_y, ma_p, ms_p;
  logic [N:0]   ma_s, ma_c, ms_s, ms_c;

  // ---------------------------------------------------------------------------------------
  // Step decision (used in StCap): the next A, S, exponent and phase
  // ---------------------------------------------------------------------------------------
  logic [N-1:0]    a_nxt, s_nxt, e_nxt;
  logic [CntW-1:0] cnt_nxt;
  logic [1:0]      phase_nxt;
  logic            finish;
  logic            e_bit;  // e_0 of this step (named: Icarus 11 warns on selects in always_*)
  assign e_bit = e_q[0];

  always_comb begin
    a_nxt     = a_q;
    s_nxt     = s_q;
    e_nxt     = e_q;
    cnt_nxt   = cnt_q;
    phase_nxt = phase_q;
    finish    = 1'b0;
    case (phase_q)
      PhTo: begin
        a_nxt     = ma_p;
        s_nxt     = ms_p;
        phase_nxt = (!ConstTime && e_q == '0) ? PhFrom : PhLoop;
      end
      PhLoop: begin
        a_nxt   = (ran_a_q && e_bit) ? ma_p : a_q;  // 2.1 (discarded when e_0 = 0)
        s_nxt   = ran_s_q ? ms_p : s_q;              // 2.3
        e_nxt   = e_q >> 1;                          // 2.2
        cnt_nxt = cnt_q + 1'b1;
        if (ConstTime ? (cnt_q == CntW'(N - 1)) : (e_nxt == '0)) begin
          phase_nxt = PhFrom;
        end
      end
      default: finish = 1'b1;  // PhFrom: P = mont(1, A)
    endcase
  end

  // ---------------------------------------------------------------------------------------
  // Starting a step and the multipliers' operands
  // ---------------------------------------------------------------------------------------
  logic         in_cap, start_first, start_next, starting;
  logic [1:0]   op_phase;
  logic [N-1:0] a_cur, s_cur, e_cur;

  assign in_cap      = (state_q == StCap);
  assign start_first = (state_q == StIdle) && start_i && !clear_i;
  assign start_next  = in_cap && !finish;
  assign starting    = start_first || start_next;
  assign op_phase    = start_first ? PhTo : (start_next ? phase_nxt : phase_q);
  assign a_cur       = in_cap ? a_nxt : a_q;
  assign s_cur       = in_cap ? s_nxt : s_q;
  assign e_cur       = in_cap ? e_nxt : e_q;

  assign ma_start = starting && (ConstTime || op_phase != PhLoop || e_cur[0]);
  assign ms_start = starting && (op_phase == PhTo
                                 || (op_phase == PhLoop && (ConstTime || (e_cur >> 1) != '0)));
  assign mult_clear = ((state_q == StIdle) && clear_i) || (in_cap && finish);

  always_comb begin
    case (op_phase)
      PhTo: begin
        ma_x = One;
        ma_y = r2_i;
        ms_x = x_i;
        ms_y = r2_i;
      end
      PhLoop: begin
        ma_x = a_cur;
        ma_y = s_cur;
        ms_x = s_cur;
        ms_y = s_cur;
      end
      default: begin  // PhFrom: multiplier S rests
        ma_x = One;
        ma_y = a_cur;
        ms_x = '0;
        ms_y = '0;
      end
    endcase
  end

  rsa_mont_mult #(
    .N        (N),
    .Mult     (Mult),
    .V        (V),
    .W        (W),
    .P        (P),
    .FaultEn  (FaultEn),
    .FaultAddr(FaultAddr)
  ) u_mult_a (
    .clk_i,
    .rst_ni,
    .start_i(ma_start),
    .clear_i(mult_clear),
    .x_i    (ma_x),
    .y_i    (ma_y),
    .m_i    (m_i),
    .mp_i   (mp_i),
    .busy_o (ma_busy),
    .last_o (ma_last),
    .p_o    (ma_p),
    .s_o    (ma_s),
    .c_o    (ma_c)
  );

  rsa_mont_mult #(
    .N        (N),
    .Mult     (Mult),
    .V        (V),
    .W        (W),
    .P        (P),
    .FaultEn  (1'b0),
    .FaultAddr(0)
  ) u_mult_s (
    .clk_i,
    .rst_ni,
    .start_i(ms_start),
    .clear_i(mult_clear),
    .x_i    (ms_x),
    .y_i    (ms_y),
    .m_i    (m_i),
    .mp_i   (mp_i),
    .busy_o (ms_busy),
    .last_o (ms_last),
    .p_o    (ms_p),
    .s_o    (ms_s),
    .c_o    (ms_c)
  );

  // ---------------------------------------------------------------------------------------
  // Loop control and the A, S, exponent registers
  // ---------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      phase_q <= PhTo;
      a_q     <= '0;
      s_q     <= '0;
      e_q     <= '0;
      cnt_q   <= '0;
      ran_a_q <= 1'b0;
      ran_s_q <= 1'b0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            a_q <= '0;
            s_q <= '0;
            e_q <= '0;
          end else if (start_i) begin
            e_q     <= e_i;
            cnt_q   <= '0;
            phase_q <= PhTo;
            ran_a_q <= ma_start;
            ran_s_q <= ms_start;
            state_q <= StRun;
          end
        end
        StRun: begin
          // Both running multipliers have the same latency.
          if (ma_last || ms_last) begin
            state_q <= StCap;
          end
        end
        StCap: begin
          if (finish) begin
            a_q     <= '0;  // wipe every intermediate with the end of the operation
            s_q     <= '0;
            e_q     <= '0;
            cnt_q   <= '0;
            phase_q <= PhTo;
            ran_a_q <= 1'b0;
            ran_s_q <= 1'b0;
            state_q <= StIdle;
          end else begin
            a_q     <= a_nxt;
            s_q     <= s_nxt;
            e_q     <= e_nxt;
            cnt_q   <= cnt_nxt;
            phase_q <= phase_nxt;
            ran_a_q <= ma_start;
            ran_s_q <= ms_start;
            state_q <= StRun;
          end
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  // The result register and the handshake (hdl/common/mv_result.sv): the last capture
  // takes P = mont(1, A); P reads 0 from the start of an operation on.
  logic idle, done;
  assign idle = (state_q == StIdle);
  assign done = in_cap && finish;
  mv_result #(
    .ResW       (N),
    .ClearOnLoad(1'b1)
  ) u_result (
    `MV_RESULT_CORE_CONN,
    .idle_i(idle),
    .last_i(done),
    .p_i   (ma_p)
  );

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  `ASSERT(RsaStateLegal_A, state_q != 2'd3 && phase_q != 2'd3, clk_i, assert_off)
  // IDLE -> RUN on START (phase TO, counter 0); RUN -> CAP on a multiplier's last cycle; CAP
  // lasts one cycle, to RUN (the next step) or IDLE (after FROM: the end).
  `ASSERT_IMPL(RsaStartsOnStart_A, $past(idle) && !idle, $past(start_first)
               && state_q == StRun && phase_q == PhTo && cnt_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(RsaCapOnLast_A, $past(state_q == StRun) && in_cap, $past(ma_last || ms_last),
               clk_i, assert_off)
  `ASSERT_IMPL(RsaCapOneCycle_A, $past(in_cap), state_q == (($past(finish)) ? StIdle : StRun),
               clk_i, assert_off)
  `ASSERT_IMPL(RsaRunHasMult_A, state_q == StRun, ran_a_q || ran_s_q, clk_i, assert_off)
  // Algorithm 4's phase order TO -> LOOP (-> LOOP ...) -> FROM: no phase goes back.
  `ASSERT_IMPL(RsaPhaseOrder_A, $past(!idle) && !idle, phase_q >= $past(phase_q), clk_i,
               assert_off)
  // The loop counts exponent bits: at most N steps (N exactly in constant time).
  `ASSERT_IMPL(RsaCntInRange_A, phase_q == PhLoop, int'(cnt_q) < N, clk_i, assert_off)
  `ASSERT_IMPL(RsaConstTimeSteps_A, ConstTime && $past(phase_q == PhLoop) && phase_q == PhFrom,
               int'($past(cnt_q)) == N - 1, clk_i, assert_off)
  // Constant time (this header): every step runs both products.
  `ASSERT_IMPL(RsaConstTimeBoth_A, ConstTime && state_q == StRun && phase_q != PhFrom,
               ran_a_q && ran_s_q, clk_i, assert_off)
  // This header (operand bounds): every product is fully reduced, so every multiplier input
  // is below M as the multipliers require.
  `ASSERT_IMPL(RsaProductsReduced_A, in_cap, (!ran_a_q || ma_p < m_i || m_i == One)
               && (!ran_s_q || ms_p < m_i || m_i == One), clk_i, assert_off)
  // Secrets (this header): A, S and E are wiped on the edge that ends the operation.
  `ASSERT_IMPL(RsaSecretsWiped_A, $past(done), a_q == '0 && s_q == '0 && e_q == '0, clk_i,
               assert_off)

  // The redundant halves are read by the testbench's multiplier monitors only.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [4*(N+1)-1:0] unused_red;
  assign unused_red = {ma_s, ma_c, ms_s, ms_c};
  logic unused_busy;
  assign unused_busy = ma_busy ^ ms_busy;
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
