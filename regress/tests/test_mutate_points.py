"""The parameter points a survivor is judged at (regress/mutate/points.py) and the campaign
step that runs it there (at_points.check_points)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from montverif.host import tools
from montverif.host.paths import ROOT
from montverif.models import scalable
from montverif.regress.flow import simulate
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.mutate import (
    at_points,
    engine,
    equivalence,
    meta,
    mutant_run,
    points,
    proofs,
    state,
)
from montverif.regress.mutate import sites as msites
from montverif.regress.regression.lists import load_lists
from montverif.spec.designs import load_design
from montverif.verif.vectors import directed_file


def _list_points(dut: str) -> set[tuple[tuple[str, int], ...]]:
    return {p for tl in load_lists().values() for e in tl.entries if e.dut == dut
            for p in e.params}


@pytest.mark.parametrize("dut", ["mwr2mm", "mwrkmm", "mont_qp", "rsa_core", "mont_lut"])
def test_every_list_point_is_judged_once_at_its_smallest_legal_width(dut: str) -> None:
    design = load_design(dut)
    found = points.campaign_points(dut, design, design.min_n)
    assert found[0] == points.ParamPoint(design.min_n, ())
    smallest = [p for p in found[1:] if points.smallest_n(design, p.params) == p.n]
    values = [points.resolved(design, p.n, dict(p.params)) for p in [found[0], *smallest]]
    assert None not in values and len(set(values)) == len(values)  # one per distinct point
    assert all(p.params in _list_points(dut) for p in found[1:])
    # every list point is there, or resolves to one that is
    for params in _list_points(dut):
        n = points.smallest_n(design, params)
        assert n is not None and points.resolved(design, n, dict(params)) in values
    # the others are wider points of shapes the smallest widths do not build, one each
    wider = [points.shape(design, p.n, p.params) for p in found[1:] if p not in smallest]
    built = {points.shape(design, p.n, p.params) for p in [found[0], *smallest]}
    assert len(set(wider)) == len(wider) and not set(wider) & built


@pytest.mark.parametrize("dut", ["mwr2mm", "mwrkmm", "rsa_core"])
def test_every_shape_the_lists_build_is_judged_at_its_narrowest_point(dut: str) -> None:
    """mwr2mm's ring has e - 2P delay registers (mwrkmm's n_w - 3P): none at the smallest
    legal width of any list point, some at the widths the lists run. Each shape the lists'
    own builds have (none, one register, a chain) is judged, at the narrowest point of the
    lists' parameters that builds it."""
    design = load_design(dut)
    found = points.campaign_points(dut, design, design.min_n)
    judged = {points.shape(design, p.n, p.params) for p in found}
    listed = {(e.widths, p) for tl in load_lists().values() for e in tl.entries
              if e.dut == dut for p in e.params}
    built = {points.shape(design, n, p) for widths, p in listed for n in widths} - {None}
    assert len(built) > 1 and built <= judged
    assert judged == built | {points.shape(design, p.n, p.params) for p in found
                              if points.smallest_n(design, p.params) == p.n}
    smallest = {p for p in found if points.smallest_n(design, p.params) == p.n}
    for p in set(found[1:]) - smallest:  # no narrower point of the lists builds its shape
        s = points.shape(design, p.n, p.params)
        for widths, params in listed:
            if s in {points.shape(design, n, params) for n in widths}:
                start = points.smallest_n(design, params) or p.n
                assert all(points.shape(design, n, params) != s
                           for n in range(start, p.n)), (p, s, params)


def test_the_ring_shape_follows_the_rtl_s_delay_count() -> None:
    """The shape is what scalable_frame.sv computes: Dly = Words - PeLat * Pes registers."""
    assert scalable.mwr2mm_shape(24, W=8, P=2) == (0,)   # e = 4 = 2P
    assert scalable.mwr2mm_shape(32, W=8, P=2) == (1,)   # e = 5
    assert scalable.mwr2mm_shape(32, W=8, P=1) == (2,)   # e = 5, 3 registers
    assert scalable.mwrkmm_shape(32, V=8, P=2) == (0,)   # n_w = 6 = 3P
    assert scalable.mwrkmm_shape(32, V=8, P=1, PeLatency=4) == (2,)
    text = (ROOT / "hdl" / "scalable" / "scalable_frame.sv").read_text()
    assert "Dly      = Words - PeLat * Pes;" in text


def test_a_design_without_parameters_has_one_point() -> None:
    design = load_design("mont_lut")
    assert points.campaign_points("mont_lut", design, 8) == [points.ParamPoint(8, ())]


