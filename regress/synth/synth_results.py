"""The project's committed synthesis results (regress/synth/synth-results.json): the figures the
generated tables of docs/ are rendered from, so that a fresh clone, which has no build/,
still holds them with the revision each was measured at.

The file has summary.json's shape (synth_summary): `{"xc7": [synth.json, ...], "ecp5":
[pnr.json, ...]}`, each entry a result exactly as `montverif synth` wrote it (its
`revision` among its keys), one entry per core (design, N, parameters) and target. A
nightly's summary.json can stand in for it (`montverif synth papers --results FILE`).

`record` merges new results into the file: a result of the same core and target replaces
the one there; the rest is kept. The file is written atomically, in the tables' order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, writable
from montverif.regress.synth import pnr, synth, synth_table
from montverif.spec.designs import known_designs, load_design

DEFAULT = ROOT / "regress" / "synth" / "synth-results.json"
TARGETS = (synth.FAMILY, pnr.FAMILY)  # xc7, ecp5: the keys of the file

Result = Mapping[str, object]
Results = dict[str, list[dict[str, object]]]
# the keys every result must have for the tables to read it
NEEDED = ("dut", "n", "parameters", "revision", "cells", "timing")


def empty() -> Results:
    return {target: [] for target in TARGETS}


def _checked(value: object, where: str) -> Results:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected an object with the lists "
                          f"{', '.join(TARGETS)}")
    out = empty()
    for target in TARGETS:
        entries = value.get(target, [])
        if not isinstance(entries, list):
            raise ConfigError(f"{where}: {target} must be a list of results")
        for i, entry in enumerate(entries):
            missing = [k for k in NEEDED if not isinstance(entry, dict) or k not in entry]
            if missing:
                raise ConfigError(f"{where}: {target}[{i}] is not a synthesis result "
                                  f"(no {', '.join(missing)})")
            out[target].append(entry)
    return out


def load(path: Path = DEFAULT) -> Results:
    """The results of `path` by target (an absent file holds none); ConfigError, one line,
    for a file that is not such a results file."""
    if not path.exists():
        return empty()
    if not path.is_file():
        raise ConfigError(f"{path} is not a file")
    try:
        value = json.loads(path.read_text())
    except ValueError as exc:
        raise ConfigError(f"{path}: not JSON ({exc})") from None
    return _checked(value, str(path))


def merged(old: Sequence[Result], new: Sequence[Result]) -> list[dict[str, object]]:
    """`old` with each result of `new` in place of the one of the same core, in the tables'
    order."""
    kept = [dict(r) for r in old if not any(synth_table.same_core(r, n) for n in new)]
    return [dict(r) for r in synth_table.ordered([*kept, *(dict(n) for n in new)])]


def render(results: Results) -> str:
    return json.dumps({t: results.get(t, []) for t in TARGETS}, indent=1) + "\n"


def record(path: Path, xc7: Sequence[Result] = (), ecp5: Sequence[Result] = ()) -> Results:
    """Merge the results into the file `path` (made if absent); the file's new content."""
    results = load(writable(path))
    results[synth.FAMILY] = merged(results[synth.FAMILY], xc7)
    results[pnr.FAMILY] = merged(results[pnr.FAMILY], ecp5)
    pages.write_atomic(path, render(results))
    return results


def find(results: Sequence[Result], dut: str, n: int,
         params: Mapping[str, int], variant: str = "") -> Result | None:
    """The result of `dut` at width `n` with exactly these parameters beyond N (all of
    them, defaults included), if there is one; of the core as built, or of `variant` (the
    loop alone: synth.synth.LOOP_ONLY). A parameter a result does not record was added to
    the design after it was measured, at the value the RTL had fixed: its default
    (mont_dual's K and Units, mont_qp's Reduce)."""
    defaults = load_design(dut).resolve_synth() if dut in known_designs() else {}
    for r in results:
        given = r.get("parameters")
        if r.get("dut") != dut or r.get("n") != n or not isinstance(given, Mapping) \
                or synth_table.variant(r) != variant:
            continue
        if defaults | {str(k): v for k, v in given.items() if k != "N"} == dict(params):
            return r
    return None
