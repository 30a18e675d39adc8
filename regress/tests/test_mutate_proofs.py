"""Recorded equivalence proofs (regress/mutate/proofs.py): accepted from a campaign folder,
used while the file is unchanged, stale after any edit, refused when the sources moved."""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.regress.cli import mutate as mutate_cli
from montverif.regress.mutate import equivalence, mutant_run, proofs, prove, renew, state
from montverif.regress.mutate import sites as msites
from montverif.spec.designs import load_design


def _campaign(folder: Path, dut: str, ids: list[int], status: str = "equivalent",
              points: list[str] | None = None) -> None:
    sites = msites.all_sites(load_design(dut))
    folder.mkdir(parents=True)
    recs = [{"id": i, "change": sites[i].description, "status": status,
             "reason": "equivalent (exhaustive at N=8; 7456 vectors)"}
            | ({} if points is None else {"points": points}) for i in ids]
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
    design = load_design("mont_lut")
    sites, domain = msites.all_sites(design), proofs.domain_text(design)
    recorded = proofs.load()
    assert proofs.lookup(sites[3], recorded, ["N=8"], "N=8", domain)
    assert proofs.lookup(sites[7], recorded, ["N=8"], "N=8", domain)
    assert proofs.lookup(sites[9], recorded, ["N=8"], "N=8", domain) is None
    # an edit of the file (another hash) makes its proofs stale
    raw = json.loads(proof_file.read_text())
    raw["proofs"][0]["sha256"] = "0" * 64
    proof_file.write_text(json.dumps(raw))
    recorded = proofs.load()
    assert sum(proofs.lookup(sites[i], recorded, ["N=8"], "N=8", domain) is not None
               for i in (3, 7)) == 1
    assert proofs.stale_reason(raw["proofs"][0]) == "the file changed"
    # so does a wider operand domain: a proof over X < M says nothing of X >= M
    assert proofs.lookup(sites[3] if raw["proofs"][0]["start"] != sites[3].start else sites[7],
                         recorded, ["N=8"], "N=8", "X=below_m,Y=below_m") is None
    raw["proofs"][1]["domain"] = "X=below_m,Y=below_m"
    assert proofs.stale_reason(raw["proofs"][1]) == "proved over another operand domain"
    proof_file.write_text(json.dumps(raw))
    assert proofs.accept([tmp_path / "c1"]) == (2, 0)  # proved again over the domain: kept


def test_an_accepted_mutant_keeps_what_sby_proved_of_it(tmp_path: Path,
                                                      proof_file: Path) -> None:
    """A campaign run with --prove: its proved mutants are recorded with SBY's text
    (`formal`: they count in the proved score), its simulated ones without."""
    _campaign(tmp_path / "c1", "mont_lut", [3, 7])
    raw = json.loads((tmp_path / "c1" / "mutants.json").read_text())
    sby = ("proved equivalent by SBY, under any loader stimulus and operands, on every "
           "output and observed register, at N=4 (16 cycles, 3 s)")
    raw["mutants"][0] |= {"proof": prove.PROVED, "reason": f"equivalent (...); {sby}"}
    raw["mutants"][1] |= {"proof": "simulated",
                          "reason": "equivalent (...); not proved: at N=6: SBY ended TIMEOUT"}
    (tmp_path / "c1" / "mutants.json").write_text(json.dumps(raw))
    assert proofs.accept([tmp_path / "c1"]) == (2, 0)
    by_start = {p["start"]: p for p in json.loads(proof_file.read_text())["proofs"]}
    sites = msites.all_sites(load_design("mont_lut"))
    assert by_start[sites[3].start]["formal"] == sby
    assert "formal" not in by_start[sites[7].start]


