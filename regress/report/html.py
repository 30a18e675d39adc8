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
not match: a few lines of inline JavaScript (SCRIPT), nothing fetched; without JavaScript
the page is the same, unsorted and unfiltered.
"""

from __future__ import annotations

import base64
import html
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

from markdown_it import MarkdownIt

from montverif.regress.regression import formal_checks
from montverif.regress.report import history
from montverif.regress.report.text import proved_score_text

CSS = """body{font-family:sans-serif;margin:1.5em;max-width:1300px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;
font-size:13px;text-align:left}th{background:#eee}.PASS{color:#070}.FAIL{color:#b00;
font-weight:bold}.SKIP{color:#777}.ERROR{color:#b60;font-weight:bold}pre{background:#f6f6f6;padding:6px;overflow-x:auto;
font-size:12px}code{font-size:12px}.hit{background:#fdd}
table.sortable th{cursor:pointer;user-select:none}th[aria-sort=ascending]::after{content:" \\25B2"}
th[aria-sort=descending]::after{content:" \\25BC"}.filter{margin:.4em 0;font-size:13px}
td.holes{max-width:520px}td.holes code{word-break:break-word}
.banner{padding:.5em 1em;margin:0 0 1em;border-radius:4px;color:#fff}.banner h1{margin:.2em 0}
.banner.pass{background:#176b2c}.banner.fail{background:#a8141c}.banner code{color:#fff;
font-size:13px}.banner p{margin:.3em 0}"""
# Sorting (a click or Enter on a column head; numbers as numbers, data-sort overrides the
# text) and filtering (every word of the box in the row's text, and the row's data-status
# when the status menu is set). No library, nothing fetched.
SCRIPT = """(function(){
function val(c){var v=c.getAttribute('data-sort');if(v===null)v=c.textContent.trim();
var n=Number(v.replace(/%$/,''));return v!==''&&!isNaN(n)?n:v.toLowerCase();}
function cmp(a,b){if(typeof a===typeof b)return a<b?-1:a>b?1:0;return typeof a==='number'?-1:1;}
document.querySelectorAll('table.sortable').forEach(function(t){
var hs=t.tHead.rows[0].cells;Array.prototype.forEach.call(hs,function(h,i){
h.tabIndex=0;h.title='sort by '+h.textContent;function go(){
var up=h.getAttribute('aria-sort')!=='ascending';
Array.prototype.forEach.call(hs,function(o){o.removeAttribute('aria-sort');});
h.setAttribute('aria-sort',up?'ascending':'descending');var b=t.tBodies[0];
var rs=Array.prototype.slice.call(b.rows);rs.sort(function(x,y){
var r=cmp(val(x.cells[i]),val(y.cells[i]));return up?r:-r;});
rs.forEach(function(r){b.appendChild(r);});}
h.addEventListener('click',go);
h.addEventListener('keydown',function(e){if(e.key==='Enter')go();});});});
document.querySelectorAll('.filter').forEach(function(f){
var t=document.getElementById(f.getAttribute('data-table'));
var q=f.querySelector('input'),s=f.querySelector('select'),n=f.querySelector('.shown');
function apply(){var ws=q.value.toLowerCase().split(/\\s+/).filter(Boolean);
var st=s?s.value:'',k=0,rs=t.tBodies[0].rows;Array.prototype.forEach.call(rs,function(r){
var x=r.textContent.toLowerCase();var ok=(!st||r.getAttribute('data-status')===st)&&
ws.every(function(w){return x.indexOf(w)>=0;});r.hidden=!ok;if(ok)k++;});
n.textContent=k+' of '+rs.length+' row(s) shown';}
q.addEventListener('input',apply);if(s)s.addEventListener('change',apply);
f.hidden=false;apply();});
})();"""
EXCERPT_LINES = 6
COLORS = ("#36c", "#c63", "#393")


def _e(text: object) -> str:
    return html.escape(str(text))


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


def svg_trend(points: list[tuple[str, float | None]], label: str, width: int = 520,
              height: int = 140, others: Sequence[tuple[str, Sequence[float | None]]] = ()
              ) -> str:
    """A line plot (0..100 %) of the values in order; None values are gaps. `others` adds
    named lines over the same points (e.g. the minimum beside the mean)."""
    vals = [(i, v) for i, (_, v) in enumerate(points) if v is not None]
    if not vals:
        return f"<p class=trend>{_e(label)}: no data yet.</p>"
    if len(vals) < 2:  # one point is no trend: no axes with one date at both ends
        return (f"<p class=trend>{_e(label)}: {vals[0][1]:g}% in the only regression with a "
                f"value so far ({_e(points[vals[0][0]][0])}); the trend is drawn from the "
                "second one on.</p>")
    pad, n = 30, max(len(points) - 1, 1)
    first, last = points[0][0], points[-1][0]
    if first[:16] == last[:16]:  # two regressions in one minute: the axis tells them apart
        first, last = first[:19], last[:19]
    else:
        first, last = first[:16], last[:16]

    def xy(i: int, v: float) -> tuple[float, float]:
        return pad + (width - 2 * pad) * i / n, height - pad - (height - 2 * pad) * v / 100

    names = [name for name, _ in points]
    lines = _line([v for _, v in points], names, "", COLORS[0], xy)
    lines += "".join(_line(vs, names, name, COLORS[(k + 1) % len(COLORS)], xy)
                     for k, (name, vs) in enumerate(others))
    axis = (f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
            f'stroke="#888"/><line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" '
            f'stroke="#888"/><text x="2" y="{pad + 4}" font-size="10">100%</text>'
            f'<text x="8" y="{height - pad + 4}" font-size="10">0%</text>'
            f'<text x="{pad}" y="{height - 8}" font-size="10">{_e(first)}</text>'
            f'<text x="{width - pad - 125}" y="{height - 8}" font-size="10">'
            f"{_e(last)}</text>")
    legend = "".join(
        f'; <span style="color:{COLORS[(k + 1) % len(COLORS)]}">{_e(name)}</span>'
        + (f" (latest {_latest(vs):g}%)" if _latest(vs) is not None else "")
        for k, (name, vs) in enumerate(others))
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}">{axis}{lines}</svg><figcaption>{_e(label)} '
            f"(latest {vals[-1][1]:g}%){legend}</figcaption></figure>")


def _latest(values: Sequence[float | None]) -> float | None:
    return next((v for v in reversed(values) if v is not None), None)


def _line(values: Sequence[float | None], names: list[str], name: str, color: str,
          xy: Callable[[int, float], tuple[float, float]]) -> str:
    """One polyline with a dot (and tooltip) per value."""
    pts = [(i, v, *xy(i, v)) for i, v in enumerate(values) if v is not None]
    if not pts:
        return ""
    poly = " ".join(f"{x:.1f},{y:.1f}" for _, _, x, y in pts)
    what = f"{name}: " if name else ""
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}">'
                   f"<title>{_e(names[i])}: {_e(what)}{v:g}%</title></circle>"
                   for i, v, x, y in pts)
    return (f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{poly}"/>'
            f"{dots}")


MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


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


def table(headers: Sequence[str], rows: Sequence[str], table_id: str = "",
          statuses: Sequence[str] = ()) -> str:
    """A sortable table (rows: "<tr>...</tr>" each); with table_id, a filter box above it
    and, with statuses, a menu of the rows' data-status values."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    ident = f' id="{_e(table_id)}"' if table_id else ""
    box = ""
    if table_id:
        menu = ("<select aria-label=\"status\"><option value=\"\">any status</option>"
                + "".join(f"<option>{_e(st)}</option>" for st in statuses) + "</select> "
                if statuses else "")
        box = (f'<div class=filter data-table="{_e(table_id)}" hidden>filter: <input '
               f'type=search aria-label="filter rows" placeholder="words in the row"> '
               f"{menu}<span class=shown></span></div>")
    return (f"{box}<table class=sortable{ident}><thead><tr>{head}</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="signals around the first mismatch" src="data:image/png;base64,{data}">'


def _rel(path: str | Path | None, out_dir: Path) -> str:
    """A link to `path` relative to the results folder (it still resolves once the folder
    is moved or downloaded), URL-quoted."""
    return "" if not path else quote(os.path.relpath(Path(path), out_dir))


def log_file(run: dict, out_dir: Path) -> Path | None:
    """The run's sim.log: in <out>/runs/<key> (also after a shard merge), else where the
    run recorded its folder; None if neither exists."""
    for folder in (out_dir / "runs" / str(run["key"]), run.get("log_dir")):
        if folder and (Path(folder) / "sim.log").is_file():
            return Path(folder) / "sim.log"
    return None


def seed_link(run: dict, out_dir: Path) -> str:
    """The run's seed, coloured by its status, linking to its sim.log if there is one."""
    log = log_file(run, out_dir)
    title = f'{run["key"]}: {run["status"]}' + (f" ({run['first_error']})"
                                               if run.get("first_error") else "")
    if log is None:
        return f'<span class="{_e(run["status"])}" title="{_e(title)}">{run["seed"]}</span>'
    return (f'<a class="{_e(run["status"])}" title="{_e(title)}" '
            f'href="{_e(_rel(log, out_dir))}">{run["seed"]}</a>')


def runs_table(runs: list[dict], out_dir: Path) -> str:
    """Every run, one row each: sortable, filterable by words and status."""
    rows = []
    for r in runs:
        log = log_file(r, out_dir)
        where = (f'<a href="{_e(_rel(log, out_dir))}">sim.log</a>' if log else "-")
        if r["status"] == "FAIL":
            where += f' · <a href="#{_e(r["key"])}">failure</a>'
        rows.append(
            f'<tr data-status="{_e(r["status"])}"><td>{_e(r["key"])}</td><td>{_e(r["dut"])}'
            f'</td><td>{r["n"]}</td><td>{_e(r["sim"])}</td><td>{seed_link(r, out_dir)}</td>'
            f'<td class="{_e(r["status"])}">{_e(r["status"])}</td>'
            f'<td>{_e(" ".join(r.get("tests") or []) or "all")}</td>'
            f'<td>{r["wall_s"]:.1f}</td><td><code>{_e(r.get("first_error") or "")}</code></td>'
            f"<td>{where}</td></tr>")
    return table(("run", "design", "N", "sim", "seed", "status", "tests", "wall s",
                  "first error", "log"), rows, "runs", ("PASS", "FAIL", "ERROR", "SKIP"))


SHOWN_HOLES = 12  # holes listed in a coverage row before the rest fold away


def _holes(dut: str, bins: list[str]) -> str:
    names = [f"<code>{_e(b.removeprefix(dut + '.'))}</code>" for b in bins]
    if len(names) <= SHOWN_HOLES:
        return ", ".join(names) or "none"
    return (", ".join(names[:SHOWN_HOLES]) + f"<details><summary>{len(names) - SHOWN_HOLES} "
            "more</summary>" + ", ".join(names[SHOWN_HOLES:]) + "</details>")


def coverage_section(out_dir: Path) -> list[str]:
    """Per design: covered/total bins, percent, goal, met or missed, and the holes (the
    bins not covered, by name), waived bins and the bins no run's width could reach, as
    `montverif closure report` lists them."""
    duts = history.coverage_duts(out_dir)
    if not duts:
        return ["<p>no coverage summary (coverage/summary.json) in this results folder.</p>"]
    rows = []
    for dut, d in sorted(duts.items()):
        pct = 100 * d["covered"] / d["total"]
        goal = d.get("goal")
        met = d.get("met", pct >= goal) if isinstance(goal, int | float) else None
        status = "-" if met is None else "met" if met else "MISSED"
        holes = d.get("uncovered")
        waived = d.get("waived") or []
        away = d.get("unreachable") or {}
        rows.append(
            f'<tr data-status="{status}"><td>{_e(dut)}</td><td>{d["covered"]}</td>'
            f'<td>{d["total"]}</td><td>{pct:.1f}</td><td>'
            + (f"{goal:g}" if isinstance(goal, int | float) else "-") + "</td>"
            f"<td class={'FAIL' if met is False else 'PASS' if met else 'SKIP'}>{status}</td>"
            f'<td class=holes data-sort="{len(holes) if isinstance(holes, list) else ""}">'
            + (_holes(dut, holes) if isinstance(holes, list) else "not recorded") + "</td>"
            f'<td class=holes data-sort="{len(waived)}">'
            + (_holes(dut, waived) + (f" ({_e(d.get('waive_reason', ''))})"
                                      if d.get("waive_reason") else "") if waived else "-")
            + f'</td><td class=holes data-sort="{len(away)}">'
            + ("<br>".join(f"{_holes(dut, [b])} ({_e(why)})" for b, why in away.items())
               or "-") + "</td></tr>")
    missed = sum('data-status="MISSED"' in r for r in rows)
    head = (f"<p>{len(duts) - missed} of {len(duts)} design(s) at their goal"
            + (f"; <b>{missed} below it</b>" if missed else "") + ". Holes: the bins no "
            "passing run covered (the closure loop, montverif closure run, targets them).</p>")
    return [head, table(("design", "covered", "total", "%", "goal %", "status",
                         "holes (bins not covered)", "waived",
                         "not reachable at the widths run"), rows, "coverage",
                        ("met", "MISSED"))]


def _failure(run: dict, summary: dict, out_dir: Path) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in summary.get("versions", {}).items())
    parts = [f'<h3 id="{_e(run["key"])}">{_e(run["key"])}</h3>',
             f"<p>seed <b>{run['seed']}</b>, first error: <code>{_e(run['first_error'])}"
             "</code></p>",
             f"<p>repro (git {_e(summary['git'])}; {_e(versions)}):</p>"
             f"<pre>{_e(run['repro'])}</pre>"]
    if log := log_file(run, out_dir):
        excerpt = log_excerpt(log, run["first_error"])
        parts.append(f'<p>log <a href="{_e(_rel(log, out_dir))}">sim.log</a>'
                     + (f" around the first error:</p><pre>{_e(excerpt)}</pre>" if excerpt
                        else "</p>"))
    rr = run.get("rerun")
    if rr:
        verdict = ("the rerun with waves fails the same way (same first error)"
                   if rr["same_failure"] else
                   "the rerun with waves PASSED: the failure did not reproduce"
                   if not rr["first_error"] else
                   f"the rerun with waves failed DIFFERENTLY: {rr['first_error']}")
        parts.append(f"<p>{_e(verdict)}.</p>")
        links = []
        if rr.get("waves") and Path(rr["waves"]).exists():
            links.append(f'<a href="{_e(_rel(rr["waves"], out_dir))}">waves.fst</a>')
        if rr.get("log_dir"):
            rdir = Path(rr["log_dir"])
            if (rdir / "waves.gtkw").exists():
                links.append(f'<a href="{_e(_rel(rdir / "waves.gtkw", out_dir))}">'
                             "waves.gtkw</a> (in its folder: gtkwave waves.gtkw)")
            if (rdir / "waves.sucl").exists():
                links.append(f'<a href="{_e(_rel(rdir / "waves.sucl", out_dir))}">'
                             "waves.sucl</a> (in its folder: surfer -c waves.sucl)")
            if (rdir / "mismatch.png").exists():
                parts.append(_img(rdir / "mismatch.png"))
            elif (rdir / "mismatch.txt").exists():
                parts.append(f"<p>{_e((rdir / 'mismatch.txt').read_text().strip())}</p>")
        if links:
            parts.append("<p>" + " · ".join(links) + "</p>")
    return "\n".join(parts)


MUT_COLUMNS = ("mutants", "killed", "survived", "equivalent", "stillborn", "error")


def _campaign_row(rec: dict, out_dir: Path) -> str:
    page = out_dir / rec["dir"] / "mutate.html"
    name = (f'<a href="{_e(_rel(page, out_dir))}">{_e(rec["dut"])}</a>' if page.exists()
            else _e(rec["dut"]))
    ok = rec["status"] == "passed"
    score = "-" if rec["score"] is None else f"{rec['score']:.1f}%"
    cells = "".join(f"<td>{rec[c]}</td>" for c in MUT_COLUMNS)
    return (f"<tr><td>{name}</td><td>{_e(rec['sim'])}</td><td>{rec['n']}</td>{cells}"
            f"<td class={'PASS' if ok else 'FAIL'}>{score}</td>"
            f"<td>{proved_score_text(rec)}</td><td>{rec['goal']:g}%</td>"
            f"<td>{rec['wall_s']:.0f}</td><td class={'PASS' if ok else 'FAIL'}>"
            f"{_e(rec['status'])}{': ' + _e(rec['message']) if rec['message'] else ''}"
            "</td></tr>")


def resting_table(resting: dict[str, str]) -> list[str]:
    """The campaigns the list's rotation rests this night and when each last came round."""
    if not resting:
        return []
    return ["<h3>Resting this night</h3><p>The list's rotation runs a share of the designs' "
            "campaigns each night (<code>rotate</code>, every design once in that many "
            "nights); these rest, with the night their share last came round.</p>"
            + table(("design", "last scheduled"),
                    [f"<tr><td>{_e(d)}</td><td>{_e(when)}</td></tr>"
                     for d, when in sorted(resting.items())], "resting")]


def mutation_section(campaigns: dict[str, dict], out_dir: Path,
                     resting: dict[str, str] | None = None) -> list[str]:
    """Per design: mutants, verdicts, score against the goal (linking to the campaign's
    mutate.html); then every survivor with file:line and the change; then the designs the
    rotation rests."""
    recs = list(campaigns.values())
    body = ["<h2 id=\"mutation\">Mutation</h2>",
            f"<p>{sum(r['status'] == 'passed' for r in recs)} of {len(recs)} campaign(s) at "
            "their goal. Score = killed / (killed + survived non-equivalent); a survivor is a "
            "mutant every test passed that was not shown equivalent: a testbench hole. Proved "
            "score: an equivalent counts only with a formal verdict; one judged by simulation "
            "counts as a survivor.</p>",
            table(("design", "sim", "N", *MUT_COLUMNS, "score", "proved score", "goal",
                   "wall s", "status"),
                  [_campaign_row(r, out_dir) for r in recs])]
    survivors = [(r["dut"], s) for r in recs for s in r["survivors"]]
    if survivors:
        body.append("<h3>Survivors</h3>" + table(
            ("design", "where", "change", "reason"),
            [f"<tr><td>{_e(dut)}</td><td>{_e(s['where'])}</td><td><code>{_e(s['change'])}"
             f"</code></td><td>{_e(s['reason'])}</td></tr>" for dut, s in survivors],
            "survivors"))
    return body + resting_table(resting or {})


def _formal_row(rec: dict, out_dir: Path) -> str:
    """One check: its folder's formal.json, the verdict, the counterexample and repro."""
    verdict = out_dir / rec["dir"] / "formal.json"
    name = (f'<a href="{_e(_rel(verdict, out_dir))}">{_e(rec["key"])}</a>' if verdict.exists()
            else _e(rec["key"]))
    cex = " ".join(f'<a href="{_e(rec[k])}">{label}</a>'
                   for k, label in (("trace", "VCD"), ("vector", "vector")) if rec.get(k))
    ok = bool(rec["ok"])
    return (f"<tr data-status={'PASS' if ok else 'FAIL'}><td>{name}</td>"
            f"<td class={'PASS' if ok else 'FAIL'}>{_e(formal_checks.describe(rec))}</td>"
            f"<td>{_e(rec['wanted'])}</td><td>{rec['seconds']:.0f}</td><td>{cex or '-'}</td>"
            f"<td><code>{_e(rec.get('replay') or rec['repro'])}</code></td></tr>")


def formal_section(checks: dict[str, dict], out_dir: Path) -> list[str]:
    """Every formal check with its verdict, the verdict it needs, the counterexample of a
    failure (VCD and vector file) and the command that repeats or replays it; each core's
    verdict in one word (formal_checks.cores)."""
    recs = list(checks.values())
    ok = sum(bool(r["ok"]) for r in recs)
    verdicts = formal_checks.cores(recs)
    said = "; ".join(f"{_e(d)} <b>{_e(v)}</b>" for d, v in verdicts.items())
    return ["<h2 id=\"formal\">Formal</h2>",
            f"<p>{ok} of {len(recs)} check(s) reached the verdict they need: <i>bounded</i> "
            "(no counterexample through the whole first operation at that point), "
            "<i>proved</i> (k-induction closed), <i>failed</i> for a fault build, "
            "<i>open</i> for a core's k-induction check that did not close (the core stays "
            "bounded) (docs/formal.md).</p>",
            *([f"<p>The cores: {said}.</p>"] if said else []),
            table(("check", "verdict", "needs", "seconds", "counterexample", "repro or replay"),
                  [_formal_row(r, out_dir) for r in recs], "formal", ("PASS", "FAIL"))]


def _seed_source(summary: dict) -> str:
    """Where the base seed came from (--seed date / run), when not given as a number."""
    source = summary.get("base_seed_source", "given")
    return "" if source == "given" else f" (from the {_e(source)})"


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


def _coverage_enforced(out_dir: Path) -> bool:
    summary = _coverage_json(out_dir)
    return bool(summary.get("enforce")) if summary else False


def _coverage_json(out_dir: Path) -> dict:
    """<out>/coverage/summary.json as a dict ({} when missing or unreadable)."""
    try:
        data = json.loads((out_dir / "coverage" / "summary.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


CODE_KINDS = ("line", "branch", "toggle")


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


def _kinds(rec: dict) -> str:
    return ", ".join(f"{k} {100 * rec[k]['covered'] / rec[k]['total']:.1f}%"
                     for k in CODE_KINDS if k in rec and rec[k]["total"])


def banner(summary: dict, out_dir: Path) -> str:
    """The verdict first: PASS or FAIL with why, the counts, wall time and revision."""
    ok, why = verdict(summary, out_dir)
    word = "PASS" if ok else "FAIL"
    done = summary["passed"] + summary["failed"]
    rate = f"{100 * summary['passed'] / done:.1f}%" if done else "-"
    counts = (f"{summary['passed']} passed, {summary['failed']} failed"
              + (f", {summary['errors']} infrastructure error(s)" if summary.get("errors")
                 else "") + f", {summary['skipped']} not started; pass rate {rate}")
    title = f"montverif regression {summary['list']}"
    return (f'<section id="verdict" class="banner {word.lower()}"><h1>{_e(title)}: '
            f'<span class=word>{word}</span></h1>'
            f"<p class=counts>{_e(counts)}</p>"
            + (f"<p class=why>{_e('; '.join(why))}</p>" if why else "")
            + f"<p class=meta>wall {summary['wall_s']:.0f} s · revision "
            f"<code>{_e(summary['git'])}</code> · started {_e(summary['start'])} · base seed "
            f"{summary['base_seed']}{_seed_source(summary)}"
            + (f" · shard {_e(summary['shard'])}" if summary.get("shard") else "")
            + "</p></section>")


def designs_section(summary: dict, out_dir: Path) -> list[str]:
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
        other = len(mine) - passed - failed
        cov = []
        if f := functional.get(dut):
            pct = 100 * f["covered"] / f["total"]
            goal = f.get("goal")
            cov.append(f"functional {pct:.1f}%"
                       + (f" (goal {goal:g}%{'' if f.get('met', True) else ', MISSED'})"
                          if isinstance(goal, int | float) else ""))
        if dut in code_duts:
            cov.append(_kinds(code_duts[dut]))
        status = "FAIL" if failed or other else "PASS"
        rows.append(f'<tr data-status="{status}"><td>{_e(dut)}</td><td>{len(mine)}</td>'
                    f"<td class=PASS>{passed}</td><td class={'FAIL' if failed else 'PASS'}>"
                    f"{failed}</td><td>{_e('; '.join(cov) or '-')}</td></tr>")
    return ['<h2 id="designs">Designs</h2>',
            table(("design", "runs", "passed", "failed", "coverage"), rows, "design-rollup",
                  ("PASS", "FAIL"))]


def failures_section(summary: dict, out_dir: Path) -> list[str]:
    """The failure buckets with their repro, then every failure with its log excerpt."""
    runs = summary["runs"]
    failures = [r for r in runs if r["status"] == "FAIL"]
    body = ['<h2 id="failures">Failures</h2>']
    if not summary.get("buckets") and not failures:
        return [*body, "<p>no failures.</p>"]
    by_key = {r["key"]: r for r in runs}
    body.append(f"<p>{len(failures)} failing run(s) in {len(summary.get('buckets', []))} "
                "bucket(s) (the failures of one design with one first error, numbers left "
                "out); each repro reruns the bucket's cheapest seed.</p>")
    body.append(table(("count", "design", "signature", "seeds", "repro"), [
        f"<tr><td>{b['count']}</td><td>{_e(b['dut'])}</td><td><code>"
        f"{_e(b['signature'])}</code></td><td>" + ", ".join(
            seed_link(by_key[k], out_dir) if k in by_key else _e(seed)
            for seed, k in zip(b["seeds"], b.get("runs") or [""] * len(b["seeds"]),
                               strict=False))
        + f"</td><td><a href=\"#{_e(b['example'])}\"><code>{_e(b['repro'])}</code>"
        "</a></td></tr>" for b in summary.get("buckets", [])], "buckets"))
    return body + [_failure(r, summary, out_dir) for r in failures]


def code_section(out_dir: Path) -> list[str]:
    """Verilator line, branch and toggle coverage (covered/total) overall and per design,
    linking to the LCOV and Cobertura files when the folder has them."""
    code = code_coverage(out_dir)
    if code is None:
        return ["<p>code coverage not measured (regress --code-coverage).</p>"]

    def cells(rec: dict) -> str:
        return "".join(
            f"<td data-sort=\"{100 * rec[k]['covered'] / rec[k]['total']:.2f}\">"
            f"{100 * rec[k]['covered'] / rec[k]['total']:.1f}% ({rec[k]['covered']}/"
            f"{rec[k]['total']})</td>" if k in rec and rec[k]["total"] else "<td>-</td>"
            for k in CODE_KINDS)

    rows = [f"<tr><td>{_e(d)}</td>{cells(rec)}</tr>" for d, rec in sorted(code["duts"].items())]
    rows.append(f"<tr><td><b>all</b></td>{cells(code['overall'])}</tr>")
    folder = out_dir / "coverage" / "code"
    links = [f'<a href="{_e(_rel(folder / name, out_dir))}">{name}</a>'
             for name in ("merged.info", "merged.toggle.info", "merged.cobertura.xml")
             if (folder / name).is_file()]
    return ["<h3>Code coverage (Verilator)</h3>",
            f"<p>{_e(code.get('runs') or '?')} run(s) merged; source lines, decision arms "
            "and bit transitions as genhtml counts them"
            + (": " + " · ".join(links) if links else "") + ".</p>",
            table(("design", "line", "branch", "toggle"), rows)]


def trends_section(summary: dict, past: list[dict]) -> list[str]:
    hist = [h for h in history.complete(past) if h.get("list") == summary["list"]]
    body = ['<h2 id="trends">Trends</h2>']
    if len(hist) == 1:
        body.append("<p class=trend>first complete regression of this list in the history: "
                    "the trends (pass rate, coverage, mutation score) start with the next one."
                    "</p>")
    elif hist:
        body.append(svg_trend([(h["start"][:19], h.get("pass_rate")) for h in hist],
                              "pass rate per regression"))
        body.append(svg_trend([(h["start"][:19], h.get("coverage_pct")) for h in hist],
                              "functional coverage (covered / total bins)"))
        if summary.get("formal") or any(h.get("formal_total") for h in hist):
            body.append(svg_trend([(h["start"][:19], 100.0 * h["formal_ok"] / h["formal_total"]
                                    if h.get("formal_total") else None) for h in hist],
                                  "formal checks that reached the verdict they need (%)"))
        if summary.get("mutation") or any(h.get("mutation_mean") is not None for h in hist):
            body.append(svg_trend([(h["start"][:19], h.get("mutation_mean")) for h in hist],
                                  "mutation score, mean over the designs",
                                  others=[("minimum", [h.get("mutation_min") for h in hist])]))
    else:
        body.append("<p>no history yet.</p>")
    return body


def _notes(summary: dict) -> list[str]:
    """What a reader must know next to the verdict: formal and mutation at a glance, the
    regression's notes, runs beyond their paper, a partial regression."""
    body = []
    runs = summary["runs"]
    if checks := list(summary.get("formal", {}).values()):
        missed = [c["key"] for c in checks if not c["ok"]]
        body.append(f'<p><a href="#formal">formal</a>: {len(checks) - len(missed)} of '
                    f"{len(checks)} check(s) as required"
                    + (f"; <b>not: {_e(', '.join(missed))}</b>" if missed else "") + "</p>")
    if muts := list(summary.get("mutation", {}).values()):
        below = [m["dut"] for m in muts if m["status"] != "passed"]
        body.append(f'<p><a href="#mutation">mutation</a>: {len(muts) - len(below)} of '
                    f"{len(muts)} campaign(s) at their goal"
                    + (f"; <b>not: {_e(', '.join(below))}</b>" if below else "") + "</p>")
    body += [f"<p><b>{_e(note)}</b></p>" for note in summary.get("notes", [])]
    if beyond := [r for r in runs if r.get("beyond_paper")]:
        body.append(f"<p>{len(beyond)} run(s) beyond the hardware their paper assumes "
                    "(flagged: not the paper's design): " + _e("; ".join(sorted(
                        {f"{r['dut']} {b}" for r in beyond for b in r["beyond_paper"]})))
                    + "</p>")
    if why := history.partial(summary):
        body.append(f"<p><b>partial regression ({_e(why)}): not in the trends</b></p>")
    return body


def configuration_section(summary: dict, out_dir: Path) -> list[str]:
    """Last: the tools, seeds and jobs, and the results per configuration (model)."""
    runs = summary["runs"]
    groups: dict[str, list[dict]] = {}
    for r in runs:
        groups.setdefault(r["config"], []).append(r)
    rows = []
    for key, group in groups.items():
        count = {s: sum(r["status"] == s for r in group) for s in ("PASS", "FAIL", "SKIP")}
        seeds = " ".join(seed_link(r, out_dir) for r in group)
        rows.append(f'<tr data-status="{"FAIL" if count["FAIL"] else "PASS"}"><td>{_e(key)}'
                    f"</td><td>{len(group)}</td><td class=PASS>{count['PASS']}</td>"
                    f"<td class={'FAIL' if count['FAIL'] else 'PASS'}>{count['FAIL']}</td>"
                    f"<td>{count['SKIP']}</td><td>{seeds}</td></tr>")
    return ['<h2 id="configuration">Configuration</h2>',
            "<p>tools: " + _e(", ".join(f"{k} {v}" for k, v in
                                         summary.get("versions", {}).items()))
            + f"; list {_e(summary['list'])}, base seed {summary['base_seed']}"
            + _seed_source(summary) + f", {_e(summary.get('jobs', '?'))} job(s) at a time.</p>",
            f"<h3>Results per configuration</h3><p>{len(groups)} configuration(s); each seed "
            "links to its run's log.</p>",
            table(("configuration", "runs", "pass", "fail", "skip", "seeds"), rows, "models",
                  ("PASS", "FAIL"))]


def cycles_section(out_dir: Path) -> list[str]:
    """cycles.md rendered; its list of designs without logs left out (a regression runs the
    designs of its list: the others are not missing)."""
    cycles = out_dir / "cycles.md"
    if not cycles.exists():
        return ['<h2 id="cycles">Cycle counts</h2>',
                "<p>no transaction logs with cycle counts.</p>"]
    text = "\n".join(ln for ln in cycles.read_text().splitlines()
                     if not ln.startswith(NO_LOGS))
    return ['<h2 id="cycles">Cycle counts</h2>', markdown_html(text, "Cycle counts")]


NO_LOGS = "No logs yet for:"


def render(summary: dict, out_dir: Path, past: list[dict] | None = None) -> str:
    """The page: verdict, designs, failures, coverage, runs; then trends, cross-simulator
    checks, formal, mutation and cycle counts; the configuration last."""
    runs = summary["runs"]
    title = f"montverif regression {summary['list']}"
    body = [banner(summary, out_dir), *_notes(summary),
            *designs_section(summary, out_dir),
            *failures_section(summary, out_dir),
            '<h2 id="coverage-section">Coverage</h2>', "<h3>Functional coverage</h3>",
            *coverage_section(out_dir), *code_section(out_dir),
            f'<h2 id="all-runs">Runs</h2><p>{len(runs)} run(s); click a column head to sort.</p>',
            runs_table(runs, out_dir),
            *trends_section(summary, past or [])]
    if summary.get("diffs"):
        body.append('<h2 id="cross-sim">Cross-simulator checks</h2>' + table(
            ("model and seed", "runs", "verdict"),
            [f"<tr><td>{_e(d['key'])}</td><td>{_e(' vs '.join(d['runs']))}</td>"
             f"<td class={'PASS' if d['same'] else 'FAIL'}>"
             f"{'identical transaction logs' if d['same'] else _e(d['detail'])}"
             "</td></tr>" for d in summary["diffs"]]))
    if summary.get("formal"):
        body += formal_section(summary["formal"], out_dir)
    if summary.get("mutation"):
        body += mutation_section(summary["mutation"], out_dir,
                                 summary.get("mutation_resting"))
    body += cycles_section(out_dir)
    body += configuration_section(summary, out_dir)
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body)
            + f"\n<script>{SCRIPT}</script>\n</body></html>\n")
