"""The mutation score, from each mutant's status and how its equivalence was shown
(docs/mutation.md, "The score").

Two figures, side by side while the record of equivalents is proved again (issue 63):

- `value`: killed / (killed + survived), every mutant judged equivalent left out, as the
  campaigns have always reported it, whatever showed the equivalence.
- `proved`: killed / (killed + survived + unproved), where an equivalent counts only when
  a formal verdict backs it (MCY's rule): SBY proved the miter of the original and the
  mutant (proof "proved"), or the mutant elaborates to the original's design at every point
  it was judged at (proof "elaborated": the same netlist). An equivalent judged by
  simulation (exhaustive at a tiny width, random and boundary vectors: proof "simulated")
  counts as a survivor.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from montverif.regress.mutate.prove import PROVED

ELABORATED = "elaborated"  # the mutant's design is the original's at every judged point
SIMULATED = "simulated"  # equal outputs on the vectors at every judged point: no proof
FORMAL_PROOFS = (PROVED, ELABORATED)


@dataclass(frozen=True)
class Score:
    killed: int
    survived: int
    unproved: int  # judged equivalent without a formal verdict (by simulation)

    @property
    def value(self) -> float | None:
        """killed / (killed + survived): equivalents left out (None: nothing to count)."""
        judged = self.killed + self.survived
        return self.killed / judged if judged else None

    @property
    def proved(self) -> float | None:
        """killed / (killed + survived + unproved): only formally shown equivalents left
        out."""
        judged = self.killed + self.survived + self.unproved
        return self.killed / judged if judged else None


def of(verdicts: Iterable[tuple[str, str]]) -> Score:
    """The score of mutants given as (status, proof) pairs."""
    killed = survived = unproved = 0
    for status, proof in verdicts:
        killed += status == "killed"
        survived += status == "survived"
        unproved += status == "equivalent" and proof not in FORMAL_PROOFS
    return Score(killed, survived, unproved)


def percent(value: float | None) -> float | None:
    """A score as the records keep it: percent, two decimals (None stays None)."""
    return None if value is None else round(100 * value, 2)
