"""report.html: one self-contained page (no server, no external assets) from summary.json.

Sections, in the order a reader needs them: the verdict banner (PASS or FAIL and why, the
counts, wall time, git revision), then per design its runs, passes, failures and coverage;
the failures (buckets with their repro, then every failure: seed, one-line repro with git
revision and tool versions, log excerpt around the first error, waves rerun verdict, the
picture around the first mismatch); coverage (functional against each design's goal with
its holes, and the Verilator line/branch/toggle coverage when the folder has it, linking
its LCOV and Cobertura); every run; then trends (inline SVG of pass rate, coverage and the
mean and minimum mutation score over the history), cross-simulator checks, formal, mutation
(per design, every survivor, links to each campaign's mutate.html), cycle tables (cycles.md
rendered by markdown-it-py); and last the configuration (tools, seeds, results per
configuration).

Every run's seed links to its sim.log (relative links: the folder opens as it is from
file:// or as a downloaded CI artifact). Tables of class "sortable" sort by a click on a
column head, and a filter box (text, and status where rows have one) hides the rows that do
not match: a few lines of inline JavaScript, nothing fetched; without JavaScript the page is
the same, unsorted and unfiltered.

The decisions (what each section shows, the numbers and links) are made here, as plain data;
the text is the Jinja2 templates templates/report.html.j2 (the page: a line of it is a line
of the page, with its style sheet and script) and templates/parts.html.j2 (the tables, rows,
links and plots it is made of), which escape every text from the results (montverif.host.
templates, filter h).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt

from montverif.host import templates
from montverif.regress.regression import formal_checks
from montverif.regress.report import history
from montverif.regress.report.text import proved_score_text

_TEMPLATES = Path(__file__).resolve().parent / "templates"
EXCERPT_LINES = 6
COLORS = ("#36c", "#c63", "#393")
SHOWN_HOLES = 12  # holes listed in a coverage row before the rest fold away
CODE_KINDS = ("line", "branch", "toggle")
MUT_COLUMNS = ("mutants", "killed", "survived", "equivalent", "stillborn", "error")
NO_LOGS = "No logs yet for:"
MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")

Data = dict[str, Any]


def render(summary: dict, out_dir: Path, past: list[dict] | None = None) -> str:
    """The page: verdict, designs, failures, coverage, runs; then trends, cross-simulator
    checks, formal, mutation and cycle counts; the configuration last."""
    return templates.render(_TEMPLATES, "report.html.j2", **page(summary, out_dir, past or []))


def page(summary: dict, out_dir: Path, past: list[dict]) -> Data:
    """What report.html.j2 shows, section by section."""
    return {"title": f"montverif regression {summary['list']}",
            "banner": banner(summary, out_dir), "notes": notes(summary),
            "designs": designs(summary, out_dir), "failures": failures(summary, out_dir),
            "coverage": coverage(out_dir), "code": code_section(out_dir),
            "runs": [run_row(r, out_dir) for r in summary["runs"]],
            "trends": trends(summary, past), "diffs": summary.get("diffs") or [],
            "formal": formal(summary["formal"], out_dir) if summary.get("formal") else None,
            "mutation": mutation(summary["mutation"], out_dir, summary.get("mutation_resting"))
            if summary.get("mutation") else None,
            "cycles": cycles_html(out_dir), "configuration": configuration(summary, out_dir)}


# --- logs and links --------------------------------------------------------------------------
def log_excerpt(log: Path, first_error: str, context: int = EXCERPT_LINES) -> str:
    """The lines of a run's log around its first error (empty if no log)."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    probe = first_error.split(": ", 1)[-1][:60] if first_error else ""
    at = next((i for i, ln in enumerate(lines) if probe and probe in ln), None)
    if at is None:
        at = next((i for i, ln in enumerate(lines) if "ERROR" in ln or "MISMATCH" in ln),
                  max(len(lines) - 1, 0))
    lo, hi = max(0, at - context), min(len(lines), at + context + 1)
    return "\n".join(("> " if i == at else "  ") + lines[i] for i in range(lo, hi))


def _rel(path: str | Path | None, out_dir: Path) -> str:
    """A link to `path` relative to the results folder (it still resolves once the folder
    is moved or downloaded), URL-quoted; "" for no path."""
    return "" if not path else quote(os.path.relpath(Path(path), out_dir))


