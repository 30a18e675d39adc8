// mv_assert.svh: assertion macros for the RTL (after lowRISC's prim_assert.sv).
//
// One include for every assertion the RTL carries, so that each tool sees a form it accepts
// (a comment line must not begin with the simulator's name: it would read it as a pragma):
//
//   - under VERILATOR (or with MV_ASSERT_ON defined): concurrent `assert property`, clocked,
//     disabled in reset; a failure prints one line,
//     `ASSERT FAILED <name> @ <time> ps: <scope> (<file>:<line>)`, which the flow takes as
//     the run's first error (regress/flow/simulate.py);
//   - under FORMAL (SymbiYosys, yosys read -formal): clocked immediate assert/assume in an
//     always block (yosys' own front end takes no sequences);
//   - Icarus 11 and every other tool: nothing (Icarus rejects concurrent assertions).
//
// MV_ASSERT_ON is defined whenever assertions are in (FORMAL too): RTL guards its
// assertion-only logic (shadow counters) with `ifdef MV_ASSERT_ON.
//
// Properties are boolean expressions sampled at the clock edge; they may use $past, $stable,
// $rose and $fell (both Verilator and yosys take them), never sequences (`##`, `|=>`): an
// implication of the same cycle is `ASSERT_IMPL`, one of the next cycle `$past(a) -> b` written
// as `ASSERT_IMPL(Name, $past(a), b, ...)`. `rst` is the disable condition, active high
// (lowRISC's convention): pass `!rst_ni`.
//
//   `ASSERT(Name, prop, clk, rst)            prop holds at every clock edge out of reset
//   `ASSERT_IMPL(Name, a, b, clk, rst)       a implies b (same cycle)
//   `ASSERT_NEVER(Name, prop, clk, rst)      prop never holds
//   `ASSERT_KNOWN(Name, sig, clk, rst)       sig has no X or Z bit (meaningful in 4-state
//                                            simulators; 2-state tools take it as true)
//   `ASSERT_INIT(Name, prop)                 prop holds at time 0 (parameters, constants)
//   `ASSUME(Name, prop, clk, rst)            an assumption under FORMAL (the environment's
//                                            promise), checked as an assertion in simulation
//   `ASSUME_IMPL(Name, a, b, clk, rst)       the same, for an implication
//   `ASSERT_SUM_BELOW(Name, en, a, b, bound, W, clk, rst)
//                                            en implies a + b < bound, all three taken in W
//                                            bits (W holds a + b and bound: nothing wraps);
//                                            the cores' loop bounds, S + C < 2M and the like
//
// Names follow lowRISC: UpperCamelCase ending in `_A` (assertion) or `_M` (assumption).
`ifndef MV_ASSERT_SVH
`define MV_ASSERT_SVH

`ifdef VERILATOR
  `ifndef MV_ASSERT_ON
    `define MV_ASSERT_ON
  `endif
`endif
`ifdef __ICARUS__  // Icarus 11 cannot parse concurrent assertions, whatever is defined
  `ifdef MV_ASSERT_ON
    `undef MV_ASSERT_ON
  `endif
`endif
`ifdef FORMAL  // MV_ASSERT_ON: the RTL's assertion-only logic (shadow counters) is present
  `ifndef MV_ASSERT_ON
    `define MV_ASSERT_ON
  `endif
`endif

`define MV_STRINGIFY(x) `"x`"

