"""Interrupts of the long-running commands (`sim`, `regress`): SIGTERM is treated like
Ctrl-C (SIGINT), and either ends the command with one line and exit code 130, never a
traceback. The flow ends the simulations it started (flow.simulate.end_all) and marks their
run folders interrupted."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises KeyboardInterrupt in the main thread, as SIGINT
    does (outside the main thread, e.g. a command called from a worker thread: unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def interrupted(what: str) -> int:
    """Print the one line for an interrupted command; returns the exit code."""
    print(f"interrupted: {what}", file=sys.stderr, flush=True)
    return INTERRUPTED
