"""`montverif formal`: prove a block's assertions, or a design's core against its function,
with SymbiYosys (docs/formal.md).

    montverif formal [--block mv_bus_loader] [--n 8] [--busw 8] [--ack-wait 0]
                     [--params HasE=1,HasHalves=1] [--depth 20] [--mode prove|bmc]
                     [--cover-depth 24] [--timeout 600] [--overlay DIR] [--out DIR]
    montverif formal --dut mont_r2 [--n 8] [--params P=2] [--depth K] [--overlay DIR] ...
    montverif formal --points [--dut mont_r2] [--jobs 2] [--out DIR]
    montverif formal --dut mont_lut --covers [--n 8] [--params ..] [--timeout 600] [--out DIR]

Without --block or --dut: the bus loader's proof (--block mv_bus_loader).

--dut: the design's core in a harness generated from its descriptor, checked by BMC through
its whole first operation from reset, for every input at width N (8 unless told): the
result is the descriptor's function (P = X*Y*2^-r mod M, or X*Y mod M), last_o comes in
the cycle its cycle formula names, and the core's own assertions hold. A streaming core
([stream]) is driven over its valid/ready streams instead: its result comes exactly its
latency after the operands are taken, is held until taken and carries its tag. The depth
defaults to two cycles past the result. BOUNDED is its passing verdict. With --mode prove
(a core behind the bus loader) operations run back to back, START whenever the core is idle,
and k-induction proves the same checks for every sequence of operations: PROVED, or BOUNDED
where induction does not close at the depth (default: two operations).

--points: the loader's default proof and every design's [formal] points (or those of
--dut), each in a folder of its own below --out, and summary.json with every verdict.

--covers: the design's coverage bins its observation block decides (table addresses, the
final subtraction and its cross with the modulus class) as SBY cover statements at one
point (N: its first [formal] point, or its narrowest simulated width if that is wider):
each bin REACHED (a witness, written with the others as a vector file that `montverif sim
--vectors` replays), UNREACHABLE (proved by SBY cover for one operation from reset) or
UNDECIDED (a task without a verdict). Exit 0 when every bin is decided.

Runs in a folder of its own (build/formal/<key>-<random>, or --out, which must be empty):
the generated formal.sby, SBY's task folders (formal_proof, formal_cover), formal.json with
the verdict. Prints one line: PROVED (k-induction closed, every cover reached), FAILED (the
failing assertion, its step and the counterexample VCD), BOUNDED (no counterexample within
the depth; not an unbounded proof), VACUOUS (a cover unreached) or UNKNOWN (no verdict).

Exit 0 when the verdict is the one the mode asks for (proved with --mode prove, bounded with
--mode bmc, failed with --fault), 1 otherwise, 2 on bad input or missing tools (one `error:` line).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from montverif.host import claim, tools
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.regress.cli.args import Parser, bounded, bounded_int, fail, warn_broken
from montverif.regress.formal import formal, formal_cover
from montverif.spec.bounds import JOBS, TIMEOUT_S
from montverif.spec.designs import check_known, load_design


def _params(text: str, dut: str | None = None) -> tuple[tuple[str, int], ...]:
    """NAME=VALUE,... as the harness takes them; a design's choice may be named (--dut:
    `Mult=inter_lut` is its index, as `montverif sim` takes it)."""
    out = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise ConfigError(f"--params {text!r}: write NAME=VALUE[,NAME=VALUE...]")
        try:
            out.append((name, int(value, 0)))
        except ValueError:
            if dut is None:
                raise ConfigError(f"--params: {name}={value!r} is not an integer") from None
            check_known(dut)
            out.append(load_design(dut).normalize({name: value})[0])
    return _once(tuple(out))


def _once(params: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    """The parameters, each named once (`--params N=4,N=8`, or `--n 8 --params N=4`: which
    was meant?), else ConfigError."""
    names = [k for k, _ in params]
    if twice := sorted({k for k in names if names.count(k) > 1}):
        raise ConfigError(f"parameter {', '.join(twice)} is given twice (--n, --busw, "
                          "--ack-wait or --params): give each once")
    return params


DEFAULT_BLOCK = "mv_bus_loader"  # `montverif formal` alone: the loader's proof


def main(argv: list[str]) -> int:
    ap = Parser("montverif formal", __doc__)
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--block", help=f"one of: {', '.join(formal.BLOCKS)} (default "
                                      f"{DEFAULT_BLOCK}, unless --dut)")
    what.add_argument("--dut", help="a design: its core against its function")
    ap.add_argument("--n", type=bounded_int(2, 64), default=None,
                    help="operand width N (default 8; a core: 4..16)")
    ap.add_argument("--busw", type=bounded_int(8, 64), default=None,
                    help="bus width BusW: 8, 16, 32 or 64 (default 8)")
    ap.add_argument("--ack-wait", type=bounded_int(0, 8), default=None,
                    help="wait states (default 0)")
    ap.add_argument("--params", default="", help="other harness parameters, NAME=VALUE,...")
    ap.add_argument("--depth", type=bounded_int(1, 400), default=None,
                    help="k of k-induction and the bound of the base case / BMC (a block: "
                    "its own, the loader's 20, mont_dual_mul's 1; a design: two cycles past "
                    "its result)")
    ap.add_argument("--mode", choices=formal.MODES, default=None,
                    help="prove (a block's default: k-induction; a design: every sequence of "
                         "operations for all time) or bmc (a design's default: its first "
                         "operation)")
    ap.add_argument("--cover-depth", type=bounded_int(1, 400), default=None,
                    help="how deep the cover task searches (a block: its own, the loader's "
                    "24; a design: --depth)")
    ap.add_argument("--timeout", type=bounded(TIMEOUT_S), default=600,
                    help="seconds per SBY task (600)")
    ap.add_argument("--overlay", default="",
                    help="a folder whose files replace the block's sources of the same name")
    ap.add_argument("--points", action="store_true",
                    help="every [formal] point of --dut (or of every design) and the "
                    "loader's default proof, each in a folder below --out; a summary.json")
    ap.add_argument("--jobs", type=bounded(JOBS), default=1,
                    help="--points: proofs at a time (1)")
    ap.add_argument("--fault", action="store_true",
                    help="a design: its fault build, which must fail (a counterexample): "
                    "exit 0 when it does")
    ap.add_argument("--covers", action="store_true",
                    help="a design: decide its coverage bins with SBY cover statements "
                    "(unreachable, or a witness vector); docs/closure.md")
    ap.add_argument("--out", type=Path, default=None,
                    help="the run's folder (new or empty; default a new one below build/formal)")
    ap.add_argument("--force", action="store_true",
                    help="replace the formal run an --out folder holds (never anything else)")
    args = ap.parse_args(argv)
    if args.points and args.covers:
        return fail("--covers and --points are two commands: use one")
    if args.points:
        return _points(args)
    if args.covers:
        return _covers(args)
    if not (args.block or args.dut):
        args.block = DEFAULT_BLOCK
    try:
        params = _params(args.params, args.dut)
        given = (("N", args.n), ("BusW", args.busw), ("AckWait", args.ack_wait))
        if args.dut and (args.busw is not None or args.ack_wait is not None):
            raise ConfigError("--busw and --ack-wait are the loader's (--block mv_bus_loader)"
                              "; a design's core has no bus")
        params = _once(tuple((k, v) for k, v in given if v is not None) + params)
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
        block = formal.BLOCKS.get(spec.block)
        depth = (args.depth if args.depth is not None
                 else block.depth if block else formal.design_depth(spec))
        cover = (args.cover_depth if args.cover_depth is not None
                 else block.cover_depth if block else depth)
        spec = dataclasses.replace(spec, depth=depth, cover_depth=cover)
        verdict = formal.run(spec, args.out, _mode(args))
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)
    print(verdict.line(), flush=True)
    return 0 if verdict.status == formal.wanted(spec) else 1


def _points(args: argparse.Namespace) -> int:
    """--points: the loader's default proof and every [formal] point, J at a time."""
    if args.block or args.n is not None or args.params or args.fault or args.overlay \
            or args.depth is not None or args.busw is not None or args.ack_wait is not None:
        return fail("--points takes only --dut, --jobs, --timeout and --out")
    try:
        specs = formal.point_specs(args.dut, args.timeout)
        if not args.dut:
            warn_broken()
        out = formal.new_folder("points", args.out)
        with claim.output(out, claim.PROOF_POINTS, _mode(args)):
            return _points_in(specs, out, args.jobs)
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)


