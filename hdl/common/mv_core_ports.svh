// mv_core_ports.svh: the port list every multiplier core shares with the bus loader.
//
// Not an equation of a paper: the contract of docs/own-design.md, written once. A core is
// clocked by clk_i and reset by rst_ni (active low); start_i is the one-clock START pulse of
// hdl/common/mv_bus_loader.sv and clear_i its CLEAR (while idle: zero the result and every
// intermediate). busy_o is high from the clock after START to the last busy clock, last_o
// marks that last clock and p_o holds the fully reduced result from the clock after it on.
// s_o and c_o, where a core keeps a carry-save result, are its two halves after the loop.
// Operands are N bits (the core's parameter N). The generated top (montverif.spec.top) reads
// these macros to connect a core; a core declares what else it has (a field bit, host
// precomputed constants) beside them.
//
// Use, in a core's ANSI port list:
//   `MV_CORE_PORTS                 clk_i, rst_ni, start_i, clear_i, x_i, y_i, m_i, busy_o,
//                                  last_o, p_o
//   `MV_CORE_SC_PORTS(SW)          the same and s_o, c_o of SW bits
//   `MV_CORE_HALVES_SC_PORTS(SW)   the same with the operands in carry-save halves: a1_i,
//                                  a2_i, b1_i, b2_i (A = A1 + A2, B = B1 + B2) for x_i, y_i
//   `MV_CORE_CTRL_PORTS, ... `MV_CORE_RESULT_PORTS
//                                  the control inputs and the result outputs around
//                                  operands the core names itself
//
// and, in the connection list of the core's hdl/common/mv_result.sv instance (the result
// register and the handshake of a core with its own state machine):
//   `MV_RESULT_CORE_CONN           clk_i, rst_ni, start_i, clear_i, busy_o, last_o and p_o
//                                  connected to the core's ports of the same names
// and in the scalable cores' hdl/scalable/scalable_frame.sv instance:
//   `SCALABLE_FRAME_CONN           the frame's ports but Y's and M's words
`ifndef MV_CORE_PORTS_SVH
`define MV_CORE_PORTS_SVH

// clk_i, rst_ni, start_i, clear_i
`define MV_CORE_CTRL_PORTS \
  input  logic clk_i, \
  input  logic rst_ni, \
  input  logic start_i, \
  input  logic clear_i

// x_i, y_i, m_i: the operands X, Y and the modulus M
`define MV_CORE_XYM_PORTS \
  input  logic [N-1:0] x_i, \
  input  logic [N-1:0] y_i, \
  input  logic [N-1:0] m_i

// busy_o, last_o (high during the last busy cycle), p_o
`define MV_CORE_RESULT_PORTS \
  output logic         busy_o, \
  output logic         last_o, \
  output logic [N-1:0] p_o

// s_o, c_o: the carry-save halves after the loop, SW bits each
`define MV_CORE_SC_OUT_PORTS(SW) \
  output logic [(SW)-1:0] s_o, \
  output logic [(SW)-1:0] c_o

// a1_i, a2_i, b1_i, b2_i, m_i: the operands in carry-save halves and the modulus M
`define MV_CORE_HALVES_PORTS \
  input  logic [N-1:0] a1_i, \
  input  logic [N-1:0] a2_i, \
  input  logic [N-1:0] b1_i, \
  input  logic [N-1:0] b2_i, \
  input  logic [N-1:0] m_i

`define MV_CORE_PORTS \
  `MV_CORE_CTRL_PORTS, \
  `MV_CORE_XYM_PORTS, \
  `MV_CORE_RESULT_PORTS

`define MV_CORE_SC_PORTS(SW) \
  `MV_CORE_PORTS, \
  `MV_CORE_SC_OUT_PORTS(SW)

`define MV_CORE_HALVES_SC_PORTS(SW) \
  `MV_CORE_CTRL_PORTS, \
  `MV_CORE_HALVES_PORTS, \
  `MV_CORE_RESULT_PORTS, \
  `MV_CORE_SC_OUT_PORTS(SW)

// hdl/scalable/scalable_frame.sv's ports in mwr2mm and mwrkmm: the core's own by name, the
// PE array's by the nets both cores declare (load, inj, slot, yw, mw, s_in, s_out, pe_step,
// pe_carry_nz, res)
`define SCALABLE_FRAME_CONN \
  .clk_i, \
  .rst_ni, \
  .start_i, \
  .clear_i, \
  .m_i, \
  .load_o    (load), \
  .inj_o     (inj), \
  .slot_o    (slot), \
  .y_o       (yw), \
  .m_o       (mw), \
  .s_pe_o    (s_in), \
  .s_pe_i    (s_out), \
  .step_i    (pe_step), \
  .carry_nz_i(pe_carry_nz), \
  .busy_o, \
  .last_o, \
  .p_o, \
  .res_o     (res)
// mv_result's ports that are the core's own, connected by name
`define MV_RESULT_CORE_CONN \
  .clk_i, \
  .rst_ni, \
  .start_i, \
  .clear_i, \
  .busy_o, \
  .last_o, \
  .p_o

`endif  // MV_CORE_PORTS_SVH
