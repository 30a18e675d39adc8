"""The formal harness of a streaming design's core ([stream], docs/streaming.md), generated
from its descriptor (docs/formal.md).

A streaming core has no bus-loader port contract (start_i, busy_o, last_o): its operands go
in and its result comes out over valid/ready streams. `montverif formal --dut D --n N`
checks it in the style of formal_core's harness, for every input at width N:

- the operands X, Y and the modulus M are free constants (`anyconst`), constrained by the
  descriptor's operand domain (M odd, an operand of domain below_m below M, any N-bit value
  otherwise: formal_core.operand_lines), and so is the tag of a tagged core;
- reset in cycle 0; from cycle 1 the input stream offers the operation (valid high, the
  operands and the tag held) until the core's ready takes it, and nothing after it;
- the output stream's ready is free in every cycle (anyseq), but high once an offered
  result has waited HOLD clocks, so the result is taken within the depth: back-pressure on
  the one result is checked with every pattern of up to HOLD held clocks;
- asserted in every cycle up to the depth:
  - `CoreTaken_A`: the core takes the operation within `interval` clocks of reset;
  - `CoreEarly_A`: nothing comes out before `latency` clocks after the take;
  - `CoreLatency_A`: the result comes out exactly `latency` clocks after the take (the
    descriptor's [stream] latency at the point; nothing is in flight before it, so no
    held result delays it);
  - `CoreHeld_A`: a result not taken stays offered until the sink takes it;
  - `CoreOnce_A`: once taken, nothing more comes out (one operation, one result);
  - `CoreResult_A`: the result is the function's value (formal_core.reference: P = X Y
    2^-r mod M for kind mont, X Y mod M for kind inter), a behavioural miter;
  - `CoreTag_A` (a tagged core): the result carries the operation's tag;
  - the core's own assertions (hdl/common/mv_assert.svh, under `read -formal`).
- covered: the result taken (`CoreDone_C`), and taken after being held back (`CoreHeld_C`).

A bounded model check two clocks past the latest take of the result covers the whole first
operation after reset for every input and every such sink: the core's function, latency and
handshake for one operation from reset, not for operations in flight together
(docs/formal.md says what that leaves open).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from montverif.host.errors import ConfigError
from montverif.regress.formal import formal_core
from montverif.spec import top
from montverif.spec.design import Design
from montverif.spec.stream import StreamCore

KINDS = ("mont", "inter")  # a stream offers X, Y and M: no exponent, no field bit
HOLD = 2  # the most clocks the harness's sink holds an offered result back


@dataclass(frozen=True)
class StreamProof(formal_core.CoreProof):
    """What the harness of one streaming design at one point checks. `cycles` is the
    latency: clocks from the take of the operands to the offer of the result."""

    interval: int = 1  # the operation is taken within this many clocks of reset
    hold: int = HOLD
    tag_bits: str = ""  # the tag's width as the harness writes it ("" untagged)

    @property
    def stream(self) -> StreamCore:
        assert self.design.stream is not None
        return self.design.stream

    @property
    def result_cycle(self) -> int:
        """The latest cycle the result comes out: the take in cycle `interval` at the
        latest, then the latency."""
        return self.interval + self.cycles

    @property
    def depth(self) -> int:
        """Two cycles past the latest take of the result (SBY counts from step 0)."""
        return self.result_cycle + self.hold + 3

    def holds(self) -> str:
        return "the latency, the tag and the handshake" if self.stream.tagged \
            else "the latency and the handshake"

    def result_at(self) -> str:
        return (f"the operands taken by cycle {self.interval}, the result out {self.cycles} "
                f"clocks later and taken by cycle {self.result_cycle + self.hold}")


def unsupported(design: Design) -> str:
    """Why no streaming harness can state the design's function ("" when one can)."""
    if design.stream is None:
        return f"{design.name}: no [stream] (formal_core's harness checks it)"
    if design.kind not in KINDS:
        return (f"{design.name}: its function kind {design.kind!r} has no streaming formal "
                f"harness yet (known: {', '.join(KINDS)})")
    return formal_core.unsupported(design)


def tag_bits(design: Design, params: dict[str, int]) -> str:
    """The tag's width: a number, a build parameter, or a parameter of the core's header (the
    harness declares it at its default and passes it on)."""
    s = design.stream
    assert s is not None
    if not s.tagged:
        return ""
    if s.tag_width.isdigit() or s.tag_width in params:
        return s.tag_width
    if s.tag_width in top.core_header(design).params:
        return s.tag_width
    raise ConfigError(f"{design.name}: [stream] tag_width {s.tag_width!r}: no parameter of "
                      f"{design.core_module} and no number")


def prepare(design: Design, n: int, given: dict[str, int], fault: bool = False
            ) -> StreamProof:
    """Check that the streaming design can be proved at this point (formal_core.prepare's
    checks, with the [stream] latency as its cycles); raises ConfigError (one line)."""
    if why := unsupported(design):
        raise ConfigError(why)
    core = formal_core.prepare(design, n, given, fault)
    fields = {f.name: getattr(core, f.name) for f in dataclasses.fields(core)}
    assert design.stream is not None
    return StreamProof(**fields, interval=design.stream.interval,
                       tag_bits=tag_bits(design, core.params))


