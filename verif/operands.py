"""Operand corner classes: what the coverage bins of the operands and the modulus name, and
what coverage steering (verif/steer.py) aims at."""

from __future__ import annotations

X_CLASSES = ["zero", "one", "m_minus_1", "equal_other", "short", "wide"]


M_CLASSES = ["pow2_plus_1", "all_ones", "top_bit", "short"]


def operand_class(v: int, other: int, m: int, n: int) -> str:
    if v == 0:
        return "zero"
    if v == 1:
        return "one"
    if v == m - 1:
        return "m_minus_1"
    if v == other:
        return "equal_other"
    return "short" if v.bit_length() <= n // 2 else "wide"


def modulus_class(m: int, n: int) -> str:
    if m == (1 << (n - 1)) + 1:
        return "pow2_plus_1"
    if m == (1 << n) - 1:
        return "all_ones"
    return "top_bit" if m >> (n - 1) else "short"
