"""A descriptor's tables as typed sections, each read from its table once the schema has
checked it (montverif.spec.schema): what a consumer of the table reads, by name, instead of
keys of a mapping. The Design (montverif.spec.design) holds them."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_GOAL = 100.0  # percent of a design's bins when its [coverage] names no goal


@dataclass(frozen=True)
class CoverageGoal:
    """[coverage]: `goal`, the percent of the design's bins its regressions must cover;
    `waive`, bins the design cannot reach, as patterns relative to it (fnmatch, e.g.
    "final_sub:taken", "cross.sub_x_m:(True, *)"), left out of the total and listed as
    waived; `waive_reason`, why."""

    goal: float = DEFAULT_GOAL
    waive: tuple[str, ...] = ()
    waive_reason: str = ""

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> CoverageGoal:
        """The section from its table, as the schema has checked it."""
        return cls(float(table.get("goal", DEFAULT_GOAL)), tuple(table.get("waive", ())),
                   str(table.get("waive_reason", "")))

    def waived(self, dut: str, bin_name: str) -> bool:
        rel = bin_name.removeprefix(dut + ".")
        return any(fnmatch.fnmatchcase(rel, pat) for pat in self.waive)
