"""Mutation campaigns in regression lists (regress/mutate/campaigns.py): `[[<list>.mutation]]`
parsing, seeds and shards, goals failing the list, summary/JUnit/HTML/history, resume and
merge.

All but one replace engine.run_campaign with canned verdicts (no simulator);
`test_end_to_end_two_mutants_on_icarus` (marked `sim`) runs two real mont_lut mutants.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.regress.cli import regress as regress_cli
from montverif.regress.mutate import campaigns, engine, prove, state
from montverif.regress.mutate import report as mreport
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate import sites as msites
from montverif.regress.regression import lists as rlists
from montverif.regress.regression import runner, seeds
from montverif.regress.report import history
from montverif.regress.tests.test_run import FakeLauncher, assert_bad_block
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design

LISTS = """
[mut]
description = "two campaigns, one run"
[[mut.entry]]
dut = "mont_lut"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 1
txns = 2
[[mut.mutation]]
dut = ["mont_lut", "mont_r2"]
mutants = 4
[[mut.mutation]]
dut = "mont_csa"
mutants = 3
sim = "verilator"
goal = 50
"""

Verdicts = dict[str, list[str]]  # design -> the status of each of its mutants, in order
PROOF = {"equivalent": prove.PROVED, "simulated": mscore.SIMULATED}


@pytest.fixture
def lists(tmp_path: Path) -> Path:
    path = tmp_path / "lists.toml"
    path.write_text(LISTS)
    return path


def canned(verdicts: Verdicts, calls: list[str] | None = None,
           broken: tuple[str, ...] = ()) -> Callable[..., state.Campaign]:
    """A stand-in for engine.run_campaign: each mutant gets its design's next verdict
    ("equivalent" proved by SBY, "simulated" an equivalent judged by simulation alone); a
    design in `broken` fails its original run as the real baseline does."""

    def run_campaign(dut: str, design: Design, mutants: list[msites.Mutant], total: int,
                     opts: state.CampaignOptions, out: Path, progress: Callable[[str], None]
                     ) -> state.Campaign:
        if calls is not None:
            calls.append(dut)
        if dut in broken:
            raise ConfigError(f"the original {dut} fails its own smoke run at N={opts.n}: "
                              "MISMATCH op 0")
        for m, status in zip(mutants, verdicts[dut], strict=True):
            m.status, m.reason = status, f"canned {status}"
            if status in ("equivalent", "simulated"):
                m.status, m.proof = "equivalent", PROOF[status]
            progress(f"mut{m.id:04d} {m.status}")
        return state.Campaign(dut, design, opts, out, total, mutants, wall_s=1.5)

    return run_campaign


def main(tmp_path: Path, lists: Path, *extra: str, out: str = "out", name: str = "mut",
         launcher: FakeLauncher | None = None) -> int:
    argv = ["--lists", str(lists), "regress", "--list", name, "--jobs", "2",
            "--out", str(tmp_path / out), "--history", str(tmp_path / "history.jsonl"), *extra]
    return regress_cli.main(argv, launcher=launcher or FakeLauncher(),
                            results_root=tmp_path / "results")


def summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


ALL_KILLED: Verdicts = {"mont_lut": ["killed"] * 4, "mont_r2": ["killed"] * 3 + ["equivalent"],
                        "mont_csa": ["killed", "stillborn", "killed"]}
ONE_SURVIVOR: Verdicts = ALL_KILLED | {"mont_r2": ["killed", "survived", "killed", "killed"]}


# --- lists ----------------------------------------------------------------------------------
def test_blocks_expand_to_one_campaign_per_design(lists: Path) -> None:
    specs = campaigns.of_list(rlists.get_list("mut", lists))
    assert [(s.dut, s.mutants, s.sim, s.n, s.txns, s.goal) for s in specs] == [
        ("mont_lut", 4, "icarus", 8, 20, 100.0), ("mont_r2", 4, "icarus", 8, 20, 100.0),
        ("mont_csa", 3, "verilator", 8, 20, 50.0)]
    assert len(seeds.expand(rlists.get_list("mut", lists))) == 1  # campaigns are not runs


def test_shipped_nightly_mutates_every_design() -> None:
    nightly = campaigns.of_list(rlists.load_lists()["nightly"])
    assert sorted(s.dut for s in nightly) == known_designs()
    assert {(s.mutants, s.sim, s.goal) for s in nightly} == {(40, "icarus", 100.0)}
    # the goal is on the proved score, so every equivalent is checked by SBY each night
    assert {(s.prove, s.eq_timeout_s) for s in nightly} == {(True, 300)}
    assert all(" --prove" in s.repro() and " --eq-timeout 300" in s.repro() for s in nightly)
    assert all(s.n == load_design(s.dut).min_n for s in nightly)
    campaigns.check_all(campaigns.plan(nightly, 1))  # every campaign can run


def test_the_nightly_starts_its_longest_campaigns_first() -> None:
    """The campaigns that took longest in a whole nightly (session 51: mwrkmm 2,301 s,
    mont_dual about 1,780 s, rsa_core 1,435 s, against at most 668 s for any other) start
    first instead of last (list order): mwrkmm and rsa_core are the two estimated longest,
    mont_dual among the five, with mont_qp and mwr2mm (the cost model underrates Icarus on
    mont_dual's wide datapath; its survivors' vectors now run on Verilator)."""
    specs = campaigns.plan(campaigns.of_list(rlists.load_lists()["nightly"]), 1)
    ranked = sorted(specs, key=lambda s: -campaigns.expected_s(s))
    assert {s.dut for s in ranked[:2]} == {"mwrkmm", "rsa_core"}
    assert {s.dut for s in ranked[:5]} == {"mwrkmm", "rsa_core", "mont_dual", "mont_qp", "mwr2mm"}


def test_campaigns_start_longest_first_and_report_in_list_order(
        tmp_path: Path, lists: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, calls))
    expected = {"mont_lut": 10.0, "mont_r2": 30.0, "mont_csa": 20.0}
    monkeypatch.setattr(campaigns, "expected_s", lambda s: expected[s.dut])
    assert main(tmp_path, lists, "--jobs", "1") == 0
    assert calls == ["mont_r2", "mont_csa", "mont_lut"]
    assert list(summary(tmp_path / "out")["mutation"]) == ["mont_lut", "mont_r2", "mont_csa"]


def test_list_command_shows_the_budget(lists: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert regress_cli.main(["lists"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("nightly "))
    count = len(known_designs())
    assert f"+ {count} mutation campaigns, {40 * count} mutants" in line
    assert regress_cli.main(["--lists", str(lists), "lists", "mut"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[1].startswith("mutation/mont_lut ") and "mutants=4" in out[1]


GOOD: dict[str, str | None] = {"dut": '"mont_lut"', "mutants": "4"}


@pytest.mark.parametrize(("patch", "message"), [
    ({"mutants": None}, "missing mutants"),
    ({"dut": None}, "missing dut"),
    ({"seeds": "2"}, "unknown key(s) seeds"),
    ({"dut": '"nope"'}, "dut: unknown nope"),
    ({"dut": '["mont_lut", "mont_lut"]'}, "dut: 'mont_lut' given twice"),
    ({"sim": '"vcs"'}, "sim: unknown vcs"),
    ({"mutants": "0"}, "mutants: must be an integer 1..10000 (got 0)"),
    ({"txns": '"many"'}, "txns: must be an integer 1..10000000 (got 'many')"),
    ({"goal": "101"}, "goal: expected a percentage 0..100"),
    ({"goal": "true"}, "goal: expected a percentage"),
    ({"prove": '"yes"'}, "prove: expected true or false"),
    ({"eq_timeout": "0"}, "eq_timeout: must be an integer 1..604800 s (got 0)"),
    ({"n": "4"}, "N=4 outside mont_lut's 8..4096"),
])
def test_bad_mutation_block(tmp_path: Path, patch: dict[str, str | None], message: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    assert_bad_block(tmp_path, "mutation", GOOD | patch, message, capsys)


def test_a_list_needs_an_entry_or_a_mutation_block(tmp_path: Path) -> None:
    path = tmp_path / "lists.toml"
    path.write_text("[only]\n[[only.mutation]]\ndut = 'mont_lut'\nmutants = 2\n[none]\n")
    with pytest.raises(rlists.ListError, match=r"none: no \[\[none.entry\]\]"):
        rlists.load_lists(path)
    path.write_text("[only]\n[[only.mutation]]\ndut = 'mont_lut'\nmutants = 2\n")
    assert seeds.expand(rlists.get_list("only", path)) == []


# --- seeds and shards -----------------------------------------------------------------------
def test_the_sample_follows_the_base_seed(lists: Path) -> None:
    specs = campaigns.of_list(rlists.get_list("mut", lists))

    def ids(base: int) -> list[list[int]]:
        return [[m.id for m in campaigns.sample(s)[1]] for s in campaigns.plan(specs, base)]

    assert ids(1) == ids(1)  # a fixed list always picks the same mutants
    assert ids(1) != ids(2)  # --seed rotates them
    assert all(len(x) == 4 for x in ids(1)[:2])
    fixed = campaigns.plan(specs, 1, fixed_seed=77)
    assert {s.seed for s in fixed} == {77}
    assert [s.dut for s in campaigns.plan(specs, 1, sims=["verilator"])] == ["mont_csa"]
    assert [s.dut for s in campaigns.plan(specs, 1, duts=["mont_r2"])] == ["mont_r2"]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 8])
def test_each_campaign_goes_to_exactly_one_shard(count: int) -> None:
    specs = campaigns.plan(campaigns.of_list(rlists.load_lists()["nightly"]), 1)
    shards = [campaigns.shard(specs, i, count) for i in range(1, count + 1)]
    owners = [s.dut for part in shards for s in part]
    assert sorted(owners) == sorted(s.dut for s in specs)  # all of them, none twice
    sizes = [len(part) for part in shards]
    assert max(sizes) - min(sizes) <= 1  # equal budgets: spread evenly
    assert shards == [campaigns.shard(specs, i, count) for i in range(1, count + 1)]


# --- running with canned verdicts -----------------------------------------------------------
def test_all_at_goal_passes(tmp_path: Path, lists: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED))
    assert main(tmp_path, lists) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "4 passed, 0 failed"  # one run, three campaigns
    assert "mutation: 3/3 campaign(s) at their goal" in out
    recs = summary(tmp_path / "out")["mutation"]
    assert list(recs) == ["mont_lut", "mont_r2", "mont_csa"]
    assert recs["mont_csa"]["score"] == 100.0 and recs["mont_csa"]["stillborn"] == 1
    assert recs["mont_r2"]["equivalent"] == 1 and recs["mont_r2"]["status"] == "passed"
    for dut in recs:
        assert (tmp_path / "out" / "mutation" / dut / "mutate.html").exists()


def test_a_campaign_below_its_goal_fails_the_list(tmp_path: Path, lists: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "run_campaign", canned(ONE_SURVIVOR))
    assert main(tmp_path, lists) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "3 passed, 1 failed"
    row = next(x for x in out.splitlines() if x.startswith("mont_r2 "))
    assert "75.0%" in row and row.endswith("BELOW GOAL")
    rec = summary(tmp_path / "out")["mutation"]["mont_r2"]
    survivor = rec["survivors"][0]
    where, change = survivor["where"], survivor["change"]
    assert where.startswith("hdl/mont/mont_r2.sv:") and " -> " in change
    assert f"  survived {where}: {change}" in out and f"repro: {rec['repro']}" in out
    assert (rec["killed"], rec["survived"], rec["score"], rec["status"]) == (3, 1, 75.0,
                                                                             "failed")
    assert {"mutants", "killed", "survived", "equivalent", "stillborn", "error", "score",
            "goal", "wall_s"} <= set(rec)
    # JUnit: one testcase per campaign, the failing one lists its survivor
    cases = {c.get("name", ""): c for c in ET.parse(tmp_path / "out" / "junit.xml").iter("testcase")
             if c.get("classname") == "mut.mutation"}
    assert sorted(cases) == ["mont_csa", "mont_lut", "mont_r2"]
    failure = cases["mont_r2"].find("failure")
    assert failure is not None and where in (failure.text or "")
    assert cases["mont_lut"].find("failure") is None
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    # the run's five cocotb tests and the three campaigns
    assert (root.get("tests"), root.get("failures")) == ("8", "1")
    # HTML: the section, the survivor, the link to the campaign's own page
    page = (tmp_path / "out" / "report.html").read_text()
    assert '<h2 id="mutation">Mutation</h2>' in page and where in page
    assert '<a href="mutation/mont_r2/mutate.html">mont_r2</a>' in page
    assert "not: mont_r2" in page


def test_an_equivalent_judged_by_simulation_alone_fails_the_goal(
        tmp_path: Path, lists: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The goal is on the proved score: mont_r2's one equivalent without a formal verdict
    counts as a survivor (3 / 4 = 75 %), while its score leaving it out is 100 %."""
    unproved = ALL_KILLED | {"mont_r2": ["killed"] * 3 + ["simulated"]}
    monkeypatch.setattr(engine, "run_campaign", canned(unproved))
    assert main(tmp_path, lists) == 1
    rec = summary(tmp_path / "out")["mutation"]["mont_r2"]
    assert (rec["score"], rec["score_proved"], rec["equivalent_unproved"]) == (100.0, 75.0, 1)
    assert rec["status"] == "failed" and rec["message"] == (
        "proved score 75.0% below the goal 100% (0 survivor(s), 1 equivalent(s) without a "
        "proof)")
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("mont_r2 "))
    assert row.endswith("BELOW GOAL")


