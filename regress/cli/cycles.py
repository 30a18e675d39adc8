"""Cycle-count tables from transaction logs, set beside what the papers state.

    montverif cycles [RESULTS_DIR ...] [--write [FILE]]

Reads every `txns.jsonl` below the given folders (default: the latest regression and
build/runs) and prints (or writes, by default to docs/generated/cycles.md) the measured cycles per
design and width beside the model's count and the paper's formula.
"""

from __future__ import annotations

from pathlib import Path

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, work
from montverif.models.result import ModelInputError
from montverif.regress.cli.args import Parser, fail
from montverif.regress.report.cycles import COMMAND, DEFAULT_OUT, collect, render


def main(argv: list[str]) -> int:
    ap = Parser("montverif cycles", __doc__)
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--write", nargs="?", const=DEFAULT_OUT, type=Path, default=None,
                    help=f"write the table (default {DEFAULT_OUT.relative_to(ROOT)}): a new "
                    "file or a page montverif generated")
    args = ap.parse_args(argv)
    dirs = args.dirs or [work() / "regress" / "latest", work() / "runs"]
    missing = [d for d in dirs if not d.exists()]
    if args.dirs and missing:
        return fail(f"no such folder: {missing[0]}")
    try:
        if args.write:
            pages.check(args.write)
        table = collect([d for d in dirs if d.exists()])
        if not table:
            return fail("no transaction logs found; run `montverif regress` first")
        text = render(table)
        if args.write:
            pages.write(args.write, COMMAND, text)
    except (ConfigError, ModelInputError) as exc:
        return fail(exc)
    if args.write:
        print(f"wrote {args.write}")
    else:
        print(text)
    return 0
