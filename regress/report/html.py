"""report.html: one self-contained page (no server, no external assets) from summary.json.

Sections: verdict and tool versions, trends (inline SVG of pass rate, coverage and the mean
and minimum mutation score over the history), failure buckets, pass/fail per model, every
failure (seed, one-line repro with git revision and tool versions, log excerpt around the
first error, waves rerun verdict, the picture around the first mismatch), cross-simulator
checks, mutation (per design, every survivor, links to each campaign's mutate.html),
coverage, cycle tables.
"""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from montverif.regress.report import history

CSS = """body{font-family:sans-serif;margin:1.5em;max-width:1300px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;
font-size:13px;text-align:left}th{background:#eee}.PASS{color:#070}.FAIL{color:#b00;
font-weight:bold}.SKIP{color:#777}pre{background:#f6f6f6;padding:6px;overflow-x:auto;
font-size:12px}code{font-size:12px}.hit{background:#fdd}"""
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
        return f"<p>{_e(label)}: no data yet.</p>"
    pad, n = 30, max(len(points) - 1, 1)

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
            f'<text x="{pad}" y="{height - 8}" font-size="10">{_e(points[0][0])}</text>'
            f'<text x="{width - pad - 110}" y="{height - 8}" font-size="10">'
            f"{_e(points[-1][0])}</text>")
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


def markdown_html(md: str) -> str:
    """The subset regress.cycles writes: headings, paragraphs, pipe tables."""
    out: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            head, *body = table
            out.append("<table><tr>" + "".join(f"<th>{_e(c)}</th>" for c in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>"
                                 for row in body) + "</table>")
            table.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= {"-", ":"} for c in cells):
                table.append(cells)
            continue
        flush()
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 2, 6)
            out.append(f"<h{level}>{_e(line.lstrip('#').strip())}</h{level}>")
        elif line.strip():
            out.append(f"<p>{_e(line)}</p>")
    flush()
    return "\n".join(out)


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="signals around the first mismatch" src="data:image/png;base64,{data}">'


def _rel(path: str | Path | None, out_dir: Path) -> str:
    return "" if not path else os.path.relpath(Path(path), out_dir)


def _failure(run: dict, summary: dict, out_dir: Path) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in summary.get("versions", {}).items())
    parts = [f'<h3 id="{_e(run["key"])}">{_e(run["key"])}</h3>',
             f"<p>seed <b>{run['seed']}</b>, first error: <code>{_e(run['first_error'])}"
             "</code></p>",
             f"<p>repro (git {_e(summary['git'])}; {_e(versions)}):</p>"
             f"<pre>{_e(run['repro'])}</pre>"]
    if run.get("log_dir"):
        excerpt = log_excerpt(Path(run["log_dir"]) / "sim.log", run["first_error"])
        if excerpt:
            parts.append(f"<p>log <a href=\"{_e(_rel(Path(run['log_dir']) / 'sim.log', out_dir))}"
                         f"\">sim.log</a> around the first error:</p><pre>{_e(excerpt)}</pre>")
    rr = run.get("rerun")
    if rr:
        verdict = ("the rerun with waves fails the same way (same first error)"
                   if rr["same_failure"] else
                   "the rerun with waves PASSED: the failure did not reproduce"
                   if not rr["first_error"] else
                   f"the rerun with waves failed DIFFERENTLY: {rr['first_error']}")
        parts.append(f"<p>{_e(verdict)}.</p>")
        links = []
        if rr.get("waves"):
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
            f"<td class={'PASS' if ok else 'FAIL'}>{score}</td><td>{rec['goal']:g}%</td>"
            f"<td>{rec['wall_s']:.0f}</td><td class={'PASS' if ok else 'FAIL'}>"
            f"{_e(rec['status'])}{': ' + _e(rec['message']) if rec['message'] else ''}"
            "</td></tr>")


def mutation_section(campaigns: dict[str, dict], out_dir: Path) -> list[str]:
    """Per design: mutants, verdicts, score against the goal (linking to the campaign's
    mutate.html); then every survivor with file:line and the change."""
    recs = list(campaigns.values())
    body = ["<h2 id=\"mutation\">Mutation</h2>",
            f"<p>{sum(r['status'] == 'passed' for r in recs)} of {len(recs)} campaign(s) at "
            "their goal. Score = killed / (killed + survived non-equivalent); a survivor is a "
            "mutant every test passed that was not shown equivalent: a testbench hole.</p>",
            "<table><tr><th>design</th><th>sim</th><th>N</th>"
            + "".join(f"<th>{c}</th>" for c in MUT_COLUMNS)
            + "<th>score</th><th>goal</th><th>wall s</th><th>status</th></tr>"
            + "".join(_campaign_row(r, out_dir) for r in recs) + "</table>"]
    survivors = [(r["dut"], s) for r in recs for s in r["survivors"]]
    if survivors:
        body.append("<h3>Survivors</h3><table><tr><th>design</th><th>where</th><th>change</th>"
                    "<th>reason</th></tr>" + "".join(
                        f"<tr><td>{_e(dut)}</td><td>{_e(s['where'])}</td><td><code>"
                        f"{_e(s['change'])}</code></td><td>{_e(s['reason'])}</td></tr>"
                        for dut, s in survivors) + "</table>")
    return body


def _seed_source(summary: dict) -> str:
    """Where the base seed came from (--seed date / run), when not given as a number."""
    source = summary.get("base_seed_source", "given")
    return "" if source == "given" else f" (from the {_e(source)})"


