"""Stimulus steering for coverage closure: biased operand generation aimed at coverage holes.

`make closure` (regress/coverage/closure.py) turns the uncovered bins of a DUT into targets and
passes
them to the simulation in the environment variable MV_BIAS (JSON):

    {"p": 0.8,          # share of random operations that are steered (the rest stay random)
     "tries": 64,       # candidates per steered operation, checked against the model (1..10000)
     "targets": [       # one target per hole; a steered operation picks one at random
        {"m": "short", "sub": true},     # modulus class and final subtraction taken
        {"x": "one"}, {"y": "m_minus_1"}, # operand classes (verif/env/coverage.py)
        {"lut": [5, 7]}]}                # hit one of these table/selection addresses

Classes are drawn directly; `sub` and `lut` are checked on candidates with the design's
bit-accurate model (the first candidate that meets the target is used, else the last one).
For a Montgomery design (R = 2^r) every other candidate of a `sub: true` target is made so
that the sum before the final subtraction is M + k (`above_modulus`): a corner that random
operands reach about once in 2^(r-n) operations (mont_dual at N = 163: 2^-13) is then hit
at once. Without MV_BIAS nothing changes: RandomSeq draws exactly what it drew before.
A key given twice in one object (which one was meant?) is refused, as in a vector file.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from math import gcd

from montverif.host import environment
from montverif.models.result import ModelInputError, Result
from montverif.spec.bounds import Bound
from montverif.verif.operands import M_CLASSES, X_CLASSES

ENV = environment.BIAS.name
TRIES = Bound(1, 10_000)  # a steered operation's candidates, each run through the model
TARGET_KEYS = ("x", "y", "m", "sub", "lut")
Model = Callable[[int, int, int], Result]
Operands = tuple[int, int, int]


class BiasError(ValueError):
    """MV_BIAS cannot be used (one-line message)."""


def _once(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object whose keys are each given once."""
    keys = [k for k, _ in pairs]
    if twice := sorted({k for k in keys if keys.count(k) > 1}):
        raise BiasError(f"{ENV}: key {', '.join(map(repr, twice))} given twice in one object")
    return dict(pairs)


@dataclass(frozen=True)
class Target:
    x: str | None = None
    y: str | None = None
    m: str | None = None
    sub: bool | None = None
    lut: tuple[int, ...] = ()

    @property
    def needs_model(self) -> bool:
        return self.sub is not None or bool(self.lut)


@dataclass(frozen=True)
class Bias:
    targets: tuple[Target, ...]
    p: float = 0.8
    tries: int = 64
    _rr: list[int] = field(default_factory=lambda: [0], compare=False)

    @staticmethod
    def parse(text: str) -> Bias:
        try:
            raw = json.loads(text, object_pairs_hook=_once)
        except BiasError:
            raise
        except ValueError as exc:
            raise BiasError(f"{ENV} is not JSON: {exc}") from None
        if not isinstance(raw, dict) or not isinstance(raw.get("targets"), list):
            raise BiasError(f"{ENV}: expected {{\"targets\": [...], \"p\": .., \"tries\": ..}}")
        targets = []
        for t in raw["targets"]:
            if not isinstance(t, dict) or set(t) - set(TARGET_KEYS):
                raise BiasError(f"{ENV}: a target takes {', '.join(TARGET_KEYS)} (got {t!r})")
            for k, known in (("x", X_CLASSES), ("y", X_CLASSES), ("m", M_CLASSES)):
                if k in t and t[k] not in known:
                    raise BiasError(f"{ENV}: unknown {k} class {t[k]!r} (known: "
                                    f"{', '.join(known)})")
            lut = t.get("lut", [])
            if not isinstance(lut, list) or not all(isinstance(a, int) for a in lut):
                raise BiasError(f"{ENV}: lut must be a list of addresses (got {lut!r})")
            targets.append(Target(t.get("x"), t.get("y"), t.get("m"),
                                  None if t.get("sub") is None else bool(t["sub"]), tuple(lut)))
        p, tries = raw.get("p", 0.8), raw.get("tries", 64)
        if not isinstance(p, int | float) or not 0 <= p <= 1:
            raise BiasError(f"{ENV}: p must be 0..1 (got {p!r})")
        if not TRIES.holds(tries):
            raise BiasError(f"{ENV}: tries {TRIES.message(tries)}")
        return Bias(tuple(targets), float(p), tries)

    @staticmethod
    def from_env() -> Bias | None:
        return Bias.from_text(environment.BIAS.get())

    @staticmethod
    def from_text(text: str) -> Bias | None:
        """A run's steering as its configuration gives it (RunConfig.bias): None when empty
        or without targets."""
        if not text.strip():
            return None
        bias = Bias.parse(text.strip())
        return bias if bias.targets else None

    def to_json(self) -> str:
        targets = [{k: v for k, v in (("x", t.x), ("y", t.y), ("m", t.m), ("sub", t.sub),
                                      ("lut", list(t.lut))) if v not in (None, [])}
                   for t in self.targets]
        return json.dumps({"p": self.p, "tries": self.tries, "targets": targets})

    # --- generation -----------------------------------------------------------------------
    def steer(self, rng: random.Random) -> bool:
        """Whether the next operation is steered (consumes one random number)."""
        return rng.random() < self.p

    def operands(self, rng: random.Random, n: int, model: Model | None,
                 fallback: Callable[[], int], r_bits: int | None = None) -> Operands:
        """Operands aimed at one target (targets taken in turn); `fallback` draws a random
        modulus when the target does not name a class; `r_bits`: a Montgomery design's
        R = 2^r_bits, for the candidates made to take the final subtraction."""
        target = self.targets[self._rr[0] % len(self.targets)]
        self._rr[0] += 1
        ops: Operands = (0, 0, 1)
        construct = (target.sub is True and target.x is None and target.y is None
                     and r_bits is not None and model is not None)
        for i in range(self.tries if target.needs_model and model is not None else 1):
            ops = draw(target, rng, n, fallback)
            if construct and i % 2 and r_bits is not None \
                    and (xy := above_modulus(ops[2], rng, r_bits)) is not None:
                ops = (*xy, ops[2])
            if model is None or not target.needs_model or _meets(target, model, ops):
                break
        return ops


