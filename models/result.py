"""Result record returned by the bit-accurate models, and the input error type."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gmpy2


class ModelInputError(ValueError):
    """Bad input to a model, reference or parser (message is one line)."""


def dec(value: int) -> str:
    """Decimal string of ``value`` (no Python int->str digit limit)."""
    return str(gmpy2.mpz(value).digits(10))


def short_hex(value: int) -> str:
    """Hex of ``value`` for error messages, abbreviated when long."""
    h = str(gmpy2.mpz(abs(value)).digits(16))
    if len(h) > 24:
        h = f"{h[:8]}...{h[-8:]} ({value.bit_length()} bits)"
    return ("-" if value < 0 else "") + "0x" + h


@dataclass(frozen=True)
class Result:
    """Outcome of one modular multiplication by a bit-accurate model.

    ``s``/``c`` are the final redundant (sum, carry) pair after the loop, or None for
    designs without one; ``lut`` maps table address -> hits (only hits > 0).
    """

    algo: str
    n: int
    p: int
    s: int | None
    c: int | None
    cycles: int
    lut: dict[int, int] = field(default_factory=dict)
    # the value before the final conditional subtraction, for designs without a redundant
    # pair (s + c plays that role where there is one); None where the model has neither
    unreduced: int | None = None
    # comparisons of the final reduction whose two sides were equal or one apart (the
    # value exactly at a bound, or one below it), e.g. "fin2:eq", "fin2:below": the cases
    # where a >= mutated into > or an off-by-one bound changes the result (CornerTest steers
    # at them; docs/mutation.md)
    ties: frozenset[str] = frozenset()

    @property
    def before_sub(self) -> int | None:
        """The value the final subtraction compares with M (s + c, or `unreduced`)."""
        if self.s is not None and self.c is not None:
            return self.s + self.c
        return self.unreduced

    @property
    def pair(self) -> tuple[int, int]:
        """(s, c) of a model with a redundant pair (AssertionError for one without)."""
        assert self.s is not None and self.c is not None, f"{self.algo}: no redundant pair"
        return self.s, self.c

    def boundary_events(self, m: int) -> frozenset[str]:
        """`ties`, plus the final subtraction's own (the value before it equal to M or M-1)."""
        before = self.before_sub
        if before is None or before not in (m, m - 1):
            return self.ties
        return self.ties | {"sub:eq" if before == m else "sub:below"}

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict; big numbers become decimal strings, lut keys strings."""
        return {
            "algo": self.algo,
            "n": self.n,
            "p": dec(self.p),
            "s": None if self.s is None else dec(self.s),
            "c": None if self.c is None else dec(self.c),
            "cycles": self.cycles,
            "lut": {str(a): h for a, h in sorted(self.lut.items())},
        }
