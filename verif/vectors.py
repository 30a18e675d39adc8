"""Vector files: JSON with a top-level `vectors` list of objects with x, y, m.

Values are decimal or 0x-hex strings (JSON integers are accepted too); an optional `field`
(0: GF(p), 1: GF(2^n)) is the CTRL.FIELD an operation of a design with a field bit runs in
(random where absent, as every other test draws it); other keys are ignored. Every problem
is reported as one VectorError line naming the file and the entry.
"""

from __future__ import annotations

import json
from pathlib import Path

from montverif.models.numbers import parse_int
from montverif.models.result import ModelInputError


class VectorError(ValueError):
    pass


def load_vectors(path: Path, n: int, operands: tuple[str, ...] = ("X", "Y", "M"),
                 below_modulus: tuple[str, ...] = ("X", "Y"),
                 carry_save: tuple[tuple[str, ...], ...] = (),
                 range_groups: tuple[tuple[str, ...], ...] = ()) -> list[tuple[int, ...]]:
    """Operand tuples in `operands` order; keys are the register names in lower case and the
    modulus is the last operand. Every value fits N bits, the operands of `below_modulus`
    are below M (a design's domain: montverif.spec.design.Design). With carry-save operands
    (groups such as ("X", "X2")), the second halves may be left out (they are 0), and the
    sum of each group of `range_groups` must be below 2M."""
    keys = tuple(r.lower() for r in operands)
    optional = {h.lower() for g in carry_save for h in g[1:]}
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
            if key not in vec and key in optional:
                values.append(0)
                continue
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
        _field(where, vec)
        _check_operands(where, dict(zip(keys, values, strict=True)), keys[-1],
                        tuple(r.lower() for r in below_modulus),
                        tuple(tuple(r.lower() for r in g) for g in range_groups))
        out.append(tuple(values))
    return out


def _field(where: str, vec: dict[str, object]) -> int | None:
    """A vector's `field` (0 or 1), None where it names none."""
    text = vec.get("field")
    if text is None:
        return None
    try:
        if isinstance(text, bool) or not isinstance(text, (str, int)):
            raise ModelInputError("not a number")
        value = text if isinstance(text, int) else parse_int(text)
    except ModelInputError:
        value = -1
    if value not in (0, 1):
        raise VectorError(f"{where}.field: expected 0 (GF(p)) or 1 (GF(2^n)), got {text!r}")
    return value


def vector_fields(path: Path) -> list[int | None]:
    """The `field` of each vector of a file load_vectors took (None where it names none)."""
    raw = json.loads(path.read_text())
    return [_field(f"{path}: vectors[{i}]", vec) for i, vec in enumerate(raw["vectors"])]


def _check_operands(where: str, values: dict[str, int], modulus: str,
                    below: tuple[str, ...], carry_save: tuple[tuple[str, ...], ...] = ()
                    ) -> None:
    """The multipliers need an odd modulus and the operands of their domain: refuse a vector
    outside it (the loader would only flag it)."""
    m = values[modulus]
    if m % 2 == 0:
        raise VectorError(f"{where}.{modulus}: the modulus must be odd (got 0x{m:x})")
    if any(values[k] >= m for k in below):
        raise VectorError(f"{where}: {' and '.join(k.upper() for k in below)} must be below "
                          f"{modulus.upper()}")
    for group in carry_save:
        if sum(values[k] for k in group) >= 2 * m:
            raise VectorError(f"{where}: {' + '.join(k.upper() for k in group)} must be below "
                              f"2{modulus.upper()}")


def vector_option(path: Path, key: str) -> object:
    """A top-level option of a vector file beside `vectors` (None if absent or unreadable):
    `idle_reads: true` makes VectorTest also read every result register after reset and
    after a final CLEAR."""
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return raw.get(key) if isinstance(raw, dict) else None
