"""Vector files: JSON with a top-level `vectors` list of objects with x, y, m.

Values are decimal or 0x-hex strings (JSON integers are accepted too). A design with a field
bit (CTRL.FIELD: mont_dual) also reads `field` (0 = GF(p), 1 = GF(2^n)), the field the
operation runs in; without it the test draws the field. `params`, an object of build
parameters (`{"P": 2}`), limits a vector to builds with those values (the directed vectors,
verif/directed/: an input that tells a mutant apart at one parameter point), and `min_n`
the smallest width it applies to (a paper's worked example of that many bits). Other keys
are ignored, but `field` on a design without a field bit is an error. Every problem is
reported as one VectorError line naming the file and the entry; a message about a secret
operand (the descriptor's `[operands] secret`: the RSA core's exponent) names the field and
what is wrong, never its value.

A vector file is read whole: only a regular file (not a FIFO, which would wait for a writer,
nor a device such as /dev/zero, which never ends), of at most MAX_BYTES (64 MiB: some
10^5 vectors at N = 4096), in UTF-8, with each key once in an object (JSON itself keeps the
last of two), and no JSON integer longer than Python converts (write a wide value as a
0x-hex string).
"""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from montverif.host import environment
from montverif.host.paths import ROOT
from montverif.models.numbers import parse_int
from montverif.models.result import ModelInputError

# each design's directed vectors, in its own vector format (verif/directed/<design>.json):
# distinguishing inputs of mutants SBY told apart from the original (docs/mutation.md);
# MV_DIRECTED names another folder (the tests' own)
DIRECTED = ROOT / "verif" / "directed"


MAX_BYTES = 64 * 2**20


class VectorError(ValueError):
    pass


def read_json(path: Path) -> object:
    """A vector file's JSON (see the module's docstring for what is refused); VectorError
    with one line naming the file."""
    try:
        mode = path.stat().st_mode  # the file a link names
    except FileNotFoundError:
        raise VectorError(f"{path}: no such vector file") from None
    except OSError as exc:
        raise VectorError(f"{path}: cannot read it ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        raise VectorError(f"{path}: not a regular file (a vector file is read whole: a "
                          "directory, FIFO or device is refused)")
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise VectorError(f"{path}: cannot read it ({exc.strerror})") from None
    if len(data) > MAX_BYTES:
        raise VectorError(f"{path}: larger than {MAX_BYTES // 2**20} MiB, the most a vector "
                          "file may hold")
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=lambda kv: _once(path, kv),
                          parse_int=lambda text: _integer(path, text))
    except UnicodeDecodeError:
        raise VectorError(f"{path}: not valid UTF-8") from None
    except json.JSONDecodeError as exc:
        raise VectorError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise VectorError(f"{path}: not valid JSON (nested too deep)") from None


