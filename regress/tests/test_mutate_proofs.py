"""Recorded equivalence proofs (regress/mutate/proofs.py): accepted from a campaign folder,
used while the file is unchanged, stale after any edit, refused when the sources moved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montverif.regress.cli import mutate as mutate_cli
from montverif.regress.mutate import engine, proofs
from montverif.regress.mutate import sites as msites
from montverif.spec.designs import load_design


def _campaign(folder: Path, dut: str, ids: list[int], status: str = "equivalent") -> None:
    sites = msites.all_sites(load_design(dut))
    folder.mkdir(parents=True)
    recs = [{"id": i, "change": sites[i].description, "status": status,
             "reason": "equivalent (exhaustive at N=8; 7456 vectors)"} for i in ids]
    (folder / "mutants.json").write_text(json.dumps({"summary": {"dut": dut, "git": "abc"},
                                                     "mutants": recs}))


@pytest.fixture
def proof_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "equivalents.json"
    monkeypatch.setattr(proofs, "PROOFS_FILE", path)
    return path


def test_accepted_proofs_are_used_while_the_file_is_unchanged(tmp_path: Path,
                                                              proof_file: Path) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3, 7])
    _campaign(tmp_path / "c2", "mont_lut", [9], status="survived")  # not a proof
    assert proofs.accept([tmp_path / "c1", tmp_path / "c2"]) == (2, 0)
    assert proofs.accept([tmp_path / "c1"]) == (0, 2)
    sites = msites.all_sites(load_design("mont_lut"))
    recorded = proofs.load()
    assert proofs.lookup(sites[3], recorded) and proofs.lookup(sites[7], recorded)
    assert proofs.lookup(sites[9], recorded) is None
    # an edit of the file (another hash) makes its proofs stale
    raw = json.loads(proof_file.read_text())
    raw["proofs"][0]["sha256"] = "0" * 64
    proof_file.write_text(json.dumps(raw))
    recorded = proofs.load()
    assert sum(proofs.lookup(sites[i], recorded) is not None for i in (3, 7)) == 1


def test_a_survivor_with_a_recorded_proof_is_not_simulated(tmp_path: Path, proof_file: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3])
    proofs.accept([tmp_path / "c1"])
    design = load_design("mont_lut")
    sites = msites.all_sites(design)
    (tmp_path / "out").mkdir()
    c = engine.Campaign("mont_lut", design, engine.Options(n=8), tmp_path / "out", len(sites),
                        [])
    m = msites.Mutant(3, sites[3], "survived")
    monkeypatch.setattr(engine, "_eq_run", lambda *a, **k: pytest.fail("simulated"))
    engine.check_equivalence(c, [m], lambda _line: None)
    assert m.status == "equivalent" and m.reason.startswith(proofs.RECORDED)
    assert c.extra["recorded_proofs"] == 1
    # --reprove: the proof is ignored and the survivor is simulated again
    c.options.use_proofs = False
    m2 = msites.Mutant(3, sites[3], "survived")
    with pytest.raises(pytest.fail.Exception, match="simulated"):
        engine.check_equivalence(c, [m2], lambda _line: None)


def test_moved_sources_and_bad_folders_are_one_line_errors(tmp_path: Path, proof_file: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3])
    data = json.loads((tmp_path / "c1" / "mutants.json").read_text())
    data["mutants"][0]["change"] = "mont_lut.sv:1: 'a' -> 'b'"
    (tmp_path / "c1" / "mutants.json").write_text(json.dumps(data))
    assert mutate_cli.proofs_command(["accept", str(tmp_path / "c1")]) == 2
    assert "sources changed" in capsys.readouterr().err
    assert mutate_cli.proofs_command(["accept", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    with pytest.raises(SystemExit) as usage:
        mutate_cli.proofs_command([])
    assert usage.value.code == 2 and capsys.readouterr().err.startswith("error: ")
