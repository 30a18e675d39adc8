"""A regression as Markdown, for a CI job's summary page (GitHub's GITHUB_STEP_SUMMARY):
the verdict and the base seed, pass/fail per design, the failure buckets each with its
repro line, the formal checks, the mutation campaigns and the merged functional coverage.

    montverif report DIR --markdown      (ci/pr.sh appends it to $GITHUB_STEP_SUMMARY)

It reads what the regression wrote: DIR/summary.json (regress/regression/summary.py) and,
when the coverage was merged, DIR/coverage/summary.json (its schema: regress/coverage/merge.py).
Every repro line is the one local command that reproduces the failure, with its seed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from montverif.host import readback
from montverif.regress.regression import formal_checks
from montverif.regress.regression.formal_checks import SKIPPED, describe
from montverif.regress.regression.summary import SUMMARY_SHAPE

MAX_SEEDS = 8  # seeds listed per bucket; the rest are counted
MAX_BINS = 6  # uncovered bins listed per design; the rest are counted


def _cell(text: object) -> str:
    """Text inside a table cell: pipes escaped, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: object) -> str:
    """Inline code that survives backticks in the text."""
    value = str(text).replace("\n", " ")
    fence = "``" if "`" in value else "`"
    return f"{fence}{value}{fence}" if fence == "`" else f"{fence} {value} {fence}"


def _seed_line(summary: dict[str, Any]) -> str:
    source = summary.get("base_seed_source", "given")
    where = "" if source == "given" else f" (from the {source})"
    return (f"Base seed **{summary['base_seed']}**{where}: `--seed {summary['base_seed']}` "
            "replays every run seed and mutant of this regression.")


def _per_design(summary: dict[str, Any]) -> list[str]:
    rows: dict[str, dict[str, int]] = {}
    for run in summary["runs"]:
        row = rows.setdefault(run["dut"], {"PASS": 0, "FAIL": 0, "ERROR": 0, "SKIP": 0})
        row[run["status"]] = row.get(run["status"], 0) + 1
    if not rows:  # a list of formal checks or mutation campaigns only
        return []
    errors = any(row["ERROR"] for row in rows.values())  # infrastructure: a column if any
    lines = ["| design | verdict | passed | failed |" + (" infrastructure |" if errors else "")
             + " not started |", "|---|---|---:|---:|" + ("---:|" if errors else "") + "---:|"]
    for dut, row in rows.items():
        verdict = "❌ fail" if row["FAIL"] else "✅ pass" if not (row["SKIP"] or row["ERROR"]) \
            else "⚠️ incomplete"
        lines.append(f"| `{dut}` | {verdict} | {row['PASS']} | {row['FAIL']} |"
                     + (f" {row['ERROR']} |" if errors else "") + f" {row['SKIP']} |")
    return lines


def _buckets(summary: dict[str, Any]) -> list[str]:
    if not summary["buckets"]:
        return []
    lines = ["", f"### Failure buckets ({len(summary['buckets'])})", ""]
    for i, b in enumerate(summary["buckets"], 1):
        seeds = ", ".join(map(str, b["seeds"][:MAX_SEEDS]))
        more = f" and {len(b['seeds']) - MAX_SEEDS} more" if len(b["seeds"]) > MAX_SEEDS else ""
        lines += [f"{i}. **{_cell(b['dut'])}**: {b['count']} run(s), {_code(b['signature'])}",
                  f"   - first error: {_code(b['first_error'])}",
                  f"   - seeds: {seeds}{more}",
                  "   - repro:", "", "     ```sh", f"     {b['repro']}", "     ```", ""]
    return lines


def _mutation(summary: dict[str, Any]) -> list[str]:
    muts = list(summary.get("mutation", {}).values())
    if not muts:
        return []
    lines = ["", "### Mutation", "",
             "| design | status | score | proved score | goal | repro |",
             "|---|---|---:|---:|---:|---|"]
    for m in muts:
        shown, proved = (f"{v:.1f} %" if isinstance(v, int | float) else "-"
                         for v in (m.get("score"), m.get("score_proved")))
        goal = m.get("goal")
        lines.append(f"| `{m['dut']}` | {m['status']} | {shown} | {proved} | "
                     f"{'-' if goal is None else f'{goal:g} %'} | {_code(m.get('repro', ''))} |")
    return lines


