"""What every command's parser shares: bad input is one `error:` line and exit code 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage dump) and exit 2."""

    def __init__(self, prog: str | None = None, doc: str | None = None,
                 **kwargs: object) -> None:
        kwargs.setdefault("description", doc)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(prog=prog, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def fail(message: object) -> int:
    """Print one `error:` line for bad input; returns the exit code 2."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2
