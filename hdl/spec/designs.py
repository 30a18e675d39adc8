"""Every design's descriptor: found as hdl/<family>/<design>.toml (a TOML file beside RTL
whose name is its [design] name), read once, checked as a whole (unique names and ids,
`uses` naming known designs, registers the register map has)."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from montverif.spec import regmap
from montverif.spec.design import Design, parse
from montverif.spec.errors import ConfigError
from montverif.spec.paths import HDL, shown


def _descriptor_files() -> dict[str, tuple[Path, dict[str, Any]]]:
    """name -> (descriptor, its parsed TOML) of every design (a TOML with a [design] table
    below hdl/). Each file is parsed here once; its design is built from this parse."""
    found: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path in sorted(HDL.glob("*/*.toml")):
        try:
            raw = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError):
            raw = {}
        name = raw.get("design", {}).get("name") if isinstance(raw.get("design"), dict) else None
        if not name:
            continue
        if name in found:
            raise ConfigError(f"design {name} is described twice: {found[name][0]} and {path}")
        found[name] = (path, raw)
    return found


@cache
def _all() -> dict[str, Design]:
    files = _descriptor_files()
    out: dict[str, Design] = {}

    def load_one(name: str, chain: tuple[str, ...] = ()) -> Design:
        if name in out:
            return out[name]
        if name in chain:
            raise ConfigError(f"designs use each other: {' -> '.join((*chain, name))}")
        path, raw = files[name]
        uses_rtl: dict[Path, None] = {}
        for used in _uses(raw):
            if used not in files:
                raise ConfigError(f"{path.name}: uses unknown design {used}")
            dep = load_one(used, (*chain, name))
            uses_rtl |= dict.fromkeys(dep.used_rtl + dep.shared + dep.rtl)
        out[name] = parse(path, tuple(uses_rtl), raw)
        return out[name]

    for name in files:
        load_one(name)
    _check(out)
    return dict(sorted(out.items()))


def _uses(raw: dict[str, Any]) -> list[str]:
    return list(raw.get("design", {}).get("uses", []))


OBSERVE_NAMES = ("observe",)  # simulation-only observation modules: shared, never mutated


def _check(found: dict[str, Design]) -> None:
    rm = regmap.load()
    ids: dict[int, str] = {}
    owners: dict[Path, list[str]] = {}
    for d in found.values():
        for src in d.shared:
            owners.setdefault(src, [])
        for src in d.owns:
            owners[src].append(d.name)
    for src, names in owners.items():
        if len(names) > 1 or (not names and not any(o in src.name for o in OBSERVE_NAMES)):
            users = ", ".join(d.name for d in found.values() if src in d.shared)
            raise ConfigError(f"{shown(src)}: shared RTL must be owned ([design] owns: its "
                              f"mutants run in one campaign) by exactly one of its users "
                              f"({users}), not {len(names)}")
    for d in found.values():
        if d.id in ids:
            raise ConfigError(f"designs {ids[d.id]} and {d.name} have the same id {d.id}")
        if not 1 <= d.id < 256:
            raise ConfigError(f"{d.name}: id {d.id} does not fit INFO[23:16] (1..255)")
        ids[d.id] = d.name
        for reg in (*d.operands, *d.precompute, *(r for g in d.carry_save_operands for r in g)):
            if reg not in rm.regions:
                raise ConfigError(f"{d.name}: register {reg} is not in the register map")


def known_designs() -> list[str]:
    """Every design, by name."""
    return list(_all())


def load_design(name: str) -> Design:
    """A design by name; ConfigError naming the known ones if there is none."""
    designs = _all()
    if name not in designs:
        raise ConfigError(f"unknown DUT '{name}' (known: {', '.join(designs)})")
    return designs[name]


def every() -> list[Design]:
    return list(_all().values())


def reload() -> None:
    """Read the descriptors again (after a new one was written)."""
    _all.cache_clear()
