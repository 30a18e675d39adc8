"""A design's operand domain and promise, checked exhaustively at a small width
(`montverif models domain DESIGN --n N`, docs/design-notes.md "Operand domains").

For every odd M < 2^n and every operand value below 2^n (a carry-save operand: every value
of its pair below 2^(n+1) - 1, split into two near-equal halves), the design's model (held
to its descriptor's domain by montverif.models.registry) must refuse the operands outside
the domain and, for every one inside, return P equal to the reference of what the design
computes and keep the relations its descriptor promises (`[operands] promise`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from montverif.models.registry import AlgoInfo, matches_reference
from montverif.models.result import ModelInputError

MAX_N = 10  # the operations grow as 2^(3n)
SHOWN = 5  # failures kept per survey


@dataclass
class Survey:
    """What one exhaustive run found."""

    design: str
    n: int
    params: dict[str, int]
    inside: int = 0  # operand tuples in the domain (each run and checked)
    beyond_m: dict[str, int] = field(default_factory=dict)  # of those, operand >= M, by name
    refused: int = 0  # tuples outside the domain, refused (all of them must be)
    failures: list[str] = field(default_factory=list)  # the first few, described
    failed: int = 0
    # the largest (value before the final reduction) / M; None: the model reports none
    most: Fraction | None = None

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def line(self) -> str:
        beyond = ", ".join(f"{k} >= M in {v}" for k, v in sorted(self.beyond_m.items())) or "none"
        params = "".join(f" {k}={v}" for k, v in self.params.items())
        most = "" if self.most is None else \
            f"; value before the final reduction up to {float(self.most):.3f} M"
        head = (f"{'OK' if self.ok else 'FAILED'} {self.design} n={self.n}{params}: "
                f"{self.inside} operations in the domain ({beyond}), {self.refused} outside "
                f"refused{most}")
        return head + "".join(f"\n  {f}" for f in self.failures)


def _values(info: AlgoInfo, n: int) -> Iterator[tuple[dict[str, int], tuple[int, ...]]]:
    """(register values, the model's operand arguments) for every modulus and operand."""
    d = info.design
    top = (1 << n) - 1
    groups = {g[0]: g for g in d.carry_save_operands}
    seconds = {r for g in d.carry_save_operands for r in g[1:]}
    bases = [r for r in d.operands[:-1] if r not in seconds]
    for m in range(1, 1 << n, 2):
        ranges = [range(2 * top + 1) if r in groups else range(top + 1) for r in bases]
        for combo in itertools.product(*ranges):
            values = {d.modulus: m}
            for reg, v in zip(bases, combo, strict=True):
                if reg in groups:
                    first, *rest = groups[reg]
                    values[first], values[rest[0]] = v - v // 2, v // 2
                    values |= dict.fromkeys(rest[1:], 0)
                else:
                    values[reg] = v
            yield values, tuple(values[r] for r in d.operands)


def survey(info: AlgoInfo, n: int, params: dict[str, int]) -> Survey:
    """Run every operation of width n (n <= MAX_N) through the design's model."""
    d = info.design
    func = info.model(params)
    out = Survey(d.name, n, params)
    groups = {g[0]: g for g in d.carry_save_operands}
    seconds = {r for g in d.carry_save_operands for r in g[1:]}
    fields = (0, 1) if info.has_field else (0,)

    def fail(what: str) -> None:
        out.failed += 1
        if len(out.failures) < SHOWN:
            out.failures.append(what)

    for values, args in _values(info, n):
        m = values[d.modulus]
        inside = not d.out_of_range(values)
        shown = ", ".join(f"{k.lower()}={v}" for k, v in values.items())
        for fld in fields:
            kwargs = {"field": fld} if info.has_field else {}
            try:
                res = func(*args, n, **kwargs)
            except ModelInputError as exc:
                if inside:
                    fail(f"{shown}: refused in the domain ({exc})")
                else:
                    out.refused += 1
                continue
            except AssertionError as exc:
                fail(f"{shown}: {exc}")
                continue
            if not inside:
                fail(f"{shown}: accepted outside the domain")
                continue
            out.inside += 1
            for reg in (r for r in d.operands[:-1] if r not in seconds):
                if sum(values[h] for h in groups.get(reg, (reg,))) >= m:
                    out.beyond_m[reg] = out.beyond_m.get(reg, 0) + 1
            # (the promise: checked by the model's registry entry, an AssertionError above)
            if not matches_reference(info, res.p, *args, n, field=fld, **params):
                fail(f"{shown}: P = {res.p} is not the reference's")
            if res.before_sub is not None:
                out.most = max(out.most or Fraction(0), Fraction(res.before_sub, m))
    return out
