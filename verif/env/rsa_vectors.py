"""RSA vector files: JSON with a top-level `vectors` list of objects with msg, exp, mod.

Values are decimal or 0x-hex strings (JSON integers are accepted too); other keys are
ignored, except `field` (the core has no field bit) and `params`: an object of build
parameters (`{"ConstTime": 0}`) that limits the vector to builds with those values, for a
vector that tells a mutant apart only there (the directed vectors, verif/directed/). Every
problem is one VectorError line naming the file and the entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from montverif.models.numbers import parse_int
from montverif.models.result import ModelInputError
from montverif.verif.vectors import VectorError, applies, vector_field

KEYS = ("msg", "exp", "mod")


def load_rsa_vectors(path: Path, n: int,
                     params: Mapping[str, int] | None = None) -> list[tuple[int, int, int]]:
    """(msg, exp, mod) tuples, in the core's operand order X, E, M; with `params` (the
    build's), only the vectors whose own `params` it matches."""
    try:
        raw = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise VectorError(f"{path}: no such vector file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise VectorError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("vectors"), list):
        raise VectorError(f"{path}: expected an object with a 'vectors' list")
    if not raw["vectors"]:
        raise VectorError(f"{path}: the 'vectors' list is empty")
    out: list[tuple[int, int, int]] = []
    for i, vec in enumerate(raw["vectors"]):
        where = f"{path}: vectors[{i}]"
        if not isinstance(vec, dict):
            raise VectorError(f"{where}: expected an object with keys {', '.join(KEYS)}")
        vector_field(where, vec, has_field=False)
        values: list[int] = []
        for key in KEYS:
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
        msg, _, mod = values
        if mod % 2 == 0:
            raise VectorError(f"{where}.mod: the modulus must be odd (got 0x{mod:x})")
        if msg >= mod:
            raise VectorError(f"{where}: msg must be below mod")
        if applies(where, vec, params):
            out.append((values[0], values[1], values[2]))
    return out