def log_file(run: dict, out_dir: Path) -> Path | None:
    """The run's sim.log: in <out>/runs/<key> (also after a shard merge), else where the
    run recorded its folder; None if neither exists."""
    for folder in (out_dir / "runs" / str(run["key"]), run.get("log_dir")):
        if folder and (Path(folder) / "sim.log").is_file():
            return Path(folder) / "sim.log"
    return None


def seed_link(run: dict, out_dir: Path) -> Data:
    """The run's seed, coloured by its status, with a link to its sim.log if there is one
    (href "" when not)."""
    error = f" ({run['first_error']})" if run.get("first_error") else ""
    return {"seed": run["seed"], "status": run["status"],
            "title": f"{run['key']}: {run['status']}{error}",
            "href": _rel(log_file(run, out_dir), out_dir)}


# --- the verdict -----------------------------------------------------------------------------
def verdict(summary: dict, out_dir: Path) -> tuple[bool, list[str]]:
    """PASS or FAIL as `montverif regress` exits, with why not: a run that did not pass
    (failed, infrastructure error, not started), simulators that disagree, a formal check or
    mutation campaign short of what it needs, an enforced coverage goal missed."""
    runs = summary["runs"]
    why = []
    for status, what in (("FAIL", "failed"), ("ERROR", "infrastructure error(s)"),
                         ("SKIP", "not started")):
        if count := sum(r["status"] == status for r in runs):
            why.append(f"{count} run(s) {what}")
    if bad := sum(not d["same"] for d in summary.get("diffs", [])):
        why.append(f"{bad} cross-simulator check(s) differ")
    if bad := sum(not c["ok"] for c in summary.get("formal", {}).values()):
        why.append(f"{bad} formal check(s) without their verdict")
    if bad := sum(m["status"] != "passed" for m in summary.get("mutation", {}).values()):
        why.append(f"{bad} mutation campaign(s) below their goal")
    if _coverage_enforced(out_dir):
        if missed := [d for d, rec in history.coverage_duts(out_dir).items()
                      if rec.get("met") is False]:
            why.append("coverage goal missed: " + ", ".join(missed))
    if not (runs or summary.get("formal") or summary.get("mutation") or summary.get("shard")):
        why.append("nothing ran")
    return not why, why


def _seed_source(summary: dict) -> object:
    """Where the base seed came from (--seed date / run); None when given as a number."""
    source = summary.get("base_seed_source", "given")
    return None if source == "given" else source


def banner(summary: dict, out_dir: Path) -> Data:
    """The verdict first: PASS or FAIL with why, the counts, wall time and revision."""
    ok, why = verdict(summary, out_dir)
    done = summary["passed"] + summary["failed"]
    return {"word": "PASS" if ok else "FAIL", "why": "; ".join(why),
            "passed": summary["passed"], "failed": summary["failed"],
            "errors": summary.get("errors"), "skipped": summary["skipped"],
            "rate": f"{100 * summary['passed'] / done:.1f}%" if done else "-",
            "wall": f"{summary['wall_s']:.0f}", "git": summary["git"],
            "start": summary["start"], "base_seed": summary["base_seed"],
            "seed_source": _seed_source(summary), "shard": summary.get("shard") or ""}


def notes(summary: dict) -> Data:
    """What a reader must know next to the verdict: formal and mutation at a glance, the
    regression's notes, runs beyond their paper, a partial regression."""
    checks = list(summary.get("formal", {}).values())
    muts = list(summary.get("mutation", {}).values())
    beyond = [r for r in summary["runs"] if r.get("beyond_paper")]
    return {"formal": _tally(len(checks), [c["key"] for c in checks if not c["ok"]]),
            "mutation": _tally(len(muts), [m["dut"] for m in muts if m["status"] != "passed"]),
            "notes": summary.get("notes", []), "beyond": len(beyond),
            "beyond_what": "; ".join(sorted({f"{r['dut']} {b}" for r in beyond
                                             for b in r["beyond_paper"]})),
            "partial": history.partial(summary)}


def _tally(total: int, short: list[str]) -> Data | None:
    """How many of `total` did as required, and those that did not (None for none at all)."""
    return {"ok": total - len(short), "total": total, "short": short} if total else None


