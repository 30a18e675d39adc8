"""report.html as a user sees it: opened from file:// in a real headless browser (Debian's
chromium, `make setup` installs it), its DOM dumped after its scripts ran. A probe script
appended to a copy of the page clicks a column head twice and sets the filters, the way a
user would; the checks read the DOM it leaves: sorting, filtering, links that resolve to
files of the results folder, Markdown rendered, coverage goals and holes, and a first
regression's trends said in words instead of drawn as empty axes.

The same checks run on pages broken on purpose (no script, raw Markdown, a log gone) and must
find each fault: they can fail."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from montverif.host.paths import work
from montverif.regress.cli import regress as regress_cli
from montverif.regress.coverage import closure
from montverif.regress.report import cycles, html
from montverif.regress.tests.test_runner_features import LoggingLauncher

LIST = """
[page]
description = "two designs, one failing"
[[page.entry]]
dut = "mont_lut"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 4
txns = 3
[[page.entry]]
dut = "mont_r2"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 3
txns = 3
"""
COVERAGE = {"schema": 1, "runs": 5, "duts": {
    "mont_lut": {"covered": 44, "total": 46, "percent": 95.65, "goal": 100.0, "met": False,
                 "uncovered": ["mont_lut.cross.sub_x_m:(True, 'pow2_plus_1')",
                               "mont_lut.lut.addr:5"], "waived": []},
    "mont_r2": {"covered": 10, "total": 10, "percent": 100.0, "goal": 90.0, "met": True,
                "uncovered": [], "waived": ["mont_r2.ops.op:nop"],
                "waive_reason": "no such operation"}}}

PROBE = """<script>(function(){
var out={};var t=document.getElementById('runs');
function col(name){var hs=t.tHead.rows[0].cells;
for(var i=0;i<hs.length;i++){if(hs[i].textContent.trim()===name)return i;}return -1;}
function shown(){return Array.prototype.filter.call(t.tBodies[0].rows,function(r){
return r.getClientRects().length>0;}).map(function(r){return r.cells[0].textContent.trim();});}
var i=col('seed');function seeds(){return Array.prototype.map.call(t.tBodies[0].rows,
function(r){return r.cells[i].textContent.trim();});}
out.rows=seeds().length;t.tHead.rows[0].cells[i].click();out.up=seeds();
t.tHead.rows[0].cells[i].click();out.down=seeds();
var f=document.querySelector('.filter[data-table=runs]');
out.box_visible=!!f&&f.getClientRects().length>0;
if(f){var s=f.querySelector('select');s.value='FAIL';s.dispatchEvent(new Event('change'));
out.fail=shown();s.value='';s.dispatchEvent(new Event('change'));
var q=f.querySelector('input');q.value='mont_r2';q.dispatchEvent(new Event('input'));
out.words=shown();out.count=f.querySelector('.shown').textContent;}
var els=document.body.getElementsByTagName('*'),tops=[];
for(var k=0;k<els.length;k++){var b=els[k].getBoundingClientRect();
if(b.width>0&&b.height>0&&els[k].tagName!=='SCRIPT'){tops.push([b.top,k]);}}
var first=els[tops.length?tops.reduce(function(a,c){return c[0]<a[0]?c:a;})[1]:0];
out.first=first?((first.closest('section')||first).id||first.tagName):'';
function top(el){return el?el.getBoundingClientRect().top+window.scrollY:null;}
out.tops={};document.querySelectorAll('h2[id],table[id]').forEach(function(el){
out.tops[el.tagName.toLowerCase()+'#'+el.id]=top(el);});
var v=document.getElementById('verdict');out.banner=v?v.textContent:'';
var ro=document.getElementById('design-rollup');out.rollup=ro?Array.prototype.map.call(
ro.tBodies[0].rows,function(r){return Array.prototype.map.call(r.cells,function(c){
return c.textContent.trim();});}):[];
out.text=document.body.innerText;
var p=document.createElement('pre');p.id='probe';p.textContent=JSON.stringify(out);
document.body.appendChild(p);})();</script>"""


def chromium() -> str:
    """The browser, or skip (fail under CI, where `make setup` must have installed it)."""
    for name in ("chromium", "chromium-browser"):
        if path := shutil.which(name):
            return path
    why = "chromium not installed (make setup installs it: apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def open_page(page: Path, profile: Path, screenshot: Path | None = None) -> str:
    """The DOM of `page` (file://) after its scripts ran, with the probe appended."""
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    base = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--user-data-dir={profile}", "--virtual-time-budget=3000"]
    if screenshot:
        subprocess.run([*base, "--window-size=1300,2200", f"--screenshot={screenshot}",
                        page.as_uri()], capture_output=True, timeout=120, check=True)
    res = subprocess.run([*base, "--dump-dom", probed.as_uri()], capture_output=True,
                         text=True, timeout=120, check=True)
    probed.unlink()
    return res.stdout


class Dom(HTMLParser):
    """Links, ids, headings and the text of code and em elements of a dumped DOM."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.ids: set[str] = set()
        self.id_list: list[str] = []
        self.headings: list[str] = []
        self.code: list[str] = []
        self.em: list[str] = []
        self.probe = ""
        self._in: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("href") is not None:
            self.hrefs.append(a["href"] or "")
        if a.get("src") is not None:
            self.srcs.append(a["src"] or "")
        if a.get("id"):
            self.ids.add(a["id"] or "")
            self.id_list.append(a["id"] or "")
        self._in.append("probe" if a.get("id") == "probe" else tag)

    def handle_endtag(self, tag: str) -> None:
        if self._in:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        where = self._in[-1] if self._in else ""
        if where in ("h1", "h2", "h3", "h4"):
            self.headings.append(data.strip())
        elif where == "code":
            self.code.append(data)
        elif where == "em":
            self.em.append(data)
        elif where == "probe":
            self.probe += data


def check_page(page: Path, summary: dict, first_run: bool, profile: Path,
               screenshot: Path | None = None) -> list[str]:
    """What is wrong with the page as the browser shows it (empty: nothing)."""
    text = open_page(page, profile, screenshot)
    dom = Dom(text)
    problems = []
    probe = json.loads(dom.probe) if dom.probe else {}
    runs = summary["runs"]
    seeds = [str(r["seed"]) for r in runs]
    by_number = sorted(seeds, key=int)
    if probe.get("up") != by_number or probe.get("down") != by_number[::-1]:
        problems.append(f"sorting by seed: {probe.get('up')} then {probe.get('down')}, "
                        f"expected {by_number} and back")
    failed = sorted(r["key"] for r in runs if r["status"] == "FAIL")
    if not probe.get("box_visible") or sorted(probe.get("fail", [])) != failed:
        problems.append(f"status filter FAIL shows {probe.get('fail')}, expected {failed}")
    r2 = sorted(r["key"] for r in runs if r["dut"] == "mont_r2")
    if sorted(probe.get("words", [])) != r2 or probe.get("count") != f"{len(r2)} of "\
            f"{len(runs)} row(s) shown":
        problems.append(f"word filter mont_r2 shows {probe.get('words')} "
                        f"({probe.get('count')}), expected {r2}")
    for href in dom.hrefs:
        url = urlsplit(href)
        if url.scheme or url.netloc:
            problems.append(f"link leaves the folder: {href}")
        elif href.startswith("#"):
            if unquote(href[1:]) not in dom.ids:
                problems.append(f"link to a missing anchor: {href}")
        elif not (page.parent / unquote(url.path)).is_file():
            problems.append(f"link to a missing file: {href}")
    logs = [h for h in dom.hrefs if h.endswith("/sim.log")]
    if len(set(logs)) != len(runs):
        problems.append(f"{len(set(logs))} run logs linked, expected {len(runs)}")
    if any(urlsplit(s).scheme not in ("", "data") for s in dom.srcs):
        problems.append("something is fetched from elsewhere: " + ", ".join(dom.srcs))
    if "make cycles" not in dom.code or "Measured" not in dom.em or "`" in text:
        problems.append("Markdown of cycles.md not rendered (`make cycles`, *Measured*)")
    if dom.headings.count("Cycle counts") != 1:
        problems.append(f"heading repeated: {dom.headings}")
    if first_run and ("<svg" in text or "first complete regression" not in text):
        problems.append("a first regression's trends are not said in words")
    if not first_run and text.count("<polyline") < 2:
        problems.append("no trend lines after two regressions")
    if twice := sorted({i for i in dom.id_list if dom.id_list.count(i) > 1}):
        problems.append(f"ids used twice (a table's filter finds the wrong one): {twice}")
    problems += check_layout(probe, summary, page.parent)
    for needed in ("<td>100</td>", "MISSED", "cross.sub_x_m:(True, 'pow2_plus_1')",
                   "lut.addr:5", "ops.op:nop"):
        if needed not in text.replace("&#39;", "'"):
            problems.append(f"coverage goal or hole not shown: {needed}")
    return problems


# the page's sections (and the tables in them) in the order a reader needs them
ORDER = ("h2#designs", "table#design-rollup", "h2#failures", "h2#coverage-section",
         "table#coverage", "h2#all-runs", "table#runs", "h2#trends", "h2#cycles",
         "h2#configuration", "table#models")


def check_layout(probe: dict, summary: dict, folder: Path) -> list[str]:
    """The verdict banner is the first thing seen and says what summary.json says; the
    sections come in ORDER, the configuration last; the design rollup counts each design's
    runs; the failures section holds every bucket's repro; no design of another list is
    said to lack logs."""
    problems = []
    if probe.get("first") != "verdict":
        problems.append(f"banner is not the first visible element: {probe.get('first')}")
    runs = summary["runs"]
    failed = any(r["status"] != "PASS" for r in runs)
    banner = probe.get("banner", "")
    for said in ("FAIL" if failed else "PASS", f"{summary['passed']} passed",
                 f"{summary['failed']} failed", summary["git"], f"wall {summary['wall_s']:.0f} s"):
        if said not in banner:
            problems.append(f"banner does not say {said!r}: {banner!r}")
    tops = probe.get("tops", {})
    placed = [(tops[k], k) for k in ORDER if k in tops]
    if [k for _, k in sorted(placed)] != [k for _, k in placed] or len(placed) != len(ORDER):
        problems.append(f"sections out of order: {[k for _, k in sorted(placed)]}")
    if tops and max(tops, key=lambda k: tops[k] if k.startswith("h2") else -1) \
            != "h2#configuration":
        problems.append("the configuration is not the last section")
    want = [[dut, str(sum(r["dut"] == dut for r in runs)),
             str(sum(r["dut"] == dut and r["status"] == "PASS" for r in runs)),
             str(sum(r["dut"] == dut and r["status"] == "FAIL" for r in runs))]
            for dut in sorted({r["dut"] for r in runs})]
    got = probe.get("rollup", [])
    if [row[:4] for row in got] != want:
        problems.append(f"design rollup {got}, expected {want}")
    cov = json.loads((folder / "coverage" / "summary.json").read_text())["duts"]
    for row in got:
        if row[0] in cov and f"functional {cov[row[0]]['percent']:.1f}%" not in row[4]:
            problems.append(f"rollup coverage of {row[0]}: {row[4]}")
    text = probe.get("text", "")
    failures = text[text.find("Failures"):text.find("Functional coverage")]
    for b in summary["buckets"]:
        if b["repro"] not in failures:
            problems.append(f"bucket repro not under Failures: {b['repro']}")
    if "No logs yet" in text:
        problems.append("a design not in the run is said to have no logs yet")
    return problems


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A regression of two designs, mont_lut failing, with a merged coverage summary."""

    def merge(out: Path, *_args: object, **_kw: object) -> bool:
        (out / "coverage").mkdir(parents=True, exist_ok=True)
        (out / "coverage" / "summary.json").write_text(json.dumps(COVERAGE))
        return True

    monkeypatch.setattr(closure, "after_regression", merge)
    lists = tmp_path / "lists.toml"
    lists.write_text(LIST)
    errors = {"mont_lut": "MISMATCH op 2: got 0x1 expected 0x2"}
    argv = ["--lists", str(lists), "regress", "--list", "page", "--jobs", "1",
            "--out", str(tmp_path / "out")]
    assert regress_cli.main(argv, launcher=LoggingLauncher(errors=errors),
                            results_root=tmp_path / "results") == 1
    add_cycles(tmp_path / "out", tmp_path / "results")
    return tmp_path / "out"


def add_cycles(out: Path, results_root: Path) -> None:
    """The fake runs leave no outcome.json for the cycle table: write the folder's cycles.md
    (the generator's own text, `make cycles` and *Measured* in it) and render the page
    again with `montverif report`."""
    table: dict[cycles.Key, cycles.Cell] = {
        ("mont_lut", 32, (), None): cycles.Cell(cycles={34: 3}, runs={"a"})}
    (out / "cycles.md").write_text(cycles.render(table))
    assert regress_cli.main(["report", str(out)], results_root=results_root) == 0


def summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def test_report_in_a_browser_sorts_filters_links_and_renders(results: Path,
                                                              tmp_path: Path) -> None:
    """The page of a failing regression, as the browser shows it; its screenshot is kept in
    build/report-screenshot.png (to look at, not a reference)."""
    shot = work("report-screenshot.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    shot.unlink(missing_ok=True)
    assert "No logs yet for" in (results / "cycles.md").read_text()  # the page leaves it out
    assert check_page(results / "report.html", summary(results), True, tmp_path / "p",
                      shot) == []
    assert shot.stat().st_size > 10_000
    # a second regression of the list: now the trends are drawn
    argv = ["--lists", str(tmp_path / "lists.toml"), "regress", "--list", "page", "--jobs",
            "1", "--out", str(tmp_path / "out2")]
    regress_cli.main(argv, launcher=LoggingLauncher(), results_root=tmp_path / "results")
    second = tmp_path / "out2"
    add_cycles(second, tmp_path / "results")
    assert check_page(second / "report.html", summary(second), False, tmp_path / "p") == []


@pytest.mark.parametrize(("breakage", "found"), [
    ("no script", "sorting by seed"),
    ("raw markdown", "Markdown of cycles.md not rendered"),
    ("log gone", "link to a missing file"),
    ("drawn first trend", "a first regression's trends are not said"),
    ("banner last", "banner is not the first visible element"),
    ("configuration first", "sections out of order"),
    ("no-logs note kept", "a design not in the run is said to have no logs yet"),
    ("rollup miscounted", "design rollup"),
])
def test_the_browser_checks_find_a_broken_page(results: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               breakage: str, found: str) -> None:
    page = results / "report.html"
    s = summary(results)
    if breakage == "no script":
        text = page.read_text()
        page.write_text(text[:text.index("<script>") + len("<script>")]
                        + text[text.index("</script>"):])
    elif breakage == "raw markdown":
        monkeypatch.setattr(html, "markdown_html",
                            lambda md, title="": f"<h2>{title}</h2><pre>{md}</pre>")
    elif breakage == "drawn first trend":
        s_page = page.read_text().replace(
            "first complete regression", "<svg></svg>")
        page.write_text(s_page)
    elif breakage == "banner last":
        text = page.read_text()
        start, end = text.index('<section id="verdict"'), text.index("</section>") + 10
        page.write_text(text[:start] + text[end:].replace("<script>", text[start:end]
                                                          + "<script>", 1))
    elif breakage == "configuration first":
        text = page.read_text()
        at, start = text.index('<h2 id="designs">'), text.index('<h2 id="configuration">')
        end = text.index("<script>")
        page.write_text(text[:at] + text[start:end] + text[at:start] + text[end:])
    elif breakage == "no-logs note kept":
        monkeypatch.setattr(html, "NO_LOGS", "\0")
    elif breakage == "rollup miscounted":
        text = page.read_text()
        page.write_text(text.replace("<td class=PASS>0</td>", "<td class=PASS>1</td>", 1))
    if breakage in ("raw markdown", "no-logs note kept"):
        page.write_text(html.render(s, results, []))
    if breakage == "log gone":
        (results / "runs" / s["runs"][0]["key"] / "sim.log").unlink()
    problems = check_page(page, s, True, tmp_path / "p")
    assert any(p.startswith(found) for p in problems), problems
