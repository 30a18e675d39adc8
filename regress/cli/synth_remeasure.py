"""`montverif synth --remeasure`: every 7-series result of the committed results file (or,
--without-floor, every one without a period floor) synthesised again at this revision
(after a change of the method: the period floor, a new Yosys), `--jobs` at once, each into
its own folder below --out; each new result takes its old entry's place in the file when the
last has finished. A result that fails keeps its old entry and is named."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from montverif.regress.flow import synth, xc7_floor
from montverif.regress.flow.claim import Mode
from montverif.regress.report import synth_results, synth_table

Entry = dict[str, object]


def spec_of(r: synth_results.Result) -> synth.SynthSpec:
    """The synthesis that took the result `r`: its recorded parameters beyond N."""
    given = r.get("parameters")
    params = tuple((str(k), int(v)) for k, v in given.items() if k != "N") \
        if isinstance(given, dict) else ()
    return synth.SynthSpec(str(r["dut"]), int(str(r["n"])), params, allow_wide=True,
                           beyond_paper="beyond_paper" in r)


def chosen(results: synth_results.Results, without_floor: bool = False) -> list[int]:
    """The indices of the 7-series results to take again (`without_floor`: those without a
    period floor), the longest (by its recorded time) first: the jobs end together."""
    xc7 = results[synth.FAMILY]
    picked = [i for i, r in enumerate(xc7)
              if not without_floor or xc7_floor.period_floor_ns(r) is None]
    return sorted(picked, key=lambda i: -float(str(xc7[i].get("synth_s") or 0)))


def specs(results: synth_results.Results, without_floor: bool = False
          ) -> list[synth.SynthSpec]:
    """The synthesis of each result chosen() picks, in its order."""
    return [spec_of(results[synth.FAMILY][i]) for i in chosen(results, without_floor)]


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
        except synth.SynthError as exc:
            print(f"FAIL {spec.key}: {exc}", flush=True)
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
        synth.write_atomic(record, synth_results.render(results))
        print(f"recorded {sum(r is not None for r in done)} results in {record}")
    return sum(r is None for r in done)