# --- designs, failures and runs ----------------------------------------------------------------
def designs(summary: dict, out_dir: Path) -> list[Data]:
    """Per design: runs, passed, failed, and its coverage (functional against its goal;
    line, branch and toggle when measured)."""
    runs = summary["runs"]
    functional = history.coverage_duts(out_dir)
    code = code_coverage(out_dir)
    code_duts = code["duts"] if code else {}
    rows = []
    for dut in sorted({r["dut"] for r in runs} | set(functional) | set(code_duts)):
        mine = [r for r in runs if r["dut"] == dut]
        passed = sum(r["status"] == "PASS" for r in mine)
        failed = sum(r["status"] == "FAIL" for r in mine)
        cov = [*_functional_text(functional.get(dut)),
               *([_kinds(code_duts[dut])] if dut in code_duts else [])]
        rows.append({"dut": dut, "runs": len(mine), "passed": passed, "failed": failed,
                     "status": "FAIL" if len(mine) - passed else "PASS",
                     "coverage": "; ".join(cov) or "-"})
    return rows


def _functional_text(rec: dict | None) -> list[str]:
    """A design's functional coverage in words, against its goal ([] when not measured)."""
    if not rec:
        return []
    pct, goal = 100 * rec["covered"] / rec["total"], rec.get("goal")
    against = (f" (goal {goal:g}%{'' if rec.get('met', True) else ', MISSED'})"
               if isinstance(goal, int | float) else "")
    return [f"functional {pct:.1f}%{against}"]


def _kinds(rec: dict) -> str:
    return ", ".join(f"{k} {100 * rec[k]['covered'] / rec[k]['total']:.1f}%"
                     for k in CODE_KINDS if k in rec and rec[k]["total"])


def failures(summary: dict, out_dir: Path) -> Data:
    """The failure buckets with their repro, then every failure with its log excerpt."""
    runs = summary["runs"]
    by_key = {r["key"]: r for r in runs}
    buckets = [b | {"seeds": [(seed_link(by_key[k], out_dir) if k in by_key else None, s)
                              for s, k in zip(b["seeds"], b.get("runs") or [""] * len(b["seeds"]),
                                              strict=False)]}
               for b in summary.get("buckets", [])]
    return {"buckets": buckets, "git": summary["git"],
            "versions": ", ".join(f"{k} {v}" for k, v in summary.get("versions", {}).items()),
            "runs": [failure(r, out_dir) for r in runs if r["status"] == "FAIL"]}


def failure(run: dict, out_dir: Path) -> Data:
    """One failure: seed, first error, repro, the log around the error, the rerun."""
    log = log_file(run, out_dir)
    return {"key": run["key"], "seed": run["seed"], "first_error": run["first_error"],
            "repro": run["repro"], "log": _rel(log, out_dir),
            "excerpt": log_excerpt(log, run["first_error"]) if log else "",
            "rerun": rerun(run["rerun"], out_dir) if run.get("rerun") else None}


def rerun(rr: dict, out_dir: Path) -> Data:
    """The rerun with waves of a failure: its verdict, the waves and the save files for
    gtkwave and surfer, the picture (or the words) around the first mismatch."""
    said = ("the rerun with waves fails the same way (same first error)"
            if rr["same_failure"] else
            "the rerun with waves PASSED: the failure did not reproduce"
            if not rr["first_error"] else
            f"the rerun with waves failed DIFFERENTLY: {rr['first_error']}")
    rdir = Path(rr["log_dir"]) if rr.get("log_dir") else None

    def there(name: str) -> Path | None:
        return rdir / name if rdir and (rdir / name).exists() else None

    links = [("waves", rr["waves"])] if rr.get("waves") and Path(rr["waves"]).exists() else []
    links += [(name, path) for name in ("gtkw", "sucl") if (path := there(f"waves.{name}"))]
    png, txt = there("mismatch.png"), there("mismatch.txt")
    return {"verdict": said, "links": [(kind, _rel(path, out_dir)) for kind, path in links],
            "png": base64.b64encode(png.read_bytes()).decode() if png else None,
            "mismatch": txt.read_text().strip() if txt and not png else None}


