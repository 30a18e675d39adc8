"""Vector files: JSON with a top-level `vectors` list of objects with x, y, m.

Values are decimal or 0x-hex strings (JSON integers are accepted too); other keys are
ignored. Every problem is reported as one VectorError line naming the file and the entry.
"""

from __future__ import annotations

import json
from pathlib import Path

from models.numbers import parse_int
from models.result import ModelInputError


class VectorError(ValueError):
    pass


def load_vectors(path: Path, n: int, keys: tuple[str, ...] = ("x", "y", "m")
                 ) -> list[tuple[int, ...]]:
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise VectorError(f"{path}: no such vector file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise VectorError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("vectors"), list):
        raise VectorError(f"{path}: expected an object with a 'vectors' list")
    if not raw["vectors"]:
        raise VectorError(f"{path}: the 'vectors' list is empty")
    out: list[tuple[int, ...]] = []
    for i, vec in enumerate(raw["vectors"]):
        where = f"{path}: vectors[{i}]"
        if not isinstance(vec, dict):
            raise VectorError(f"{where}: expected an object with keys {', '.join(keys)}")
        values = []
        for key in keys:
            if key not in vec:
                raise VectorError(f"{where}: missing '{key}'")
            text = vec[key]
            if isinstance(text, bool) or not isinstance(text, (str, int)):
                raise VectorError(f"{where}.{key}: expected a decimal or 0x-hex string")
            try:
                value = text if isinstance(text, int) else parse_int(text)
            except ModelInputError as exc:
                raise VectorError(f"{where}.{key}: {exc}") from None
            if value < 0 or value >= 1 << n:
                raise VectorError(f"{where}.{key}: does not fit in N={n} bits")
            values.append(value)
        if keys == ("x", "y", "m"):
            _check_operands(where, *values)
        out.append(tuple(values))
    return out


def _check_operands(where: str, x: int, y: int, m: int) -> None:
    """The multipliers need an odd modulus and X, Y < M: refuse a vector that breaks it."""
    if m % 2 == 0:
        raise VectorError(f"{where}.m: the modulus must be odd (got 0x{m:x})")
    if x >= m or y >= m:
        raise VectorError(f"{where}: X and Y must be below M")
