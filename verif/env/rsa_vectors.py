"""RSA vector files: JSON with a top-level `vectors` list of objects with msg, exp, mod.

Values are decimal or 0x-hex strings (JSON integers are accepted too); other keys are
ignored, except `field` (the core has no field bit) and `params`: an object of build
parameters (`{"ConstTime": 0}`) that limits the vector to builds with those values, for a
vector that tells a mutant apart only there (the directed vectors, verif/directed/). Every
problem is one VectorError line naming the file and the entry; the file is read as every
vector file is (montverif.verif.vectors.read_json: a regular file of at most 64 MiB). A
message about `exp` never quotes it: E is the core's secret operand (its descriptor's
`[operands] secret`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from montverif.verif.vectors import VectorError, applies, entries, parse_value, vector_field

KEYS = ("msg", "exp", "mod")
# the register each key loads (the descriptor's operands X, E, M): `secret` names registers
REGISTERS = {"msg": "X", "exp": "E", "mod": "M"}


def load_rsa_vectors(path: Path, n: int, params: Mapping[str, int] | None = None,
                     secret: tuple[str, ...] = ("E",)) -> list[tuple[int, int, int]]:
    """(msg, exp, mod) tuples, in the core's operand order X, E, M; with `params` (the
    build's), only the vectors whose own `params` it matches. A message about a key whose
    register is `secret` (the descriptor's; E unless told) never quotes its value."""
    hidden = tuple(k for k, reg in REGISTERS.items() if reg in secret)
    out: list[tuple[int, int, int]] = []
    for where, vec in entries(Path(path), KEYS):
        vector_field(where, vec, has_field=False)
        values: list[int] = []
        for key in KEYS:
            if key not in vec:
                raise VectorError(f"{where}: missing '{key}'")
            values.append(parse_value(where, key, vec[key], n, hidden))
        msg, _, mod = values
        if mod % 2 == 0:
            raise VectorError(f"{where}.mod: the modulus must be odd (got 0x{mod:x})")
        if msg >= mod:
            raise VectorError(f"{where}: msg must be below mod")
        if applies(where, vec, params):
            out.append((values[0], values[1], values[2]))
    return out
