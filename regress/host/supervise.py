"""The supervisor of one tool's process tree (host.processes starts every tool under it):

    python -I -S supervise.py WATCH_FD [--orphaned FILE TEXT] COMMAND [ARG...]

It runs COMMAND as its child and stays its parent until the whole tree has gone. It is a
child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER), so a descendant whose parent exits, or
that detaches into a session of its own (SBY's solvers, a daemonising tool), is re-parented
to it and stays in its tree. It ends every descendant, SIGTERM first and SIGKILL after a
grace period:

- when it is told to (SIGTERM, SIGINT or SIGHUP: the command's interrupt or time limit);
- when the command that started it ends, however it ends, SIGKILL included: WATCH_FD is the
  read end of a pipe whose write end only that command holds, and reads end-of-file then
  (with --orphaned, it first writes TEXT into FILE, whole or not at all: what that command
  would have recorded);
- when COMMAND exits and leaves descendants behind (they would outlive the run and hold its
  folder).

Its exit status is COMMAND's: the same code, or the same signal. Told to end, it ends by
SIGTERM. Only the standard library is used, and nothing of montverif (it starts in tens of
milliseconds, whatever the environment).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
# how long the tree has after SIGTERM before SIGKILL ends what is left of it
GRACE_S = 3.0
ASKED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
WAITED = {signal.SIGCHLD, *ASKED}
# set to their defaults in the tool: Python ignores SIGPIPE and SIGXFSZ, which a tool must not
# inherit (as subprocess's restore_signals does)
DEFAULTS = {*WAITED, signal.SIGPIPE, signal.SIGXFSZ}


def _subreaper() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: orphans go to init, as without it
        pass


def descendants(root: int) -> list[int]:
    """Every live process below `root` (by parent links, read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z":  # a zombie holds nothing; its parent (or we) reaps it
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return found


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _reap(child: int, status: list[int]) -> None:
    """Reap every exited child (the tool, and orphans re-parented to this subreaper);
    the tool's wait status goes into `status`."""
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid == child:
            status.append(st)


def end_tree(me: int, child: int, status: list[int]) -> None:
    """SIGTERM to every descendant, SIGKILL to those left after GRACE_S, until none is."""
    deadline = time.monotonic() + GRACE_S
    sig = signal.SIGTERM
    while pids := descendants(me):
        _signal_all(pids, sig)
        if sig == signal.SIGTERM and time.monotonic() > deadline:
            sig = signal.SIGKILL
            continue
        time.sleep(0.02)
        _reap(child, status)
    _reap(child, status)


def _watch(fd: int, orphaned: tuple[str, str] | None) -> None:
    """Block until the command's end of the pipe closes; then write the orphan's record, if
    any, and ask this process to end."""
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    if orphaned is not None:
        _write_whole(*orphaned)
    os.kill(os.getpid(), signal.SIGTERM)


def _write_whole(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it and a rename, so that a
    reader sees the whole record or none (a full disk leaves the file as it was)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _exit_as(status: int) -> None:
    """End with the tool's status: its code, or by its signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, WAITED)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 128)


def supervise(watch_fd: int, argv: list[str], orphaned: tuple[str, str] | None = None) -> None:
    _subreaper()
    me = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, WAITED)
    try:
        # the tool gets the signal mask and handlers a process normally starts with
        child = os.posix_spawnp(argv[0], argv, dict(os.environ), setsigmask=(),
                                setsigdef=DEFAULTS)
    except OSError as exc:
        print(f"error: cannot start {argv[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(127)
    if watch_fd >= 0:
        threading.Thread(target=_watch, args=(watch_fd, orphaned), daemon=True).start()
    status: list[int] = []
    while not status:
        info = signal.sigtimedwait(WAITED, 1.0)
        _reap(child, status)
        if info is not None and info.si_signo in ASKED:
            end_tree(me, child, status)
            _signal_exit()
    end_tree(me, child, status)  # what the tool left behind
    _exit_as(status[0])


def _signal_exit() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, WAITED)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    os._exit(128 + signal.SIGTERM)


if __name__ == "__main__":
    if sys.argv[2] == "--orphaned":
        supervise(int(sys.argv[1]), sys.argv[5:], (sys.argv[3], sys.argv[4]))
    else:
        supervise(int(sys.argv[1]), sys.argv[2:])
