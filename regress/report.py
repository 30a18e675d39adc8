"""Results of one regression: terminal summary, junit.xml, summary.json and report.html.

Nothing here runs a simulator: `regress/run.py` fills a `Regression` and calls `write_all`;
`load_summary` turns a summary.json back into a `Regression` (for `regress merge`).
"""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from montverif.regress.buckets import buckets
from montverif.regress.sim import BuildSpec, Outcome, RunSpec

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
# a mutation campaign's status (regress/mutation.py)
MUT_PASSED, MUT_FAILED, MUT_ERROR, MUT_SKIPPED = "passed", "failed", "error", "skipped"


@dataclass
class Rerun:
    """A failing seed run again with waves on: does it fail the same way?"""

    key: str
    first_error: str
    log_dir: Path | None
    waves: Path | None

    def same_as(self, original: str) -> bool:
        return bool(self.first_error) and self.first_error == original

    def describe(self, original: str) -> str:
        if self.same_as(original):
            verdict = "rerun with waves fails the same way"
        elif not self.first_error:
            verdict = "rerun with waves PASSED: the failure did not reproduce"
        else:
            verdict = f"rerun with waves failed differently: {self.first_error}"
        return f"{verdict}; waves: {self.waves or 'none'}"


@dataclass
class RunResult:
    """What became of one run: passed, failed (run or build) or not started."""

    run: RunSpec
    status: str
    first_error: str = ""
    wall_s: float = 0.0
    log_dir: Path | None = None
    tests: int = 0
    failed_tests: int = 0
    rerun: Rerun | None = None  # the traced rerun of a failure, if one was made
    index: int = 0  # position in the list's full expansion (shards keep it; merge sorts by it)

    @classmethod
    def from_outcome(cls, outcome: Outcome) -> RunResult:
        return cls(outcome.run, PASS if outcome.passed else FAIL,
                   first_error="" if outcome.passed else outcome.first_error or "failed",
                   wall_s=outcome.wall_s, log_dir=outcome.log_dir, tests=outcome.tests,
                   failed_tests=outcome.failed)

    @property
    def passed(self) -> bool:
        return self.status == PASS


@dataclass
class BuildResult:
    key: str
    seconds: float = 0.0
    error: str = ""


@dataclass
class Regression:
    """One `montverif regress`: what was asked, what happened."""

    name: str
    base_seed: int
    jobs: int
    out_dir: Path
    start: datetime
    git: str = "unknown"
    versions: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0
    builds: dict[str, BuildResult] = field(default_factory=dict)
    results: list[RunResult] = field(default_factory=list)
    stopped: str = ""  # why not every run was started (--fail-fast, interrupt), else ""
    shard: str = ""  # "i/k" when this is one shard of a regression
    planned: int = 0  # runs of the whole (unsharded) regression
    diffs: list[DiffResult] = field(default_factory=list)  # cross-simulator comparisons
    history: Path | None = None  # history.jsonl to append to (None: not this one, e.g. a shard)
    notes: list[str] = field(default_factory=list)  # shown in the summary and the report
    order: dict[str, int] = field(default_factory=dict)  # run key -> index in the full list
    # mutation campaigns: design -> record (regress/mutation.py), in list order
    mutation: dict[str, dict] = field(default_factory=dict)
    mutation_planned: int = 0  # campaigns of the whole (unsharded) regression

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def campaigns(self, *statuses: str) -> int:
        return sum(m["status"] in statuses for m in self.mutation.values())

    @property
    def passed(self) -> bool:
        return (bool(self.results) or bool(self.mutation) or self.shard != "") and all(
            r.passed for r in self.results) and all(d.same for d in self.diffs) and \
            self.campaigns(MUT_PASSED) == len(self.mutation)


@dataclass
class DiffResult:
    """The same seed on two simulators: identical transaction logs (timing fields ignored)?"""

    key: str  # model key without the simulator, plus the seed
    runs: tuple[str, ...]  # the run keys compared
    same: bool
    detail: str = ""  # the first difference, or why no comparison was possible


# --- grouping -------------------------------------------------------------------------------
@dataclass
class ConfigRow:
    """All runs of one compiled model (dut, N, BusW, ack wait, simulator)."""

    key: str
    results: list[RunResult]
    build_s: float

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def wall_s(self) -> float:
        return sum(r.wall_s for r in self.results)


