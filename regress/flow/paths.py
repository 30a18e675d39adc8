"""Where the project's sources are and where the flow writes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout: hdl/, models/, verif/, regress/
BUILD_ROOT = ROOT / "build"
SIM_BUILDS = BUILD_ROOT / "sim"  # one folder per compiled model (BuildSpec.key)
RUNS_ROOT = BUILD_ROOT / "runs"  # `montverif sim`'s run folders (default)
PYCACHE = BUILD_ROOT / "pycache"  # the simulations' bytecode (flow.simulate)


STAGED = "rtl"  # a tool run's copy of its sources, inside its own folder (stage)


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
