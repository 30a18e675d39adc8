"""Operands every Montgomery model must refuse, with the one-line message it must give
(x, y, m, n, regular expression): shared by the models' bad-input tests."""

from __future__ import annotations

BAD_INPUTS: list[tuple[object, object, object, object, str]] = [
        (1, 1, 0x10, 8, r"^modulus M must be odd \(got 0x10\)$"),
        (1, 1, 0, 8, "M must be > 0"),
        (1, 1, -3, 8, "M must be > 0"),
        (0, 0, 1, 1, r"^n must be >= 2 \(got 1\)$"),
        (1, 1, 0x101, 8, "M must be < 2\\^n"),
        (0x200, 1, 0x101, 9, "^X must be < 2\\^n"),  # X may be >= M, not wider than n
        (1, 0x200, 0x101, 10, "^Y must be < M"),
        (-1, 1, 7, 8, "X must be >= 0"),
        (1, -1, 7, 8, "Y must be >= 0"),
        (1.0, 1, 7, 8, "X must be an int"),
        (1, 1, 7, True, "n must be an int"),
]
