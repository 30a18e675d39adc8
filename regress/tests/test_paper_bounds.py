"""Digit widths bounded by the hardware the paper assumes (issue 31, item 3): a descriptor's
`paper_max` refuses larger values on every command a user types, unless `--beyond-paper`
(or a list entry's `beyond_paper = true`), and what runs beyond the paper says so."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.regress.cli import regress as regress_cli
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.regression import lists as rlists
from montverif.regress.report import markdown
from montverif.regress.tests.test_run import FakeLauncher
from montverif.spec import schema
from montverif.spec.design import _param
from montverif.spec.designs import known_designs, load_design

MONTVERIF = Path(sys.executable).parent / "montverif"
WIDE = ("--param", "V=1024", "--param", "W=1024", "--param", "P=1")


def montverif(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MONTVERIF), *args], capture_output=True, text=True, timeout=120,
                          check=False)


def one_error(cp: subprocess.CompletedProcess[str]) -> str:
    lines = cp.stderr.strip().splitlines()
    assert cp.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), cp
    assert "Traceback" not in cp.stderr
    return lines[0]


def test_the_descriptors_bound_the_multiplier_inputs() -> None:
    """mwrkmm, mont_qp and the RSA core's V and W: the paper's 18x18 multiplier, 17 bits
    unsigned, each bound citing its paper's section; mont_dual's K and Units: the paper's
    four 16-bit units."""
    bounded = {(d, name): p for d in known_designs()
               for name, p in load_design(d).parameters.items() if p.paper_max is not None}
    assert set(bounded) == {(d, p) for d in ("mwrkmm", "mont_qp", "rsa_core") for p in "VW"} \
        | {("mont_dual", "K"), ("mont_dual", "Units")}
    assert {p.paper_max for k, p in bounded.items() if k[0] != "mont_dual"} == {17}
    assert (bounded["mont_dual", "K"].paper_max, bounded["mont_dual", "Units"].paper_max) \
        == (16, 4)
    assert "Tanimura 2008" in bounded["mont_dual", "K"].paper
    assert "Michalski-Buell 6.1" in bounded["mwrkmm", "V"].paper
    assert "Jiang-Harris" in bounded["mont_qp", "W"].paper
    mwrkmm = load_design("mwrkmm")
    assert mwrkmm.beyond_paper(mwrkmm.resolve({"V": 17, "W": 16})) == []
    beyond = mwrkmm.beyond_paper(mwrkmm.resolve({"V": 32, "W": 32}))
    assert len(beyond) == 1 and beyond[0].startswith("V=32, W=32 > 17 (Michalski-Buell")


@pytest.mark.parametrize(("raw", "message"), [
    ({"default": 8, "paper_max": 17}, "paper_max is an integer, with `paper`"),
    ({"default": 8, "paper_max": "17", "paper": "x"},
     r"\[parameters\] V.paper_max: expected an integer \(got '17'\)"),
    ({"default": 32, "paper_max": 17, "paper": "x"}, "the default 32 is beyond paper_max 17"),
])
def test_a_bound_needs_its_source_and_a_default_within_it(raw: dict, message: str) -> None:
    """The schema's finding (montverif.spec.schema: types) or the reader's."""
    with pytest.raises(ConfigError, match=message):
        schema.check({"parameters": {"V": raw}}, "d.toml", section="parameters")
        _param("V", raw, "d.toml: [parameters]")


def test_the_models_command_refuses_the_issue_s_example_and_runs_it_when_asked() -> None:
    """`models run mwrkmm --n 1024 --param V=1024 --param W=1024 --param P=1` (one
    1024 x 1024 multiplier, 10 cycles a product) was accepted silently."""
    args = ("models", "run", "mwrkmm", "--n", "1024", "--x", "3", "--y", "5", "--m",
            str((1 << 1023) + 1), *WIDE)
    line = one_error(montverif(*args))
    assert "V=1024, W=1024 > 17 (Michalski-Buell" in line and "--beyond-paper" in line
    ran = montverif(*args, "--beyond-paper")
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["beyond_paper"] and out["beyond_paper"][0].startswith("V=1024, W=1024 > 17")
    within = montverif("models", "run", "mwrkmm", "--n", "1024", "--x", "3", "--y", "5",
                       "--m", str((1 << 1023) + 1), "--param", "V=17", "--param", "W=16")
    assert within.returncode == 0 and "beyond_paper" not in json.loads(within.stdout)


@pytest.mark.parametrize("command", [
    ("sim", "--dut", "mont_qp", "--n", "64", "--params", "V=16,W=32,P=1"),
    ("synth", "run", "--dut", "mwrkmm", "--n", "64", "--param", "V=32", "--param", "W=32"),
])
def test_sim_and_synth_refuse_before_any_work(command: tuple[str, ...]) -> None:
    line = one_error(montverif(*command))
    assert "> 17" in line and "beyond the hardware the paper assumes" in line


def test_a_run_beyond_the_paper_repeats_with_the_flag() -> None:
    beyond = RunSpec(BuildSpec("mont_qp", 64, 32, "verilator", params=(("W", 32),)))
    within = RunSpec(BuildSpec("mont_qp", 64, 32, "verilator", params=(("W", 16),)))
    assert "--beyond-paper" in beyond.repro() and beyond.beyond_paper()
    assert "--beyond-paper" not in within.repro() and within.beyond_paper() == []


ENTRY = """
[l]
[[l.entry]]
dut = "mwrkmm"
widths = [64]
bus_widths = [32]
simulators = ["verilator"]
seeds = 1
txns = 2
params = [{ V = %s, W = 8, P = 1 }]
"""


def test_a_list_entry_beyond_the_paper_says_so(tmp_path: Path) -> None:
    path = tmp_path / "lists.toml"
    path.write_text(ENTRY % 32)
    with pytest.raises(rlists.ListError, match=r"V=32 > 17 .*`beyond_paper = true`"):
        rlists.load_lists(path)
    path.write_text(ENTRY % 32 + "beyond_paper = true\n")
    assert len(rlists.load_lists(path)["l"].entries) == 1
    path.write_text(ENTRY % 16 + "beyond_paper = true\n")
    with pytest.raises(rlists.ListError, match="no parameter point of the entry is beyond"):
        rlists.load_lists(path)


def test_the_reports_flag_runs_beyond_the_paper(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A regression (canned runs) with one entry beyond the paper: the terminal summary,
    summary.json, the Markdown, report.html and JUnit all say which runs and why."""
    path = tmp_path / "lists.toml"
    path.write_text(ENTRY % 32 + "beyond_paper = true\n" + (ENTRY % 16).replace("[l]\n", ""))
    out = tmp_path / "out"
    assert regress_cli.main(["--lists", str(path), "regress", "--list", "l", "--out", str(out),
                             "--history", str(tmp_path / "h.jsonl")], launcher=FakeLauncher(),
                            results_root=tmp_path / "results") == 0
    text = capsys.readouterr().out
    assert "1 run(s) beyond the hardware their paper assumes" in text and "V=32 > 17" in text
    runs = json.loads((out / "summary.json").read_text())["runs"]
    assert [bool(r["beyond_paper"]) for r in runs] == [True, False]
    assert "1 run(s) beyond the hardware their paper assumes" in markdown.render_folder(out)
    assert "beyond the hardware their paper assumes" in (out / "report.html").read_text()
    props = [p.get("value") for p in ET.parse(out / "junit.xml").getroot().iter("property")
             if p.get("name") == "beyond_paper"]
    assert props and all((v or "").startswith("V=32 > 17") for v in props)
