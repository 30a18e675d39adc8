"""The benchmark tool: the raw harness performs the testbench's transfers and its results
are checked against gmpy2; the tables are computed from the measurements."""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.models.registry import get_algo
from montverif.regress.bench import common as bench_common
from montverif.regress.bench import floors as bench_floors
from montverif.regress.bench import harness as bench_harness
from montverif.regress.bench import points as bench_points
from montverif.regress.bench import profile as bench_profile
from montverif.regress.bench import render as bench_render
from montverif.regress.bench import walls as bench_walls
from montverif.regress.bench.common import Record
from montverif.regress.bench.fixed import fixed_cost
from montverif.regress.cli import bench as bench_cli
from montverif.regress.flow import spec as flow_spec
from montverif.regress.regression import results
from montverif.spec.designs import load_design


def test_vectors_are_valid_operations():
    design = load_design("mont_lut")
    vecs = bench_common.make_vectors(design, 64, 20, 1)
    assert len(vecs) == 20
    for v in vecs:
        assert v["M"] % 2 == 1 and v["M"] >> 63 == 1
        assert v["X"] < v["M"] and v["Y"] < v["M"]
    assert vecs == bench_common.make_vectors(design, 64, 20, 1)  # repeatable


def test_harness_read_check_catches_a_wrong_result():
    design = load_design("mont_lut")
    vecs = bench_common.make_vectors(design, 32, 2, 3)
    script = bench_harness.harness_script(design, 32, vecs, {})
    reads_per_op = sum(1 for line in script.splitlines() if line.startswith("R")) // 2
    # P is the first word read; fill the others with zeros: a wrong P must be reported
    reads = [0] * (2 * reads_per_op)
    with pytest.raises(bench_common.BenchError, match="gmpy2 expects"):
        bench_harness.check_harness_reads(design, 32, vecs, {}, reads)


def test_ratios_and_markdown_from_measurements():
    point = {"design": "mont_lut", "n": 256,
             "verilator": {"ops_per_s": {"median": 50.0, "low": 40.0, "high": 60.0},
                           "build_s": 9.0},
             "icarus": {"ops_per_s": {"median": 5.0, "low": 4.0, "high": 6.0}},
             "raw": {"ops_per_s": {"median": 200.0, "low": 190.0, "high": 210.0}}}
    r = bench_render.ratios(point)
    assert r["testbench_over_raw"] == pytest.approx(50 / 200)
    assert r["verilator_over_icarus"] == pytest.approx(10)
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": [point], "cycles": [],
                          "regressions": {}})
    assert "| mont_lut | 256 | 50.0 (40.0–60.0) | – | 200.0 (190.0–210.0) | 0.25 | – |" in md


def test_bad_input_is_one_line(capsys):
    assert bench_cli.main(["--designs", "nosuch"]) == 2
    assert "unknown DUT" in capsys.readouterr().err
    assert bench_cli.main(["--designs", "mont_lut", "--sims", "vcs"]) == 2
    assert "unknown simulator" in capsys.readouterr().err


def test_a_timed_list_names_its_revision_and_starts_fresh(tmp_path, monkeypatch):
    """regression_wall: each job count from no built model (a cache of builds of its own, the
    user's left alone) and an empty compiler cache; the result names the git revision, as a
    wall time taken from a finished regression does."""
    monkeypatch.setattr(bench_walls, "bench_build", lambda: tmp_path / "bench")
    monkeypatch.setattr(bench_walls.tools, "git_revision", lambda root: "abc1234")
    seen: list[tuple[list[str], bool]] = []

    class Done:
        returncode, stdout = 0, "...\n85 passed, 0 failed\n"

    def run(cmd, **kw):  # the list run: what it finds built, then it builds
        built = Path(kw["env"]["MV_CACHE"])
        assert built.is_relative_to(tmp_path / "bench")
        seen.append((cmd, built.exists() or Path(kw["env"]["CCACHE_DIR"]).exists()))
        built.mkdir(parents=True, exist_ok=True)
        Path(kw["env"]["CCACHE_DIR"]).mkdir(parents=True, exist_ok=True)
        jobs = int(cmd[cmd.index("--jobs") + 1])
        if jobs == 2:  # a run that wrote its summary: runs, campaigns and models apart
            folder = Path(cmd[cmd.index("--out") + 1])
            folder.mkdir(parents=True)
            (folder / "summary.json").write_text(json.dumps(
                {"jobs": 2, "wall_s": 1.0, "passed": 84, "failed": 0, "git": "abc1234ff",
                 "builds": [{}] * 39, "mutation": {"m": {"status": "passed"}}}))
        time.sleep(0.06)  # a wall time of at least 0.1 s after rounding
        return Done()

    monkeypatch.setattr(bench_walls.subprocess, "run", run)
    wall = bench_walls.regression_wall("smoke", [1, 2])
    assert [cmd[cmd.index("--jobs") + 1] for cmd, _ in seen] == ["1", "2"]
    assert [fresh for _, fresh in seen] == [False, False]  # the second run built nothing yet
    assert wall["1"]["last_line"] == "85 passed, 0 failed (git abc1234)"
    assert wall["2"]["last_line"] == ("84 passed, 0 failed; 1 mutation campaigns, 1 passed "
                                      "(39 models; from smoke-j2, git abc1234)")
    assert wall["2"]["wall_s"] >= 0.1  # timed here, not the summary's own figure
    assert wall["2"]["exit"] == 0 and "parallel_efficiency" in wall