def config_rows(reg: Regression) -> list[ConfigRow]:
    groups: dict[str, list[RunResult]] = {}
    for res in reg.results:
        groups.setdefault(res.run.build.key, []).append(res)
    return [ConfigRow(key, group, reg.builds.get(key, BuildResult(key)).seconds)
            for key, group in groups.items()]


# --- terminal -------------------------------------------------------------------------------
def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"


def format_table(reg: Regression) -> str:
    """One row per model (dut, N, BusW, [ack wait,] simulator): runs, verdicts, seconds."""
    rows = config_rows(reg)
    width = max([len(r.key) for r in rows] + [len("config")])
    head = (f"{'config':<{width}} {'runs':>5} {'pass':>5} {'fail':>5} {'skip':>5} "
            f"{'build s':>8} {'run s':>8}")
    lines = [head, "-" * len(head)]
    for row in rows:
        lines.append(f"{row.key:<{width}} {len(row.results):>5} {row.count(PASS):>5} "
                     f"{row.count(FAIL):>5} {row.count(SKIP):>5} {row.build_s:>8.1f} "
                     f"{row.wall_s:>8.1f}")
    lines.append("-" * len(head))
    build_s = sum(b.seconds for b in reg.builds.values())
    run_s = sum(r.wall_s for r in reg.results)
    lines.append(f"{'total':<{width}} {len(reg.results):>5} {reg.count(PASS):>5} "
                 f"{reg.count(FAIL):>5} {reg.count(SKIP):>5} {build_s:>8.1f} {run_s:>8.1f}")
    return "\n".join(lines)


def format_failures(reg: Regression) -> str:
    lines: list[str] = []
    for res in reg.results:
        if res.status == FAIL:
            lines += [f"FAIL {res.run.key}: {res.first_error}", f"  repro: {res.run.repro()}"]
            lines += [f"  log: {res.log_dir}"] if res.log_dir else []
            lines += [f"  {res.rerun.describe(res.first_error)}"] if res.rerun else []
    return "\n".join(lines)


def format_buckets(reg: Regression) -> str:
    """One line per failure bucket: count, design, signature, seeds, the cheapest repro."""
    lines: list[str] = []
    for b in buckets(reg.results):
        seeds = ", ".join(map(str, b.seeds[:8])) + (" ..." if len(b.seeds) > 8 else "")
        lines += [f"bucket {b.count:>3}x {b.dut}: {b.signature}",
                  f"  seeds: {seeds}", f"  repro: {b.example.run.repro()}"]
    return ("failure buckets (same design, same first error with numbers stripped):\n"
            + "\n".join(lines)) if lines else ""


def format_diffs(reg: Regression) -> str:
    if not reg.diffs:
        return ""
    same = sum(d.same for d in reg.diffs)
    lines = [f"cross-simulator check: {same}/{len(reg.diffs)} identical transaction logs"]
    lines += [f"DIFF {d.key} ({' vs '.join(d.runs)}): {d.detail}" for d in reg.diffs
              if not d.same]
    return "\n".join(lines)


def _score(rec: dict) -> str:
    return "-" if rec["score"] is None else f"{rec['score']:.1f}%"


_MUT_COLUMNS = ("killed", "survived", "equivalent", "stillborn", "error")


def format_mutation(reg: Regression) -> str:
    """One row per mutation campaign, every survivor (file:line, the change), the errors."""
    if not reg.mutation:
        return ""
    recs = list(reg.mutation.values())
    width = max(len("design"), *(len(r["dut"]) for r in recs))
    head = (f"{'design':<{width}} {'sim':<9} {'N':>4} {'mutants':>7} "
            + " ".join(f"{c[:6]:>6}" for c in _MUT_COLUMNS) + f" {'score':>6} {'goal':>5}  status")
    lines = ["mutation campaigns (score = killed / (killed + survived non-equivalent)):",
             head, "-" * len(head)]
    for r in recs:
        label = {MUT_PASSED: "met", MUT_FAILED: "BELOW GOAL", MUT_ERROR: "ERROR"}.get(
            r["status"], "not started")
        lines.append(f"{r['dut']:<{width}} {r['sim']:<9} {r['n']:>4} {r['mutants']:>7} "
                     + " ".join(f"{r[c]:>6}" for c in _MUT_COLUMNS)
                     + f" {_score(r):>6} {r['goal']:>4g}%  {label}")
        lines += [f"  survived {s['where']}: {s['change']}  ({s['reason'][:100]})"
                  for s in r["survivors"]]
        if r["status"] in (MUT_FAILED, MUT_ERROR):
            lines += [f"  {r['status']}: {r['message']}", f"  repro: {r['repro']}"]
    lines.append(f"mutation: {reg.campaigns(MUT_PASSED)}/{len(recs)} campaign(s) at their goal;"
                 f" each in {reg.out_dir}/mutation/<design>/ (mutate.md, mutate.html)")
    return "\n".join(lines)


