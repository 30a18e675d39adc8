"""Functional coverage of a regression merged across runs (seeds, simulators, shards).

Each simulation run leaves `coverage.xml` (cocotb-coverage, see verif/env/coverage.py) in its
run folder. `merge_results(results_dir)` reads the runs in the deterministic order of the
results' summary.json (`runs`, each with `key`, `dut`, `status`), finds each run's folder as
`<results>/runs/<key>` (so folders merged from shards work; the recorded `log_dir` is the
fallback), merges the passing runs' coverage and writes `<results>/coverage/`:

    <dut>.xml      merged cocotb-coverage XML of one DUT (cocotb_coverage.merge_coverage)
    merged.xml     every DUT in one database
    <dut>.ucis.xml, merged.ucis.xml   the same as UCIS XML (regress/coverage/ucis_xml.py),
                   with a history node per run (key, seed, status, simulator, date)
    summary.json   the closure summary below (read by the HTML report and `regress.closure`)

summary.json schema (version 1; all bins by name `<point>:<bin>`, e.g. `mont_lut.lut.addr:5`,
`mont_lut.cross.sub_x_m:(True, 'short')`; helper points `<dut>.cross_src.*` are left out):

    {"schema": 1,
     "results": str,                 # the results folder
     "runs": int,                    # runs merged (passing, with coverage.xml)
     "skipped_runs": {key: why},     # runs not merged: failed / not started / no coverage.xml
     "enforce": bool,                # whether the goals decide the regression's exit code
     "duts": {dut: {"covered": int, "total": int, "percent": float,
                    "goal": float,   # percent of bins (the descriptor's [coverage])
                    "met": bool,     # percent >= goal
                    "runs": int,
                    "uncovered": [bin names],  # not covered, not waived, reachable
                    "waived": [bin names],     # [coverage] waive: left out of the total
                    "waive_reason": str,
                    "unreachable": {bin name: why},  # no run merged was at a point that
                                     # can hit it (verif.env.coverage.unreachable): left out
                                     # of the total, with the widths it needs; or an SBY
                                     # cover proved it unreachable at the width of every run
                                     # merged (<results>/formal-covers/covers.json, written
                                     # by `closure run --formal`): "proved by SBY cover ..."
                    "widths": [int], # the N of the runs merged
                    "first_hit": {bin name: run key},  # first run (in order) that hit it
                    "points": {point: {"covered": int, "total": int}}}},
     "overall": {"covered": int, "total": int, "percent": float},
     "code": {...}}                  # optional: Verilator line/toggle (regress.codecov)

A bin counts as covered when its merged hits reach the point's `at_least`; its first-hit run
is the run at which the running sum of its hits first reached `at_least`.
Failed runs are not merged: a run whose checks failed proves nothing about what it covered.
"""

from __future__ import annotations

import json
import logging
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cocotb_coverage.coverage import merge_coverage

from montverif.host import readback
from montverif.host.errors import ConfigError
from montverif.models.registry import get_algo
from montverif.regress.coverage.ucis_xml import UcisHistory, UcisPoint, UcisRun, write_ucis
from montverif.regress.formal import formal_cover
from montverif.spec import schema
from montverif.spec.designs import known_designs, load_design
from montverif.spec.sections import CoverageGoal
from montverif.verif.env.coverage import unreachable

SCHEMA = 1
COVERAGE_DIR = "coverage"
HELPER_POINTS = ".cross_src."  # the sources of a cross: sampled, not goals of their own


class CoverageError(ValueError):
    """A results folder or goal that cannot be used (one-line message)."""


# --- one run's coverage ---------------------------------------------------------------------
@dataclass
class PointHits:
    """One cover point or cross: its bins' hits and the hits a bin needs."""

    name: str
    at_least: int
    hits: dict[str, int] = field(default_factory=dict)


