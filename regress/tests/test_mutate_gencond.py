"""Mutants of a generate `if`'s condition (regress/mutate/gencond.py): which sites get a probe,
what the probe finds on Icarus at mwrkmm's parameter points (the original's design where the
mutated parameter check agrees, a difference where it fires), and that a campaign then
neither builds nor runs such a mutant where its design is the original's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from montverif.host import paths
from montverif.regress.flow import simulate as spec_simulate
from montverif.regress.flow import spec
from montverif.regress.mutate import at_points, equivalence, gencond, mutant_run, state
from montverif.regress.mutate import sites as msites
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.mutate.svmut import Site, candidates
from montverif.spec.designs import load_design

DEMO = """\
module demo #(parameter int W = 4, parameter int V = 8) (
  input  logic clk_i,
  output logic [W-1:0] y_o
);
  localparam int K = V - W;
  if (W < 1 || W > V) begin : g_bad_w
    initial $fatal(1, "bad W");
  end
  if (K == 0) begin : g_eq
    assign y_o = '0;
  end else if (K > 2) begin : g_big
    assign y_o = '1;
  end else begin : g_small
    assign y_o = W'(K);
  end
  for (genvar g = 0; g < 2; g++) begin : g_l
    if (g < K) begin : g_in
    end
  end
  always_comb if (W > 2) begin end
