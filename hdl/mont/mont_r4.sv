// mont_r4: radix-4 Montgomery multiplication, carry-save accumulator, table of multiples.
//
// Radix-2^k Montgomery multiplication with k = 2 digits of X per iteration: Koc, Acar and
// Kaliski, "Analyzing and comparing Montgomery multiplication algorithms", IEEE Micro 16(3),
// 1996; Blum and Paar, "High-radix Montgomery modular exponentiation on reconfigurable
// hardware", IEEE Trans. Computers 50(7), 2001; Orup, "Simplifying quotient determination in
// high-radix modular multiplication", ARITH-12, 1995; the loop as Tanimura et al. 2008 state it
// (slide "Montgomery Multiplication": t_i := (c_0 + a_i b_0) q mod 2^k, C := (C + a_i B +
// t_i P) / 2^k, q = -P^-1 mod 2^k, m = n/k iterations) with k = 2. The datapath is this
// repository's own design (no paper's figure is followed). P = X*Y*4^-K mod M, K = ceil(N/2),
// R = 2^(2K), M odd; for odd N, X is padded with a zero bit to 2K bits. With T = S + C + cin
// (T = 0 first) and x_i = X[2i+1:2i], least significant digit first, one loop cycle per digit:
//   CSA 1:  S1 = S ^ C ^ A, C1 = {maj(S, C, A), cin}        A = x_i*Y in {0, Y, 2Y, 3Y}
//   t      = (S1 + C1) mod 4 = (T + x_i*Y) mod 4            (two-bit adder on the low bits)
//   q_i    = t*m' mod 4, m' = -M^-1 mod 4 = {~m_1, 1}       (3 for M = 1 mod 4, 1 for 3 mod 4)
//   CSA 2:  S2 = S1 ^ C1 ^ B, C2 = {maj(S1, C1, B), 0}       B = q_i*M in {0, M, 2M, 3M}
//   S2 + C2 = T + x_i*Y + q_i*M = 0 mod 4 (q_i*M = -t mod 4), so S2[0] = 0 and S2[1] = C2[1]
//   S := S2 >> 2, C := C2 >> 2, cin := S2[1]                so T := (T + x_i*Y + q_i*M) / 4
// 3Y and 3M are computed in the PRE cycle; 2Y and 2M are wiring. q_i needs no host
// precomputation: m' depends on M's bit 1 only. Table address (observed for coverage):
// {x_i, q_i}, 16 bins, all reachable for every N >= 4 (models/tests/test_mont_r4.py:
// exhaustive at N = 4, 5, 6; a (X, Y, M) reaching an address at N reaches it at every larger
// N, whose first iterations are the same and whose extra ones have zero digits).
//
// Why this datapath: a carry-propagate accumulator would put an (N+3)-bit carry chain in
// every loop cycle; here the loop is CSA 1, a two-bit adder and the m' gates for q_i, a 4:1
// select and CSA 2, independent of N. The redundant low digit S2[1:0] + C2[1:0] is 0 or 4,
// so the shift by two would drop a carry of weight 1 (after the shift); it is kept in the
// one-bit register cin and enters the next cycle in the free LSB of CSA 1's carry vector (no
// extra adder level, no half-adder row per cycle). FIN folds the last cin in with CSA 1 on a
// zero digit (X is exhausted): S := S ^ C, C := {S & C, cin}, so the S and C read back sum to
// the P before the subtraction, as for the other redundant cores.
//
// Bound: T < 2M after every iteration. By induction, T = 0 first, and with T < 2M, x_i,
// q_i <= 3 and Y < M: T' = (T + x_i*Y + q_i*M) / 4 < (2M + 3M + 3M) / 4 = 2M. After K
// iterations T = X*Y*4^-K mod M (plus 0 or M), so FIN adds P = S + C + cin with a
// carry-propagate adder and subtracts M once if P >= M; P leaves the core fully reduced.
//
// Widths: S, C >= 0 and S + C <= T < 2M < 2^(N+1), so S and C are N+1-bit registers (the
// register map's redundant_extra_bits = 1), also after FIN (S ^ C <= S + C, and
// 2(S & C) + cin <= S + C + cin). 3Y, 3M < 3*2^N are N+2 bits, so A, B, S1, C1 (maj(S, C, A)
// has no bit N+1: S and C have none), S2 and maj(S1, C1, B) are N+2 bits, C2 N+3; nothing is
// dropped but S2[1:0] and C2[1:0], whose sum 4*S2[1] is cin. S2 >> 2 < 2^N.
//
// Cycles: 1 (PRE: 3Y, 3M) + K (loop) + 1 (FIN) = ceil(N/2) + 2, from the start edge.
//
// Assertions (docs/formal.md): the bound T = S + C + cin < 2M after every iteration and after
// FIN, and the table addresses the first and (odd N) the last iteration can reach.
`include "mv_core_ports.svh"
`include "mv_assert.svh"

