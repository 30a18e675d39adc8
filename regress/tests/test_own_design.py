"""docs/own-design.md, followed as a new user would: its commands, in order. Route 1 (in a
scratch copy of the repository without mont_r4: `new-design mont_r4 --like mont_csa`, then
the project's core, model and descriptor put in place where the page says the files are
written) must end in exactly the repository's derived files; route 2 (in an empty folder of
the user's own: the (N+1)-bit start/done core and the valid/ready core with one packed
operand port of docs/examples) must pass on both simulators, fail under --fault, lint clean,
run its own list, and fail once each is broken, writing nothing into montverif's sources.
Each command's shown output lines must begin lines of what it prints, and a shown FAIL means
exit code 1 (else 0)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.regress.cli.lint import package_dirs
from montverif.spec import generate
from montverif.spec.designs import load_design

GUIDE = ROOT / "docs" / "own-design.md"
FILES_MARK = "<!-- own-design: the files are written here -->"
ROUTE2 = "## Route 2"


@dataclass(frozen=True)
class Command:
    line: str  # what follows "$ "
    shown: tuple[str, ...]  # the output lines the page shows under it


def commands(text: str) -> list[Command]:
    """The `$ ` lines of the page's console blocks, each with the lines shown under it."""
    out: list[Command] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"(?m)^\$ ", block)[1:]:
            line, *shown = chunk.rstrip("\n").split("\n")
            out.append(Command(line, tuple(shown)))
    return out


def kept_files() -> list[Path]:
    """What route 1 writes by hand: mont_r4's RTL and descriptor, its model and the model's
    tests (found from its descriptor)."""
    d = load_design("mont_r4")
    module = d.model_function.split(":")[0]
    return [*d.rtl, d.descriptor, ROOT / "models" / f"{module}.py",
            ROOT / "models" / "tests" / f"test_{module}.py"]


def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The repository's files (tracked and new, not ignored) without mont_r4's, its derived
    files written again, and the environment that runs its `montverif`: the package found
    through a view of the scratch folders (as `make lint` builds one)."""
    root = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    skip = {p.relative_to(ROOT).as_posix() for p in kept_files()}
    for rel in filter(None, listed):
        src = ROOT / rel
        if rel in skip or not src.is_file():
            continue
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, root / rel)
    view = tmp_path / "view" / "montverif"
    view.mkdir(parents=True)
    (view / "__init__.py").touch()
    for name, folder in package_dirs().items():
        (view / name).symlink_to(root / folder, target_is_directory=True)
    env = os.environ | {
        "PYTHONPATH": str(view.parent),
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    }
    run(Command("montverif generate", ()), root, env)
    return root, env


def run(cmd: Command, cwd: Path, env: dict[str, str]) -> None:
    res = subprocess.run(["bash", "-c", cmd.line], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=900, check=False)
    printed = (res.stdout + res.stderr).splitlines()
    expect = 1 if cmd.shown and cmd.shown[0].startswith("FAIL") else 0
    assert res.returncode == expect, f"$ {cmd.line} -> {res.returncode}\n{res.stdout}{res.stderr}"
    for shown in cmd.shown:
        assert any(line.startswith(shown) for line in printed), \
            f"$ {cmd.line}: no line starts with {shown!r}\n{res.stdout}{res.stderr}"
    assert "Traceback" not in res.stderr, res.stderr


def test_the_guide_has_both_routes() -> None:
    text = GUIDE.read_text()
    assert FILES_MARK in text and ROUTE2 in text
    first = commands(text.split(FILES_MARK)[0])
    assert [c.line for c in first] == ["montverif new-design mont_r4 --like mont_csa",
                                       "montverif sim --dut mont_r4 --sim icarus --n 32"]
    later = [c.line.split()[1] for c in commands(text.split(FILES_MARK)[1])]
    for sub in ("generate", "sim", "lint", "regress", "closure", "mutate"):
        assert sub in later, sub


@pytest.mark.sim
@pytest.mark.nightly(seconds=120)  # test_wheel's project of your own runs route 2 in make test
def test_the_guide_end_to_end(tmp_path: Path) -> None:
    text = GUIDE.read_text()
    before, after = text.split(FILES_MARK)
    route1, route2 = after.split(ROUTE2)
    root, env = scratch(tmp_path)
    assert not (root / "hdl" / "mont" / "mont_r4.toml").exists()
    for cmd in commands(before):
        run(cmd, root, env)
    for path in kept_files():  # "now write the three files": the project's versions
        shutil.copy2(path, root / path.relative_to(ROOT))
    for cmd in commands(route1):
        run(cmd, root, env)
    # the guide's steps reach exactly the repository's state
    for path in generate.targets():
        rel = path.relative_to(ROOT)
        assert (root / rel).read_text() == path.read_text(), rel
    # route 2: in an empty folder of the user's own, the examples copied from the repository
    mine = tmp_path / "mycores"
    mine.mkdir()
    sources = {p.relative_to(root): p.read_bytes() for p in (root / "hdl").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    examples = env | {"EXAMPLES": str(root / "docs" / "examples" / "third_party")}
    for cmd in commands(route2):
        run(cmd, mine, examples)
    # its designs' generated files are in its work folder; montverif's sources are as they were
    assert (mine / "build" / "gen" / "tp_wide" / "tp_wide_top.sv").is_file()
    assert sources == {p.relative_to(root): p.read_bytes() for p in (root / "hdl").rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts}
