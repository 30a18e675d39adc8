"""The terminal summary of a regression: a table per model, the failures with their repro
lines, the failure buckets, the cross-simulator comparisons, the formal checks, the mutation
campaigns and the last line `N passed, M failed`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from montverif.regress.regression import formal_checks
from montverif.regress.regression.buckets import buckets
from montverif.regress.regression.results import (
    ERROR,
    FAIL,
    MUT_ERROR,
    MUT_FAILED,
    MUT_PASSED,
    MUT_SKIPPED,
    PASS,
    SKIP,
    BuildResult,
    Regression,
    RunResult,
)


@dataclass
class ConfigRow:
    """All runs of one compiled build (dut, N, BusW, ack wait, simulator)."""

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


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"


def format_table(reg: Regression) -> str:
    """One row per model (dut, N, BusW, [ack wait,] simulator): runs, verdicts, seconds."""
    rows = config_rows(reg)
    width = max([len(r.key) for r in rows] + [len("config")])
    # infrastructure errors (a batch system ended the job) get a column when there are any
    errors = reg.count(ERROR) > 0

    def cells(count: Callable[[str], int]) -> str:
        return (f"{count(PASS):>5} {count(FAIL):>5}" + (f" {count(ERROR):>5}" if errors else "")
                + f" {count(SKIP):>5}")

    head = (f"{'config':<{width}} {'runs':>5} {'pass':>5} {'fail':>5} "
            + (f"{'error':>5} " if errors else "") + f"{'skip':>5} {'build s':>8} {'run s':>8}")
    lines = [head, "-" * len(head)]
    for row in rows:
        lines.append(f"{row.key:<{width}} {len(row.results):>5} {cells(row.count)} "
                     f"{row.build_s:>8.1f} {row.wall_s:>8.1f}")
    lines.append("-" * len(head))
    build_s = sum(b.seconds for b in reg.builds.values())
    run_s = sum(r.wall_s for r in reg.results)
    lines.append(f"{'total':<{width}} {len(reg.results):>5} {cells(reg.count)} "
                 f"{build_s:>8.1f} {run_s:>8.1f}")
    return "\n".join(lines)


def format_failures(reg: Regression) -> str:
    lines: list[str] = []
    for res in reg.results:
        if res.status in (FAIL, ERROR):
            lines += [f"{res.status} {res.run.key}: {res.first_error}",
                      f"  repro: {res.run.repro()}"]
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
    return ("failure buckets (same first error with keys, seeds, paths and numbers stripped; "
            "per design, but a build failure's across designs):\n"
            + "\n".join(lines)) if lines else ""


def format_diffs(reg: Regression) -> str:
    if not reg.diffs:
        return ""
    same = sum(d.same for d in reg.diffs)
    lines = [f"cross-simulator check: {same}/{len(reg.diffs)} identical transaction logs"]
    lines += [f"DIFF {d.key} ({' vs '.join(d.runs)}): {d.detail}" for d in reg.diffs
              if not d.same]
    return "\n".join(lines)


def score_text(rec: dict) -> str:
    return "-" if rec["score"] is None else f"{rec['score']:.1f}%"


def proved_score_text(rec: dict) -> str:
    """The score with only formally shown equivalents left out (regress/mutate/score.py);
    "-" for a record from before it was kept."""
    proved = rec.get("score_proved")
    return "-" if proved is None else f"{proved:.1f}%"


MUT_COLUMNS = ("killed", "survived", "equivalent", "stillborn", "error")


def format_mutation(reg: Regression) -> str:
    """One row per mutation campaign, every survivor (file:line, the change), the errors."""
    if not reg.mutation:
        return ""
    recs = list(reg.mutation.values())
    width = max(len("design"), *(len(r["dut"]) for r in recs))
    head = (f"{'design':<{width}} {'sim':<9} {'N':>4} {'mutants':>7} "
            + " ".join(f"{c[:6]:>6}" for c in MUT_COLUMNS)
            + f" {'score':>6} {'proved':>6} {'goal':>5}  status")
    lines = ["mutation campaigns (score = killed / (killed + survived non-equivalent); proved: "
             "an equivalent judged by simulation counted as a survivor):",
             head, "-" * len(head)]
    for r in recs:
        label = {MUT_PASSED: "met", MUT_FAILED: "BELOW GOAL", MUT_ERROR: "ERROR"}.get(
            r["status"], "not started")
        lines.append(f"{r['dut']:<{width}} {r['sim']:<9} {r['n']:>4} {r['mutants']:>7} "
                     + " ".join(f"{r[c]:>6}" for c in MUT_COLUMNS)
                     + f" {score_text(r):>6} {proved_score_text(r):>6} {r['goal']:>4g}%  {label}")
        lines += [f"  survived {s['where']}: {s['change']}  ({s['reason'][:100]})"
                  for s in r["survivors"]]
        if r["status"] in (MUT_FAILED, MUT_ERROR):
            lines += [f"  {r['status']}: {r['message']}", f"  repro: {r['repro']}"]
    lines.append(f"mutation: {reg.campaigns(MUT_PASSED)}/{len(recs)} campaign(s) at their goal;"
                 f" each in {reg.out_dir}/mutation/<design>/ (mutate.md, mutate.html)")
    lines += [resting_line(reg)] if reg.mutation_resting else []
    return "\n".join(lines)


def resting_line(reg: Regression) -> str:
    """The campaigns the list's rotation rests this night, each with the night its share
    last came round (regress/mutate/rotation.py)."""
    return ("rotation: this night runs " + ", ".join(reg.mutation) + "; resting, last "
            "scheduled: " + ", ".join(f"{d} {when}" for d, when in
                                      sorted(reg.mutation_resting.items())))


def format_formal(reg: Regression) -> str:
    """One row per formal check (its point, the verdict it reached and the one it needs);
    for each that missed: the failing assertion, the counterexample (VCD and vector file),
    the replay and repro lines."""
    if not reg.formal:
        return ""
    recs = list(reg.formal.values())
    width = max(len("check"), *(len(r["key"]) for r in recs))
    lines = ["formal checks (SBY; docs/formal.md):", f"{'check':<{width}} {'seconds':>7}  verdict",
             "-" * (width + 30)]
    for r in recs:
        mark = "" if r["ok"] else f"  ✗ needs {r['wanted']}"
        lines.append(f"{r['key']:<{width}} {r['seconds']:>7.0f}  "
                     f"{formal_checks.describe(r)}{mark}")
        if not r["ok"] and r["status"] != formal_checks.SKIPPED:
            lines += [f"  {k}: {v}" for k, v in (
                ("where", r.get("location")), ("counterexample", r.get("trace")),
                ("vector", r.get("vector")), ("replay", r.get("replay"))) if v]
            lines.append(f"  repro: {r['repro']}")
    if verdicts := formal_checks.cores(recs):
        lines.append("cores: " + "; ".join(f"{d} {v}" for d, v in verdicts.items()))
    lines.append(f"formal: {reg.formal_ok()}/{len(recs)} check(s) as required; each in "
                 f"{reg.out_dir}/formal/<NN>-<check>/ (formal.json, record.json, SBY's tasks)")
    return "\n".join(lines)


def beyond_paper(reg: Regression) -> dict[str, str]:
    """Run key -> how its parameters go beyond the hardware the design's paper assumes."""
    return {r.run.key: f"{r.run.build.dut} {'; '.join(b)}" for r in reg.results
            if (b := r.run.beyond_paper())}


