"""`montverif new-design NAME --like DESIGN`: a new design's files, as a working copy of an
existing one. The core RTL (the module and its sub-modules renamed, and the shared files named
after the original, e.g. mont_lut's table, copied as the new design's own) and the
descriptor (a new id, the copy's own name, the original's model, test points and list
entries) land in hdl/<family>/; the derived files are written again. `montverif sim --dut
NAME` passes at once; docs/own-design.md takes it from there (the core, the model, the
descriptor's facts).

All or nothing: the files are written into a hidden staging folder below hdl/, the new
descriptor is read and its top generated there, then they are moved in and the design
loaded; on any failure (or an interrupt) nothing is left behind. The design id is taken under
an exclusive lock of hdl/, held until the descriptor is in place: two commands at once take
two ids.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

from montverif.host import project
from montverif.host.errors import ConfigError
from montverif.host.paths import HDL, ROOT, shown
from montverif.spec import cores, designs, generate, top
from montverif.spec.design import MAX_ID, Design, parse
from montverif.spec.svnames import is_keyword, modules_in

NAME = re.compile(r"[a-z][a-z0-9_]{1,30}")
FAMILY = re.compile(r"[a-z][a-z0-9_]*")
STAGING_PREFIX = ".new-design-"  # below hdl/: hidden, so no command reads it as a family
# the project's RTL besides hdl/ (the bus engine, the product log): module names taken too
OTHER_RTL = (ROOT / "verif" / "hdl",)
# descriptor values that name something of the original's that is not copied (its model
# functions, its notes, its testbench): they keep the original's text
_KEPT = (("design", "notes"), ("model", "function"), ("model", "check"),
         ("model", "block_params"), ("model", "shape"), ("testbench", "module"),
         ("testbench", "vector_loader"))


def _renamed(text: str, like: str, name: str, extra: dict[str, str] | None = None) -> str:
    """`like` and `like_<suffix>` identifiers (the module and its sub-modules) as `name`'s,
    and the identifiers of `extra` (old -> new) as given."""
    text = re.sub(rf"\b{re.escape(like)}(?=\b|_)", name, text)
    for old, new in (extra or {}).items():
        text = re.sub(rf"\b{re.escape(old)}\b", new, text)
    return text


def _file_name(stem: str, like: str, name: str) -> str:
    """A copied file's stem: renamed when named after the original, else prefixed with the
    new name (the RSA core's rsa_mont_mult.sv: the copy's rsa_mont_mult must be its own)."""
    renamed = _renamed(stem, like, name)
    return renamed if renamed != stem else f"{name}_{stem}"


def check_name(name: str) -> None:
    """A design's name: it names its core module, its top and its descriptor."""
    if not NAME.fullmatch(name):
        raise ConfigError(f"design name {name!r}: lower case letters, digits and _, starting "
                          "with a letter (it names the module, the descriptor and its keys)")
    if is_keyword(name):
        raise ConfigError(f"design name {name!r} is a SystemVerilog keyword (IEEE 1800-2017): "
                          "it names the core module")


def new_design(name: str, like: str, family: str | None = None) -> list[Path]:
    """Write the new design's core and descriptor; the paths written (derived files too)."""
    check_name(name)
    if family is not None and not FAMILY.fullmatch(family):
        raise ConfigError(f"family {family!r}: a folder name of lower case letters")
    with _hdl_locked():
        designs.reload()  # another new-design may have finished while this one waited
        designs.complete()  # the derived files cover every design: none may be broken
        if name in designs.known_designs():
            raise ConfigError(f"design {name} exists already "
                              f"({shown(designs.load_design(name).descriptor)})")
        src = designs.load_design(like)
        folder = _folder(src, family)
        files = _copies(src, name, folder)
        descriptor = folder / f"{name}.toml"
        files[descriptor] = _descriptor(src, name, folder, family, files)
        if clash := [p for p in files if p.exists()]:
            raise ConfigError(f"{shown(clash[0])} exists already")
        return _install(files, name, folder)


def _copies(src: Design, name: str, folder: Path) -> dict[Path, str]:
    """The copied RTL, target -> text: the design's own files and the shared files named
    after it (mont_lut's table: its core instantiates it by a name that is renamed too),
    shared ones first (compile order)."""
    like = src.name
    own = [f for f in src.shared if _renamed(f.stem, like, name) != f.stem] + list(src.rtl)
    # modules of the copied files not named after the original: prefixed with the new name
    extra = {m: f"{name}_{m}" for f in own for m in modules_in(f)
             if _renamed(m, like, name) == m}
    return {folder / f"{_file_name(f.stem, like, name)}{f.suffix}":
            _renamed(f.read_text(), like, name, extra) for f in own}


