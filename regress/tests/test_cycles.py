"""The cycle-count tables: formula evaluation and rendering from transaction logs."""

from __future__ import annotations

import json

import pytest

from montverif.regress.cli import cycles as cycles_cli
from montverif.regress.report import cycles
from montverif.spec.designs import load_design
from montverif.spec.errors import ConfigError
from montverif.spec.formula import formula


@pytest.mark.parametrize("expr,n,expected", [
    ("n + 1", 32, 33), ("n // 2 + 2", 97, 50), ("ceil(n / 2)", 97, 49), ("2*n - 1", 8, 15),
])
def test_formula(expr, n, expected):
    assert formula(expr, n) == expected


@pytest.mark.parametrize("expr", ["__import__('os')", "n ** 2", "open('x')", "m + 1"])
def test_formula_refuses_anything_else(expr):
    with pytest.raises(ConfigError):
        formula(expr, 8)


def _fake_run(root, dut: str, n: int, counts: list[int], overlay: str = "") -> None:
    run = root / f"{dut}-n{n}{overlay}"
    run.mkdir(parents=True)
    (run / "outcome.json").write_text(json.dumps(
        {"run": {"build": {"dut": dut, "n": n, "overlay": overlay}}}))
    lines = [json.dumps({"op": i, "cycles": c}) for i, c in enumerate(counts)]
    lines.append(json.dumps({"op": len(counts), "error": "ERR_RANGE"}))
    (run / "txns.jsonl").write_text("\n".join(lines) + "\n")


def test_render_from_logs(tmp_path):
    _fake_run(tmp_path, "mont_lut", 32, [34, 34, 34])
    _fake_run(tmp_path, "mont_lut", 97, [99, 101])
    text = cycles.render(cycles.collect([tmp_path]))
    paper = load_design("mont_lut").paper_cycles["cycles"]
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


def test_formula_with_build_parameters():
    assert formula("ceil(n / W) * 2 + P", 97, {"W": 8, "P": 3}) == 29
    assert formula("max(n, W) % 5", 7, {"W": 9}) == 4
    with pytest.raises(ConfigError):
        formula("V + 1", 8, {"W": 8})
