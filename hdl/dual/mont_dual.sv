// mont_dual: scalable unified dual-radix Montgomery multiplier for GF(p) and GF(2^n).
//
// Tanimura et al. (ASP-DAC 2008), "Scalable Unified Dual-Radix Architecture for Montgomery
// Multiplication in GF(P) and GF(2^n)": the FIOS loop (Koc 1996, as in Sato 2003) with
//   GF(p)   (field_i = 0): radix 2^K digits of X, one K-bit digit times a W = K*Units-bit
//                          word of Y or M (the paper: K = 16, four 16-bit multipliers in
//                          parallel, W = 64);
//                          P = X*Y*2^-(K*ceil(N/K)) mod M, fully reduced (word-serial final
//                          subtraction in hardware);
//   GF(2^n) (field_i = 1): radix x^W digits, a W x W carry-less product;
//                          P = X(x)*Y(x)*x^-(W*ceil(N/W)) mod M(x), degree < deg M, no final
//                          subtraction.
// Both fields share one datapath (mont_dual_mul): a W x W array of partial products reduced by
// dual-field full adders and one dual-field carry-propagate adder, carries suppressed in
// GF(2^n); in GF(p) the digit's upper W - K bits are 0, so the array's first K rows make the
// K x W product of the paper's Units parallel multipliers. The FIOS step's additions go
// through the same tree and adder.
// M holds the whole p(x) of the binary field (degree n <= N - 1). MP holds m' = -M^-1 mod 2^K
// in bits [K-1:0] and q(x) = M(x)^-1 mod x^W in bits [K+W-1:K] (host-computed).
//
// Per digit a_i: T1 u = c_0 + a_i*b_0 mod 2^k, T2 t_i = u*q mod 2^k, then for every word j
// MA acc = C_j + a_i*B_j + z and MB S = acc + t_i*P_j (XOR in GF(2^n)); MB writes S into C
// in place, shifted down by one digit (K bits in GF(p), one word in GF(2^n)), and keeps the
// carry z = S >> W. C is E = ceil(N/W) words plus one top bit (C < 2M < 2^(W*E+1)).
// Cycles: digits*(2 + 2E) + E (SUB, GF(p) only) + 1 (FIN); 165 (GF(p)) and 41 (GF(2^n)) at
// N = 256 with the paper's K = 16, Units = 4 (docs/dual.md).
//
// Legal parameters (models/dual.py check, the same rules): K >= 1; W >= K + 2 (Units >= 2:
// the GF(p) carry z between words takes K + 2 bits of the W-bit z register, and S = acc +
// t_i*P_j W + K + 2 bits of the 2W-bit accumulator); N >= K + W (MP packs m' and q, and
// C spans at least two words).
//
// Assertions (docs/formal.md): the FSM's states and transitions, the word and digit counters
// in range, SUB only in GF(p), the multiplier's digit K bits wide in GF(p), and C < 2M before
// the GF(p) final subtraction.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_dual #(
  parameter int N         = 256,
  parameter int K         = 16,  // GF(p) digit: one unit's operand width (the paper: 16)
  parameter int Units     = 4,   // GF(p) units in parallel (the paper: 4); W = K * Units
  // Test only: with FaultEn set, MB at word FaultWord multiplies t_i by P_j with bit 1
  // flipped (both fields), so the negative tests can show the testbench catches it.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultWord = 0
) (
  `MV_CORE_PORTS,
  input  logic         field_i,  // 0: GF(p), 1: GF(2^n); stable while busy
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [N-1:0] mp_i      // bits [K+W-1:0] used
  /* verilator lint_on UNUSEDSIGNAL */
);

  localparam int W      = K * Units;     // word and GF(2^n) digit
  localparam int E      = (N + W - 1) / W;
  localparam int NP     = E * W;         // padded operand width
  localparam int CW     = NP + 1;        // C: E words and a top bit
  localparam int DigP   = (N + K - 1) / K;  // GF(p) digits of X
  localparam int DigB   = E;                // GF(2^n) digits of X
  localparam int MinN   = K + W;         // MP holds m' and q
  localparam int SW     = 2 * W;         // accumulator / S width (GF(p) needs W + K + 2)
  localparam int OffW   = $clog2(CW + 1);
  localparam int JW     = $clog2(E + 1);
  localparam int IW     = $clog2(DigP + 1);
  localparam int HitW   = 32;
  localparam int Bins   = 8;             // {field, phase}
  localparam int FlipBit = 1;            // the bit FaultEn flips in P_j

  if (K < 1) begin : g_bad_k
    initial $fatal(1, "mont_dual: K must be >= 1 (got K=%0d)", K);
  end
  if (W < K + 2) begin : g_bad_units
    initial $fatal(1, "mont_dual: K*Units must be >= K + 2 (got K=%0d, Units=%0d)", K, Units);
  end
  if (N < MinN) begin : g_bad_n
    initial $fatal(1, "mont_dual: N must be at least K + K*Units = %0d (got %0d)", MinN, N);
  end

  typedef enum logic [2:0] {
    StIdle = 3'd0,
    StT1   = 3'd1,
    StT2   = 3'd2,
    StMa   = 3'd3,
    StMb   = 3'd4,
    StSub  = 3'd5,
    StFin  = 3'd6
  } state_e;

  state_e        state_q;
  logic [NP-1:0] a_q;       // X, shifted down by one digit per outer iteration
  logic [CW-1:0] c_q;       // C
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NP-1:0] d_q;       // C - M (GF(p) final subtraction; bits N and up unused)
  /* verilator lint_on UNUSEDSIGNAL */
  logic          borrow_q;
  logic [SW-1:0] acc_q;     // MA result
  logic [W-1:0]  z_q;       // carry word between inner steps
  logic [W-1:0]  t_q;       // u (after T1), t_i (after T2)
  logic [IW-1:0] i_q;
  logic [JW-1:0] j_q;

  logic [NP-1:0] y_pad, m_pad;
  assign y_pad = NP'(y_i);
  assign m_pad = NP'(m_i);

  logic gfp;
  assign gfp = !field_i;

  // ---------------------------------------------------------------------------------------
  // The unified datapath (mont_dual_mul): one W x W array of partial products and one
  // carry-save tree of dual-field full adders with a dual-field carry-propagate adder, carries
  // suppressed in GF(2^n). Each phase is one pass: T1 u = c_0 + a_i*b_0, T2 t_i = u*q,
  // MA acc = C_j + a_i*B_j + z, MB S = acc + t_i*P_j (XOR in GF(2^n)). In GF(p) the digit
  // a is K bits (a_dig, and t_i kept to K bits), so the array's rows K and up are 0 and it
  // computes the K x W product of the paper's Units K x K multipliers in parallel.
  // ---------------------------------------------------------------------------------------
  logic [W-1:0]  a_dig;      // current digit of X (K bits in GF(p))
  logic [W-1:0]  b_word, b_word0, p_word, p_mul;
  logic [W-1:0]  mul_a, mul_b, add_z;
  logic [SW-1:0] add_c, mac;
  logic [W-1:0]  q_val;
  logic          fault_hit;
  logic          last_j, last_i;
  logic [W:0]    c_word;     // C_j, with the top bit for the last word
  logic [W-1:0]  c_word0;    // C_0

  assign a_dig  = gfp ? W'(a_q[K-1:0]) : a_q[W-1:0];
  assign b_word = y_pad[32'(j_q) * W +: W];
  assign b_word0 = y_pad[W-1:0];
  assign p_word = m_pad[32'(j_q) * W +: W];
  assign fault_hit = FaultEn && (j_q == JW'(FaultWord));
  assign p_mul  = p_word ^ (fault_hit ? W'(1 << FlipBit) : '0);
  assign q_val  = gfp ? W'(mp_i[K-1:0]) : mp_i[K +: W];

  assign last_j = (j_q == JW'(E - 1));
  assign last_i = gfp ? (i_q == IW'(DigP - 1)) : (i_q == IW'(DigB - 1));
  assign c_word = last_j ? c_q[32'(j_q) * W +: W + 1] : {1'b0, c_q[32'(j_q) * W +: W]};
  assign c_word0 = c_q[W-1:0];

  // The operands of each phase; T2's (t_i * q, no addend) are the default.
  always_comb begin
    mul_a = t_q;
    mul_b = q_val;
    add_c = '0;
    add_z = '0;
    case (state_q)
      StT1: begin mul_a = a_dig; mul_b = b_word0; add_c = SW'(c_word0); end
      StMa: begin mul_a = a_dig; mul_b = b_word;  add_c = SW'(c_word); add_z = z_q; end
      StMb: begin mul_a = t_q;   mul_b = p_mul;   add_c = acc_q; end
      default: ;
    endcase
  end

  mont_dual_mul #(
    .W(W)
  ) u_mul (
    .gfp_i(gfp),
    .a_i  (mul_a),
    .b_i  (mul_b),
    .c_i  (add_c),
    .d_i  (add_z),
    .p_o  (mac)
  );

  // T1's u and T2's t_i: K bits in GF(p) (mod 2^K), W in GF(2^n) (mod x^W)
  logic [W-1:0] t_next;
  assign t_next = gfp ? W'(mac[K-1:0]) : mac[W-1:0];

  // MB writes S (mac) into C at a digit-shifted offset: whole-vector mask and shift
  logic [OffW-1:0] wr_off;
  logic [SW-1:0]   wr_val, wr_mask;
  logic [CW-1:0]   c_written;
  always_comb begin
    wr_val = mac;
    if (gfp) begin
      if (j_q == '0) begin
        wr_off  = '0;
        wr_val  = mac >> K;
        wr_mask = SW'({(W - K){1'b1}});
      end else begin
        wr_off  = OffW'(32'(j_q) * W - K);
        wr_mask = last_j ? SW'({(W + K + 1){1'b1}}) : SW'({W{1'b1}});
      end
    end else begin
      wr_off  = (j_q == '0) ? '0 : OffW'((32'(j_q) - 1) * W);
      wr_mask = (j_q == '0) ? '0 : (last_j ? '1 : SW'({W{1'b1}}));
    end
  end
  assign c_written = (c_q & ~(CW'(wr_mask) << wr_off)) | (CW'(wr_val & wr_mask) << wr_off);

  // Word-serial final subtraction (GF(p)): D_j = C_j - M_j - borrow
  logic [W:0] sub_word;
  logic       sub_taken;
  assign sub_word  = {1'b0, c_q[32'(j_q) * W +: W]} - {1'b0, p_word} - (W + 1)'(borrow_q);
  assign sub_taken = gfp && (c_q[NP] || !borrow_q);  // in FIN: C >= M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      a_q      <= '0;
      c_q      <= '0;
      d_q      <= '0;
      borrow_q <= 1'b0;
      acc_q    <= '0;
      z_q      <= '0;
      t_q      <= '0;
      i_q      <= '0;
      j_q      <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            a_q   <= '0;
            c_q   <= '0;
            d_q   <= '0;
            acc_q <= '0;
            z_q   <= '0;
            t_q   <= '0;
          end else if (start_i) begin
            a_q      <= NP'(x_i);
            c_q      <= '0;
            i_q      <= '0;
            j_q      <= '0;
            borrow_q <= 1'b0;
            state_q  <= StT1;
          end
        end
        StT1: begin
          t_q     <= t_next;
          state_q <= StT2;
        end
        StT2: begin
          t_q     <= t_next;
          z_q     <= '0;
          j_q     <= '0;
          state_q <= StMa;
        end
        StMa: begin
          acc_q   <= mac;
          state_q <= StMb;
        end
        StMb: begin
          c_q <= c_written;
          z_q <= mac[W +: W];
          if (!last_j) begin
            j_q     <= j_q + 1'b1;
            state_q <= StMa;
          end else begin
            a_q <= gfp ? (a_q >> K) : (a_q >> W);
            j_q <= '0;
            i_q <= i_q + 1'b1;
            if (!last_i) begin
              state_q <= StT1;
            end else begin
              state_q <= gfp ? StSub : StFin;
            end
          end
        end
        StSub: begin
          d_q[32'(j_q) * W +: W] <= sub_word[W-1:0];
          borrow_q <= sub_word[W];
          j_q      <= j_q + 1'b1;
          if (last_j) begin
            state_q <= StFin;
          end
        end
        StFin: begin
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  // The result register and the handshake (hdl/common/mv_result.sv): FIN takes C - M
  // (GF(p), C >= M) or C.
  // Named first: Icarus 11 turns an enum compared inside a port connection into Z.
  logic         idle, fin;
  logic [N-1:0] p_fin;
  assign idle  = (state_q == StIdle);
  assign fin   = (state_q == StFin);
  assign p_fin = sub_taken ? d_q[N-1:0] : c_q[N-1:0];
  mv_result #(
    .ResW(N)
  ) u_result (
    `MV_RESULT_CORE_CONN,
    .idle_i(idle),
    .last_i(fin),
    .p_i   (p_fin)
  );

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Legal states and transitions: IDLE -> T1 -> T2 -> (MA -> MB) x E -> T1 ... -> SUB x E
  // (GF(p)) -> FIN -> IDLE; a digit's MA/MB run over words 0 .. E-1.
  `ASSERT(DualStateLegal_A, state_q <= StFin, clk_i, assert_off)
  `ASSERT_IMPL(DualStartsOnStart_A, $past(idle) && !idle, $past(start_i && !clear_i)
               && state_q == StT1 && i_q == '0, clk_i, assert_off)
  `ASSERT_IMPL(DualT1ToT2_A, $past(state_q == StT1), state_q == StT2, clk_i, assert_off)
  `ASSERT_IMPL(DualT2ToMa_A, $past(state_q == StT2), state_q == StMa && j_q == '0, clk_i,
               assert_off)
  `ASSERT_IMPL(DualMaToMb_A, $past(state_q == StMa), state_q == StMb, clk_i, assert_off)
  `ASSERT_IMPL(DualMbNext_A, $past(state_q == StMb), $past(last_j) ? ($past(last_i)
               ? (state_q == (gfp ? StSub : StFin)) : (state_q == StT1))
               : (state_q == StMa && j_q == $past(j_q) + 1'b1), clk_i, assert_off)
  `ASSERT_IMPL(DualSubNext_A, $past(state_q == StSub), $past(last_j) ? fin : state_q == StSub,
               clk_i, assert_off)
  `ASSERT_IMPL(DualFinOneCycle_A, $past(fin), idle, clk_i, assert_off)
  `ASSERT_IMPL(DualSubOnlyGfp_A, state_q == StSub, gfp, clk_i, assert_off)
  // Counters: the word j < E, the digit i < digits (ceil(N/K) in GF(p), ceil(N/W) in GF(2^n)).
  `ASSERT_IMPL(DualWordInRange_A, state_q == StMa || state_q == StMb || state_q == StSub,
               int'(j_q) < E, clk_i, assert_off)
  `ASSERT_IMPL(DualDigitInRange_A, state_q == StT1 || state_q == StT2 || state_q == StMa
               || state_q == StMb, int'(i_q) < (gfp ? DigP : DigB), clk_i, assert_off)
  // The unified array's GF(p) digit (mont_dual_mul): a_i and t_i are K bits, so its rows K and
  // up are 0 and it computes the paper's K x W product.
  `ASSERT_IMPL(DualMulDigitK_A, gfp && (state_q == StT1 || state_q == StT2 || state_q == StMa
               || state_q == StMb), mul_a[W-1:K] == '0, clk_i, assert_off)
  // The FIOS loop's bound (this header; Koc 1996, FIOS: C < 2M after the last digit): in
  // GF(p) one word-serial subtraction of M leaves P fully reduced.
  `ASSERT_IMPL(DualCBelow2M_A, state_q == StSub, c_q < (CW'(m_pad) << 1), clk_i, assert_off)

`ifndef SYNTHESIS
  // Simulation-only observation (hdl/common/mv_observe.sv): hits per {field, phase}
  // (T1, T2, MA, MB) and whether FIN took the final subtraction; read at done.
  // Named first: Icarus 11 turns an enum compared inside a port connection into Z.
  logic       obs_clear, obs_count;
  logic [1:0] obs_phase;
  logic [2:0] obs_addr;
  assign obs_clear = idle && start_i;
  assign obs_count = (state_q == StT1) || (state_q == StT2) || (state_q == StMa)
                  || (state_q == StMb);
  assign obs_phase = (state_q == StT1) ? 2'd0 : (state_q == StT2) ? 2'd1
                   : (state_q == StMa) ? 2'd2 : 2'd3;
  assign obs_addr  = {field_i, obs_phase};
  mv_observe #(
    .Bins(Bins),
    .HitW(HitW)
  ) u_observe (
    .clk_i,
    .rst_ni,
    .clear_i    (obs_clear),
    .count_i    (obs_count),
    .addr_i     (obs_addr),
    .fin_i      (fin),
    .sub_taken_i(sub_taken)
  );
`endif

endmodule