def _mode(args: argparse.Namespace) -> Mode:
    """What becomes of an earlier run in --out: replaced with --force, else refused."""
    return Mode.REPLACE if args.force else Mode.NEW


def _points_in(specs: list[formal.FormalSpec], out: Path, jobs: int) -> int:
    """Every point's run in its folder below the claimed `out`, `jobs` at a time."""
    t0 = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        verdicts = []
        for verdict in pool.map(lambda k: formal.run(specs[k], out / f"{k:02d}-{specs[k].key}"),
                                range(len(specs))):
            print(verdict.line(), flush=True)
            verdicts.append(verdict)
    passed = sum(v.status == formal.wanted(v.spec) for v in verdicts)
    (out / "summary.json").write_text(json.dumps(
        {"passed": passed, "total": len(verdicts), "seconds": round(time.monotonic() - t0, 1),
         "verdicts": [v.to_json() for v in verdicts]}, indent=1) + "\n")
    (out / "summary.md").write_text(_markdown(verdicts, passed))
    print(f"formal: {passed} of {len(verdicts)} as required in {time.monotonic() - t0:.0f}s "
          f"({out / 'summary.json'})", flush=True)
    return 0 if passed == len(verdicts) else 1


def _markdown(verdicts: list[formal.Verdict], passed: int) -> str:
    """The points as a Markdown table (the nightly's job summary)."""
    lines = [f"## Formal: {passed} of {len(verdicts)} as required", "",
             "| block or design | point | verdict | depth | seconds |", "|---|---|---|---|---|"]
    for v in verdicts:
        point = " ".join(f"{k}={val}" for k, val in v.spec.resolved().items())
        status = v.status.upper() + ("" if v.status == formal.wanted(v.spec) else " ✗")
        what = (f"{status} ({v.failed_assertion})" if v.failed_assertion and
                v.status == "failed" else status)
        lines.append(f"| {v.spec.block} | {point} | {what} | {v.depth} | {v.seconds:.0f} |")
    return "\n".join(lines) + "\n"