def final_line(reg: Regression) -> str:
    """The last line of the terminal output, read by CI: `N passed, M failed` (runs,
    cross-simulator comparisons and mutation campaigns)."""
    passed = reg.count(PASS) + sum(d.same for d in reg.diffs) + reg.campaigns(MUT_PASSED)
    failed = (reg.count(FAIL) + sum(not d.same for d in reg.diffs)
              + reg.campaigns(MUT_FAILED, MUT_ERROR))
    return f"{passed} passed, {failed} failed"


def format_summary(reg: Regression) -> str:
    parts = [format_table(reg)] if reg.results or not reg.mutation else []
    for extra in (format_failures(reg), format_buckets(reg), format_diffs(reg),
                  format_mutation(reg)):
        if extra:
            parts.append(extra)
    tail = [f"results: {reg.out_dir} (report.html, junit.xml, summary.json, runs/"
            + (", mutation/)" if reg.mutation else ")"),
            f"wall time: {_duration(reg.wall_s)} with {reg.jobs} job(s)"]
    tail += [f"shard {reg.shard}: {len(reg.results)} of {reg.planned} runs"
             + (f", {len(reg.mutation)} of {reg.mutation_planned} mutation campaigns"
                if reg.mutation_planned else "")] if reg.shard else []
    tail += reg.notes
    if reg.stopped:
        tail.append(f"{reg.count(SKIP)} run(s) not started: {reg.stopped}")
        if skipped := reg.campaigns(MUT_SKIPPED):
            tail.append(f"{skipped} mutation campaign(s) not started: {reg.stopped}")
    parts.append("\n".join(tail + [final_line(reg)]))
    return "\n\n".join(parts)


# --- junit.xml ------------------------------------------------------------------------------
def _testcase(suite: ET.Element, reg: Regression, res: RunResult) -> None:
    case = ET.SubElement(suite, "testcase", classname=f"{reg.name}.{res.run.build.key}",
                         name=res.run.key, time=f"{res.wall_s:.3f}")
    if res.status == FAIL:
        fail = ET.SubElement(case, "failure", message=res.first_error, type="failure")
        fail.text = f"{res.first_error}\nrepro: {res.run.repro()}\nlog: {res.log_dir or '-'}"
        if res.rerun:
            fail.text += f"\n{res.rerun.describe(res.first_error)}"
    elif res.status == SKIP:
        ET.SubElement(case, "skipped", message=f"not started: {reg.stopped or 'stopped'}")
    out = ET.SubElement(case, "system-out")
    out.text = f"seed: {res.run.seed}\ntxns: {res.run.txns}\nrepro: {res.run.repro()}\n" \
               f"log: {res.log_dir or '-'}"


def _counts(results: list[RunResult], seconds: float) -> dict[str, str]:
    return {"tests": str(len(results)),
            "failures": str(sum(r.status == FAIL for r in results)), "errors": "0",
            "skipped": str(sum(r.status == SKIP for r in results)), "time": f"{seconds:.3f}"}


