"""Fixtures shared by the tests of regress/."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in this process, as Ctrl-C at a terminal does, and
    the processes it starts get the default action. A test suite started in the background
    of a non-interactive shell (`cmd &`, as a CI runner may) inherits SIGINT ignored, and an
    interrupt test would then wait for an interrupt that never comes."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
