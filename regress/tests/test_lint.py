"""`make lint` in the test suite: every design's RTL is clean under Verilator -Wall (at its
default and test-point parameters) and compiles on Icarus -g2012, so CI catches a lint
regression; and a lint problem is reported, not passed over."""

from __future__ import annotations

from pathlib import Path

import pytest

from montverif.regress import lint, tools
from montverif.verif.config import known_designs, load_design


@pytest.mark.sim
@pytest.mark.parametrize("name", known_designs())
def test_design_is_lint_clean(name: str) -> None:
    tools.setup_env("verilator")
    tools.setup_env("icarus")
    assert lint.lint_design(name) == []


@pytest.mark.sim
def test_a_lint_problem_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of mont_lut with a truncating, unused signal added must give a Verilator -Wall
    problem."""
    tools.setup_env("verilator")
    tools.setup_env("icarus")
    design = load_design("mont_lut")
    core = next(s for s in design.sources if s.name == "mont_lut.sv")
    bad = tmp_path / core.name
    text = core.read_text()
    bad.write_text(text.replace("endmodule", "  logic [3:0] lint_bait_unused;\n"
                                "  assign lint_bait_unused = 8'd255;\nendmodule", 1))
    sources = tuple(bad if s == core else s for s in design.sources)
    monkeypatch.setattr(lint, "load_design",
                        lambda _name: type(design)(**{**design.__dict__, "sources": sources}))
    problems = lint.lint_design("mont_lut")
    assert problems and "lint_bait_unused" in problems[0]
