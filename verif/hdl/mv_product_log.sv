// mv_product_log: simulation-only record of every product of a core's internal multipliers,
// for the RSA core's fast mode (BUS=engine; the generated engine wrapper instantiates it).
//
// Not a paper's datapath: the testbench's passive multiplier monitor moved into the
// simulation. In pin mode Python wakes twice per product (the rising edge of a multiplier's
// busy: its operands; the falling edge: its result); an RSA-1024 exponentiation runs over
// 2,000 products. Here, at every falling clock edge, multiplier k's busy_i is compared with
// its value half a cycle before: at a rise its operands (x, y and the modulus m) and the time
// of the rising edge are held; at a fall the product's whole record, those and its result
// (p, s, c) with the time, goes to the next entry of tb_prod_q (entry (count % Depth)), and
// tb_prod_count_q counts it. The design changes nothing between the two edges, so the record
// is what the pin-mode monitor reads at the rising edges. Python reads the new entries after
// each engine script, in place (verif/env/rsa_capture.py), and refuses more than Depth
// products between two reads.
//
// Entry layout (EntW bits, little endian, every field a whole number of 32-bit words):
// [0 +: 64] the $time of the falling edge after busy rose, [64 +: 64] that after it fell,
// [128 +: 64] the multiplier's index k, then six Slot-bit values: x, y, m, p, s, c.
module mv_product_log #(
  parameter int Mults = 2,
  parameter int Slot  = 64,  // bits of one value (a multiple of 32); inputs are zero-extended
  parameter int Depth = 8    // products kept between two reads
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [Mults-1:0]      busy_i,
  input  logic [Mults*Slot-1:0] x_i,
  input  logic [Mults*Slot-1:0] y_i,
  input  logic [Mults*Slot-1:0] p_i,
  input  logic [Mults*Slot-1:0] s_i,
  input  logic [Mults*Slot-1:0] c_i,
  input  logic [Slot-1:0]       m_i
);

  localparam int HeadW = 3 * 64;
  localparam int EntW  = HeadW + 6 * Slot;

  initial begin
    if (Slot % 32 != 0 || Mults < 1 || Depth < 1) begin
      $fatal(1, "mv_product_log: Slot %0d must be a multiple of 32, Mults %0d and Depth %0d at least 1",
             Slot, Mults, Depth);
    end
  end

  logic [Mults-1:0]      busy_seen_q, rise, fall;
  logic [Mults*Slot-1:0] x_q, y_q, m_q;
  logic [Mults*64-1:0]   t0_q;
  logic [Mults*32-1:0]   at;  // the entry number multiplier k's product takes at this edge
  assign rise = busy_i & ~busy_seen_q;
  assign fall = ~busy_i & busy_seen_q;

  // read by the testbench only (VPI), after each script
  /* verilator lint_off UNUSED */
  logic [31:0]           tb_prod_count_q;
  logic [Depth*EntW-1:0] tb_prod_q;
  /* verilator lint_on UNUSED */

  // products that end at this edge on multipliers below k (the loop variable is declared
  // with the function's: see montverif.spec.portability)
  function automatic logic [31:0] ends_below(input logic [Mults-1:0] ends, input int k);
    logic [31:0] sum;
    int j;
    sum = '0;
    for (j = 0; j < Mults; j++) begin
      if (j < k) begin
        sum = sum + 32'(ends[j]);
      end
    end
    return sum;
  endfunction

  for (genvar k = 0; k < Mults; k++) begin : g_at
    assign at[k*32 +: 32] = tb_prod_count_q + ends_below(fall, k);
  end

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_seen_q     <= '0;
      x_q             <= '0;
      y_q             <= '0;
      m_q             <= '0;
      t0_q            <= '0;
      tb_prod_count_q <= '0;
    end else begin
      busy_seen_q <= busy_i;
      for (int k = 0; k < Mults; k++) begin
        if (rise[k]) begin
          x_q[k*Slot +: Slot] <= x_i[k*Slot +: Slot];
          y_q[k*Slot +: Slot] <= y_i[k*Slot +: Slot];
          m_q[k*Slot +: Slot] <= m_i;
          t0_q[k*64 +: 64]    <= $time;
        end
        if (fall[k]) begin
          tb_prod_q[(at[k*32 +: 32] % Depth) * EntW +: EntW] <=
              {c_i[k*Slot +: Slot], s_i[k*Slot +: Slot], p_i[k*Slot +: Slot],
               m_q[k*Slot +: Slot], y_q[k*Slot +: Slot], x_q[k*Slot +: Slot],
               64'(k), 64'($time), t0_q[k*64 +: 64]};
        end
      end
      tb_prod_count_q <= tb_prod_count_q + ends_below(fall, Mults);
    end
  end

endmodule