def _once(path: Path, pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object whose keys are each given once (JSON keeps the last of two: which one
    was meant?)."""
    keys = [k for k, _ in pairs]
    if twice := sorted({k for k in keys if keys.count(k) > 1}):
        raise VectorError(f"{path}: key {', '.join(map(repr, twice))} given twice in one "
                          "object")
    return dict(pairs)


def _integer(path: Path, text: str) -> int:
    """A JSON integer, no longer than Python converts (its int-string conversion limit)."""
    digits = len(text.lstrip("-"))
    if digits > sys.get_int_max_str_digits():
        raise VectorError(f"{path}: a JSON integer of {digits} digits, above "
                          f"{sys.get_int_max_str_digits()}: write a value this wide as a "
                          "0x-hex string")
    return int(text)


def shown(key: str, value: int, secret: Iterable[str]) -> str:
    """A vector's value as a message may quote it: 0x-hex, or a note for a secret operand
    (`key` as in the file, `secret` register names as in the descriptor)."""
    return "a secret operand's value, not shown" if key.upper() in {
        r.upper() for r in secret} else f"0x{value:x}"


def parse_value(where: str, key: str, text: object, n: int, secret: Iterable[str]) -> int:
    """One operand of a vector: a decimal or 0x-hex string (or a JSON integer) that fits N
    bits; VectorError naming `where`.`key` and, unless the operand is secret, the value."""
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise VectorError(f"{where}.{key}: expected a decimal or 0x-hex string")
    try:
        value = text if isinstance(text, int) else parse_int(text)
    except ModelInputError as exc:
        if key.upper() in {r.upper() for r in secret}:
            raise VectorError(f"{where}.{key}: not a decimal or 0x-hex integer (the value of "
                              "a secret operand is not shown)") from None
        raise VectorError(f"{where}.{key}: {exc}") from None
    if value < 0 or value >= 1 << n:
        raise VectorError(f"{where}.{key}: does not fit in N={n} bits")
    return value


def applies(where: str, vec: Mapping[str, object], params: Mapping[str, int] | None,
            n: int | None = None) -> bool:
    """Whether a vector's `params` (if it names any) hold for a build with `params` (None:
    every vector applies, as VectorTest replays a whole file), and its `min_n` (a paper's
    worked example of that many bits) for a build of N = `n` bits (None: any)."""
    low = vec.get("min_n")
    if low is not None and (isinstance(low, bool) or not isinstance(low, int) or low < 1):
        raise VectorError(f"{where}.min_n: expected a width in bits (a positive integer)")
    if low is not None and n is not None and n < low:
        return False
    want = vec.get("params")
    if want is None:
        return True
    if not isinstance(want, dict) or not all(isinstance(v, int) and not isinstance(v, bool)
                                             for v in want.values()):
        raise VectorError(f"{where}.params: expected an object of integer build parameters")
    return params is None or all(params.get(k) == v for k, v in want.items())


def load_vectors(path: Path, n: int, operands: tuple[str, ...] = ("X", "Y", "M"),
                 below_modulus: tuple[str, ...] = ("X", "Y"),
                 carry_save: tuple[tuple[str, ...], ...] = (),
                 range_groups: tuple[tuple[str, ...], ...] = (),
                 has_field: bool = False,
                 params: Mapping[str, int] | None = None,
                 secret: tuple[str, ...] = ()) -> list[tuple[int, ...]]:
    """Operand tuples in `operands` order; keys are the register names in lower case and the
    modulus is the last operand. Every value fits N bits, the operands of `below_modulus`
    are below M (a design's domain: montverif.spec.design.Design). With carry-save operands
    (groups such as ("X", "X2")), the second halves may be left out (they are 0), and the
    sum of each group of `range_groups` must be below 2M. A `field` entry must be 0 or 1
    and is refused unless `has_field` (vector_fields reads it). With `params` (the build's),
    only the vectors whose own `params` it matches. A message about an operand of `secret`
    never quotes its value."""
    keys = tuple(r.lower() for r in operands)
    optional = {h.lower() for g in carry_save for h in g[1:]}
    out: list[tuple[int, ...]] = []
    for where, vec in entries(path, keys):
        vector_field(where, vec, has_field)
        if not applies(where, vec, params, n):
            continue
        values = []
        for key in keys:
            if key not in vec and key in optional:
                values.append(0)
                continue
            if key not in vec:
                raise VectorError(f"{where}: missing '{key}'")
            values.append(parse_value(where, key, vec[key], n, secret))
        _check_operands(where, dict(zip(keys, values, strict=True)), keys[-1],
                        tuple(r.lower() for r in below_modulus),
                        tuple(tuple(r.lower() for r in g) for g in range_groups), secret)
        out.append(tuple(values))
    return out


def directed_file(dut: str) -> Path | None:
    """The design's directed vectors (its corner test replays them), None if it has none."""
    path = Path(environment.DIRECTED.get() or DIRECTED) / f"{dut}.json"
    return path if path.is_file() else None


def entries(path: Path, keys: tuple[str, ...]) -> list[tuple[str, dict[str, object]]]:
    """The file's vectors, each with its place for messages (`<path>: vectors[i]`)."""
    raw = read_json(Path(path))
    if not isinstance(raw, dict) or not isinstance(raw.get("vectors"), list):
        raise VectorError(f"{path}: expected an object with a 'vectors' list")
    if not raw["vectors"]:
        raise VectorError(f"{path}: the 'vectors' list is empty")
    out = []
    for i, vec in enumerate(raw["vectors"]):
        where = f"{path}: vectors[{i}]"
        if not isinstance(vec, dict):
            raise VectorError(f"{where}: expected an object with keys {', '.join(keys)}")
        out.append((where, vec))
    return out


def vector_field(where: str, vec: dict[str, object], has_field: bool) -> int | None:
    """A vector's `field` (0 = GF(p), 1 = GF(2^n); None when it names none). A design
    without a field bit refuses one: replaying it there would silently run another test."""
    if "field" not in vec:
        return None
    if not has_field:
        raise VectorError(f"{where}.field: the design has no field bit (CTRL.FIELD): "
                          "remove 'field' from the vector")
    text = vec["field"]
    try:
        if isinstance(text, bool) or not isinstance(text, (str, int)):
            raise ModelInputError("expected 0 (GF(p)) or 1 (GF(2^n))")
        value = text if isinstance(text, int) else parse_int(text)
    except ModelInputError as exc:
        raise VectorError(f"{where}.field: {exc}") from None
    if value not in (0, 1):
        raise VectorError(f"{where}.field: expected 0 (GF(p)) or 1 (GF(2^n)), got {value}")
    return value


def vector_fields(path: Path, params: Mapping[str, int] | None = None,
                  n: int | None = None) -> list[int | None]:
    """Each vector's field, in file order (None where it names none), of a file that
    load_vectors(..., has_field=True, params=params) at N = `n` accepted: the same vectors."""
    return [vector_field(where, vec, True) for where, vec in entries(path, ())
            if applies(where, vec, params, n)]


def _check_operands(where: str, values: dict[str, int], modulus: str,
                    below: tuple[str, ...], carry_save: tuple[tuple[str, ...], ...] = (),
                    secret: tuple[str, ...] = ()) -> None:
    """The multipliers need an odd modulus and the operands of their domain: refuse a vector
    outside it (the loader would only flag it)."""
    m = values[modulus]
    if m % 2 == 0:
        raise VectorError(f"{where}.{modulus}: the modulus must be odd (got "
                          f"{shown(modulus, m, secret)})")
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
        raw = read_json(path)
    except VectorError:
        return None
    return raw.get(key) if isinstance(raw, dict) else None
