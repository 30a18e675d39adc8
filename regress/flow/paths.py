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