def control_lines(proof: StreamProof) -> list[str]:
    """The harness's parameters and its cycle counter: reset in cycle 0 only."""
    header = top.core_header(proof.design).params
    tag = ([f"  localparam int {proof.tag_bits} = {header[proof.tag_bits][1]};  "
            "// the core's default"] if proof.tag_bits in header
           and proof.tag_bits not in proof.params else [])
    return [
        f"  localparam int N = {proof.n};",
        *(f"  localparam int {k} = {v};" for k, v in proof.params.items()),
        *tag,
        f"  localparam int Latency = {proof.cycles};  // [stream] latency: "
        f"{proof.stream.latency}",
        f"  localparam int Interval = {proof.interval};  // [stream] interval",
        f"  localparam int Hold = {proof.hold};  // the most clocks the sink holds a result",
        f"  localparam int WW = {proof.ww};",
        "",
        "  // cycle 0: reset; from cycle 1 the operation is offered",
        "  logic [15:0] cyc_q = '0;",
        "  always @(posedge clk_i) begin",
        "    if (cyc_q != 16'hffff) cyc_q <= cyc_q + 1'b1;",
        "  end",
        "  always @(*) assume (rst_ni == (cyc_q != '0));",
        "",
    ]


def stream_lines(proof: StreamProof) -> list[str]:
    """The two streams: the operation offered from cycle 1 until taken; the sink's ready
    free, but high once a result has waited Hold clocks."""
    tag = [f"  (* anyconst *) logic [{proof.tag_bits}-1:0] tag;  // the operation's tag",
           f"  logic [{proof.tag_bits}-1:0] tag_out;"] if proof.tag_bits else []
    return [
        *tag,
        "  // the input stream: one operation, offered from cycle 1 until the core takes it",
        "  logic in_valid, in_ready, in_taken_q = 1'b0;",
        "  logic [15:0] take_q = '0;  // the cycle it was taken",
        "  assign in_valid = rst_ni && !in_taken_q;",
        "  always @(posedge clk_i) begin",
        "    if (in_valid && in_ready) begin",
        "      in_taken_q <= 1'b1;",
        "      take_q <= cyc_q;",
        "    end",
        "  end",
        "",
        "  // the output stream: ready free in every cycle, high once a result waited Hold",
        "  (* anyseq *) logic ready_free;",
        "  logic out_valid, out_ready, out_taken_q = 1'b0, pending_q = 1'b0;",
        "  logic [7:0] held_q = '0;  // clocks the offered result has been held back",
        "  logic [N-1:0] p;",
        "  assign out_ready = ready_free || held_q >= 8'(Hold);",
        "  always @(posedge clk_i) begin",
        "    held_q <= (out_valid && !out_ready) ? held_q + 1'b1 : '0;",
        "    pending_q <= out_valid && !out_ready;",
        "    if (out_valid && out_ready) out_taken_q <= 1'b1;",
        "  end",
        "",
    ]


def core_lines(proof: StreamProof) -> list[str]:
    """The core's instance, u_core, by its [stream] port names, with its parameters."""
    s, core = proof.stream, top.core_header(proof.design)
    names = ["N", *proof.params, *([proof.tag_bits] if proof.tag_bits else [])]
    params = [name for name in dict.fromkeys(names) if name in core.params]
    pins = [(s.clock, "clk_i"), (s.reset, "rst_ni"), (s.in_valid, "in_valid"),
            (s.in_ready, "in_ready"),
            *((port, top.LOADER_REGS[reg]) for port, reg in s.inputs.items()),
            (s.out_valid, "out_valid"), (s.out_ready, "out_ready"), (s.result, "p")]
    if s.tagged:
        pins += [(s.tag_in, "tag"), (s.tag_out, "tag_out")]
    return [
        f"  {core.module} #(",
        *(f"    .{name}({name})" + ("," if i < len(params) - 1 else "")
          for i, name in enumerate(params)),
        "  ) u_core (",
        *(f"    .{port}({sig})" + ("," if i < len(pins) - 1 else "")
          for i, (port, sig) in enumerate(pins)),
        "  );",
        "",
    ]


def check_lines(proof: StreamProof) -> list[str]:
    """The assertions and covers of the operation's way through the core."""
    tag = ["      if (out_valid) CoreTag_A: assert (tag_out == tag);"] if proof.tag_bits else []
    return [
        "  // the result: out exactly Latency clocks after the take, held until taken, once",
        "  logic early, due;",
        "  assign early = !in_taken_q || cyc_q < take_q + 16'(Latency);",
        "  assign due = in_taken_q && cyc_q == take_q + 16'(Latency);",
        "  always @(posedge clk_i) begin",
        "    if (rst_ni) begin",
        "      CoreTaken_A: assert (in_taken_q || cyc_q <= 16'(Interval));",
        "      CoreEarly_A: assert (!(early && out_valid));",
        "      CoreLatency_A: assert (!due || out_valid);",
        "      CoreHeld_A: assert (!pending_q || out_valid);",
        "      CoreOnce_A: assert (!(out_taken_q && out_valid));",
        "      if (out_valid) CoreResult_A: assert (WW'(p) == expected);",
        *tag,
        "      CoreDone_C: cover (out_valid && out_ready);",
        "      CoreHeld_C: cover (pending_q && out_valid && out_ready);",
        "    end",
        "  end",
    ]


def harness(proof: StreamProof) -> str:
    """The harness's SystemVerilog (read by yosys -formal only)."""
    d = proof.design
    operands, val = formal_core.operand_lines(proof)
    return "\n".join([
        f"// GENERATED by montverif.regress.formal.formal_stream from {d.descriptor.name}: the",
        f"// {d.name} core ({d.paper}: {d.algorithm}) against {proof.relation()}",
        f"// at N = {proof.n}, for every input, one operation from reset through its",
        "// valid/ready streams. Do not edit.",
        f"module {proof.module} (",
        "  input logic clk_i,",
        "  input logic rst_ni",
        ");",
        *control_lines(proof),
        *operands,
        *stream_lines(proof),
        *core_lines(proof),
        *formal_core.reference(proof, val["x"], val["y"]),
        *check_lines(proof),
        "endmodule",
    ]) + "\n"
