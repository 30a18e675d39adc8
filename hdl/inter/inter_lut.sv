// inter_lut: optimised interleaved modular multiplication, one CSA and an 8-entry table:
// P = X*Y mod M.
//
// Amanor (2005), Algorithm 5 and Fig. 4 (after Bunimov and Schimmler), MSB first:
//   S := 0; C := 0; A := LookUp(x_(N-1));
//   for i = N-1 downto 0:
//     S := 2*(S mod 2^N);  C := 2*(C mod 2^N);                 (steps 5-8: routing)
//     (S, C) := CSA(S, C, A);                                   (step 9: the one CSA)
//     A := LookUp(2*(s_N + 2*c_(N+1) + c_N) + x_(i-1));         (step 10)
//   P := (S + C) mod M                                          (step 11, done here in FIN)
// The register addr_q holds the table address; A = LookUp(addr_q) is read in the loop cycle.
//
// Table address (derivation, docs/interleaved.md; checked by the model's assertions and by
// exhaustive enumeration): with A < M < 2^N, S = 2S' ^ 2C' ^ A < 2^(N+1) (s_(N+1) = 0) and
// C = maj(2S', 2C', A) << 1 < 2^(N+2), where c_(N+1) = s'_(N-1) & c'_(N-1) and
// s_N = s'_(N-1) ^ c'_(N-1): s_N and c_(N+1) are never both 1. So the overflow
// k = S div 2^N + C div 2^N = s_N + 2c_(N+1) + c_N is at most 3 (2 bits: {c_(N+1) | s_N & c_N,
// s_N ^ c_N}) and the address is 2k + x_(i-1) in 0..7, exactly step (10). All 8 addresses
// are reachable for N >= 5.
//
// Table entries (as values mod M', PRE cycles, one modular adder): entry 2k + x holds
//   (2 * (k*2^N mod M') + x*Y') mod M' = (k*2^(N+1) + x*Y') mod M'    ("2A + I" reduced)
// built as t0 = 0, t1 = Y', h = 2^N mod M', t2 = h + h, t4 = t2 + t2, t6 = t4 + t2,
// t3 = t2 + Y', t5 = t4 + Y', t7 = t6 + Y' (each + is mod M'). The reduction mod M' matters:
// unreduced entries (< 3M') would let k reach 5 (not 6: A's bit N+1 excludes its bit N) and
// the 2-bit address overflow (docs/interleaved.md).
//
// Normalisation: as inter_csa, the PRE cycle shifts M and Y left by z = N - bitlen(M)
// (M' = M*2^z has its top bit set, Y' = Y*2^z) and FIN shifts the result right by z.
//
// FIN (relaxed range): S + C < 4*2^N + M' < 5*2^N <= 10 M', so four conditional
// subtractions of 8M', 4M', 2M', M' give (S + C) mod M', then P = that >> z. S and C are
// kept as they are after the loop (N+1 and N+2 bits; both ports N+2 bits).
//
// Cycles: 1 (PRE: normalise) + 7 (PRE: h, t2, t4, t6, t3, t5, t7) + N (loop) + 1 (FIN)
// = N + 9.
`include "mv_core_ports.svh"

module inter_lut #(
  parameter int N         = 32,
  // Test only: when FaultEn is set, table entry FaultAddr is read with its LSB flipped.
  parameter bit FaultEn   = 1'b0,
  parameter int FaultAddr = 2
) (
  `MV_CORE_SC_PORTS(N + 2)
);

  localparam int CntW    = $clog2(N + 1);
  localparam int LutSize = 8;
  localparam int AddrW   = 3;
  localparam int PreLast = 7;        // PRE cycles 0..7
  localparam int RedW    = N + 2;    // C (S is N+1 bits, zero-extended on the port)
  
  // PRE steps 2..7: destination entry and operands of the modular adder
  localparam logic [AddrW-1:0] AddrT2 = 3'd2;
  localparam logic [AddrW-1:0] AddrT4 = 3'd4;
  localparam logic [AddrW-1:0] AddrT6 = 3'd6;
  localparam logic [AddrW-1:0] AddrT3 = 3'd3;
  localparam logic [AddrW-1:0] AddrT5 = 3'd5;
  localparam logic [AddrW-1:0] AddrT7 = 3'd7;
  localparam logic [AddrW-1:0] StepT2 = 3'd2;  // PRE step that writes each entry
  localparam logic [AddrW-1:0] StepT4 = 3'd3;
  localparam logic [AddrW-1:0] StepT6 = 3'd4;
  localparam logic [AddrW-1:0] StepT3 = 3'd5;
  localparam logic [AddrW-1:0] StepT5 = 3'd6;

  logic [N-1:0]     x_q;     // X shift register (u_regs): x_i is bit N-1 (MSB first)
  logic [N-1:0]     yn_q;    // Y' = Y*2^z
  logic [N-1:0]     mn_q;    // M' = M*2^z
  logic [N-1:0]     h_q;     // 2^N mod M'
  logic [CntW-1:0]  z_q;
  logic [LutSize-1:0][N-1:0] tab_q;
  logic [N:0]       s_q;
  logic [RedW-1:0]  c_q;
  logic [AddrW-1:0] addr_q;  // table address of A for the current iteration
  logic [CntW-1:0]  cnt;     // PRE step, then loop iteration (u_ctrl)
  logic             clear, load, pre, loop;

  // Normalisation (first PRE cycle): z, M' = M*2^z, Y' = Y*2^z; and 2^N mod M'
  logic [CntW-1:0] z_new;
  logic [N-1:0]    h_new;
  inter_norm #(.N(N), .CntW(CntW)) u_norm (
    .clk_i, .rst_ni, .en_i(pre && cnt == '0), .m_i, .y_i, .z_new_o(z_new), .z_o(z_q),
    .mn_o(mn_q), .yn_o(yn_q), .pow2_mod_o(h_new));


  // PRE steps 2..7: one modular adder, operands chosen by the step
  logic [N-1:0]     t2, t4, t6;  // entries read by the PRE steps (Icarus: no constant
  assign t2 = tab_q[AddrT2];      // array selects inside always_comb)
  assign t4 = tab_q[AddrT4];
  assign t6 = tab_q[AddrT6];
  logic [N-1:0]     madd_a, madd_b;
  logic [AddrW-1:0] madd_dst, step;
  assign step = cnt[AddrW-1:0];
  always_comb begin
    case (step)
      StepT2:  begin madd_a = h_q; madd_b = h_q;  madd_dst = AddrT2; end
      StepT4:  begin madd_a = t2;  madd_b = t2;   madd_dst = AddrT4; end
      StepT6:  begin madd_a = t4;  madd_b = t2;   madd_dst = AddrT6; end
      StepT3:  begin madd_a = t2;  madd_b = yn_q; madd_dst = AddrT3; end
      StepT5:  begin madd_a = t4;  madd_b = yn_q; madd_dst = AddrT5; end
      default: begin madd_a = t6;  madd_b = yn_q; madd_dst = AddrT7; end  // StepT7
    endcase
  end

  logic [N:0]   madd_sum;
  logic [N-1:0] madd_res;
  assign madd_sum = {1'b0, madd_a} + {1'b0, madd_b};
  assign madd_res = (madd_sum >= {1'b0, mn_q}) ? N'(madd_sum - {1'b0, mn_q}) : N'(madd_sum);

  // Loop: the table value A (test-only fault flips the LSB of one entry)
  logic [N-1:0] a_val;
  logic         fault_hit;
  assign fault_hit = FaultEn && (addr_q == AddrW'(FaultAddr));
  assign a_val     = tab_q[addr_q] ^ N'(fault_hit);

  // Steps 5-8: S, C := 2*(S mod 2^N), 2*(C mod 2^N); step 9: the CSA
  logic [N:0]      s_sh, c_sh, a_ext, s_new, maj;
  logic [RedW-1:0] c_new;
  assign s_sh  = {s_q[N-1:0], 1'b0};
  assign c_sh  = {c_q[N-1:0], 1'b0};
  assign a_ext = {1'b0, a_val};
  assign s_new = s_sh ^ c_sh ^ a_ext;
  assign maj   = (s_sh & c_sh) | (s_sh & a_ext) | (c_sh & a_ext);
  assign c_new = {maj, 1'b0};

  // Step 10: k = s_N + 2 c_(N+1) + c_N (s_N & c_(N+1) = 0), next address 2k + x_(i-1)
  logic [1:0]       k_new;
  logic [AddrW-1:0] addr_new;
  assign k_new    = {c_new[N+1] | (s_new[N] & c_new[N]), s_new[N] ^ c_new[N]};
  assign addr_new = {k_new, x_q[N-2]};

  // FIN: P = (S + C) mod M' >> z (four conditional subtractions)
  logic [N-1:0] p_fin;
  inter_fin #(.N(N), .SW(N + 1), .CW(RedW), .CntW(CntW)) u_fin (
    .s_i(s_q), .c_i(c_q), .mn_i(mn_q), .z_i(z_q), .p_o(p_fin));

  // Control (IDLE, PRE: normalise and the table, N loop cycles, FIN) and observation: hits
  // per table address 2k + x in the last operation.
  /* verilator lint_off PINCONNECTEMPTY */
  mv_loop_ctrl #(.ResW(N), .LoopCycles(N), .PreCycles(PreLast + 1), .CntW(CntW),
                 .ObsBins(LutSize)) u_ctrl (
    .clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin), .p_o, .cnt_o(cnt),
    .clear_o(clear), .load_o(load), .pre_o(pre), .loop_o(loop), .last_loop_o(), .fin_o(),
    .obs_addr0_i(addr_q), .obs_count1_i(1'b0), .obs_addr1_i(addr_q), .obs_sub_taken_i(1'b0));
  /* verilator lint_on PINCONNECTEMPTY */

  // Steps 5-10: the loop's registers (X shifted left: MSB first)
  mv_sc_regs #(.XW(N), .SW(N + 1), .CW(RedW), .XLeft(1'b1)) u_regs (
    .clk_i, .rst_ni, .clear_i(clear), .load_i(load), .step_i(loop), .x_i, .s_i(s_new),
    .c_i(c_new), .x_o(x_q), .s_o(s_q), .c_o(c_q));

  // PRE step 1: h; the table address of A, first step (3): A := LookUp(x_(N-1)), then 2k + x
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {h_q, addr_q} <= '0;
    end else if (pre) begin
      if (cnt == CntW'(1)) begin
        h_q <= h_new;
      end
      if (cnt == CntW'(PreLast)) begin
        addr_q <= {2'b00, x_q[N-1]};
      end
    end else if (loop) begin
      addr_q <= addr_new;
    end
  end

  // The table registers (no reset: written in PRE before the loop reads them)
  always_ff @(posedge clk_i) begin
    if (pre) begin
      if (cnt == '0) begin
        tab_q[0] <= '0;
        tab_q[1] <= y_i << z_new;
      end else if (cnt != CntW'(1)) begin
        tab_q[madd_dst] <= madd_res;
      end
    end
  end

  assign s_o = {1'b0, s_q};
  assign c_o = c_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md): the table address in its reachable set, S + C bounded after
  // every iteration.
  // ---------------------------------------------------------------------------------------
`include "mv_assert.svh"
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  // Amanor (2005), Algorithm 5, step 3: A := LookUp(x_(N-1)), address 0 or 1 in the first
  // iteration. Step 10's address 2(s_N + 2 c_(N+1) + c_N) + x_(i-1) is one of the 8 entries
  // (LookUp(7) .. LookUp(0)) only if k = s_N + 2 c_(N+1) + c_N <= 3: s_N and c_(N+1) are
  // never both 1 after an iteration (this header, docs/interleaved.md).
  `ASSERT_IMPL(AddrFirstIter_A, loop && cnt == '0, addr_q[AddrW-1:1] == '0, clk_i, assert_off)
  `ASSERT_IMPL(KBelow4_A, $past(loop), !(s_q[N] && c_q[N+1]), clk_i, assert_off)
  // Steps 5-9: S + C = 2(S mod 2^N) + 2(C mod 2^N) + A < 4 * 2^N + M' after every iteration
  // (this header), so FIN's four conditional subtractions (inter_fin) reduce it fully.
  `ASSERT_SUM_BELOW(SumBound_A, $past(loop), s_q, c_q, ((N + 3)'(1) << (N + 2)) + (N + 3)'(mn_q),
                    N + 3, clk_i, assert_off)

endmodule
