"""Every design's descriptor: found as hdl/<family>/<design>.toml (every TOML file of a folder
below hdl/: a design's descriptor, named after it), read once, checked file by file and as a
whole (unique names and ids, `uses` naming known designs, one owner per shared RTL file,
what the layers above check of a descriptor: its model functions, its list entries).

A descriptor that fails a check is broken: it is recorded with one line naming its file and
the field at fault, and the other designs keep working. Using a broken design by name raises
that line (ConfigError); the commands that list designs warn of each broken descriptor
(`broken()`), `montverif lint` fails on them and the derived files are not written while one
is broken (`complete()`).

A process the runner starts for a run (its child, the simulator's Python) is handed the
registry as the runner read it (`snapshot()`, MV_DESIGNS) and reads that file instead of the
descriptors: a run sees one reading of them, and its processes skip parsing every descriptor
again (about 0.15 s each)."""

from __future__ import annotations

import hashlib
import pickle
import stat
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from montverif.host import environment, pages, project
from montverif.host.errors import ConfigError
from montverif.host.paths import HDL, cache, shown
from montverif.spec.design import MAX_ID, Design, parse
from montverif.spec.params import format_params

MAX_BYTES = 1 << 20  # a descriptor's size (the largest is about 20 KiB)
PROJECT_IDS = 128  # a user project's design ids: 128..MAX_ID (montverif's own: below)
OBSERVE_NAMES = ("observe",)  # simulation-only observation modules: shared, never mutated

# What a layer above checks of each design (its model functions, its list entries): raises
# ConfigError("<field>: <what is wrong>") for a descriptor it cannot use (add_check).
Check = Callable[[Design], object]


@dataclass(frozen=True)
class Broken:
    """A descriptor that cannot be used: its file, the design's name (the file's stem) and
    one line `hdl/<family>/<file>.toml: <field>: <what is wrong>`."""

    path: Path
    name: str
    message: str


@dataclass
class _Registry:
    designs: dict[str, Design] = field(default_factory=dict)
    broken: dict[Path, Broken] = field(default_factory=dict)

    def refuse(self, path: Path, message: str) -> None:
        """Record a descriptor as broken (its first fault only) and drop its design."""
        if path not in self.broken:
            self.broken[path] = Broken(path, path.stem, message)
        self.designs = {k: d for k, d in self.designs.items() if d.descriptor != path}


_checks: list[Check] = []
_lock = threading.RLock()
_loaded: _Registry | None = None
_loading: _Registry | None = None  # the designs parsed so far, while the checks run


def add_check(check: Check) -> None:
    """Check every design with `check` as well from now on (a layer above: the models'
    registry, the regression lists); the descriptors are read again."""
    with _lock:
        _checks.append(check)
        reload()


def reload() -> None:
    """Read the descriptors again (after a new one was written)."""
    global _loaded
    with _lock:
        _loaded = None


def _registry() -> _Registry:
    global _loaded, _loading
    with _lock:
        if _loaded is not None:
            return _loaded
        if _loading is not None:  # a check looking a design up: those parsed so far
            return _loading
        if (inherited := _inherited()) is not None:
            _loaded = inherited
            return inherited
        reg = _Registry()
        _loading = reg
        try:
            _read(reg)
        finally:
            _loading = None
        reg.designs = dict(sorted(reg.designs.items()))
        reg.broken = dict(sorted(reg.broken.items()))
        _loaded = reg
        return reg


def _check_names(checks: list[Check]) -> tuple[str, ...]:
    return tuple(sorted({f"{c.__module__}.{c.__qualname__}" for c in checks}))


def snapshot() -> Path | None:
    """The registry as this process read and checked it, in a file named by its digest
    (<cache>/designs/<digest>.pickle, written once; two runs writing one at once write the same
    bytes); None where the cache cannot take it. A child process given its path in
    MV_DESIGNS reads it instead of the descriptors (_inherited)."""
    with _lock:
        data = pickle.dumps((_check_names(_checks), _registry()), pickle.HIGHEST_PROTOCOL)
    path = cache("designs") / f"{hashlib.sha256(data).hexdigest()[:32]}.pickle"
    if not path.exists():
        try:
            _write(path, data)
        except OSError:  # the child reads the descriptors itself
            return None
        _prune(path)
    return path


