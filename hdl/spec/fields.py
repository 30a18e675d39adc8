"""A descriptor's tables read key by key: every value checked for its type and range where it
is read, so that a malformed one is one line naming its file and field
(`hdl/<family>/<design>.toml: [design] widths.max: ...`), never a traceback later."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from montverif.host.errors import ConfigError
from montverif.spec import formula

# a model function ("<module>:<function>" of montverif.models) or a testbench's vector loader
# ("<dotted module>:<function>")
REFERENCE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SECTION = re.compile(r"\[\w+\]")  # a descriptor's table, as messages name it: [design]


def shown_value(value: object) -> str:
    """A value as an error message quotes it (short: a descriptor may hold long text)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Table:
    """One table of a descriptor (`[design]`, or a table inside one: `[design] widths`), its
    keys read with their types checked; every error names the file and the key."""

    def __init__(self, raw: object, label: str, where: str,
                 known: Collection[str] | None = None) -> None:
        """raw: the table's value; label: how messages name it (`[design]`, `[design]
        widths`); where: the file as messages show it; known: its keys (None: any key)."""
        self.label, self.where = label, where
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: {label}: expected a table (got {shown_value(raw)})")
        self.raw: dict[str, Any] = raw
        if known is not None and (unknown := sorted(set(raw) - set(known))):
            raise ConfigError(f"{where}: {label} unknown key(s) {', '.join(unknown)} (known: "
                              f"{', '.join(known)})")

    def field(self, key: str) -> str:
        """`[design] widths` and key `max`: `[design] widths.max`; `[design]` and `id`:
        `[design] id`."""
        return f"{self.label} {key}" if SECTION.fullmatch(self.label) else f"{self.label}.{key}"

    def error(self, key: str, what: str) -> ConfigError:
        return ConfigError(f"{self.where}: {self.field(key)}: {what}")

    def error_at(self, what: str) -> ConfigError:
        return ConfigError(f"{self.where}: {self.label}: {what}")

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    def need(self, key: str) -> Any:
        if key not in self.raw:
            raise self.error(key, "missing")
        return self.raw[key]

    def table(self, key: str, known: Collection[str] | None = None) -> Table:
        """A table inside this one (an empty one when absent)."""
        return Table(self.raw.get(key, {}), self.field(key), self.where, known)

    def text(self, key: str, default: str = "") -> str:
        value = self.raw.get(key, default)
        if not isinstance(value, str):
            raise self.error(key, f"expected a string (got {shown_value(value)})")
        return value

    def name(self, key: str, default: str | None = None) -> str:
        """An identifier (a register, a parameter, a module)."""
        value = self.need(key) if default is None else self.raw.get(key, default)
        if not isinstance(value, str) or not IDENTIFIER.fullmatch(value):
            raise self.error(key, f"expected a name of letters, digits and _ (got "
                                  f"{shown_value(value)})")
        return value

    def integer(self, key: str, default: int | None = None, low: int | None = None,
                high: int | None = None) -> int:
        value = self.raw.get(key, default) if default is not None else self.need(key)
        if not is_int(value):
            raise self.error(key, f"expected an integer (got {shown_value(value)})")
        if low is not None and value < low:
            raise self.error(key, f"{value} is below {low}" + (f" (legal: {low}..{high})"
                                                               if high is not None else ""))
        if high is not None and value > high:
            raise self.error(key, f"{value} is above {high}" + (f" (legal: {low}..{high})"
                                                                if low is not None else ""))
        return int(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false (got {shown_value(value)})")
        return value

    def texts(self, key: str, *, names: bool = False, unique: bool = True) -> tuple[str, ...]:
        """A list of strings (names: each an identifier), none twice (unless unique=False)."""
        value = self.raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"expected a list of strings (got {shown_value(value)})")
        if names and (bad := [v for v in value if not IDENTIFIER.fullmatch(v)]):
            raise self.error(key, f"{shown_value(bad[0])} is not a name of letters, digits "
                                  "and _")
        if unique and (twice := sorted({v for v in value if value.count(v) > 1})):
            raise self.error(key, f"{', '.join(twice)} given twice")
        return tuple(value)

    def integers(self, key: str, low: int | None = None) -> tuple[int, ...]:
        value = self.raw.get(key, [])
        if not isinstance(value, list) or not all(is_int(v) for v in value) or (
                low is not None and any(v < low for v in value)):
            at_least = f" of at least {low}" if low is not None else ""
            raise self.error(key, f"expected a list of integers{at_least} (got "
                                  f"{shown_value(value)})")
        return tuple(value)

    def reference(self, key: str) -> str:
        """A function named "<module>:<function>" ("" when absent)."""
        value = self.text(key)
        if value and not REFERENCE.fullmatch(value):
            raise self.error(key, f"expected \"<module>:<function>\" (got {shown_value(value)})")
        return value

    def expression(self, key: str, names: Collection[str], default: str = "") -> str:
        """A formula in these names (montverif.spec.formula), checked without evaluating."""
        value = self.text(key, default)
        if value:
            try:
                formula.check(value, names)
            except ConfigError as exc:
                raise self.error(key, str(exc)) from None
        return value

    def strings(self, key: str) -> dict[str, str]:
        """A table of strings ({ name = "text" }), its keys names."""
        table = self.table(key)
        for k in table.raw:
            table.name_key(k)
            table.text(k)
        return dict(table.raw)

    def name_key(self, key: str) -> str:
        if not IDENTIFIER.fullmatch(key):
            raise self.error(key, "is not a name of letters, digits and _")
        return key


def table_list(value: object, label: str, where: str) -> list[dict[str, Any]]:
    """A list of tables (`[[...]]` or `[{ ... }, ...]`)."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where}: {label}: expected a list of tables (got "
                          f"{shown_value(value)})")
    return value
