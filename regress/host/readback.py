"""Files the project reads back (results, records, stamps, tool outputs): read whole as
UTF-8 and checked against the shape their reader expects before any field is used, so that
a corrupted, cut-short (a full disk) or foreign file is one line naming it and what is
wrong with it (CorruptFile), never a traceback or a silently wrong figure.

A shape is a type (`int` also takes no bool; `float` also takes an int), None (anything),
a dict of keys to shapes (a key ending in "?" may be missing; other keys are allowed),
{str: shape} (a table of any keys, every value of that shape), a one-item list (every item
of that shape) or a tuple of alternatives.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from montverif.host.errors import ConfigError
from montverif.host.paths import shown

Shape = Any
# below this many free bytes, the disk holding a cut-short file is said to be full
FULL_BELOW = 1 << 20
# the most a record may hold (a run's transaction log is the largest: tens of MB)
MAX_BYTES = 1 << 30


class CorruptFile(ConfigError):
    """A file read back that is not what its reader expects (one line naming it)."""

    def __init__(self, path: Path, what: str) -> None:
        message = f"{shown(path)}: {what}"
        if disk_full(path):
            message += ("; the disk holding it is full, which cuts files short: free some "
                        "space and run again")
        super().__init__(message)
        self.path = path


def disk_full(path: Path) -> bool:
    """Whether the file system holding `path` has (almost) no space left."""
    for folder in (path, *path.parents):
        try:
            return shutil.disk_usage(folder).free < FULL_BELOW
        except OSError:
            continue
    return False


def _type_name(shape: Shape) -> str:
    if isinstance(shape, dict):
        return "a table"
    if isinstance(shape, list):
        return "a list"
    if isinstance(shape, tuple):
        return " or ".join(_type_name(s) for s in shape)
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false",
            type(None): "null"}.get(shape, getattr(shape, "__name__", str(shape)))


def _is(value: object, shape: type) -> bool:
    if shape is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if shape is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, shape)


def check(value: object, shape: Shape, where: str = "") -> None:
    """ValueError naming the first place where `value` is not of `shape`."""
    if shape is None:
        return
    if isinstance(shape, tuple):
        for alt in shape:
            try:
                check(value, alt, where)
                return
            except ValueError:
                continue
        raise ValueError(f"{where or 'the file'}: expected {_type_name(shape)}")
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise ValueError(f"{where or 'the file'}: expected {_type_name(shape)}")
        if list(shape) == [str]:  # any keys, one shape of value
            for key, item in value.items():
                check(item, shape[str], f"{where}.{key}" if where else str(key))
            return
        for key, sub in shape.items():
            name = key.rstrip("?")
            if name in value:
                check(value[name], sub, f"{where}.{name}" if where else name)
            elif not key.endswith("?"):
                raise ValueError(f"{where or 'the file'}: no {name!r}")
        return
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise ValueError(f"{where or 'the file'}: expected {_type_name(shape)}")
        for i, item in enumerate(value):
            check(item, shape[0], f"{where}[{i}]")
        return
    if not _is(value, shape):
        raise ValueError(f"{where or 'the file'}: expected {_type_name(shape)}")


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """A regular file's text, UTF-8; CorruptFile otherwise (OSError as it is: a missing
    file is its reader's to judge)."""
    if path.exists() and not path.is_file():
        raise CorruptFile(path, "not a regular file")
    if path.stat().st_size > limit:
        raise CorruptFile(path, f"larger than {limit >> 20} MiB")
    data = path.read_bytes()
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise CorruptFile(path, f"not UTF-8 text (byte {exc.start})") from None


def parse_json(text: str, path: Path, shape: Shape = None, where: str = "") -> Any:
    """`text` (of `path`, for the message) as JSON of `shape`."""
    try:
        value = json.loads(text)
    except ValueError as exc:  # JSONDecodeError, and an integer past Python's digit limit
        what = "empty (cut short?)" if not text.strip() else f"not JSON ({exc})"
        raise CorruptFile(path, (f"{where}: " if where else "") + what[:200]) from None
    try:
        check(value, shape, where)
    except ValueError as exc:
        raise CorruptFile(path, f"not the record montverif writes there ({exc})") from None
    return value


def read_json(path: Path, shape: Shape = None) -> Any:
    """A JSON file of `shape`; CorruptFile if it is not one."""
    return parse_json(read_text(path), path, shape)


def read_jsonl(path: Path, shape: Shape = None) -> list[Any]:
    """A file of one JSON value of `shape` a line (blank lines aside)."""
    return [parse_json(line, path, shape, f"line {i}")
            for i, line in enumerate(read_text(path).splitlines(), start=1) if line.strip()]


def read_xml(path: Path) -> ET.Element:
    """An XML file's root element; CorruptFile if it is not XML."""
    text = read_text(path)
    try:
        return ET.fromstring(text)
    except ET.ParseError as exc:
        what = "empty (cut short?)" if not text.strip() else f"not XML ({exc})"
        raise CorruptFile(path, what) from None
