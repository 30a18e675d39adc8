"""Handles into the simulated design.

The testbench finds the design's hierarchy by name at run time (`dut.u_core.e_q`, a path from
the design's descriptor), so which children a handle has, and of which kind, only the
simulator knows: to a type checker a handle is `Any`. Typed handles (cocotb.handle's
LogicObject, ...) would only restate what the simulator decides.
"""

from __future__ import annotations

from typing import Any

Handle = Any  # the toplevel, an instance inside it, or a signal