def run_row(run: dict, out_dir: Path) -> Data:
    """A run's row of the table of every run."""
    return {"key": run["key"], "dut": run["dut"], "n": run["n"], "sim": run["sim"],
            "status": run["status"], "seed": seed_link(run, out_dir),
            "tests": " ".join(run.get("tests") or []) or "all",
            "wall": f"{run['wall_s']:.1f}", "error": run.get("first_error") or "",
            "log": _rel(log_file(run, out_dir), out_dir)}


# --- coverage --------------------------------------------------------------------------------
def coverage(out_dir: Path) -> Data | None:
    """Per design: covered/total bins, percent, goal, met or missed, and the holes (the
    bins not covered, by name), waived bins and the bins no run's width could reach, as
    `montverif closure report` lists them, and how many missed their goal; None without a
    coverage summary."""
    duts = history.coverage_duts(out_dir)
    if not duts:
        return None
    rows = [_coverage_row(dut, d) for dut, d in sorted(duts.items())]
    return {"rows": rows, "missed": sum(row["status"] == "MISSED" for row in rows)}


def _coverage_row(dut: str, d: dict) -> Data:
    pct = 100 * d["covered"] / d["total"]
    goal = d.get("goal")
    met = d.get("met", pct >= goal) if isinstance(goal, int | float) else None
    holes = d.get("uncovered")
    away = d.get("unreachable") or {}

    def names(bins: list[str]) -> list[str]:
        return [b.removeprefix(dut + ".") for b in bins]

    return {"dut": dut, "covered": d["covered"], "total": d["total"], "pct": f"{pct:.1f}",
            "goal": f"{goal:g}" if isinstance(goal, int | float) else "-",
            "status": "-" if met is None else "met" if met else "MISSED",
            "cls": "FAIL" if met is False else "PASS" if met else "SKIP",
            "holes": names(holes) if isinstance(holes, list) else None,
            "waived": names(d.get("waived") or []), "waive_reason": d.get("waive_reason"),
            "unreachable": [(b.removeprefix(dut + "."), why) for b, why in away.items()],
            "shown": SHOWN_HOLES}


