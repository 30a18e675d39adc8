"""The model of a design that has no bit-accurate model of its own (its descriptor's
`[model] generic = true`, e.g. a third-party core): P from the reference of what it computes,
its cycles from the descriptor's `cycles`, no redundant S, C and no table-address histogram.
The scoreboard then checks every P against gmpy2 and every cycle count against the
descriptor; what it cannot check is the core's inside."""

from __future__ import annotations

from montverif.models import ref
from montverif.models.mont import validate
from montverif.models.result import Result
from montverif.spec.design import Design


def model(x: int, y: int, m: int, n: int, *, design: Design, **params: int) -> Result:
    """One operation of `design`: X*Y*2^-r mod M (kind mont) or X*Y mod M (kind inter)."""
    validate(x, y, m, n)
    if design.kind == "mont":
        p = ref.mont_product(x, y, m, design.r_bits_at(n, params))
    else:
        p = ref.inter_product(x, y, m)
    cycles = design.cycles_at(n, params) or 0
    return Result(design.name, n, p, None, None, cycles, {})
