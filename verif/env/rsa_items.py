"""What the RSA core's environment observes besides the bus: one product of an internal
multiplier, and the registers that must be wiped, read at a done edge."""

from __future__ import annotations

from dataclasses import dataclass

MULT_NAMES = ("A", "S")  # the descriptor's [rsa] mults, in order: A <- A*S and S <- S*S
ONE_UNIT = "U"  # a core with one multiplier (rsa_core Units = 1): A*S and S*S in turn on it


def mult_names(count: int) -> tuple[str, ...]:
    """The names of a core's multipliers, in its [rsa] mults' order: A and S, or the one
    multiplier that runs both products."""
    return MULT_NAMES if count == len(MULT_NAMES) else (ONE_UNIT,)


@dataclass
class MultTxn:
    """One product as seen on a multiplier's interface."""

    mult: str  # "A" or "S", or "U": the one multiplier of a core with one (ONE_UNIT)
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
