"""`montverif`: the one command of the project.

    montverif [--workdir DIR] [--project DIR] <command> [options]
    montverif <command> --help      montverif --version

Your own designs live in a project of your own: --project DIR, else $MV_PROJECT, else the
nearest folder upwards with a montverif.toml (docs/own-design.md). Results go to the work
folder: --workdir DIR, else $MV_WORKDIR, else the project's (build/ beside montverif.toml),
else ./build (the current folder's). Compiled builds go to the user's cache ($MV_CACHE,
else ~/.cache/montverif).

Every command prints one `error:` line and exits 2 on bad input, and on a file it cannot read
or write (a read-only build/); a failed test or run exits 1; Ctrl-C or SIGTERM ends every tool
the command started and the command with one `interrupted:` line and exit code 130.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import re
import shutil
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version as package_version
from pathlib import Path

from montverif.host import claim, paths, processes, project
from montverif.host.errors import ConfigError

# Every layer's descriptor checks (designs.add_check, run as the descriptors are read): the
# models' registry and the regression lists register theirs on import, so that every command
# refuses a broken descriptor alike (a design whose list entries are wrong, too), whichever
# modules the command itself imports.
from montverif.models import registry as _models_registry  # noqa: F401
from montverif.regress.cli.args import fail
from montverif.regress.cli.interrupt import interrupted
from montverif.regress.regression import lists as _regression_lists  # noqa: F401

Main = Callable[[list[str]], int]


@dataclass(frozen=True)
class Command:
    """A subcommand: the module whose `main(argv)` runs it (imported only when the command
    runs, so that `montverif sim` does not import synthesis, mutation and the benchmarks),
    the words put before its arguments, and its one-line summary."""
    module: str
    summary: str
    prefix: tuple[str, ...] = ()

    def main(self, argv: list[str]) -> int:
        run: Main = importlib.import_module(self.module).main
        return run([*self.prefix, *argv])


def _cli(name: str, summary: str) -> Command:
    return Command(f"montverif.regress.cli.{name}", summary)


def _regress(name: str, summary: str) -> Command:
    """The list runner's commands: `montverif regress|lists|merge|report ...`."""
    return Command("montverif.regress.cli.regress", summary, (name,))


