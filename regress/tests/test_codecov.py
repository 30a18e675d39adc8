"""Verilator line/toggle coverage (regress/coverage/code.py): parsing synthetic coverage.dat files,
the missing-tool error, and one end-to-end regression with --code-coverage (marked sim)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from montverif.regress.cli import regress as regress_cli
from montverif.regress.coverage import code as codecov
from montverif.regress.flow.paths import ROOT
from montverif.regress.flow.tools import ToolError
from montverif.regress.tests.test_coverage_merge import check_ucis


def dat_line(page: str, line: int, col: int, count: int) -> str:
    key = "\x01".join(f"{k}\x02{v}" for k, v in (
        ("f", "/x/top.sv"), ("l", line), ("n", col), ("page", f"{page}/top"), ("o", "block"),
        ("h", "top")))
    return f"C '\x01{key}' {count}"


def test_points_and_summary_of_a_coverage_dat(tmp_path: Path) -> None:
    rng = random.Random(3)
    rows = [(page, i, rng.choice([0, 0, 1, 7])) for i in range(60)
            for page in (rng.choice(["v_line", "v_branch", "v_toggle", "v_user"]),)]
    dat = tmp_path / "coverage.dat"
    dat.write_text("# SystemC::Coverage-3\n" + "\n".join(
        dat_line(page, i, 0, c) for page, i, c in rows) + "\n")
    got = codecov.summarise(dat)
    for kind, pages in (("line", ("v_line", "v_branch")), ("toggle", ("v_toggle",))):
        mine = [c for page, _, c in rows if page in pages]
        assert got[kind]["total"] == len(mine)
        assert got[kind]["covered"] == sum(c > 0 for c in mine)
        assert got[kind]["percent"] == round(100 * sum(c > 0 for c in mine) / len(mine), 2)


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
    check_code_exports(tmp_path / "out" / "coverage" / "code", tmp_path)
    # the functional coverage of a real run as UCIS, read back with pyucis
    check_ucis(tmp_path / "out" / "coverage" / "merged.ucis.xml", summary)


def lcov_summary(info: Path) -> tuple[int, int]:
    """(lines hit, lines found) as Debian's lcov (an independent reader) counts them."""
    got = subprocess.run(["lcov", "--summary", str(info)], capture_output=True, text=True,
                         check=False)
    assert got.returncode == 0, got.stdout + got.stderr
    found = re.search(r"lines\.+: [\d.]+% \((\d+) of (\d+) lines\)", got.stdout + got.stderr)
    assert found, got.stdout + got.stderr
    return int(found[1]), int(found[2])


def check_code_exports(code_dir: Path, tmp_path: Path) -> None:
    """The LCOV and Cobertura exports, read back: lcov's summary, genhtml's pages, and the
    Cobertura totals agree, and every source they name is a file of the repository."""
    assert shutil.which("lcov") and shutil.which("genhtml"), "lcov missing: make coverage-tools"
    info = code_dir / "merged.info"
    hit, found = lcov_summary(info)
    assert 0 < hit < found
    sources = [line[3:] for line in info.read_text().splitlines() if line.startswith("SF:")]
    assert "hdl/mont/mont_lut.sv" in sources
    assert all((ROOT / s).is_file() for s in sources), sources  # relative to the checkout
    html = tmp_path / "genhtml"
    got = subprocess.run(["genhtml", "-q", "-o", str(html), str(info)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert got.returncode == 0, got.stderr
    assert "mont_lut.sv.gcov.html" in {p.name for p in html.rglob("*.html")}  # source found
    root = ET.parse(code_dir / "merged.cobertura.xml").getroot()
    assert (int(root.get("lines-covered", -1)), int(root.get("lines-valid", -1))) == (hit, found)
    assert lcov_summary(code_dir / "mont_lut.info") == (hit, found)  # one design: the same


def test_code_exports_fail_on_a_broken_lcov(tmp_path: Path) -> None:
    """The read-back check fails on an LCOV whose sources are not where it says."""
    code_dir = tmp_path / "code"
    code_dir.mkdir()
    (code_dir / "merged.info").write_text(
        "TN:x\nSF:hdl/mont/no_such.sv\nDA:1,1\nDA:2,0\nend_of_record\n")
    with pytest.raises(AssertionError):
        check_code_exports(code_dir, tmp_path)