def _coverage_json(out_dir: Path) -> dict:
    """<out>/coverage/summary.json as a dict ({} when missing or unreadable)."""
    try:
        data = json.loads((out_dir / "coverage" / "summary.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _coverage_enforced(out_dir: Path) -> bool:
    summary = _coverage_json(out_dir)
    return bool(summary.get("enforce")) if summary else False


def code_coverage(out_dir: Path) -> dict | None:
    """The Verilator code coverage of coverage/summary.json ("code": overall and per design,
    each kind {covered, total, percent}); None when not measured or not readable."""
    code = _coverage_json(out_dir).get("code")

    def ok(rec: object) -> bool:
        return isinstance(rec, dict) and all(
            isinstance(rec.get(k), dict) and isinstance(rec[k].get("total"), int)
            and isinstance(rec[k].get("covered"), int) for k in ("line", "toggle"))

    if not isinstance(code, dict) or not ok(code.get("overall")):
        return None
    duts = code.get("duts")
    if not isinstance(duts, dict):
        duts = {}
    return {"runs": code.get("runs"), "overall": code["overall"],
            "duts": {d: rec for d, rec in duts.items() if ok(rec)}}


def code_section(out_dir: Path) -> Data | None:
    """Verilator line, branch and toggle coverage (covered/total) overall and per design,
    linking to the LCOV and Cobertura files when the folder has them; None if not measured."""
    code = code_coverage(out_dir)
    if code is None:
        return None
    folder = out_dir / "coverage" / "code"
    rows = [{"name": d, "all": False, "cells": _code_cells(rec)}
            for d, rec in sorted(code["duts"].items())]
    return {"runs": code.get("runs") or "?",
            "rows": [*rows, {"name": "all", "all": True, "cells": _code_cells(code["overall"])}],
            "links": [(_rel(folder / name, out_dir), name)
                      for name in ("merged.info", "merged.toggle.info", "merged.cobertura.xml")
                      if (folder / name).is_file()]}


def _code_cells(rec: dict) -> list[Data | None]:
    """Line, branch, toggle: percent (and covered/total), None when not measured."""
    return [{"sort": f"{100 * rec[k]['covered'] / rec[k]['total']:.2f}",
             "pct": f"{100 * rec[k]['covered'] / rec[k]['total']:.1f}",
             "covered": rec[k]["covered"], "total": rec[k]["total"]}
            if k in rec and rec[k]["total"] else None for k in CODE_KINDS]


# --- trends ----------------------------------------------------------------------------------
def trends(summary: dict, past: list[dict]) -> Data:
    """The trend plots of this list's complete regressions (none for a first one)."""
    hist = [h for h in history.complete(past) if h.get("list") == summary["list"]]
    plots = []
    if len(hist) > 1:
        plots = [trend([(h["start"][:19], h.get("pass_rate")) for h in hist],
                       "pass rate per regression"),
                 trend([(h["start"][:19], h.get("coverage_pct")) for h in hist],
                       "functional coverage (covered / total bins)")]
        if summary.get("formal") or any(h.get("formal_total") for h in hist):
            plots.append(trend([(h["start"][:19], 100.0 * h["formal_ok"] / h["formal_total"]
                                 if h.get("formal_total") else None) for h in hist],
                               "formal checks that reached the verdict they need (%)"))
        if summary.get("mutation") or any(h.get("mutation_mean") is not None for h in hist):
            plots.append(trend([(h["start"][:19], h.get("mutation_mean")) for h in hist],
                               "mutation score, mean over the designs",
                               others=[("minimum", [h.get("mutation_min") for h in hist])]))
    return {"regressions": len(hist), "plots": plots}


def trend(points: list[tuple[str, float | None]], label: str, width: int = 520,
          height: int = 140, others: Sequence[tuple[str, Sequence[float | None]]] = ()
          ) -> Data:
    """A line plot (0..100 %) of the values in order; None values are gaps. `others` adds
    named lines over the same points (e.g. the minimum beside the mean). With fewer than two
    values, "known" says how many and there is nothing to draw."""
    vals = [(i, v) for i, (_, v) in enumerate(points) if v is not None]
    plot: Data = {"label": label, "known": len(vals)}
    if len(vals) == 1:  # one point is no trend: no axes with one date at both ends
        return plot | {"only": f"{vals[0][1]:g}", "when": points[vals[0][0]][0]}
    if not vals:
        return plot
    pad, n = 30, max(len(points) - 1, 1)
    first, last = points[0][0], points[-1][0]
    cut = 19 if first[:16] == last[:16] else 16  # one minute: the axis tells them apart

    def xy(i: int, v: float) -> tuple[float, float]:
        return pad + (width - 2 * pad) * i / n, height - pad - (height - 2 * pad) * v / 100

    names = [name for name, _ in points]
    lines = [_line([v for _, v in points], names, "", COLORS[0], xy)]
    lines += [_line(vs, names, name, COLORS[(k + 1) % len(COLORS)], xy)
              for k, (name, vs) in enumerate(others)]
    return plot | {"width": width, "height": height, "pad": pad, "bottom": height - pad,
                   "right": width - pad, "first": first[:cut], "last": last[:cut],
                   "lines": [line for line in lines if line], "latest": f"{vals[-1][1]:g}",
                   "legend": [(COLORS[(k + 1) % len(COLORS)], name, _latest(vs))
                              for k, (name, vs) in enumerate(others)]}


def _latest(values: Sequence[float | None]) -> str:
    """The last value as the legend shows it ("" for none)."""
    return next((f"{v:g}" for v in reversed(values) if v is not None), "")


def _line(values: Sequence[float | None], names: list[str], name: str, color: str,
          xy: Callable[[int, float], tuple[float, float]]) -> Data | None:
    """One polyline with a dot (and tooltip) per value; None with no values."""
    pts = [(i, v, *xy(i, v)) for i, v in enumerate(values) if v is not None]
    if not pts:
        return None
    return {"color": color, "points": " ".join(f"{x:.1f},{y:.1f}" for _, _, x, y in pts),
            "what": f"{name}: " if name else "",
            "dots": [{"x": f"{x:.1f}", "y": f"{y:.1f}", "name": names[i], "value": f"{v:g}"}
                     for i, v, x, y in pts]}


# --- formal and mutation -----------------------------------------------------------------------
def formal(checks: dict[str, dict], out_dir: Path) -> Data:
    """Every formal check with its verdict, the verdict it needs, the counterexample of a
    failure (VCD and vector file) and the command that repeats or replays it; each core's
    verdict in one word (formal_checks.cores)."""
    recs = list(checks.values())
    return {"ok": sum(bool(r["ok"]) for r in recs), "total": len(recs),
            "cores": list(formal_checks.cores(recs).items()),
            "rows": [_formal_row(r, out_dir) for r in recs]}


def _formal_row(rec: dict, out_dir: Path) -> Data:
    """One check: its folder's formal.json, the verdict, the counterexample and repro."""
    verdict = out_dir / rec["dir"] / "formal.json"
    return {"key": rec["key"], "href": _rel(verdict, out_dir) if verdict.exists() else "",
            "ok": bool(rec["ok"]), "verdict": formal_checks.describe(rec),
            "wanted": rec["wanted"], "seconds": f"{rec['seconds']:.0f}",
            "cex": [(rec[k], label) for k, label in (("trace", "VCD"), ("vector", "vector"))
                    if rec.get(k)],
            "repro": rec.get("replay") or rec["repro"]}


def mutation(campaigns: dict[str, dict], out_dir: Path,
             resting: dict[str, str] | None = None) -> Data:
    """Per design: mutants, verdicts, score against the goal (linking to the campaign's
    mutate.html); then every survivor with file:line and the change; then the designs the
    rotation rests."""
    recs = list(campaigns.values())
    return {"passed": sum(r["status"] == "passed" for r in recs), "total": len(recs),
            "columns": list(MUT_COLUMNS), "rows": [_campaign_row(r, out_dir) for r in recs],
            "survivors": [s | {"dut": r["dut"]} for r in recs for s in r["survivors"]],
            "resting": sorted((resting or {}).items())}


def _campaign_row(rec: dict, out_dir: Path) -> Data:
    page = out_dir / rec["dir"] / "mutate.html"
    return {"dut": rec["dut"], "href": _rel(page, out_dir) if page.exists() else "",
            "sim": rec["sim"], "n": rec["n"], "counts": [rec[c] for c in MUT_COLUMNS],
            "ok": rec["status"] == "passed",
            "score": "-" if rec["score"] is None else f"{rec['score']:.1f}%",
            "proved": proved_score_text(rec), "goal": f"{rec['goal']:g}",
            "wall": f"{rec['wall_s']:.0f}", "status": rec["status"], "message": rec["message"]}


# --- cycle counts and the configuration ------------------------------------------------------
def markdown_html(md: str, title: str = "") -> str:
    """Markdown (CommonMark and pipe tables; raw HTML escaped) as HTML, its headings two
    levels down (a page's # becomes h3 under the report's h2 sections), a first heading
    equal to `title` (the section's own heading) left out, and its tables sortable."""
    tokens = MARKDOWN.parse(md)
    if (title and len(tokens) >= 3 and tokens[0].type == "heading_open"
            and tokens[1].content.strip().lower() == title.lower()):
        tokens = tokens[3:]
    for tok in tokens:
        if tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{min(int(tok.tag[1]) + 2, 6)}"
        elif tok.type == "table_open":
            tok.attrSet("class", "sortable")
    return str(MARKDOWN.renderer.render(tokens, MARKDOWN.options, {}))


def cycles_html(out_dir: Path) -> str | None:
    """cycles.md rendered (None without one); its list of designs without logs left out (a
    regression runs the designs of its list: the others are not missing)."""
    cycles = out_dir / "cycles.md"
    if not cycles.exists():
        return None
    text = "\n".join(ln for ln in cycles.read_text().splitlines()
                     if not ln.startswith(NO_LOGS))
    return markdown_html(text, "Cycle counts")


def configuration(summary: dict, out_dir: Path) -> Data:
    """Last: the tools, seeds and jobs, and the results per configuration (model)."""
    groups: dict[str, list[dict]] = {}
    for r in summary["runs"]:
        groups.setdefault(r["config"], []).append(r)
    rows = [{"config": key, "runs": len(group),
             "count": {s: sum(r["status"] == s for r in group) for s in ("PASS", "FAIL", "SKIP")},
             "seeds": [seed_link(r, out_dir) for r in group]} for key, group in groups.items()]
    return {"tools": ", ".join(f"{k} {v}" for k, v in summary.get("versions", {}).items()),
            "list": summary["list"], "base_seed": summary["base_seed"],
            "seed_source": _seed_source(summary), "jobs": summary.get("jobs", "?"),
            "rows": rows}