def _descriptor(src: Design, name: str, folder: Path, family: str | None,
                files: dict[Path, str]) -> str:
    """The copy's descriptor: the original's text renamed, a placeholder id (_install sets
    it), its own RTL, the shared files it keeps, no `owns` (the original's campaign stays
    the one that mutates them), and the original's model, notes and testbench."""
    like = src.name
    text = _renamed(src.descriptor.read_text(), like, name)
    raw = tomllib.loads(src.descriptor.read_text())
    for section, key in _KEPT:
        value = raw.get(section, {}).get(key)
        if isinstance(value, str) and _renamed(value, like, name) != value:
            text = text.replace(f'"{_renamed(value, like, name)}"', f'"{value}"')
    for reg, ref in raw.get("operands", {}).get("precomputed", {}).items():
        text = text.replace(f'{reg} = "{_renamed(ref, like, name)}"', f'{reg} = "{ref}"')
    rtl = ", ".join(f'"{p.name}"' for p in files)
    shared = ", ".join(f'"{f.relative_to(HDL).as_posix()}"' for f in src.shared
                       if _renamed(f.stem, like, name) == f.stem)  # those not copied
    text = re.sub(r"(?m)^rtl = \[[^\]]*\]", f"rtl = [{rtl}]", text, count=1)
    text = re.sub(r"(?m)^shared = \[[^\]]*\]", f"shared = [{shared}]", text, count=1)
    text = re.sub(r"(?m)^owns = .*\n", "", text, count=1)
    text = re.sub(r"(?m)^id = \d+", "id = 0", text, count=1)
    if family is not None:
        text = re.sub(r'(?m)^family = ".*"', f'family = "{family}"', text, count=1)
    return text


@contextlib.contextmanager
def _hdl_locked() -> Iterator[None]:
    """An exclusive lock of the hdl/ folder (flock on the folder itself: nothing is left
    behind), held from reading the ids until the new descriptor is in place."""
    fd = os.open(base(), os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def base() -> Path:
    """Where a new design's family folder goes: the user's project's first design folder,
    else montverif's hdl/ (a checkout's)."""
    mine = project.current()
    return mine.design_dirs[0] if mine is not None else HDL


def _folder(src: Design, family: str | None) -> Path:
    """The copy's folder: `family`'s, else the original's folder's name, below base() (a
    project's design kept directly in a design folder: that folder)."""
    mine = project.current()
    if family is None and mine is not None and src.descriptor.parent in mine.design_dirs:
        return src.descriptor.parent
    return base() / (family or src.descriptor.parent.name)


def free_id(found: list[Design], first: int = 1) -> int:
    """The id after the largest one from `first` on, or the smallest free one when that is
    taken by MAX_ID. A user project's designs take theirs from designs.PROJECT_IDS on,
    montverif's below it: a design of either may come later without a clash."""
    taken = {d.id for d in found}
    after = max((i for i in taken if i >= first), default=first - 1) + 1
    if after <= MAX_ID:
        return after
    free = [i for i in range(first, MAX_ID + 1) if i not in taken]
    if not free:
        raise ConfigError(f"no free design id: all of 1..{MAX_ID} are taken (INFO[23:16])")
    return free[0]


def _taken_modules() -> dict[str, str]:
    """Every module the project's RTL declares, and every design's generated top: where
    (the tops' copies in hdl/cores/ are named as generated tops)."""
    out: dict[str, str] = {}
    mine = project.current()
    for root in (HDL, *OTHER_RTL, *(mine.design_dirs if mine is not None else ())):
        for path in sorted(root.rglob("*.sv")):
            if path.parent == cores.CORES:
                continue
            if not any(part.startswith(".") for part in path.relative_to(root).parts):
                out |= dict.fromkeys(modules_in(path), shown(path))
    for d in designs.every():
        out.setdefault(d.toplevel, f"the generated top of {d.name}")
    return out


def _check_modules(staged: Design) -> None:
    """The copy's modules (and its top) are names of their own, none a keyword."""
    taken = _taken_modules()
    mine = [m for src in staged.rtl for m in modules_in(src)] + [staged.toplevel]
    for module in mine:
        if is_keyword(module):
            raise ConfigError(f"design name {staged.name!r}: its module {module} would be a "
                              "SystemVerilog keyword")
        if module in taken:
            raise ConfigError(f"design name {staged.name!r}: module {module} exists already "
                              f"({taken[module]})")


def _check_staged(path: Path, folder: Path) -> None:
    """The staged copy reads, its modules are its own and its top is generated (the core
    found, its ports connected); an error names the file where it would be."""
    try:
        staged = parse(path)
        _check_modules(staged)
        top.emit(staged)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace(shown(path.parent), shown(folder))) from None


def _install(files: dict[Path, str], name: str, folder: Path) -> list[Path]:
    """Stage the files, check the copy, move them in, write the derived files; on any
    failure nothing of it is left (the derived files as they were)."""
    stage = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=base()))
    moved: list[Path] = []
    made_folder = not folder.exists()
    derived = generate.snapshot()
    try:
        staged_folder = stage / folder.name
        staged_folder.mkdir()
        descriptor = folder / f"{name}.toml"
        first = designs.PROJECT_IDS if project.current() is not None else 1
        files[descriptor] = re.sub(r"(?m)^id = 0", f"id = {free_id(designs.every(), first)}",
                                   files[descriptor], count=1)
        for target, text in files.items():
            (staged_folder / target.name).write_text(text)
        _check_staged(staged_folder / descriptor.name, folder)
        folder.mkdir(parents=True, exist_ok=True)
        for target in files:  # the descriptor last: the design appears whole
            os.rename(staged_folder / target.name, target)
            moved.append(target)
        designs.reload()
        designs.load_design(name)
        return [*files, *generate.write()]
    except BaseException:
        for target in moved:
            target.unlink(missing_ok=True)
        generate.restore(derived)
        if made_folder:
            with contextlib.suppress(OSError):
                folder.rmdir()
        designs.reload()
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