def read_points(xml_path: Path) -> dict[str, PointHits]:
    """The cover points of one cocotb-coverage XML file (helper points left out)."""
    try:
        root = ET.parse(xml_path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise CoverageError(f"cannot read coverage file {xml_path}: {exc}") from None
    points: dict[str, PointHits] = {}
    for el in root.iter():
        if "at_least" not in el.attrib:
            continue
        name = el.attrib["abs_name"].removeprefix("top.")
        if HELPER_POINTS in name:
            continue
        point = PointHits(name, int(el.attrib["at_least"]))
        for child in el:
            if "bin" in child.attrib:
                point.hits[child.attrib["bin"]] = int(child.attrib.get("hits", "0"))
        points[name] = point
    return points


def dut_of(point: str) -> str:
    return point.split(".", 1)[0]


# --- goals ----------------------------------------------------------------------------------
def goal_of(dut: str, tables: Mapping[str, Mapping[str, Any]] | None = None) -> CoverageGoal:
    """The DUT's goal: its descriptor's [coverage] (montverif.spec.sections), or the table
    `tables` gives it (checked as a descriptor's is); 100 % for a DUT with none (synthetic or
    foreign results)."""
    if tables is None:
        return load_design(dut).coverage if dut in known_designs() else CoverageGoal()
    table = tables.get(dut, {})
    try:
        schema.check({"coverage": table}, dut, section="coverage")
    except ConfigError as exc:
        raise CoverageError(str(exc)) from None
    return CoverageGoal.of(table)


# --- the runs of a results folder -----------------------------------------------------------
@dataclass(frozen=True)
class RunRef:
    key: str
    dut: str
    folder: Path
    passed: bool
    n: int | None = None  # the run's width (None: not recorded)


def run_refs(results: Path) -> list[RunRef]:
    """The runs of a results folder in summary.json order; raises CoverageError."""
    summary = results / "summary.json"
    if not results.is_dir():
        raise CoverageError(f"results folder {results} does not exist")
    try:
        data = readback.read_json(summary, {"runs": [{"key": str, "dut": str, "status": str,
                                                      "log_dir?": (str, type(None))}]})
        runs = data["runs"]
        refs = []
        for r in runs:
            folder = results / "runs" / r["key"]
            if not folder.is_dir() and r.get("log_dir"):
                folder = Path(r["log_dir"])
            n = r.get("n")
            refs.append(RunRef(r["key"], r["dut"], folder, r["status"] == "PASS",
                               n if isinstance(n, int) else None))
        return refs
    except OSError:
        raise CoverageError(f"{summary} is missing: not a regression results folder") from None
    except readback.CorruptFile as exc:
        raise CoverageError(str(exc)) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CoverageError(f"{summary} is unreadable ({type(exc).__name__}: {exc})") from None


# what the UCIS history reads of summary.json (a closure's or a test's folder may lack some)
HISTORY_SHAPE = {"list?": str, "start?": str, "versions?": {str: None},
                 "runs": [{"key": str, "dut": str, "status": str, "seed?": int, "sim?": str,
                           "tests?": [str], "repro?": str}]}


def run_history(results: Path, skipped: Mapping[str, str]) -> UcisHistory:
    """The regression's runs for the UCIS history (run_refs read the folder first)."""
    try:
        data = readback.read_json(results / "summary.json", HISTORY_SHAPE)
    except (OSError, readback.CorruptFile) as exc:
        raise CoverageError(str(exc)) from None
    versions = data.get("versions") or {}
    runs = tuple(UcisRun(
        r["key"], r["dut"], r.get("seed"), r["status"], r.get("sim", ""),
        str(versions.get(r.get("sim", ""), "")), tuple(r.get("tests") or ()),
        r.get("repro", ""),
        f"not merged: {skipped[r['key']]}" if r["key"] in skipped else "merged")
        for r in data["runs"])
    return UcisHistory(data.get("list", results.name), data.get("start", ""), runs)


# --- merge ----------------------------------------------------------------------------------
@dataclass
class DutCoverage:
    dut: str
    goal: CoverageGoal
    points: dict[str, PointHits] = field(default_factory=dict)
    first_hit: dict[str, str] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    widths: set[int] = field(default_factory=set)  # N of the runs merged
    unknown_width: bool = False  # a run merged without its N: nothing is unreachable
    # bins an SBY cover proved unreachable, per width: {N: {bin name: the proof}}
    proved: dict[int, dict[str, str]] = field(default_factory=dict)

    def all_bins(self) -> list[tuple[str, bool]]:
        return [(f"{p.name}:{b}", h >= p.at_least) for p in self.points.values()
                for b, h in p.hits.items()]

    def unreachable(self) -> dict[str, str]:
        """The bins not covered that no run merged could hit at its width, with why: the
        width class it needs, or the SBY cover proof at that width (`proved`)."""
        if self.unknown_width or not self.widths or self.dut not in known_designs():
            return {}
        has_field = get_algo(load_design(self.dut).model).has_field
        widths = sorted(self.widths)
        away = {n: unreachable(n, has_field) for n in widths}
        at = ", ".join(map(str, widths))
        out: dict[str, str] = {}
        for name, ok in self.all_bins():
            rel = name.removeprefix(self.dut + ".")
            if ok or not all(rel in away[n] or name in self.proved.get(n, {}) for n in widths):
                continue
            proofs = list(dict.fromkeys(self.proved[n][name] for n in widths
                                        if rel not in away[n]))
            out[name] = ("; ".join(proofs) if proofs
                         else f"not reachable at N={at} (needs {away[widths[0]][rel]})")
        return out

    def contradicted(self) -> list[str]:
        """Bins a run hit that an SBY cover proved unreachable at its width: the proof and
        the simulation disagree (a wrong harness, or RTL that changed since the proof)."""
        return [name for name, ok in self.all_bins()
                if ok and any(name in self.proved.get(n, {}) for n in self.widths)]

    def bins(self) -> list[tuple[str, bool]]:
        """The bins the goal counts (waived and unreachable ones left out): (name,
        covered)."""
        out = self.unreachable()
        return [(b, ok) for b, ok in self.all_bins()
                if not self.goal.waived(self.dut, b) and b not in out]

    def waived(self) -> list[str]:
        return [b for b, _ in self.all_bins() if self.goal.waived(self.dut, b)]

    @property
    def total(self) -> int:
        return len(self.bins())

    @property
    def covered(self) -> int:
        return sum(ok for _, ok in self.bins())

    @property
    def percent(self) -> float:
        return round(100.0 * self.covered / self.total, 2) if self.total else 100.0

    @property
    def met(self) -> bool:
        return self.percent >= self.goal.goal

    def add(self, key: str, points: dict[str, PointHits], path: Path, n: int | None = None
            ) -> None:
        self.files.append(path)
        if n is None:
            self.unknown_width = True
        else:
            self.widths.add(n)
        for name, point in points.items():
            merged = self.points.setdefault(name, PointHits(name, point.at_least))
            for b, hits in point.hits.items():
                before = merged.hits.get(b, 0)
                merged.hits[b] = before + hits
                label = f"{name}:{b}"
                if before < point.at_least <= before + hits and label not in self.first_hit:
                    self.first_hit[label] = key

    def ucis_points(self) -> list[UcisPoint]:
        """The merged points for UCIS: names below the DUT, waived bins marked."""
        out = self.unreachable()
        return [UcisPoint(p.name.removeprefix(self.dut + "."), p.at_least, dict(p.hits),
                          frozenset(b for b in p.hits if self.goal.waived(
                              self.dut, f"{p.name}:{b}") or f"{p.name}:{b}" in out))
                for p in self.points.values()]

    def to_json(self) -> dict[str, Any]:
        return {"covered": self.covered, "total": self.total, "percent": self.percent,
                "goal": self.goal.goal, "met": self.met, "runs": len(self.files),
                "uncovered": [name for name, ok in self.bins() if not ok],
                "waived": self.waived(), "waive_reason": self.goal.waive_reason,
                "unreachable": self.unreachable(), "widths": sorted(self.widths),
                **({"contradicted": bad} if (bad := self.contradicted()) else {}),
                "first_hit": {name: self.first_hit[name] for name, ok in self.all_bins() if ok},
                "points": {p.name: {"covered": sum(h >= p.at_least for h in p.hits.values()),
                                    "total": len(p.hits)} for p in self.points.values()}}


def attach_proofs(duts: dict[str, DutCoverage], results: Path) -> None:
    """The bins the results folder's SBY cover runs proved unreachable, by DUT and width."""
    try:
        runs = formal_cover.load_runs(results)
    except ConfigError as exc:
        raise CoverageError(str(exc)) from None
    for run in runs:
        if (cov := duts.get(run.dut)) is not None:
            cov.proved.setdefault(run.n, {}).update(
                {f"{run.dut}.{b}": why for b, why in run.unreachable().items()})


def merge_runs(refs: list[RunRef], goals: Mapping[str, Mapping[str, Any]] | None = None
               ) -> tuple[dict[str, DutCoverage], dict[str, str]]:
    """Per DUT the merged coverage of the passing runs, and why the others were skipped."""
    duts: dict[str, DutCoverage] = {}
    skipped: dict[str, str] = {}
    for ref in refs:
        xml = ref.folder / "coverage.xml"
        if not ref.passed:
            skipped[ref.key] = "not passed"
            continue
        if not xml.is_file():
            skipped[ref.key] = "no coverage.xml"
            continue
        points = read_points(xml)
        for dut in sorted({dut_of(p) for p in points}):
            cov = duts.get(dut) or duts.setdefault(dut, DutCoverage(dut, goal_of(dut, goals)))
            cov.add(ref.key, {k: v for k, v in points.items() if dut_of(k) == dut}, xml, ref.n)
    return dict(sorted(duts.items())), skipped


def _merge_xml(out: Path, files: list[Path]) -> None:
    """cocotb-coverage's XML merge; raises CoverageError (it fails, e.g. with a KeyError,
    when two runs give one cover point different bins)."""
    quiet = logging.getLogger("montverif.regress.coverage").debug
    try:
        merge_coverage(quiet, str(out), *map(str, files))
    except Exception as exc:
        runs = ", ".join(f.parent.name for f in files[:3]) + (" ..." if len(files) > 3 else "")
        raise CoverageError(f"cannot merge the coverage XML of {len(files)} run(s) into "
                            f"{out.name} ({type(exc).__name__}: {exc}); the runs ({runs}) "
                            "probably define one cover point with different bins") from None


# what coverage/summary.json holds, as its readers use it (checked when read back)
_BINS = {"covered": int, "total": int, "percent": float}
SUMMARY_SHAPE = {"duts": {str: {**_BINS, "met": bool, "uncovered": [str],
                                "first_hit": {str: None}, "waived?": [None],
                                "unreachable?": {str: None}}},
                 "overall": _BINS, "skipped_runs": {str: str}}


def summary_dict(results: Path, duts: dict[str, DutCoverage], skipped: dict[str, str],
                 enforce: bool) -> dict[str, Any]:
    covered = sum(c.covered for c in duts.values())
    total = sum(c.total for c in duts.values())
    return {"schema": SCHEMA, "results": str(results),
            "runs": len({f for c in duts.values() for f in c.files}),
            "skipped_runs": skipped, "enforce": enforce,
            "duts": {d: c.to_json() for d, c in duts.items()},
            "overall": {"covered": covered, "total": total,
                        "percent": round(100.0 * covered / total, 2) if total else 100.0}}


def merge_results(results: Path, enforce: bool = False,
                  goals: Mapping[str, Mapping[str, Any]] | None = None
                  ) -> dict[str, Any]:
    """Merge a results folder's functional coverage into <results>/coverage/; returns the
    summary (also written as coverage/summary.json). Raises CoverageError."""
    duts, skipped = merge_runs(run_refs(results), goals)
    attach_proofs(duts, results)
    out = results / COVERAGE_DIR
    out.mkdir(parents=True, exist_ok=True)
    history = run_history(results, skipped)
    for dut, cov in duts.items():
        _merge_xml(out / f"{dut}.xml", cov.files)
        write_ucis(out / f"{dut}.ucis.xml", {dut: cov.ucis_points()}, history)
    all_files = list(dict.fromkeys(f for c in duts.values() for f in c.files))
    if all_files:
        _merge_xml(out / "merged.xml", all_files)
        write_ucis(out / "merged.ucis.xml", {d: c.ucis_points() for d, c in duts.items()},
                   history)
    summary = summary_dict(results, duts, skipped, enforce)
    old = out / "summary.json"
    if old.is_file():  # keep what others added (Verilator code coverage)
        try:
            previous = json.loads(old.read_text())
            if "code" in previous:
                summary["code"] = previous["code"]
        except ValueError:
            pass
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def load_summary(results: Path) -> dict[str, Any]:
    if not results.is_dir():
        raise CoverageError(f"results folder {results} does not exist")
    path = results / COVERAGE_DIR / "summary.json"
    try:
        return readback.read_json(path, SUMMARY_SHAPE)
    except OSError:
        raise CoverageError(f"{path} is missing (run `montverif closure merge "
                            f"{results}` first)") from None
    except readback.CorruptFile as exc:
        raise CoverageError(str(exc)) from None
    except ValueError as exc:
        raise CoverageError(f"{path} is unreadable: {exc}") from None