def test_wall_time_from_a_finished_regression(tmp_path, capsys):
    run = tmp_path / "nightly-x"
    run.mkdir()
    summary: Record = {"jobs": 2, "wall_s": 2712.34, "passed": 470, "failed": 4, "shard": None,
               "builds": [{}] * 259, "git": "abcdef1234"}
    (run / "summary.json").write_text(json.dumps(summary))
    wall = bench_walls.wall_from_results(run)
    assert wall["2"]["wall_s"] == 2712.3 and wall["2"]["exit"] == 1
    assert "470 passed, 4 failed (259 models; from nightly-x, git abcdef1)" == wall["2"][
        "last_line"]
    out = tmp_path / "bench"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(
        {"machine": "m", "repeat": 3, "points": [], "cycles": [],
         "regressions": {"smoke": {"1": {"wall_s": 300.0, "exit": 0, "last_line": "ok"}}}}))
    assert bench_cli.main(["--update", "--wall-from", f"nightly={run}", "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| smoke | 1 | 300.0 | ok |" in md and "| nightly | 2 | 2712.3 |" in md
    assert "| nightly | efficiency |" not in md
    # the same list at one job, from another run: both rows, and the parallel efficiency
    one = tmp_path / "nightly-j1"
    one.mkdir()
    (one / "summary.json").write_text(json.dumps(summary | {"jobs": 1, "wall_s": 4881.0}))
    assert bench_cli.main(["--update", "--wall-from", f"nightly={one}", "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| nightly | 1 | 4881.0 |" in md and "| nightly | 2 | 2712.3 |" in md
    assert "| nightly | efficiency | 0.90 | |" in md  # 4881 / (2 x 2712.3)
    # a one-job time measured at another revision: kept, but not compared with the other
    (one / "summary.json").write_text(json.dumps(summary | {"jobs": 1, "wall_s": 4881.0,
                                                            "git": "1234567fed"}))
    assert bench_cli.main(["--update", "--wall-from", f"nightly={one}", "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| nightly | 1 | 4881.0 |" in md and "| nightly | efficiency |" not in md
    # both job counts of one revision in one command: both kept, and compared
    (one / "summary.json").write_text(json.dumps(summary | {"jobs": 1, "wall_s": 4881.0}))
    assert bench_cli.main(["--update", "--wall-from", f"nightly={one},nightly={run}",
                       "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| nightly | efficiency | 0.90 | |" in md and "| nightly | 1 | 4881.0 |" in md
    summary["shard"] = "1/4"
    (run / "summary.json").write_text(json.dumps(summary))
    assert bench_cli.main(["--update", "--wall-from", f"nightly={run}", "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert bench_cli.main(["--update", "--wall-from", "nightly", "--out", str(out)]) == 2
    assert "LIST=DIR" in capsys.readouterr().err
    # a list of mutation campaigns alone: no runs, the campaigns' verdicts
    summary |= {"shard": "", "passed": 0, "failed": 0, "builds": [], "jobs": 1,
                "mutation": {"a": {"status": "passed"}, "b": {"status": "failed"}}}
    (run / "summary.json").write_text(json.dumps(summary))
    wall = bench_walls.wall_from_results(run)["1"]
    assert wall["last_line"] == "2 mutation campaigns, 1 passed (from nightly-x, git abcdef1)"
    assert wall["exit"] == 1
    # some parts of a list only (--parts): the row says so, it is not the whole list's wall
    summary |= {"passed": 530, "mutation": {}, "notes": [results.PARTS_NOTE + "runs"]}
    (run / "summary.json").write_text(json.dumps(summary))
    wall = bench_walls.wall_from_results(run)["1"]
    assert wall["last_line"] == "runs only; 530 passed, 0 failed (0 models; from nightly-x, git " \
                                "abcdef1)"
    # a whole list with formal checks: their count and how many went as wanted (a check
    # that did not fails the wall, as a failed run does)
    summary |= {"notes": [], "formal": {"a": {"ok": True}, "b": {"ok": True}},
                "mutation": {"c": {"status": "passed"}}}
    (run / "summary.json").write_text(json.dumps(summary))
    wall = bench_walls.wall_from_results(run)["1"]
    assert wall["last_line"] == ("530 passed, 0 failed; 2 formal checks, 2 as wanted; "
                                 "1 mutation campaigns, 1 passed (from nightly-x, git abcdef1)")
    assert wall["exit"] == 0
    summary["formal"]["b"] = {"ok": False}
    (run / "summary.json").write_text(json.dumps(summary))
    wall = bench_walls.wall_from_results(run)["1"]
    assert "2 formal checks, 1 as wanted" in wall["last_line"] and wall["exit"] == 1


@pytest.mark.sim
def test_raw_harness_matches_gmpy2(tmp_path: Path):
    """Build the C++ harness for mont_lut at N=32 and check every result it read back."""
    design = load_design("mont_lut")
    vecs = bench_common.make_vectors(design, 32, 8, 5)
    exe, _ = bench_harness.build_harness(design, 32, {})
    script = tmp_path / "test-harness.txt"
    script.write_text(bench_harness.harness_script(design, 32, vecs, {}))
    secs, cycles, reads, idle_s = bench_harness.run_harness(exe, script, loops=2, idle=1000)
    bench_harness.check_harness_reads(design, 32, vecs, {}, reads)  # raises on any wrong P
    assert secs > 0 and cycles > 8 * 34 and idle_s > 0
    assert bench_harness.run_harness(exe, script, loops=2)[1] == cycles  # idle cycles not counted


def test_goal_line_names_the_bit_serial_designs_that_miss_it():
    def point(design: str, engine: float, serial: bool = True) -> Record:
        stat = {"median": engine, "low": engine, "high": engine}
        return {"design": design, "n": 1024, "bit_serial": serial,
                "verilator_engine": {"ops_per_s": stat},
                "raw": {"ops_per_s": {"median": 100.0, "low": 100.0, "high": 100.0}}}

    points = [point("mont_lut", 60.0), point("mont_csa", 30.0), point("rsa_core", 1.0, False)]
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": points, "cycles": [],
                          "regressions": {}})
    assert "Met by 1 of 2; not met: mont_csa (0.30)." in md
    near = bench_render.render_md({"machine": "m", "repeat": 3, "points": [point("mont_lut", 49.8)],
                            "cycles": [], "regressions": {}})
    assert "not met: mont_lut (0.498)." in near  # not "(0.50)", which reads as met
    assert "rsa_core (" not in md
    assert "whole time" not in md.split("Goal:")[1]  # no whole-test ratios recorded
    for p, whole in zip(points, (0.45, 0.25), strict=False):  # measured with the steady rate
        p["paired"] = {"engine_over_raw_whole": {"median": whole}}
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": points, "cycles": [],
                          "regressions": {}})
    assert ("Met by 1 of 2; not met: mont_csa (0.30). Over the test's whole time (with its "
            "set-up and report): met by 0 of 2; mont_lut 0.45, mont_csa 0.25.") in md
    assert "checks inline" not in md.split("Goal:")[1]  # no run had the checker thread
    for p, inline in zip(points, (0.55, 0.20), strict=False):  # with the checker thread
        p["verilator_engine_inline"] = {"ops_per_s": {"median": inline * 100.0, "low": 1.0,
                                                      "high": 1.0}}
        p["check_thread"] = {"cores": 2}
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": points, "cycles": [],
                          "regressions": {}})
    assert ("(a spare core: 2 here, one simulation at a time); with the checks inline, as on "
            "one core or in a regression running a simulation per core: met by 1 of 2; "
            "mont_lut 0.55, mont_csa 0.20.") in md


def test_steady_rate_leaves_out_the_set_up_and_report(tmp_path):
    """Three checks 0.3 s apart after the first publication, in a 1.5 s run of four: 1 / 0.3
    operations a second, and the 0.3 s the checks do not account for is the run's fixed
    cost. Eight checks, four a publication: the window holds the last four over its span."""
    (tmp_path / "throughput.json").write_text(
        '{"checked": 4, "steady_checks": 3, "span_s": 0.9}')
    rate, fixed = bench_points.steady_rate(tmp_path, 4, 1.5)
    assert rate == pytest.approx(1 / 0.3) and fixed == pytest.approx(0.3)
    with pytest.raises(bench_common.BenchError, match="4 operations checked, 5 run"):
        bench_points.steady_rate(tmp_path, 5, 1.5)
    (tmp_path / "throughput.json").write_text(
        '{"checked": 8, "steady_checks": 4, "span_s": 1.2}')
    assert bench_points.steady_rate(tmp_path, 8, 3.0)[0] == pytest.approx(4 / 1.2)
    (tmp_path / "throughput.json").write_text(
        '{"checked": 1, "steady_checks": 0, "span_s": 0.0}')
    assert bench_points.steady_rate(tmp_path, 1, 0.5) == (2.0, 0.0)  # one check: the whole run
    with pytest.raises(bench_common.BenchError, match="no steady rate"):
        bench_points.steady_rate(tmp_path / "none", 1, 0.5)


def test_slow_points_run_fewer_operations():
    from montverif.models.registry import get_algo
    from montverif.spec.designs import load_design

    assert bench_common.bit_serial(load_design("mont_lut")) and not bench_common.bit_serial(
        load_design("rsa_core"))
    lut = get_algo("mont_lut").resolve(256)
    assert bench_common.ops_per_run("mont_lut", 256, lut, "verilator", 40) == 40
    assert bench_common.ops_per_run("mont_lut", 256, lut, "icarus", 3) == 3
    rsa = get_algo(load_design("rsa_core").model).resolve(1024)
    # 10^6 cycles: the floor
    assert bench_common.ops_per_run("rsa_core", 1024, rsa, "icarus", 3) == 1
    assert 1 < bench_common.ops_per_run("rsa_core", 1024, rsa, "verilator", 40) < 40


@pytest.mark.sim
def test_profile_names_where_the_time_goes(tmp_path):
    text = bench_profile.profile_point("mont_lut", 32, "engine", 4, tmp_path)
    assert text.startswith("mont_lut N=32 BusW=32 bus=engine: 4 operations")
    for group in ("models", "verif", "cocotb"):
        assert f"\n  {group} " in text
    functions = text.split("functions with the most time of their own:\n")[1].splitlines()
    assert len(functions) == 15 and all(" calls  " in line for line in functions)


def test_profile_rejects_a_bad_point(capsys):
    assert bench_cli.main(["--profile", "mont_lut:x"]) == 2
    assert capsys.readouterr().err.startswith("error: --profile expects DESIGN:N")


@pytest.mark.sim
def test_merge_keeps_the_points_not_measured_again(tmp_path, monkeypatch):
    def fake(name, n, *_args):
        stat = {"median": 5.0, "low": 4.0, "high": 6.0, "samples": [4.0, 5.0, 6.0]}
        return {"design": name, "n": n, "git": "new", "verilator": {"ops_per_s": stat}}

    monkeypatch.setattr(bench_cli, "bench_point", fake)
    icarus = {"ops_per_s": {"median": 2.0, "low": 2.0, "high": 2.0, "samples": [2.0] * 3}}
    old = {"machine": "m", "repeat": 3, "cycles": [],
           "points": [{"design": "mont_csa", "n": 256, "git": "old"},
                      {"design": "mont_lut", "n": 256, "git": "old", "icarus": icarus,
                       "verilator": {"ops_per_s": icarus["ops_per_s"]}}], "regressions": {}}
    (tmp_path / "results.json").write_text(json.dumps(old))
    args = ["--designs", "mont_lut", "--widths", "256", "--sims", "verilator", "--out",
            str(tmp_path)]
    assert bench_cli.main([*args, "--merge"]) == 0
    points = json.loads((tmp_path / "results.json").read_text())["points"]
    assert [(p["design"], p["git"]) for p in points] == [("mont_csa", "old"), ("mont_lut", "new")]
    # the series this run left out (Icarus) is kept, marked with its own revision; the one it
    # measured again (Verilator) is the new one
    assert points[1]["icarus"] == {**icarus, "git": "old"}
    assert points[1]["verilator"]["ops_per_s"]["median"] == 5.0
    md = (tmp_path / "results.md").read_text()
    assert "| 2.0 (2.0–2.0) | – | 2.5 | – | – / – | new (icarus: old) |" in md
    assert bench_cli.main(args) == 0  # without --merge only this run's points
    points = json.loads((tmp_path / "results.json").read_text())["points"]
    assert [(p["design"], p["git"]) for p in points] == [("mont_lut", "new")]


def test_merge_of_icarus_alone_keeps_the_verilator_ratios_and_floors():
    """A point measured again on Icarus alone keeps the Verilator series it had and what came
    with them (the paired ratios, the floors, the checker thread's cores): the goal lines and
    the floor table still read them."""
    stat = {"median": 5.0, "low": 4.0, "high": 6.0, "samples": [4.0, 5.0, 6.0]}
    prev = {"design": "mont_dual", "n": 256, "git": "old", "verilator": {"ops_per_s": stat},
            "verilator_engine": {"ops_per_s": stat}, "raw": {"ops_per_s": stat},
            "paired": {"engine_inline_over_raw": stat}, "floor": {"cocotb_ns": stat},
            "check_thread": {"cores": 2}, "icarus": {"ops_per_s": stat}}
    new = {"design": "mont_dual", "n": 256, "git": "new",
           "icarus": {"ops_per_s": {**stat, "median": 2.0}}}
    (point,) = bench_render.merge_points([prev], [new])
    assert point["icarus"]["ops_per_s"]["median"] == 2.0 and "git" not in point["icarus"]
    for key in bench_render.VERILATOR_BLOCKS:
        assert point[key] == prev[key], key
    assert point["verilator_engine"] == {"ops_per_s": stat, "git": "old"}
    assert bench_render.ratios(point)["engine_inline_over_raw"] == 5.0
    # measured again on Verilator, a point takes the new blocks, never the old ones
    again = {"design": "mont_dual", "n": 256, "git": "new", "verilator": {"ops_per_s": stat},
             "paired": {"engine_inline_over_raw": {**stat, "median": 0.7}}}
    (point,) = bench_render.merge_points([prev], [again])
    assert point["paired"]["engine_inline_over_raw"]["median"] == 0.7
    assert "floor" not in point and point["icarus"]["git"] == "old"


def test_a_point_that_fails_keeps_the_others(tmp_path, monkeypatch, capsys):
    def fake(name, n, *_args):
        if name == "mont_csa":
            raise bench_common.BenchError("mont_csa-n256: the testbench failed")
        stat = {"median": 5.0, "low": 4.0, "high": 6.0, "samples": [5.0]}
        return {"design": name, "n": n, "verilator": {"ops_per_s": stat}}

    monkeypatch.setattr(bench_cli, "bench_point", fake)
    args = ["--designs", "mont_csa,mont_lut", "--widths", "256", "--sims", "verilator",
            "--out", str(tmp_path)]
    assert bench_cli.main(args) == 1
    points = json.loads((tmp_path / "results.json").read_text())["points"]
    assert [p["design"] for p in points] == ["mont_csa", "mont_lut"]
    assert "error: mont_csa-n256: the testbench failed" in (tmp_path / "results.md").read_text()
    assert "1 point(s) could not be measured" in capsys.readouterr().err


def test_rsa_vectors_use_the_rsa_format(tmp_path):
    design = load_design("rsa_core")
    path = tmp_path / "v.json"
    bench_common.write_vector_file(bench_common.make_vectors(design, 64, 2, 1), path, "rsa_core")
    from montverif.verif.env.rsa_vectors import load_rsa_vectors

    assert len(load_rsa_vectors(path, 64)) == 2


def test_engine_mode_of_a_pin_only_testbench_is_one_line(monkeypatch):
    """Every design's testbench has the fast mode (the RSA core's says so in its descriptor,
    [testbench] engine = true); a testbench of its own without it refuses --bus engine with
    one line."""
    from montverif.host.errors import ConfigError
    from montverif.regress.flow.check import validate
    from montverif.regress.flow.spec import BuildSpec, RunSpec, has_engine
    from montverif.spec.designs import known_designs, load_design

    assert all(has_engine(d) for d in known_designs() if load_design(d).stream is None)
    rsa = load_design("rsa_core")  # its testbench without engine = true
    plain = replace(rsa, testbench=replace(rsa.testbench, engine=None))
    monkeypatch.setattr(flow_spec, "load_design",
                        lambda d: plain if d == "rsa_core" else load_design(d))
    assert not has_engine("rsa_core")
    with pytest.raises(ConfigError) as info:
        validate(RunSpec(BuildSpec("rsa_core", 32, bus="engine")))
    assert str(info.value) == ("rsa_core's testbench (montverif.verif.tb_rsa) has no fast bus "
                               "mode: use --bus pins")


def test_floor_section_from_measurements():
    def stat(v: float) -> dict[str, float]:
        return {"median": v, "low": v, "high": v}

    point: Record = {"design": "mont_lut", "n": 1024,
             "verilator_engine": {"ops_per_s": stat(200.0), "sim_share": stat(0.4),
                                  "no_python_ops_per_s": stat(500.0)},
             "raw": {"ops_per_s": stat(1600.0), "ns_per_cycle": stat(430.0)},
             "floor": {"cycles": 1000, "cocotb_ns": stat(1400.0), "raw_idle_ns": stat(400.0),
                       "engine_build_ns": stat(900.0)}}
    old = {**point, "n": 256, "floor": {"cycles": 1000, "cocotb_ns": stat(1200.0),
                                        "raw_idle_ns": stat(200.0), "timing_ns": stat(700.0)}}
    wide = {**point, "design": "mm42", "floor": {**point["floor"], "cocotb_ns": stat(2400.0)}}
    new = {**point, "design": "inter_r2",
           "floor": {**point["floor"], "cocotb_ns": stat(1000.0),
                     "engine": bench_common.ENGINE_BUILD}}
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": [point, old, wide, new],
                          "cycles": [], "regressions": {}})
    assert ("| mont_lut | 1024 | 200.0 | 0.40 | 500.0 | 0.31 | 430 | 400 | 900 | 1400 | 3.5 "
            "| main loop, wide ports |" in md)  # measured before the field existed
    assert ("| mont_lut | 256 | 200.0 | 0.40 | 500.0 | 0.31 | 430 | 200 | 700 | 1200 | 6.0 "
            "| hdl clock |" in md)  # measured with the HDL clock under --timing
    assert f"| 900 | 1000 | 2.5 | {bench_common.ENGINE_BUILD} |" in md
    # one median per engine build, newest first: never one figure over different builds
    assert (f"2.5 times on *{bench_common.ENGINE_BUILD}* (1 row); 4.8 times on "
            "*main loop, wide ports* "
            "(2 rows); 6.0 times on *hdl clock* (1 row)." in md)  # 4.8: median of 3.5 and 6.0
    del point["floor"]  # a point measured before the floor existed: no section
    assert "What bounds" not in bench_render.render_md(
        {"machine": "m", "repeat": 3, "points": [point], "cycles": [], "regressions": {}})


@pytest.mark.nightly(seconds=8)
@pytest.mark.sim
def test_engine_run_split_and_kernel_floor(tmp_path, monkeypatch):
    """An engine run records the simulator's share (below the test's time), and the idle
    kernel floor runs on the same build."""
    from montverif.regress.flow.spec import BuildSpec, RunSpec
    from montverif.verif.bus.engine_layout import ops_per_script

    design = load_design("mont_lut")
    count = ops_per_script(32, design, 32) + 2  # two scripts: a steady window after the first
    vecs = bench_common.make_vectors(design, 32, count, 7)
    vfile = tmp_path / "v.json"
    bench_common.write_vector_file(vecs, vfile, "mont_lut")
    spec = BuildSpec("mont_lut", 32, 32, "verilator", bus="engine")
    run = RunSpec(spec, seed=1, txns=count, vectors=str(vfile), tests=("VectorTest",),
                  idle_max=0)
    secs = bench_points.testbench_seconds(run, tmp_path / "run")
    sim_s = bench_points.engine_sim_seconds(tmp_path / "run")
    assert 0 < sim_s < secs
    # the scoreboard timed its checks: the steady window leaves out set-up, the first
    # script's operations and the report (how fast each part ran depends on the machine's
    # load, so only the window's bounds are checked, not one rate against the other)
    rate, fixed = bench_points.steady_rate(tmp_path / "run", count, secs)
    window = json.loads((tmp_path / "run" / "throughput.json").read_text())
    assert 0 < window["steady_checks"] < count and 0 < window["span_s"] < secs
    assert rate == pytest.approx(window["steady_checks"] / window["span_s"])
    assert 0 <= fixed < secs
    floor = bench_floors.kernel_floor_seconds(spec, design, 5000, tmp_path / "floor")
    assert 0 < floor < 60
    exe = bench_floors.link_engine_floor(spec, tmp_path / "alone")
    assert 0 < bench_floors.engine_floor_seconds(exe, 5000) < 60
    # a floor run that does not end is killed by the wall-clock watchdog and reported
    monkeypatch.setattr(bench_floors, "FLOOR_TIMEOUT_S", 3)
    with pytest.raises(bench_common.BenchError, match="killed after 3 s wall time"):
        bench_floors.kernel_floor_seconds(spec, design, 10**12, tmp_path / "hung")
    with pytest.raises(bench_common.BenchError, match="no engine split"):
        bench_points.engine_sim_seconds(tmp_path / "floor")


def test_a_point_over_the_cycle_budget_runs_once():
    """rsa_core at N = 1024 on Icarus: one operation is over the cycle budget, so its point
    runs once instead of --repeat times, and results.md says so."""
    params = get_algo(load_design("rsa_core").model).resolve(1024)
    assert bench_common.runs_per_point("rsa_core", 1024, params, "icarus", 3) == 1
    assert bench_common.runs_per_point("rsa_core", 1024, params, "verilator", 3) == 3
    small = get_algo(load_design("mont_lut").model).resolve(1024)
    assert bench_common.runs_per_point("mont_lut", 1024, small, "icarus", 3) == 3
    stat = {"median": 0.1, "low": 0.1, "high": 0.1, "samples": [0.1]}
    point = {"design": "rsa_core", "n": 1024, "icarus": {"ops": 1, "runs": 1, "ops_per_s": stat},
             "verilator": {"ops": 8, "runs": 3, "ops_per_s": stat}}
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": [point], "cycles": [],
                          "regressions": {}})
    assert "| rsa_core | 1024 | 0.1 (0.1–0.1) |" in md
    assert "| 0.1 (one run) |" in md


