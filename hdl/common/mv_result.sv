// mv_result: the result register P and the busy/last handshake a core gives the bus loader.
//
// Not an equation of a paper: the contract every core keeps with hdl/common/mv_bus_loader.sv
// (docs/own-design.md): busy_o is high from the clock after START to the last busy clock,
// last_o marks that last clock, and p_o holds the result of the last operation from the
// clock after it on; it reads 0 after reset and after a CLEAR while idle (ClearOnLoad: also
// from the start of an operation on, so that no earlier result stays readable). The core
// keeps its own FSM and tells this module when it is idle (idle_i) and when the operation
// ends (last_i, with the result p_i).
//
// Used by scalable_ctrl (mwr2mm, mwrkmm), mont_dual, mont_qp and rsa_core (ClearOnLoad).
//
// Assertions (docs/formal.md): last only while busy; P changes only at the last clock and on
// a CLEAR (or START with ClearOnLoad) while idle, which zero it.
`include "mv_assert.svh"

module mv_result #(
  parameter int ResW        = 32,
  parameter bit ClearOnLoad = 1'b0
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,
  input  logic            clear_i,
  input  logic            idle_i,   // the core's FSM is idle
  input  logic            last_i,   // the last busy clock: P takes p_i
  input  logic [ResW-1:0] p_i,
  output logic            busy_o,
  output logic            last_o,
  output logic [ResW-1:0] p_o
);

  logic [ResW-1:0] p_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_q <= '0;
    end else if (idle_i && (clear_i || (ClearOnLoad && start_i))) begin
      p_q <= '0;
    end else if (last_i) begin
      p_q <= p_i;
    end
  end

  assign busy_o = !idle_i;
  assign last_o = last_i;
  assign p_o    = p_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/formal.md). Not a paper's equation: the port contract above.
  // ---------------------------------------------------------------------------------------
  // off in reset and in the first clock after it (mv_assert.svh)
  `MV_ASSERT_OFF(clk_i, rst_ni)

  `ASSERT_IMPL(ResultLastWhileBusy_A, last_i, !idle_i, clk_i, assert_off)
  `ASSERT_IMPL(ResultStable_A, $past(!last_i && !(idle_i && (clear_i
               || (ClearOnLoad && start_i)))), $stable(p_o), clk_i, assert_off)
  `ASSERT_IMPL(ResultZeroOnClear_A, $past(idle_i && (clear_i || (ClearOnLoad && start_i))),
               p_o == '0, clk_i, assert_off)

endmodule
