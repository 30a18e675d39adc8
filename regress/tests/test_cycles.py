"""The cycle-count tables: formula evaluation and rendering from transaction logs."""

from __future__ import annotations

import json

import pytest

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.regress.cli import cycles as cycles_cli
from montverif.regress.report import cycles
from montverif.spec import schema
from montverif.spec.design import Param, _figures
from montverif.spec.designs import load_design
from montverif.spec.formula import formula


@pytest.mark.parametrize("expr,n,expected", [
    ("n + 1", 32, 33), ("n // 2 + 2", 97, 50), ("ceil(n / 2)", 97, 49), ("2*n - 1", 8, 15),
    ("2 ** n", 8, 256),
])
def test_formula(expr, n, expected):
    assert formula(expr, n) == expected


@pytest.mark.parametrize("expr", ["__import__('os')", "2 ** 70000", "n ** -1",
                                  "open('x')", "m + 1"])
def test_formula_refuses_anything_else(expr):
    with pytest.raises(ConfigError):
        formula(expr, 8)


def _fake_run(root, dut: str, n: int, counts: list[int], overlay: str = "",
              params: dict | None = None, fields: list[int] | None = None) -> None:
    run = root / f"{dut}-n{n}{overlay}" / "-".join(f"{k}{v}" for k, v in (params or {}).items())
    run.mkdir(parents=True)
    (run / "outcome.json").write_text(json.dumps(
        {"run": {"build": {"dut": dut, "n": n, "overlay": overlay}}, "params": params or {}}))
    lines = [json.dumps({"op": i, "cycles": c} | ({"field": fields[i]} if fields else {}))
             for i, c in enumerate(counts)]
    lines.append(json.dumps({"op": len(counts), "error": "ERR_RANGE"}))
    (run / "txns.jsonl").write_text("\n".join(lines) + "\n")


def test_render_from_logs(tmp_path):
    _fake_run(tmp_path, "mont_lut", 32, [34, 34, 34])
    _fake_run(tmp_path, "mont_lut", 97, [99, 101])
    text = cycles.render(cycles.collect([tmp_path]))
    paper = load_design("mont_lut").paper_cycles.cycles
    assert f"| 32 | 34 | 3 | {formula(str(paper), 32):g} |" in text
    assert "99–101 (varies)" in text  # a count that varies is shown, not hidden


def test_mutant_runs_are_not_counted(tmp_path):
    _fake_run(tmp_path, "mont_lut", 32, [34, 34])
    _fake_run(tmp_path, "mont_lut", 32, [77], overlay="mut0003")
    text = cycles.render(cycles.collect([tmp_path]))
    assert "| 32 | 34 | 2 |" in text and "77" not in text


def test_cli_without_logs_is_a_clear_error(tmp_path, capsys):
    assert cycles_cli.main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: no transaction logs")


def test_write_makes_a_page_of_its_own_and_leaves_the_users_alone(tmp_path, capsys):
    """--write FILE: a new file, then the same page again (its first line names the command);
    a file of the user's is refused with one error line and kept as it was."""
    _fake_run(tmp_path, "mont_lut", 32, [34, 34])
    page = tmp_path / "cycles.md"
    for _ in range(2):
        assert cycles_cli.main([str(tmp_path), "--write", str(page)]) == 0
    assert pages.is_generated(page)
    assert page.read_text().startswith(pages.header(cycles.COMMAND))
    assert "| 32 | 34 | 2 |" in page.read_text()
    own = tmp_path / "notes.md"
    own.write_text("# my notes\n")
    capsys.readouterr()
    assert cycles_cli.main([str(tmp_path), "--write", str(own)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert own.read_text() == "# my notes\n"


def test_formula_with_build_parameters():
    assert formula("ceil(n / W) * 2 + P", 97, {"W": 8, "P": 3}) == 29
    assert formula("max(n, W) % 5", 7, {"W": 9}) == 4
    with pytest.raises(ConfigError):
        formula("V + 1", 8, {"W": 8})


def test_the_papers_own_counts_where_it_states_them(tmp_path):
    """mont_dual: a cell per field, each against Tanimura's own count at 256 bits (marked *),
    not a formula fitted to them; rsa_core: the mwrkmm point against the paper's 20-PE core,
    another multiplier against its subpipelined core, the most specific figure winning."""
    _fake_run(tmp_path, "mont_dual", 256, [165, 41, 165], fields=[0, 1, 0])
    rsa = load_design("rsa_core")
    mwrkmm = {"ConstTime": 1, "Mult": rsa.parameters["Mult"].value("mwrkmm"), "P": 20,
              "V": 17, "W": 16}
    _fake_run(tmp_path, "rsa_core", 1024, [271890], params=mwrkmm)
    _fake_run(tmp_path, "rsa_core", 1024, [1053702], params={"ConstTime": 1, "Mult": 0})
    subpipelined = mwrkmm | {"P": 15, "PeLatency": 4}
    _fake_run(tmp_path, "rsa_core", 1024, [340632], params=subpipelined)
    text = cycles.render(cycles.collect([tmp_path]))
    dual = text[text.index("## mont_dual"):text.index("## rsa_core")]
    assert "| 256 | 0 | 165 | 2 | 165* | 1.000 |" in dual
    assert "| 256 | 1 | 41 | 1 | 45* | 0.911 |" in dual
    assert "`" not in dual.split("\n")[2]  # no formula: the paper states none
    rsa_text = text[text.index("## rsa_core"):]
    assert "| 271890 | 1 | 319250* | 0.852 |" in rsa_text
    # the subpipelined core's figure is set beside the subpipelined configuration only
    assert f"| 340632 | 1 | 382900* | {340632 / 382900:.3f} |" in rsa_text
    assert "| 1053702 | 1 | 382900*" not in rsa_text
    assert "319,250 at N = 1024 (Michalski-Buell 2006, Table 3" in rsa_text


def test_a_figure_naming_an_unknown_parameter_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="unknown parameter Q"):
        _figures({"figures": [{"n": 8, "cycles": 9, "where": "x", "params": {"Q": 1}}]},
                 {"P": Param("P", 1, 1)}, "t")
    with pytest.raises(ConfigError, match=r"t: \[paper\] figures\[0\].where: missing"):
        schema.check({"paper": {"figures": [{"n": 8, "cycles": 9}]}}, "t", section="paper")
