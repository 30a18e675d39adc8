"""The mutant a run selects in a mutation campaign's meta-mutant model (regress/mutate/meta.py):
the model's guards read one variable of the design's top, which the plusarg +MV_MUTANT sets
at time 0. A run whose configuration names a mutant writes it there before each test's reset,
so that the runs of several mutants can follow one another in one simulator process
(verif/batch.py), each test of each run with its own mutant from its first clock edge."""

from __future__ import annotations

from montverif.verif.bus.engine_layout import DUT_INSTANCE
from montverif.verif.bus.handles import Handle
from montverif.verif.config import MUTANT_SELECT, RunConfig


def select_mutant(dut: Handle, cfg: RunConfig) -> None:
    """Set the model's selector to cfg.mutant (nothing to do for a run of another model)."""
    if cfg.mutant is None:
        return
    top = getattr(dut, DUT_INSTANCE) if cfg.bus == "engine" else dut
    getattr(top, MUTANT_SELECT).value = cfg.mutant
