"""A top that sets a core's parameters and passes its ports through: what a synthesis
elaborates (regress/synth/synth.py) and what a mutant's equivalence check wraps each of its two
copies in (regress/formal/formal_equiv.py). Yosys 0.70's `hierarchy -chparam` on the core
itself fails an assertion for the interleaved cores, whose elaboration it has to repeat; a top
of fixed parameters does not."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from montverif.host import templates
from montverif.spec.design import Design
from montverif.spec.top import core_header

_TEMPLATES = Path(__file__).resolve().parent / "templates"
FILE = "synth_top.sv"  # the top's file, beside the run's sources
TOP = "mv_synth_top"  # its module


def header_lines(design: Design, parameters: Mapping[str, int], open_ports: tuple[str, ...] = (),
                 tied: tuple[tuple[str, int], ...] = ()) -> tuple[list[str], list[str]]:
    """The core's parameter declarations (their values `parameters`, else the core's defaults)
    and its port declarations, one a line, for a top around it (the open and tied ports out)."""
    header = core_header(design)
    params = [f"  parameter {kind} {name} = {parameters.get(name, default)}"
              for name, (kind, default) in header.params.items()]
    ports = [f"  {port.direction} logic {f'[{port.width}] ' if port.width else ''}{port.name}"
             for port in header.ports.values()
             if port.name not in open_ports and port.name not in dict(tied)]
    return params, ports


def text(design: Design, module: str, parameters: Mapping[str, int],
         open_ports: tuple[str, ...] = (), tied: tuple[tuple[str, int], ...] = ()) -> str:
    """The top: `module` with `parameters` set; its outputs in `open_ports` left open, its
    inputs in `tied` tied to their value, every other port passed through
    (templates/core_top.sv.j2)."""
    params, ports = header_lines(design, parameters, open_ports, tied)
    given = ", ".join(f".{name}({name})" for name in parameters)
    values = dict(tied)
    conns = ", ".join(f".{name}()" if name in open_ports else
                      f".{name}({values[name]})" if name in values else f".{name}({name})"
                      for name in core_header(design).ports)
    return templates.render(_TEMPLATES, "core_top.sv.j2", module=module, top=TOP, given=given,
                            params=params, ports=ports, conns=conns)
