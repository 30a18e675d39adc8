"""One writer per folder, and nothing deleted that the command did not create: every folder a
command writes its results into (a run, a regression, a mutation campaign, a closure, a
synthesis, a formal check, a benchmark, ...) is owned by the process writing it, for as long
as it writes (`output`, or `claim` alone for the lock).

The owner holds an exclusive `flock` on `<folder>/.lock`, which also names it (pid, host,
command, start). A second writer is refused with one line naming the first; nothing is
merged or overwritten. The kernel drops the lock when the owner ends, however it ends
(SIGKILL included), so a lock file left behind never blocks anyone.

`<folder>/.montverif.json` stamps what kind of result the folder holds and how the command
that wrote it ended. A command refuses a folder that holds another kind of result or files
montverif did not write, whatever its options; it empties a folder of its own kind only where
the user asked for it (`--force`) or the folder is the command's own default.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import fcntl
import json
import os
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from montverif.host.errors import ConfigError
from montverif.host.paths import remove_tree

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


# --- what a folder holds: one kind of result, stamped --------------------------------------

STAMP_NAME = ".montverif.json"


@dataclass(frozen=True)
class FolderKind:
    """A kind of result folder. `marks` name files that only this kind writes, so that a
    folder of an older montverif (no stamp) is still known for what it is."""
    name: str
    marks: tuple[str, ...]


RUN = FolderKind("simulation run", ("outcome.json", "sim.log"))
REGRESSION = FolderKind("regression", ("plan.json", "summary.json"))
CAMPAIGN = FolderKind("mutation campaign", ("mutants.json", "mutants"))
PROOF_CHECKS = FolderKind("check of the recorded equivalence proofs", ())
HOLE_REPLAYS = FolderKind("replay of SBY's distinguishing inputs", ())
CLOSURE = FolderKind("coverage closure", ("closure.json",))
SYNTHESIS = FolderKind("synthesis", ("synth.json", "synth.ys", "yosys.log"))
PLACE_ROUTE = FolderKind("place and route", ("pnr.json",))
PROOF = FolderKind("formal check", ("formal.sby", "formal.json"))
PROOF_POINTS = FolderKind("set of formal checks", ())
COVER_RUN = FolderKind("formal cover run", ("covers.sby",))
BENCH = FolderKind("benchmark", ("throughput.png", "results.json"))
# the more particular first: a place-and-route folder holds a synthesis's files too
# (a closure's folder holds a summary.json as a regression's does)
KINDS = (RUN, CLOSURE, REGRESSION, CAMPAIGN, PROOF_CHECKS, HOLE_REPLAYS, PLACE_ROUTE,
         SYNTHESIS, PROOF, PROOF_POINTS, COVER_RUN, BENCH)
_OWN = (LOCK_NAME, STAMP_NAME)


class Mode(enum.Enum):
    """What a command may do with a folder that holds a result of its own kind already (a
    folder of another kind, or holding files montverif did not write, is always refused)."""
    NEW = "new"  # refused: the user names the folder again with --force to replace it
    REPLACE = "replace"  # emptied first (the command's own default folder, or --force)
    KEEP = "keep"  # written into as it is (resume, merge into it again, bench --merge)
    UPDATE = "update"  # it must hold one, written into as it is (`existing`)


def _stamp_of(folder: Path) -> dict[str, object] | None:
    """The folder's stamp; None if it has none; {} if it cannot be read as one."""
    try:
        raw = json.loads((folder / STAMP_NAME).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) and isinstance(raw.get("kind"), str) else {}


def _results(folder: Path) -> list[str]:
    """The names in `folder`, its owner's lock and stamp aside."""
    return sorted(e.name for e in folder.iterdir() if e.name not in _OWN)


def found_kind(folder: Path) -> tuple[str | None, str]:
    """(the kind of result the folder holds, how it stands): (None, "") when it holds
    nothing, ("", names) when it holds files that no kind of result marks."""
    entries = _results(folder)
    if not entries:  # a stamp alone (its command failed before it wrote anything)
        return None, ""
    stamp = _stamp_of(folder)
    if stamp:
        state = stamp.get("state")
        if state == "running":  # its writer held the lock, which is free now: killed
            state = "unfinished"
        return str(stamp["kind"]), (f"{state}, " if isinstance(state, str) else "") + \
            f"written by `{stamp.get('command', '?')}` at {stamp.get('started', '?')}"
    if stamp == {}:
        return "", f"{STAMP_NAME} that cannot be read"
    for kind in KINDS:
        if any(mark in entries for mark in kind.marks):
            return kind.name, "written by an earlier montverif"
    shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
    return "", shown


