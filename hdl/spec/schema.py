"""The descriptor's structure as a JSON Schema (descriptor.schema.json, beside this file: its
tables, keys, types and ranges; editors validate a descriptor against it, see .taplo.toml),
and the check of a descriptor against it, whose first finding is one line naming the file and
the field (`hdl/mont/mont_r2.toml: [design] id: 300 is above 255 (legal: 1..255)`).

The check reads the subset of JSON Schema (draft 7) the schema uses, in the order the file
holds its keys; KEYWORDS lists it, and a test holds it to jsonschema's own verdicts. What
depends on other keys (formulas, registers, files, the register map) is checked where the
descriptor is read (montverif.spec.design)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from montverif.host.errors import ConfigError
from montverif.spec.fields import is_int, shown_value

SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")
# what the check reads; any other keyword in the schema is an error in the schema
KEYWORDS = frozenset({
    "$schema", "$id", "$ref", "title", "description", "definitions", "type", "enum",
    "properties", "additionalProperties", "required", "propertyNames", "items", "minItems",
    "maxItems", "uniqueItems", "minimum", "maximum", "pattern"})
_TYPES = {"string": "a string", "integer": "an integer", "number": "a number",
          "boolean": "true or false", "array": "a list", "object": "a table"}
Schema = Mapping[str, Any]
Path_ = tuple[str | int, ...]


@functools.cache
def schema() -> dict[str, Any]:
    """descriptor.schema.json, read once."""
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())
    return loaded


def definition(*path: str) -> dict[str, Any]:
    """The schema of a section or a key in one (`definition("design", "id")`), its
    references followed."""
    sub = _resolved(schema()["properties"][path[0]])
    for key in path[1:]:
        sub = _resolved(sub["properties"][key])
    return dict(sub)


def section_keys() -> dict[str, tuple[str, ...] | None]:
    """Each section's keys as the schema names them (None: a table of names, any key)."""
    out: dict[str, tuple[str, ...] | None] = {}
    for name, sub in schema()["properties"].items():
        props = _resolved(sub).get("properties")
        out[name] = tuple(props) if props is not None else None
    return out


def label(path: Path_) -> str:
    """Where in a descriptor: ("design", "widths", "max") is `[design] widths.max`,
    ("test", "icarus", 0) `[test] icarus[0]`, () the file itself."""
    if not path:
        return ""
    text = f"[{path[0]}]"
    for i, part in enumerate(path[1:]):
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += (" " if i == 0 else ".") + part
    return text


def check(raw: Mapping[str, Any], where: str, section: str | None = None) -> None:
    """`raw` (a descriptor's TOML) against the schema; ConfigError, one line naming `where`
    and the field, at the first value that breaks it. `section`: that table of `raw` only
    (absent: nothing to check)."""
    if section is None:
        found = first_error(raw)
    elif section not in raw:
        found = None
    else:
        found = first_error(raw[section], schema()["properties"][section], (section,))
    if found is not None:
        path, what = found
        at = label(path)
        raise ConfigError(f"{where}: {at}: {what}" if at else f"{where}: {what}")


def first_error(raw: object, sub: Schema | None = None, path: Path_ = ()
                ) -> tuple[Path_, str] | None:
    """The first place `raw` breaks the schema (or `sub` of it) and what is wrong there."""
    sub = _resolved(schema() if sub is None else sub)
    if (wrong := _scalar(raw, sub)) is not None:
        return path, wrong
    if isinstance(raw, dict):
        return _table(raw, sub, path)
    if isinstance(raw, list):
        return _list(raw, sub, path)
    return None


def _resolved(sub: Schema) -> Schema:
    while "$ref" in sub:
        sub = schema()["definitions"][sub["$ref"].removeprefix("#/definitions/")]
    return sub


_IS = {"string": lambda v: isinstance(v, str), "integer": is_int,
       "number": lambda v: is_int(v) or isinstance(v, float),
       "boolean": lambda v: isinstance(v, bool), "array": lambda v: isinstance(v, list),
       "object": lambda v: isinstance(v, dict)}


class _Got:
    """`(got <value>)`, made only when a message shows it."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        return f"(got {shown_value(self.value)})"


def _scalar(value: object, sub: Schema) -> str | None:
    """What is wrong with `value` by the keywords that look at it alone."""
    got = _Got(value)
    if "enum" in sub and not any(value == e and type(value) is type(e) for e in sub["enum"]):
        return f"must be one of {', '.join(str(e) for e in sub['enum'])} {got}"
    kinds = sub.get("type", ())
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if kinds and not any(_IS[k](value) for k in kinds):  # a pattern's description says more
        what = sub["description"] if "pattern" in sub and "description" in sub else \
            " or ".join(_TYPES[k] for k in kinds)
        return f"expected {what} {got}"
    if isinstance(value, str) and "pattern" in sub and not re.search(sub["pattern"], value):
        return f"expected {sub.get('description', 'the pattern ' + sub['pattern'])} {got}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = sub.get("minimum"), sub.get("maximum")
        legal = f" (legal: {low}..{high})" if low is not None and high is not None else ""
        if low is not None and value < low:
            return f"{value} is below {low}{legal}"
        if high is not None and value > high:
            return f"{value} is above {high}{legal}"
    return None


def _table(raw: dict[str, Any], sub: Schema, path: Path_) -> tuple[Path_, str] | None:
    props: Mapping[str, Schema] = sub.get("properties", {})
    extra = sub.get("additionalProperties", True)
    if extra is False and (unknown := [k for k in raw if k not in props]):
        what = "section(s)" if not path else "key(s)"
        return path, f"unknown {what} {', '.join(unknown)} (known: {', '.join(props)})"
    for key in sub.get("required", ()):
        if key not in raw:
            return (*path, key), "missing"
    names = sub.get("propertyNames")
    for key, value in raw.items():
        if names is not None and (wrong := _scalar(key, _resolved(names))) is not None:
            return (*path, key), wrong.replace("expected", "is not", 1) \
                .replace(f" (got {shown_value(key)})", "")
        where = props.get(key, extra if isinstance(extra, dict) else None)
        if where is not None and (found := first_error(value, where, (*path, key))):
            return found
    return None


def _list(raw: list[Any], sub: Schema, path: Path_) -> tuple[Path_, str] | None:
    low, high = sub.get("minItems"), sub.get("maxItems")
    if (low is not None and len(raw) < low) or (high is not None and len(raw) > high):
        what = sub.get("description") or f"{low or 0}..{high or 'any'} items"
        return path, f"expected {what} (got {shown_value(raw)})"
    if sub.get("uniqueItems") and (twice := [v for i, v in enumerate(raw) if v in raw[:i]]):
        return path, f"{shown_value(twice[0])} given twice"
    items = sub.get("items")
    for i, value in enumerate(raw):
        item = items[i] if isinstance(items, list) else items
        if item is not None and (found := first_error(value, item, (*path, i))):
            return found
    return None
