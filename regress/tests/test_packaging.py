"""The package as installed: pyproject.toml names every Python package of the three folders
(a wheel built from it holds them all), and `montverif` answers from any folder."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from junitparser import JUnitXml

from montverif.host.paths import ROOT


def test_every_package_is_listed() -> None:
    """Every folder of Python (an __init__.py) or of package data (the RTL, descriptors,
    C sources, records) is a package of the wheel: a folder left out would be left out of
    it (setuptools takes data only as a listed package's)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {ROOT / folder: name for name, folder in config["package-dir"].items()}

    def owner(init: Path) -> tuple[str, Path]:  # the package folder nearest above it
        base = max((f for f in folders if init.is_relative_to(f)), key=lambda f: len(f.parts))
        return folders[base], base

    patterns = config["package-data"]["*"]
    holders = {f.parent for folder in folders for pattern in ["__init__.py", *patterns]
               for f in folder.rglob(pattern) if "__pycache__" not in f.parts}
    found = {name + "".join(f".{part}" for part in holder.relative_to(base).parts)
             for holder in holders for name, base in [owner(holder / "x")]}
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


@pytest.mark.synth
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


def test_a_command_imports_only_its_own_modules() -> None:
    """`montverif sim` imports neither synthesis, mutation nor the benchmarks (each command's
    module is imported when it runs: a small run's start, issue 64); every command named in
    the usage has a module with a main."""
    code = ("import sys; from montverif.regress.cli import COMMANDS, main; "
            "code = main(['sim', '--dut', 'no_such_design']); "
            "heavy = [m for m in ('montverif.regress.synth.synth', 'montverif.regress.mutate', "
            "'montverif.regress.bench', 'montverif.regress.cli.regress') if m in sys.modules]; "
            "print(code, heavy); "
            "import importlib; "
            "print(all(callable(importlib.import_module(c.module).main) "
            "for c in COMMANDS.values()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:2] == ["2 []", "True"], out
