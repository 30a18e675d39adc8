"""`montverif synth --remeasure`: every 7-series result of the committed results file (or,
--without-floor, every one without a period floor) synthesised again at this revision
(after a change of the method: the period floor, a new Yosys), `--jobs` at once, each into
its own folder below --out, and recorded into the file when the last has finished. A result that fails keeps its old entry and is named."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from montverif.regress.flow import synth, xc7_floor
from montverif.regress.flow.claim import Mode
from montverif.regress.report import synth_results


def specs(results: synth_results.Results, without_floor: bool = False
          ) -> list[synth.SynthSpec]:
    """The synthesis of each 7-series result (`without_floor`: of each one without a period
    floor), with its recorded parameters beyond N, the longest (by its recorded time)
    first: the jobs end together."""
    out = []
    for r in sorted(results[synth.FAMILY], key=lambda r: -float(str(r.get("synth_s") or 0))):
        if without_floor and xc7_floor.period_floor_ns(r) is not None:
            continue
        given = r.get("parameters")
        params = tuple((str(k), int(v)) for k, v in given.items() if k != "N") \
            if isinstance(given, dict) else ()
        out.append(synth.SynthSpec(str(r["dut"]), int(str(r["n"])), params, allow_wide=True,
                                   beyond_paper="beyond_paper" in r))
    return out


def remeasure(record: Path, root: Path, jobs: int, timeout_s: float,
              without_floor: bool = False) -> int:
    """Synthesise every result of `record` (or every one without a floor) again; record the
    new ones. The number that failed."""
    todo = specs(synth_results.load(record), without_floor)
    print(f"remeasuring {len(todo)} results of {record}, {jobs} at once", flush=True)

    def one(spec: synth.SynthSpec) -> dict[str, object] | None:
        try:
            result = synth.run(spec, root / spec.key, timeout_s, Mode.REPLACE)
        except synth.SynthError as exc:
            print(f"FAIL {spec.key}: {exc}", flush=True)
            return None
        print(f"{spec.key}: {result['synth_s']} s", flush=True)
        return result

    with ThreadPoolExecutor(jobs) as pool:
        done = list(pool.map(one, todo))
    new = [r for r in done if r is not None]
    if new:
        synth_results.record(record, xc7=new)
        print(f"recorded {len(new)} results in {record}")
    return len(done) - len(new)