def junit_tree(reg: Regression) -> ET.ElementTree:
    """One testsuite per model, one testcase per run (named by its run key)."""
    root = ET.Element("testsuites", {"name": f"montverif {reg.name}"}
                      | _counts(reg.results, reg.wall_s))
    if reg.mutation:  # the campaigns' testcases count too
        for key, extra in (("tests", len(reg.mutation)), ("failures", reg.campaigns(MUT_FAILED)),
                           ("errors", reg.campaigns(MUT_ERROR)),
                           ("skipped", reg.campaigns(MUT_SKIPPED))):
            root.set(key, str(int(root.get(key, "0")) + extra))
    host = socket.gethostname()
    stamp = reg.start.isoformat(timespec="seconds")
    for row in config_rows(reg):
        attrs = {"name": row.key, "timestamp": stamp, "hostname": host}
        suite = ET.SubElement(root, "testsuite",
                              attrs | _counts(row.results, row.build_s + row.wall_s))
        props = ET.SubElement(suite, "properties")
        for name, value in (("list", reg.name), ("git", reg.git),
                            ("base_seed", str(reg.base_seed)), ("build_s", f"{row.build_s:.3f}"),
                            ("build_error", reg.builds.get(row.key, BuildResult(row.key)).error)):
            ET.SubElement(props, "property", name=name, value=value)
        for res in row.results:
            _testcase(suite, reg, res)
    if reg.mutation:
        _mutation_suite(root, reg, stamp, host)
    if reg.diffs:
        suite = ET.SubElement(root, "testsuite", {
            "name": "cross-simulator", "timestamp": stamp, "hostname": host,
            "tests": str(len(reg.diffs)), "failures": str(sum(not d.same for d in reg.diffs)),
            "errors": "0", "skipped": "0", "time": "0.000"})
        for d in reg.diffs:
            case = ET.SubElement(suite, "testcase", classname=f"{reg.name}.diff", name=d.key,
                                 time="0.000")
            if not d.same:
                ET.SubElement(case, "failure", message=d.detail, type="failure").text = \
                    " vs ".join(d.runs)
    ET.indent(root)
    return ET.ElementTree(root)


def _mutation_suite(root: ET.Element, reg: Regression, stamp: str, host: str) -> None:
    """One testcase per campaign: a failure below the goal (listing the survivors), an error
    when the campaign could not judge its mutants."""
    recs = list(reg.mutation.values())
    suite = ET.SubElement(root, "testsuite", {
        "name": "mutation", "timestamp": stamp, "hostname": host, "tests": str(len(recs)),
        "failures": str(reg.campaigns(MUT_FAILED)), "errors": str(reg.campaigns(MUT_ERROR)),
        "skipped": str(reg.campaigns(MUT_SKIPPED)),
        "time": f"{sum(r['wall_s'] for r in recs):.3f}"})
    for r in recs:
        case = ET.SubElement(suite, "testcase", classname=f"{reg.name}.mutation",
                             name=r["dut"], time=f"{r['wall_s']:.3f}")
        survivors = "".join(f"\nsurvived {s['where']}: {s['change']} ({s['reason']})"
                            for s in r["survivors"])
        if r["status"] == MUT_FAILED:
            ET.SubElement(case, "failure", message=r["message"], type="failure").text = \
                f"{r['message']}{survivors}\nrepro: {r['repro']}"
        elif r["status"] == MUT_ERROR:
            ET.SubElement(case, "error", message=r["message"], type="error").text = \
                f"{r['message']}\nrepro: {r['repro']}"
        elif r["status"] == MUT_SKIPPED:
            ET.SubElement(case, "skipped", message=r["message"])
        ET.SubElement(case, "system-out").text = (
            f"score: {_score(r)} (goal {r['goal']:g}%)\nmutants: {r['mutants']} of "
            f"{r['sites']} sites, " + ", ".join(f"{r[c]} {c}" for c in _MUT_COLUMNS)
            + f"\nseed: {r['seed']}\nreport: {r['dir']}/mutate.html{survivors}")


def write_junit(reg: Regression, path: Path) -> None:
    junit_tree(reg).write(path, encoding="utf-8", xml_declaration=True)


# --- summary.json ---------------------------------------------------------------------------
def run_record(res: RunResult) -> dict[str, object]:
    b = res.run.build
    return {"key": res.run.key, "config": b.key, "dut": b.dut, "n": b.n, "bus_w": b.bus_w,
            "params": dict(b.params), "sim": b.sim, "ack_wait": b.ack_wait,
            "seed": res.run.seed, "txns": res.run.txns,
            "tests": list(res.run.tests), "status": res.status, "passed": res.passed,
            "first_error": res.first_error, "repro": res.run.repro(),
            "log_dir": str(res.log_dir) if res.log_dir else None,
            "wall_s": round(res.wall_s, 3), "tests_run": res.tests,
            "tests_failed": res.failed_tests,
            "index": res.index, "run": asdict(res.run),
            "rerun": None if res.rerun is None else {
                "key": res.rerun.key, "first_error": res.rerun.first_error,
                "same_failure": res.rerun.same_as(res.first_error),
                "waves": str(res.rerun.waves) if res.rerun.waves else None,
                "log_dir": str(res.rerun.log_dir) if res.rerun.log_dir else None}}


