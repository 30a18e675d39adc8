"""Mutation testing of one design (`make mutate` runs it): a campaign, or its report again,
or the recorded equivalence proofs.

    montverif mutate --dut mont_lut [--n 8] [--mutants 12] [--seed 1] [--jobs 1]
                     [--sim icarus|verilator] [--txns 20] [--timeout 120]
                     [--eq-bits 5] [--out DIR] [--list] [--no-share]
    montverif mutate report DIR                  mutate.md and mutate.html again
    montverif mutate proofs accept DIR...|list   the recorded equivalence proofs
    montverif mutate directed DIR...             the holes SBY found there, as directed vectors

Build-once-run-many (the default): the mutants whose change can be selected at run time
share one compiled build (a meta-mutant source, regress/mutate/meta.py; each run passes
+MV_MUTANT=<id>), after a quick elaboration of each alone (stillborn if it fails); the others
(elaboration-time constants) are built one by one. --no-share builds every mutant on its own.

Progress goes to stderr, the table to stdout; results in --out (default build/mutate/<dut>/):
mutants.json, mutate.md, mutate.html, mutants/mutNNNN/ (the changed file and its diff) and
runs/ (every run's log folder). Exit 0 when the campaign ran (1 if --goal is given and the
proved score is below it: an equivalent without a formal verdict counts as a survivor), 2 on
bad input: one `error:` line, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from montverif.host import claim, environment, tools
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, work
from montverif.regress.cli.args import Parser, bounded, bounded_int, fail, finite_float
from montverif.regress.flow import check
from montverif.regress.mutate import directed, engine, mutant_run, proofs, prove, renew, state
from montverif.regress.mutate import report as mreport
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate.sites import Mutant, all_sites, core_sources, select
from montverif.regress.regression.seeds import resolve_base_seed
from montverif.spec.bounds import (
    BUS_WIDTH,
    JOBS,
    MUTANTS,
    PERCENT,
    SECONDS,
    TIMEOUT_S,
    TXNS,
    WIDTH,
)
from montverif.spec.design import Design
from montverif.spec.designs import check_known, load_design
from montverif.verif.vectors import VectorError

DEFAULT_MUTANTS = 20
# survivors' exhaustive equivalence set: every odd M < 2^bits and the operands of the
# domain (about 2^(3 bits - 1) vectors, all made before --eq-max trims them: 8 bits
# would be some 10^7)
MAX_EQ_BITS = 6
MAX_EQ_VECTORS = 1_000_000


def _parser() -> argparse.ArgumentParser:
    ap = Parser("montverif mutate", __doc__)
    ap.add_argument("--dut", required=True, help="design (montverif models list)")
    ap.add_argument("--n", type=bounded(WIDTH), default=None,
                    help="width (default: the design's min_n)")
    ap.add_argument("--mutants", type=bounded(MUTANTS), default=DEFAULT_MUTANTS,
                    help=f"random sample of the candidate sites (default {DEFAULT_MUTANTS})")
    ap.add_argument("--seed", default="1",
                    help="mutant sample and run seed: an integer, `date` (today, UTC, as "
                         "YYYYMMDD), `date:YYYY-MM-DD` or `run` (the CI run number), as for "
                         "`montverif regress` (default 1)")
    ap.add_argument("--jobs", type=bounded(JOBS), default=1,
                    help="mutants built and run in parallel")
    ap.add_argument("--busw", type=bounded(BUS_WIDTH), default=32, help="bus width")
    ap.add_argument("--sim", default="icarus", choices=("verilator", "icarus"),
                    help="simulator of every build and run (default icarus: at N=8 a mutant "
                         "costs ~3 s there, 5-7 s on Verilator)")
    ap.add_argument("--txns", type=bounded(TXNS), default=20, help="random operations per run")
    ap.add_argument("--tests", default="",
                    help="comma-separated tests every mutant must survive (default: the "
                         "design's own list), e.g. to qualify one test alone")
    ap.add_argument("--timeout", type=bounded(TIMEOUT_S), default=120,
                    help="wall-clock seconds per mutant run (a hang is killed: killed)")
    ap.add_argument("--eq-bits", type=bounded_int(1, MAX_EQ_BITS), default=5,
                    help="survivors: every odd M < 2^bits and X, Y < M at the design's min_n")
    ap.add_argument("--eq-max", type=bounded_int(1, MAX_EQ_VECTORS), default=20000,
                    help="most equivalence vectors")
    ap.add_argument("--eq-wide", type=bounded_int(0, MAX_EQ_VECTORS), default=2000,
                    help="full-width vectors added to the equivalence check")
    ap.add_argument("--eq-timeout", type=bounded(TIMEOUT_S), default=900,
                    help="wall-clock seconds of the equivalence runs")
    ap.add_argument("--eq-sim", choices=["verilator", "icarus"], default="verilator",
                    help="simulator of the survivors' equivalence vectors (shared builds, "
                         "one per point, and own builds; fast bus mode) and of the shared "
                         "models' smoke runs at the lists' other points (default verilator: "
                         "7x to 80x faster than Icarus)")
    ap.add_argument("--out", default=None, help="results (default build/mutate/<dut>)")
    ap.add_argument("--force", action="store_true",
                    help="replace the campaign an --out folder holds (never anything else)")
    ap.add_argument("--ids", default="",
                    help="these mutant ids (comma-separated, e.g. 45,50) instead of a sample")
    ap.add_argument("--list", action="store_true", help="print the chosen mutants, run nothing")
    ap.add_argument("--keep-builds", action="store_true",
                    help="keep the mutant builds (<cache>/sim/<key>/)")
    ap.add_argument("--no-share", action="store_true",
                    help="build every mutant on its own instead of one shared build for the "
                         "run-time-selectable ones (for comparison and debugging)")
    ap.add_argument("--one-point", action="store_true",
                    help="judge survivors at the campaign's own parameter point only, not at "
                         "every point of the design's lists (docs/mutation.md: not sound)")
    ap.add_argument("--point-budget", type=finite_float(1, SECONDS.hi, unit="s"),
                    default=state.CampaignOptions.point_budget_s,
                    help="estimated seconds one run at another parameter point may take "
                         "(beyond it the point is not simulated; default %(default)s)")
    ap.add_argument("--prove", action="store_true",
                    help="check every mutant simulation calls equivalent with SymbiYosys at "
                         "the design's [formal] points: equivalent (proved), or a testbench "
                         "hole with its distinguishing input")
    ap.add_argument("--reprove", action="store_true",
                    help="prove every survivor again, ignoring regress/mutate/equivalents.json")
    ap.add_argument("--goal", type=bounded(PERCENT), default=None,
                    help="exit 1 when the proved score (percent: an equivalent judged by "
                         "simulation alone counts as a survivor) is below this")
    return ap


def _check(args: argparse.Namespace) -> state.CampaignOptions:
    design = load_design(args.dut)
    n = design.min_n if args.n is None else args.n
    # the numbers were checked as parsed (their bounds: the options' help)
    if not design.min_n <= n <= design.max_n:
        raise ConfigError(f"unsupported width N={n} for {args.dut} "
                          f"(supported: {design.min_n}..{design.max_n})")
    if not core_sources(design):
        raise ConfigError(f"{args.dut} has no design-specific RTL among its sources")
    try:
        seed = resolve_base_seed(args.seed, datetime.now(UTC).date(),
                                 environment.CI_RUN_NUMBER.lookup())
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if seed.source != "given":
        print(f"mutate: {seed.describe()}; replay with --seed {seed.value}", file=sys.stderr)
    args.seed = seed.value
    opts = state.CampaignOptions(n=n, bus_w=args.busw, seed=args.seed, txns=args.txns,
                          timeout_s=args.timeout, eq_bits=args.eq_bits, eq_max=args.eq_max,
                          eq_wide=args.eq_wide, eq_timeout_s=args.eq_timeout, jobs=args.jobs,
                          keep_builds=args.keep_builds, sim=args.sim, eq_sim=args.eq_sim,
                          use_proofs=not args.reprove, share=not args.no_share,
                          points=not args.one_point, point_budget_s=args.point_budget,
                          prove=args.prove,
                          tests=tuple(s for s in args.tests.split(",") if s))
    check.validate(mutant_run.smoke_run(args.dut, opts))  # an unknown test is a one-line error
    return opts


def run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        opts = _check(args)
        design = load_design(args.dut)
        sites = all_sites(design)
        if not sites:
            raise ConfigError(f"no mutation sites found in {args.dut}'s RTL")
    except (ConfigError, VectorError, tools.ToolError) as exc:
        return fail(exc)
    try:
        ids = sorted({int(i, 10) for i in args.ids.replace("mut", "").split(",") if i.strip()})
    except ValueError:
        return fail(f"--ids expects comma-separated mutant ids (got {args.ids!r})")
    if bad := [i for i in ids if not 0 <= i < len(sites)]:
        return fail(f"no mutant id {bad[0]} ({args.dut} has {len(sites)} sites: "
                    f"0..{len(sites) - 1})")
    mutants = ([Mutant(i, sites[i]) for i in ids] if ids
               else select(sites, args.mutants, args.seed))
    if args.list:
        for m in mutants:
            print(f"mut{m.id:04d}  {m.site.kind:<12} {m.site.description}")
        print(f"{len(mutants)} of {len(sites)} sites")
        return 0
    out = (Path(args.out) if args.out else work() / "mutate" / args.dut).resolve()
    # the default folder is the command's own; one the user names keeps its campaign
    mode = Mode.REPLACE if args.force or not args.out else Mode.NEW
    try:
        with claim.output(out, claim.CAMPAIGN, mode):
            return _campaign(args, opts, design, mutants, len(sites), out)
    except (ConfigError, VectorError, tools.ToolError) as exc:
        return fail(exc)


def _progress(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


def _campaign(args: argparse.Namespace, opts: state.CampaignOptions, design: Design,
              mutants: list[Mutant], sites: int, out: Path) -> int:
    """The campaign in its claimed folder: the table, the files, the exit code."""
    _progress(f"{args.dut}: {len(mutants)} mutants of {sites} sites, N={opts.n}, "
              f"jobs {opts.jobs}, results in {out}")
    campaign = engine.run_campaign(args.dut, design, mutants, sites, opts, out, _progress)
    if args.ids:
        campaign.extra["command"] = f"montverif mutate --dut {args.dut} " \
            f"--n {opts.n} --ids {args.ids} --seed {opts.seed} --jobs {opts.jobs}" \
            + ("" if opts.share else " --no-share") + ("" if opts.points else " --one-point") \
            + (" --prove" if opts.prove else "")
    files = mreport.write(campaign)
    print(mreport.table(campaign))
    print("results: " + ", ".join(str(f) for f in files))
    proved = mscore.of((m.status, m.proof) for m in campaign.mutants).proved
    if args.goal is not None and proved is not None and 100 * proved < args.goal:
        return 1
    return 0


def report(argv: list[str]) -> int:
    """`montverif mutate report DIR`: mutate.md and mutate.html again from mutants.json."""
    ap = Parser("montverif mutate report", "Render DIR/mutate.md and DIR/mutate.html again "
                "from DIR/mutants.json (the sources must be those the campaign ran on).")
    ap.add_argument("dir", type=Path)
    args = ap.parse_args(argv)
    try:
        with claim.existing(args.dir.resolve(), (claim.CAMPAIGN,)):
            camp = mreport.load(args.dir)
            for name, text in (("mutate.md", mreport.markdown(camp)),
                               ("mutate.html", mreport.html_page(camp))):
                (camp.out / name).write_text(text)
    except ConfigError as exc:
        return fail(exc)
    except (OSError, ValueError, KeyError, IndexError) as exc:
        return fail(f"{args.dir}: {exc}")
    return 0


def proofs_command(argv: list[str]) -> int:
    """`montverif mutate proofs accept DIR...|list|carry REV`: the recorded equivalence
    proofs."""
    ap = Parser("montverif mutate proofs", proofs.__doc__)
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)
    acc = sub.add_parser("accept", help="record the equivalents of campaign folders")
    acc.add_argument("dirs", nargs="+", type=Path)
    sub.add_parser("list", help="the recorded proofs, current or stale")
    car = sub.add_parser("carry", help="carry stale proofs over a behaviour-preserving edit "
                                       "since REV (the same statement, moved)")
    car.add_argument("rev", help="the git revision the stale proofs' files were proved at")
    prv = sub.add_parser("prove", help="check the proofs no SBY proof backs yet with one at "
                                       "each design's [formal] points (exit 1 if one differs)")
    ren = sub.add_parser("renew", help="prove every stale proof again on the current text "
                                       "with SBY, or remove it (regress/mutate/renew.py)")
    prv.add_argument("--bounded", action="store_true",
                     help="also the proofs SBY proved only to a bound: prove them for all "
                          "time where k-induction closes (one that stays bounded is kept)")
    for cmd in (prv, ren):
        cmd.add_argument("--dut", default=None, help="only this design's proofs")
        cmd.add_argument("--out", type=Path, default=None,
                         help="where the checks run (default build/mutate/proofs)")
        cmd.add_argument("--force", action="store_true",
                         help="replace the checks an --out folder holds (never anything else)")
        cmd.add_argument("--timeout", type=bounded(TIMEOUT_S), default=900,
                         help="seconds per check")
        cmd.add_argument("--proofs", type=Path, default=proofs.PROOFS_FILE,
                         help="the proof file to check and update (default: the project's)")
    args = ap.parse_args(argv)
    try:
        if args.command in ("prove", "renew"):
            return _prove(args)
        if args.command == "carry":
            carried, left = proofs.carry(args.rev)
            print(f"{carried} proof(s) carried, {left} stale proof(s) left: "
                  f"{proofs.PROOFS_FILE.relative_to(ROOT)}")
            return 0
        if args.command == "accept":
            added, known = proofs.accept(args.dirs)
            print(f"{added} proof(s) recorded, {known} already recorded: "
                  f"{proofs.PROOFS_FILE.relative_to(ROOT)}")
            return 0
        kinds: dict[str, int] = {}
        for p in proofs.load().values():
            kind = proofs.kind(p)
            kinds[kind] = kinds.get(kind, 0) + 1
            stale = f"  ({why})" if (why := proofs.stale_reason(p)) else ""
            print(f"{p['dut']:<12} {kind:<14} {p['change']}{stale}")
        print(f"{sum(kinds.values())} proof(s): " + ", ".join(
            f"{kinds.get(k, 0)} {k}" for k in proofs.KINDS))
        return 0
    except (proofs.ProofError, OSError) as exc:
        return fail(exc)


def _prove(args: argparse.Namespace) -> int:
    """`montverif mutate proofs prove` (the current proofs no SBY proof backs yet) and
    `renew` (the stale ones): one line per checked proof, then the counts."""
    if args.dut is not None:
        try:
            check_known(args.dut)
        except ConfigError as exc:
            return fail(exc)
    if not args.proofs.is_file():
        return fail(f"no such proof file: {args.proofs}")
    out = (args.out or work() / "mutate" / "proofs").resolve()
    mode = Mode.REPLACE if args.force or args.out is None else Mode.NEW
    def line(rec: dict[str, object], result: prove.ProofResult) -> None:
        print(f"{result.status.upper():<10} {rec['dut']:<12} {rec['change']}: {result.text}",
              flush=True)

    try:
        with claim.output(out, claim.PROOF_CHECKS, mode):
            if args.command == "renew":
                done = renew.renew(out, args.dut, args.proofs, args.timeout, done_one=line)
            else:
                done = proofs.prove_recorded(out, args.dut, args.proofs, args.timeout,
                                             done_one=line, bounded=args.bounded)
    except (ConfigError, proofs.ProofError) as exc:
        return fail(exc)
    counts = {s: sum(r.status == s for _, r in done)
              for s in (prove.PROVED, prove.DIFFERENT, prove.NOT_PROVED)}
    print(f"{len(done)} proof(s) checked: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f": {args.proofs}")
    if counts[prove.DIFFERENT]:
        print(f"montverif mutate directed {out} writes their distinguishing inputs as "
              "directed vectors")
    return 1 if counts[prove.DIFFERENT] else 0


def _replay(holes: list[directed.Hole], out: Path, args: argparse.Namespace
            ) -> tuple[dict[str, list[dict[str, object]]], int]:
    """Each hole replayed in its folder below `out`: the entries that close holes, by
    design, and how many stay open."""
    entries: dict[str, list[dict[str, object]]] = {}
    open_holes = 0
    for k, hole in enumerate(holes):
        print(f"{hole.dut} {hole.kills}: told apart by SBY at {hole.point}", flush=True)
        placed = directed.place(hole, out / f"hole{k:03d}", args.sim, args.budget,
                                lambda line: print(line, flush=True))
        if placed.entry is None:
            open_holes += 1
            print(f"  OPEN: {placed.reason}", flush=True)
            continue
        print(f"  entry: params {placed.entry['params'] or '{} (every build)'}", flush=True)
        entries.setdefault(hole.dut, []).append(placed.entry)
    return entries, open_holes


def directed_command(argv: list[str]) -> int:
    """`montverif mutate directed DIR...`: each hole an equivalence check found below the
    folders, replayed where the lists run its mutant and written into the design's directed
    vectors where it kills it; exit 1 if a hole stays open."""
    ap = Parser("montverif mutate directed", directed.__doc__)
    ap.add_argument("dirs", nargs="+", type=Path,
                    help="campaign folders (mutate --prove) or `mutate proofs prove` folders, "
                         "or hole.json files")
    ap.add_argument("--sim", choices=("icarus", "verilator"), default="icarus",
                    help="the simulator of the replays (default %(default)s: quick builds)")
    ap.add_argument("--budget", type=bounded(SECONDS), default=60.0,
                    help="skip a point whose replay is estimated beyond this many seconds "
                         "(default %(default)s)")
    ap.add_argument("--into", type=Path, default=directed.DIRECTED,
                    help="the folder of directed-vector files (default verif/directed)")
    ap.add_argument("--out", type=Path, default=None,
                    help="where the replays run (default build/mutate/directed)")
    ap.add_argument("--force", action="store_true",
                    help="replace the replays an --out folder holds (never anything else)")
    ap.add_argument("--dry-run", action="store_true",
                    help="replay and print the entries, write nothing")
    args = ap.parse_args(argv)
    try:
        holes = directed.find_holes(args.dirs)
    except directed.HoleError as exc:
        return fail(exc)
    out = (args.out or work() / "mutate" / "directed").resolve()
    try:
        with claim.output(out, claim.HOLE_REPLAYS,
                          Mode.REPLACE if args.force or args.out is None else Mode.NEW):
            entries, open_holes = _replay(holes, out, args)
    except ConfigError as exc:
        return fail(exc)
    for dut, todo in entries.items():
        if args.dry_run:
            print(json.dumps({"vectors": todo}, indent=1))
            continue
        try:
            added, known, path = directed.merge(dut, todo, args.into)
        except (directed.HoleError, OSError) as exc:
            return fail(exc)
        print(f"{added} entr{'y' if added == 1 else 'ies'} written, {known} already there: "
              f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    print(f"{len(holes)} hole(s): {len(holes) - open_holes} closed by a directed vector, "
          f"{open_holes} open")
    return 1 if open_holes else 0


def main(argv: list[str]) -> int:
    """`mutate` runs a campaign; `mutate report DIR` re-renders one; `mutate proofs ...`
    records or lists the equivalence proofs; `mutate directed DIR...` writes the holes
    SBY found as directed vectors."""
    if argv[:1] == ["directed"]:
        return directed_command(argv[1:])
    if argv[:1] == ["report"]:
        return report(argv[1:])
    if argv[:1] == ["proofs"]:
        return proofs_command(argv[1:])
    return run(argv)