def modulus(cls: str, rng: random.Random, n: int) -> int:
    """An odd modulus of class `cls` (verif.operands.modulus_class)."""
    if cls == "pow2_plus_1":
        return (1 << (n - 1)) + 1
    if cls == "all_ones":
        return (1 << n) - 1
    if cls == "top_bit":
        while True:
            m = rng.getrandbits(n - 1) | (1 << (n - 1)) | 1
            if m not in ((1 << (n - 1)) + 1, (1 << n) - 1):
                return m
    # short: fewer than n bits, half the time the longest (where the final subtraction lives)
    bits = n - 1 if rng.random() < 0.5 else rng.randint(2, n - 1)
    return rng.getrandbits(bits - 1) | (1 << (bits - 1)) | 1


def operand(cls: str | None, rng: random.Random, n: int, m: int, other: int | None) -> int:
    """A value below m of class `cls` (verif.operands.operand_class), where m allows."""
    if cls == "zero":
        return 0
    if cls == "one":
        return 1 % m
    if cls == "m_minus_1":
        return m - 1
    if cls == "equal_other" and other is not None:
        return other
    half = n // 2
    if cls == "short" and m > 4:
        return rng.randint(2, min(m - 2, (1 << half) - 1))
    if cls == "wide" and m - 2 > 1 << half:
        return rng.randint(1 << half, m - 2)
    return rng.randrange(m)


def draw(target: Target, rng: random.Random, n: int, fallback: Callable[[], int]) -> Operands:
    m = modulus(target.m, rng, n) if target.m else fallback()
    y = operand(target.y, rng, n, m, None)
    x = operand(target.x, rng, n, m, y)
    if target.y == "equal_other":
        y = x
    return x, y, m


def small_factor(m: int) -> int:
    """The smallest odd factor of m below min(m, 64) (a prime), or 0."""
    return next((d for d in range(3, min(m, 64), 2) if m % d == 0), 0)


def boundary_operands(model: Model, rng: random.Random, modulus: Callable[[], int],
                      tries: int, per_event: int = 1) -> list[Operands]:
    """Operands at the final reductions' bounds, found with the bit-accurate model: each
    candidate is kept while one of its boundary events (Result.boundary_events) has fewer
    than `per_event` operations yet. A third of the candidates have X * Y = -1 mod M (the
    result M - 1), a third, under a composite M = f * g, X = f * i and Y = g * j, so that
    X * Y = 0 mod M and the redundant sum before the final reduction is an exact multiple
    of M (inter_csa's S + C = 8M' comes only from these), the rest are random.
    CornerTest uses it at the run's width, the mutation flow's equivalence runs at N = 8."""
    counts: dict[str, int] = {}
    out: list[Operands] = []
    for _ in range(tries):
        m = modulus()
        x = rng.randrange(1, m) if m > 1 else 0
        kind = rng.randrange(3)
        if kind == 0 and (f := small_factor(m)):
            x, y = f * rng.randrange(1, m // f), (m // f) * rng.randrange(1, f)
        elif kind == 1 and gcd(x, m) == 1:
            y = (-pow(x, -1, m)) % m
        else:
            y = rng.randrange(m)
        try:
            events = model(x, y, m).boundary_events(m)
        except (ModelInputError, AssertionError, TypeError):
            continue
        if any(counts.get(e, 0) < per_event for e in events):
            for e in events:
                counts[e] = counts.get(e, 0) + 1
            out.append((x, y, m))
    return out


def above_modulus(m: int, rng: random.Random, r_bits: int) -> tuple[int, int] | None:
    """X, Y < M with X * Y = t * M + k * R (R = 2^r_bits, k in 1..3, t < Y), or None. Then
    XY / M mod R = t, so Montgomery's quotient is Q = R - t and the sum before the final
    subtraction S = (XY + Q M) / R = M + k: the subtraction is taken. Y is random (prime to
    M), t = -k R / M mod Y makes Y divide t M + k R."""
    if m < 3:
        return None
    big = 1 << r_bits
    for _ in range(8):
        y = rng.randrange(2, m)
        if gcd(y, m) != 1:
            continue
        k = rng.randint(1, 3)
        t = (-k * big * pow(m, -1, y)) % y
        x = (t * m + k * big) // y
        if x < m:
            return x, y
    return None


def _meets(target: Target, model: Model, ops: Operands) -> bool:
    """Whether the candidate meets the target; one the model refuses does not."""
    try:
        return meets(target, model(*ops), ops[2])
    except ModelInputError:
        return False


def meets(target: Target, res: Result, m: int) -> bool:
    if target.sub is not None and (before := res.before_sub) is not None:
        if (before >= m) != target.sub:
            return False
    return not target.lut or any(res.lut.get(a, 0) for a in target.lut)