def _write(path: Path, data: bytes) -> None:
    """`data` into `path` whole, its folder made first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pages.write_atomic(path, data)


SNAPSHOT_DAYS = 7  # a snapshot this old is no run's any more (a run reads it as it starts)


def _prune(new: Path) -> None:
    """Remove the snapshots older than SNAPSHOT_DAYS beside a new one (the descriptors
    changed)."""
    cutoff = time.time() - SNAPSHOT_DAYS * 86400
    for old in new.parent.glob("*.pickle"):
        try:
            if old != new and old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:  # removed by another run's prune
            pass


def _inherited() -> _Registry | None:
    """The registry the parent handed down (MV_DESIGNS), or None: none named, a file that
    cannot be read or does not match its digest, or one made without a check this process
    makes (then it reads the descriptors itself)."""
    name = environment.DESIGNS.get()
    if not name:
        return None
    try:
        data = Path(name).read_bytes()
        if hashlib.sha256(data).hexdigest()[:32] != Path(name).stem:
            return None
        checks, reg = pickle.loads(data)  # the cache's own file, its digest checked
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            ImportError):
        return None
    if not isinstance(reg, _Registry) or not set(_check_names(_checks)) <= set(checks):
        return None
    return reg


def descriptor_files(root: Path = HDL) -> list[Path]:
    """Every descriptor: the TOML files of the folders below hdl/ (not of a hidden folder, as
    new-design's staging folder is), then those of the user's project's design folders (its
    <folder>/*.toml and <folder>/<family>/*.toml, its own configuration, lists and work
    folder aside)."""
    found = [p for p in root.glob("*/*.toml") if not _hidden(p)]
    mine = project.current_or_none()
    if mine is not None:
        skip = {mine.config, mine.lists}
        for folder in mine.design_dirs:
            found += [p for p in (*folder.glob("*.toml"), *folder.glob("*/*.toml"))
                      if not _hidden(p) and p not in skip and p.name != project.PYPROJECT
                      and not p.is_relative_to(mine.workdir)]
    return sorted(dict.fromkeys(found))


def _hidden(path: Path) -> bool:
    return path.parent.name.startswith(".") or path.name.startswith(".")


def in_scope() -> list[Design]:
    """The designs a listing or a list covers: a user project's own, else montverif's."""
    found = every()
    mine = [d for d in found if d.from_project]
    return mine if project.current_or_none() is not None else found


def _read(reg: _Registry) -> None:
    """Parse every descriptor, then check them as a whole; a broken one is recorded, never
    raised."""
    raws: dict[str, tuple[Path, dict[str, Any]]] = {}
    known = _parsed_before()
    parsed: dict[str, dict[str, Any]] = {}
    for path in sorted(descriptor_files(), key=_age):
        try:
            text = _text(path)
            digest = hashlib.sha256(text.encode()).hexdigest()
            raw = parsed[digest] = known.get(digest) or tomllib.loads(text)
        except ConfigError as exc:
            reg.refuse(path, str(exc))
            continue
        except tomllib.TOMLDecodeError as exc:
            reg.refuse(path, f"{shown(path)}: TOML syntax: {' '.join(str(exc).split())}")
            continue
        except RecursionError:
            reg.refuse(path, f"{shown(path)}: TOML syntax: nested too deeply")
            continue
        if path.stem in raws:
            first = raws[path.stem][0]
            reg.refuse(path, f"{shown(path)}: [design] name: {path.stem} is described in "
                             f"{shown(first)} already")
            continue
        raws[path.stem] = (path, raw)
    _keep_parsed(parsed, known)  # before parse() reads (and may change) them
    for name in raws:
        _load_one(reg, raws, name, ())
    _check_ids(reg)
    _check_owners(reg)
    for check in list(_checks):
        for d in list(reg.designs.values()):
            try:
                check(d)
            except ConfigError as exc:
                reg.refuse(d.descriptor, f"{shown(d.descriptor)}: {' '.join(str(exc).split())}")
    _refuse_users_of_broken(reg)


# each descriptor's parsed TOML by the digest of its text, kept in the cache between
# commands: the same text is the same data, so a command parses only the descriptors that
# changed (tomllib takes about 0.09 s for montverif's 17)
PARSED = f"parsed-py{sys.version_info[0]}{sys.version_info[1]}.pickle"


def _parsed_before() -> dict[str, dict[str, Any]]:
    """The parsed descriptors an earlier command kept ({} if none, or unreadable)."""
    try:
        known = pickle.loads((cache("designs") / PARSED).read_bytes())  # the cache's own
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            ImportError, IndexError):
        return {}
    return known if isinstance(known, dict) else {}


