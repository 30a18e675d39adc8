"""Every process tree a command starts, and the one rule that ends them.

A tool (Yosys, SBY and its solvers, nextpnr, a compiler, make) runs under a supervisor
(host/supervise.py) in a session of its own: `run` and `started` here, never subprocess
directly. The supervisor is a child subreaper, so descendants that detach stay in its tree;
it ends the whole tree when told to, when this process ends however it ends (SIGKILL
included: its watch pipe closes), and when the tool exits leaving descendants behind. A
simulation runs the same way (flow.simulate: the simulator under a supervisor) or in a
batch's child process (flow.child), which watches its own pipe and ends its own session;
each is registered here as well (`TREES.add`).

`TREES` holds the trees running now. An interrupt (SIGINT or SIGTERM, once `interrupts()` is
in force: every `montverif` command has it) ends them all at once, refuses new starts until
the interrupted work has wound down (`allow_starts`), and raises KeyboardInterrupt in the main
thread. A worker thread whose tool was ended that way gets `Interrupted` (a KeyboardInterrupt);
nothing waits for a tool to finish on its own after Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

SUPERVISOR = Path(__file__).with_name("supervise.py")

Proc = subprocess.Popen[Any]


class Interrupted(KeyboardInterrupt):
    """A tool was ended by an interrupt of the command, or not started because one is
    under way. A KeyboardInterrupt: no `except Exception` takes it for the tool's failure,
    and from a worker thread it reaches the command's main thread as the interrupt."""

    def __init__(self, what: str = "") -> None:
        super().__init__(f"interrupted: {what} was ended" if what else "interrupted")


def terminate(proc: Proc) -> None:
    """Ask a supervised tree to end (its supervisor ends the tree, then itself)."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)


def wait(proc: Proc, timeout: float) -> None:
    """As proc.wait(timeout=timeout) (subprocess.TimeoutExpired past it), returning the moment
    the process ends: subprocess's wait with a timeout polls, up to 0.05 s late at each end of
    a run; on Linux a pidfd wakes this process at once."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux (or before 5.3), or reaped already
        proc.wait(timeout=timeout)
        return
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    if not ready:
        raise subprocess.TimeoutExpired(proc.args, timeout)
    proc.wait()


def kill_group(proc: Proc) -> None:
    """End the session a process leads (a simulation's supervisor, or a batch's child)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


class Trees:
    """The process trees this process runs now, so that an interrupt can end them all."""

    def __init__(self) -> None:
        # re-entrant: the interrupt handler runs in the main thread, which may hold it
        self._lock = threading.RLock()
        self._running: dict[int, tuple[Proc, Callable[[Proc], None]]] = {}
        self._ended: set[int] = set()
        # after an interrupt, until the interrupted work has wound down (allow_starts): a
        # tree that would start is refused (`started`) or ended at once (`add`)
        self.ending = False

    def add(self, proc: Proc, end: Callable[[Proc], None] = terminate) -> None:
        with self._lock:
            self._running[proc.pid] = (proc, end)
            if self.ending:
                self._ended.add(proc.pid)
                end(proc)

    def remove(self, proc: Proc) -> bool:
        """Forget proc; whether end_all ended it."""
        with self._lock:
            self._running.pop(proc.pid, None)
            return proc.pid in self._ended

    def end_all(self) -> int:
        """End every running tree; how many there were."""
        with self._lock:
            self.ending = True
            running = [(p, end) for p, end in self._running.values() if p.poll() is None]
            for proc, end in running:
                self._ended.add(proc.pid)
                end(proc)
        return len(running)


TREES = Trees()


def end_all() -> int:
    """End every tree this process runs (an interrupt), and every one that would start
    until allow_starts(); how many were running."""
    return TREES.end_all()


def ending() -> bool:
    """Whether an interrupt is ending every tree (until allow_starts)."""
    return TREES.ending


def allow_starts() -> None:
    """Trees may start again (the interrupted work has returned)."""
    TREES.ending = False


def supervised(cmd: Sequence[str], watch_fd: int,
               orphaned: tuple[Path, str] | None = None) -> list[str]:
    """The command line that runs `cmd` under a supervisor watching `watch_fd`; `orphaned`:
    the file it writes, and its text, when the process holding the pipe's other end ends
    first."""
    extra = [] if orphaned is None else ["--orphaned", str(orphaned[0]), orphaned[1]]
    return [sys.executable, "-I", "-S", str(SUPERVISOR), str(watch_fd), *extra,
            *map(str, cmd)]


@contextlib.contextmanager
def started(cmd: Sequence[str], what: str = "", **popen: Any) -> Iterator[Proc]:
    """`cmd` started under a supervisor (Popen's keyword arguments, but no session or
    pass_fds of the caller's), registered while the block runs. The tree is ended if the
    block raises (an interrupt too); Interrupted if an interrupt ended it or one is under
    way. `what` names it in that message (default: the program)."""
    what = what or Path(str(cmd[0])).name
    if TREES.ending:
        raise Interrupted(what)
    watch_r, watch_w = os.pipe()
    try:
        proc: Proc = subprocess.Popen(supervised(cmd, watch_r), pass_fds=(watch_r,),
                                      start_new_session=True, **popen)
    except BaseException:
        os.close(watch_w)
        raise
    finally:
        os.close(watch_r)
    TREES.add(proc)
    try:
        with proc:
            try:
                yield proc
            except BaseException:
                terminate(proc)
                raise
    finally:
        os.close(watch_w)
        ended = TREES.remove(proc)
    if ended:
        raise Interrupted(what)


def run(cmd: Sequence[str], *, timeout: float | None = None, input: str | bytes | None = None,
        capture_output: bool = False, what: str = "", **popen: Any
        ) -> subprocess.CompletedProcess[Any]:
    """As subprocess.run (check=False), the tool supervised: past `timeout` seconds its
    whole tree is ended and subprocess.TimeoutExpired raised; Interrupted when an interrupt
    ended it."""
    if capture_output:
        popen |= {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    with started(cmd, what, **popen) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            terminate(proc)
            out, err = proc.communicate()
            raise subprocess.TimeoutExpired(list(cmd), timeout or 0, out, err) from None
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    end_all()
    raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM end every tree at once and raise
    KeyboardInterrupt in the main thread (outside the main thread: unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.signal(sig, _on_interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
