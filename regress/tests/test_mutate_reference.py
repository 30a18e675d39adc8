"""The original's reference log of a campaign's equivalence check (equivalence._reference): every
vector on the campaign's simulator, or, where that would be slow, every vector on the
equivalence simulator and a first share of them on the campaign's, whose logs must agree;
and the equivalence file interleaved (eqvectors.spread), so that its first share reaches every
kind of vector."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from montverif.regress.flow import spec
from montverif.regress.mutate import equivalence, eqvectors, mutant_run, state
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.regression.diffsim import transactions
from montverif.spec.designs import load_design

OWN = ParamPoint(8, ())


def _camp(tmp_path: Path, **options: Any) -> state.Campaign:
    opts = replace(state.CampaignOptions(n=8, sim="icarus", eq_sim="verilator"), **options)
    return state.Campaign("mont_r2", load_design("mont_r2"), opts, tmp_path, 0, [])


def _file(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "exhaustive-n8-b5.json"
    vecs = [{"x": str(i % 13), "y": "1", "m": "13"} for i in range(count)]
    path.write_text(json.dumps({"idle_reads": True, "vectors": vecs}) + "\n")
    return path


class FakeRuns:
    """mutant_run.eq_run without a simulator: each run's log holds one entry per vector of its
    file, P = X, but `wrong` (a simulator) answers P = X + 1 from the second operation on;
    a run's wall time is `share_s` for a first-share file and 1 s otherwise."""

    def __init__(self, tmp_path: Path, share_s: float, wrong: str = "",
                 failing: str = "") -> None:
        self.tmp_path, self.share_s, self.wrong, self.failing = tmp_path, share_s, wrong, failing
        self.ran: list[tuple[str, str, int]] = []  # (name, simulator, vectors)

    def __call__(self, c: state.Campaign, run: spec.RunSpec, name: str) -> spec.Outcome:
        vecs = json.loads(Path(str(run.vectors)).read_text())["vectors"]
        sim = run.build.sim
        self.ran.append((name, sim, len(vecs)))
        folder = self.tmp_path / "runs" / name
        folder.mkdir(parents=True, exist_ok=True)
        log = [{"op": i, "x": v["x"], "p": str(int(v["x"]) + (sim == self.wrong and i > 0)),
                "start_ns": i} for i, v in enumerate(vecs)]
        (folder / "txns.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
        passed = sim != self.failing
        return spec.Outcome(run, passed, folder, first_error="" if passed else "MISMATCH P",
                            wall_s=self.share_s if "-first" in name else 1.0)


@pytest.mark.parametrize(("share_s", "whole_on"), [(10.0, "icarus"), (20.0, "verilator")])
def test_the_whole_file_runs_where_the_first_share_promises_it_in_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, share_s: float, whole_on: str) -> None:
    """5 vectors, a share of 2: a share taking 10 s promises the 5 in 25 s (within the 30 s
    of ref_full_s): Icarus runs them all; 20 s promises 50 s: Verilator runs them all, and its
    first two operations are Icarus's share's. The reference is the whole run's log."""
    runs = FakeRuns(tmp_path, share_s)
    monkeypatch.setattr(mutant_run, "eq_run", runs)
    c = _camp(tmp_path, ref_share=2)
    ref = equivalence._reference(c, OWN, _file(tmp_path, 5), 5, lambda _line: None)
    assert runs.ran == [("original-exhaustive-n8-first2", "icarus", 2),
                        ("original-exhaustive-n8" + ("-verilator" if whole_on == "verilator"
                                                     else ""), whole_on, 5)]
    assert isinstance(ref, list) and [e["x"] for e in ref] == ["0", "1", "2", "3", "4"]
    assert "start_ns" not in ref[0]  # timing is no part of a reference
    assert c.ref_on_eq_sim == (["N=8"] if whole_on == "verilator" else [])
    first = json.loads((tmp_path / "exhaustive-n8-b5-first2.json").read_text())
    assert first == {"idle_reads": True, "vectors": json.loads(
        _file(tmp_path, 5).read_text())["vectors"][:2]}


@pytest.mark.parametrize("options", [{"sim": "verilator"}, {"ref_share": 5},
                                     {"ref_share": 0}])
def test_one_run_on_the_campaigns_simulator_when_no_share_is_wanted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]) -> None:
    """The same simulator for both, a file no larger than the share, or no share at all:
    the campaign's simulator runs the file once, as it did before the share existed."""
    runs = FakeRuns(tmp_path, 100.0)
    monkeypatch.setattr(mutant_run, "eq_run", runs)
    c = _camp(tmp_path, **options)
    ref = equivalence._reference(c, OWN, _file(tmp_path, 5), 5, lambda _line: None)
    assert runs.ran == [("original-exhaustive-n8", c.options.sim, 5)]
    assert isinstance(ref, list) and len(ref) == 5 and not c.ref_on_eq_sim


