"""`montverif formal`: prove a block's assertions, or a design's core against its function,
with SymbiYosys (docs/formal.md).

    montverif formal --block mv_bus_loader [--n 8] [--busw 8] [--ack-wait 0]
                     [--params HasE=1,HasHalves=1] [--depth 20] [--mode prove|bmc]
                     [--cover-depth 24] [--timeout 600] [--overlay DIR] [--out DIR]
    montverif formal --dut mont_r2 [--n 8] [--params P=2] [--depth K] [--overlay DIR] ...

--dut: the design's core in a harness generated from its descriptor, checked by BMC through
its whole first operation from reset, for every input at width N (8 unless told): the
result is the descriptor's function (P = X*Y*2^-r mod M, or X*Y mod M), last_o comes in
the cycle its cycle formula names, and the core's own assertions hold. The depth defaults
to two cycles past the result. BOUNDED is its passing verdict.

Runs in a folder of its own (build/formal/<key>-<random>, or --out, which must be empty):
the generated formal.sby, SBY's task folders (formal_proof, formal_cover), formal.json with
the verdict. Prints one line: PROVED (k-induction closed, every cover reached), FAILED (the
failing assertion, its step and the counterexample VCD), BOUNDED (no counterexample within
the depth; not an unbounded proof), VACUOUS (a cover unreached) or UNKNOWN (no verdict).

Exit 0 when the verdict is the one the mode asks for (proved with --mode prove, bounded with
--mode bmc), 1 otherwise, 2 on bad input or missing tools (one `error:` line).
"""

from __future__ import annotations

import dataclasses
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
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--block", help=f"one of: {', '.join(formal.BLOCKS)}")
    what.add_argument("--dut", help="a design: its core against its function")
    ap.add_argument("--n", type=int, default=None, help="operand width N (default 8)")
    ap.add_argument("--busw", type=int, default=None, help="bus width BusW (default 8)")
    ap.add_argument("--ack-wait", type=int, default=None, help="wait states (default 0)")
    ap.add_argument("--params", default="", help="other harness parameters, NAME=VALUE,...")
    ap.add_argument("--depth", type=int, default=None,
                    help="k of k-induction and the bound of the base case / BMC (a block: "
                    "20; a design: two cycles past its result)")
    ap.add_argument("--mode", choices=formal.MODES, default=None,
                    help="prove (a block's default) or bmc (a design's, its only mode)")
    ap.add_argument("--cover-depth", type=int, default=None,
                    help="how deep the cover task searches (a block: 24; a design: --depth)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per SBY task (600)")
    ap.add_argument("--overlay", default="",
                    help="a folder whose files replace the block's sources of the same name")
    ap.add_argument("--fault", action="store_true",
                    help="a design: its fault build, which must fail (a counterexample)")
    ap.add_argument("--out", type=Path, default=None, help="the run's folder (must be empty)")
    args = ap.parse_args(argv)
    try:
        params = _params(args.params)
        given = (("N", args.n), ("BusW", args.busw), ("AckWait", args.ack_wait))
        if args.dut and (args.busw is not None or args.ack_wait is not None):
            raise ConfigError("--busw and --ack-wait are the loader's (--block mv_bus_loader)"
                              "; a design's core has no bus")
        params = tuple((k, v) for k, v in given if v is not None) + params
        spec = formal.FormalSpec(args.block or args.dut, params,
                                 mode=args.mode or ("bmc" if args.dut else "prove"),
                                 fault=args.fault,
                                 timeout_s=args.timeout,
                                 overlay=str(Path(args.overlay).resolve()) if args.overlay
                                 else "")
        if args.dut and spec.block in formal.BLOCKS:
            raise ConfigError(f"{args.dut} is a block: use --block {args.dut}")
        if args.fault and not args.dut:
            raise ConfigError("--fault is a design's (--dut)")
        if args.block and spec.is_design:
            raise ConfigError(f"unknown block {args.block!r} (a design? use --dut)")
        depth = (args.depth if args.depth is not None
                 else formal.design_depth(spec) if args.dut else 20)
        cover = (args.cover_depth if args.cover_depth is not None
                 else depth if args.dut else 24)
        spec = dataclasses.replace(spec, depth=depth, cover_depth=cover)
        verdict = formal.run(spec, args.out)
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)
    print(verdict.line(), flush=True)
    wanted = "proved" if spec.mode == "prove" else "bounded"
    return 0 if verdict.status == wanted else 1
