"""Build parameters as written on a command line or in a list: "W=16,P=4,Mult=mwrkmm"."""

from __future__ import annotations

from collections.abc import Mapping

from montverif.host.errors import ConfigError
from montverif.spec.bounds import PARAM_VALUE


def parse_params(text: str) -> dict[str, int | str]:
    """"W=16,P=4" -> {"W": 16, "P": 4}; a value that is no integer stays a name (a design's
    choice, e.g. Mult=mwrkmm). ConfigError with a one-line message if malformed, if a name
    is given twice (`W=4,W=8`: which one was meant?) or if an integer does not fit the RTL's
    32-bit parameter."""
    out: dict[str, int | str] = {}
    for item in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise ConfigError(f"bad parameter {item!r}: expected NAME=VALUE")
        if name in out:
            raise ConfigError(f"parameter {name} is given twice ({format_params(out)},"
                              f"{item}): give each parameter once")
        try:
            out[name] = int(value, 0)
        except ValueError:
            if not value.replace("_", "").isalnum():
                raise ConfigError(f"bad parameter {item!r}: expected NAME=VALUE with an "
                                  "integer or a name") from None
            out[name] = value
            continue
        if not PARAM_VALUE.holds(out[name]):
            raise ConfigError(f"bad parameter {item!r}: the value {PARAM_VALUE.message(out[name])}"
                              " (the RTL's parameters are 32-bit integers)")
    return out


def format_params(params: Mapping[str, int | str]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())
