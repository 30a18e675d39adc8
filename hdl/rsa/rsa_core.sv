// rsa_core: modular exponentiation P = X^E mod M with two Montgomery multipliers at once, or
// one running a step's two products in turn (Units = 1).
//
// Michalski and Buell (2006), section 5.5, Algorithm 4 (right-to-left binary exponentiation)
// and Fig. 7 (the RSA core: two Montgomery multipliers, an exponent shift register and the
// loop control). Algorithm 4 in the Montgomery domain (R = 2^N, mont(a, b) = a*b*R^-1 mod M):
//   step TO:   A <- mont(1, R2) = R mod M  and  S <- mont(X, R2) = X*R mod M   (R2 = R^2 mod M)
//   step LOOP: A <- mont(A, S) if e_0 = 1  and  S <- mont(S, S);  E <- E >> 1   (2.1 - 2.3)
//   step FROM: P <- mont(1, A) = X^E mod M                                       (step 3)
// Both products of a step run in parallel on two multipliers (u_mult_a, u_mult_s), as in the
// paper, so a step costs one multiplication time.
// Units = 1 (generate block g_one): one multiplier (u_mult) runs them one after the other, as
// the project derives Jiang-Harris's exponentiation (2n products on one 16-PE unit reproduce
// the times of their section VI and Table 1):
// A*S first (both products read the step's S, which S*S replaces), its product held in t_q
// while S*S runs, then the same capture as with two multipliers. A step with both products
// costs two multiplication times (each + 1 cycle: the StCap cycle that starts the next
// product, `mid` between the two), so (2N + 3) * (Lm + 1) cycles in constant time. The
// constant-time scheme below holds unchanged: TO and every LOOP step run both products, so t_q
// and half_q are written at every step whatever the bit (their enable is `mid`, a function of
// the step), and A, the decoy and S are written by the same capture. Units = 2 (g_two) is
// the paper's Fig. 7 and the default.
//
// Constant time (ConstTime = 1, the default): the loop runs exactly N steps (the exponent
// register's width), and every step runs both products; when e_0 = 0 the product A*S is
// computed and discarded. The cycle count depends on N and Mult only:
//   (N + 2) * (Lm + 1) cycles, Lm = the multiplier's cycles (rsa_mont_mult), +1 = the capture
//   cycle that takes both products and starts the next step.
// Constant time beyond cycles: the exponent bit selects, it never inhibits. No register's
// write enable depends on an exponent bit, and every register of the loop takes a new value
// every step whatever the bit. A lives in one of two N-bit registers, a0_q and a1_q, and
// moves to the other one at every LOOP step; which one holds it is bit 0 of the step counter
// (a_sel = cnt_q[0]), a function of the step number only. Each step writes both:
//   the register that does not hold A:  A' = e_0 ? A*S : A          (2.1, the next A)
//   the register that holds A:          D  = e_0 ? S*S : A*S        (the decoy)
// The decoy is a product of the same step (fresh, data dependent) and the one that step 2.1
// does not keep: for e_0 = 1 the square (which S also takes), for e_0 = 0 the discarded A*S;
// rewriting the old A there would be a write without a toggle. So a0_q, a1_q and S switch
// at every step like random residues whatever the bit, e_q shifts and cnt_q counts every step,
// and the decoy is wiped at the end with everything else. Neither register's next value is
// taken from itself (a0_q's comes from a1_q and the products, a1_q's from a0_q and the
// products), so a synthesizer finds no hold path to turn into a clock enable that is the
// exponent bit (the old single A register, A <= e_0 ? A*S : A, had that hold path).
// Cost: one more N-bit register (a1_q), a 3:1 multiplexer in front of each accumulator
// register instead of a 2:1 and a 2:1 multiplexer to read A (docs/rsa.md has the synthesis
// figures). A Montgomery ladder would switch two registers every step without a third one,
// but it scans the exponent from the top: it is not the paper's Algorithm 4, whose product
// chain the testbench checks. Not covered: the values themselves (the Hamming distance of
// each write is data: no masking or blinding), and the multipliers' own registers, which
// load A and S every step (multiplier A's X operand register reloads the same A after a zero
// bit).
// ConstTime = 0 follows Algorithm 4 literally: the loop stops when the remaining exponent is 0,
// A*S runs only when e_0 = 1 and S*S only while higher bits remain, and A stays in a0_q,
// written only for a one bit (a1_q stays 0). It then takes (bitlen(E) + 2) * (Lm + 1) cycles
// (leaking the exponent's bit length) and multiplier A is idle exactly in the steps of the
// zero bits (visible to power or EM analysis); with Units = 1 a step with a zero bit is S*S
// alone, one multiplication time shorter (the count leaks the weight too).
// E = 0 is defined: no LOOP product is kept and P = mont(1, R mod M) = 1 mod M (0 for M = 1).
//
// Secrets: E is shifted out of e_q; e_q, a0_q, a1_q (A and the decoy), S and both multipliers'
// registers (through their clear_i; with Units = 1 the one multiplier's and t_q) are wiped on
// the edge that ends the operation (last_o) and by clear_i.
// Operand bounds: X, R2 < M (the loader refuses X >= M); every product is fully reduced (< M),
// so every multiplier input Y is below M as the multipliers require (X may be 1 >= M = 1).
// Lazy = 1 (mont_qp only) uses the multiplier as the project derives from Jiang-Harris (their
// section III algorithm ends unreduced): its products stay in Orup's range, unreduced, and
// feed the next products as they are (the multipliers are built without their reducer,
// Reduce = 0, whose wide subtractor was their longest path). Inside, A, S, the
// decoy, t_q and the multipliers are NI bits wide, N + 2V + 2 rounded up to whole W-bit
// words: with M < 2^N every product of operands below 2^NI stays below 2^NI (mont_qp's
// header), and FROM's, mont(1, A), is at most 2^2V M (docs/vhr.md). The core reduces that one
// itself (state StRed): 2V + 1 restoring steps, s = 2V .. 0, each word-serial on a W-bit
// subtractor, in the registers the loop no longer needs: a0_q holds the value and rotates by
// a word a clock, s_q holds M << s and rotates with it, a1_q takes A - (M << s) a word at a
// time, and after the NI / W words a select cycle keeps the difference unless it borrowed
// (every step takes the same NI / W + 1 clocks; the select depends on P, the result, not on an
// exponent bit). Each product is 2V cycles shorter; the reduction adds (2V + 1)(NI / W + 1).
//
// Mult = 6 (inter_lut, Amanor's optimised interleaved multiplier, Algorithm 5) computes
// X*Y mod M itself, with no Montgomery domain (R = 1): the thesis's RSA with it (section 6.5:
// 1536 multiplications against 1 + 1536 + 1 with a Montgomery multiplier) needs neither TO's
// products nor FROM's. The START edge then loads A = 1 mod M (0 for M = 1) and S = X and
// begins LOOP step 0 at once; the capture that ends the last LOOP step ends the operation,
// its A is P (the wipe and the result as after FROM). R2 and MP are not read. A step costs
// the same (Lm + 1) cycles, so N (Lm + 1) cycles in constant time, bitlen(E) (Lm + 1)
// without; E = 0 without constant time runs no product: the START edge goes to the capture,
// which ends the operation one cycle later with P = 1 mod M.
//
// Mult = 7, 8 (mm42, mm42_u2: Gajbhiye's MM42_Multiplier, after its ref. [12]) take and
// give carry-save pairs, and the core chains them as they are, which is why MM42 exists:
// no carry-propagate addition between two products. A, S, the decoy, t_q and the
// multipliers' operands and products are then pairs {half 2, half 1} of NH = N + 1 bits
// each (NI = 2 NH): every product's pair sums below 2M (Walter's bound, as the paper
// quotes it), so each half is below 2M < 2^NH, and TO's constants and X enter as (v, 0).
// R is the multiplier's, 2^(NH + 2) (mm42_u2: 2^(2 ceil((NH + 2) / 2))); FROM's product is
// the only one reduced, by the multiplier's own FIN cycle (its P, on the s port).
//
// Assertions (docs/formal.md): the FSM's states, phases and transitions, the step counter in
// range, both products every LOOP step in constant time and both accumulator registers written
// every LOOP step (A moved, the decoy in its old place), every product reduced, and the
// secrets wiped at the end; with Units = 1 the step's second product starting at mid, both
// products of every constant-time TO and LOOP step, and t_q wiped.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module rsa_core #(
  parameter int N         = 32,
  parameter int Mult      = 0,     // multiplier architecture, see rsa_mont_mult
  parameter int V         = 16,    // mwrkmm / mont_qp only (see rsa_mont_mult)
  parameter int W         = 16,
  parameter int P         = 1,
  parameter int PeLatency = 3,     // mwrkmm only (see rsa_mont_mult)
  parameter bit ConstTime = 1'b1,  // 1: fixed step count, both products every step
  parameter int Units     = 2,     // multipliers: 2 run a step's products at once, 1 in turn
  parameter bit Lazy      = 1'b0,  // mont_qp only: products unreduced but FROM's (above)
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
  // width of A, S and the multipliers: with Lazy N + 2V + 2 guard bits, whole W-bit words
  // MM42 (Mult = 7, 8): carry-save pairs of NH-bit halves (header)
  localparam bit Pairs = (Mult == 7 || Mult == 8);
  localparam int NH    = N + 1;
  localparam int NI   = Pairs ? 2 * NH : (Lazy ? (N + 2 * V + 2 + W - 1) / W * W : N);
  localparam int RdW  = Lazy ? W : 1;              // Lazy: word of the final reduction
  localparam int LW   = NI / RdW;                  // its words
  localparam int RsW  = $clog2(2 * V + 2);         // its step counter s = 2V .. 0
  localparam int RwW  = $clog2(LW + 1);            // its word counter 0 .. LW (LW: select)

  localparam logic [1:0] StIdle = 2'd0;
  localparam logic [1:0] StRun  = 2'd1;  // both multipliers busy
  localparam logic [1:0] StCap  = 2'd2;  // take the products, start the next step
  localparam logic [1:0] StRed  = 2'd3;  // Lazy: the final reduction of FROM's product

  localparam logic [1:0] PhTo   = 2'd0;  // into the Montgomery domain
  localparam logic [1:0] PhLoop = 2'd1;  // one exponent bit
  localparam logic [1:0] PhFrom = 2'd2;  // out of the Montgomery domain

  localparam logic [NI-1:0] One = NI'(1);
  // Mult = 6 (inter_lut): X*Y mod M, no Montgomery domain: no TO or FROM products (header)
  localparam bit            Direct  = (Mult == 6);
  localparam logic [1:0]    PhFirst = Direct ? PhLoop : PhTo;  // the phase a START begins

  logic [1:0]      state_q, phase_q;
  logic [NI-1:0]   a0_q, a1_q;  // A and (constant time) the decoy, A in a1_q when a_sel
  logic [NI-1:0]   s_q;
  logic [N-1:0]    e_q;
  logic [CntW-1:0] cnt_q;
  logic            ran_a_q, ran_s_q;  // which multipliers run in this step
  logic            mid;  // Units = 1: the step's first product ended, its second one starts
  logic [N-1:0]    from_p;  // FROM's product, reduced (MM42: the multiplier's own P)

  // The two multipliers
  logic         ma_start, ms_start, mult_clear;
  logic         ma_busy, ms_busy, ma_last, ms_last;
  logic [NI-1:0] ma_x, ma_y, ms_x, ms_y, ma_p, ms_p;
  logic [NI+1:0] ma_s, ma_c, ms_s, ms_c;
  // Lazy: the final reduction's step s, word and borrow, and this clock's word difference
  logic [RsW-1:0] red_s_q;
  logic [RwW-1:0] red_w_q;
  logic           red_b_q;
  logic [RdW:0]   red_diff;
  logic           red_sel, red_done;  // the select clock; the last one (P is ready)
  logic [NI-1:0]  red_keep;           // the value the select clock keeps

  // Where A is: a1_q when a_sel. Constant time: bit 0 of the step counter, so A moves at every
  // LOOP step whatever the bit; otherwise always a0_q.
  logic          a_sel;
  logic [NI-1:0] a_reg;  // A
  assign a_sel = ConstTime && cnt_q[0];
  assign a_reg = a_sel ? a1_q : a0_q;

  // ---------------------------------------------------------------------------------------
  // Step decision (used in StCap): the next A (and where it goes), S, exponent and phase
  // ---------------------------------------------------------------------------------------
  logic [NI-1:0]   a_nxt, d_nxt, a0_nxt, a1_nxt, s_nxt;
  logic [N-1:0]    e_nxt;
  logic [CntW-1:0] cnt_nxt;
  logic [1:0]      phase_nxt;
  logic            finish;
  logic            e_bit;  // e_0 of this step (named: Icarus 11 warns on selects in always_*)
  assign e_bit = e_q[0];

  // The decoy (constant time): the product of this step that 2.1 does not keep.
  assign d_nxt = e_bit ? ms_p : ma_p;

  always_comb begin
    a_nxt     = a_reg;
    a0_nxt    = '0;  // unused in PhFrom (the wipe)
    a1_nxt    = '0;  // 0 in TO (below) and always without constant time
    s_nxt     = s_q;
    e_nxt     = e_q;
    cnt_nxt   = cnt_q;
    phase_nxt = phase_q;
    finish    = 1'b0;
    case (phase_q)
      PhTo: begin
        a_nxt     = ma_p;
        // A = R mod M in a0_q (cnt_q stays 0: a_sel = 0). a1_q keeps its 0: TO's products
        // are the two values LOOP step 0 writes there (R for e_0 = 0, X*R for e_0 = 1), so
        // either one as a decoy here would make that write a no-op for one value of e_0.
        a0_nxt    = ma_p;
        s_nxt     = ms_p;
        phase_nxt = (!ConstTime && e_q == '0) ? PhFrom : PhLoop;
      end
      PhLoop: begin
        a_nxt   = (ran_a_q && e_bit) ? ma_p : a_reg;  // 2.1 (discarded when e_0 = 0)
        if (ConstTime) begin
          // A moves to the other register, the decoy takes its place; each register's next
          // value is selected from the other register and the products, never from itself.
          a0_nxt = a_sel ? (e_bit ? ma_p : a1_q) : d_nxt;
          a1_nxt = a_sel ? d_nxt : (e_bit ? ma_p : a0_q);
        end else begin
          a0_nxt = a_nxt;  // Algorithm 4 literally: A changes only for a one bit
        end
        s_nxt   = ran_s_q ? ms_p : s_q;               // 2.3
        e_nxt   = e_q >> 1;                           // 2.2
        cnt_nxt = cnt_q + 1'b1;
        if (ConstTime ? (cnt_q == CntW'(N - 1)) : (e_nxt == '0)) begin
          if (Direct) begin
            finish = 1'b1;  // no FROM: this step's A is P
          end else begin
            phase_nxt = PhFrom;
          end
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
  logic [NI-1:0] a_cur, s_cur, a_init;
  logic [N-1:0]  e_cur;
  logic          direct_start;  // Direct: a START begins LOOP step 0 with A = 1 mod M, S = X

  assign in_cap      = (state_q == StCap) && !mid;
  assign start_first = (state_q == StIdle) && start_i && !clear_i;
  assign start_next  = in_cap && !finish;
  assign starting    = start_first || start_next;
  assign op_phase    = start_first ? PhFirst : (start_next ? phase_nxt : phase_q);
  assign direct_start = Direct && start_first;
  assign a_init      = (m_i == N'(1)) ? '0 : One;  // 1 mod M
  assign a_cur       = direct_start ? a_init : (in_cap ? a_nxt : a_reg);
  assign s_cur       = direct_start ? NI'(x_i) : (in_cap ? s_nxt : s_q);
  assign e_cur       = start_first ? e_i : (in_cap ? e_nxt : e_q);

  assign ma_start = starting && (ConstTime || op_phase != PhLoop || e_cur[0]);
  assign ms_start = starting && (op_phase == PhTo
                                 || (op_phase == PhLoop && (ConstTime || (e_cur >> 1) != '0)));
  assign mult_clear = ((state_q == StIdle) && clear_i) || (in_cap && finish);
  assign red_diff   = {1'b0, a0_q[RdW-1:0]} - {1'b0, s_q[RdW-1:0]} - (RdW + 1)'(red_b_q);
  assign red_sel    = Lazy && (state_q == StRed) && (32'(red_w_q) == LW);
  assign red_done   = red_sel && (red_s_q == '0);
  assign red_keep   = red_b_q ? a0_q : a1_q;  // A, or A - (M << s) when it did not borrow

  always_comb begin
    case (op_phase)
      PhTo: begin
        ma_x = One;
        ma_y = NI'(r2_i);
        ms_x = NI'(x_i);
        ms_y = NI'(r2_i);
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

  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // MM42: the value of a pair {half 2, half 1} (its halves' sum)
  function automatic logic [NI:0] pair_sum(logic [NI-1:0] v);
    pair_sum = (NI + 1)'(v[NI-1:NI/2]) + (NI + 1)'(v[NI/2-1:0]);
  endfunction

  if (Units == 2) begin : g_two
    // The paper's Fig. 7: the step's products at once, A*S on u_mult_a, S*S on u_mult_s.
    assign mid    = 1'b0;
    assign from_p = Pairs ? ma_s[N-1:0] : ma_p[N-1:0];
    rsa_mont_mult #(
      .N        (NI),
      .Mult     (Mult),
      .V        (V),
      .W        (W),
      .P        (P),
      .PeLatency(PeLatency),
      .Reduce   (!Lazy),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultAddr)
    ) u_mult_a (
      .clk_i,
      .rst_ni,
      .start_i(ma_start),
      .clear_i(mult_clear),
      .x_i    (ma_x),
      .y_i    (ma_y),
      .m_i    (NI'(m_i)),
      .mp_i   (NI'(mp_i)),
      .busy_o (ma_busy),
      .last_o (ma_last),
      .p_o    (ma_p),
      .s_o    (ma_s),
      .c_o    (ma_c)
    );

    rsa_mont_mult #(
      .N        (NI),
      .Mult     (Mult),
      .V        (V),
      .W        (W),
      .P        (P),
      .PeLatency(PeLatency),
      .Reduce   (!Lazy),
      .FaultEn  (1'b0),
      .FaultAddr(0)
    ) u_mult_s (
      .clk_i,
      .rst_ni,
      .start_i(ms_start),
      .clear_i(mult_clear),
      .x_i    (ms_x),
      .y_i    (ms_y),
      .m_i    (NI'(m_i)),
      .mp_i   (NI'(mp_i)),
      .busy_o (ms_busy),
      .last_o (ms_last),
      .p_o    (ms_p),
      .s_o    (ms_s),
      .c_o    (ms_c)
    );
  end else if (Units == 1) begin : g_one
    // One multiplier (Jiang-Harris's exponentiation as the project derives it from section VI
    // and Table 1: 2n products one after the other on one unit): a step's products in turn,
    // A*S first, then S*S. Both read the S of the step, which S*S replaces, so A*S runs first
    // and waits in t_q while S*S runs; the capture then takes both (ma_p, ms_p) as with two
    // multipliers. ma_* and ms_* are the step's two products as the capture and the control
    // read them (the operands A and S compute above, start, last, the products); mu_* is the
    // multiplier's own interface.
    // Constant time: every TO and LOOP step runs both products, so mid (t_q's write enable,
    // half_q's) comes at every such step whatever the bit; ConstTime = 0 skips A*S for a zero
    // bit (ma_start), as Algorithm 4 does, and the step is then S*S alone.
    logic          half_q;  // the step's second product (S*S) runs
    logic [NI-1:0] t_q;     // the step's first product (A*S) while the second runs
    logic          mu_start, mu_sel_s, mu_busy, mu_last;
    logic [NI-1:0] mu_x, mu_y, mu_p;
    logic [NI+1:0] mu_s, mu_c;

    assign mid      = (state_q == StCap) && !half_q && ran_a_q && ran_s_q;
    assign from_p   = Pairs ? mu_s[N-1:0] : ma_p[N-1:0];  // FROM runs A*S alone
    // S's product: starting a step without A*S, at mid, and while the one started so runs
    assign mu_sel_s = starting ? !ma_start : (mid || half_q || !ran_a_q);
    assign mu_start = ma_start || ms_start || mid;
    assign mu_x     = mu_sel_s ? ms_x : ma_x;
    assign mu_y     = mu_sel_s ? ms_y : ma_y;

    rsa_mont_mult #(
      .N        (NI),
      .Mult     (Mult),
      .V        (V),
      .W        (W),
      .P        (P),
      .PeLatency(PeLatency),
      .Reduce   (!Lazy),
      .FaultEn  (FaultEn),
      .FaultAddr(FaultAddr)
    ) u_mult (
      .clk_i,
      .rst_ni,
      .start_i(mu_start),
      .clear_i(mult_clear),
      .x_i    (mu_x),
      .y_i    (mu_y),
      .m_i    (NI'(m_i)),
      .mp_i   (NI'(mp_i)),
      .busy_o (mu_busy),
      .last_o (mu_last),
      .p_o    (mu_p),
      .s_o    (mu_s),
      .c_o    (mu_c)
    );

    // The step's products for the capture: A*S from t_q when the step ran both.
    assign ma_p    = (ran_a_q && ran_s_q) ? t_q : mu_p;
    assign ms_p    = mu_p;
    assign ma_busy = mu_busy && !mu_sel_s;
    assign ms_busy = mu_busy && mu_sel_s;
    assign ma_last = mu_last && !mu_sel_s;
    assign ms_last = mu_last && mu_sel_s;
    assign ma_s    = '0;  // the redundant halves are the multiplier's: mu_s, mu_c
    assign ma_c    = '0;
    assign ms_s    = '0;
    assign ms_c    = '0;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        half_q <= 1'b0;
        t_q    <= '0;
      end else if (mid) begin
        half_q <= 1'b1;
        t_q    <= mu_p;  // A*S
      end else begin
        if (in_cap) begin
          half_q <= 1'b0;
        end
        if (mult_clear) begin
          t_q <= '0;  // wiped with the multiplier's registers
        end
      end
    end

    // mid lasts one cycle and starts S*S; in constant time every TO and LOOP step ran both
    // products (the capture comes after the second); t_q is wiped with the multiplier.
    `ASSERT_IMPL(RsaOneUnitMid_A, $past(mid), state_q == StRun && half_q && $past(mu_start),
                 clk_i, assert_off)
    `ASSERT_IMPL(RsaOneUnitBoth_A, ConstTime && in_cap && phase_q != PhFrom, half_q, clk_i,
                 assert_off)
    `ASSERT_IMPL(RsaOneUnitWiped_A, $past(mult_clear), t_q == '0, clk_i, assert_off)

    /* verilator lint_off UNUSEDSIGNAL */
    logic [2*(NI+2)-1:0] unused_mu;
    assign unused_mu = {mu_s, mu_c};
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : g_bad_units
    initial $fatal(1, "rsa_core: Units must be 1 or 2 (got %0d)", Units);
  end

  if (Lazy && Mult != 5) begin : g_bad_lazy
    initial $fatal(1, "rsa_core: Lazy needs Mult = 5, mont_qp (got Mult = %0d)", Mult);
  end

  // ---------------------------------------------------------------------------------------
  // Loop control and the A, S, exponent registers
  // ---------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      phase_q <= PhTo;
      a0_q    <= '0;
      a1_q    <= '0;
      s_q     <= '0;
      e_q     <= '0;
      cnt_q   <= '0;
      ran_a_q <= 1'b0;
      ran_s_q <= 1'b0;
      red_s_q <= '0;
      red_w_q <= '0;
      red_b_q <= 1'b0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            a0_q <= '0;
            a1_q <= '0;
            s_q  <= '0;
            e_q  <= '0;
          end else if (start_i) begin
            e_q     <= e_i;
            cnt_q   <= '0;
            phase_q <= PhFirst;
            ran_a_q <= ma_start;
            ran_s_q <= ms_start;
            // Direct, E = 0 without constant time: no product, straight to the capture
            state_q <= (ma_start || ms_start) ? StRun : StCap;
            if (Direct) begin
              a0_q <= a_init;  // LOOP step 0's A and S (header); a1_q keeps its 0
              s_q  <= NI'(x_i);
            end
          end
        end
        StRun: begin
          // Both running multipliers have the same latency.
          if (ma_last || ms_last) begin
            state_q <= StCap;
          end
        end
        StCap: begin
          if (mid) begin
            state_q <= StRun;  // Units = 1: the second product of the step (g_one)
          end else if (finish && Lazy) begin
            // FROM's product to the final reduction: the value in a0_q, M << 2V in s_q
            a0_q    <= ma_p;
            a1_q    <= '0;
            s_q     <= NI'(m_i) << (2 * V);
            e_q     <= '0;
            red_s_q <= RsW'(2 * V);
            red_w_q <= '0;
            red_b_q <= 1'b0;
            state_q <= StRed;
          end else if (finish) begin
            a0_q    <= '0;  // wipe every intermediate (the decoy too) with the end of the operation
            a1_q    <= '0;
            s_q     <= '0;
            e_q     <= '0;
            cnt_q   <= '0;
            phase_q <= PhTo;
            ran_a_q <= 1'b0;
            ran_s_q <= 1'b0;
            state_q <= StIdle;
          end else begin
            a0_q    <= a0_nxt;  // every step: the enable is the step, e_0 only selects
            a1_q    <= a1_nxt;
            s_q     <= s_nxt;
            e_q     <= e_nxt;
            cnt_q   <= cnt_nxt;
            phase_q <= phase_nxt;
            ran_a_q <= ma_start;
            ran_s_q <= ms_start;
            state_q <= StRun;
          end
        end
        StRed: if (Lazy) begin  // (without Lazy no state leads here: no logic of it is built)
          if (!red_sel) begin
            // one word of A - (M << s), the lowest first: A and M << s rotate by a word, the
            // difference word enters a1_q at the top
            a0_q    <= {a0_q[RdW-1:0], a0_q[NI-1:RdW]};
            s_q     <= {s_q[RdW-1:0], s_q[NI-1:RdW]};
            a1_q    <= {red_diff[RdW-1:0], a1_q[NI-1:RdW]};
            red_b_q <= red_diff[RdW];
            red_w_q <= red_w_q + 1'b1;
          end else if (red_s_q != '0) begin
            // select: the difference unless it borrowed; the next step subtracts M << (s - 1)
            a0_q    <= red_keep;
            s_q     <= s_q >> 1;
            red_s_q <= red_s_q - 1'b1;
            red_w_q <= '0;
            red_b_q <= 1'b0;
          end else begin
            // the last select takes P (u_result); wipe everything, as at the end without Lazy
            a0_q    <= '0;
            a1_q    <= '0;
            s_q     <= '0;
            e_q     <= '0;
            cnt_q   <= '0;
            phase_q <= PhTo;
            ran_a_q <= 1'b0;
            ran_s_q <= 1'b0;
            red_w_q <= '0;
            red_b_q <= 1'b0;
            state_q <= StIdle;
          end
        end else begin
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  // The result register and the handshake (hdl/common/mv_result.sv): the last capture
  // takes P = mont(1, A) (Direct: the last LOOP step's A); P reads 0 from the start of an
  // operation on.
  logic idle, done;
  assign idle = (state_q == StIdle);
  assign done = Lazy ? red_done : (in_cap && finish);
  mv_result #(
    .ResW       (N),
    .ClearOnLoad(1'b1)
  ) u_result (
    `MV_RESULT_CORE_CONN,
    .idle_i(idle),
    .last_i(done),
    // FROM's product (Direct: the last A), reduced: below M
    .p_i   (Lazy ? red_keep[N-1:0] : (Direct ? a_nxt[N-1:0] : from_p))
  );

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  `ASSERT(RsaStateLegal_A, (Lazy || state_q != StRed) && phase_q != 2'd3, clk_i, assert_off)
  // IDLE -> RUN on START (phase TO, counter 0); RUN -> CAP on a multiplier's last cycle; CAP
  // lasts one cycle, to RUN (the next step) or IDLE (after FROM: the end; with Lazy to RED,
  // the final reduction, which ends in IDLE).
  // (Direct: phase LOOP, and the capture at once when no product starts: E = 0 without
  // constant time.)
  `ASSERT_IMPL(RsaStartsOnStart_A, $past(idle) && !idle, $past(start_first)
               && state_q == ($past(ma_start || ms_start) ? StRun : StCap)
               && phase_q == PhFirst && cnt_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(RsaRunsOnStart_A, !Direct && $past(start_first), state_q == StRun, clk_i,
               assert_off)
  `ASSERT_IMPL(RsaCapOnLast_A, $past(state_q == StRun) && in_cap, $past(ma_last || ms_last),
               clk_i, assert_off)
  `ASSERT_IMPL(RsaCapOneCycle_A, $past(in_cap), state_q == (($past(finish))
               ? (Lazy ? StRed : StIdle) : StRun), clk_i, assert_off)
  `ASSERT_IMPL(RsaRunHasMult_A, state_q == StRun, ran_a_q || ran_s_q, clk_i, assert_off)
  // Algorithm 4's phase order TO -> LOOP (-> LOOP ...) -> FROM: no phase goes back.
  `ASSERT_IMPL(RsaPhaseOrder_A, $past(!idle) && !idle, phase_q >= $past(phase_q), clk_i,
               assert_off)
  // The loop counts exponent bits: at most N steps (N exactly in constant time).
  `ASSERT_IMPL(RsaCntInRange_A, phase_q == PhLoop, int'(cnt_q) < N, clk_i, assert_off)
  `ASSERT_IMPL(RsaConstTimeSteps_A, ConstTime && in_cap && phase_q == PhLoop
               && (finish || phase_nxt == PhFrom), int'(cnt_q) == N - 1, clk_i, assert_off)
  // Direct: no FROM phase; every other core ends only after FROM.
  `ASSERT_IMPL(RsaDirectPhases_A, in_cap && finish, phase_q == (Direct ? PhLoop : PhFrom),
               clk_i, assert_off)
  // Constant time (this header): every step runs both products.
  `ASSERT_IMPL(RsaConstTimeBoth_A, ConstTime && state_q == StRun && phase_q != PhFrom,
               ran_a_q && ran_s_q, clk_i, assert_off)
  // This header (operand bounds): every product is fully reduced, so every multiplier input
  // is below M as the multipliers require.
  `ASSERT_IMPL(RsaProductsReduced_A, in_cap && !Lazy && !Pairs,
               (!ran_a_q || ma_p < NI'(m_i) || m_i == N'(1))
               && (!ran_s_q || ms_p < NI'(m_i) || m_i == N'(1)), clk_i, assert_off)
  // MM42 (this header): every product is a pair whose halves sum below 2M.
  `ASSERT_IMPL(RsaPairsBelow2M_A, in_cap && Pairs,
               (!ran_a_q || pair_sum(ma_p) < ((NI + 1)'(m_i) << 1))
               && (!ran_s_q || pair_sum(ms_p) < ((NI + 1)'(m_i) << 1)), clk_i, assert_off)
  // Lazy (this header): FROM's product is at most 2^2V M, so 2V + 1 restoring steps reduce it;
  // the reduction runs s = 2V .. 0 with NI / W words and a select each, and P is below M.
  `ASSERT_IMPL(RsaLazyFromInRange_A, Lazy && in_cap && finish,
               (NI + 1)'(ma_p) < ((NI + 1)'(m_i) << (2 * V + 1)), clk_i, assert_off)
  `ASSERT_IMPL(RsaLazyRedCounters_A, Lazy && state_q == StRed,
               int'(red_s_q) <= 2 * V && int'(red_w_q) <= LW, clk_i, assert_off)
  `ASSERT_IMPL(RsaLazyReduced_A, red_done, red_keep < NI'(m_i) || m_i == N'(1), clk_i,
               assert_off)
  // Constant time beyond cycles (this header): every LOOP step writes both accumulator
  // registers whatever the bit: A moves to the other register (the selection of 2.1) and the
  // register that held it takes the decoy.
  `ASSERT_IMPL(RsaConstTimeAccWritten_A, ConstTime
               && $past(in_cap && phase_q == PhLoop && !finish),
               a_sel != $past(a_sel) && a_reg == $past(a_nxt)
               && (a_sel ? a0_q : a1_q) == $past(d_nxt), clk_i, assert_off)
  // Secrets (this header): A, the decoy, S and E are wiped on the edge that ends the operation.
  `ASSERT_IMPL(RsaSecretsWiped_A, $past(done), a0_q == '0 && a1_q == '0 && s_q == '0
               && e_q == '0, clk_i, assert_off)

  // The redundant halves are read by the testbench's multiplier monitors only.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [4*(NI+2)-1:0] unused_red;
  assign unused_red = {ma_s, ma_c, ms_s, ms_c};
  logic unused_busy;
  assign unused_busy = ma_busy ^ ms_busy;
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
