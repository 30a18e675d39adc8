"""A folder built once for a whole test session, shared by its pytest-xdist workers.

A module-scoped fixture is built once per worker that runs one of its tests: with `-n 2`,
twice. `once` builds under a lock in the session's base folder (the workers' common parent)
and marks the folder done; a worker that comes later waits on the lock and takes the built
folder. A build that fails leaves no mark, so the next worker that asks tries again (and its
tests fail the same way). Use it for what the tests only read.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

DONE = ".built"


class BaseTemp(Protocol):
    """What `once` needs of pytest's TempPathFactory."""

    def getbasetemp(self) -> Path: ...


def session_folder(factory: BaseTemp) -> Path:
    """The folder all workers of this session share (the base folder without xdist)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(factory: BaseTemp, name: str, build: Callable[[Path], None]) -> Path:
    """The folder `name`, made by `build(folder)` once in this session."""
    root = session_folder(factory)
    folder = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / DONE).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / DONE).touch()
    return folder
