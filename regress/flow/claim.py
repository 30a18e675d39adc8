"""One writer per folder: a run folder (`montverif sim`, each run of a regression) and a
regression's results folder are owned by the process writing them, for as long as it writes.

The owner holds an exclusive `flock` on `<folder>/.lock`, which also names it (pid, host,
command, start). A second writer is refused with one line naming the first; nothing is
merged or overwritten. The kernel drops the lock when the owner ends, however it ends
(SIGKILL included), so a lock file left behind never blocks anyone.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from montverif.regress.flow.paths import remove_tree
from montverif.spec.errors import ConfigError

LOCK_NAME = ".lock"


class FolderBusy(ConfigError):
    """The folder is being written by another process."""


def _owner_text() -> str:
    command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
    return (f"pid {os.getpid()} on {socket.gethostname()} since "
            f"{datetime.now().strftime('%H:%M:%S')} ({command[:160]})")


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(f"{folder} is a file, not a folder: choose another folder") from None
    except NotADirectoryError:
        raise ConfigError(f"{folder}: a part of this path is a file, not a folder") from None
    # any other OSError (a read-only or full disk) names the folder: the command line prints
    # it as one line (montverif.regress.cli.file_error)


@contextlib.contextmanager
def claim(folder: Path, what: str = "folder") -> Iterator[Path]:
    """Own `folder` (created if missing) while the block runs; raise FolderBusy (one line)
    if another process owns it."""
    _make_folder(folder)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            owner = os.pread(fd, 400, 0).decode(errors="replace").strip() or "another process"
            raise FolderBusy(f"{what} {folder} is being written by {owner}; wait for it "
                             "to end or choose another folder") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, (_owner_text() + "\n").encode(), 0)
        yield folder
    finally:
        os.close(fd)  # releases the lock


def clear(folder: Path) -> None:
    """Remove everything in an owned folder but its lock file (a fresh run into it)."""
    for entry in folder.iterdir():
        if entry.name == LOCK_NAME:
            continue
        if entry.is_dir() and not entry.is_symlink():
            remove_tree(entry)
        else:
            entry.unlink()
