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
- where the RTL elaborates something differently with N at the same parameters (the
  model's `shape`: mwr2mm's ring has a delay line of e - 2P registers, none at the smallest
  legal width and some at every width the lists run), a point is simulated once for each
  shape the lists' own widths build, at the smallest legal width that builds it;
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

from montverif.host.errors import ConfigError
from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress.regression.lists import load_lists
from montverif.spec.design import Design

Params = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class ParamPoint:
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
    return tuple(sorted(list_widths(dut)))


@functools.cache
def list_widths(dut: str) -> dict[Params, tuple[int, ...]]:
    """Each distinct parameter point (beyond N) the lists run for `dut`, with the widths
    they run it at."""
    found: dict[Params, set[int]] = {}
    for tlist in load_lists().values():
        for entry in tlist.entries:
            if entry.dut == dut:
                for params in entry.params:
                    found.setdefault(params, set()).update(entry.widths)
    return {params: tuple(sorted(widths)) for params, widths in found.items()}


def shape(design: Design, n: int, params: Params) -> tuple[int, ...] | None:
    """What the RTL elaborates at width n beyond the parameters (the model's `shape`), or
    None where the parameters are illegal at n."""
    values = resolved(design, n, dict(params))
    return None if values is None else get_algo(design.model).shape(n, **dict(values))


def _shape_widths(dut: str, design: Design, params: Params) -> tuple[int, ...]:
    """The smallest legal width of `params` and, for each other shape the lists' widths
    build with them, the smallest width that builds it."""
    key = (dut, design.name, params)
    if key not in _SHAPE_WIDTHS:
        _SHAPE_WIDTHS[key] = _find_shape_widths(dut, design, params)
    return _SHAPE_WIDTHS[key]


_SHAPE_WIDTHS: dict[tuple[str, str, Params], tuple[int, ...]] = {}


def _find_shape_widths(dut: str, design: Design, params: Params) -> tuple[int, ...]:
    width = smallest_n(design, params)
    if width is None:
        return ()
    wanted = {shape(design, w, params) for w in list_widths(dut).get(params, ())} - {None}
    found = {shape(design, width, params): width}
    for w in range(width + 1, max((*list_widths(dut).get(params, ()), width)) + 1):
        if not wanted - found.keys():
            break
        if (s := shape(design, w, params)) in wanted and s not in found:
            found[s] = w
    return tuple(sorted(found.values()))


def campaign_points(dut: str, design: Design, n: int, block: Params = (),
                    selector: tuple[str, int] | None = None) -> list[ParamPoint]:
    """The campaign's own point (n, block) first, then every other list point that builds
    the same generate block (the same `selector` value, if the site has one), each at its
    smallest legal width (one point per distinct set of resolved parameters), then for each
    shape the lists build that none of these does, the narrowest point that builds it;
    narrowest first."""
    own = ParamPoint(n, block)
    seen = {resolved(design, n, dict(block))}
    points = [own]
    extra: dict[tuple[int, ...], ParamPoint] = {}
    for params in list_params(dut):
        full = dict(params)
        if selector is not None and \
                full.get(selector[0], _default(design, n, selector[0])) != selector[1]:
            continue
        widths = _shape_widths(dut, design, params)
        if widths and (values := resolved(design, widths[0], full)) not in seen:
            seen.add(values)
            points.append(ParamPoint(widths[0], params))
        for width in widths[1:]:
            s = shape(design, width, params) or ()
            extra[s] = min(extra.get(s, ParamPoint(width, params)), ParamPoint(width, params),
                           key=lambda p: (p.n, p.params))
    built = {shape(design, p.n, p.params) for p in points}
    points += [p for s, p in extra.items() if s not in built]
    return [own, *sorted(points[1:], key=lambda p: (p.n, p.params))]


def _default(design: Design, n: int, name: str) -> int | None:
    values = resolved(design, n, {})
    return None if values is None else dict(values).get(name)
