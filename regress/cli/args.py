"""What every command's parser shares: bad input is one `error:` line and exit code 2, and
every numeric option has a documented bound (montverif.spec.bounds), shown in its help and
checked as it is parsed: `bounded(TIMEOUT_S)`, `bounded_int(lo, hi)`, `finite_float(lo, hi)`
as the option's `type`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from montverif.regress.flow.spec import RunSpec
from montverif.spec.bounds import Bound
from montverif.spec.designs import broken, known_designs, load_design


class Bounded:
    """An option's `type` for a number within a Bound: `--timeout nan`, `-1` or `10**30` is
    the parser's one-line error (`argument --timeout: must be an integer 1..604800 (got
    -1)`); text that is no number keeps argparse's own `invalid int value: 'x'`."""

    def __init__(self, bound: Bound) -> None:
        self.bound = bound
        self.__name__ = "int" if bound.integer else "float"  # argparse's `invalid int value`

    def __call__(self, text: str) -> int | float:
        try:
            value: int | float = int(text) if self.bound.integer else float(text)
        except ValueError:
            float(text)  # no number at all: argparse's `invalid int value: 'x'`
            raise argparse.ArgumentTypeError(self.bound.message(text)) from None  # nan, 1e30
        if not self.bound.holds(value):
            raise argparse.ArgumentTypeError(self.bound.message(value))
        return value

    def __repr__(self) -> str:
        return self.__name__


def bounded(bound: Bound) -> Bounded:
    """The option type of a number within one of montverif.spec.bounds's bounds."""
    return Bounded(bound)


def bounded_int(lo: int, hi: int) -> Bounded:
    """The option type of an integer lo..hi."""
    return Bounded(Bound(lo, hi))


def finite_float(lo: float, hi: float, above: bool = False, unit: str = "") -> Bounded:
    """The option type of a finite number lo..hi (`above`: lo itself excluded)."""
    return Bounded(Bound(lo, hi, integer=False, above=above, unit=unit))


class Repeated(ValueError):
    """An item given twice in a comma-separated option (one line)."""


def distinct(text: str, what: str, convert: Callable[[str], Any] = str) -> list[Any]:
    """A comma-separated option's items, each converted, each once (`--tests a,a`,
    `--widths 256,256`: which was meant?): Repeated naming the repeated item; convert's
    own errors pass through."""
    items = [convert(t.strip()) for t in text.split(",") if t.strip()]
    if twice := sorted({str(i) for i in items if items.count(i) > 1}):
        raise Repeated(f"{what}: {', '.join(twice)} given twice ({text!r}): give each once")
    return items


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage dump) and exit 2."""

    def __init__(self, prog: str | None = None, doc: str | None = None,
                 **kwargs: object) -> None:
        kwargs.setdefault("description", doc)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(prog=prog, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """As argparse's; an option of a Bounded type states its bound in its help."""
        kind = kwargs.get("type")
        if isinstance(kind, Bounded) and kwargs.get("help") is not argparse.SUPPRESS:
            kwargs["help"] = " ".join(filter(None, [kwargs.get("help"),
                                                   f"[{kind.bound.text}]".replace("%", "%%")]))
        return super().add_argument(*args, **kwargs)

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