def final_line(reg: Regression) -> str:
    """The last line of the terminal output, read by CI: `N passed, M failed` (runs,
    cross-simulator comparisons, formal checks and mutation campaigns)."""
    checked = [f for f in reg.formal.values() if f["status"] != formal_checks.SKIPPED]
    passed = (reg.count(PASS) + sum(d.same for d in reg.diffs) + reg.campaigns(MUT_PASSED)
              + reg.formal_ok())
    failed = (reg.count(FAIL) + sum(not d.same for d in reg.diffs)
              + reg.campaigns(MUT_FAILED, MUT_ERROR) + sum(not f["ok"] for f in checked))
    errors = reg.count(ERROR)
    return f"{passed} passed, {failed} failed" + (
        f", {errors} infrastructure error(s)" if errors else "")


def format_summary(reg: Regression) -> str:
    parts = [format_table(reg)] if reg.results or not (reg.mutation or reg.formal) else []
    for extra in (format_failures(reg), format_buckets(reg), format_diffs(reg),
                  format_formal(reg), format_mutation(reg)):
        if extra:
            parts.append(extra)
    tail = [f"results: {reg.out_dir} (report.html, junit.xml, summary.json, runs/"
            + (", formal/" if reg.formal else "") + (", mutation/)" if reg.mutation else ")"),
            f"wall time: {_duration(reg.wall_s)} with {reg.jobs} job(s)"]
    tail += [f"shard {reg.shard}: {len(reg.results)} of {reg.planned} runs"
             + (f", {len(reg.formal)} of {reg.formal_planned} formal checks"
                if reg.formal_planned else "")
             + (f", {len(reg.mutation)} of {reg.mutation_planned} mutation campaigns"
                if reg.mutation_planned else "")] if reg.shard else []
    tail += reg.notes
    if beyond := beyond_paper(reg):
        tail.append(f"{len(beyond)} run(s) beyond the hardware their paper assumes (flagged, "
                    f"not the paper's design): {'; '.join(sorted(set(beyond.values())))}")
    if reg.stopped:
        tail.append(f"{reg.count(SKIP)} run(s) not started: {reg.stopped}")
        if skipped := sum(f["status"] == formal_checks.SKIPPED for f in reg.formal.values()):
            tail.append(f"{skipped} formal check(s) not started: {reg.stopped}")
        if skipped := reg.campaigns(MUT_SKIPPED):
            tail.append(f"{skipped} mutation campaign(s) not started: {reg.stopped}")
    parts.append("\n".join(tail + [final_line(reg)]))
    return "\n\n".join(parts)
