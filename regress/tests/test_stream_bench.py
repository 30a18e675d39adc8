"""The streaming benchmark: the raw harness of a streaming core streams one operation a clock
and every result it returns is checked against gmpy2 (a broken core fails it); the results
are matched to their operations in order or by tag; results.md's streaming table and goal
are computed from the measurements; `montverif bench` measures a streaming design."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from montverif.host import claim
from montverif.models import ref
from montverif.regress.bench import common as bench_common
from montverif.regress.bench import render as bench_render
from montverif.regress.bench import stream_harness as sh
from montverif.regress.bench.common import BenchError, Record
from montverif.regress.bench.stream_render import STREAM_GOAL_N, STREAM_GOAL_RATIO
from montverif.regress.cli import bench as bench_cli
from montverif.spec.designs import load_design

DESIGN = load_design("mont_pipe")


def operations(n: int, count: int, seed: int) -> list[sh.Operation]:
    vecs = bench_common.make_vectors(DESIGN, n, count, seed)
    return [(v["X"], v["Y"], v["M"]) for v in vecs]


@pytest.mark.sim
def test_raw_harness_streams_one_operation_a_clock_and_matches_gmpy2(tmp_path: Path) -> None:
    """Run from a work folder whose path has a space (a user's may have one; make cannot
    build in such a folder, so the build is in the user's cache)."""
    spaced = tmp_path / "a folder"
    spaced.mkdir()
    n, K = 13, 2
    ops = operations(n, 40, 7)
    once, record = sh.raw_stream_runner(DESIGN, n, {"K": K}, ops, spaced)
    assert (spaced / "stream-harness.results").is_file()
    run = once()
    assert record["ops"] == 40 and run.ops == 40 * int(record["loops"])
    latency = -(-n // K) + 2
    # one operation a clock: the stream's cycles are its operations plus the pipeline's fill
    assert run.ops <= run.cycles <= run.ops + latency + 2
    r_bits = K * -(-n // K)
    assert [p for _, p in run.results] == [ref.mont_product(x, y, m, r_bits)
                                           for x, y, m in ops]
    assert [t for t, _ in run.results] == [k & 0xFF for k in range(40)]  # TagW = 8
    # one wrong bit of one result fails the check
    results = list(run.results)
    results[17] = (results[17][0], results[17][1] ^ 4)
    with pytest.raises(BenchError, match=r"raw harness op 17: P=0x[0-9a-f]+ is not gmpy2's"):
        sh.check_results(DESIGN, n, {"K": K}, ops, dataclasses.replace(run, results=tuple(
            results)))


@pytest.mark.sim
def test_raw_harness_fails_a_broken_core(tmp_path: Path) -> None:
    """The descriptor's fault (a quotient digit's bit flipped): the core's own assertions
    (built in, as in the testbench) stop the harness, naming the assertion."""
    with pytest.raises(BenchError, match=r"mont_pipe-n16-K4-fault: .*Assertion failed"):
        sh.raw_stream_runner(DESIGN, 16, {"K": 4}, operations(16, 30, 3), tmp_path,
                             fault=True)


def test_a_harness_folder_another_run_owns_is_left_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two benchmarks building the same harness: the second is refused with one line naming
    the first, whose files stay (nothing is removed under a run)."""
    monkeypatch.setattr(sh, "harness_builds", lambda: tmp_path)
    theirs = tmp_path / "stream-harness" / "mont_pipe-n16-K4"
    with claim.claim(theirs):
        (theirs / "obj").mkdir()
        (theirs / "obj" / "bench").write_text("the other run's executable")
        with pytest.raises(claim.FolderBusy, match="is being written by pid"):
            sh.build_harness(DESIGN, 16, {"K": 4})
        assert (theirs / "obj" / "bench").read_text() == "the other run's executable"


def test_results_are_matched_in_order_or_by_tag() -> None:
    ops = [(1, 1, 3), (2, 1, 3), (1, 2, 3)]
    assert sh.result_order(DESIGN, ops, [(0, 0), (1, 0), (2, 0)], 8) == [0, 1, 2]
    with pytest.raises(BenchError, match="came with tag 0x2, expected 0x1"):
        sh.result_order(DESIGN, ops, [(0, 0), (2, 0), (1, 0)], 8)
    assert DESIGN.stream is not None
    tagged = dataclasses.replace(DESIGN, stream=dataclasses.replace(DESIGN.stream,
                                                                    order="tagged"))
    assert sh.result_order(tagged, ops, [(2, 0), (0, 0), (1, 0)], 8) == [2, 0, 1]
    # two operations in flight with one tag (a 1-bit tag): the oldest first
    assert sh.result_order(tagged, ops, [(1, 0), (0, 0), (0, 0)], 1) == [1, 0, 2]
    with pytest.raises(BenchError, match="which no operation in flight has"):
        sh.result_order(tagged, ops, [(0, 0), (0, 0), (1, 0)], 8)


def test_a_missing_result_fails() -> None:
    ops = [(1, 1, 3), (2, 1, 3)]
    run = sh.StreamRun(2, 10, 0.1, ((0, ref.mont_product(1, 1, 3, 4)),))
    with pytest.raises(BenchError, match="returned 1 results for 2 operations"):
        sh.check_results(DESIGN, 4, {"K": 4}, ops, run)


def _stat(samples: list[float]) -> Record:
    return dataclasses.asdict(bench_common.Stat.of(samples))


def stream_point(thread: list[float], inline: list[float], raw: list[float]) -> Record:
    def pair(tb: list[float]) -> Record:
        return _stat([t / r for t, r in zip(tb, raw, strict=True)])
    return {"design": "mont_pipe", "n": STREAM_GOAL_N, "params": {"K": 4}, "stream": True,
            "git": "abcdef0123",
            "verilator_stream": {"ops": 5120, "runs": len(raw), "ops_per_s": _stat(thread)},
            "verilator_stream_inline": {"ops": 5120, "runs": len(raw),
                                        "ops_per_s": _stat(inline)},
            "raw_stream": {"ops": 5120, "ops_per_s": _stat(raw),
                           "ns_per_cycle": _stat([1e9 / r for r in raw])},
            "paired": {"stream_over_raw": pair(thread),
                       "stream_over_raw_whole": pair([t * 0.9 for t in thread]),
                       "stream_inline_over_raw": pair(inline),
                       "stream_inline_over_raw_whole": pair(inline)}}


@pytest.mark.parametrize("speed", [0.3, 0.7])
def test_the_streaming_table_and_goal_come_from_the_measurements(speed: float) -> None:
    raw = [10_000.0, 11_000.0, 10_500.0]
    point = stream_point([r * speed for r in raw], [r * speed * 0.8 for r in raw], raw)
    results = {"machine": "m", "repeat": 3, "points": [point], "cycles": []}
    md = bench_render.render_md(results)
    assert "## Streaming designs" in md
    row = next(line for line in md.splitlines() if line.startswith("| mont_pipe | 384 |"))
    assert f"| {speed:.2f} ({speed:.2f}–{speed:.2f}) |" in row
    assert f"{10_500 * speed:.1f}" in row and "10500.0 (10000.0–11000.0)" in row
    verdict = "met" if speed >= STREAM_GOAL_RATIO else "not met"
    assert f"mont_pipe: {verdict}, {speed:.2f} in the steady state" in md
    assert bench_render.ratios(point)["stream_over_raw"] == pytest.approx(speed)
    # a streaming point is not a row of the bus designs' table
    bus_table = md.split("## Throughput")[1].split("##")[0]
    assert "mont_pipe" not in bus_table


def test_a_streaming_point_that_failed_is_shown_in_its_table() -> None:
    failed = {"design": "mont_pipe", "n": 384, "error": "harness build failed",
              "git": "abc", "stream": True}
    md = bench_render.render_md({"machine": "m", "repeat": 1, "points": [failed],
                                 "cycles": []})
    assert "| mont_pipe | 384 | error: harness build failed |" in md.split(
        "## Streaming designs")[1]


@pytest.mark.nightly(seconds=10)
@pytest.mark.sim
def test_bench_measures_a_streaming_design(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    rc = bench_cli.main(["--designs", "mont_pipe", "--stream-widths", "16",
                         "--stream-txns", "2100", "--repeat", "1", "--sims", "verilator",
                         "--out", str(out)])
    assert rc == 0
    results = json.loads((out / "results.json").read_text())
    (point,) = results["points"]
    assert point["stream"] and point["n"] == 16 and "error" not in point
    assert point["raw_stream"]["cycles_per_op"] < 1.01  # one operation a clock
    for label in ("verilator_stream", "verilator_stream_inline"):
        assert point[label]["ops"] == 2100 and point[label]["ops_per_s"]["median"] > 0
    ratio = point["paired"]["stream_over_raw"]["median"]
    assert 0 < ratio < 1  # at N = 16 the core is cheap beside the checks
    assert f"{ratio:.2f}" in (out / "results.md").read_text()
