"""The parameter points at which a survivor must be shown equivalent (docs/mutation.md).

A mutant that changes nothing at one parameter point can break another: with mwr2mm's
default single PE the PE chain does not exist, so a mutant of the chain survives there and
is killed at P = 4. A campaign therefore judges every survivor at each parameter point the
design's regression lists run (regress/lists.toml and the `[[lists.*]]` entries of its
descriptor), not only at its own:

- a point is a list entry's parameters beyond N; points whose parameters resolve to the same
  values (defaults filled in) are one point;
- each is simulated at the smallest width N >= the design's `min_n` at which its parameters
  are legal (the model's check decides), so that the runs stay as cheap as the point allows;
- the campaign's own point (its N and the parameters that elaborate the mutant's site)
  comes first;
- a site inside a generate block that only some parameter values build (the RSA core's
  multiplier branches, `block_params`) is judged at the points that build that block: those
  whose value of the block's selector (the first entry `block_params` gives, e.g.
  Mult = mwrkmm for g_mwrkmm) is the block's.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.regression.lists import load_lists
from montverif.spec.design import Design
from montverif.spec.errors import ConfigError

Params = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Point:
    """A width and the parameters beyond it (as a build takes them; () = the defaults)."""

    n: int
    params: Params = ()

    @property
    def label(self) -> str:
        return ", ".join([f"N={self.n}", *(f"{k}={v}" for k, v in self.params)])

    def text(self, design: Design) -> str:
        """The label with a choice's name for its index (Mult=mwrkmm)."""
        return ", ".join([f"N={self.n}",
                          *(f"{k}={design.param_text(k, v)}" for k, v in self.params)])


def resolved(design: Design, n: int, params: Mapping[str, int]) -> Params | None:
    """Every parameter of the design at width n (defaults filled in), or None if illegal."""
    try:
        return tuple(sorted(get_algo(design.model).resolve(n, dict(params)).items()))
    except ModelInputError:
        return None


def smallest_n(design: Design, params: Params) -> int | None:
    """The smallest legal N >= the design's min_n (at these parameters) at which `params`
    are legal, or None."""
    try:
        low = design.min_n_at(dict(params))
    except ConfigError:
        return None
    return next((n for n in range(max(low, 1), design.max_n + 1)
                 if resolved(design, n, dict(params)) is not None), None)


@functools.cache
def list_params(dut: str) -> tuple[Params, ...]:
    """The distinct parameter points (beyond N) of every entry the lists run for `dut`."""
    found: set[Params] = set()
    for tlist in load_lists().values():
        for entry in tlist.entries:
            if entry.dut == dut:
                found.update(entry.params)
    return tuple(sorted(found))


def campaign_points(dut: str, design: Design, n: int, block: Params = (),
                    selector: tuple[str, int] | None = None) -> list[Point]:
    """The campaign's own point (n, block) first, then every other list point that builds
    the same generate block (the same `selector` value, if the site has one), each at its
    smallest legal width, narrowest first; one point per distinct set of resolved
    parameters."""
    own = Point(n, block)
    seen = {resolved(design, n, dict(block))}
    points = [own]
    for params in list_params(dut):
        full = dict(params)
        if selector is not None and \
                full.get(selector[0], _default(design, n, selector[0])) != selector[1]:
            continue
        width = smallest_n(design, params)
        if width is None:
            continue
        values = resolved(design, width, full)
        if values in seen:
            continue
        seen.add(values)
        points.append(Point(width, params))
    return [own, *sorted(points[1:], key=lambda p: (p.n, p.params))]


def _default(design: Design, n: int, name: str) -> int | None:
    values = resolved(design, n, {})
    return None if values is None else dict(values).get(name)