def test_scores_go_to_the_history_and_its_trend(tmp_path: Path, lists: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "run_campaign", canned(ONE_SURVIVOR))
    main(tmp_path, lists, out="a")
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED))
    main(tmp_path, lists, out="b")
    hist = history.load(tmp_path / "history.jsonl")
    assert [h["mutation"] for h in hist] == [
        {"mont_lut": 100.0, "mont_r2": 75.0, "mont_csa": 100.0},
        {"mont_lut": 100.0, "mont_r2": 100.0, "mont_csa": 100.0}]
    assert [(h["mutation_mean"], h["mutation_min"]) for h in hist] == [(91.67, 75.0),
                                                                        (100.0, 100.0)]
    page = (tmp_path / "b" / "report.html").read_text()
    assert page.count("<svg") == 2 and "mutation score, mean over the designs" in page
    assert "minimum: 75%" in page  # the earlier nightly's minimum, as a point of the plot


@pytest.mark.sim
def test_a_failing_original_is_a_one_line_error(tmp_path: Path, lists: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, broken=("mont_lut",)))
    assert main(tmp_path, lists) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "  error: the original mont_lut fails its own smoke run at N=8: MISMATCH op 0" in out
    rec = summary(tmp_path / "out")["mutation"]["mont_lut"]
    assert rec["status"] == "error" and rec["score"] is None
    case = next(c for c in ET.parse(tmp_path / "out" / "junit.xml").iter("testcase")
                if c.get("name") == "mont_lut" and c.get("classname") == "mut.mutation")
    assert case.find("error") is not None


