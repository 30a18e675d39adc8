"""Mutation flow (regress/mutate/): site generation on SV snippets, mutant selection, the
score, bad input, the build overlay; and with a real simulator, a mutant that must be killed
is killed and a stillborn one is not counted as killed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.host import paths
from montverif.regress.cli import mutate as mutate_cli
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import simulate, spec
from montverif.regress.mutate import at_points, engine, equivalence, mutant_run, state
from montverif.regress.mutate import campaigns as mcampaigns
from montverif.regress.mutate import report as mreport
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate import sites as msites
from montverif.regress.mutate.svmut import KINDS, Site, candidates
from montverif.spec import top
from montverif.spec.designs import load_design

SNIPPET = """\
// a ^ b in a comment, and c + d
module demo #(parameter int N = 4) (input logic [N-1:0] a_i, b_i, output logic [N-1:0] y_o);
  localparam int W = N + 1;  /* e & f in a block comment */
  logic [N-1:0] t_q, u;
  logic [3:0] cnt_q;
  assign u = (a_i ^ b_i) + 4'd2;
  always_ff @(posedge clk_i) begin
    if (cnt_q < 4'd9) t_q <= sel ? a_i : b_i;
    cnt_q <= cnt_q + 1'b1;
    if (a_i == b_i) $display("x + y ^ z");
  end
`ifndef SYNTHESIS
  assign obs = a_i | b_i;
`endif
endmodule
"""


def _sites() -> list[Site]:
    return candidates("hdl/demo.sv", SNIPPET)


def test_every_operator_kind_is_found() -> None:
    assert {s.kind for s in _sites()} == set(KINDS)


def test_comments_strings_declarations_and_simulation_code_are_untouched() -> None:
    protected = [SNIPPET.index(t) for t in ("// a ^ b", "/* e & f", '"x + y ^ z"',
                                            "localparam", "assign obs")]
    ends = [SNIPPET.index("\n", p) for p in protected]
    for s in _sites():
        assert not any(p <= s.start < e for p, e in zip(protected, ends, strict=True)), s
    decl = SNIPPET.index("module demo")
    assert all(s.start > SNIPPET.index(");", decl) for s in _sites())


def test_the_fast_forms_are_untouched_and_what_the_others_build_is_mutated() -> None:
    # mont_dual_mul.sv: a form of its function for Icarus, the tree for everything else
    text = ("module m (input logic [3:0] a_i, b_i, output logic [3:0] y_o);\n"
            "`ifdef MV_FAST_FORMS\n  assign y_o = a_i + b_i;\n`else\n  assign y_o = a_i ^ b_i;\n"
            "`endif\n`ifndef MV_FAST_FORMS\n  assign z = a_i & b_i;\n`else\n"
            "  assign z = a_i | b_i;\n`endif\nendmodule\n")
    mutated = {text[s.start:s.end] for s in candidates("hdl/m.sv", text)}
    assert mutated == {"^", "&"}


def test_each_kind_changes_what_it_says() -> None:
    changed = {(s.kind, s.original, s.replacement) for s in _sites()}
    assert ("bitwise", "^", "&") in changed and ("bitwise", "^", "|") in changed
    assert ("arith", "+", "-") in changed
    assert ("compare", "<", "<=") in changed and ("compare", "==", "!=") in changed
    assert ("invert_if", "(a_i == b_i)", "(!(a_i == b_i))") in changed
    assert ("const_bit", "4'd2", "4'd3") in changed and ("const_bit", "1'b1", "1'b0") in changed
    assert ("ternary_swap", "a_i : b_i", "b_i : a_i") in changed
    assert ("off_by_one", "4'd9", "4'd10") in changed
    # a nonblocking assignment is never mistaken for a comparison
    assert not any(s.kind == "compare" and s.original == "<=" for s in _sites())
    s = next(s for s in _sites() if s.kind == "arith")
    assert s.apply(SNIPPET).count("(a_i ^ b_i) - 4'd2") == 1
    assert s.description == "demo.sv:6: '(a_i ^ b_i) + 4'd2' -> '(a_i ^ b_i) - 4'd2'"


def test_selection_is_deterministic() -> None:
    sites = candidates("hdl/mont/mont_lut.sv", (paths.ROOT / "hdl/mont/mont_lut.sv").read_text())
    first = [m.id for m in msites.select(sites, 12, seed=7)]
    assert first == [m.id for m in msites.select(sites, 12, seed=7)]
    assert first == sorted(first) and len(set(first)) == 12
    assert first != [m.id for m in msites.select(sites, 12, seed=8)]
    assert len(msites.select(sites, 10_000, seed=1)) == len(sites)


def test_only_the_designs_own_rtl_is_mutated() -> None:
    core = [p.name for p in msites.core_sources(load_design("mont_lut"))]
    assert core == ["mont_lut.sv", "mv_final_sub.sv"]  # mv_loop_ctrl.sv ...: owned elsewhere
    owner = [p.name for p in msites.core_sources(load_design("inter_csa"))]
    assert owner == ["inter_csa.sv", "mv_loop_ctrl.sv", "inter_fin.sv"]
    scal = [p.name for p in msites.core_sources(load_design("mwr2mm"))]
    assert "mv_observe.sv" not in scal and "mwr2mm_top.sv" not in scal and scal


def test_ids_pick_mutants(capsys: pytest.CaptureFixture[str]) -> None:
    assert mutate_cli.main(["--dut", "mont_lut", "--ids", "mut0020,8", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:-1]] == ["mut0008", "mut0020"]


def test_score() -> None:
    site = _sites()[0]
    statuses = ["killed"] * 6 + ["survived"] * 2 + ["equivalent"] * 3 + ["stillborn"] * 4
    mutants = [msites.Mutant(i, site, st) for i, st in enumerate(statuses)]
    assert engine.score(mutants) == (6, 2, 0.75)
    assert engine.score([msites.Mutant(0, site, "stillborn")])[2] is None


def test_the_proved_score_counts_an_equivalent_judged_by_simulation_as_a_survivor(
        tmp_path: Path) -> None:
    """Equivalent means a formal verdict (issue 63): an equivalent shown by SBY or by the
    original's own design leaves the proved score, one judged by simulation counts there as a
    survivor; the terminal table, mutate.md, mutants.json and the regression's record carry
    both scores."""
    site = _sites()[0]
    verdicts = ([("killed", "")] * 6 + [("survived", "")] + [("equivalent", "proved"),
                ("equivalent", "elaborated")] + [("equivalent", "simulated")] * 2
                + [("stillborn", "")])
    sc = mscore.of(verdicts)
    assert (sc.killed, sc.survived, sc.unproved) == (6, 1, 2)
    assert sc.value == 6 / 7 and sc.proved == 6 / 9
    mutants = [msites.Mutant(i, site, st, proof=pr) for i, (st, pr) in enumerate(verdicts)]
    assert engine.score(mutants) == (6, 1, 6 / 7)
    camp = state.Campaign("mont_lut", load_design("mont_lut"), state.CampaignOptions(n=8), tmp_path,
                           100, mutants, "", 1.0, {})
    assert "proved score = killed / (killed + survived + equivalent without a formal proof) "\
        "= 66.7 % (6 / 9)" in mreport.table(camp)
    assert "| 85.7 % (6 / 7) | 66.7 % (6 / 9) |" in mreport.markdown(camp)
    mreport.write(camp)
    data = json.loads((tmp_path / "mutants.json").read_text())
    assert data["summary"]["score_proved"] == round(6 / 9, 4)
    assert data["summary"]["equivalent_unproved"] == 2
    rec = mcampaigns.record(mcampaigns.CampaignSpec("mont_lut", 12, goal=100.0), data)
    assert (rec["score"], rec["score_proved"], rec["equivalent_unproved"]) == (85.71, 66.67, 2)
    assert rec["status"] == mcampaigns.FAILED  # the goal is still on the score as before


def test_first_difference() -> None:
    a = [{"op": 0, "x": "1", "y": "2", "m": "3", "p": "1", "cycles": 10}]
    assert equivalence.first_difference(a, [dict(a[0])]) is None
    b = [dict(a[0], cycles=11)]
    assert equivalence.first_difference(a, b) == "op 0 (x=1, y=2, m=3): cycles 10 vs 11"


@pytest.mark.parametrize("args", [["--dut", "nope"], ["--dut", "mont_lut", "--mutants", "0"],
                                  ["--dut", "mont_lut", "--mutants", "-3"],
                                  ["--dut", "mont_lut", "--n", "4"],
                                  ["--dut", "mont_lut", "--jobs", "0"],
                                  ["--dut", "mont_lut", "--mutants", "many"],
                                  ["--dut", "mont_lut", "--ids", "3,x"],
                                  ["--dut", "mont_lut", "--ids", "100000"],
                                  ["--dut", "mont_lut", "--tests", "NoSuchTest"]])
def test_bad_input_is_one_error_line(args: list[str], capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(mutate_cli.main(args))
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")


def test_overlay_build_has_its_own_key_and_sources(tmp_path: Path) -> None:
    design = load_design("mont_lut")
    plain = spec.BuildSpec("mont_lut", 8)
    assert plain.key == "mont_lut-n8-b32-verilator"  # unchanged for every existing build
    assert plain.sources(design) == top.sources(design)
    over = tmp_path / "mut0003"
    over.mkdir()
    (over / "mont_lut.sv").write_text("// changed\n")
    b = spec.BuildSpec("mont_lut", 8, overlay=str(over))
    assert b.key.startswith("mont_lut-n8-mut0003-") and b.key.endswith("-b32-verilator")
    # the same mutant number of another campaign (another folder) is another build
    other = tmp_path / "elsewhere" / "mut0003"
    assert spec.BuildSpec("mont_lut", 8, overlay=str(other)).key != b.key
    assert spec.BuildSpec("mont_lut", 8, overlay=str(tmp_path / "." / "mut0003")).key == b.key
    srcs = b.sources(design)
    at = top.sources(design).index(paths.ROOT / "hdl/mont/mont_lut.sv")
    assert srcs[at] == over / "mont_lut.sv"
    assert sum(s.parent == over for s in srcs) == 1
    assert flow_build._build_stamp(b, design) != flow_build._build_stamp(plain, design)


@pytest.mark.sim
def test_killed_stillborn_and_hole(tmp_path: Path) -> None:
    """mont_csa at N = 8: the CSA's sum with & for ^ must be killed; a syntax error is
    stillborn and counts neither as killed nor in the score; CLEAR setting S to all ones
    (in hdl/common/mv_sc_regs.sv, which mont_csa's campaign owns) survives RandomTest and
    CornerTest (they never read S after CLEAR; ErrorTest does since mutation found the hole)
    and the equivalence run, which does, shows it is a testbench hole, not an equivalent
    mutant."""
    design = load_design("mont_csa")
    sites = msites.all_sites(design)
    csa = next(i for i, s in enumerate(sites)
               if s.description.endswith("'c_q ^ xy' -> 'c_q & xy'"))
    regs = "hdl/common/mv_sc_regs.sv"
    in_clear = (paths.ROOT / regs).read_text().index("if (clear_i)")
    clear_s = next(i for i, s in enumerate(sites) if s.file == regs and s.start > in_clear
                   and s.description.endswith("'s_q <= '0;' -> 's_q <= '1;'"))
    good = sites[csa]
    broken = Site(good.file, good.line, "bitwise", good.start, good.end, good.original, "^;")
    mutants = [msites.Mutant(csa, good), msites.Mutant(clear_s, sites[clear_s]),
               msites.Mutant(9999, broken)]
    opts = state.CampaignOptions(n=8, txns=10, timeout_s=300, eq_bits=3, eq_wide=10,
                          tests=("RandomTest", "CornerTest"))
    camp = engine.run_campaign("mont_csa", design, mutants, len(sites), opts, tmp_path,
                               lambda _line: None)
    by_id = {m.id: m for m in camp.mutants}
    assert [by_id[i].status for i in (csa, clear_s, 9999)] == ["killed", "survived",
                                                                "stillborn"]
    assert "MISMATCH" in by_id[csa].reason
    assert by_id[clear_s].reason.startswith("testbench hole"), by_id[clear_s].reason
    assert "rror" in by_id[9999].reason, by_id[9999].reason
    assert engine.score(camp.mutants) == (1, 1, 0.5)
    assert (tmp_path / "mutants" / f"mut{csa:04d}" / "change.diff").read_text().count("^") >= 1
    build = spec.BuildSpec("mont_csa", 8, overlay=str(tmp_path / "mutants" / f"mut{csa:04d}"))
    assert not (paths.sim_builds() / build.key).exists()
    # the kill's run stopped at its first failing test (cocotb lists CornerTest failed
    # without running it); all of its tests give the same reason
    log = (Path(by_id[csa].log_dir) / "sim.log").read_text()
    assert "running montverif.verif.tb_mult.RandomTest" in log and "RegressionTerminated" in log
    assert "running montverif.verif.tb_mult.CornerTest" not in log
    run = mutant_run.smoke_run("mont_csa", opts, str(tmp_path / "mutants" / f"mut{csa:04d}"))
    assert run.stop_at_failure
    try:
        whole = simulate.execute(replace(run, stop_at_failure=False), tmp_path / "whole",
                                 quiet=True)
    finally:
        mutant_run.remove_build(run.build.key)
    assert "running montverif.verif.tb_mult.CornerTest" in (whole.log_dir / "sim.log").read_text()
    assert by_id[csa].reason == whole.first_error


def _campaign(tmp_path: Path, mutants: list[msites.Mutant]) -> state.Campaign:
    return state.Campaign("mont_lut", load_design("mont_lut"), state.CampaignOptions(n=8),
                           tmp_path, 80, mutants)


@pytest.mark.sim  # Verilator elaborates the mutant (its stillbirth check) under the supervisor
def test_a_hang_is_killed_by_the_watchdog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """No simulation: the run's outcome is what simulate.execute returns after its watchdog."""
    site = msites.all_sites(load_design("mont_lut"))[0]
    monkeypatch.setattr(flow_build, "build", lambda *a, **k: (tmp_path, 0.0))
    monkeypatch.setattr(simulate, "execute", lambda run, log_dir, quiet: spec.Outcome(
        run, False, log_dir, first_error="watchdog: simulation killed after 5s wall time"))
    m = mutant_run.run_mutant(msites.Mutant(0, site), _campaign(tmp_path, []))
    assert m.status == "killed"
    assert m.reason == "killed by watchdog: watchdog: simulation killed after 5s wall time"


@pytest.mark.parametrize("shared_ok", [True, False])
def test_equivalence_verdicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              shared_ok: bool) -> None:
    """No simulator: identical logs make a survivor equivalent, a different cycle count or
    a failing run leave it a survivor with the reason. The survivors' runs select them in one
    shared build on the equivalence simulator; when that model without a mutant differs from
    the original, each survivor is built on its own on that simulator, with the same verdicts
    (the reference log comes from the campaign's simulator, in the fast bus mode)."""
    site = msites.all_sites(load_design("mont_lut"))[0]
    ref = {"op": 0, "x": "1", "y": "2", "m": "3", "p": "2", "cycles": 10, "start_ns": 5}
    logs = {"original-exhaustive-n8-first1000": (True, dict(ref)),  # Outcome.wall_s 0: Icarus
            "original-exhaustive-n8": (True, dict(ref)),               # runs every vector
            "meta-eq-n8-original": (True, dict(ref, cycles=10 if shared_ok else 12)),
            "mut0001-eq-n8": (True, dict(ref, start_ns=99)),  # timing is ignored
            "mut0002-eq-n8": (True, dict(ref, cycles=11)),
            "mut0003-eq-n8": (False, dict(ref)),
            # failing in the shared Verilator model: its smoke tests there pass (a hole)
            "mut0003-smoke-verilator-n8": (True, dict(ref))}
    runs: dict[str, spec.RunSpec] = {}
    built: list[str] = []
    alone: list[str] = []

    def fake(c: state.Campaign, run: spec.RunSpec, name: str) -> spec.Outcome:
        runs[name] = run
        passed, txn = logs[name]
        folder = tmp_path / "runs" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "txns.jsonl").write_text(json_line(txn))
        return spec.Outcome(run, passed, folder, first_error="" if passed else "MISMATCH read P")

    def eq_run(c: state.Campaign, run: spec.RunSpec, name: str) -> spec.Outcome:
        alone.append(name)
        return fake(c, run, name)

    batches: list[list[str]] = []

    def batched(todo: list[tuple[spec.RunSpec, Path]], workers: int) -> list[spec.Outcome]:
        batches.append([log_dir.name for _, log_dir in todo])
        return [fake(camp, run, log_dir.name) for run, log_dir in todo]

    monkeypatch.setattr(mutant_run, "eq_run", eq_run)
    monkeypatch.setattr(equivalence, "run_batched", batched)
    monkeypatch.setattr(mutant_run, "build_mutant", lambda c, b, log: built.append(b.overlay))
    survivors = [msites.Mutant(i, site, "survived") for i in (1, 2, 3)]
    camp = _campaign(tmp_path, survivors)
    camp.options.sim, camp.options.eq_sim = "icarus", "verilator"
    camp.options.use_proofs = False  # simulated verdicts (recorded proofs: test_mutate_proofs)
    equivalence.check_equivalence(camp, survivors, lambda _line: None)
    assert [m.status for m in survivors] == ["equivalent", "survived", "survived"]
    assert "cycles 10 vs 11" in survivors[1].reason
    assert survivors[2].reason.startswith("testbench hole") and "MISMATCH" in survivors[2].reason
    assert "exhaustive over every odd M < 2^5" in camp.eq_note
    meta_folder = str(tmp_path / "mutants" / "meta-eq-n8")
    assert (runs["original-exhaustive-n8"].build.sim,
            runs["original-exhaustive-n8"].build.bus) == ("icarus", "engine")
    assert runs["meta-eq-n8-original"].build.sim == "verilator"
    assert runs["meta-eq-n8-original"].mutant is None
    # the shared build's runs: one batch of them all (batched.py), before any other run
    assert batches == ([[f"mut000{i}-eq-n8" for i in (1, 2, 3)]] if shared_ok else [[]])
    # a difference found in the batch is run again alone (a failure: batched.py's rerun)
    assert [n for n in alone if n.startswith("mut")] == (
        ["mut0002-eq-n8", "mut0003-smoke-verilator-n8"] if shared_ok else
        ["mut0001-eq-n8", "mut0002-eq-n8", "mut0003-eq-n8", "mut0003-smoke-verilator-n8"])
    for i in (1, 2, 3):
        run = runs[f"mut000{i}-eq-n8"]
        if shared_ok:  # selected in the shared build, never built on its own
            assert (run.build.overlay, run.build.sim, run.build.bus) == (meta_folder,
                                                                         "verilator", "engine")
            assert run.mutant == i
        else:
            # built on its own, on the equivalence simulator too
            assert run.build.overlay == str(tmp_path / "mutants" / f"mut000{i}")
            assert (run.build.sim, run.build.bus, run.mutant) == ("verilator", "engine", None)
    assert built == [meta_folder] + ([] if shared_ok else
                                     [str(tmp_path / "mutants" / f"mut000{i}") for i in (1, 2, 3)])
    assert ("3 of the survivors' runs on one verilator build" in camp.eq_note) == shared_ok