def test_a_proof_holds_only_at_the_parameter_points_it_was_shown_at(tmp_path: Path,
                                                                     proof_file: Path) -> None:
    """A proof recorded at one point does not cover a campaign that needs more points; one
    recorded at several covers any subset of them; a record without points was made at the
    campaign's own point only."""
    _campaign(tmp_path / "c1", "mwr2mm", [3], points=["N=8", "N=24, P=2, W=8"])
    _campaign(tmp_path / "c2", "mwr2mm", [4])  # recorded before points existed
    assert proofs.accept([tmp_path / "c1", tmp_path / "c2"]) == (2, 0)
    design = load_design("mwr2mm")
    sites, domain = msites.all_sites(design), proofs.domain_text(design)
    recorded = proofs.load()
    both = ["N=8", "N=24, P=2, W=8"]
    assert proofs.lookup(sites[3], recorded, both, "N=8", domain)
    assert proofs.lookup(sites[3], recorded, ["N=8"], "N=8", domain)
    assert proofs.lookup(sites[3], recorded, [*both, "N=28, P=4, W=4"], "N=8", domain) is None
    assert proofs.lookup(sites[4], recorded, ["N=8"], "N=8", domain)
    assert proofs.lookup(sites[4], recorded, both, "N=8", domain) is None
    # a campaign at more points replaces the narrower record; the same points again add none
    _campaign(tmp_path / "c3", "mwr2mm", [4], points=both)
    assert proofs.accept([tmp_path / "c3"]) == (1, 0)
    assert proofs.accept([tmp_path / "c3"]) == (0, 1)
    assert proofs.lookup(sites[4], proofs.load(), both, "N=8", domain)


def test_a_survivor_with_a_recorded_proof_is_not_simulated(tmp_path: Path, proof_file: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3])
    proofs.accept([tmp_path / "c1"])
    design = load_design("mont_lut")
    sites = msites.all_sites(design)
    (tmp_path / "out").mkdir()
    c = state.Campaign("mont_lut", design, state.CampaignOptions(n=8), tmp_path / "out", len(sites),
                        [])
    m = msites.Mutant(3, sites[3], "survived")
    monkeypatch.setattr(mutant_run, "eq_run", lambda *a, **k: pytest.fail("simulated"))
    assert equivalence.take_recorded(c, [m], lambda _line: None) == []
    assert m.status == "equivalent" and m.reason.startswith(proofs.RECORDED)
    assert m.proof == "simulated" and c.extra["recorded_proofs"] == 1
    # a proof SBY backs says so
    raw = json.loads(proof_file.read_text())
    raw["proofs"][0]["formal"] = "proved equivalent by SBY ... at N=4"
    proof_file.write_text(json.dumps(raw))
    m1 = msites.Mutant(3, sites[3], "survived")
    assert equivalence.take_recorded(c, [m1], lambda _line: None) == []
    assert m1.proof == "proved" and m1.reason.endswith("at N=4")
    # --reprove: the proof is ignored and the survivor is simulated again
    c.options.use_proofs = False
    m2 = msites.Mutant(3, sites[3], "survived")
    with pytest.raises(pytest.fail.Exception, match="simulated"):
        equivalence.check_equivalence(c, [m2], lambda _line: None)


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


def _one_offset(dut: str) -> tuple[int, int]:
    """Two of the design's mutants that change the same place (same file and offset) in two
    ways, e.g. `a ^ b` to `a & b` and to `a | b`."""
    sites = msites.all_sites(load_design(dut))
    first: dict[tuple[str, int], int] = {}
    for i, s in enumerate(sites):
        if (s.file, s.start) in first:
            return first[s.file, s.start], i
        first[s.file, s.start] = i
    raise AssertionError(f"{dut} has no two mutants at one offset")