def _keep_parsed(parsed: dict[str, dict[str, Any]], known: dict[str, dict[str, Any]]) -> None:
    """Keep this reading's parsed descriptors (those of today's texts only) for the next
    command; a cache it cannot write costs only the parsing next time."""
    if parsed.keys() == known.keys():
        return
    try:
        _write(cache("designs") / PARSED, pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass


def _text(path: Path) -> str:
    """A descriptor's text: a regular file of at most MAX_BYTES, UTF-8 (a FIFO or a device
    would hang the read, a huge file fill the memory)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{shown(path)}: not a regular file")
        if st.st_size > MAX_BYTES:
            raise ConfigError(f"{shown(path)}: {st.st_size} bytes, more than a descriptor's "
                              f"{MAX_BYTES}")
        return path.read_bytes().decode()
    except OSError as exc:
        raise ConfigError(f"{shown(path)}: cannot read it ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown(path)}: not UTF-8 text") from None


def _age(path: Path) -> tuple[float, str]:
    """Oldest first (then by path): of two descriptors that clash (a name, an id, an owned
    file), the one written later is the broken one."""
    try:
        return path.stat().st_mtime, str(path)
    except OSError:
        return float("inf"), str(path)


# what a descriptor that slipped through parse's checks may still raise: recorded as well,
# so that one file never stops the others
_UNEXPECTED = (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError,
               RecursionError)


def _load_one(reg: _Registry, raws: dict[str, tuple[Path, dict[str, Any]]], name: str,
              chain: tuple[str, ...]) -> Design | None:
    """The design `name`, the designs it uses first; None (recorded broken) if it or one of
    them cannot be read."""
    path, raw = raws[name]
    if name in reg.designs:
        return reg.designs[name]
    if path in reg.broken:
        return None
    if name in chain:
        reg.refuse(path, f"{shown(path)}: [design] uses: designs use each other: "
                         f"{' -> '.join((*chain, name))}")
        return None
    uses_rtl: dict[Path, None] = {}
    design = raw.get("design")
    uses = design.get("uses", []) if isinstance(design, dict) else []
    for used in uses if isinstance(uses, list) else []:
        if not isinstance(used, str) or used not in raws:
            why = "whose descriptor is broken" if any(
                b.name == used for b in reg.broken.values()) else "is no design"
            reg.refuse(path, f"{shown(path)}: [design] uses: {used!r} {why}")
            return None
        dep = _load_one(reg, raws, used, (*chain, name))
        if path in reg.broken:  # a cycle through it
            return None
        if dep is None:
            reg.refuse(path, f"{shown(path)}: [design] uses: {used}, whose descriptor is "
                             f"broken ({shown(raws[used][0])})")
            return None
        uses_rtl |= dict.fromkeys(dep.used_rtl + dep.shared + dep.rtl)
    try:
        reg.designs[name] = parse(path, tuple(uses_rtl), raw)
    except ConfigError as exc:
        reg.refuse(path, " ".join(str(exc).split()))
        return None
    except _UNEXPECTED as exc:
        reg.refuse(path, f"{shown(path)}: cannot be read ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())})")
        return None
    return reg.designs[name]


def _check_ids(reg: _Registry) -> None:
    ids: dict[int, Design] = {}
    for d in sorted(reg.designs.values(), key=lambda d: _age(d.descriptor)):
        if d.from_project and d.id < PROJECT_IDS:
            reg.refuse(d.descriptor, f"{shown(d.descriptor)}: [design] id: {d.id} is "
                                     f"montverif's range; a project's designs take "
                                     f"{PROJECT_IDS}..{MAX_ID}")
        elif d.id in ids:
            first = ids[d.id]
            reg.refuse(d.descriptor, f"{shown(d.descriptor)}: [design] id: {d.id} is "
                                     f"{first.name}'s already ({shown(first.descriptor)})")
        else:
            ids[d.id] = d


def _check_owners(reg: _Registry) -> None:
    """Each shared RTL file but the observation modules is owned ([design] owns: its mutants
    run in one campaign) by exactly one of its users: a second owner is refused, and a file
    without one refuses its newest user (unless a broken descriptor may own it)."""
    users: dict[Path, list[Design]] = {}
    owner: dict[Path, Design] = {}
    for d in sorted(reg.designs.values(), key=lambda d: _age(d.descriptor)):
        for src in d.shared:
            users.setdefault(src, []).append(d)
        for src in d.owns:
            if src in owner:
                reg.refuse(d.descriptor, f"{shown(d.descriptor)}: [design] owns: {shown(src)} "
                                         f"is {owner[src].name}'s already (one owner, whose "
                                         "campaign mutates it)")
            else:
                owner[src] = d
    for src, found in users.items():
        if src in owner or any(o in src.name for o in OBSERVE_NAMES) or reg.broken:
            continue
        newest = [d for d in found if d.name in reg.designs][-1:]
        for d in newest:
            reg.refuse(d.descriptor, f"{shown(d.descriptor)}: [design] shared: {shown(src)} "
                                     f"has no owner: one of its users "
                                     f"({', '.join(u.name for u in found)}) names it in "
                                     "[design] owns")


def _refuse_users_of_broken(reg: _Registry) -> None:
    """A design that uses a broken one is broken too."""
    changed = True
    while changed:
        changed = False
        for d in list(reg.designs.values()):
            if bad := [u for u in d.uses if u not in reg.designs]:
                reg.refuse(d.descriptor, f"{shown(d.descriptor)}: [design] uses: {bad[0]}, "
                                         "whose descriptor is broken")
                changed = True


def known_designs() -> list[str]:
    """Every design that can be used, by name (broken descriptors aside: broken())."""
    return list(_registry().designs)


def load_design(name: str) -> Design:
    """A design by name; ConfigError with its descriptor's fault if broken, or naming the
    known ones if there is none."""
    reg = _registry()
    if name in reg.designs:
        return reg.designs[name]
    if found := broken_design(name):
        raise ConfigError(found.message)
    raise ConfigError(f"unknown DUT '{name}' (known: {', '.join(reg.designs)})")


def check_known(name: str, what: str = "design") -> None:
    """ConfigError (one line) unless `name` is a design that can be used: its descriptor's
    fault if it is broken, else `unknown <what> 'name' (known: ...)`."""
    reg = _registry()
    if name not in reg.designs:
        if found := broken_design(name):
            raise ConfigError(found.message)
        raise ConfigError(f"unknown {what} {name!r} (known: {', '.join(reg.designs)})")


def broken_design(name: str) -> Broken | None:
    """The broken descriptor of a design of this name, if there is one and no descriptor
    of that name works (a second one of a name is refused, the first is the design)."""
    reg = _registry()
    if name in reg.designs:
        return None
    return next((b for b in reg.broken.values() if b.name == name), None)


def broken_names() -> list[str]:
    """The designs whose descriptors are broken, by name (their files' stems; none that
    another descriptor of the name describes)."""
    reg = _registry()
    return [b.name for b in reg.broken.values() if b.name not in reg.designs]


def broken() -> list[str]:
    """One line per broken descriptor (`hdl/<family>/<file>.toml: <field>: <what>`)."""
    return [b.message for b in _registry().broken.values()]


def every() -> list[Design]:
    """Every design that can be used (broken descriptors aside)."""
    return list(_registry().designs.values())


def complete() -> list[Design]:
    """Every design, for what covers them all (the derived files); ConfigError naming the
    first broken descriptor if one is."""
    reg = _registry()
    if reg.broken:
        more = len(reg.broken) - 1
        others = f" (and {more} more broken descriptor{'s' * (more > 1)})" if more else ""
        raise ConfigError(f"{next(iter(reg.broken.values())).message}{others}: fix it first "
                          "(the derived files cover every design)")
    return list(reg.designs.values())


def check_width(design: Design, n: int, allow_wide: bool = False,
                params: Mapping[str, int | str] | None = None) -> None:
    """N within the design's widths (above its widest only with --allow-wide); the narrowest
    follows the build parameters where the descriptor says so (mont_dual: K + K * Units)."""
    low = design.min_n_at(params)
    if n < low or (n > design.max_n and not allow_wide):
        wide = "; ALLOW_WIDE=1 / --allow-wide runs a wider N" if n > design.max_n else ""
        at = f" at {format_params(dict(params))}" if params and design.min_n_expr else ""
        raise ConfigError(f"unsupported width N={n} for {design.name}{at} "
                          f"(supported: {low}..{design.max_n}{wide})")
