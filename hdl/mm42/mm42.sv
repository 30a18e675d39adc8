// mm42: MM42_Multiplier, Montgomery multiplication with carry-save operands and result.
//
// Gajbhiye (2018), "Algorithm: MM42_Multiplier [12]" and Fig. 3: P = A*B*2^-(N+2) mod M
// with A = A1 + A2, B = B1 + B2 given as carry-save pairs. D = (D1, D2) = B1 + B2 + M + 0 is
// precomputed by the 4:2 compressor in the PRE cycle (step 1). Each iteration (steps 4-12)
// selects by (A_i, q_i), q_i = (S1_0 + S2_0 + A_i (B1_0 + B2_0)) mod 2, one of
//   (0, 0)  -> 0: A_i = 0, q_i = 0      (N, 0)   -> 1: A_i = 0, q_i = 1
//   (B1, B2) -> 2: A_i = 1, q_i = 0     (D1, D2) -> 3: A_i = 1, q_i = 1
// adds it to (S1, S2) with a 4:2 compressor (two carry-save adders) and halves both outputs
// by routing: q_i makes S1 + S2 + addend even, so the compressor's sum bit 0 is 0. All four
// selection addresses are reachable (exhaustive enumeration, models/tests/test_mm42.py).
// A_i is bit i of the value A1 + A2, produced LSB first by a one-bit serial adder (full
// adder + carry flip-flop) over the A1 and A2 shift registers.
//
// Range (Walter, as quoted by the paper): A, B in [0, 2M) and K + 2 = N + 2 iterations keep
// S1 + S2 < 3M inside the loop and S1 + S2 < 2M at the end; the result relation is the
// Montgomery product with R = 2^(N+2), not 2^N. Each half of a carry-save pair is at most
// its value, so S1, S2, D1, D2 are N + 2 bits and the compressor N + 3 bits; nothing
// overflows. The paper returns (S1, S2); this core also adds P = S1 + S2 with a
// carry-propagate adder in the FIN cycle and subtracts M once if P >= M, so P is fully
// reduced, and keeps S1, S2 readable as s_o, c_o.
//
// Cycles: 1 (PRE: D) + (N + 2) (loop) + 1 (FIN) = N + 4, from the start edge.
module mm42 #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, selection address FaultAddr adds the wrong pair
  // ((0,0) <-> (M,0), B <-> D). Used by the negative tests.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 0
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           start_i,
  input  logic           clear_i,
  input  logic [N-1:0]   a1_i,
  input  logic [N-1:0]   a2_i,
  input  logic [N-1:0]   b1_i,
  input  logic [N-1:0]   b2_i,
  input  logic [N-1:0]   m_i,
  output logic           busy_o,
  output logic           last_o,  // high during the last busy cycle (FIN)
  output logic [N-1:0]   p_o,
  output logic [N+1:0]   s_o,     // S1 after the loop
  output logic [N+1:0]   c_o      // S2 after the loop
);

  localparam int W        = N + 2;      // S1, S2, D1, D2: each half <= its value < 3M
  localparam int CW       = W + 1;      // compressor width
  localparam int Iter     = N + 2;      // Walter: K + 2 iterations
  localparam int CntW     = $clog2(Iter + 1);
  localparam int SelW     = 2;          // selection address {A_i, q_i}
  localparam int SelSize  = 1 << SelW;
  localparam int HitW     = 32;

  localparam logic [SelW-1:0] SelZero = 2'd0;
  localparam logic [SelW-1:0] SelM    = 2'd1;
  localparam logic [SelW-1:0] SelB    = 2'd2;
  localparam logic [SelW-1:0] SelD    = 2'd3;

  typedef enum logic [1:0] {
    StIdle = 2'd0,
    StPre  = 2'd1,
    StLoop = 2'd2,
    StFin  = 2'd3
  } state_e;

  state_e          state_q;
  logic [N-1:0]    a1_q, a2_q;  // A shift registers: bit 0 feeds the serial adder
  logic            ac_q;        // serial adder carry
  logic [W-1:0]    d1_q, d2_q;  // D = B1 + B2 + M (carry-save)
  logic [W-1:0]    s1_q, s2_q;
  logic [N-1:0]    p_q;
  logic [CntW-1:0] cnt_q;

  // 4:2 compressor: two carry-save adders; returns {carry, sum}, carry bit k weighs 2^k.
  // The second carry's top bit is always 0 (sum bit W of the first CSA is 0).
  function automatic logic [2*CW-1:0] compress42(input logic [CW-1:0] a, input logic [CW-1:0] b,
                                                  input logic [CW-1:0] c, input logic [CW-1:0] d);
    logic [CW-1:0] t_s, t_c, u_s, u_c;
    t_s = a ^ b ^ c;
    t_c = ((a & b) | (a & c) | (b & c)) << 1;
    u_s = t_s ^ t_c ^ d;
    u_c = ((t_s & t_c) | (t_s & d) | (t_c & d)) << 1;
    compress42 = {u_c, u_s};
  endfunction

  // Selection
  logic            a_bit, a_carry, b0, q_bit, fault_hit;
  logic [SelW-1:0] sel_addr, sel;
  assign a_bit     = a1_q[0] ^ a2_q[0] ^ ac_q;
  assign a_carry   = (a1_q[0] & a2_q[0]) | (a1_q[0] & ac_q) | (a2_q[0] & ac_q);
  assign b0        = b1_i[0] ^ b2_i[0];
  assign q_bit     = s1_q[0] ^ s2_q[0] ^ (a_bit & b0);
  assign sel_addr  = {a_bit, q_bit};
  // Test only: the faulty build swaps the pair at FaultAddr for its neighbour.
  assign fault_hit = FaultEn && (sel_addr == SelW'(FaultAddr));
  assign sel       = sel_addr ^ (fault_hit ? SelM : SelZero);

  logic [W-1:0] add1, add2;
  always_comb begin
    case (sel)
      SelZero: begin add1 = '0;             add2 = '0;             end
      SelM:    begin add1 = W'(m_i);        add2 = '0;             end
      SelB:    begin add1 = W'(b1_i);       add2 = W'(b2_i);       end
      SelD:    begin add1 = d1_q;           add2 = d2_q;           end
      default: begin add1 = '0;             add2 = '0;             end
    endcase
  end

  // The one compressor: PRE computes D = B1 + B2 + M + 0, the loop S1 + S2 + addend.
  logic [CW-1:0] in1, in2, in3, in4, cmp_sum, cmp_carry;
  assign in1 = (state_q == StPre) ? CW'(b1_i) : CW'(s1_q);
  assign in2 = (state_q == StPre) ? CW'(b2_i) : CW'(s2_q);
  assign in3 = (state_q == StPre) ? CW'(m_i)  : CW'(add1);
  assign in4 = (state_q == StPre) ? '0        : CW'(add2);
  assign {cmp_carry, cmp_sum} = compress42(in1, in2, in3, in4);

  // Final carry-propagate addition and conditional subtraction (S1 + S2 < 2M < 2^(N+1))
  /* verilator lint_off UNUSEDSIGNAL */
  logic [CW-1:0] p_full, p_diff;
  /* verilator lint_on UNUSEDSIGNAL */
  logic          sub_taken;
  assign p_full    = CW'(s1_q) + CW'(s2_q);
  assign p_diff    = p_full - CW'(m_i);
  assign sub_taken = !p_diff[CW-1];  // P >= M

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      a1_q    <= '0;
      a2_q    <= '0;
      ac_q    <= 1'b0;
      d1_q    <= '0;
      d2_q    <= '0;
      s1_q    <= '0;
      s2_q    <= '0;
      p_q     <= '0;
      cnt_q   <= '0;
    end else begin
      case (state_q)
        StIdle: begin
          if (clear_i) begin
            a1_q <= '0;
            a2_q <= '0;
            ac_q <= 1'b0;
            d1_q <= '0;
            d2_q <= '0;
            s1_q <= '0;
            s2_q <= '0;
            p_q  <= '0;
          end else if (start_i) begin
            a1_q    <= a1_i;
            a2_q    <= a2_i;
            ac_q    <= 1'b0;
            s1_q    <= '0;
            s2_q    <= '0;
            cnt_q   <= '0;
            state_q <= StPre;
          end
        end
        StPre: begin
          d1_q    <= cmp_sum[W-1:0];    // D < 3M < 2^W: bit W of both outputs is 0
          d2_q    <= cmp_carry[W-1:0];
          state_q <= StLoop;
        end
        StLoop: begin
          // S1 + S2 + addend is even: cmp_sum[0] is 0 and the halving drops nothing.
          s1_q    <= cmp_sum[CW-1:1];
          s2_q    <= cmp_carry[CW-1:1];
          a1_q    <= a1_q >> 1;
          a2_q    <= a2_q >> 1;
          ac_q    <= a_carry;
          cnt_q   <= cnt_q + 1'b1;
          if (cnt_q == CntW'(Iter - 1)) begin
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
  assign s_o    = s1_q;
  assign c_o    = s2_q;

`ifndef SYNTHESIS
  // Simulation-only observation (hdl/common/mv_observe.sv): hits per selection {A_i, q_i}
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