def test_two_mutants_at_one_offset_are_checked_in_folders_of_their_own(
        tmp_path: Path, proof_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`proofs prove` checks each recorded mutant in a folder below OUT; two changes at one
    offset must not share it (SBY's check refuses a folder that is not empty)."""
    a, b = _one_offset("mont_lut")
    sites = msites.all_sites(load_design("mont_lut"))
    folders = {proofs.check_folder(tmp_path, "mont_lut", i, sites[i]) for i in (a, b)}
    assert len(folders) == 2
    # still named by the file and the offset, the mutant id added
    assert all(f.name.startswith(f"{Path(sites[a].file).stem}-{sites[a].start}-mut")
               for f in folders)
    _campaign(tmp_path / "c1", "mont_lut", [a, b])
    assert proofs.accept([tmp_path / "c1"]) == (2, 0)
    seen: dict[Path, str] = {}

    def fake_prove(dut: str, design: object, overlay: Path, folder: Path,
                   timeout_s: int = 900) -> prove.ProofResult:
        if folder.exists() and any(folder.iterdir()):  # as formal_equiv.run refuses it
            return prove.ProofResult(prove.NOT_PROVED, f"{folder} is not empty")
        folder.mkdir(parents=True)
        (folder / "equiv.json").write_text("{}")
        (mutant,) = overlay.iterdir()
        seen[folder.parent] = mutant.read_text()
        return prove.ProofResult(prove.PROVED, "proved equivalent by SBY (stand-in)")

    monkeypatch.setattr(prove, "prove", fake_prove)
    done = proofs.prove_recorded(tmp_path / "out", "mont_lut", proof_file)
    assert [r.status for _, r in done] == [prove.PROVED, prove.PROVED], done
    assert set(seen) == {proofs.check_folder(tmp_path / "out", "mont_lut", i, sites[i])
                         for i in (a, b)}
    text = (ROOT / sites[a].file).read_text()
    assert sorted(seen.values()) == sorted(sites[i].apply(text) for i in (a, b))
    assert all(p.get("formal") for p in proofs.load(proof_file).values())


def _site(dut: str, change: str) -> tuple[int, msites.Site]:
    sites = msites.all_sites(load_design(dut))
    return next((i, s) for i, s in enumerate(sites) if s.description == change)


@pytest.mark.formal
def test_a_non_equivalent_mutant_recorded_as_equivalent_is_rejected(
        tmp_path: Path, proof_file: Path) -> None:
    """Soundness (issue 63): a mutant that changes mont_r2's result (q_i & fault_hit: the
    add-M decision always 0), recorded as equivalent, is told apart by the real SBY check of
    `proofs prove`; its entry goes and the distinguishing input is written as a hole."""
    mid, _ = _site("mont_r2", "mont_r2.sv:53: 'q_i ^ fault_hit' -> 'q_i & fault_hit'")
    _campaign(tmp_path / "c1", "mont_r2", [mid])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)
    done = proofs.prove_recorded(tmp_path / "out", "mont_r2", proof_file, 300)
    assert [r.status for _, r in done] == [prove.DIFFERENT], done
    assert proofs.load(proof_file) == {}
    assert list((tmp_path / "out").rglob("hole.json"))


@pytest.mark.formal
def test_a_proof_of_an_edited_file_counts_only_once_sby_proves_it_again(
        tmp_path: Path, proof_file: Path) -> None:
    """A proof recorded on an older text of mont_r2.sv (here: the current one with a line
    more above the statement, so every offset moved) is stale: a campaign does not use it.
    `proofs renew` finds the statement in the current text, SBY proves the mutant there, and
    only then is the entry current again (renewed, with its formal text). One whose
    statement cannot be located goes."""
    mid, site = _site("mont_r2", "mont_r2.sv:53: 'q_i ^ fault_hit' -> 'q_i | fault_hit'")
    _campaign(tmp_path / "c1", "mont_r2", [mid])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)
    current = (ROOT / site.file).read_text()
    older = "// an older version of this file\n" + current
    old_sha = hashlib.sha256(older.encode()).hexdigest()
    raw = json.loads(proof_file.read_text())
    moved = dict(raw["proofs"][0], sha256=old_sha, start=site.start + len(older) - len(current))
    gone = dict(moved, start=0, original="//", replacement="/")  # no such site in any text
    proof_file.write_text(json.dumps({"proofs": [moved, gone]}))
    design = load_design("mont_r2")
    domain = proofs.domain_text(design)
    assert proofs.lookup(site, proofs.load(proof_file), ["N=8"], "N=8", domain) is None

    def texts(file: str, sha: str) -> str | None:
        return older if (file, sha) == (site.file, old_sha) else None

    done = renew.renew(tmp_path / "out", "mont_r2", proof_file, 300, old_text=texts)
    assert sorted(r.status for _, r in done) == [prove.NOT_PROVED, prove.PROVED], done
    rec = proofs.lookup(site, proofs.load(proof_file), ["N=8"], "N=8", domain)
    assert rec is not None and "proved equivalent by SBY" in str(rec["formal"])
    assert str(rec["renewed"]).startswith(f"from {old_sha[:16]}")
    assert len(proofs.load(proof_file)) == 1 and not proofs.stale_reason(rec)