def summary_dict(reg: Regression) -> dict[str, object]:
    return {"list": reg.name, "git": reg.git, "versions": reg.versions,
            "start": reg.start.isoformat(timespec="seconds"), "wall_s": round(reg.wall_s, 3),
            "base_seed": reg.base_seed, "jobs": reg.jobs, "out_dir": str(reg.out_dir),
            "passed": reg.count(PASS), "failed": reg.count(FAIL), "skipped": reg.count(SKIP),
            "stopped": reg.stopped, "shard": reg.shard, "planned": reg.planned or
            len(reg.results), "notes": reg.notes,
            "builds": [{"key": b.key, "seconds": round(b.seconds, 3), "error": b.error}
                       for b in sorted(reg.builds.values(), key=lambda b: b.key)],
            "buckets": [b.to_dict() for b in buckets(reg.results)],
            "diffs": [asdict(d) for d in reg.diffs],
            "mutation": reg.mutation, "mutation_planned": reg.mutation_planned,
            "runs": [run_record(r) for r in reg.results]}


def run_spec(raw: dict) -> RunSpec:
    """A RunSpec from its asdict() form (summary.json, outcome.json)."""
    build = dict(raw["build"])
    build["params"] = tuple(tuple(p) for p in build.get("params", ()))
    return RunSpec(**(raw | {"build": BuildSpec(**build), "tests": tuple(raw["tests"])}))


def run_result(rec: dict) -> RunResult:
    """A RunResult from its summary.json record."""
    path = (lambda v: Path(v) if v else None)  # noqa: E731
    rr = rec.get("rerun")
    rerun = None if rr is None else Rerun(rr["key"], rr["first_error"], path(rr["log_dir"]),
                                          path(rr["waves"]))
    return RunResult(run_spec(rec["run"]), rec["status"], rec["first_error"], rec["wall_s"],
                     path(rec["log_dir"]), rec["tests_run"], rec["tests_failed"], rerun,
                     rec.get("index", 0))


def load_summary(path: Path) -> Regression:
    """A Regression back from summary.json; raises ValueError with one line if unusable."""
    try:
        raw = json.loads(path.read_text())
        reg = Regression(raw["list"], raw["base_seed"], raw["jobs"], Path(raw["out_dir"]),
                         datetime.fromisoformat(raw["start"]), raw["git"], raw["versions"],
                         raw["wall_s"], stopped=raw["stopped"], shard=raw.get("shard", ""),
                         planned=raw.get("planned", 0), notes=list(raw.get("notes", [])))
        reg.builds = {b["key"]: BuildResult(b["key"], b["seconds"], b["error"])
                      for b in raw["builds"]}
        reg.results = [run_result(r) for r in raw["runs"]]
        reg.diffs = [DiffResult(d["key"], tuple(d["runs"]), d["same"], d["detail"])
                     for d in raw.get("diffs", [])]
        reg.mutation = dict(raw.get("mutation", {}))
        reg.mutation_planned = int(raw.get("mutation_planned", len(reg.mutation)))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a regression summary ({one_line_exc(exc)})") from None
    return reg


def one_line_exc(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def write_summary(reg: Regression, path: Path) -> None:
    path.write_text(json.dumps(summary_dict(reg), indent=1) + "\n")


def write_all(reg: Regression) -> None:
    """junit.xml, summary.json, cycles.md, the history line (if reg.history) and report.html."""
    from montverif.regress import history, html

    reg.out_dir.mkdir(parents=True, exist_ok=True)
    write_junit(reg, reg.out_dir / "junit.xml")
    write_summary(reg, reg.out_dir / "summary.json")
    write_cycles(reg.out_dir)
    summary = summary_dict(reg)
    past: list[dict] = []
    if reg.history is not None:
        history.append(reg.history, summary, reg.out_dir)
        past = history.load(reg.history)
    (reg.out_dir / "report.html").write_text(html.render(summary, reg.out_dir, past))


def write_cycles(out_dir: Path) -> None:
    """cycles.md: the cycle counts of this regression's logs beside the papers' formulas
    (`make cycles` copies the latest one to docs/cycles.md)."""
    from montverif.regress import cycles

    table = cycles.collect([out_dir / "runs"])  # the list's runs, not mutation/
    if table:
        (out_dir / "cycles.md").write_text(cycles.render(table))
