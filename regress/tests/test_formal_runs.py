"""Formal checks in regression lists (regress/regression/formal_checks.py): `[[<list>.formal]]`
parsing, planning and shards, and real SBY runs through `montverif regress`: the verdicts
in summary.json, the terminal summary, JUnit, Markdown, HTML and the history; a check that
misses its verdict failing the list; a broken core's counterexample; resume and merge."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from montverif.host.errors import ConfigError
from montverif.regress.cli import regress as regress_cli
from montverif.regress.formal import formal
from montverif.regress.regression import formal_checks
from montverif.regress.regression import lists as rlists
from montverif.regress.regression.results import Regression
from montverif.regress.regression.scheduler import ScheduleOptions
from montverif.regress.report import markdown
from montverif.spec.designs import known_designs, load_design

LISTS = """
[fl]
description = "mont_r2's core at N = 4, and its fault build"
[[fl.formal]]
dut = "mont_r2"
n = 4
fault = true
"""


def write(tmp_path: Path, text: str = LISTS) -> Path:
    path = tmp_path / "lists.toml"
    path.write_text(text)
    return path


def main(tmp_path: Path, lists: Path, *extra: str, out: str = "out", name: str = "fl") -> int:
    argv = ["--lists", str(lists), "regress", "--list", name, "--jobs", "2",
            "--out", str(tmp_path / out), "--history", str(tmp_path / "history.jsonl"), *extra]
    return regress_cli.main(argv, results_root=tmp_path / "results")


def summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


# --- lists ----------------------------------------------------------------------------------
def test_a_block_expands_to_the_points_and_the_fault_build(tmp_path: Path) -> None:
    checks = formal_checks.of_list(rlists.get_list("fl", write(tmp_path)))
    assert [(c.dut, c.spec.resolved(), c.spec.fault, c.wanted) for c in checks] == [
        ("mont_r2", {"N": 4}, False, "bounded"), ("mont_r2", {"N": 4}, True, "failed")]
    proof = checks[0].spec.core_proof()
    assert {c.spec.depth for c in checks} == {proof.depth}  # through the whole operation
    assert [c.folder for c in checks] == ["formal/00-mont_r2-N4-bmc-k9",
                                          "formal/01-mont_r2-N4-bmc-k9-fault"]


def test_every_design_and_the_loader_with_star(tmp_path: Path) -> None:
    checks = formal_checks.of_list(rlists.get_list("all", write(
        tmp_path, '[all]\n[[all.formal]]\ndut = "*"\n')))
    with_points = [d for d in known_designs() if load_design(d).formal_points]
    blocks = len(formal.BLOCKS)  # the loader's proof and the others, each at its own depth
    assert [c.dut for c in checks[:blocks]] == list(formal.BLOCKS)
    assert [c.spec.depth for c in checks[:blocks]] == [b.depth for b in formal.BLOCKS.values()]
    assert all(c.wanted == "proved" for c in checks[:blocks])
    assert sorted({c.dut for c in checks[blocks:]}) == sorted(with_points)
    expected = sum(len(load_design(d).formal_points) for d in with_points)
    assert len(checks) == blocks + expected
    # the design's [formal] timeout where it is longer than the block's
    slow = [d for d in with_points if load_design(d).formal_timeout > 600]
    for c in checks:
        if c.dut in slow:
            assert c.spec.timeout_s == load_design(c.dut).formal_timeout


def test_the_nightly_list_checks_every_formal_point() -> None:
    checks = formal_checks.of_list(rlists.load_lists()["nightly"])
    assert set(formal.BLOCKS) <= {c.dut for c in checks}
    for dut in known_designs():
        points = load_design(dut).formal_points
        assert sum(c.dut == dut and c.spec.mode == "bmc" and not c.spec.fault
                   for c in checks) == len(points), dut
        induction = [c for c in checks if c.dut == dut and formal_checks.is_induction(c.spec)]
        assert len(induction) == (bool(points) and load_design(dut).stream is None), dut


def test_prove_adds_each_core_s_induction_check_at_its_first_point(tmp_path: Path) -> None:
    checks = formal_checks.of_list(rlists.get_list("fl", write(
        tmp_path, '[fl]\n[[fl.formal]]\ndut = ["mont_r2", "mm42"]\nprove = true\n'
                  "prove_timeout = 77\n")))
    for dut in ("mont_r2", "mm42"):
        mine = [c for c in checks if c.dut == dut]
        bounded = [c for c in mine if c.spec.mode == "bmc"]
        assert len(bounded) == len(load_design(dut).formal_points)
        [prove] = [c for c in mine if c.spec.mode == "prove"]
        assert prove.spec.resolved() == bounded[0].spec.resolved()  # the first point
        assert prove.wanted == formal_checks.PROVED_OR_OPEN and prove.spec.timeout_s == 77
        cycles = prove.spec.core_proof().cycles
        assert prove.spec.depth == prove.spec.cover_depth == 2 * cycles + 6  # two operations
        assert "--mode prove" in formal.command(prove.spec)


def test_an_induction_check_passes_proved_or_open_never_failed() -> None:
    spec = formal.FormalSpec("mont_r2", (("N", 4),), mode="prove")
    bmc = replace(spec, mode="bmc")
    assert formal_checks.is_induction(spec) and not formal_checks.is_induction(bmc)
    assert not formal_checks.is_induction(replace(spec, fault=True))
    assert not formal_checks.is_induction(formal.FormalSpec("mv_bus_loader"))
    passes = {s for s in ("proved", "bounded", "unknown", "failed", "vacuous")
              if formal_checks.reached(spec, s)}
    assert passes == {"proved", "bounded", "unknown"}
    assert {s for s in ("proved", "bounded", "failed") if formal_checks.reached(bmc, s)} == {
        "bounded"}


GOOD: dict[str, str | None] = {"dut": '"mont_r2"', "n": "4"}


@pytest.mark.parametrize(("patch", "message"), [
    ({"dut": None}, "missing dut"),
    ({"seeds": "2"}, "unknown key(s) seeds"),
    ({"dut": '"nope"'}, "dut: unknown nope"),
    ({"n": '"four"'}, "n: must be an integer 2..65536 (got 'four')"),
    ({"n": "200"}, "N=200"),
    ({"fault": '"yes"'}, "fault: expected true or false"),
    ({"timeout": "0"}, "timeout: must be an integer 1..604800 s (got 0)"),
    ({"prove": '"yes"'}, "prove: expected true or false"),
    ({"prove_timeout": "5"}, "prove_timeout without prove = true"),
    ({"prove": "true", "prove_timeout": "0"}, "prove_timeout: must be an integer"),
    ({"n": '4\n[[bad.formal]]\ndut = "mont_r2"\nn = [4, 6]'}, "checked more than once"),
])
def test_bad_formal_block(tmp_path: Path, patch: dict[str, str | None], message: str,
                          capsys: pytest.CaptureFixture[str]) -> None:
    body = "".join(f"{k} = {v}\n" for k, v in (GOOD | patch).items() if v is not None)
    path = write(tmp_path, f"[bad]\n[[bad.formal]]\n{body}")
    with pytest.raises(rlists.ListError, match="bad.formal") as info:
        for tlist in rlists.load_lists(path).values():
            formal_checks.of_list(tlist, path.name)
    assert message in str(info.value)
    assert regress_cli.main(["--lists", str(path), "lists"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_a_list_of_formal_checks_only_needs_no_entry(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path)
    assert regress_cli.main(["--lists", str(path), "lists", "fl"]) == 0
    out = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert out == [["formal/00-mont_r2-N4-bmc-k9", "bounded", "depth=9", "timeout=600s"],
                   ["formal/01-mont_r2-N4-bmc-k9-fault", "failed", "depth=9", "timeout=600s"]]
    # --sim leaves proofs out, so this list has nothing to run there
    assert main(tmp_path, path, "--sim", "verilator") == 2
    assert "has no runs for verilator" in capsys.readouterr().err


def test_plan_and_shards(tmp_path: Path) -> None:
    checks = formal_checks.of_list(rlists.get_list("all", write(
        tmp_path, '[all]\n[[all.formal]]\ndut = "*"\nfault = true\n')))
    assert formal_checks.plan(checks, sims=["icarus"]) == []
    assert {c.dut for c in formal_checks.plan(checks, duts=["mm42"])} == {"mm42"}
    # measured times for some checks (the others estimated): a check measured long weighs
    # what it took, not its size
    small = next(c for c in checks if c.dut == "mont_r2" and not c.spec.fault)
    seconds = {small.key: 10_000.0, checks[-1].key: 1.0}
    cost = formal_checks.costs(checks, seconds)
    assert cost[small.key] == 10_000.0 and cost[checks[-1].key] == 1.0
    other = next(c for c in checks if c.key not in seconds)
    scale = max(10_000.0 / formal_checks.estimate(small), 1.0 / formal_checks.estimate(checks[-1]))
    assert cost[other.key] == formal_checks.estimate(other) * scale  # the median of two: upper
    every = dict.fromkeys((c.key for c in checks), 1.0) | {small.key: 10_000.0}
    for measured in ({}, seconds, every):
        cost = formal_checks.costs(checks, measured)
        for count in (1, 2, 3, 5):
            parts = [formal_checks.shard(checks, i, count, measured)
                     for i in range(1, count + 1)]
            keys = [c.key for part in parts for c in part]
            assert sorted(keys) == sorted(c.key for c in checks)  # all of them, none twice
            loads = [sum(cost[c.key] for c in part) for part in parts]
            assert max(loads) - min(loads) <= max(cost.values())  # dealt by cost
            if measured is every and count > 1:  # the long one alone in its shard
                assert [c.key for c in next(p for p in parts if small in p)] == [small.key]


def test_the_checks_measured_times_are_read_and_a_bad_file_is_one_line(tmp_path: Path) -> None:
    """formal-seconds.json (bench --formal-from writes it): read by its shape; absent, the
    estimates; cut short, one line."""
    assert formal_checks.measured_seconds(tmp_path / "none.json") == {}
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"git": "abc1234", "from": "x", "seconds": {"a": 3, "b": 1.5}}))
    assert formal_checks.measured_seconds(good) == {"a": 3, "b": 1.5}
    good.write_text(good.read_text()[:30])
    with pytest.raises(ConfigError, match=r"s\.json: .*") as exc:
        formal_checks.measured_seconds(good)
    assert "\n" not in str(exc.value)
    # the project's own: every nightly check measured
    nightly = formal_checks.of_list(rlists.load_lists()["nightly"])
    assert {c.key for c in nightly} <= set(formal_checks.measured_seconds())


# --- real SBY runs --------------------------------------------------------------------------
@pytest.mark.formal
def test_verdicts_reach_every_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(tmp_path, write(tmp_path)) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "2 passed, 0 failed"
    assert "formal: 2/2 check(s) as required" in out
    folder = tmp_path / "out"
    recs = summary(folder)["formal"]
    bounded, fault = recs["mont_r2-N4-bmc-k9"], recs["mont_r2-N4-bmc-k9-fault"]
    assert (bounded["status"], bounded["ok"], bounded["depth"]) == ("bounded", True, 9)
    assert (fault["status"], fault["ok"], fault["wanted"]) == ("failed", True, "failed")
    # the fault build's counterexample: a waveform and a vector file the simulation replays
    assert fault["failed_assertion"] and (folder / fault["trace"]).stat().st_size > 0
    vector = json.loads((folder / fault["vector"]).read_text())
    assert vector["vectors"] and fault["replay"].startswith("montverif sim --dut mont_r2")
    assert "--fault" in fault["replay"] and "--fault" in fault["repro"]
    # JUnit: a formal suite with a testcase per check, none failing
    suite = next(s for s in ET.parse(folder / "junit.xml").getroot().iter("testsuite")
                 if s.get("name") == "formal")
    assert [c.get("name") for c in suite.iter("testcase")] == ["N4", "N4-fault"]
    assert suite.get("failures") == "0" and suite.get("tests") == "2"
    page = (folder / "report.html").read_text()
    assert 'id="formal"' in page and "bounded to depth 9" in page
    md = markdown.render_folder(folder)
    assert "### Formal (2 of 2 as required)" in md and "✅ PASSED" in md
    line = json.loads((tmp_path / "history.jsonl").read_text().splitlines()[-1])
    assert (line["formal_ok"], line["formal_total"]) == (2, 2)
    assert line["formal"]["mont_r2-N4-bmc-k9-fault"] == {"status": "failed", "ok": True}


@pytest.mark.formal
def test_a_check_without_its_verdict_fails_the_list(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """One second per SBY task is too little for mont_r2 at N = 6: no verdict, so the check
    misses `bounded` and the regression fails, with the repro line."""
    path = write(tmp_path, '[fl]\n[[fl.formal]]\ndut = "mont_r2"\nn = 6\ntimeout = 1\n')
    assert main(tmp_path, path) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "0 passed, 1 failed"
    assert "✗ needs bounded" in out and "repro: montverif formal --dut mont_r2 --n 6" in out
    rec = summary(tmp_path / "out")["formal"]["mont_r2-N6-bmc-k11"]
    assert rec["status"] == "unknown" and not rec["ok"]
    suite = next(s for s in ET.parse(tmp_path / "out" / "junit.xml").getroot()
                 .iter("testsuite") if s.get("name") == "formal")
    assert suite.get("failures") == "1"
    assert "❌ FAILED" in markdown.render_folder(tmp_path / "out")


@pytest.mark.formal
def test_a_broken_core_fails_with_its_counterexample(tmp_path: Path) -> None:
    """mont_r2 with q_i taken from bit 1 of T (an overlay of its RTL): the check fails with
    the failing assertion, the waveform and a vector file that replays it."""
    rtl = next(p for p in load_design("mont_r2").core_sources if p.name == "mont_r2.sv")
    text = rtl.read_text()
    assert "assign q_i       = t3[0];" in text
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / rtl.name).write_text(text.replace("assign q_i       = t3[0];",
                                                 "assign q_i       = t3[1];"))
    check = formal_checks.of_list(rlists.get_list("fl", write(
        tmp_path, '[fl]\n[[fl.formal]]\ndut = "mont_r2"\nn = 4\n')))[0]
    check = replace(check, spec=replace(check.spec, overlay=str(overlay)))
    reg = Regression("fl", 1, 1, tmp_path / "out", datetime.now().astimezone())
    reg.out_dir.mkdir()
    formal_checks.run_all([check], ScheduleOptions(1), reg)
    rec = reg.formal[check.key]
    assert (rec["status"], rec["ok"]) == ("failed", False), rec
    assert rec["failed_assertion"] and f"--overlay {overlay}" in rec["repro"]
    assert rec["trace"] and (reg.out_dir / rec["trace"]).is_file()
    vector = json.loads((reg.out_dir / rec["vector"]).read_text())
    assert vector["vectors"] and rec["replay"].startswith("montverif sim --dut mont_r2")
    assert not reg.passed


@pytest.mark.nightly(seconds=10)
@pytest.mark.formal
def test_resume_keeps_finished_checks_and_shards_merge(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    path = write(tmp_path)
    for i in (1, 2):
        assert main(tmp_path, path, "--shard", f"{i}/2", out=f"s{i}") == 0
    parts = [summary(tmp_path / f"s{i}")["formal"] for i in (1, 2)]
    assert sorted(len(p) for p in parts) == [1, 1]  # one check in each shard
    record = next((tmp_path / "s1" / "formal").glob("*/record.json"))
    stamp = record.stat().st_mtime_ns
    assert main(tmp_path, path, "--shard", "1/2", "--resume", out="s1") == 0
    assert record.stat().st_mtime_ns == stamp  # kept, not run again
    assert "resumed: 1 formal check(s) kept" in summary(tmp_path / "s1")["notes"]
    capsys.readouterr()
    merged = tmp_path / "merged"
    assert regress_cli.main(["--lists", str(path), "merge", str(merged),
                             str(tmp_path / "s1"), str(tmp_path / "s2"), "--history",
                             str(tmp_path / "history.jsonl")],
                            results_root=tmp_path / "results") == 0
    both = summary(merged)
    assert list(both["formal"]) == ["mont_r2-N4-bmc-k9", "mont_r2-N4-bmc-k9-fault"]
    assert both["formal_planned"] == 2 and not any("incomplete" in n for n in both["notes"])
    assert all((merged / r["dir"] / "record.json").is_file() for r in both["formal"].values())


def _rec(dut: str, mode: str, status: str, depth: int, n: int = 4, **more: Any
         ) -> dict[str, Any]:
    """A check's record as run_one writes it (the fields cores() and describe() read)."""
    wanted = formal_checks.PROVED_OR_OPEN if mode == "prove" else "passed"
    ok = status in ("passed", "bounded", "proved") or (mode == "prove" and status == "unknown")
    return {"dut": dut, "mode": mode, "status": status, "depth": depth, "point": {"N": n},
            "wanted": wanted, "ok": ok, "message": "", "failed_assertion": "", **more}