`ifdef FORMAL
  // yosys (read_verilog -formal -sv): an immediate assert in a clocked always block is a
  // $assert cell on the clock; smtbmc names a failure by the statement's label and location.
  `define ASSERT(__name, __prop, __clk, __rst) \
    always @(posedge __clk) begin \
      if (!(__rst)) begin \
        __name: assert (__prop); \
      end \
    end
  `define ASSUME(__name, __prop, __clk, __rst) \
    always @(posedge __clk) begin \
      if (!(__rst)) begin \
        __name: assume (__prop); \
      end \
    end
  `define ASSERT_INIT(__name, __prop) \
    initial begin \
      __name: assert (__prop); \
    end
  `define ASSERT_KNOWN(__name, __sig, __clk, __rst)
`elsif MV_ASSERT_ON
  // Simulation with --assert: concurrent assertions, disabled in reset.
  `define MV_ASSERT_FAILED(__name) \
    $error("ASSERT FAILED %s @ %0t ps: %m (%s:%0d)", `MV_STRINGIFY(__name), $time, \
           `__FILE__, `__LINE__)
  `define ASSERT(__name, __prop, __clk, __rst) \
    __name: assert property (@(posedge __clk) disable iff (__rst) (__prop)) \
      else begin `MV_ASSERT_FAILED(__name); end
  `define ASSUME(__name, __prop, __clk, __rst) \
    __name: assert property (@(posedge __clk) disable iff (__rst) (__prop)) \
      else begin `MV_ASSERT_FAILED(__name); end
  `define ASSERT_INIT(__name, __prop) \
    initial begin \
      __name: assert (__prop) else begin `MV_ASSERT_FAILED(__name); end \
    end
  `define ASSERT_KNOWN(__name, __sig, __clk, __rst) \
    `ASSERT(__name, !$isunknown(__sig), __clk, __rst)
`else
  `define ASSERT(__name, __prop, __clk, __rst)
  `define ASSUME(__name, __prop, __clk, __rst)
  `define ASSERT_INIT(__name, __prop)
  `define ASSERT_KNOWN(__name, __sig, __clk, __rst)
`endif

// `MV_ASSERT_OFF(clk, rst_n) declares assert_off, the disable condition of a block's
// assertions: high in reset and in the first clock after it (where $past still reads the
// cycle in reset). It comes from a flop of its own, not from rst_n itself: an asynchronous
// reset read by `disable iff` would be a signal flopped both ways (Verilator's SYNCASYNCNET).
// Without assertions it declares nothing.
`ifdef MV_ASSERT_ON
  `define MV_ASSERT_OFF(__clk, __rst_n) \
    logic assert_en_q, assert_off; \
    always_ff @(posedge __clk or negedge __rst_n) begin \
      if (!__rst_n) begin \
        assert_en_q <= 1'b0; \
      end else begin \
        assert_en_q <= 1'b1; \
      end \
    end \
    assign assert_off = !assert_en_q;
`else
  `define MV_ASSERT_OFF(__clk, __rst_n)
`endif

`define ASSERT_IMPL(__name, __a, __b, __clk, __rst) \
  `ASSERT(__name, !(__a) || (__b), __clk, __rst)
`define ASSERT_NEVER(__name, __prop, __clk, __rst) \
  `ASSERT(__name, !(__prop), __clk, __rst)
`define ASSUME_IMPL(__name, __a, __b, __clk, __rst) \
  `ASSUME(__name, !(__a) || (__b), __clk, __rst)
// The comparison is a 1-bit signal of its own, <Name>_holds, which Verilator must keep (public):
// the concurrent assertion then samples one bit. Verilator copies every signal an assertion
// reads into a sampled copy each clock, a wide one word by word, and an inlined comparison
// would make it sample the wide terms (a stage's combinational sum, say) instead.
`ifdef MV_ASSERT_ON
  `define ASSERT_SUM_BELOW(__name, __en, __a, __b, __bound, __w, __clk, __rst) \
    logic __name``_holds /* verilator public_flat_rd */; \
    assign __name``_holds = (__w)'(__a) + (__w)'(__b) < (__w)'(__bound); \
    `ASSERT_IMPL(__name, __en, __name``_holds, __clk, __rst)
`else
  `define ASSERT_SUM_BELOW(__name, __en, __a, __b, __bound, __w, __clk, __rst)
`endif

`endif  // MV_ASSERT_SVH