def test_fail_fast_starts_no_further_campaign(tmp_path: Path, lists: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[str] = []
    verdicts = ALL_KILLED | {"mont_lut": ["killed", "survived", "killed", "killed"]}
    monkeypatch.setattr(engine, "run_campaign", canned(verdicts, calls))
    assert main(tmp_path, lists, "--fail-fast", "--jobs", "1") == 1
    assert calls == ["mont_lut"]
    out = capsys.readouterr().out
    assert "2 mutation campaign(s) not started: --fail-fast" in out
    recs = summary(tmp_path / "out")["mutation"]
    assert [r["status"] for r in recs.values()] == ["failed", "skipped", "skipped"]


def test_sim_and_dut_select_campaigns(tmp_path: Path, lists: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, calls))
    assert main(tmp_path, lists, "--sim", "icarus", "--dut", "mont_r2") == 0
    assert calls == ["mont_r2"]
    assert list(summary(tmp_path / "out")["mutation"]) == ["mont_r2"]


def test_resume_keeps_finished_campaigns(tmp_path: Path, lists: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, broken=("mont_r2",)))
    assert main(tmp_path, lists) == 1
    calls: list[str] = []
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, calls))
    assert main(tmp_path, lists, "--resume") == 0
    assert calls == ["mont_r2"]  # the errored one again, the finished ones kept
    # another base seed is another regression (other mutants): not resumed in this folder
    assert main(tmp_path, lists, "--resume", "--seed", "5") == 2
    assert calls == ["mont_r2"]