def test_each_core_in_one_word_from_its_records() -> None:
    """The stand-in of the nightly's run below: PROVED when induction closed, BOUNDED by its
    bounded checks when it stayed open, FAILED or NOT RUN when a check missed, a fault
    build's expected failure left out."""
    recs = [_rec("mont_r2", "bmc", "bounded", 20), _rec("mont_r2", "prove", "proved", 9),
            _rec("mont_csa_u2", "bmc", "bounded", 18),
            _rec("mont_csa_u2", "bmc", "bounded", 24, n=6),
            _rec("mont_csa_u2", "prove", "unknown", 0, message="not proved within 1 s"),
            _rec("mont_lut", "bmc", "failed", 7, failed_assertion="u_core.a_sum"),
            _rec("mont_lut", "bmc", "failed", 3, fault=True, ok=True),
            _rec("mwr2mm", "bmc", formal_checks.SKIPPED, 0, ok=False,
                 message="not started: interrupted")]
    cores = formal_checks.cores(recs)
    assert cores == {"mont_r2": "PROVED (k-induction at depth 9, N=4)",
                     "mont_csa_u2": "BOUNDED (N=4 to depth 18, N=6 to depth 24)",
                     "mont_lut": "FAILED (failed: u_core.a_sum at step 7)",
                     "mwr2mm": "NOT RUN (skipped: not started: interrupted)"}
    assert formal_checks.describe(recs[4]).startswith("open: induction did not close (not "
                                                      "within 1 s)")