endmodule
"""


def _site(text: str, line_text: str, change: str) -> Site:
    line = text[:text.index(line_text)].count("\n") + 1
    return next(s for s in candidates("demo.sv", text) if s.line == line
                and s.description.endswith(change))


def test_probes_go_before_a_generate_if_and_keep_the_lines() -> None:
    site = _site(DEMO, "if (W < 1 ||", "'W > V' -> 'W >= V'")
    probe = gencond.probe_source(DEMO, site)
    assert probe is not None and probe.count("\n") == DEMO.count("\n")
    line = probe.splitlines()[5]
    assert line.startswith('  initial $display("MV_PROBE %0d", ((!(W < 1 || W > V)) != '
                           "(!(W < 1 || W >= V)))); if (W < 1 || W > V) begin : g_bad_w")
    inverted = gencond.probe_source(DEMO, _site(DEMO, "if (K == 0)", "-> 'if (!(K == 0))'"))
    assert inverted is not None and "((!(K == 0)) != (!(!(K == 0))))" in inverted
    in_loop = gencond.probe_source(DEMO, _site(DEMO, "if (g < K)", "'g < K' -> 'g <= K'"))
    assert in_loop is not None and "initial $display(\"MV_PROBE %0d\", ((!(g < K))" in in_loop
    # no probe: an else-if (nothing may go between else and if), a loop header, code in
    # an always block, the generate block's body
    assert gencond.probe_source(DEMO, _site(DEMO, "else if (K > 2)", "'K > 2' -> 'K >= 2'")) \
        is None
    assert gencond.probe_source(DEMO, _site(DEMO, "for (genvar g", "'g < 2' -> 'g <= 2'")) \
        is None
    assert gencond.probe_source(DEMO, _site(DEMO, "always_comb if (W > 2)",
                                            "'W > 2' -> 'W >= 2'")) is None
    assert gencond.probe_source(DEMO, _site(DEMO, "assign y_o = '1", "'y_o = '0;'")) is None


def _mwrkmm(tmp_path: Path) -> tuple[state.Campaign, list[Site]]:
    design = load_design("mwrkmm")
    sites = msites.all_sites(design)
    camp = state.Campaign("mwrkmm", design, state.CampaignOptions(n=8, sim="icarus"), tmp_path,
                           len(sites), [])
    return camp, sites


def _by_change(sites: list[Site], ending: str) -> msites.Mutant:
    i = next(i for i, s in enumerate(sites) if s.file.endswith("/mwrkmm.sv")
             and s.description.endswith(ending))
    return msites.Mutant(i, sites[i], "survived")


LEGAL = ParamPoint(16, (("P", 2), ("V", 4), ("W", 1)))
W_IS_V = ParamPoint(16, (("P", 1), ("V", 16), ("W", 16)))


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog")
def test_the_probe_reads_the_point_from_its_elaboration(tmp_path: Path) -> None:
    camp, sites = _mwrkmm(tmp_path)
    w_ge_v = _by_change(sites, "'W > V' -> 'W >= V'")
    w_lt_0 = _by_change(sites, "'W < 1 ||' -> 'W < 0 ||'")
    assert at_points.same_design(camp, w_ge_v, LEGAL)
    assert not at_points.same_design(camp, w_ge_v, W_IS_V)  # the mutated check fires at W = V
    assert camp.probes[(w_ge_v.id, W_IS_V)].why == "the mutated condition differs there"
    assert at_points.same_design(camp, w_lt_0, LEGAL)
    assert at_points.same_design(camp, w_lt_0, W_IS_V)
    # a mutant of an instance connection or a procedural statement: never probed
    other = next(msites.Mutant(i, s) for i, s in enumerate(sites)
                 if gencond.probe_source((paths.ROOT / s.file).read_text(), s) is None)
    assert not at_points.same_design(camp, other, LEGAL) and (other.id, LEGAL) not in camp.probes
    # a probe that does not compile (here: one more source, broken) says so, and is no
    # verdict
    folder = tmp_path / "mutants" / f"mut{w_lt_0.id:04d}-probe"
    b = spec.BuildSpec("mwrkmm", 16, sim="icarus", overlay=str(folder), params=LEGAL.params)
    (tmp_path / "broken.sv").write_text("module broken; logic x = ; endmodule\n")
    broken = gencond.probe([*b.sources(camp.design), tmp_path / "broken.sv"],
                           b.toplevel(camp.design), b.parameters(camp.design))
    assert broken == gencond.Probe(False, "the probe did not compile")


def test_a_campaign_neither_builds_nor_runs_the_original_s_design(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No simulator: a generate-condition survivor whose probe agrees at every point passes
    the points phase and is equivalent (elaborated) without a build or a run; one whose
    probe differs at a point is built and run there."""
    camp, sites = _mwrkmm(tmp_path)
    agree = _by_change(sites, "'W < 1 ||' -> 'W < 0 ||'")
    fires = _by_change(sites, "'W > V' -> 'W >= V'")
    other = ParamPoint(32, (("P", 2), ("V", 8), ("W", 8)))
    own = equivalence.own_point(camp, agree)
    monkeypatch.setattr(at_points, "mutant_points", lambda c, m: [own, other])
    monkeypatch.setattr(at_points, "simulable", lambda c, p: True)
    for m in (agree, fires):  # as Icarus would find them (the test above)
        for p in (own, other):
            camp.probes[(m.id, p)] = gencond.Probe(m is agree or p == own, "differs")
    built: list[str] = []
    ran: list[str] = []
    monkeypatch.setattr(mutant_run, "build_mutant", lambda c, b, log: built.append(b.overlay))

    def execute(run: spec.RunSpec, log_dir: Path, quiet: bool = False) -> spec.Outcome:
        ran.append(log_dir.name)
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / "txns.jsonl").write_text(json.dumps({"op": 0, "p": "1"}) + "\n")
        mutant = "mut" in log_dir.name
        return spec.Outcome(run, not mutant, log_dir, tests=5, failed=int(mutant),
                            first_error="MISMATCH op 0" if mutant else "")

    monkeypatch.setattr(spec_simulate, "execute", execute)
    monkeypatch.setattr(mutant_run, "eq_run",
                        lambda c, run, name: execute(run, c.out / "runs" / name))
    survivors = [agree, fires]
    camp.mutants = survivors
    at_points.check_points(camp, survivors, lambda _l: None)
    assert agree.status == "survived" and camp.passed_at[agree.id] == [other]
    assert fires.status == "killed" and fires.reason == "at N=32, P=2, V=8, W=8: MISMATCH op 0"
    assert built == [str(tmp_path / "mutants" / f"mut{fires.id:04d}")]
    assert ran == ["original-n32-P2-V8-W8", f"mut{fires.id:04d}-n32-P2-V8-W8"]
    camp.options.use_proofs = False
    equivalence.check_equivalence(camp, [agree], lambda _l: None)
    assert (agree.status, agree.proof) == ("equivalent", "elaborated"), agree.reason
    assert agree.reason.startswith(f"equivalent ({own.text(camp.design)} ({at_points.SAME_DESIGN})")
    assert len(built) == 1 and not any(f"mut{agree.id:04d}" in r for r in ran)