def cover_point(dut: str, n: int | None, given: dict[str, int]) -> tuple[int, dict[str, int]]:
    """--covers' point: --n and --params, else the design's first [formal] point when it is
    a width the design simulates (where a witness replays), else its narrowest one."""
    check_known(dut)
    design = load_design(dut)
    if n is not None:
        return n, given
    points = design.formal_points
    if points and points[0][0] >= design.min_n_at(dict(points[0][1])):
        return points[0][0], dict(points[0][1]) | given
    return design.min_n_at(given), given


def _covers(args: argparse.Namespace) -> int:
    """--covers: one cover run; a line per bin, then the summary line."""
    if not args.dut:
        return fail("--covers is a design's: name it with --dut")
    if args.block or args.fault or args.overlay or args.depth is not None \
            or args.cover_depth is not None or args.mode is not None \
            or args.busw is not None or args.ack_wait is not None:
        return fail("--covers takes only --dut, --n, --params, --timeout and --out")
    try:
        asked = _params(args.params, args.dut)
        _once(((("N", args.n),) if args.n is not None else ()) + asked)
        n, params = cover_point(args.dut, args.n, dict(asked))
        res = formal_cover.run(args.dut, n, params, args.timeout, args.out, _mode(args))
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)
    for name, v in res.bins.items():
        ops = ", ".join(f"{k}={hex(x)}" for k, x in v.operands.items())
        what = f"witness at step {v.step} ({ops})" if v.status == "reached" else v.reason
        if v.illegal and v.status == "unreachable":  # not a bin: no operation reaches it
            what = f"an illegal address, as the descriptor says ({v.reason})"
        elif v.illegal and v.status == "reached":
            what = f"an illegal address, yet reached (the descriptor is wrong here): {what}"
        print(f"{v.status.upper():<11} {name}: {what}", flush=True)
    counts = {s: len(res.with_status(s)) for s in formal_cover.STATUSES}
    wrong = [b for b, status in res.illegal().items() if status == "reached"]
    point = formal_cover.point_text(res.n, res.params)
    replay = ""
    if res.vectors:
        given = ",".join(f"{k}={v}" for k, v in res.params.items())
        replay = (f"; witnesses: montverif sim --dut {args.dut} --n {res.n}"
                  + (f" --params {given}" if given else "") + f" --vectors {res.vectors}")
    print(f"COVERS {args.dut} {point}: {counts['reached']} reached, {counts['unreachable']} "
          f"proved unreachable, {counts['undecided']} undecided [{res.seconds:.1f}s, "
          f"{res.folder}]{replay}"
          + (f"; illegal addresses reached: {', '.join(wrong)}" if wrong else ""), flush=True)
    return 0 if not counts["undecided"] and not wrong else 1
