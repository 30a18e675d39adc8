"""The formal harness of a streaming design's core ([stream], docs/streaming.md), generated
from its descriptor (docs/formal.md).

A streaming core has no bus-loader port contract (start_i, busy_o, last_o): its operands go
in and its result comes out over valid/ready streams. `montverif formal --dut D --n N`
checks it in the style of formal_core's harness, for every input at width N:

- the operands X, Y and the modulus M are free constants (`anyconst`), constrained by the
  descriptor's operand domain (M odd, an operand of domain below_m below M, any N-bit value
  otherwise: formal_core.operands), and so is the tag of a tagged core;
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
from pathlib import Path
from typing import Any

from montverif.host import templates
from montverif.host.errors import ConfigError
from montverif.regress.formal import formal_core
from montverif.spec import top
from montverif.spec.design import Design
from montverif.spec.stream import StreamCore

_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the harness's text
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


def instance(proof: StreamProof) -> dict[str, Any]:
    """The core's instance, u_core, by its [stream] port names: its `params` (each set to
    the harness's of the same name) and its `pins` (port, the harness's signal)."""
    s, core = proof.stream, top.core_header(proof.design)
    names = ["N", *proof.params, *([proof.tag_bits] if proof.tag_bits else [])]
    params = [name for name in dict.fromkeys(names) if name in core.params]
    pins = [(s.clock, "clk_i"), (s.reset, "rst_ni"), (s.in_valid, "in_valid"),
            (s.in_ready, "in_ready"),
            *((port, top.LOADER_REGS[reg]) for port, reg in s.inputs.items()),
            (s.out_valid, "out_valid"), (s.out_ready, "out_ready"), (s.result, "p")]
    if s.tagged:
        pins += [(s.tag_in, "tag"), (s.tag_out, "tag_out")]
    return {"module": core.module, "params": params, "pins": pins}


def harness(proof: StreamProof) -> str:
    """The harness's SystemVerilog (read by yosys -formal only; templates/stream.sv.j2): its
    parameters and its cycle counter (reset in cycle 0 only), the operands, the two streams
    (the operation offered from cycle 1 until taken; the sink's ready free, but high once a
    result has waited Hold clocks), the core, the reference, and the assertions and covers
    of the operation's way through the core. A tag width that is a parameter of the core's
    header and no build parameter is declared at the core's default."""
    d = proof.design
    ops, val = formal_core.operands(proof)
    relation = proof.relation()
    header = top.core_header(d).params
    tag_default = (header[proof.tag_bits][1] if proof.tag_bits in header
                   and proof.tag_bits not in proof.params else None)
    core = instance(proof)
    reference = formal_core.reference(proof, val["x"], val["y"])
    return templates.render(
        _TEMPLATES, "stream.sv.j2", descriptor=d.descriptor.name, name=d.name, paper=d.paper,
        algorithm=d.algorithm, relation=relation, n=proof.n, module=proof.module,
        params=list(proof.params.items()), tag_bits=proof.tag_bits, tag_default=tag_default,
        latency=proof.cycles, latency_formula=proof.stream.latency, interval=proof.interval,
        hold=proof.hold, ww=proof.ww, operands=ops, core=core, reference=reference)