def test_a_site_in_a_generate_block_is_judged_where_that_block_is_built() -> None:
    """rsa_mont_mult.sv's g_mwrkmm branch exists only with Mult = mwrkmm: its mutants are
    judged at the lists' mwrkmm points, never at a point with another multiplier."""
    design = load_design("rsa_core")
    sites = msites.all_sites(design)
    mwrkmm = design.resolve({"Mult": "mwrkmm"})["Mult"]
    site = next(s for s in sites if s.file.endswith("rsa_mont_mult.sv")
                and msites.block_selector(design, s) == ("Mult", mwrkmm))
    selector = msites.block_selector(design, site)
    found = points.campaign_points("rsa_core", design, 8, msites.mutant_params(design, site),
                                   selector)
    assert len(found) > 1
    assert all(dict(p.params)["Mult"] == mwrkmm for p in found)
    unbuilt = [p for p in _list_points("rsa_core") if dict(p).get("Mult", 0) != mwrkmm]
    assert unbuilt and not {p.params for p in found} & set(unbuilt)
    # a site outside every generate block is judged with every multiplier
    plain = next(s for s in sites if s.file.endswith("rsa_core.sv"))
    assert msites.block_selector(design, plain) is None
    mults = {dict(p.params).get("Mult", 0)
             for p in points.campaign_points("rsa_core", design, 8)}
    assert len(mults) == len(design.parameters["Mult"].choices)


@pytest.mark.sim
@pytest.mark.nightly(seconds=75)  # the point choice's own tests stand in
def test_a_survivor_of_the_default_point_is_killed_at_another_point(tmp_path: Path) -> None:
    """mwr2mm's PE job counter stepping by 0 (`jobs_q + 1'b0`) changes nothing with the
    default single PE (the campaign's own point) and was once recorded as equivalent; with
    several PEs the chain uses the counter and the mutant fails there. (Its vectors on
    Verilator, the default equivalence simulator, kill it at the campaign's own point
    already: the PE's assertion PeLiveInJob_A fires, which Icarus does not evaluate.)"""
    design = load_design("mwr2mm")
    sites = msites.all_sites(design)
    i = next(i for i, s in enumerate(sites)
             if s.description.endswith("'jobs_q + 1'b1;' -> 'jobs_q + 1'b0;'"))
    opts = state.CampaignOptions(n=8, txns=10, timeout_s=300, sim="icarus", eq_bits=2, eq_wide=4,
                          use_proofs=False, point_budget_s=8)  # the cheap points only
    on_verilator = engine.run_campaign("mwr2mm", design, [msites.Mutant(i, sites[i])],
                                       len(sites), replace(opts, points=False),
                                       tmp_path / "verilator", lambda _line: None)
    (m,) = on_verilator.mutants
    assert m.status == "killed", m.reason
    assert m.reason.startswith("on verilator at N=8: ASSERT FAILED PeLiveInJob_A"), m.reason
    opts = replace(opts, eq_sim="icarus")  # the points' part of the story, on Icarus alone
    lines: list[str] = []
    one = engine.run_campaign("mwr2mm", design, [msites.Mutant(i, sites[i])], len(sites),
                              state.CampaignOptions(**{**vars(opts), "points": False}),
                              tmp_path / "one", lines.append)
    assert one.mutants[0].status == "equivalent", one.mutants[0].reason
    # the progress line of its equivalence check gives the verdict it reached
    (said,) = [line for line in lines if line.startswith(f"  mut{i:04d} ") and "vectors" in line]
    assert said.startswith(f"  mut{i:04d} equivalent: equivalent ("), said
    both = engine.run_campaign("mwr2mm", design, [msites.Mutant(i, sites[i])], len(sites),
                               opts, tmp_path / "all", lambda _line: None)
    (m,) = both.mutants
    assert m.status == "killed" and m.reason.startswith("at N="), m.reason
    assert "P=" in m.reason.split(":", 1)[0]
    # each point's run has a folder of its own: the log the verdict points to is the run at
    # the killing point, and the run at the campaign's own point (passed) is still there
    killed_at = json.loads((Path(m.log_dir) / "outcome.json").read_text())
    assert not killed_at["passed"] and dict(killed_at["params"]).get("P", 1) > 1, killed_at
    own = json.loads((tmp_path / "all" / "runs" / f"mut{i:04d}" / "outcome.json").read_text())
    assert own["passed"] and Path(m.log_dir).name != f"mut{i:04d}", own


