"""`montverif mutate directed`: a hole an SBY equivalence check found becomes a directed
vector where simulation shows it kills the mutant (regress/mutate/directed.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.regress.cli import mutate as cli
from montverif.regress.mutate import directed, prove
from montverif.regress.mutate.sites import all_sites
from montverif.regress.mutate.svmut import Site
from montverif.spec.designs import load_design
from montverif.verif.vectors import directed_file


def _site(dut: str, kills: str) -> Site:
    (site,) = [s for s in all_sites(load_design(dut))
               if directed.unlined(s.description) == directed.unlined(kills)]
    return site


def _overlay(site: Site, folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / Path(site.file).name).write_text(site.apply((ROOT / site.file).read_text()))
    return folder


def _hole(folder: Path, dut: str, site: Site, n: int, params: dict[str, int],
          vector: dict[str, str]) -> Path:
    """A hole file as `record` writes it, with a chosen input (for the refusals)."""
    folder.mkdir(parents=True)
    path = folder / directed.HOLE
    path.write_text(json.dumps({
        "dut": dut, "file": site.file,
        "sha256": directed._sha(site.file), "start": site.start, "original": site.original,
        "replacement": site.replacement, "kills": site.description, "n": n,
        "params": params, "vector": vector}))
    return path


@pytest.mark.formal
@pytest.mark.sim
@pytest.mark.nightly(seconds=120)  # the directed file's own tests below stand in
def test_a_hole_sby_finds_becomes_the_entry_that_kills_its_mutant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real SBY check tells rsa_core's `e_q == '0` -> `!=` apart at N = 4, ConstTime = 0;
    the command replays the input, sees it kill the mutant at the list's ConstTime = 0 point
    and writes the entry the design's file holds (written by hand before the command): the
    same site and params. Run again where the entry is, it writes nothing."""
    committed = directed_file("rsa_core")
    assert committed is not None
    want = json.loads(committed.read_text())["vectors"][0]
    site = _site("rsa_core", str(want["kills"]))
    overlay = _overlay(site, tmp_path / "mutant")
    result = prove.prove("rsa_core", load_design("rsa_core"), overlay, tmp_path / "check", 300)
    assert result.status == prove.DIFFERENT, result.text
    assert result.point == (4, (("ConstTime", 0),))
    hole = directed.record("rsa_core", site, result)
    assert hole is not None and hole.parent == Path(result.vector).parent

    into = tmp_path / "directed"
    assert cli.main(["directed", str(tmp_path / "check"), "--into", str(into),
                     "--out", str(tmp_path / "work"), "--budget", "20"]) == 0
    out = capsys.readouterr().out
    # killed: a mismatch or, at a point where the mutant never raises done (the lazy core
    # with ConstTime = 0), the watchdog; either way the mutant's run fails
    assert ("kills (MISMATCH" in out or "kills (Error: watchdog" in out) \
        and "1 closed by a directed vector, 0 open" in out
    (entry,) = json.loads((into / "rsa_core.json").read_text())["vectors"]
    assert directed.unlined(str(entry["kills"])) == directed.unlined(str(want["kills"]))
    assert entry["params"] == want["params"] == {"ConstTime": 0}
    assert {k: entry[k] for k in ("msg", "exp", "mod")} == \
        json.loads(Path(result.vector).read_text())["vectors"][0]
    assert "at N=4, ConstTime=0" in str(entry["found"])

    again = tmp_path / "again"
    again.mkdir()
    shutil.copy(committed, again / "rsa_core.json")
    assert cli.main(["directed", str(hole), "--into", str(again),
                     "--out", str(tmp_path / "work2"), "--budget", "20"]) == 0
    assert "0 entries written, 1 already there" in capsys.readouterr().out
    assert (again / "rsa_core.json").read_text() == committed.read_text()


@pytest.mark.sim
def test_an_input_that_kills_nothing_in_simulation_is_not_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """X = 0 leaves S and C at 0, so a mutant of the final addition cannot show: the hole
    stays open (exit 1), the points tried are named, and no file is written."""
    site = _site("mont_lut", "mv_final_sub.sv:32: 's_i + c_i' -> 's_i - c_i'")
    hole = _hole(tmp_path / "h", "mont_lut", site, 4, {}, {"x": "0x0", "y": "0x0", "m": "0xb"})
    into = tmp_path / "directed"
    assert cli.main(["directed", str(hole), "--into", str(into),
                     "--out", str(tmp_path / "work")]) == 1
    out = capsys.readouterr().out
    assert "OPEN: the input kills the mutant at none of the points checked (N=8: the " \
           "mutant passes)" in out
    assert "0 closed by a directed vector, 1 open" in out
    assert not into.exists()


def test_a_hole_whose_file_changed_since_the_check_is_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = _site("mont_lut", "mv_final_sub.sv:32: 's_i + c_i' -> 's_i - c_i'")
    hole = _hole(tmp_path / "h", "mont_lut", site, 4, {}, {"x": "0x3", "y": "0x5", "m": "0xb"})
    raw = json.loads(hole.read_text())
    hole.write_text(json.dumps({**raw, "sha256": "0" * 64}))
    assert cli.main(["directed", str(hole), "--into", str(tmp_path / "d"),
                     "--out", str(tmp_path / "work")]) == 1
    assert "OPEN: stale: hdl/common/mv_final_sub.sv changed since the check" in \
        capsys.readouterr().out


@pytest.mark.parametrize("case", ["no-holes", "not-json", "unknown-design", "budget"])
def test_bad_input_is_one_error_line(tmp_path: Path, case: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    args = [str(folder)]
    if case == "not-json":
        (folder / directed.HOLE).write_text("{")
    elif case == "unknown-design":
        (folder / directed.HOLE).write_text(json.dumps({
            "dut": "nope", "file": "x", "sha256": "", "start": 0, "original": "",
            "replacement": "", "kills": "", "n": 4, "params": {}, "vector": {}}))
    elif case == "budget":
        args += ["--budget", "0"]
    try:
        code: object = cli.main(["directed", *args, "--out", str(tmp_path / "work")])
    except SystemExit as exc:  # the parser's own refusal (--budget's bound)
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