FORCE = "add --force to replace it"


def _refusal(folder: Path, kinds: tuple[FolderKind, ...], mode: Mode, again: str = FORCE
             ) -> str | None:
    """Why `folder` may not take a result of the first of `kinds` under `mode` (the others:
    kinds an update may also find there); None: it may."""
    found, how = found_kind(folder)
    names = " or ".join(k.name for k in kinds)
    if found is None:
        return None if mode is not Mode.UPDATE else f"{folder} holds no {names}"
    if found == "":
        return (f"{folder} holds files montverif did not write ({how}); montverif never "
                "writes over them: choose a new or empty folder")
    if found not in {k.name for k in kinds}:
        return f"{folder} holds a {found} ({how}), not a {names}: choose another folder"
    if mode is Mode.NEW:
        return f"{folder} holds a {found} already ({how}): choose another folder, or {again}"
    return None


def _write_stamp(folder: Path, kind: FolderKind, state: str, started: str) -> None:
    command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
    tmp = folder / f"{STAMP_NAME}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps({"kind": kind.name, "state": state,
                                   "command": command[:300], "started": started}) + "\n")
        os.replace(tmp, folder / STAMP_NAME)
    except OSError:  # a full disk: the old stamp stays whole
        tmp.unlink(missing_ok=True)
        raise


# the results folders this process has written into (outermost first), for the one line
# that a full disk ends a command with: what was kept
WRITTEN: list[Path] = []


def kept() -> list[Path]:
    """The outermost results folders this process wrote into."""
    return [f for f in WRITTEN if not any(f != o and f.is_relative_to(o) for o in WRITTEN)]


@contextlib.contextmanager
def output(folder: Path, kind: FolderKind, mode: Mode = Mode.NEW, again: str = FORCE
           ) -> Iterator[Path]:
    """Own `folder` for a result of `kind` while the block runs: a second writer is refused
    (FolderBusy), and so is a folder holding another kind of result, files montverif did not
    write, or (Mode.NEW) a result of this kind already (ConfigError, one line that ends with
    `again`, how to go on). Mode.REPLACE empties a folder of this kind first; nothing else is
    ever removed. The folder's stamp names the kind and says how the command ended:
    complete, interrupted or failed."""
    created = not folder.exists()
    had_lock = (folder / LOCK_NAME).exists()
    with claim(folder, kind.name + " folder"):
        _refuse_if(_refusal(folder, (kind,), mode, again), folder, had_lock)
        if mode is Mode.REPLACE:
            clear(folder)
        started = datetime.now().isoformat(timespec="seconds")
        _write_stamp(folder, kind, "running", started)
        if folder not in WRITTEN:
            WRITTEN.append(folder)
        state = "failed"
        try:
            yield folder
            state = "complete"
        except KeyboardInterrupt:
            state = "interrupted"
            raise
        finally:
            _finish(folder, kind, state, started, created)


def _finish(folder: Path, kind: FolderKind, state: str, started: str, created: bool) -> None:
    """The stamp says how the command ended; a command that ended before it wrote anything
    leaves nothing behind (the folder too, if it made it)."""
    with contextlib.suppress(OSError):  # a full disk keeps "running": not complete
        if state == "complete" or _results(folder):
            _write_stamp(folder, kind, state, started)
            return
        for own in _OWN:
            (folder / own).unlink(missing_ok=True)
        if created:
            folder.rmdir()


@contextlib.contextmanager
def existing(folder: Path, kinds: tuple[FolderKind, ...]) -> Iterator[Path]:
    """Own `folder`, which must hold a result of one of `kinds`, while the block writes into
    it as it is (a report rendered again, coverage merged into it); its stamp is kept."""
    if not folder.is_dir():
        raise ConfigError(f"no such results folder: {folder}")
    had_lock = (folder / LOCK_NAME).exists()
    with claim(folder, f"{kinds[0].name} folder"):
        _refuse_if(_refusal(folder, kinds, Mode.UPDATE), folder, had_lock)
        yield folder


def _refuse_if(why: str | None, folder: Path, had_lock: bool) -> None:
    """ConfigError(why), if any, the refused folder left as it was (its lock file too)."""
    if why is None:
        return
    if not had_lock:
        with contextlib.suppress(OSError):
            (folder / LOCK_NAME).unlink()
    raise ConfigError(why)
