"""Table of modelled algorithms and their gmpy2 references."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from models import ref
from models.mont import mont_csa, mont_lut, mont_r2
from models.result import ModelInputError, Result

Kind = Literal["mont", "inter"]
ModelFunc = Callable[[int, int, int, int], Result]


@dataclass(frozen=True)
class AlgoInfo:
    """One modelled algorithm: model function(x, y, m, n) and what it computes."""

    name: str
    func: ModelFunc
    kind: Kind
    has_sc: bool
    has_lut: bool
    summary: str


_ALGO_LIST: tuple[AlgoInfo, ...] = (
    AlgoInfo(
        name="mont_r2",
        func=mont_r2,
        kind="mont",
        has_sc=False,
        has_lut=False,
        summary="Amanor Algorithm 1a: radix-2 Montgomery, carry-propagate adder",
    ),
    AlgoInfo(
        name="mont_csa",
        func=mont_csa,
        kind="mont",
        has_sc=True,
        has_lut=False,
        summary="Amanor Algorithm 1b: fast Montgomery, two CSAs, redundant S/C",
    ),
    AlgoInfo(
        name="mont_lut",
        func=mont_lut,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Amanor Algorithm 3: faster Montgomery, one CSA + 16-entry table "
        "{0,M,Y,Y+M}",
    ),
)

ALGOS: dict[str, AlgoInfo] = {a.name: a for a in _ALGO_LIST}


def get_algo(name: str) -> AlgoInfo:
    """Look up an algorithm by name."""
    try:
        return ALGOS[name]
    except KeyError:
        known = ", ".join(sorted(ALGOS))
        raise ModelInputError(f"unknown algorithm {name!r} (known: {known})") from None


def reference(info: AlgoInfo, x: int, y: int, m: int, n: int) -> int:
    """gmpy2 expected P for the algorithm's kind."""
    if info.kind == "mont":
        return ref.mont_product(x, y, m, n)
    return ref.inter_product(x, y, m)