@pytest.mark.sim
@pytest.mark.nightly(seconds=35)
def test_the_ring_delay_mutants_are_killed_where_the_lists_build_a_delay_line(
        tmp_path: Path) -> None:
    """mwr2mm's ring delay line (scalable_ring.sv: Depth = Dly = e - 2P registers) does not
    exist at the smallest legal width of any list point, so a mutant of its depth passes
    there; the campaign also judges at the narrowest point of each shape the lists build:
    `Dly > 0 -> Dly > 1` differs only with one delay register, `? Dly : 0 -> ? 0 : Dly`
    with any. Each is killed at such a point and passes at every point without a delay."""
    design = load_design("mwr2mm")
    sites = msites.all_sites(design)
    ids = {next(i for i, s in enumerate(sites) if s.file.endswith("scalable_ring.sv")
                and s.description.endswith(change)): shapes
           for change, shapes in (("'Dly > 0' -> 'Dly > 1'", {(1,)}),
                                  ("'(Dly > 0) ? Dly : 0' -> '(Dly > 0) ? 0 : Dly'",
                                   {(1,), (2,)}))}
    opts = state.CampaignOptions(n=8, txns=10, timeout_s=300, sim="icarus", eq_sim="icarus",
                          eq_bits=2, eq_wide=4, use_proofs=False, point_budget_s=8)
    lines: list[str] = []
    done = engine.run_campaign("mwr2mm", design, [msites.Mutant(i, sites[i]) for i in ids],
                               len(sites), opts, tmp_path, lines.append)
    judged = {p.label: p for p in points.campaign_points("mwr2mm", design, 8)}
    for m in done.mutants:
        assert m.status == "killed" and m.reason.startswith("at N="), (m.id, m.reason)
        at = judged[m.reason[3:].split(":", 1)[0]]
        assert points.shape(design, at.n, at.params) in ids[m.id], m.reason
        ran = [line.split(" at ", 1)[1].rsplit(": ", 1) for line in lines
               if line.startswith(f"  mut{m.id:04d} at ")]
        assert ran and all(verdict == "passed" for label, verdict in ran
                           if points.shape(design, judged[label].n,
                                           judged[label].params) == (0,)), ran


def _unlined(description: str) -> str:
    """A site's description without its line number: `file.sv: 'a' -> 'b'`."""
    file, _line, change = description.split(":", 2)
    return f"{file}:{change}"


@pytest.mark.sim
@pytest.mark.nightly(seconds=40)
def test_rsa_core_s_directed_vectors_kill_the_mutants_they_name(tmp_path: Path) -> None:
    """Each of rsa_core's directed vectors (verif/directed/rsa_core.json, CornerTest replays
    them) is the input an SBY check told one mutant apart with at N = 4: a change to the
    variable-time ladder that the constant-time point cannot see (`params` ConstTime = 0),
    or a generate condition that builds another multiplier at Mult = 6. Replayed at N = 8
    with the entry's `params`, the vector fails the mutant and passes the original, and no
    such mutant stays recorded as equivalent."""
    design = load_design("rsa_core")
    sites = msites.all_sites(design)
    path = directed_file("rsa_core")
    assert path is not None
    entries = json.loads(path.read_text())["vectors"]
    assert entries and all("kills" in e and e.get("params") for e in entries)
    recorded = proofs.load()

    def replay(vectors: Path, params: dict[str, int], overlay: str, name: str) -> Outcome:
        run = RunSpec(BuildSpec("rsa_core", 8, 32, "icarus", 0, False,
                                params=tuple(sorted(params.items())), overlay=overlay),
                      seed=1, txns=1, vectors=str(vectors), tests=("VectorTest",),
                      timeout_s=300)
        return execute(run, tmp_path / "runs" / name)

    for k, entry in enumerate(entries):
        # the site by its file and change (its line moves with any edit above it)
        (site,) = [s for s in sites if _unlined(s.description) == _unlined(entry["kills"])]
        assert proofs.site_key(site) not in recorded, entry["kills"]
        overlay = tmp_path / f"mut{k}"
        overlay.mkdir()
        (overlay / Path(site.file).name).write_text(site.apply((ROOT / site.file).read_text()))
        one = tmp_path / f"v{k}.json"
        one.write_text(json.dumps({"vectors": [entry]}))
        original = replay(one, entry["params"], "", f"orig{k}")
        assert original.passed, (entry["kills"], original.first_error)
        outcome = replay(one, entry["params"], str(overlay), f"mut{k}")
        assert not outcome.passed, entry["kills"]
        assert outcome.first_error.startswith(("MISMATCH", "Error: watchdog")), \
            outcome.first_error