@pytest.mark.nightly(seconds=20)
@pytest.mark.formal
def test_a_bounded_proof_is_proved_for_all_time_with_bounded(
        tmp_path: Path, proof_file: Path) -> None:
    """A recorded proof whose text says SBY proved it to a bound is left alone by `proofs
    prove`, and checked again with --bounded: mont_r2's reset value of {x_q, acc_q}
    (START reloads them) is then proved for all time at both formal points."""
    mid, site = _site("mont_r2", "mont_r2.sv:63: '} <= '0;' -> '} <= '1;'")
    _campaign(tmp_path / "c1", "mont_r2", [mid])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)
    raw = json.loads(proof_file.read_text())
    bounded = (f"{prove.PROVED_TEXT}, under any loader stimulus and operands, on every "
               "output and observed register, at N=4 (16 cycles, 3 s); N=6 (20 cycles, 9 s)")
    assert not prove.for_all_time(bounded)
    proof_file.write_text(json.dumps({"proofs": [dict(raw["proofs"][0], formal=bounded)]}))
    assert proofs.prove_recorded(tmp_path / "a", "mont_r2", proof_file, 240) == []
    done = proofs.prove_recorded(tmp_path / "b", "mont_r2", proof_file, 240, bounded=True)
    assert [r.status for _, r in done] == [prove.PROVED], done
    design = load_design("mont_r2")
    rec = proofs.lookup(site, proofs.load(proof_file), ["N=8"], "N=8",
                        proofs.domain_text(design))
    assert rec is not None and prove.for_all_time(str(rec["formal"])), rec
    assert str(rec["formal"]).count(prove.ALL_TIME) == len(design.formal_points) == 2
    # proved for all time: --bounded has nothing left to check
    assert proofs.prove_recorded(tmp_path / "c", "mont_r2", proof_file, 240, bounded=True) == []