module mont_r4 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, the M multiple selected at table address {x_i, q_i} ==
  // FaultAddr is the neighbouring one (q_i ^ 1), so S2 + C2 is not a multiple of 4 and the
  // shift drops a one bit. Used by the negative tests.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  `MV_CORE_SC_PORTS(N + 1)
);

  localparam int K        = (N + 1) / 2;  // digit iterations
  localparam int XW       = 2 * K;        // X padded to an even number of bits
  localparam int TblAddrW = 4;
  localparam int TblSize  = 1 << TblAddrW;

  logic [XW-1:0] x_q;    // X shift register: x_i is bits 1:0
  logic [N+1:0]  y3_q;   // 3Y
  logic [N+1:0]  m3_q;   // 3M
  logic [N:0]    s_q, c_q;
  logic          cin_q;  // carry out of the low digit, weight 1 after the shift
  logic [N-1:0]  p_fin;  // the result, held by u_ctrl
  logic          clear, load, pre, loop, last_loop, fin, sub_taken;

  // Table, Y half: A = x_i*Y
  logic [1:0]   xd;
  logic [N+1:0] a_sel;
  assign xd = x_q[1:0];
  always_comb begin
    case (xd)
      2'd0:    a_sel = '0;
      2'd1:    a_sel = {2'b00, y_i};
      2'd2:    a_sel = {1'b0, y_i, 1'b0};
      default: a_sel = y3_q;
    endcase
  end

  // CSA 1 on S, C and A; the pending carry takes the free LSB of its carry vector.
  logic [N+1:0] s1, c1;
  logic [N:0]   maj1;  // bit k has weight 2^(k+1); no bit N+1 (S and C have none)
  assign s1   = {1'b0, s_q} ^ {1'b0, c_q} ^ a_sel;
  assign maj1 = (s_q & c_q) | (s_q & a_sel[N:0]) | (c_q & a_sel[N:0]);
  assign c1   = {maj1, cin_q};

  // Quotient digit from the resolved low digit t = (S1 + C1) mod 4: q = t*m' mod 4 with
  // m' = {~m_1, 1}, i.e. q_0 = t_0, q_1 = t_1 ^ (t_0 & ~m_1).
  logic [1:0]          t_lo, q_i;
  logic [TblAddrW-1:0] tbl_addr;
  logic                fault_hit;
  logic [1:0]          q_sel;
  assign t_lo      = s1[1:0] + c1[1:0];
  assign q_i       = {t_lo[1] ^ (t_lo[0] & ~m_i[1]), t_lo[0]};
  assign tbl_addr  = {xd, q_i};
  assign fault_hit = FaultEn && (tbl_addr == TblAddrW'(FaultAddr));
  assign q_sel     = q_i ^ {1'b0, fault_hit};

  // Table, M half: B = q_i*M
  logic [N+1:0] b_sel;
  always_comb begin
    case (q_sel)
      2'd0:    b_sel = '0;
      2'd1:    b_sel = {2'b00, m_i};
      2'd2:    b_sel = {1'b0, m_i, 1'b0};
      default: b_sel = m3_q;
    endcase
  end

  // CSA 2 on S1, C1 and B. S2[0] is 0 by construction and S2[1] (= C2[1] = maj2[0]) is the
  // carry out of the low digit; both are shifted out, the carry goes to cin.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [N+1:0] s2;
  logic [N+1:0] maj2;  // C2 = {maj2, 0}; C2 >> 2 = maj2 >> 1
  /* verilator lint_on UNUSEDSIGNAL */
  assign s2   = s1 ^ c1 ^ b_sel;
  assign maj2 = (s1 & c1) | (s1 & b_sel) | (c1 & b_sel);

  // FIN: P = S + C + cin (< 2M), minus M if P >= M
  mv_final_sub #(.N(N)) u_final (
    .s_i(s_q), .c_i(c_q), .cin_i(cin_q), .m_i, .p_o(p_fin), .sub_taken_o(sub_taken));

  // PRE: the odd multiples
  logic [N+1:0] y3_sum, m3_sum;
  assign y3_sum = {2'b00, y_i} + {1'b0, y_i, 1'b0};
  assign m3_sum = {2'b00, m_i} + {1'b0, m_i, 1'b0};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {x_q, y3_q, m3_q, s_q, c_q, cin_q} <= '0;
    end else if (clear) begin
      {x_q, y3_q, m3_q, s_q, c_q, cin_q} <= '0;
    end else if (load) begin
      x_q   <= XW'(x_i);
      s_q   <= '0;
      c_q   <= '0;
      cin_q <= 1'b0;
    end else if (pre) begin
      y3_q <= y3_sum;
      m3_q <= m3_sum;
    end else if (loop) begin
      s_q   <= {1'b0, s2[N+1:2]};
      c_q   <= maj2[N+1:1];
      cin_q <= s2[1];
      x_q   <= x_q >> 2;
    end else if (fin) begin
      // x_q is 0 now, so A = 0 and CSA 1 folds cin into the pair: S ^ C, {S & C, cin}
      // (s1[N+1] and maj1[N] are 0: S + C + cin < 2^(N+1)).
      s_q   <= s1[N:0];
      c_q   <= c1[N:0];
      cin_q <= 1'b0;
    end
  end
  assign s_o = s_q;
  assign c_o = c_q;

  // Control (IDLE, PRE: 3Y and 3M, K loop cycles, FIN) and observation: hits per table
  // address {x_i, q_i} in the last operation and whether FIN subtracted M.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(K), .PreCycles(1), .ObsBins(TblSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(last_loop),
    .fin_o(fin), .obs_addr0_i(tbl_addr), .obs_count1_i(1'b0), .obs_addr1_i(tbl_addr),
    .obs_sub_taken_i(sub_taken));
  /* verilator lint_on PINCONNECTEMPTY */

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md)
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // This header's bound (radix-2^k Montgomery, Koc 1996; Tanimura 2008, k = 2): T < 2M after
  // every iteration, T' = (T + x_i Y + q_i M) / 4 < (2M + 3M + 3M) / 4; FIN folds cin into
  // S and C, so S + C < 2M after it and one subtraction (mv_final_sub) reduces P fully. M as
  // the operation had it: after FIN the core is idle and the host may give the next M at once
  // (k-induction over operations back to back found the check reading the new one).
  `ASSERT_SUM_BELOW(SumBelow2M_A, $past(loop || fin) && $stable(m_i), s_q,
                    (N + 2)'(c_q) + (N + 2)'(cin_q), (N + 2)'(m_i) << 1, N + 2, clk_i,
                    assert_off)
  // The table address {x_i, q_i}. Over an operation all 16 are reachable (this header); the
  // first iteration starts from T = 0, so t = x_i Y mod 4: x_i = 0 selects q_i = 0 and x_i = 2
  // an even q_i. With odd N, X < 2^N is padded with a zero bit: the last digit is 0 or 1.
  `ASSERT_IMPL(R4AddrFirstIter_A, loop && $past(pre), (xd != 2'd0 || q_i == 2'd0)
               && (xd != 2'd2 || !q_i[0]), clk_i, assert_off)
  `ASSERT_IMPL(R4AddrLastDigit_A, loop && last_loop && (N % 2 == 1), !xd[1], clk_i, assert_off)

endmodule
