"""What each streaming test offers: operands drawn in the design's operand domain, and the
idle cycles before each operation and the ready-low cycles before each result that make the
traffic (full rate, idle gaps, back-pressure)."""

from __future__ import annotations

import random
from collections.abc import Callable

from montverif.spec.design import Design
from montverif.verif.stream.engine import GAP_MAX, StreamOp

Traffic = Callable[[random.Random, int], tuple[int, int]]  # (rng, index) -> (gap, hold)


def modulus(rng: random.Random, n: int) -> int:
    """An odd modulus of n bits (its top bit set), now and then a shorter one."""
    if n > 4 and rng.random() < 0.15:
        return rng.randrange(3, 1 << (n // 2 + 1)) | 1
    return rng.randrange(1 << (n - 1), 1 << n) | 1


def operand(rng: random.Random, design: Design, reg: str, m: int, n: int) -> int:
    """A value of the register's domain: below M, or any n-bit value."""
    high = m if design.domain.get(reg, "below_m") == "below_m" else 1 << n
    return rng.randrange(high)


def corner_operands(rng: random.Random, design: Design, n: int) -> list[tuple[int, int, int]]:
    """Every class of the coverage bins: moduli 2^(n-1) + 1, 2^n - 1, top bit, short; each
    operand 0, 1, M - 1, equal to the other, short, wide."""
    moduli = [(1 << (n - 1)) + 1, (1 << n) - 1, modulus(rng, n)]
    if n > 4:
        moduli.append(rng.randrange(3, 1 << (n // 2)) | 1)
    out = []
    for m in moduli:
        wide = rng.randrange(m // 2, m) if m > 4 else m - 1
        short = rng.randrange(2, max(3, 1 << (n // 2))) % m
        values = [0, 1, m - 1, wide, short]
        for x in values:
            for y in values:
                out.append((x, y, m))
        out.append((short, short, m))  # equal operands
    return out


def full_rate(rng: random.Random, index: int) -> tuple[int, int]:
    return 0, 0


def random_traffic(rng: random.Random, index: int) -> tuple[int, int]:
    """Mostly back to back; now and then a few idle cycles, a long gap, a held result."""
    def draw() -> int:
        r = rng.random()
        return 0 if r < 0.7 else rng.randint(1, 3) if r < 0.93 else rng.randint(4, GAP_MAX)
    return draw(), draw()


def back_pressure(rng: random.Random, index: int) -> tuple[int, int]:
    """Operations at full rate, results held back often: the pipeline stalls while full."""
    return 0, (rng.randint(1, GAP_MAX) if rng.random() < 0.3 else 0)


def ops(values: list[tuple[int, int, int]], traffic: Traffic, rng: random.Random,
        tag_w: int, first: int = 0) -> list[StreamOp]:
    out = []
    for k, (x, y, m) in enumerate(values):
        gap, hold = traffic(rng, first + k)
        out.append(StreamOp(x, y, m, (first + k) % (1 << tag_w), gap, hold))
    return out
