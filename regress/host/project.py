"""A user's project: a folder of the user's own, outside montverif, holding their designs and
regression lists, named by a small configuration file (docs/own-design.md):

    # montverif.toml (or the same keys under [tool.montverif] in the project's pyproject.toml)
    designs = ["rtl"]        # folders of descriptors: <folder>/<design>.toml, <folder>/<family>/...
    lists = "lists.toml"     # optional: regression lists of the project's own
    workdir = "build"        # optional: the work folder (default: build/ beside this file)

The project is the folder named by MV_PROJECT (`montverif --project DIR`), else the nearest
folder, from the current one upwards, holding a `montverif.toml` or a `pyproject.toml` with a
[tool.montverif] table; none: the commands see montverif's own designs alone.

In a project the designs are montverif's and the project's; the regression lists, the listing
commands and the ids new-design assigns are the project's. Nothing of the project is written
into montverif's sources: its designs' generated tops, builds and results go to its work
folder and to a cache of its own.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from montverif.host import environment
from montverif.host.errors import ConfigError

CONFIG = "montverif.toml"
PYPROJECT = "pyproject.toml"
KEYS = ("designs", "lists", "workdir")


@dataclass(frozen=True)
class Project:
    """A user's project: its folder, its configuration file and what that names (absolute)."""

    root: Path
    config: Path
    design_dirs: tuple[Path, ...]
    lists: Path | None
    workdir: Path

    def holds(self, path: Path) -> bool:
        """Whether `path` is in one of the project's design folders."""
        return any(path.is_relative_to(d) for d in self.design_dirs)


def read_toml(path: Path) -> dict[str, Any]:
    """A configuration file, parsed; one line naming it when it cannot be."""
    try:
        return tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _config_of(folder: Path) -> tuple[Path, dict[str, object]] | None:
    """The folder's configuration file and its montverif table, if it has one."""
    own = folder / CONFIG
    if own.is_file():
        raw = read_toml(own)
        table = raw.get("project", raw)
        if not isinstance(table, dict):
            raise ConfigError(f"{own}: [project]: expected a table")
        return own, table
    py = folder / PYPROJECT
    # another tool's pyproject.toml (montverif's own among them) is not read
    if py.is_file() and "tool.montverif" in py.read_text(errors="replace"):
        tool = read_toml(py).get("tool", {})
        if isinstance(tool, dict) and isinstance(tool.get("montverif"), dict):
            return py, tool["montverif"]
    return None


def _paths(config: Path, raw: object, key: str) -> tuple[Path, ...]:
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise ConfigError(f"{config}: {key}: expected a folder or a list of folders")
    return tuple((config.parent / v).resolve() for v in values)


def _parse(config: Path, table: dict[str, object]) -> Project:
    if unknown := sorted(set(table) - set(KEYS)):
        raise ConfigError(f"{config}: unknown key(s) {', '.join(unknown)} "
                          f"(known: {', '.join(KEYS)})")
    dirs = _paths(config, table.get("designs", ["."]), "designs")
    for d in dirs:
        if not d.is_dir():
            raise ConfigError(f"{config}: designs: no folder {d}")
    lists = None
    if "lists" in table:
        named = _paths(config, table["lists"], "lists")
        if len(named) != 1 or not named[0].is_file():
            raise ConfigError(f"{config}: lists: expected one file, got "
                              f"{', '.join(map(str, named)) or 'none'}")
        lists = named[0]
    workdir = _paths(config, table.get("workdir", "build"), "workdir")
    if len(workdir) != 1:
        raise ConfigError(f"{config}: workdir: expected one folder")
    return Project(config.parent.resolve(), config, dirs, lists, workdir[0])


@functools.cache
def _found(named: str, cwd: Path) -> Project | None:
    if named:
        folder = Path(named).expanduser().resolve()
        found = _config_of(folder) if folder.is_dir() else None
        if found is None:
            raise ConfigError(f"MV_PROJECT={named}: no {CONFIG} (or {PYPROJECT} with "
                              "[tool.montverif]) in that folder")
        return _parse(*found)
    for folder in (cwd, *cwd.parents):
        if (found := _config_of(folder)) is not None:
            return _parse(*found)
    return None


def current() -> Project | None:
    """The user's project this command works in, or None. A project found from the current
    folder is handed to every child process (MV_PROJECT): a simulation started in its run
    folder, or in a work folder elsewhere, sees the same designs."""
    found = _found(environment.PROJECT.get() or "", Path.cwd().resolve())
    if found is not None and not environment.PROJECT.get():
        environment.PROJECT.put(str(found.root))
    return found


def current_or_none() -> Project | None:
    """current(), None for a malformed configuration (what may run before the command's
    own check, at import time: the command then says what is wrong, in one line)."""
    try:
        return current()
    except ConfigError:
        return None


def use(folder: Path) -> Project:
    """Make `folder` the project of this process and of every child it starts
    (`--project`: MV_PROJECT)."""
    environment.PROJECT.put(str(Path(folder).expanduser().resolve()))
    found = current()
    assert found is not None
    return found
