"""Which RTL a design's campaign mutates, its candidate sites, and the mutants drawn from them.

A mutant's id is its site's index in the design's full list of sites: stable while the
sources are unchanged.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host.paths import ROOT, source_name
from montverif.models.registry import get_algo
from montverif.regress.mutate.svmut import Site, candidates, enclosing_blocks
from montverif.spec.design import Design


@dataclass
class Mutant:
    id: int
    site: Site
    status: str = "pending"
    reason: str = ""
    wall_s: float = 0.0
    log_dir: str = ""
    build: str = ""  # "shared" (a meta-mutant build, selected at run time) or "own"
    # the parameter points (points.Point.label) it survived, then was shown equivalent at,
    # and those it was not simulated at, each with the reason (regress/mutate/points.py)
    points: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    # an equivalent mutant: "proved" (SBY, regress/mutate/prove.py), "simulated", or
    # "elaborated" (its design is the original's at every point: gencond.py)
    proof: str = ""

    @property
    def where(self) -> str:
        return f"{self.site.file}:{self.site.line}"

    def record(self) -> dict[str, object]:
        return {"id": self.id, "file": self.site.file, "line": self.site.line,
                "where": self.where, "kind": self.site.kind, "change": self.site.description,
                "status": self.status, "reason": self.reason, "wall_s": round(self.wall_s, 2),
                "log_dir": self.log_dir, "build": self.build, "points": self.points,
                "unchecked": self.unchecked, "proof": self.proof}


def core_sources(design: Design) -> list[Path]:
    """The design's own RTL (its descriptor's `rtl`) and the shared RTL it owns (`owns`: each
    shared module is owned by exactly one of the designs that instantiate it); never the
    generated top, the loader, the shared observation modules or the RTL of another design it
    instantiates (the RSA core's multipliers are mutated in their own designs' campaigns):
    every file belongs to exactly one campaign."""
    return [*design.rtl, *design.owns]


def mutant_params(design: Design, site: Site) -> tuple[tuple[str, int], ...]:
    """Build parameters that elaborate the site: a site inside a generate block that only
    some parameter values build (rsa_mont_mult.sv's g_mwrkmm) gets those values."""
    return _block_params(design.model, site.file, site.start)


def block_selector(design: Design, site: Site) -> tuple[str, int] | None:
    """The parameter and value that choose the generate block the site is in (the first
    entry `block_params` gives, e.g. ("Mult", 4) for g_mwrkmm), or None outside one."""
    return _block(design.model, site.file, site.start)[1]


def _block_params(model: str, file: str, start: int) -> tuple[tuple[str, int], ...]:
    return _block(model, file, start)[0]


@functools.cache  # asked for every run of a mutant: the file is scanned once per site
def _block(model: str, file: str, start: int
           ) -> tuple[tuple[tuple[str, int], ...], tuple[str, int] | None]:
    block_params = get_algo(model).block_params
    for label in reversed(enclosing_blocks((ROOT / file).read_text(), start)):
        if (params := block_params(label)) is not None:
            return tuple(sorted(params.items())), next(iter(params.items()))
    return (), None


def all_sites(design: Design) -> list[Site]:
    sites: list[Site] = []
    for src in core_sources(design):
        sites += candidates(source_name(src), src.read_text())
    return sites


def select(sites: list[Site], count: int, seed: int) -> list[Mutant]:
    """`count` mutants drawn from all sites (all of them if fewer), deterministic in seed;
    a mutant's id is its site's index in the full list."""
    ids = sorted(random.Random(seed).sample(range(len(sites)), min(count, len(sites))))
    return [Mutant(i, sites[i]) for i in ids]
