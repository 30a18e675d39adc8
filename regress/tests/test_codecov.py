"""Verilator line, branch and toggle coverage (regress/coverage/code.py): synthetic
the missing-tool error, and one end-to-end regression with --code-coverage (marked sim)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.host.tools import ToolError
from montverif.regress.cli import regress as regress_cli
from montverif.regress.coverage import code as codecov
from montverif.regress.tests.test_coverage_merge import check_history, check_ucis

Row = tuple[str, int, int, str, str, str, int]  # page, line, col, what, span, inst, count


def dat_line(page: str, line: int, col: int, count: int, what: str = "block",
             span: str = "", inst: str = "top", path: str = "/x/top.sv") -> str:
    fields = [("f", path), ("l", line), ("n", col), ("page", f"{page}/top"), ("o", what),
              *((("S", span),) if span else ()), ("h", inst)]
    key = "\x01".join(f"{k}\x02{v}" for k, v in fields)
    return f"C '\x01{key}' {count}"


def random_dat(path: Path, seed: int) -> list[Row]:
    """A coverage.dat of random points: blocks over spans, if/else pairs (then at a column,
    else at the next), signals' bit transitions, each in one or two instances. Returns the
    points (page, line, col, what, span, instance, count)."""
    rng = random.Random(seed)
    rows = []
    for i in range(1, 40):
        inst = rng.choice(["top", "top.u1"])
        kind = rng.choice(["v_line", "v_branch", "v_toggle", "v_user"])
        count = rng.choice([0, 0, 1, 7])
        if kind == "v_line":
            rows.append((kind, i * 10, 3, "block", f"{i * 10}-{i * 10 + rng.randint(0, 3)}",
                         inst, count))
        elif kind == "v_branch":
            rows += [(kind, i * 10, 5, "if", f"{i * 10}-{i * 10 + 1}", inst, count),
                     (kind, i * 10, 6, "else", f"{i * 10 + 2}", inst, rng.choice([0, 4]))]
        elif kind == "v_toggle":
            rows += [(kind, i * 10, 0, f"s{i}[{b}]:{d}", "", ins, rng.choice([0, 2]))
                     for b in range(rng.randint(1, 3)) for d in ("0->1", "1->0")
                     for ins in ("top", "top.u1")]
        else:
            rows.append((kind, i * 10, 0, "cover", "", inst, count))
    path.write_text("# SystemC::Coverage-3\n" + "\n".join(
        dat_line(page, ln, col, c, what, span, inst)
        for page, ln, col, what, span, inst, c in rows) + "\n")
    return rows


def expected_summary(rows: list[Row]) -> dict[str, tuple[int, int]]:
    """(covered, total) per kind, counted from the points by hand: a line hit by any point
    spanning it, an arm by its points in any instance, a transition likewise."""
    lines: dict[int, int] = {}
    arms: dict[tuple[int, str], int] = {}
    toggles: dict[tuple[int, str], int] = {}
    for page, ln, _, what, span, _, c in rows:
        if page == "v_toggle":
            toggles[(ln, what)] = toggles.get((ln, what), 0) + c
        elif page in ("v_line", "v_branch"):
            lo, _, hi = span.partition("-")
            for x in {ln, *range(int(lo), int(hi or lo) + 1)}:
                lines[x] = lines.get(x, 0) + c
            if page == "v_branch":
                arms[(ln, what)] = arms.get((ln, what), 0) + c
    return {k: (sum(v > 0 for v in d.values()), len(d))
            for k, d in (("line", lines), ("branch", arms), ("toggle", toggles))}


@pytest.mark.parametrize("seed", [3, 11])
def test_points_and_summary_of_a_coverage_dat(tmp_path: Path, seed: int) -> None:
    dat = tmp_path / "coverage.dat"
    want = expected_summary(random_dat(dat, seed))
    got = codecov.summarise(dat)
    for kind, (covered, total) in want.items():
        assert (got[kind]["covered"], got[kind]["total"]) == (covered, total), kind
        assert got[kind]["percent"] == round(100 * covered / total, 2)


def percents(text: str) -> dict[str, tuple[int, int]]:
    """(covered, total) per kind of the terminal's code coverage line."""
    return {k: (int(c), int(t)) for k, c, t in
            re.findall(r"(line|branch|toggle) [\d.]+% \((\d+)/(\d+)\)", text)}