def test_merged_points_say_how_many_runs_they_had():
    """A --merge keeps points measured with another --repeat: the header names every run
    count, and a point of 3 runs kept beside a run of 5 is no 'one run'."""
    def series(runs: int | None, samples: int) -> Record:
        stat = {"median": 2.0, "low": 1.0, "high": 3.0, "samples": [2.0] * samples}
        return {"ops": 8, "ops_per_s": stat} | ({"runs": runs} if runs is not None else {})

    new = {"design": "mont_lut", "n": 1024, "verilator": series(5, 5), "raw": series(None, 5)}
    old = {"design": "mont_lut", "n": 256, "verilator": series(None, 3),
           "icarus": series(1, 1)}
    md = bench_render.render_md({"machine": "m", "repeat": 5, "points": [new, old], "cycles": [],
                          "regressions": {}})
    assert "Each figure is the median of 3 or 5 runs" in md
    assert "| mont_lut | 256 | 2.0 (1.0–3.0) |" in md
    assert "| 2.0 (one run) |" in md  # the Icarus series of one run
    assert md.count("(one run)") == 1  # that one only


def test_ratios_are_paired_per_repeat(tmp_path, monkeypatch):
    """Each repeat runs pins, engine and then the raw harness; the ratio against the raw
    harness is the median of each repeat's ratio, not the ratio of the medians (here 0.5
    against 0.9: the machine's speed drifts between repeats, and the two medians come from
    different repeats)."""
    order: list[str] = []
    # ops/s of each repeat: the machine drifts, the testbench and the harness with it
    tb = {"pins": [50.0, 45.0, 15.0], "engine": [100.0, 90.0, 30.0],
          "engine_inline": [80.0, 72.0, 24.0]}
    raw = [200.0, 100.0, 100.0]
    count = 10

    duts: set[str] = set()

    def fake_tb(run, log_dir):
        duts.add(run.build.dut)
        bus, r = run.build.bus, int(str(log_dir).rsplit("-", 1)[1])
        if os.environ.get("MV_CHECK_THREAD") == "0":  # bench's checks_inline
            bus = "engine_inline"
        order.append(f"{bus}{r}")
        return count / tb[bus][r]

    def fake_harness(exe, script, loops=1, idle=0):
        if loops == 1 and idle == 0:
            return 0.001, 1000, [], 0.0  # the first, untimed pass
        r = sum(1 for o in order if o.startswith("raw"))
        order.append(f"raw{r}")
        return count * loops / raw[r], 1000 * loops, [], 0.01

    monkeypatch.setattr(bench_points, "bench_build", lambda: tmp_path)
    monkeypatch.setattr(bench_points, "testbench_seconds", fake_tb)
    monkeypatch.setattr(bench_points, "engine_sim_seconds", lambda _d: 0.05)
    monkeypatch.setattr(bench_points, "rebuild_seconds", lambda *_a: 1.0)
    monkeypatch.setattr(bench_harness, "build_harness", lambda *_a: (tmp_path / "exe", 2.0))
    monkeypatch.setattr(bench_harness, "run_harness", fake_harness)
    monkeypatch.setattr(bench_harness, "check_harness_reads", lambda *_a: None)
    monkeypatch.setattr(bench_points, "kernel_floor_seconds", lambda *_a: 0.1)
    monkeypatch.setattr(bench_points, "link_engine_floor", lambda *_a: tmp_path / "floor")
    monkeypatch.setattr(bench_points, "engine_floor_seconds", lambda *_a: 0.05)
    monkeypatch.setattr(bench_points, "ops_per_run", lambda *_a: count)
    monkeypatch.setattr(bench_points, "inline_variant", lambda _spec: True)  # a spare core
    monkeypatch.setattr(bench_points, "available_cores", lambda: 2)
    monkeypatch.delenv("MV_CHECK_THREAD", raising=False)
    # the steady rate: the whole test's rate without a fixed cost of a fifth of the test
    monkeypatch.setattr(bench_points, "steady_rate",
                        lambda _d, n, secs: (n / (0.8 * secs), 0.2 * secs))
    point = bench_points.bench_point("mont_lut", 64, ["verilator"], count, 3, 1)
    assert order == ["pins0", "engine0", "engine_inline0", "raw0",
                     "pins1", "engine1", "engine_inline1", "raw1",
                     "pins2", "engine2", "engine_inline2", "raw2"]
    assert "MV_CHECK_THREAD" not in os.environ  # restored after the inline runs
    assert point["paired"]["engine_over_raw_whole"]["samples"] == pytest.approx([0.5, 0.9, 0.3])
    assert point["paired"]["engine_over_raw"]["samples"] == pytest.approx(
        [0.625, 1.125, 0.375])
    r = bench_render.ratios(point)
    assert r["engine_over_raw"] == pytest.approx(0.625)  # the ratio of medians: 1.125
    assert r["testbench_over_raw"] == pytest.approx(0.3125)
    assert point["verilator_engine"]["ops_per_s"]["median"] == pytest.approx(112.5)
    assert point["verilator_engine"]["whole_ops_per_s"]["median"] == pytest.approx(90.0)
    assert point["verilator_engine"]["fixed_ms"]["median"] == pytest.approx(
        0.2 * count / 90.0 * 1e3)
    assert point["raw"]["ops_per_s"]["median"] == pytest.approx(100.0)
    assert point["floor"]["raw_idle_ns"]["median"] == pytest.approx(0.01 / bench_common.FLOOR_CYCLES
                                                                     * 1e9)
    assert point["floor"]["cocotb_ns"]["median"] > 0
    md = bench_render.render_md({"machine": "m", "repeat": 3, "points": [point], "cycles": [],
                          "regressions": {}})
    assert "| 0.31 (0.19–0.56) | 0.62 (0.38–1.12) | 0.50 (0.30–0.90) | 22.2 |" in md
    assert r["engine_inline_over_raw"] == pytest.approx(0.5)
    assert point["check_thread"] == {"cores": 2}
    # both simulators in one call (make bench's default): the Icarus series follow the
    # Verilator ones, of the same design (a ratio's name once took the design's variable)
    order.clear()
    both = bench_points.bench_point("mont_lut", 64, ["verilator", "icarus"], count, 3, 1)
    assert duts == {"mont_lut"}  # every run, Icarus's too, of the design's own builds
    assert {k: both[k]["runs"] for k in ("icarus", "icarus_engine")} == {"icarus": 3,
                                                                         "icarus_engine": 3}
    assert bench_render.ratios(both)["verilator_over_icarus"] == pytest.approx(1.0)


