"""Survivors that simulation found equivalent, checked by a proof (docs/mutation.md).

A mutant the campaign's simulations call equivalent is checked against the original with
SymbiYosys at each of the design's formal points (its descriptor's `[formal] points`,
regress/formal/formal_equiv.py): two copies of the core under any stimulus the bus loader can
give, compared on every output and every register the testbench observes: for a bounded
number of cycles from reset, and for all time where k-induction closes (the text says which,
point by point).

- proved: no difference at any formal point: the mutant is "equivalent (proved)";
- different: the copies differ at a formal point: the mutant is a testbench hole after all,
  and the counterexample's operands are the distinguishing input, a vector file for the
  design's tests;
- not proved: no proof could be made (a design without a formal harness, a solver timeout):
  the mutant stays "equivalent (simulated)".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from montverif.host.errors import ConfigError
from montverif.regress.formal import formal_equiv
from montverif.regress.formal.formal_core import unsupported
from montverif.spec.design import Design

PROVED, DIFFERENT, NOT_PROVED = "proved", "different", "not proved"
PROVED_TEXT = "proved equivalent by SBY"  # how a proved result's text begins
ALL_TIME = "for all time:"  # how a point proved by k-induction begins in that text
_POINT = re.compile(r"N=\d+[^()]*\(([^)]*)\)")


def for_all_time(text: str) -> bool:
    """Whether a proof's text says every point was proved for all time (not to a bound)."""
    points = _POINT.findall(text.split(PROVED_TEXT, 1)[-1])
    return bool(points) and all(p.startswith(ALL_TIME) for p in points)


@dataclass(frozen=True)
class ProofResult:
    status: str  # PROVED, DIFFERENT or NOT_PROVED
    text: str  # what was shown, or why not, in words
    vector: str = ""  # DIFFERENT: the distinguishing input (a vector file)
    # DIFFERENT: the formal point (N, parameters) the check told them apart at
    point: tuple[int, tuple[tuple[str, int], ...]] | None = None


def _point(n: int, params: tuple[tuple[str, int], ...]) -> str:
    return ", ".join([f"N={n}", *(f"{k}={v}" for k, v in params)])


def prove(dut: str, design: Design, overlay: Path, folder: Path,
          timeout_s: int = 900) -> ProofResult:
    """Check the mutant in `overlay` against the original at every formal point of the
    design, each in a folder of its own below `folder`."""
    if why := unsupported(design):
        return ProofResult(NOT_PROVED, why)
    if not design.formal_points:
        return ProofResult(NOT_PROVED, f"{dut} names no [formal] points")
    shown = []
    for n, params in design.formal_points:
        at = _point(n, params)
        spec = formal_equiv.EquivSpec(dut, str(overlay), n, params, timeout_s=timeout_s)
        try:
            v = formal_equiv.run(spec, folder / at.replace(", ", "-").replace("=", ""))
        except ConfigError as exc:
            return ProofResult(NOT_PROVED, f"at {at}: {exc}")
        if v.refused:  # different: the mutant's copy does not elaborate here
            return ProofResult(DIFFERENT, f"at {at}: {v.message}", point=(n, params))
        if v.status == "different":
            where = f"at {at} an equivalence check tells them apart within {v.depth} cycles"
            if v.vector is None:
                return ProofResult(DIFFERENT, f"{where}: {v.message} (trace {v.trace})",
                                   point=(n, params))
            return ProofResult(DIFFERENT, f"{where}: distinguishing input {v.vector}",
                               str(v.vector), (n, params))
        if v.status != "equivalent":
            return ProofResult(NOT_PROVED, f"at {at}: {v.message}")
        shown.append(f"{at} ({ALL_TIME} k-induction to {v.depth} cycles with "
                     f"{v.equalities} register equalities, {v.seconds:.0f} s)" if v.unbounded
                     else f"{at} ({v.depth} cycles, {v.seconds:.0f} s)")
    return ProofResult(PROVED, f"{PROVED_TEXT}, under any loader stimulus and "
                               "operands, on every output and observed register, at "
                               + "; ".join(shown))
