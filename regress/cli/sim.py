"""One simulation run: build (shared, skipped when up to date) and run the cocotb tests.

    montverif sim --dut mont_lut --n 256 --sim verilator --seed 123 [--waves]
                  [--vectors file.json] [--txns 200] [--busw 32] [--timeout 600]
                  [--allow-wide] [--beyond-paper] [--keep-secrets]

Prints PASS/FAIL, the log folder and a repro command; a failing run with --waves also
writes waves.gtkw (GTKWave opens it at the first mismatch), waves.sucl and mismatch.png
beside waves.fst and prints where they are; exit 0 on pass, 1 on fail, 2 on bad
input (a one-line `error:` message, never a traceback), 130 when interrupted (Ctrl-C,
SIGTERM: the simulation is ended and its folder marked interrupted). `make sim` runs this.
The tests run in a child process, so a hung simulation is ended by the wall-clock watchdog.
The run owns its folder while it runs: a second run into the same folder is refused.
A design's secret operands (the RSA core's private exponent) appear in the run folder only
as digests, unless --keep-secrets (docs/running.md).
"""

from __future__ import annotations

from pathlib import Path

from montverif.host import tools
from montverif.host.errors import ConfigError
from montverif.host.paths import work
from montverif.regress.cli.args import Parser, bounded, fail, warn_kept
from montverif.regress.cli.interrupt import interrupted, terminate_as_interrupt
from montverif.regress.flow import debug
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import (
    ALL_TESTS,
    BUS_MODES,
    DEFAULT_TIMEOUT_S,
    VECTOR_TESTS,
    BuildSpec,
    RunSpec,
)
from montverif.spec.bounds import ACK_WAIT, BUS_WIDTH, IDLE_MAX, SEED, TIMEOUT_S, TXNS, WIDTH
from montverif.spec.designs import load_design
from montverif.spec.params import parse_params
from montverif.verif.vectors import VectorError


def parser() -> Parser:
    ap = Parser("montverif sim", __doc__)
    ap.add_argument("--dut", default="mont_lut", help="design (montverif models list)")
    ap.add_argument("--n", type=bounded(WIDTH), default=32,
                    help="operand width N, within the design's widths (the README's design table)")
    ap.add_argument("--allow-wide", action="store_true",
                    help="run an N above the design's widest (its descriptor's widths.max)")
    ap.add_argument("--beyond-paper", action="store_true",
                    help="take parameters beyond the hardware the paper assumes (a digit "
                         "width above its multiplier's input: the descriptor's paper_max); "
                         "the run says so")
    ap.add_argument("--busw", type=bounded(BUS_WIDTH), default=32,
                    help="bus width: 8, 16, 32 or 64")
    ap.add_argument("--sim", default="verilator", help="verilator or icarus")
    ap.add_argument("--seed", type=bounded(SEED), default=1, help="stimulus seed")
    ap.add_argument("--txns", type=bounded(TXNS), default=50,
                    help="random operations of RandomTest")
    ap.add_argument("--ack-wait", type=bounded(ACK_WAIT), default=0,
                    help="wait states before each bus ack")
    ap.add_argument("--bus", default="pins", choices=BUS_MODES,
                    help="pins: Python drives the bus; engine: the HDL bus engine (faster)")
    ap.add_argument("--params", default="",
                    help="build parameters beyond N, e.g. W=16,P=4 (montverif models list)")
    ap.add_argument("--idle-max", type=bounded(IDLE_MAX), default=2,
                    help="random idle cycles the driver inserts before a transfer")
    ap.add_argument("--waves", action="store_true", help="dump waves (a traced build)")
    ap.add_argument("--fault", action="store_true", help="test only: build the corrupted design")
    ap.add_argument("--coverage", action="store_true",
                    help="Verilator line + toggle coverage (coverage.dat in the log folder)")
    ap.add_argument("--vectors", default=None, help="replay a vector file (VectorTest)")
    ap.add_argument("--tests", default=None, help="comma-separated cocotb test names")
    ap.add_argument("--timeout", type=bounded(TIMEOUT_S), default=DEFAULT_TIMEOUT_S,
                    help="wall-clock seconds")
    ap.add_argument("--bias", default="",
                    help="coverage steering of the stimulus, as JSON (docs/closure.md)")
    ap.add_argument("--keep-secrets", action="store_true",
                    help="write the design's secret operands (the RSA core's private exponent) "
                         "in clear in every file of the run, for debugging (default: digests)")
    ap.add_argument("--out", default=None, help="log folder (default build/runs/<key>)")
    return ap


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    tests = tuple(t for t in (args.tests or "").split(",") if t) or (
        VECTOR_TESTS if args.vectors else ALL_TESTS)
    try:
        design = load_design(args.dut)
        params = design.normalize(parse_params(args.params))
        design.check_paper(design.resolve(dict(params)), args.beyond_paper)
    except ConfigError as exc:
        return fail(exc)
    run = RunSpec(BuildSpec(args.dut, args.n, args.busw, args.sim, args.ack_wait, args.fault,
                            args.waves, params, args.bus, args.coverage),
                  seed=args.seed, txns=args.txns, tests=tests,
                  # absolute: the simulation's child runs in the checkout, not here
                  vectors=str(Path(args.vectors).absolute()) if args.vectors else None,
                  idle_max=args.idle_max, timeout_s=args.timeout, bias=args.bias,
                  allow_wide=args.allow_wide, keep_secrets=args.keep_secrets)
    log_dir = Path(args.out).resolve() if args.out else work("runs") / run.key
    warn_kept([run])
    for line in run.beyond_paper():
        print(f"note: beyond the paper: {line}", flush=True)
    try:
        with terminate_as_interrupt():
            outcome = execute(run, log_dir)
    except (ConfigError, VectorError, tools.ToolError) as exc:
        return fail(exc)
    except KeyboardInterrupt:
        return interrupted(f"the simulation was ended; run folder {log_dir} (outcome.json "
                           "marks it interrupted)")
    verdict = "PASS" if outcome.passed else "FAIL"
    print(f"{verdict} {run.key}: {outcome.tests - outcome.failed}/{outcome.tests} tests passed "
          f"in {outcome.wall_s:.1f}s (build {outcome.build_s:.1f}s)")
    if not outcome.passed:
        print(f"  first error: {outcome.first_error}")
        print(f"  repro: {run.repro()}")
    print(f"  log: {outcome.log_dir}")
    if outcome.waves:
        print(f"  waves: {outcome.waves}")
        if not outcome.passed:  # the first mismatch's signals, marked (flow.debug)
            try:
                note = debug.annotate(run, outcome.waves, outcome.log_dir, outcome.first_error)
            except OSError as exc:  # the run's verdict stands: its folder took no more files
                note = f"no gtkw: cannot write in {outcome.log_dir}: {exc}"
            print(f"  {note}")
    return 0 if outcome.passed else 1