@pytest.mark.nightly(seconds=10)
@pytest.mark.sim
def test_fixed_cost_measures_the_three_ways_side_by_side():
    """One repeat of the fixed-cost measurement (real runs: the command, a run per process,
    a batch), and the table results.md shows of it."""
    fixed = fixed_cost(1)
    for way in ("command_s", "single_s", "batched_s", "batched_over_single",
                "single_outside_tests_s", "batched_outside_tests_s"):
        assert len(fixed[way]["samples"]) == 1 and fixed[way]["median"] > 0
    assert fixed["single_outside_tests_s"]["median"] < fixed["single_s"]["median"]
    assert fixed["batch"] >= 2 and fixed["git"]
    md = bench_render.render_md({"machine": "m", "repeat": 1, "points": [], "cycles": [],
                                 "fixed_cost": fixed})
    row = [ln for ln in md.splitlines() if ln.startswith("| ") and "(" in ln][-1]
    assert f"{fixed['single_s']['median']:.2f}" in row
    assert f"{fixed['batched_s']['median']:.2f}" in row


def test_the_inline_goal_names_every_point_that_misses_its_bound():
    """Issue 33's goal with the checks inline: 0.5 at N = 256 and 1024, 0.8 for a bit-serial
    design at 1024; a point that misses its bound is named with its ratio and bound."""
    def point(design: str, n: int, inline: float, serial: bool = True) -> Record:
        raw = {"median": 100.0, "low": 100.0, "high": 100.0}
        return {"design": design, "n": n, "bit_serial": serial, "raw": {"ops_per_s": raw},
                "verilator_engine_inline": {"ops_per_s": {"median": inline * 100.0,
                                                          "low": 1.0, "high": 1.0}},
                "check_thread": {"cores": 2}}

    def goal(points: list[Record]) -> str:
        md = bench_render.render_md({"machine": "m", "repeat": 3, "points": points,
                                     "cycles": [], "regressions": {}})
        return md.split("Goal with the checks inline")[1].split("\n")[0]

    ok = [point("mont_csa", 256, 0.55), point("mont_csa", 1024, 0.85),
          point("mont_qp", 1024, 0.6, serial=False), point("mont_csa", 97, 0.1)]
    line = goal(ok)
    assert "Met by 3 of 3 points." in line and "not met" not in line  # N = 97: no goal
    assert "Closest to its bound: mont_csa 1024 (0.85)." in line
    line = goal(ok + [point("mont_lut", 1024, 0.7), point("rsa_core", 256, 0.45, False),
                      point("mont_r2", 1024, 0.798)])
    assert "Met by 3 of 6 points; not met: mont_lut 1024 (0.70 < 0.8), rsa_core 256 " \
           "(0.45 < 0.5), mont_r2 1024 (0.798 < 0.8)." in line
    assert "Goal with the checks inline" not in bench_render.render_md(
        {"machine": "m", "repeat": 3, "points": [point("mont_csa", 97, 0.1)], "cycles": [],
         "regressions": {}})