@pytest.mark.sim
def test_a_mutant_whose_elaboration_never_ends_is_stillborn_within_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mont_dual_mul.sv's constant function with `while (r > 1)` never ends (r = 2 stays 2):
    Icarus elaborates it for ever (71 minutes of a nightly before it was stopped by hand).
    The mutant's build is stopped at the elaboration limit, with the compiler it started,
    and the mutant is stillborn, saying why; the original builds as before."""
    design = load_design("mont_dual")
    sites = msites.all_sites(design)
    i = next(i for i, s in enumerate(sites) if s.file.endswith("mont_dual_mul.sv")
             and s.description.endswith("'r > 2' -> 'r > 1'"))
    monkeypatch.setattr(meta, "ELABORATION_LIMIT_S", 5.0)
    groups: list[int] = []  # the process groups the elaborations started

    class Recorded(subprocess.Popen):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            groups.append(self.pid)

    monkeypatch.setattr(meta.subprocess, "Popen", Recorded)
    opts = state.CampaignOptions(n=design.min_n, txns=2, timeout_s=300, sim="icarus")
    c = state.Campaign("mont_dual", design, opts, tmp_path, len(sites), [])
    done: list[msites.Mutant] = []  # in a thread of its own: a build without end fails here
    worker = threading.Thread(target=lambda: done.append(
        mutant_run.run_mutant(msites.Mutant(i, sites[i]), c)), daemon=True)
    worker.start()
    worker.join(120)
    assert done, "the mutant's build did not end within 120 s"
    (m,) = done
    assert m.status == "stillborn", (m.status, m.reason)
    assert "elaboration did not end within 5 s" in m.reason and m.wall_s < 30, m.reason
    started = list(groups)  # (pgrep's own runs are recorded too)
    assert started
    found = [pid for g in started for pid in subprocess.run(
        ["pgrep", "-g", str(g)], capture_output=True, text=True, check=False).stdout.split()]
    left = [pid for pid in found if _state(pid) not in ("Z", "")]  # a zombie has ended
    assert not left, f"processes of the elaboration left running: {left}"
    original = mutant_run.smoke_run("mont_dual", opts).build
    mutant_run.build_mutant(c, original, tmp_path / "original-build.log")  # ends, no error


def _state(pid: str) -> str:
    """A process's state letter (R, S, Z, ...), "" when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def _fake_runs(monkeypatch: pytest.MonkeyPatch,
               execute_: Callable[..., Outcome]) -> list[list[str]]:
    """Every run of the engine through execute_ (single, batched, equivalence); the
    batches' run folders, as the engine hands them to run_batched."""
    batches: list[list[str]] = []

    def batched(todo: list[tuple[RunSpec, Path]], workers: int) -> list[Outcome]:
        batches.append([log_dir.name for _, log_dir in todo])
        return [execute_(run, log_dir) for run, log_dir in todo]

    monkeypatch.setattr(simulate, "execute", execute_)
    monkeypatch.setattr(at_points, "run_batched", batched)
    monkeypatch.setattr(equivalence, "run_batched", batched)
    monkeypatch.setattr(mutant_run, "eq_run",
                        lambda c, run, name: execute_(run, c.out / "runs" / name))
    return batches


def _csa_campaign(tmp_path: Path, sites: list[msites.Site], guarded: list[msites.Site]
                  ) -> tuple[list[msites.Mutant], state.Campaign]:
    """An Icarus campaign of mont_csa at N = 8 whose survivors are `guarded`."""
    survivors = [msites.Mutant(sites.index(s), s, "survived") for s in guarded]
    return survivors, state.Campaign(
        "mont_csa", load_design("mont_csa"),
        state.CampaignOptions(n=8, sim="icarus", eq_bits=2, eq_wide=2, use_proofs=False),
        tmp_path, len(sites), survivors)


