"""Verilator line/toggle coverage (regress/coverage/code.py): parsing synthetic coverage.dat files,
the missing-tool error, and one end-to-end regression with --code-coverage (marked sim)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from montverif.regress.cli import regress as regress_cli
from montverif.regress.coverage import code as codecov
from montverif.regress.flow.tools import ToolError


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
    monkeypatch.setattr(codecov, "TOOLS_DIR", tmp_path / "none")
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
