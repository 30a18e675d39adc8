"""The filelists, FuseSoC cores and checked-in tops of montverif.spec.cores: one of each per
design, every one as generated, every path inside the checkout and relative to its file.
(FuseSoC itself reads them in regress/tests/test_cores.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from montverif.host.errors import ConfigError
from montverif.host.paths import HDL, INCLUDE_DIRS, include_files
from montverif.spec import cores, designs, top
from montverif.spec.design import Design


def _core(design: Design) -> dict[str, Any]:
    data = yaml.safe_load(cores.core_path(design).read_text())
    assert isinstance(data, dict)
    return data


def _entries(text: str) -> tuple[list[Path], list[Path]]:
    """A filelist's include directories and sources, resolved from hdl/cores/."""
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("//")]
    incdirs = [(cores.CORES / ln.removeprefix("+incdir+")).resolve() for ln in lines
               if ln.startswith("+incdir+")]
    return incdirs, [(cores.CORES / ln).resolve() for ln in lines if not ln.startswith("+")]


def test_every_design_has_its_three_files_and_there_are_no_others() -> None:
    every = designs.every()
    expected = cores.targets(every)
    assert len(expected) == 3 * len(every)
    assert sorted(cores.generated()) == sorted(expected)
    for path, text in expected.items():
        assert path.read_text() == text, f"{path} is stale: run `montverif generate`"
        assert cores.MARK in "".join(text.splitlines(keepends=True)[:3])


@pytest.mark.parametrize("name", designs.known_designs())
def test_the_filelist_is_the_build_order_with_the_checked_in_top(name: str) -> None:
    design = designs.load_design(name)
    text = cores.listing(design, "f")
    assert text == cores.filelist_path(design).read_text()
    incdirs, sources = _entries(text)
    assert incdirs == [d.resolve() for d in INCLUDE_DIRS]
    build = top.sources(design)  # what every build of the design compiles, its top last
    assert sources[:-1] == [p.resolve() for p in build[:-1]]
    # the register-map package first (a streaming design: the stream harness's engine)
    first = "mv_stream_engine.sv" if design.stream is not None else "mv_regmap_pkg.sv"
    assert sources[0].name == first
    assert sources[-1] == cores.top_path(design).resolve()
    # the checked-in top is the build's own, behind one line saying who writes it
    head, body = cores.top_path(design).read_text().split("\n", 1)
    assert cores.MARK in head and body == build[-1].read_text()
    listed = cores.listing(design, "list").splitlines()
    assert [Path(p) for p in listed] == [*build[:-1], cores.top_path(design)]


@pytest.mark.parametrize("name", designs.known_designs())
def test_the_core_names_the_same_files_targets_and_parameters(name: str) -> None:
    design = designs.load_design(name)
    core = _core(design)
    assert core["name"] == f"montverif:mult:{name}:{cores.version()}"
    assert design.core_module in core["description"]
    sets = core["filesets"]
    named = [HDL / f for f in sets["rtl"]["files"]]
    assert named == list(design.rtl_sources)
    assert [HDL / f for f in sets["top"]["files"]] == [cores.top_path(design)]
    incs = [(HDL / next(iter(f))) for f in sets["includes"]["files"]]
    assert incs == include_files() and all(
        next(iter(f.values())) == {"is_include_file": True} for f in sets["includes"]["files"])
    for entry in (*sets["rtl"]["files"], *sets["top"]["files"]):
        assert not entry.startswith(("..", "/")), entry  # below the core's own folder
    targets = core["targets"]
    assert targets["default"]["toplevel"] == targets["lint"]["toplevel"] == design.core_module
    assert targets["lint"]["default_tool"] == "verilator"
    assert targets["lint"]["tools"]["verilator"] == {"mode": "lint-only",
                                                     "verilator_options": ["-Wall"]}
    assert targets["sim"]["default_tool"] == "icarus"
    assert targets["sim"]["toplevel"] == design.toplevel
    assert targets["sim"]["filesets"] == [*targets["lint"]["filesets"], "top"]
    # every parameter of the descriptor, at its default, on the top; N as the top has it
    params = core.get("parameters", {})
    assert params["N"]["default"] == top.default_n(design)
    for pname, param in design.parameters.items():
        assert params[pname]["default"] == param.value(param.default)
        assert pname in targets["sim"]["parameters"]
    header = top.core_header(design).params
    assert set(targets["lint"].get("parameters", [])) == {p for p in params if p in header}


def test_a_filelist_format_must_be_known() -> None:
    with pytest.raises(ConfigError, match="unknown filelist format 'json'"):
        cores.listing(designs.load_design("mont_r2"), "json")


def test_only_files_with_the_mark_are_generated(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of the generated kinds without the mark is never taken for a generated one
    (write() would remove it as an orphan)."""
    (tmp_path / "cores").mkdir()
    (tmp_path / "own.core").write_text("CAPI=2:\nname: me:my:own:1\n")
    (tmp_path / "ghost.core").write_text(f"CAPI=2:\n# GENERATED {cores.MARK}\n")
    (tmp_path / "cores" / "ghost.f").write_text(f"// {cores.MARK}\nx.sv\n")
    (tmp_path / "cores" / "notes.txt").write_text(f"// {cores.MARK}\n")
    monkeypatch.setattr(cores, "HDL", tmp_path)
    monkeypatch.setattr(cores, "CORES", tmp_path / "cores")
    assert cores.generated() == [tmp_path / "ghost.core", tmp_path / "cores" / "ghost.f"]
    assert cores.orphans({tmp_path / "ghost.core": ""}) == [tmp_path / "cores" / "ghost.f"]


def test_the_version_comes_from_pyproject(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cores, "PYPROJECT", tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text('[project]\nversion = "1.2.3"\n')
    assert cores.version() == "1.2.3"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"\[project\] version"):
        cores.version()