@pytest.mark.formal
@pytest.mark.nightly(seconds=75)
def test_prove_reports_each_core_proved_or_bounded(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """mont_r2's induction closes (PROVED); mont_csa_u2's, given one second, does not: open,
    the check passes and the core stays BOUNDED by its bounded check."""
    path = write(tmp_path, '[fl]\n[[fl.formal]]\ndut = "mont_r2"\nn = 4\nprove = true\n'
                           '[[fl.formal]]\ndut = "mont_csa_u2"\nn = 4\nprove = true\n'
                           "prove_timeout = 1\n")
    assert main(tmp_path, path) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "4 passed, 0 failed"
    recs = summary(tmp_path / "out")["formal"]
    proved = next(r for r in recs.values() if r["dut"] == "mont_r2" and r["mode"] == "prove")
    opened = next(r for r in recs.values() if r["dut"] == "mont_csa_u2" and r["mode"] == "prove")
    assert (proved["status"], proved["ok"]) == ("proved", True)
    assert opened["status"] in ("unknown", "bounded") and opened["ok"]
    assert formal_checks.describe(opened).startswith("open: induction did not close")
    bound = next(r for r in recs.values() if r["dut"] == "mont_csa_u2" and r["mode"] == "bmc")
    cores = formal_checks.cores(list(recs.values()))
    assert cores["mont_r2"].startswith(f"PROVED (k-induction at depth {proved['depth']}, N=4)")
    assert cores["mont_csa_u2"] == f"BOUNDED (N=4 to depth {bound['depth']})"
    assert f"cores: mont_r2 {cores['mont_r2']}; mont_csa_u2 {cores['mont_csa_u2']}" in out
    assert cores["mont_r2"] in markdown.render_folder(tmp_path / "out")
    suite = next(s for s in ET.parse(tmp_path / "out" / "junit.xml").getroot()
                 .iter("testsuite") if s.get("name") == "formal")
    assert sorted(str(c.get("name")) for c in suite.iter("testcase")) == [
        "N4", "N4", "N4-prove", "N4-prove"]


@pytest.mark.formal
def test_prove_catches_a_core_that_fails_its_second_operation(tmp_path: Path) -> None:
    """mont_r2 whose load keeps the accumulator: the first operation after reset is right
    (its bounded check passes), the second is not, so the induction check fails."""
    rtl = next(p for p in load_design("mont_r2").core_sources if p.name == "mont_r2.sv")
    text = rtl.read_text()
    old = "      acc_q <= '0;\n    end else if (loop)"
    assert text.count(old) == 1
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / rtl.name).write_text(text.replace(old, old.replace("'0", "acc_q")))
    checks = formal_checks.of_list(rlists.get_list("fl", write(
        tmp_path, '[fl]\n[[fl.formal]]\ndut = "mont_r2"\nn = 4\nprove = true\n')))
    checks = tuple(replace(c, spec=replace(c.spec, overlay=str(overlay))) for c in checks)
    reg = Regression("fl", 1, 1, tmp_path / "out", datetime.now().astimezone())
    reg.out_dir.mkdir()
    formal_checks.run_all(checks, ScheduleOptions(2), reg)
    bounded, prove = (reg.formal[c.key] for c in checks)
    assert (bounded["status"], bounded["ok"]) == ("bounded", True)
    assert (prove["status"], prove["ok"]) == ("failed", False), prove
    assert formal_checks.cores(list(reg.formal.values()))["mont_r2"].startswith("FAILED")
    assert not reg.passed
