"""`montverif formal`: prove a block's assertions with SymbiYosys (docs/formal.md).

    montverif formal --block mv_bus_loader [--n 8] [--busw 8] [--ack-wait 0]
                     [--params HasE=1,HasHalves=1] [--depth 20] [--mode prove|bmc]
                     [--cover-depth 24] [--timeout 600] [--overlay DIR] [--out DIR]

Runs in a folder of its own (build/formal/<key>-<random>, or --out, which must be empty):
the generated formal.sby, SBY's task folders (formal_proof, formal_cover), formal.json with
the verdict. Prints one line: PROVED (k-induction closed, every cover reached), FAILED (the
failing assertion, its step and the counterexample VCD), BOUNDED (no counterexample within
the depth; not an unbounded proof), VACUOUS (a cover unreached) or UNKNOWN (no verdict).

Exit 0 when the verdict is the one the mode asks for (proved with --mode prove, bounded with
--mode bmc), 1 otherwise, 2 on bad input or missing tools (one `error:` line).
"""

from __future__ import annotations

from pathlib import Path

from montverif.regress.cli.args import Parser, fail
from montverif.regress.flow import formal, tools
from montverif.spec.errors import ConfigError


def _params(text: str) -> tuple[tuple[str, int], ...]:
    out = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--params {text!r}: write NAME=VALUE[,NAME=VALUE...]")
        try:
            out.append((name.strip(), int(value, 0)))
        except ValueError:
            raise ConfigError(f"--params: {name.strip()}={value!r} is not an integer") from None
    return tuple(out)


def main(argv: list[str]) -> int:
    ap = Parser("montverif formal", __doc__)
    ap.add_argument("--block", required=True, help=f"one of: {', '.join(formal.BLOCKS)}")
    ap.add_argument("--n", type=int, default=None, help="operand width N (default 8)")
    ap.add_argument("--busw", type=int, default=None, help="bus width BusW (default 8)")
    ap.add_argument("--ack-wait", type=int, default=None, help="wait states (default 0)")
    ap.add_argument("--params", default="", help="other harness parameters, NAME=VALUE,...")
    ap.add_argument("--depth", type=int, default=20,
                    help="k of k-induction and the bound of the base case / BMC (20)")
    ap.add_argument("--mode", choices=formal.MODES, default="prove")
    ap.add_argument("--cover-depth", type=int, default=24,
                    help="how deep the cover task searches (24)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per SBY task (600)")
    ap.add_argument("--overlay", default="",
                    help="a folder whose files replace the block's sources of the same name")
    ap.add_argument("--out", type=Path, default=None, help="the run's folder (must be empty)")
    args = ap.parse_args(argv)
    try:
        params = _params(args.params)
        given = (("N", args.n), ("BusW", args.busw), ("AckWait", args.ack_wait))
        params = tuple((k, v) for k, v in given if v is not None) + params
        spec = formal.FormalSpec(args.block, params, depth=args.depth, mode=args.mode,
                                 cover_depth=args.cover_depth, timeout_s=args.timeout,
                                 overlay=str(Path(args.overlay).resolve()) if args.overlay
                                 else "")
        verdict = formal.run(spec, args.out)
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)
    print(verdict.line(), flush=True)
    wanted = "proved" if spec.mode == "prove" else "bounded"
    return 0 if verdict.status == wanted else 1
