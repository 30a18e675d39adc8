"""Verilator line and toggle coverage (montverif.regress.coverage.code).

    montverif codecov fetch             extract verilator_coverage (make coverage-tools)
    montverif codecov merge RESULTS_DIR merge the runs' coverage.dat, annotate, summarise
"""

from __future__ import annotations

from pathlib import Path

from montverif.host.tools import ToolError
from montverif.regress.cli.args import Parser, fail
from montverif.regress.coverage import code as codecov
from montverif.regress.coverage import merge as cov


def main(argv: list[str]) -> int:
    ap = Parser("montverif codecov", __doc__)
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)
    sub.add_parser("fetch", help="extract verilator_coverage into the user's cache")
    mg = sub.add_parser("merge", help="merge a results folder's coverage.dat files")
    mg.add_argument("results", type=Path)
    args = ap.parse_args(argv)
    try:
        if args.command == "fetch":
            print(codecov.tool())
            return 0
        code = codecov.merge_code(args.results)
        print(code["line_text"] if code else "no run with coverage.dat (build with COV=1)")
        return 0
    except (ToolError, cov.CoverageError) as exc:
        return fail(exc)
