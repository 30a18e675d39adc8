"""Coverage merge, goals and closure report (regress/coverage/merge.py and closure.py) on
synthetic results folders: expectations are computed from the generated hit tables."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cocotb_coverage.coverage import coverage_db
from ucis.cover_type_t import CoverTypeT
from ucis.history_node_kind import HistoryNodeKind
from ucis.scope_type_t import ScopeTypeT
from ucis.xml.xml_reader import XmlReader

from montverif.regress.cli import closure as closure_cli
from montverif.regress.cli import regress as regress_cli
from montverif.regress.coverage import closure
from montverif.regress.coverage import merge as cov
from montverif.regress.flow import spec
from montverif.verif.env.coverage import FIELDS, WIDTHS, Coverage

ROOT = Path(__file__).resolve().parents[2]

# point -> (at_least, bins) of a synthetic DUT "syn" (bins named like the real model's)
POINTS = {"lut.addr": (1, [str(a) for a in range(8)]),
          "operands.x": (1, ["zero", "one", "m_minus_1", "short", "wide"]),
          "final_sub": (2, ["taken", "not_taken"]),
          "cross.sub_x_m": (1, ["(True, 'short')", "(False, 'short')"])}

Hits = dict[str, dict[str, int]]  # point -> bin -> hits


def write_xml(path: Path, dut: str, hits: Hits) -> None:
    """A cocotb-coverage style XML file (the layout coverage_db.export_to_xml writes)."""
    top = ET.Element("top", abs_name="top")
    group = ET.SubElement(top, dut, abs_name=f"top.{dut}")
    # a helper point of the cross: must be ignored by the merge
    src = ET.SubElement(group, "cross_src", abs_name=f"top.{dut}.cross_src")
    helper = ET.SubElement(src, "m", abs_name=f"top.{dut}.cross_src.m", at_least="1")
    ET.SubElement(helper, "bin0", bin="short", hits="0", abs_name=f"top.{dut}.cross_src.m.bin0")
    for point, (at_least, bins) in POINTS.items():
        parent = group
        parts = point.split(".")
        for i, part in enumerate(parts[:-1]):
            name = f"top.{dut}." + ".".join(parts[:i + 1])
            found = next((e for e in parent if e.get("abs_name") == name), None)
            parent = found or ET.SubElement(parent, part, abs_name=name)
        el = ET.SubElement(parent, parts[-1], abs_name=f"top.{dut}.{point}",
                           at_least=str(at_least), weight="1", size=str(len(bins)),
                           coverage=str(sum(hits[point][b] >= at_least for b in bins)))
        for i, b in enumerate(bins):
            ET.SubElement(el, f"bin{i}", bin=b, hits=str(hits[point][b]),
                          abs_name=f"top.{dut}.{point}.bin{i}")
    _sizes(top)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(top).write(path)


def _sizes(el: ET.Element) -> tuple[int, int]:
    """size / coverage / cover_percentage of the groups, as cocotb-coverage writes them."""
    if "at_least" in el.attrib:
        size, covered = int(el.get("size", "0")), int(el.get("coverage", "0"))
    else:
        sums = [_sizes(child) for child in el if "bin" not in child.attrib]
        size, covered = sum(s for s, _ in sums), sum(c for _, c in sums)
        el.set("size", str(size))
        el.set("coverage", str(covered))
    el.set("cover_percentage", str(round(100 * covered / size, 2) if size else 0.0))
    return size, covered


def random_hits(rng: random.Random) -> Hits:
    return {p: {b: rng.choice([0, 0, 0, 1, 2]) for b in bins} for p, (_, bins) in POINTS.items()}


def make_results(root: Path, runs: list[tuple[str, str, str, Hits | None]]) -> Path:
    """runs: (key, dut, status, hits or None for no coverage file); folder order reversed
    against the summary order, so only summary.json can give the run order."""
    records = []
    for key, dut, status, hits in runs:
        folder = root / "runs" / key
        folder.mkdir(parents=True)
        if hits is not None:
            write_xml(folder / "coverage.xml", dut, hits)
        sim_ = "icarus" if "-icarus-" in key else "verilator"
        seed = int(key.rsplit("-s", 1)[1])
        records.append({"key": key, "dut": dut, "status": status, "seed": seed, "sim": sim_,
                        "tests": ["RandomTest", "CornerTest"][:1 + seed % 2],
                        "repro": f"montverif sim --dut {dut} --seed {seed}",
                        "log_dir": "/elsewhere/" + key})
    (root / "summary.json").write_text(json.dumps({
        "list": "syn", "start": "2026-11-24T03:04:05+00:00",
        "versions": {"verilator": "5.048", "icarus": "12.0"}, "runs": records}))
    return root


def expected(runs: list[tuple[str, str, str, Hits | None]], dut: str
             ) -> tuple[dict[str, int], dict[str, str]]:
    """Merged hits and first-hit keys computed directly from the hit tables."""
    total: dict[str, int] = {}
    first: dict[str, str] = {}
    for key, d, status, hits in runs:
        if d != dut or status != "PASS" or hits is None:
            continue
        for point, bins in hits.items():
            at_least = POINTS[point][0]
            for b, h in bins.items():
                name = f"{dut}.{point}:{b}"
                total[name] = total.get(name, 0) + h
                if total[name] >= at_least and name not in first:
                    first[name] = key
    return total, first


@pytest.fixture
def synthetic(tmp_path: Path) -> tuple[Path, list[tuple[str, str, str, Hits | None]]]:
    rng = random.Random(7)
    runs: list[tuple[str, str, str, Hits | None]] = []
    for i, seed in enumerate(rng.sample(range(1, 999), 6)):
        sim_ = "icarus" if i % 2 else "verilator"
        runs.append((f"syn-n32-b32-{sim_}-s{seed}", "syn", "PASS", random_hits(rng)))
    runs.append(("syn-n32-b32-verilator-s5", "syn", "FAIL", random_hits(rng)))
    runs.append(("syn-n32-b32-verilator-s6", "syn", "PASS", None))
    runs.append(("other-n32-b32-verilator-s9", "other", "PASS", random_hits(rng)))
    return make_results(tmp_path / "res", runs), runs


def test_merge_sums_hits_and_finds_first_hits(synthetic) -> None:
    results, runs = synthetic
    summary = cov.merge_results(results)
    hits, first = expected(runs, "syn")
    d = summary["duts"]["syn"]
    covered = [b for b, h in hits.items() if h >= POINTS[b.split(".", 1)[1].split(":")[0]][0]]
    assert d["total"] == sum(len(bins) for _, bins in POINTS.values()) == len(hits)
    assert d["covered"] == len(covered)
    assert d["percent"] == round(100 * len(covered) / len(hits), 2)
    assert sorted(d["uncovered"]) == sorted(set(hits) - set(covered))
    assert d["first_hit"] == first
    assert d["runs"] == 6  # the failed run and the one without coverage.xml are not merged
    assert summary["skipped_runs"] == {"syn-n32-b32-verilator-s5": "not passed",
                                       "syn-n32-b32-verilator-s6": "no coverage.xml"}
    assert not [b for b in [*d["first_hit"], *d["uncovered"]] if ".cross_src." in b]
    assert set(summary["duts"]) == {"syn", "other"}
    assert summary["overall"]["total"] == 2 * len(hits)
    # the merged XML (cocotb-coverage's merge) agrees bin by bin
    merged = cov.read_points(results / "coverage" / "syn.xml")
    for name, h in hits.items():
        point, _, b = name.partition(":")
        assert merged[point].hits[b] == h, name
    both = cov.read_points(results / "coverage" / "merged.xml")
    assert {p.split(".")[0] for p in both} == {"syn", "other"}
    on_disk = json.loads((results / "coverage" / "summary.json").read_text())
    assert on_disk["duts"]["syn"] == d


def test_first_hit_follows_summary_order(synthetic) -> None:
    results, runs = synthetic
    data = json.loads((results / "summary.json").read_text())
    data["runs"].reverse()
    (results / "summary.json").write_text(json.dumps(data))
    _, first = expected(list(reversed(runs)), "syn")
    assert cov.merge_results(results)["duts"]["syn"]["first_hit"] == first


def test_real_cocotb_coverage_export_is_read(tmp_path: Path) -> None:
    """The parser reads what verif/env/coverage.py actually writes."""
    c = Coverage("covread", 4)
    c.sample_operation({"X": 0, "Y": 5, "M": 0xEB}, 8, [1, 0, 2, 0], sub_taken=True)
    c.export(tmp_path)
    points = cov.read_points(tmp_path / "coverage.xml")
    for name, item in coverage_db.items():
        if name.startswith("covread.") and name in points:
            assert points[name].hits == {str(k): v for k, v in item.detailed_coverage.items()}
    assert points["covread.lut.addr"].hits == {"0": 1, "1": 0, "2": 1, "3": 0}
    assert not [p for p in points if ".cross_src." in p]


def test_waivers_and_goal_from_config(tmp_path: Path) -> None:
    """A DUT's [coverage] table (its descriptor's; here given for a synthetic DUT): goal,
    waived bins and their reason."""
    goals = {"syn": {"goal": 90, "waive": ["lut.addr:7", "cross.sub_x_m:(True, *)"],
                     "waive_reason": "unreachable"}}
    hits = {p: {b: 1 for b in bins} for p, (_, bins) in POINTS.items()}
    hits["lut.addr"]["7"] = 0
    hits["cross.sub_x_m"]["(True, 'short')"] = 0
    hits["final_sub"] = {"taken": 1, "not_taken": 2}  # at_least 2: taken uncovered
    results = make_results(tmp_path / "res", [("syn-s1", "syn", "PASS", hits)])
    d = cov.merge_results(results, goals=goals)["duts"]["syn"]
    total = sum(len(b) for _, b in POINTS.values()) - 2
    assert d["waived"] == ["syn.lut.addr:7", "syn.cross.sub_x_m:(True, 'short')"]
    assert (d["covered"], d["total"], d["goal"]) == (total - 1, total, 90.0)
    assert d["uncovered"] == ["syn.final_sub:taken"]
    assert d["met"] == (100 * (total - 1) / total >= 90)
    with pytest.raises(cov.CoverageError,
                       match=re.escape("syn: [coverage] goal: 120 is above 100 (legal: 0..100)")):
        cov.merge_results(results, goals={"syn": {"goal": 120}})


def test_enforced_merge_fails_naming_dut_and_bins(synthetic, capsys) -> None:
    results, runs = synthetic
    hits, _ = expected(runs, "syn")
    assert closure_cli.main(["merge", str(results)]) == 0
    assert closure_cli.main(["merge", str(results), "--enforce"]) == 1
    err = capsys.readouterr().err
    missing = cov.load_summary(results)["duts"]["syn"]["uncovered"]
    assert missing, "the synthetic data must leave holes"
    line = next(ln for ln in err.splitlines() if "syn " in ln)
    assert line.startswith("error: coverage goal missed: syn ")
    for b in missing:
        assert b.removeprefix("syn.") in line


def test_report_formats(synthetic, capsys) -> None:
    results, _ = synthetic
    cov.merge_results(results)
    summary = cov.load_summary(results)
    assert closure_cli.main(["report", str(results)]) == 0
    text = capsys.readouterr().out
    for b, key in summary["duts"]["syn"]["first_hit"].items():
        assert f"first hit: {b} <- {key}" in text
    assert closure_cli.main(["report", str(results), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == summary
    out = results / "cov.md"
    assert closure_cli.main(["report", str(results), "--format", "markdown",
                             "--out", str(out)]) == 0
    md = out.read_text()
    assert "| syn |" in md and all(f"`{b}`" in md for b in summary["duts"]["syn"]["uncovered"])


def test_bad_results_folder_is_one_line_error(tmp_path: Path, capsys) -> None:
    assert closure_cli.main(["merge", str(tmp_path / "none")]) == 2
    assert closure_cli.main(["report", str(tmp_path)]) == 2
    (tmp_path / "summary.json").write_text("{not json")
    assert closure_cli.main(["merge", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(ln.startswith("error: ") for ln in err)
    assert "summary.json: not JSON" in err[2]


def test_targets_from_uncovered_bins() -> None:
    bias = closure.bias_for("d", ["d.lut.addr:5", "d.operands.y:one", "d.final_sub:taken",
                                  "d.cross.sub_x_m:(True, 'short')", "d.errors.code:ERR_BUSY"])
    assert bias is not None
    got = [(t.lut, t.y, t.sub, t.m) for t in bias.targets]
    assert got == [((5,), None, None, None), ((), "one", None, None), ((), None, True, None),
                   ((), None, True, "short")]
    assert closure.bias_for("d", ["d.errors.code:ERR_BUSY"]) is None


# --- the hook of `regress run` (fake launcher: no simulator) ---------------------------------
GOAL_LIST = """
[cov]
description = "two seeds of one model"
{flag}
[[cov.entry]]
dut = "mont_lut"
widths = [32]
bus_widths = [32]
simulators = ["verilator"]
seeds = 2
txns = 4
"""


class CoverageLauncher:
    """Passes every run and leaves a coverage.xml of DUT mont_lut with the given hits."""

    def __init__(self, hits: list[Hits]) -> None:
        self.hits = hits
        self.count = 0

    def check(self, run) -> None:
        return None

    def build(self, spec) -> float:
        return 0.1

    def run(self, run, log_dir: Path):
        from montverif.regress.flow.spec import Outcome

        log_dir.mkdir(parents=True)
        hits = self.hits[run.seed % len(self.hits)]
        write_xml(log_dir / "coverage.xml", "mont_lut", hits)
        return Outcome(run, True, log_dir, tests=5, wall_s=0.1)


@pytest.mark.sim
@pytest.mark.parametrize("enforce", [True, False])
def test_regress_run_fails_a_list_whose_dut_misses_its_goal(tmp_path: Path, capsys,
                                                            enforce: bool) -> None:

    lists = tmp_path / "lists.toml"
    lists.write_text(GOAL_LIST.format(flag="coverage_goals = true" if enforce else ""))
    full = {p: {b: at_least for b in bins} for p, (at_least, bins) in POINTS.items()}
    holed = {p: dict(bins) for p, bins in full.items()}
    holed["lut.addr"]["3"] = 0  # never hit by either run
    rc = regress_cli.main(["--lists", str(lists), "regress", "--list", "cov", "--jobs", "1",
                           "--out",
                  str(tmp_path / "out")], launcher=CoverageLauncher([holed]),
                 results_root=tmp_path / "results")
    out, err = capsys.readouterr()
    summary = cov.load_summary(tmp_path / "out")
    assert summary["duts"]["mont_lut"]["uncovered"] == ["mont_lut.lut.addr:3"]
    assert "functional coverage: 2 run(s) merged" in out and "MISSED" in out
    assert out.strip().splitlines()[-1] == "2 passed, 0 failed"  # CI's last line unchanged
    if enforce:
        assert rc == 1
        assert "error: coverage goal missed: mont_lut" in err and "lut.addr:3" in err
    else:
        assert rc == 0 and "goal missed" not in err
    # both seeds hit every bin: the goal is met and the list passes
    rc = regress_cli.main(["--lists", str(lists), "regress", "--list", "cov", "--jobs", "1",
                           "--out",
                  str(tmp_path / "out2")], launcher=CoverageLauncher([full]),
                 results_root=tmp_path / "results")
    assert rc == 0
    assert cov.load_summary(tmp_path / "out2")["duts"]["mont_lut"]["met"]


# --- the closure loop (simulator replaced by a fake that honours the run's bias) ----------
def fake_closure_sim(monkeypatch, hole: str) -> list[str | None]:
    """Runs pass; lut.addr `hole` is hit only when the run's bias steers at it. Returns the
    bias each run had."""
    from montverif.verif.steer import Bias

    seen: list[str | None] = []

    def execute(run, log_dir):
        text = run.bias or None
        seen.append(text)
        hits = {p: {b: at_least for b in bins} for p, (at_least, bins) in POINTS.items()}
        steered = text and any(hole in map(str, t.lut) for t in Bias.parse(text).targets)
        hits["lut.addr"][hole] = 1 if steered else 0
        log_dir.mkdir(parents=True, exist_ok=True)
        write_xml(log_dir / "coverage.xml", run.build.dut, hits)
        return spec.Outcome(run, True, log_dir, tests=5, wall_s=0.01)

    monkeypatch.setattr(closure.check, "validate", lambda run: None)
    monkeypatch.setattr(closure.flow_build, "build", lambda spec, design: (Path("."), 0.0))
    monkeypatch.setattr(closure.simulate, "execute", execute)
    return seen


def test_closure_loop_steers_at_the_hole_and_stops(tmp_path: Path, monkeypatch) -> None:
    from montverif.regress.flow.spec import BuildSpec

    seen = fake_closure_sim(monkeypatch, "3")
    spec = BuildSpec("mont_lut", 32)
    res = closure.closure_loop(spec, 5, ("RandomTest",), 20, 600, 2, True, tmp_path / "s")
    assert res["met"] and res["seeds"] == 4  # batch 1 finds the hole, batch 2 closes it
    assert seen[:2] == [None, None]
    assert all(json.loads(t or "")["targets"] == [{"lut": [3]}] for t in seen[2:])
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    steered = [r for r in summary["runs"] if r["bias"]]
    assert len(steered) == 2 and all(" --bias '" in r["repro"] for r in steered)
    first = cov.load_summary(tmp_path / "s")["duts"]["mont_lut"]["first_hit"]
    assert first["mont_lut.lut.addr:3"] == steered[0]["key"]
    # plain random never closes it: the seed budget ends the loop
    seen.clear()
    res = closure.closure_loop(spec, 5, ("RandomTest",), 5, 600, 2, False, tmp_path / "r")
    assert not res["met"] and res["seeds"] == 5 and set(seen) == {None}
    assert res["uncovered"] == ["mont_lut.lut.addr:3"]
    assert json.loads((tmp_path / "r" / "closure.json").read_text())["seeds"] == 5


def _rsa_export(folder: Path, const_time: bool) -> Path:
    """coverage.xml of an RSA run of one build kind, exported in a fresh process (the
    cocotb-coverage database is global)."""
    code = ("import sys; from pathlib import Path; from verif.env.rsa_coverage import RsaCoverage;"
            f"c = RsaCoverage('rsa_core', {const_time}); c.sample_exp(1, 3, 7, 8);"
            f"c.sample_step('to:A+S'); c.export(Path(sys.argv[1]))")
    folder.mkdir(parents=True)
    subprocess.run([sys.executable, "-c", code, str(folder)], check=True, cwd=ROOT)
    return folder / "coverage.xml"


def test_constant_time_and_variable_time_runs_merge(tmp_path: Path) -> None:
    """The two RSA build kinds have different step-activity bins: each kind has its own
    cover point, so their runs merge (a nightly has both; one point with two bin sets made
    cocotb-coverage's merge fail with KeyError 'coverage')."""
    ct, vt = _rsa_export(tmp_path / "ct", True), _rsa_export(tmp_path / "vt", False)
    cov._merge_xml(tmp_path / "merged.xml", [ct, vt])
    points = cov.read_points(tmp_path / "merged.xml")
    assert "rsa_core.step.activity_ct" in points and "rsa_core.step.activity_vt" in points
    assert points["rsa_core.step.activity_ct"].hits["to:A+S"] == 1


def test_a_merge_failure_is_one_line(tmp_path: Path, monkeypatch) -> None:
    def broken(*_args: object) -> None:
        raise KeyError("coverage")

    monkeypatch.setattr(cov, "merge_coverage", broken)
    with pytest.raises(cov.CoverageError, match="cannot merge the coverage XML of 2 run") as info:
        cov._merge_xml(tmp_path / "x.xml", [tmp_path / "a" / "coverage.xml",
                                            tmp_path / "b" / "coverage.xml"])
    assert "\n" not in str(info.value) and "KeyError" in str(info.value)


# --- UCIS export, read back with pyucis -----------------------------------------------------
def ucis_bins(path: Path) -> dict[str, dict[str, tuple[int, int, bool]]]:
    """Per design, every bin `<design>.<point>:<bin>` -> (hits, at_least, ignored), as pyucis
    reads the UCIS XML back (after validating it against the UCIS schema pyucis ships)."""
    XmlReader.validate(str(path))
    db = XmlReader().loads(path.read_text())
    out: dict[str, dict[str, tuple[int, int, bool]]] = {}
    for inst in db.scopes(ScopeTypeT.INSTANCE):
        for group in inst.scopes(ScopeTypeT.COVERGROUP):
            bins = out.setdefault(group.getScopeName(), {})
            for cover in group.scopes(ScopeTypeT.COVERINSTANCE):
                for cp in cover.scopes(ScopeTypeT.COVERPOINT):
                    for item in cp.coverItems(CoverTypeT.CVGBIN | CoverTypeT.IGNOREBIN):
                        data = item.getCoverData()
                        name = f"{group.getScopeName()}.{cp.getScopeName()}:{item.getName()}"
                        bins[name] = (data.data, cp.getAtLeast(),
                                      data.type == CoverTypeT.IGNOREBIN)
    return out


def ucis_history(path: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The history pyucis reads back: the merge node and its test nodes, each as a dict of
    what it holds."""
    db = XmlReader().loads(path.read_text())
    nodes = list(db.historyNodes(HistoryNodeKind.ALL))

    def record(h: Any) -> dict[str, object]:
        return {"name": h.getLogicalName(), "kind": h.getKind(), "ok": h.getTestStatus(),
                "seed": h.getSeed(), "tool": h.getVendorTool(),
                "version": h.getVendorToolVersion(), "date": h.getDate(), "cmd": h.getCmd(),
                "args": h.getArgs(), "comment": h.getComment(), "parent": h.getParent()}

    (merge,) = [h for h in nodes if h.getKind() == HistoryNodeKind.MERGE]
    tests = [record(h) for h in nodes if h.getKind() == HistoryNodeKind.TEST]
    assert all(t["parent"] is merge for t in tests)
    return record(merge), tests


def check_history(path: Path, results: Path, duts: set[str] | None = None) -> None:
    """The UCIS file's history names every run of the results folder (of `duts`) as
    summary.json holds it: key, seed, status, simulator and its version, the regression's
    start, the repro and tests, merged or why not (coverage/summary.json)."""
    regression = json.loads((results / "summary.json").read_text())
    skipped = json.loads((results / "coverage" / "summary.json").read_text())["skipped_runs"]
    start = regression["start"][:19].replace("-", "").replace("T", "").replace(":", "")
    merge, tests = ucis_history(path)
    assert merge["name"] == f"montverif {regression['list']}" and merge["date"] == start
    want = [r for r in regression["runs"] if duts is None or r["dut"] in duts]
    assert [t["name"] for t in tests] == [r["key"] for r in want]
    for t, r in zip(tests, want, strict=True):
        merged = f"not merged: {skipped[r['key']]}" if r["key"] in skipped else "merged"
        assert t == {**t, "ok": r["status"] == "PASS", "seed": str(r["seed"]),
                     "tool": r["sim"], "version": regression["versions"][r["sim"]],
                     "date": start, "cmd": r["repro"], "args": " ".join(r["tests"]),
                     "comment": f"{r['status']}, {merged}"}, r["key"]
    assert merge["ok"] == all(r["status"] == "PASS" for r in want)


def check_ucis(path: Path, summary: dict) -> None:
    """What a UCIS reader counts equals summary.json: covered, total, uncovered, waived."""
    designs = ucis_bins(path)
    assert set(designs) == set(summary["duts"])
    for dut, bins in designs.items():
        d = summary["duts"][dut]
        counted = {b: h >= at_least for b, (h, at_least, ignored) in bins.items() if not ignored}
        assert (sum(counted.values()), len(counted)) == (d["covered"], d["total"]), dut
        assert sorted(b for b, ok in counted.items() if not ok) == sorted(d["uncovered"])
        assert sorted(b for b, (_, _, ignored) in bins.items() if ignored) == sorted(d["waived"])


def test_ucis_export_reads_back(synthetic) -> None:
    results, runs = synthetic
    summary = cov.merge_results(results)
    check_ucis(results / "coverage" / "merged.ucis.xml", summary)
    one = results / "coverage" / "syn.ucis.xml"
    check_ucis(one, {**summary, "duts": {"syn": summary["duts"]["syn"]}})
    # the test history: every run (the failed one and the one without coverage too)
    check_history(results / "coverage" / "merged.ucis.xml", results)
    check_history(one, results, {"syn"})
    with pytest.raises(AssertionError):  # a design's file names only that design's runs
        check_history(one, results)
    merged = results / "coverage" / "merged.ucis.xml"
    text = merged.read_text()
    for wrong in (text.replace('seed="', 'seed="1', 1), text.replace('"icarus"', '"xcelium"', 1),
                  text.replace('testStatus="false"', 'testStatus="true"', 1)):
        assert wrong != text
        merged.write_text(wrong)
        with pytest.raises(AssertionError):
            check_history(merged, results)
    hits, _ = expected(runs, "syn")
    assert {b: h for b, (h, _, _) in ucis_bins(one)["syn"].items()} == hits  # bin by bin
    # a broken export is caught: one bin's hits changed in the file
    text = one.read_text()
    bad = text.replace('coverageCount="0"', 'coverageCount="5"', 1)
    assert bad != text
    one.write_text(bad)
    with pytest.raises(AssertionError):
        check_ucis(one, {**summary, "duts": {"syn": summary["duts"]["syn"]}})


def test_ucis_export_marks_waived_bins(tmp_path: Path) -> None:
    goals = {"syn": {"goal": 90, "waive": ["lut.addr:7"], "waive_reason": "unreachable"}}
    hits = {p: {b: 1 for b in bins} for p, (_, bins) in POINTS.items()}
    hits["lut.addr"]["7"] = 0
    hits["final_sub"] = {"taken": 1, "not_taken": 2}  # at_least 2: taken uncovered
    results = make_results(tmp_path / "res", [("syn-s1", "syn", "PASS", hits)])
    summary = cov.merge_results(results, goals=goals)
    check_ucis(results / "coverage" / "merged.ucis.xml", summary)
    bins = ucis_bins(results / "coverage" / "syn.ucis.xml")["syn"]
    assert bins["syn.lut.addr:7"] == (0, 1, True) and bins["syn.final_sub:taken"] == (1, 2, False)


# --- bins a width cannot reach ---------------------------------------------------------------
def _dual_run(root: Path, key: str, n: int) -> dict[str, object]:
    """A passing mont_dual run at width n whose coverage (the real model, in a process of its
    own: cocotb-coverage keeps one database per process) saw one operation in each field."""
    folder = root / "runs" / key
    folder.mkdir(parents=True)
    code = ("import sys; from pathlib import Path; "
            "from montverif.verif.env.coverage import Coverage; n = int(sys.argv[2]); "
            "c = Coverage('mont_dual', 0, has_field=True); m = (1 << (n - 1)) | 3; "
            "[c.sample_operation({'X': 3, 'Y': 5, 'M': m}, n, [], False, f) for f in (0, 1)]; "
            "c.export(Path(sys.argv[1]))")
    subprocess.run([sys.executable, "-c", code, str(folder), str(n)], check=True, cwd=ROOT)
    return {"key": key, "dut": "mont_dual", "n": n, "status": "PASS"}


def test_bins_a_width_cannot_reach_are_not_holes(tmp_path: Path) -> None:
    """mont_dual's field x width cross has a column per width class: a run at N = 163
    reaches only N in 129..192. The other columns are listed as unreachable there, with the
    widths they need, and leave the total; a run at N = 97 makes its column reachable (and
    covers it), so only the two others stay unreachable."""
    runs = [_dual_run(tmp_path, "a", 163)]
    (tmp_path / "summary.json").write_text(json.dumps({"runs": runs}))
    d = cov.merge_results(tmp_path)["duts"]["mont_dual"]
    cross = "mont_dual.cross.field_x_width"
    away = {f"{cross}:{(f, w)!r}" for f in FIELDS for w in WIDTHS if w != "n_129_192"}
    assert set(d["unreachable"]) == away and d["widths"] == [163]
    assert d["unreachable"][f"{cross}:('gfp', 'n_le_128')"] == \
        "not reachable at N=163 (needs N in 1..128)"
    assert not away & set(d["uncovered"])
    assert d["total"] == d["covered"] + len(d["uncovered"])
    every = d["total"] + len(d["unreachable"]) + len(d["waived"])
    runs.append(_dual_run(tmp_path, "b", 97))
    (tmp_path / "summary.json").write_text(json.dumps({"runs": runs}))
    both = cov.merge_results(tmp_path)["duts"]["mont_dual"]
    assert set(both["unreachable"]) == {b for b in away if "n_le_128" not in b}
    assert {f"{cross}:('gfp', 'n_le_128')", f"{cross}:('gf2n', 'n_le_128')"} <= \
        set(both["first_hit"])
    assert both["total"] + len(both["unreachable"]) + len(both["waived"]) == every
    text = closure.format_text(cov.load_summary(tmp_path))
    assert f"unreachable: {cross}:('gfp', 'n_gt_256') (not reachable at N=97, 163 " \
           "(needs N >= 257))" in text


def test_closure_plans_the_points_a_bin_needs() -> None:
    """mont_dual at N = 163: one more build per width class it cannot reach, each at the
    legal width nearest 163; a design without a field cross needs none."""
    extra, never = closure.plan_points(spec.BuildSpec("mont_dual", 163, 32, "verilator"))
    assert [p.n for p in extra] == [128, 193, 257] and not never
    assert {p.dut for p in extra} == {"mont_dual"}
    assert closure.plan_points(spec.BuildSpec("mont_lut", 163, 32, "verilator")) == ([], {})


def test_every_batch_runs_the_chosen_point() -> None:
    """The first batch runs a seed at each other point and at least one at the chosen N;
    later batches go to another point only for a hole that only it can reach."""
    main = spec.BuildSpec("mont_dual", 163, 32, "verilator")
    extra, _ = closure.plan_points(main)
    points = [main, *extra]
    first = closure._batch(points, [], "mont_dual", 2, True)
    assert first[0] == main and sorted(p.n for p in first[1:]) == [128, 193, 257]
    hole = "mont_dual.cross.field_x_width:('gfp', 'n_le_128')"
    later = closure._batch(points, [hole, "mont_dual.lut.addr:3"], "mont_dual", 2, False)
    assert [p.n for p in later] == [163, 128]
    assert [p.n for p in closure._batch(points, ["mont_dual.lut.addr:3"], "mont_dual", 2,
                                        False)] == [163, 163]
