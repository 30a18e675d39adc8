"""Interrupts of every command: SIGTERM is treated like Ctrl-C (SIGINT); either ends every
process tree the command started at once (host.processes) and the command with one
`interrupted:` line and exit code 130, never a traceback. `montverif` installs the rule for
every command (montverif.regress.cli.main); a command that has more to say (which run folder,
what was kept) catches KeyboardInterrupt itself and says it through `interrupted`."""

from __future__ import annotations

import sys

from montverif.host.processes import interrupts

INTERRUPTED = 130  # 128 + SIGINT, as shells report it

# the rule, for commands also called without `montverif main` (the tests call regress.main)
terminate_as_interrupt = interrupts


def interrupted(what: str) -> int:
    """Print the one line for an interrupted command; returns the exit code."""
    print(f"interrupted: {what}", file=sys.stderr, flush=True)
    return INTERRUPTED
