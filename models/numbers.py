"""Parsing of integer operands written in decimal or 0x-hex."""

from __future__ import annotations

import re

import gmpy2

from montverif.models.result import ModelInputError

_DEC = re.compile(r"[0-9]+", re.ASCII)
_HEX = re.compile(r"0[xX]([0-9a-fA-F]+)", re.ASCII)


def parse_int(text: str) -> int:
    """Parse a non-negative decimal or 0x/0X-hex integer; surrounding whitespace ok.

    Raises ModelInputError for anything else (signs, underscores, other bases...).
    """
    if not isinstance(text, str):
        raise ModelInputError(f"expected a string, got {type(text).__name__}")
    s = text.strip()
    hexm = _HEX.fullmatch(s)
    if hexm is not None:
        return int(gmpy2.mpz(hexm.group(1), 16))
    if _DEC.fullmatch(s) is not None:
        return int(gmpy2.mpz(s, 10))
    shown = s if len(s) <= 40 else s[:37] + "..."
    raise ModelInputError(
        f"cannot parse integer {shown!r} (expected decimal or 0x-hex)"
    )