def test_simulators_that_disagree_on_the_share_leave_no_reference(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Icarus answers its share's second operation otherwise than Verilator (each run on its
    own passes, say a field no model checks): no reference, the first difference named."""
    runs = FakeRuns(tmp_path, 20.0, wrong="icarus")
    monkeypatch.setattr(mutant_run, "eq_run", runs)
    c = _camp(tmp_path, ref_share=2)
    ref = equivalence._reference(c, OWN, _file(tmp_path, 5), 5, lambda _line: None)
    assert ref == ("not checked: the original's first 2 operations at N=8 differ between "
                   "verilator and icarus: op 1 (x=1): p 1 vs 2")
    assert not c.ref_on_eq_sim


@pytest.mark.parametrize("failing", ["icarus", "verilator"])
def test_a_failing_original_on_either_simulator_leaves_no_reference(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    runs = FakeRuns(tmp_path, 20.0, failing=failing)
    monkeypatch.setattr(mutant_run, "eq_run", runs)
    ref = equivalence._reference(_camp(tmp_path, ref_share=2), OWN, _file(tmp_path, 5), 5,
                            lambda _line: None)
    assert ref == (f"not checked: the original failed its equivalence run at N=8 on {failing} "
                   "(MISMATCH P)")
    assert [sim for _, sim, _ in runs.ran] == (["icarus"] if failing == "icarus"
                                               else ["icarus", "verilator"])


def test_spread_interleaves_in_proportion_and_keeps_each_groups_order() -> None:
    a = [{"g": "a", "i": str(i)} for i in range(8)]
    b = [{"g": "b", "i": str(i)} for i in range(2)]
    out = eqvectors.spread([a, b, []])
    assert sorted(map(str, out)) == sorted(map(str, a + b))  # the same vectors
    assert [v for v in out if v["g"] == "a"] == a and [v for v in out if v["g"] == "b"] == b
    assert [v["g"] for v in out[:5]].count("b") == 1  # half the file: half of each group


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog")
@pytest.mark.parametrize("faulty", ["", "icarus", "verilator"])
def test_a_fault_of_the_original_on_one_simulator_is_caught(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, faulty: str) -> None:
    """mont_r2 at N = 8, real Icarus and Verilator, every vector on Verilator (ref_full_s 0)
    and a first share of 60 on Icarus. Sound, the reference is Verilator's log of every
    vector and Icarus's share agrees with it. With the design's fault built in on one
    simulator only (BuildSpec.fault on that simulator's builds), there is no
    reference: the survivors would stay unjudged, never be judged against a wrong log."""
    design = load_design("mont_r2")
    vector_run = mutant_run.vector_run

    def with_fault(c: state.Campaign, overlay: str, p: ParamPoint, vectors: Path,
                   sim: str = "") -> spec.RunSpec:
        run = vector_run(c, overlay, p, vectors, sim)
        if run.build.sim != faulty:
            return run
        return replace(run, build=replace(run.build, fault=True))

    monkeypatch.setattr(mutant_run, "vector_run", with_fault)
    c = _camp(tmp_path, ref_share=60, ref_full_s=0.0, eq_timeout_s=300)
    vecs = eqvectors.spread([eqvectors.exhaustive_vectors(design, 3),
                             eqvectors.wide_vectors(design, 8, 40, c.options.seed)])
    path = tmp_path / "exhaustive-n8-b3.json"
    path.write_text(json.dumps({"idle_reads": True, "vectors": vecs}) + "\n")
    try:
        ref = equivalence._reference(c, OWN, path, len(vecs), lambda _line: None)
    finally:
        if faulty:
            mutant_run.remove_build(with_fault(c, "", OWN, path, faulty).build.key)
    if not faulty:
        assert isinstance(ref, list) and len(ref) == len(vecs) > 60, ref
        assert c.ref_on_eq_sim == ["N=8"]
        share = transactions(tmp_path / "runs" / "original-exhaustive-n8-first60")
        assert share == ref[:60]
        assert any(int(v["m"]) > 7 for v in vecs[:60])  # the share reaches full-width vectors
    else:
        assert isinstance(ref, str)
        assert ref.startswith("not checked: the original failed its equivalence run at N=8 "
                              f"on {faulty} ("), ref
        assert "MISMATCH" in ref