def test_a_survivor_failing_on_the_equivalence_simulator_is_judged_by_its_smoke_tests_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No simulator: an Icarus campaign's survivors whose vector runs fail in the shared
    Verilator model (an RTL assertion Icarus cannot evaluate, as mont_qp_pe.sv's reset value
    of rv_q fires QpPeWordsInARow_A): the one whose smoke tests fail on that model is killed
    there, the one whose smoke tests pass there is a hole found by the vectors."""
    site = msites.all_sites(load_design("mont_lut"))[0]
    ref = {"op": 0, "x": "1", "y": "2", "m": "3", "p": "2", "cycles": 10}
    assertion = "ASSERT FAILED SomeInvariant_A @ 40000 ps"
    logs = {"original-exhaustive-n8-first1000": (True, ""),
            "original-exhaustive-n8": (True, ""), "meta-eq-n8-original": (True, ""),
            "mut0001-eq-n8": (False, assertion), "mut0001-smoke-verilator-n8": (False, assertion),
            "mut0002-eq-n8": (False, assertion), "mut0002-smoke-verilator-n8": (True, "")}
    runs: dict[str, spec.RunSpec] = {}

    def fake(c: state.Campaign, run: spec.RunSpec, name: str) -> spec.Outcome:
        runs[name] = run
        passed, error = logs[name]
        folder = tmp_path / "runs" / name
        folder.mkdir(parents=True)
        (folder / "txns.jsonl").write_text(json_line(ref))
        return spec.Outcome(run, passed, folder, first_error=error)

    monkeypatch.setattr(mutant_run, "eq_run", fake)
    monkeypatch.setattr(mutant_run, "build_mutant", lambda c, b, log: None)
    survivors = [msites.Mutant(i, site, "survived") for i in (1, 2)]
    camp = _campaign(tmp_path, survivors)
    monkeypatch.setattr(equivalence, "run_batched", lambda todo, workers: [
        fake(camp, run, log_dir.name) for run, log_dir in todo])
    camp.options.sim, camp.options.eq_sim = "icarus", "verilator"
    camp.options.use_proofs = False
    equivalence.check_equivalence(camp, survivors, lambda _line: None)
    assert (survivors[0].status, survivors[0].reason) == ("killed",
                                                          f"on verilator at N=8: {assertion}")
    assert survivors[1].status == "survived"
    assert survivors[1].reason == f"testbench hole: the equivalence run at N=8 on verilator " \
                                  f"fails: {assertion}"
    smoke = runs["mut0001-smoke-verilator-n8"]
    assert smoke.build == runs["mut0001-eq-n8"].build and smoke.mutant == 1
    assert not smoke.vectors and "RandomTest" in smoke.tests


def test_an_interrupt_leaves_survivors_without_a_verdict(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """No simulator: when an interrupt is ending every simulation, the survivors are neither
    checked at other points nor for equivalence (every such run would come back interrupted,
    and read as a hole): they are errors without a verdict, outside the score, the killed
    mutants keep theirs, and the campaign is marked interrupted."""
    design = load_design("mont_lut")
    site = msites.all_sites(design)[0]
    verdicts = iter(["killed", "survived", "survived"])

    def run_mutant(m: msites.Mutant, c: state.Campaign) -> msites.Mutant:
        m.status, m.reason = next(verdicts), "canned"
        return m

    monkeypatch.setattr(engine, "baseline", lambda *a, **k: spec.Outcome(
        spec.RunSpec(spec.BuildSpec("mont_lut", 8)), True, tmp_path))
    monkeypatch.setattr(mutant_run, "run_mutant", run_mutant)
    monkeypatch.setattr(simulate, "ending", lambda: True)
    for module, phase in ((at_points, "check_points"), (equivalence, "check_equivalence"),
                          (equivalence, "take_recorded")):
        monkeypatch.setattr(module, phase,
                            lambda *a, **k: pytest.fail("judged after the interrupt"))
    mutants = [msites.Mutant(i, site) for i in (1, 2, 3)]
    opts = state.CampaignOptions(n=8, share=False, use_proofs=False)
    camp = engine.run_campaign("mont_lut", design, mutants, 80, opts, tmp_path, lambda _l: None)
    assert [m.status for m in mutants] == ["killed", "error", "error"]
    assert mutants[1].reason == "not judged: the campaign was interrupted"
    assert camp.extra["interrupted"] is True
    assert engine.score(mutants) == (1, 0, 1.0)


def json_line(record: dict[str, object]) -> str:
    return json.dumps(record) + "\n"


@pytest.mark.nightly(seconds=15)
@pytest.mark.sim
def test_reset_and_clear_values_are_now_checked_by_the_smoke_tests(tmp_path: Path) -> None:
    """The hole found by mutation is closed: ErrorTest reads P, S, C and CYCLES right after
    reset and after CLEAR, so the mutants that wipe S (hdl/common/mv_sc_regs.sv, mont_csa's
    campaign) or reset P (hdl/common/mv_loop_ctrl.sv, inter_csa's) to all ones are killed."""
    opts = state.CampaignOptions(n=8, txns=5, timeout_s=300, tests=("ErrorTest",))
    mutants: list[msites.Mutant] = []
    for dut, file, reg, after_clear in (("mont_csa", "hdl/common/mv_sc_regs.sv", "s_q", True),
                                        ("inter_csa", "hdl/common/mv_loop_ctrl.sv", "p_q", False)):
        design = load_design(dut)
        sites = msites.all_sites(design)
        in_clear = (paths.ROOT / file).read_text().index("if (clear_o)" if reg == "p_q"
                                                          else "if (clear_i)")
        pick = next(i for i, s in enumerate(sites) if s.file == file
                    and (s.start > in_clear) == after_clear
                    and s.description.endswith(f"'{reg} <= '0;' -> '{reg} <= '1;'"))
        camp = engine.run_campaign(dut, design, [msites.Mutant(pick, sites[pick])], len(sites),
                                   opts, tmp_path / dut, lambda _line: None)
        mutants += camp.mutants
    for m in mutants:
        assert m.status == "killed" and "MISMATCH" in m.reason, (m.site.description, m.reason)


def test_elaboration_fatal_in_either_simulators_log(tmp_path: Path) -> None:
    log = tmp_path / "sim.log"
    log.write_text("x\nFATAL: /a/mwrkmm.sv:63: mwrkmm: W=1 must be in 1..V=8\n"
                   "       Time: 0 Scope: mwrkmm_top.u_core.g_bad_w\n")
    assert mutant_run.elaboration_fatal(log) == \
        "FATAL: /a/mwrkmm.sv:63: mwrkmm: W=1 must be in 1..V=8"
    log.write_text("[0] %Fatal: t.sv:3: Assertion failed in t.g_bad: t: W=0 must be >= 1\n")
    assert mutant_run.elaboration_fatal(log).startswith("%Fatal: t.sv:3")  # type: ignore[union-attr]
    log.write_text("FATAL: x.sv:9: a run-time check\n       Time: 1250 Scope: top\n")
    assert mutant_run.elaboration_fatal(log) is None  # a check during the run kills the mutant
    assert mutant_run.elaboration_fatal(tmp_path / "missing.log") is None


@pytest.mark.nightly(seconds=15)
@pytest.mark.sim
def test_a_parameter_check_that_fires_is_stillborn(tmp_path: Path) -> None:
    """mwrkmm's elaboration check `W < 1` mutated to `W < 2` fires at time 0 for W = 1: the
    design does not elaborate, so the mutant is stillborn, not killed."""
    design = load_design("mwrkmm")
    sites = msites.all_sites(design)
    i = next(i for i, s in enumerate(sites) if s.description.endswith("'W < 1' -> 'W < 2'"))
    opts = state.CampaignOptions(n=8, txns=4, timeout_s=300, tests=("RandomTest",))
    camp = engine.run_campaign("mwrkmm", design, [msites.Mutant(i, sites[i])], len(sites),
                               opts, tmp_path, lambda _line: None)
    (m,) = camp.mutants
    assert m.status == "stillborn" and "does not elaborate" in m.reason, (m.status, m.reason)