def test_an_interrupted_campaign_is_not_finished(tmp_path: Path, lists: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign an interrupt cut short reads skipped (interrupted, with how many mutants
    have no verdict), never failed or passed on the mutants it judged, and --resume runs it
    again."""
    def interrupted(verdicts: Verdicts) -> Callable[..., state.Campaign]:
        inner = canned(verdicts)

        def run_campaign(*args: object, **kwargs: object) -> state.Campaign:
            camp = inner(*args, **kwargs)
            if camp.dut == "mont_r2":
                camp.extra["interrupted"] = True
            return camp
        return run_campaign

    cut: Verdicts = ALL_KILLED | {"mont_r2": ["killed", "error", "error", "killed"]}
    monkeypatch.setattr(engine, "run_campaign", interrupted(cut))
    main(tmp_path, lists)
    rec = summary(tmp_path / "out")["mutation"]["mont_r2"]
    assert (rec["status"], rec["message"]) == ("skipped",
                                               "interrupted: 2 of 4 mutants without a verdict")
    calls: list[str] = []
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, calls))
    assert main(tmp_path, lists, "--resume") == 0
    assert calls == ["mont_r2"]


def test_parts_run_only_the_parts_asked_for_and_say_so(tmp_path: Path, lists: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """--parts mutation runs the campaigns and no run, --parts runs the runs and no campaign;
    each summary notes the parts (a wall time of the folder is not the whole list's: bench's
    --wall-from says so) and neither adds a history line (only a whole list does)."""
    calls: list[str] = []
    monkeypatch.setattr(engine, "run_campaign", canned(ALL_KILLED, calls))
    launcher = FakeLauncher()
    assert main(tmp_path, lists, "--parts", "mutation", out="m", launcher=launcher) == 0
    s = summary(tmp_path / "m")
    assert sorted(calls) == ["mont_csa", "mont_lut", "mont_r2"] and s["passed"] == 0
    assert "parts: mutation" in s["notes"]
    calls.clear()
    assert main(tmp_path, lists, "--parts", "runs", out="r") == 0
    s = summary(tmp_path / "r")
    assert calls == [] and s["passed"] == 1 and not s["mutation"]
    assert "parts: runs" in s["notes"]
    assert not (tmp_path / "history.jsonl").exists()
    assert main(tmp_path, lists, out="all") == 0  # the whole list: no note, a history line
    assert not any(n.startswith("parts: ") for n in summary(tmp_path / "all")["notes"])
    assert (tmp_path / "history.jsonl").is_file()


def test_merge_combines_the_shards_campaigns(tmp_path: Path, lists: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "run_campaign", canned(ONE_SURVIVOR))
    for i in (1, 2):
        main(tmp_path, lists, "--shard", f"{i}/2", out=f"s{i}")
    parts = [summary(tmp_path / f"s{i}")["mutation"] for i in (1, 2)]
    assert sorted(list(parts[0]) + list(parts[1])) == ["mont_csa", "mont_lut", "mont_r2"]
    assert parts[0] and parts[1]
    capsys.readouterr()
    merged = tmp_path / "merged"
    assert regress_cli.main(["merge", str(merged), str(tmp_path / "s1"), str(tmp_path / "s2"),
                    "--history", str(tmp_path / "h.jsonl")],
                   results_root=tmp_path / "results") == 1  # mont_r2 is below its goal
    recs = summary(merged)["mutation"]
    assert list(recs) == ["mont_lut", "mont_r2", "mont_csa"]  # list order
    assert recs["mont_r2"]["score"] == 75.0
    assert all((merged / r["dir"] / "mutate.html").exists() for r in recs.values())
    assert "incomplete" not in capsys.readouterr().out
    assert history.load(tmp_path / "h.jsonl")[0]["mutation_min"] == 75.0
    with pytest.raises(rlists.ListError, match="mutation campaign .* more than one shard"):
        runner.merge(tmp_path / "twice", [tmp_path / "s2", tmp_path / "s2"], None)


def test_mutation_report_names_its_simulator(tmp_path: Path) -> None:
    design = load_design("mont_lut")
    mutants = msites.select(msites.all_sites(design), 2, 1)
    camp = state.Campaign("mont_lut", design, state.CampaignOptions(n=8, sim="icarus"), tmp_path,
                           80, mutants)
    mreport.write(camp)
    assert json.loads((tmp_path / "mutants.json").read_text())["summary"]["sim"] == "icarus"
    assert "Icarus" in (tmp_path / "mutate.md").read_text()
    assert mreport.load(tmp_path).options.sim == "icarus"


# --- the real thing -------------------------------------------------------------------------
@pytest.mark.nightly(seconds=30)
@pytest.mark.sim
def test_end_to_end_two_mutants_on_icarus(tmp_path: Path) -> None:
    path = tmp_path / "lists.toml"
    path.write_text("[tiny]\n[[tiny.mutation]]\ndut = 'mont_lut'\nmutants = 2\nsim = 'icarus'\n"
                    "n = 8\n")
    # base seed 4 draws two mutants that earlier campaigns saw killed: no equivalence run
    # (7456 vectors, ~40 s on Icarus) unless one now survives
    argv = ["--lists", str(path), "regress", "--list", "tiny", "--jobs", "1", "--seed", "4",
            "--out", str(tmp_path / "out")]
    code = regress_cli.main(argv, results_root=tmp_path / "results")
    rec = summary(tmp_path / "out")["mutation"]["mont_lut"]
    data = json.loads((tmp_path / "out" / "mutation" / "mont_lut" / "mutants.json").read_text())
    statuses = [m["status"] for m in data["mutants"]]
    assert len(statuses) == 2 and "error" not in statuses, data["mutants"]
    assert data["summary"]["sim"] == "icarus" and data["summary"]["n"] == 8
    assert {s: rec[s] for s in state.STATUSES} == {s: statuses.count(s)
                                                   for s in state.STATUSES}
    assert code == (0 if rec["status"] == "passed" else 1)
