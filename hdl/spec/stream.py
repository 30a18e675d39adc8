"""A streaming core (a descriptor's [stream]): operands in and results out over valid/ready
streams, a new operation every `interval` clocks, many in flight. Such a design runs behind
the streaming harness (verif/stream/, docs/streaming.md) instead of the bus loader.

    [stream]
    in_valid = "in_valid_i"      # the operands' valid (in) and ready (out)
    in_ready = "in_ready_o"
    out_valid = "out_valid_o"    # the result's valid (out) and ready (in)
    out_ready = "out_ready_i"
    inputs = { x_i = "X", y_i = "Y", m_i = "M" }   # each operand input: a register
    result = "p_o"
    tag_in = "tag_i"             # optional: a tag carried with each operation
    tag_out = "tag_o"
    tag_width = "TagW"           # the tag's width: a parameter of the core, or a number
    latency = "ceil(n / K) + 2"  # clocks from taking the operands to offering the result,
                                 # nothing stalled (n and the build parameters)
    interval = 1                 # clocks between two operations taken, nothing stalled
    order = "in_order"           # or "tagged": results may leave out of order (by tag)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from montverif.host.errors import ConfigError
from montverif.spec import schema
from montverif.spec.fields import Table

# what the streaming harness offers an operation
REGISTERS = tuple(schema.definition("stream", "inputs")["additionalProperties"]["enum"])


@dataclass(frozen=True)
class StreamCore:
    """The descriptor's [stream]: how the harness drives and reads the core."""

    in_valid: str
    in_ready: str
    out_valid: str
    out_ready: str
    inputs: Mapping[str, str]  # core input -> register (X, Y, M)
    result: str
    latency: str  # formula in n and the build parameters
    interval: int = 1
    order: str = "in_order"
    tag_in: str = ""
    tag_out: str = ""
    tag_width: str = ""  # a core parameter's name or a number ("" without tags)
    clock: str = "clk_i"
    reset: str = "rst_ni"  # active low

    @property
    def tagged(self) -> bool:
        return bool(self.tag_in)


def parse_stream(raw: Mapping[str, Any], registers: tuple[str, ...], names: Collection[str],
                 where: str) -> StreamCore | None:
    """A descriptor's [stream] table (None when absent), as the schema has checked it
    (montverif.spec.schema): the registers each taken once, the tags together; `names`:
    what the latency formula may use (n and the build parameters)."""
    table = Table(raw.get("stream", {}), "[stream]", where)
    if not table.raw:
        return None
    inputs = dict(table.raw["inputs"])
    if missing := [r for r in registers if r not in inputs.values()]:
        raise table.error("inputs", f"no input takes {', '.join(missing)}")
    if stray := [r for r in registers if r not in REGISTERS]:
        raise table.error("inputs", f"the harness offers {', '.join(REGISTERS)}, not "
                                    f"{', '.join(stray)}")
    order = table.get("order", "in_order")
    tag_in, tag_out = table.text("tag_in"), table.text("tag_out")
    if bool(tag_in) != bool(tag_out) or (tag_in and "tag_width" not in table):
        raise table.error_at("tag_in, tag_out and tag_width go together")
    if order == "tagged" and not tag_in:
        raise table.error("order", "tagged results need tag_in and tag_out")
    return StreamCore(
        in_valid=table.text("in_valid"), in_ready=table.text("in_ready"),
        out_valid=table.text("out_valid"), out_ready=table.text("out_ready"),
        inputs=inputs, result=table.text("result"),
        latency=table.expression("latency", names), interval=int(table.get("interval", 1)),
        order=str(order), tag_in=tag_in, tag_out=tag_out,
        tag_width=str(table.get("tag_width", "")),
        clock=table.text("clock", "clk_i"), reset=table.text("reset", "rst_ni"))


def check_ports(stream: StreamCore, ports: Mapping[str, tuple[str, str]], module: str) -> None:
    """Every port [stream] names is the core's, in the right direction (ports: name ->
    (direction, width)); every input of the core is driven."""
    wanted = {stream.clock: "input", stream.reset: "input", stream.in_valid: "input",
              stream.in_ready: "output", stream.out_valid: "output",
              stream.out_ready: "input", stream.result: "output",
              **dict.fromkeys(stream.inputs, "input")}
    if stream.tagged:
        wanted |= {stream.tag_in: "input", stream.tag_out: "output"}
    for name, direction in wanted.items():
        if name not in ports:
            raise ConfigError(f"[stream]: {module} has no port {name}")
        if ports[name][0] != direction:
            raise ConfigError(f"[stream]: {module}'s {name} is an {ports[name][0]}, not an "
                              f"{direction}")
    if loose := [p for p, (d, _) in ports.items() if d == "input" and p not in wanted]:
        raise ConfigError(f"[stream]: {module}'s input {loose[0]} is not driven by the harness")