def test_survivors_at_another_point_share_one_model_built_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No simulator: two run-time-selectable survivors of an Icarus campaign run their smoke
    tests at another point in one shared build on Verilator, each selecting itself; the one
    that fails there is killed, and the equivalence phase reuses that point's model (built
    once) for the other."""
    design = load_design("mont_csa")
    sites = msites.all_sites(design)
    guarded = [s for s in sites
               if not isinstance(meta.guard((ROOT / s.file).read_text(), s), str)][:2]
    other = points.ParamPoint(16, ())
    monkeypatch.setattr(at_points, "mutant_points",
                        lambda c, m: [points.ParamPoint(8, ()), other])
    monkeypatch.setattr(at_points, "simulable", lambda c, p: True)
    built: list[BuildSpec] = []
    monkeypatch.setattr(mutant_run, "build_mutant", lambda c, b, log: built.append(b))
    runs: dict[str, RunSpec] = {}

    def outcome(run: RunSpec, folder: Path, passed: bool, error: str = "") -> Outcome:
        runs[folder.name] = run
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "txns.jsonl").write_text(json.dumps({"op": 0, "p": "1"}) + "\n")
        return Outcome(run, passed, folder, tests=5, first_error=error)

    def execute_(run: RunSpec, log_dir: Path, quiet: bool = False) -> Outcome:
        killed = run.mutant == sites.index(guarded[1])
        return outcome(run, log_dir, not killed, "MISMATCH op 0" if killed else "")

    batches = _fake_runs(monkeypatch, execute_)
    survivors, c = _csa_campaign(tmp_path, sites, guarded)
    at_points.check_points(c, survivors, lambda _l: None)
    first, second = survivors
    assert second.status == "killed" and second.reason == "at N=16: MISMATCH op 0"
    assert c.passed_at[first.id] == [other]
    model = runs[f"mut{first.id:04d}-n16"]
    assert model.build.sim == "verilator" and model.build.overlay.endswith("meta-eq-n16")
    assert model.mutant == first.id
    assert runs["meta-eq-n16-points-original"].mutant is None
    assert batches == [[f"mut{m.id:04d}-n16" for m in survivors]]  # one batch of both
    assert [b.overlay.rsplit("/", 1)[-1] for b in built] == ["meta-eq-n16"]
    equivalence.check_equivalence(c, [first], lambda _l: None)
    assert first.status == "equivalent", first.reason
    assert runs[f"mut{first.id:04d}-eq-n16"].build == model.build  # the same model, not rebuilt
    assert batches[-1] == [f"mut{first.id:04d}-eq-n16"]
    assert [b.overlay.rsplit("/", 1)[-1] for b in built] == ["meta-eq-n16",
                                                             f"mut{first.id:04d}"]


def test_a_member_that_breaks_the_shared_model_is_built_on_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No simulator: the shared build at another point fails to build with an error on the
    line of one of its three survivors (a change that is legal at the campaign's point, an
    out-of-order part-select at this one); it is built again without that survivor, which
    gets a build of its own there, and the other two run in the model."""
    design = load_design("mont_csa")
    sites = msites.all_sites(design)
    guarded: list[msites.Site] = []
    for s in sites:
        if not isinstance(meta.guard((ROOT / s.file).read_text(), s), str) and \
                all(s.line != g.line for g in guarded):
            guarded.append(s)
    guarded = guarded[:3]
    other = points.ParamPoint(16, ())
    monkeypatch.setattr(at_points, "mutant_points", lambda c, m: [points.ParamPoint(8, ()), other])
    monkeypatch.setattr(at_points, "simulable", lambda c, p: True)
    builds: list[str] = []

    def build(c: state.Campaign, b: BuildSpec, log: Path) -> None:
        builds.append(Path(b.overlay).name)
        text = (Path(b.overlay) / "mont_csa.sv").read_text() if "meta" in b.overlay else ""
        if f"mont_csa_top.mv_mut_sel == {sites.index(guarded[1])})" in text:
            raise tools.ToolError(f"build of x failed: {b.overlay}/mont_csa.sv:"
                                  f"{guarded[1].line}: error: part select s[0:1] is out of order.")

    def execute_(run: RunSpec, log_dir: Path, quiet: bool = False) -> Outcome:
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / "txns.jsonl").write_text(json.dumps({"op": 0, "p": "1"}) + "\n")
        return Outcome(run, True, log_dir, tests=5)

    monkeypatch.setattr(mutant_run, "build_mutant", build)
    _fake_runs(monkeypatch, execute_)
    survivors, c = _csa_campaign(tmp_path, sites, guarded)
    lines: list[str] = []
    at_points.check_points(c, survivors, lines.append)
    broken = survivors[1]
    assert builds == ["meta-eq-n16", "meta-eq-n16", f"mut{broken.id:04d}"]
    assert c.shared_builds[other][1] == {survivors[0].id, survivors[2].id}
    assert any(f"failed on the line of mut{broken.id:04d}" in line for line in lines)
    assert all(m.status == "survived" and c.passed_at[m.id] == [other] for m in survivors)