def _formal(summary: dict[str, Any]) -> list[str]:
    checks = list(summary.get("formal", {}).values())
    if not checks:
        return []
    ok = sum(bool(c.get("ok")) for c in checks)
    lines = ["", f"### Formal ({ok} of {len(checks)} as required)", "",
             "| check | verdict | needs | seconds | counterexample | repro |",
             "|---|---|---|---:|---|---|"]
    for c in checks:
        mark = "" if c.get("ok") else " ❌"
        cex = " ".join(_code(c[k]) for k in ("trace", "vector") if c.get(k)) or "-"
        lines.append(f"| `{c['key']}` | {_cell(describe(c))}{mark} | {c['wanted']} | "
                     f"{c['seconds']:.0f} | {cex} | {_code(c.get('replay') or c['repro'])} |")
    if verdicts := formal_checks.cores(checks):
        lines += ["", "| core | verdict |", "|---|---|",
                  *(f"| {d} | {_cell(v)} |" for d, v in verdicts.items())]
    return lines


def _coverage(coverage: dict[str, Any] | None) -> list[str]:
    if not coverage or not coverage.get("duts"):
        return ["", "### Functional coverage", "", "No coverage merged (no passing run wrote "
                "coverage.xml)."]
    lines = ["", "### Functional coverage", "",
             f"{coverage['runs']} passing run(s) merged.", "",
             "| design | covered / total | percent | goal | uncovered |",
             "|---|---:|---:|---:|---|"]
    for dut, d in coverage["duts"].items():
        unc = [b.removeprefix(dut + ".") for b in d["uncovered"]]
        shown = ", ".join(_code(b) for b in unc[:MAX_BINS])
        shown += f" and {len(unc) - MAX_BINS} more" if len(unc) > MAX_BINS else ""
        # ❌ where the list enforces the goals (the nightly), else a note (the smoke list)
        mark = "" if d["met"] else " ❌" if coverage.get("enforce") else " (below goal)"
        lines.append(f"| `{dut}` | {d['covered']} / {d['total']} | {d['percent']:.1f} %{mark} | "
                     f"{d['goal']:g} % | {_cell(shown) or '-'} |")
    o = coverage["overall"]
    lines.append(f"| overall | {o['covered']} / {o['total']} | {o['percent']:.1f} % | | |")
    return lines


def render(summary: dict[str, Any], coverage: dict[str, Any] | None) -> str:
    """The Markdown of one regression's summary.json (and its merged coverage summary)."""
    failed, passed, skipped = summary["failed"], summary["passed"], summary["skipped"]
    errors = summary.get("errors", 0)
    missed = [c for c in summary.get("formal", {}).values()
              if not c.get("ok") and c.get("status") != SKIPPED]
    missed += [m for m in summary.get("mutation", {}).values()
               if m.get("status") in ("failed", "error")]
    verdict = "❌ FAILED" if failed or missed else "⚠️ INCOMPLETE" if skipped or errors or \
        summary["stopped"] else "✅ PASSED"
    shard = f", shard {summary['shard']}" if summary.get("shard") else ""
    lines = [f"## montverif regression `{summary['list']}`{shard}: {verdict}", "",
             f"{passed} passed, {failed} failed, "
             + (f"{errors} infrastructure error(s), " if errors else "")
             + f"{skipped} not started; wall "
             f"{summary['wall_s']:.0f} s; git `{summary['git']}`.", "", _seed_line(summary), ""]
    lines += [f"> {_cell(note)}" for note in summary.get("notes", [])]
    if beyond := [r for r in summary["runs"] if r.get("beyond_paper")]:
        lines.append(f"> {len(beyond)} run(s) beyond the hardware their paper assumes: "
                     + _cell("; ".join(sorted({f"{r['dut']} {b}" for r in beyond
                                              for b in r["beyond_paper"]}))))
    lines += _per_design(summary) + _buckets(summary) + _formal(summary) + _mutation(summary)
    lines += _coverage(coverage)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).rstrip("\n") + "\n"  # one blank line


# what is read of a coverage merge's summary (coverage/summary.json)
COVERAGE_SHAPE = {"duts": {str: {"covered": int, "total": int, "percent": float}},
                  "overall?": {str: None}}


def render_folder(results: Path) -> str:
    """render() of a results folder; ValueError with one line when it holds no regression."""
    path = results / "summary.json"
    try:
        summary = readback.read_json(path, SUMMARY_SHAPE)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    cov_path = results / "coverage" / "summary.json"
    coverage = readback.read_json(cov_path, COVERAGE_SHAPE) if cov_path.is_file() else None
    try:
        return render(summary, coverage)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"{path}: not a regression's summary ({type(exc).__name__}: "
                         f"{exc})") from None
