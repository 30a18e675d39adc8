"""A descriptor's tables as its readers take them, once descriptor.schema.json has checked
their keys, types and ranges (montverif.spec.schema): a reader's own finding, as the
schema's, is one line naming the file and the field
(`hdl/<family>/<design>.toml: [design] widths.max: ...`), never a traceback later."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from montverif.host.errors import ConfigError
from montverif.spec import formula

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SECTION = re.compile(r"\[\w+\]")  # a descriptor's table, as messages name it: [design]


def shown_value(value: object) -> str:
    """A value as an error message quotes it (short: a descriptor may hold long text)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Table:
    """One table of a descriptor (`[design]`, or a table inside one: `[design] widths`), read
    once descriptor.schema.json has checked its keys, types and ranges
    (montverif.spec.schema); what depends on other keys is checked by the reader, whose
    errors name the file and the key."""

    def __init__(self, raw: dict[str, Any], label: str, where: str) -> None:
        """raw: the table's value; label: how messages name it (`[design]`, `[design]
        widths`); where: the file as messages show it."""
        self.label, self.where = label, where
        self.raw: dict[str, Any] = raw

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
        """A key the reader needs where the schema cannot say so (it depends on another)."""
        if key not in self.raw:
            raise self.error(key, "missing")
        return self.raw[key]

    def table(self, key: str) -> Table:
        """A table inside this one (an empty one when absent)."""
        return Table(self.raw.get(key, {}), self.field(key), self.where)

    def text(self, key: str, default: str = "") -> str:
        return str(self.raw.get(key, default))

    def texts(self, key: str) -> tuple[str, ...]:
        return tuple(self.raw.get(key, ()))

    def strings(self, key: str) -> dict[str, str]:
        return dict(self.raw.get(key, {}))

    def expression(self, key: str, names: Collection[str], default: str = "") -> str:
        """A formula in these names (montverif.spec.formula), checked without evaluating."""
        value = self.text(key, default)
        if value:
            try:
                formula.check(value, names)
            except ConfigError as exc:
                raise self.error(key, str(exc)) from None
        return value
