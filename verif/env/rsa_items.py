"""What the RSA core's environment observes besides the bus: one product of an internal
multiplier, and the registers that must be wiped, read at a done edge."""

from __future__ import annotations

from dataclasses import dataclass

MULT_NAMES = ("A", "S")  # the descriptor's [rsa] mults, in order: A <- A*S and S <- S*S


@dataclass
class MultTxn:
    """One product as seen on a multiplier's interface."""

    mult: str  # "A" or "S"
    x: int
    y: int
    m: int
    p: int
    s: int
    c: int
    start_ns: float  # the simulator's times (cocotb: floats)
    end_ns: float


@dataclass
class WipeObservation:
    time_ns: float
    values: dict[str, int]  # register path -> value at the done edge