def lcov_counts(info: Path, cwd: Path) -> dict[str, tuple[int, int]]:
    """(hit, found) of lines and branches as Debian's lcov (an independent reader) counts
    them, once with `lcov --summary` and once with genhtml (which must agree)."""
    assert shutil.which("lcov") and shutil.which("genhtml"), "lcov missing: make coverage-tools"
    pattern = r"(lines|branches)\.+: [\d.]+% \((\d+) of (\d+) (?:lines|branches)\)"
    got = subprocess.run(["lcov", "--summary", str(info), "--rc", "lcov_branch_coverage=1"],
                         capture_output=True, text=True, check=False)
    assert got.returncode == 0, got.stdout + got.stderr
    summary = {k: (int(h), int(f)) for k, h, f in re.findall(pattern, got.stdout + got.stderr)}
    pages = subprocess.run(["genhtml", "--branch-coverage", "-o", str(info.with_suffix(".html")),
                            str(info)], cwd=cwd, capture_output=True, text=True, check=False)
    assert pages.returncode == 0, pages.stderr
    assert {k: (int(h), int(f)) for k, h, f in re.findall(pattern, pages.stdout)} == summary
    return summary


def check_against_lcov(code_dir: Path, text: str, cwd: Path) -> None:
    """The terminal's line, branch and toggle figures are what lcov and genhtml count in
    merged.info (lines, branches) and merged.toggle.info (branches: the transitions)."""
    said = percents(text)
    assert set(said) == {"line", "branch", "toggle"}, text
    main = lcov_counts(code_dir / "merged.info", cwd)
    toggle = lcov_counts(code_dir / "merged.toggle.info", cwd)
    assert (main["lines"], main["branches"], toggle["branches"]) == (
        said["line"], said["branch"], said["toggle"])


def test_the_summary_says_what_lcov_counts(tmp_path: Path) -> None:
    """LCOV written from a coverage.dat and read back by lcov and genhtml: the terminal's
    figures are theirs; and an LCOV that mixes toggle points into its lines (what
    `verilator_coverage --write-info` wrote) is caught."""
    src = tmp_path / "top.sv"
    src.write_text("\n".join(f"line {i}" for i in range(1, 500)) + "\n")
    dat = tmp_path / "coverage.dat"
    rows = random_dat(dat, 5)
    dat.write_text(dat.read_text().replace("/x/top.sv", str(src)))
    sources = codecov.by_source(codecov.read_points(dat))
    out = tmp_path / "code"
    out.mkdir()
    codecov.write_lcov(sources, out / "merged.info")
    text = codecov.summary_text({"runs": 1, "overall": codecov.summarise_sources(sources),
                                 "dir": str(out)})
    assert percents(text) == expected_summary(rows)
    check_against_lcov(out, text, tmp_path)
    codecov.write_cobertura(out / "merged.info", out / "merged.cobertura.xml")
    root = ET.parse(out / "merged.cobertura.xml").getroot()
    said = percents(text)
    assert (int(root.get("lines-covered", -1)), int(root.get("lines-valid", -1))) == said["line"]
    assert (int(root.get("branches-covered", -1)),
            int(root.get("branches-valid", -1))) == said["branch"]
    # toggle points as lines, as --write-info had them: lcov counts more lines than said
    mixed = out / "merged.info"
    mixed.write_text(mixed.read_text().replace(
        "end_of_record", "DA:499,0\nend_of_record", 1))
    with pytest.raises(AssertionError):
        check_against_lcov(out, text, tmp_path)


def test_missing_tool_is_a_one_line_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(codecov, "tools_dir", lambda: tmp_path / "none")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolError, match="make coverage-tools") as exc:
        codecov.tool(fetch=False)
    assert "\n" not in str(exc.value)
    with pytest.raises(ToolError, match="apt-get/dpkg are not available"):
        codecov.tool(fetch=True)


@pytest.mark.sim
def test_regress_run_with_code_coverage(tmp_path: Path, capsys) -> None:
    """selftest list, one seed, coverage build: functional + line/toggle merged."""

    rc = regress_cli.main(["regress", "--list", "selftest", "--seeds", "1", "--jobs", "1",
                  "--code-coverage", "--rerun-waves", "0", "--out", str(tmp_path / "out")],
                 results_root=tmp_path / "results")
    out = capsys.readouterr().out
    assert rc == 0, out
    summary = json.loads((tmp_path / "out" / "coverage" / "summary.json").read_text())
    run_key = json.loads((tmp_path / "out" / "summary.json").read_text())["runs"][0]["key"]
    assert "-cov-verilator-s" in run_key
    assert summary["duts"]["mont_lut"]["runs"] == 1
    code = summary["code"]
    dat = tmp_path / "out" / "runs" / run_key / "coverage.dat"
    assert code["duts"]["mont_lut"] == codecov.summarise(dat)  # one run: merge = the run
    assert 0 < code["overall"]["line"]["covered"] < code["overall"]["line"]["total"]
    assert code["overall"]["toggle"]["total"] > 0
    annotated = tmp_path / "out" / "coverage" / "code" / "annotated" / "mont_lut" / "mont_lut.sv"
    assert "verilator_coverage annotation" in annotated.read_text()
    assert "code coverage (1 Verilator run(s))" in out
    check_code_exports(tmp_path / "out" / "coverage" / "code", out)
    # report.html shows the same figures, linking the exports
    page = (tmp_path / "out" / "report.html").read_text()
    section = page[page.index("Code coverage (Verilator)"):page.index('id="all-runs"')]
    for covered, total in percents(out).values():
        assert f"({covered}/{total})" in section
    assert all(f'href="coverage/code/{name}"' in section
               for name in ("merged.info", "merged.toggle.info", "merged.cobertura.xml"))
    # the functional coverage of a real run as UCIS, read back with pyucis
    check_ucis(tmp_path / "out" / "coverage" / "merged.ucis.xml", summary)
    check_history(tmp_path / "out" / "coverage" / "merged.ucis.xml", tmp_path / "out")