def render(summary: dict, out_dir: Path, past: list[dict] | None = None) -> str:
    runs = summary["runs"]
    title = f"montverif regression {summary['list']}"
    done = summary["passed"] + summary["failed"]
    rate = f"{100 * summary['passed'] / done:.1f}%" if done else "-"
    body = [f"<h1>{_e(title)}</h1>",
            f"<p>{summary['passed']} passed, {summary['failed']} failed, {summary['skipped']} "
            f"not started; pass rate {rate}; started {_e(summary['start'])}, wall "
            f"{summary['wall_s']:.0f}s; git {_e(summary['git'])}; base seed "
            f"{summary['base_seed']}" + _seed_source(summary) + (f"; shard {_e(summary['shard'])}"
                                         if summary.get("shard") else "") + "</p>",
            "<p>tools: " + _e(", ".join(f"{k} {v}" for k, v in
                                         summary.get("versions", {}).items())) + "</p>"]
    if muts := list(summary.get("mutation", {}).values()):
        below = [m["dut"] for m in muts if m["status"] != "passed"]
        body.append(f'<p><a href="#mutation">mutation</a>: {len(muts) - len(below)} of '
                    f"{len(muts)} campaign(s) at their goal"
                    + (f"; <b>not: {_e(', '.join(below))}</b>" if below else "") + "</p>")
    body += [f"<p><b>{_e(note)}</b></p>" for note in summary.get("notes", [])]
    if why := history.partial(summary):
        body.append(f"<p><b>partial regression ({_e(why)}): not in the trends</b></p>")
    hist = [h for h in history.complete(past or []) if h.get("list") == summary["list"]]
    body.append("<h2>Trends</h2>")
    if hist:
        body.append(svg_trend([(h["start"][:16], h.get("pass_rate")) for h in hist],
                              "pass rate per regression"))
        body.append(svg_trend([(h["start"][:16], h.get("coverage_pct")) for h in hist],
                              "functional coverage (covered / total bins)"))
        if summary.get("mutation") or any(h.get("mutation_mean") is not None for h in hist):
            body.append(svg_trend([(h["start"][:16], h.get("mutation_mean")) for h in hist],
                                  "mutation score, mean over the designs",
                                  others=[("minimum", [h.get("mutation_min") for h in hist])]))
    else:
        body.append("<p>no history yet.</p>")
    body.append("<h2>Failure buckets</h2>")
    if summary.get("buckets"):
        body.append("<table><tr><th>count</th><th>design</th><th>signature</th><th>seeds</th>"
                    "<th>repro</th></tr>" + "".join(
                        f"<tr><td>{b['count']}</td><td>{_e(b['dut'])}</td><td><code>"
                        f"{_e(b['signature'])}</code></td><td>{_e(', '.join(map(str, b['seeds'])))}"
                        f"</td><td><a href=\"#{_e(b['example'])}\"><code>{_e(b['repro'])}</code>"
                        "</a></td></tr>" for b in summary["buckets"]) + "</table>")
    else:
        body.append("<p>no failures.</p>")
    body.append("<h2>Results per model</h2><table><tr><th>model</th><th>runs</th><th>pass</th>"
                "<th>fail</th><th>skip</th><th>seeds</th></tr>")
    rows: dict[str, list[dict]] = {}
    for r in runs:
        rows.setdefault(r["config"], []).append(r)
    for key, group in rows.items():
        count = {s: sum(r["status"] == s for r in group) for s in ("PASS", "FAIL", "SKIP")}
        seeds = " ".join(f'<span class="{r["status"]}">{r["seed"]}</span>' for r in group)
        body.append(f"<tr><td>{_e(key)}</td><td>{len(group)}</td><td class=PASS>"
                    f"{count['PASS']}</td><td class={'FAIL' if count['FAIL'] else 'PASS'}>"
                    f"{count['FAIL']}</td><td>{count['SKIP']}</td><td>{seeds}</td></tr>")
    body.append("</table>")
    failures = [r for r in runs if r["status"] == "FAIL"]
    if failures:
        body.append("<h2>Failures</h2>")
        body += [_failure(r, summary, out_dir) for r in failures]
    if summary.get("diffs"):
        body.append("<h2>Cross-simulator checks</h2><table><tr><th>model and seed</th>"
                    "<th>runs</th><th>verdict</th></tr>" + "".join(
                        f"<tr><td>{_e(d['key'])}</td><td>{_e(' vs '.join(d['runs']))}</td>"
                        f"<td class={'PASS' if d['same'] else 'FAIL'}>"
                        f"{'identical transaction logs' if d['same'] else _e(d['detail'])}"
                        "</td></tr>" for d in summary["diffs"]) + "</table>")
    if summary.get("mutation"):
        body += mutation_section(summary["mutation"], out_dir)
    body.append("<h2>Coverage</h2>")
    cov = history.coverage_summary(out_dir)
    if cov:
        body.append("<table><tr><th>design</th><th>covered</th><th>total</th><th>%</th></tr>"
                    + "".join(f"<tr><td>{_e(d)}</td><td>{c}</td><td>{t}</td>"
                              f"<td>{100 * c / t:.1f}</td></tr>" for d, (c, t) in
                              sorted(cov.items())) + "</table>")
    else:
        body.append("<p>no coverage summary (coverage/summary.json) in this results folder.</p>")
    body.append("<h2>Cycle counts</h2>")
    cycles = out_dir / "cycles.md"
    body.append(markdown_html(cycles.read_text()) if cycles.exists()
                else "<p>no transaction logs with cycle counts.</p>")
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