COMMANDS: dict[str, Command] = {
    "sim": _cli("sim", "one simulation: build (when stale) and run the cocotb tests"),
    "regress": _regress("regress",
                        "run a regression list in parallel (report, JUnit, buckets, history)"),
    "lists": _regress("lists", "the regression lists, or every run of one"),
    "merge": _regress("merge", "join shard results folders into one"),
    "report": _regress("report", "render a results folder's report again"),
    "closure": _cli("closure", "functional coverage: merge, report, steered closure"),
    "codecov": _cli("codecov", "Verilator line/toggle coverage: fetch the tool, merge"),
    "formal": _cli("formal", "prove a block's assertions with SymbiYosys (k-induction)"),
    "mutate": _cli("mutate", "mutation campaign of one design (report DIR, proofs ...)"),
    "bench": _cli("bench", "benchmarks: throughput, build times, cycles, wall times"),
    "cycles": _cli("cycles", "docs/generated/cycles.md from a regression's transaction logs"),
    "synth": _cli("synth", "synthesis, place and route and their tables (run, pnr, table, ...)"),
    "lint": _cli("lint", "RTL lint on both simulators, generated files, ruff"),
    "generate": _cli("generate", "derived files: the RTL package, docs/generated/regmap.md, "
                     "README, FuseSoC cores"),
    "files": _cli("files", "a design's filelist (sources in compile order, +incdir+)"),
    "models": Command("montverif.models.cli", "the bit-accurate models: list them, run one "
                      "operation"),
    "rsa-figures": _cli("rsa_figures", "the RSA core's measured figures "
                        "(docs/generated/rsa-figures.md)"),
    "new-design": _cli("new_design", "a new design as a working copy of another"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [(__doc__ or "").strip(), "", "commands:"]
    lines += [f"  {name:<{width}}  {cmd.summary}" for name, cmd in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    # a closed pipe (`montverif lists | head`) ends the command quietly, as for other tools
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if args[:1] == ["--version"]:
        print(f"montverif {package_version('montverif')}")
        return 0
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    try:
        args = _global_options(args)
        project.current()  # a malformed montverif.toml: one line, before any command
    except (ValueError, ConfigError) as exc:
        return fail(str(exc))
    if not args:
        print(usage())
        return 2
    name, rest = args[0], args[1:]
    command = COMMANDS.get(name)
    if command is None:
        print(f"error: unknown command {name!r} (commands: {', '.join(COMMANDS)}; "
              "see montverif --help)", file=sys.stderr)
        return 2
    try:
        with processes.interrupts():
            return command.main(rest)
    except KeyboardInterrupt:  # processes.Interrupted too
        return interrupted(f"`montverif {name}` was ended; every tool it had started has "
                           "ended too")
    except shutil.Error as exc:  # a copy of a tree: the first file it could not copy
        src, dst, why = exc.args[0][0] if exc.args and exc.args[0] else ("", "", str(exc))
        reason = m.group(1) if (m := re.search(r"\[Errno \d+\] ([^:]+)", str(why))) else why
        folders = ", ".join(str(_shown(f)) for f in claim.kept())
        return fail(f"cannot copy {_shown(src)} to {_shown(dst)}: {reason}"
                    + (f"; kept as they stood, unfinished: {folders}" if folders else ""))
    except OSError as exc:
        if exc.errno in _FULL:  # a write that failed at its end names no file
            return fail(full_disk(exc))
        if not isinstance(exc.filename, (str, bytes, os.PathLike)):  # no path: a bug, as is
            raise
        return fail(file_error(exc))


def _global_options(args: list[str]) -> list[str]:
    """Take the options before the command (--workdir DIR, --workdir=DIR) and return the
    rest; ValueError with the reason for a bad one."""
    while args and args[0].split("=")[0] in ("--workdir", "--project"):
        opt, eq, value = args[0].partition("=")
        if not eq:
            if len(args) < 2:
                raise ValueError(f"{opt} needs a folder")
            value, args = args[1], args[2:]
        else:
            args = args[1:]
        folder = Path(value).expanduser()
        if opt == "--project":
            if not value or not folder.is_dir():
                raise ValueError(f"--project {value!r}: not a folder")
            try:
                project.use(folder)
            except ConfigError as exc:
                raise ValueError(str(exc).replace("MV_PROJECT=", "--project ")) from None
            continue
        if not value or (folder.exists() and not folder.is_dir()):
            raise ValueError(f"--workdir {value!r}: not a folder")
        paths.use_work(folder)
    return args


# errors that only a write can meet; others (permission, not found) name the path as they are
_WRITE_ERRNOS = (errno.EROFS, errno.ENOSPC, errno.EDQUOT)
_FULL = (errno.ENOSPC, errno.EDQUOT)


def full_disk(exc: OSError) -> str:
    """One line for a full disk (or quota): the file if known, and what was kept: the
    results folders the command wrote into, as they stood (their stamps say unfinished)."""
    where = f"cannot write {_shown(exc.filename)}" if isinstance(
        exc.filename, (str, bytes, os.PathLike)) else "cannot write"
    folders = claim.kept()
    what = ("; kept as they stood, unfinished: " + ", ".join(str(_shown(f)) for f in folders)
            if folders else "")
    return f"{where}: {exc.strerror or 'No space left on device'}{what}"


def _shown(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> Path:
    """A path relative to the working directory when inside it."""
    shown = Path(os.fsdecode(path)).absolute()
    with contextlib.suppress(ValueError):
        shown = shown.relative_to(Path.cwd())
    return shown


def file_error(exc: OSError) -> str:
    """One line for a file the command could not read or write (a read-only or full build/,
    a path that is a directory): the path, relative to the working directory when inside
    it, and the system's reason."""
    path = _shown(exc.filename)
    reason = exc.strerror or type(exc).__name__
    if exc.errno in _WRITE_ERRNOS:
        return f"cannot write {path}: {reason}"
    return f"{path}: {reason}"


if __name__ == "__main__":
    sys.exit(main())