def check_code_exports(code_dir: Path, text: str) -> None:
    """The LCOV and Cobertura exports, read back: lcov's summary, genhtml's pages, the
    Cobertura totals and the terminal's line agree, and every source they name is a file
    of the repository."""
    info = code_dir / "merged.info"
    sources = [line[3:] for line in info.read_text().splitlines() if line.startswith("SF:")]
    assert "hdl/mont/mont_lut.sv" in sources
    assert all((ROOT / s).is_file() for s in sources), sources  # relative to the checkout
    check_against_lcov(code_dir, text, ROOT)
    said = percents(text)
    assert 0 < said["line"][0] < said["line"][1]
    root = ET.parse(code_dir / "merged.cobertura.xml").getroot()
    assert (int(root.get("lines-covered", -1)), int(root.get("lines-valid", -1))) == said["line"]
    assert (int(root.get("branches-covered", -1)),
            int(root.get("branches-valid", -1))) == said["branch"]
    one = lcov_counts(code_dir / "mont_lut.info", ROOT)  # one design: the same
    assert (one["lines"], one["branches"]) == (said["line"], said["branch"])


def test_code_exports_fail_on_a_broken_lcov(tmp_path: Path) -> None:
    """The read-back check fails on an LCOV whose sources are not where it says."""
    code_dir = tmp_path / "code"
    code_dir.mkdir()
    (code_dir / "merged.info").write_text(
        "TN:x\nSF:hdl/mont/no_such.sv\nDA:1,1\nDA:2,0\nend_of_record\n")
    with pytest.raises(AssertionError):
        check_code_exports(code_dir, "line 50.00% (1/2), branch 0.00% (0/0), toggle 0.00% (0/0)")


# --- the nightly's code coverage job (ci/nightly-codecov.sh) ---------------------------------
def test_the_codecov_script_refuses_bad_arguments() -> None:
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-codecov.sh"), "a", "1", "extra"],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 2 and res.stderr == "error: ci/nightly-codecov.sh [OUT] [SEED]\n"


def test_the_nightly_uploads_what_the_script_writes() -> None:
    """The workflow's codecov job runs the script into `codecov` and uploads its LCOV and
    Cobertura files (the paths the script checks, under that folder)."""
    flow = (ROOT / ".github" / "workflows" / "nightly.yml").read_text()
    job = flow[flow.index("\n  codecov:\n"):]
    job = job[:job.index("\n  # ", 1)]
    assert 'run: ci/nightly-codecov.sh codecov "$SEED"' in job
    assert "codecov/coverage/code/*.info" in job and "codecov/coverage/code/*.cobertura.xml" in job
    script = (ROOT / "ci" / "nightly-codecov.sh").read_text()
    checked = re.search(r"for f in ([^;]+);", script)
    assert checked and set(checked[1].split()) == {
        "merged.info", "merged.toggle.info", "merged.cobertura.xml"}


@pytest.mark.nightly(seconds=25)
@pytest.mark.synth
@pytest.mark.sim
def test_the_codecov_script_writes_lcov_and_cobertura(tmp_path: Path) -> None:
    """The nightly's script on one design: exit 0, the three exports, and the figures it
    prints are what lcov and genhtml count in them."""
    env = os.environ | {"REGRESS_ARGS": "--dut mont_r2", "JOBS": "1"}
    env.pop("CI", None)
    out = tmp_path / "codecov"
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-codecov.sh"), str(out), "5"],
                         capture_output=True, text=True, check=False, env=env)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith("code coverage"))
    check_against_lcov(out / "coverage" / "code", line, ROOT)
    assert (out / "coverage" / "code" / "merged.cobertura.xml").stat().st_size > 0
