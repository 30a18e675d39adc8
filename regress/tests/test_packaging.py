"""The package as installed: pyproject.toml names every Python package of the three folders
(a wheel built from it holds them all), and `montverif` answers from any folder."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from junitparser import JUnitXml

from montverif.regress.flow.paths import ROOT


def test_every_package_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {name + "".join(f".{part}" for part in init.parent.relative_to(ROOT / folder).parts)
             for name, folder in config["package-dir"].items()
             for init in (ROOT / folder).rglob("__init__.py")}
    assert set(config["packages"]) == found


def test_the_command_runs_from_any_folder(tmp_path: Path) -> None:
    """No checkout on sys.path: the installed package alone (`montverif` outside the
    checkout) lists the designs' models and refuses a bad command with one line."""
    cmd = [sys.executable, "-m", "montverif.regress.cli"]
    listed = subprocess.run([*cmd, "models", "list"], cwd=tmp_path, capture_output=True,
                            text=True, check=False)
    assert listed.returncode == 0 and "mont_lut" in listed.stdout
    bad = subprocess.run([*cmd, "frobnicate"], cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown command")
    assert bad.stderr.count("\n") == 1


def test_make_test_writes_junit(tmp_path: Path) -> None:
    """`make test` leaves its results as JUnit XML (TEST_JUNIT), read back by junitparser."""
    out = tmp_path / "junit.xml"
    got = subprocess.run(
        ["make", "-s", "test", f"TEST_JUNIT={out}",
         "PYTEST_ARGS=-q -p no:cacheprovider hdl/spec/tests/test_regmap.py"],
        cwd=ROOT, capture_output=True, text=True, check=False)
    assert got.returncode == 0, got.stdout[-2000:] + got.stderr[-2000:]
    xml = JUnitXml.fromfile(str(out))
    cases = [case for suite in xml for case in suite]
    assert cases and len(cases) == int(xml.tests) and all(c.is_passed for c in cases)
    assert {c.classname for c in cases} == {"hdl.spec.tests.test_regmap"}