def test_a_proof_recorded_during_a_long_check_is_kept(
        tmp_path: Path, proof_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`proofs prove` used to write back the whole file it read at its start after each
    check, so a campaign's `accept` in the meantime was lost. Now each result goes into the
    file as it is then, under a lock."""
    _campaign(tmp_path / "c1", "mont_lut", [3])
    _campaign(tmp_path / "c2", "mont_lut", [7])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)

    def check(*_args: object) -> prove.ProofResult:
        assert proofs.accept([tmp_path / "c2"]) == (1, 0)  # another command, meanwhile
        return prove.ProofResult(prove.PROVED, f"{prove.PROVED_TEXT} at N=4 (9 cycles, 1 s)")

    monkeypatch.setattr(proofs, "check", check)
    done = proofs.prove_recorded(tmp_path / "out", "mont_lut", proof_file)
    assert [r.status for _, r in done] == [prove.PROVED]
    recorded = proofs.load(proof_file)
    assert len(recorded) == 2 and sum(bool(r.get("formal")) for r in recorded.values()) == 1


def test_list_says_what_stands_behind_each_proof(
        tmp_path: Path, proof_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3, 7, 9, 11])
    assert proofs.accept([tmp_path / "c1"]) == (4, 0)
    raw = json.loads(proof_file.read_text())
    a, b, c, d = raw["proofs"]
    a["formal"] = f"{prove.PROVED_TEXT}, ... at N=4 ({prove.ALL_TIME} k-induction to 18 " \
                  "cycles with 46 register equalities, 9 s); N=6 (12 cycles, 4 s)"
    b["formal"] = a["formal"].replace("(12 cycles", f"({prove.ALL_TIME} k-induction to 12 " \
                                      "cycles with 46 register equalities")
    d["sha256"] = "0" * 64
    proof_file.write_text(json.dumps(raw))
    assert mutate_cli.proofs_command(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    kinds = {k for line in out[:-1] for k in proofs.KINDS if line[13:].startswith(k)}
    assert kinds == {"bounded", "for all time", "simulated", "stale"}
    assert [line for line in out if line[13:].startswith("stale")][0].endswith(")")  # why
    assert out[-1] == "4 proof(s): 1 for all time, 1 bounded, 1 simulated, 1 stale"
    assert [proofs.kind(r) for r in (a, b, c, d)] == [
        "bounded", "for all time", "simulated", "stale"]


def test_a_failed_write_leaves_the_file_and_no_half_copy(
        tmp_path: Path, proof_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)
    before = proof_file.read_text()

    def full(self: Path, *_args: object, **_kw: object) -> int:
        self.open("w").write(before[:10])  # part written, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError, match="No space"):
        proofs.write(proofs.load(proof_file), proof_file)
    monkeypatch.undo()
    assert proof_file.read_text() == before
    assert not list(proof_file.parent.glob(".*.tmp"))


def test_updates_from_two_threads_at_once_are_all_kept(tmp_path: Path, proof_file: Path) -> None:
    _campaign(tmp_path / "c1", "mont_lut", [3])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)
    (base,) = proofs.load(proof_file).values()

    def add(prefix: str) -> None:
        for i in range(25):
            proofs.update(proof_file, {f"{prefix}{i}": dict(base, start=1000 + i,
                                                            replacement=prefix)})

    threads = [threading.Thread(target=add, args=(p,)) for p in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(proofs.load(proof_file)) == 51
    assert not list(proof_file.parent.glob(".*.tmp"))  # every write replaced the file whole


def test_every_version_of_a_file_in_git_is_found_by_its_hash() -> None:
    """renew.git_text against `git show` at each revision that touched mont_r2.sv: every
    version's text comes back by its SHA-256, and a hash no version has gives None."""
    file = "hdl/mont/mont_r2.sv"
    revs = subprocess.run(["git", "rev-list", "HEAD", "--", file], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.split()
    assert len(revs) >= 2
    for rev in revs:
        data = subprocess.run(["git", "show", f"{rev}:{file}"], cwd=ROOT, check=True,
                              capture_output=True).stdout
        assert renew.git_text(file, hashlib.sha256(data).hexdigest()) == data.decode()
    assert renew.git_text(file, "0" * 64) is None


def test_renew_without_git_history_is_one_line_and_keeps_the_record(
        tmp_path: Path, proof_file: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An installed copy has no history: without it every stale proof would look
    unplaceable and be removed, so `renew` refuses (error, exit 2) and the file is intact."""
    mid, site = _site("mont_r2", "mont_r2.sv:53: 'q_i ^ fault_hit' -> 'q_i | fault_hit'")
    _campaign(tmp_path / "c1", "mont_r2", [mid])
    assert proofs.accept([tmp_path / "c1"]) == (1, 0)
    raw = json.loads(proof_file.read_text())
    raw["proofs"][0]["sha256"] = "1" * 64  # stale: the file changed since
    proof_file.write_text(json.dumps(raw))
    before = proof_file.read_bytes()
    monkeypatch.setattr(renew, "ROOT", tmp_path)
    renew._history.cache_clear()
    try:
        code = mutate_cli.proofs_command(["renew", "--dut", "mont_r2", "--proofs",
                                          str(proof_file), "--out", str(tmp_path / "out")])
    finally:
        renew._history.cache_clear()
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "git" in err and proof_file.read_bytes() == before
