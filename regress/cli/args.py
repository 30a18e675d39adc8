"""What every command's parser shares: bad input is one `error:` line and exit code 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from typing import NoReturn

from montverif.regress.flow.spec import RunSpec
from montverif.spec.designs import broken, known_designs, load_design


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage dump) and exit 2."""

    def __init__(self, prog: str | None = None, doc: str | None = None,
                 **kwargs: object) -> None:
        kwargs.setdefault("description", doc)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(prog=prog, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        """As argparse's, but an unknown option after a subcommand is that subcommand's
        error (`see montverif lists --help`), not the top command's."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The subcommand's parser that parsed `parsed` (this one if it has none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                name = getattr(parsed, action.dest or "", None)
                sub = action.choices.get(name) if name else None
                if isinstance(sub, Parser):
                    return sub._chosen(parsed)
        return self


def fail(message: object) -> int:
    """Print one `error:` line for bad input; returns the exit code 2."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2


def warn_broken() -> None:
    """One `warning:` line on stderr per broken descriptor, for a command that lists or runs
    every design: its design is left out, the others are there (montverif.spec.designs)."""
    for line in broken():
        print(f"warning: {line} (left out)", file=sys.stderr, flush=True)


def warn_kept(runs: Iterable[RunSpec]) -> None:
    """One stderr line per design whose secret operands the runs keep in clear."""
    kept = sorted({r.build.dut for r in runs if r.keep_secrets and r.build.dut in
                   known_designs() and load_design(r.build.dut).secret})
    for dut in kept:
        print(f"warning: --keep-secrets: {dut}'s secret operands "
              f"({', '.join(load_design(dut).secret)}) are written in clear; keep these run "
              "folders out of shared artifacts", file=sys.stderr, flush=True)
