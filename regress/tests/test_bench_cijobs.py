"""The table of CI jobs as act ran them (regress/bench/cijobs.py): act's step times read from
its log, the counting line found, a job measured again replacing its row, and a record that
is missing its log or cut short refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montverif.regress.bench import cijobs
from montverif.regress.bench.common import BenchError, Record
from montverif.regress.cli import bench as bench_cli
from montverif.regress.regression import formal_checks

LOG = """\
[nightly/tests] ⭐ Run Main actions/checkout@v4
[nightly/tests]   ✅  Success - Main actions/checkout@v4 [118.989134ms]
[nightly/tests] ⭐ Run Main long tests, shard 2/3
[nightly/tests]   | 10.93s call     regress/tests/test_x.py::test_y
[nightly/tests]   | [135/135] PASS mwrkmm-n32-b32-verilator-s1 0.7s  (135 ok, 0 failed)
[nightly/tests]   | 101 passed, 2 deselected in 973.21s (0:16:13)
[nightly/tests]   | nightly tests (shard 2/3): 1001 s, exit 0
[nightly/tests]   ✅  Success - Main long tests, shard 2/3 [{step}]
[nightly/tests]   ✅  Success - Main actions/upload-artifact@v4 [745.626µs]
[nightly/tests] 🏁  Job succeeded
0 passed, 0 failed (the job summary act prints last: not the job's count)
"""


def _job(folder: Path, name: str, step: str = "16m41.5s", **rec: object) -> Path:
    wf = folder / "nightly"
    wf.mkdir(parents=True, exist_ok=True)
    (wf / f"{name}.log").write_text(LOG.format(step=step))
    record: Record = {"workflow": "nightly", "job": "tests", "matrix": ["shard:2"], "env": [],
                      "git": "abc1234", "exit": 0, "wall_s": 1062, "log": f"{name}.log",
                      "ended": "2026-11-29T12:00:00Z"} | rec
    (wf / f"{name}.json").write_text(json.dumps(record))
    return wf / f"{name}.json"


@pytest.mark.parametrize(("text", "seconds"), [
    ("16m41.5s", 16 * 60 + 41.5), ("1h2m3s", 3723.0), ("745.626µs", 745.626e-6),
    ("2.5ms", 2.5e-3), ("3s", 3.0)])
def test_go_durations_are_read_in_seconds(text: str, seconds: float) -> None:
    assert cijobs.duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "12", "3x", "1m 2s", "s"])
def test_a_bad_duration_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        cijobs.duration(text)


def test_the_longest_step_and_the_last_counting_line(tmp_path: Path) -> None:
    _job(tmp_path, "tests-shard-2")
    [job] = cijobs.read(tmp_path)
    assert (job["step"], job["step_s"], job["step_ok"]) == ("long tests, shard 2/3", 1001.5,
                                                            True)
    assert job["result"] == "101 passed, 2 deselected in 973.21s (0:16:13)"
    ends = LOG.format(step="1m").replace("101 passed, 2 deselected", "interrupted")
    assert cijobs.from_log(ends)["result"] == "nightly tests (shard 2/3): 1001 s, exit 0"
    killed = LOG.format(step="1m").replace("101 passed, 2 deselected", "interrupted").replace(
        "nightly tests (shard 2/3): 1001 s, exit 0", "Terminated")  # a job ended from outside
    assert cijobs.from_log(killed)["result"] == ""  # not a run's progress line
    assert job["matrix"] == ["shard:2"] and job["git"] == "abc1234"
    failed = cijobs.from_log(LOG.format(step="1m").replace("✅  Success - Main long",
                                                           "❌  Failure - Main long"))
    assert failed["step"] == "long tests, shard 2/3" and failed["step_ok"] is False
    assert cijobs.from_log("no steps")["step"] == ""


def test_a_job_measured_again_replaces_its_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    out = tmp_path / "bench"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(
        {"machine": "m", "repeat": 3, "points": [], "cycles": []}))
    first = tmp_path / "act1"
    _job(first, "tests-shard-2")
    _job(first, "formal", job="formal", matrix=[], wall_s=900)
    assert bench_cli.main(["--update", "--ci-from", str(first), "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| nightly | tests | shard:2 | abc1234 | 17.7 | long tests, shard 2/3: 16.7 | 0 |" in md
    assert "| nightly | formal | – | abc1234 | 15.0 |" in md
    again = tmp_path / "act2"
    _job(again, "tests-shard-2", step="10m", git="def5678", wall_s=660)
    assert bench_cli.main(["--update", "--ci-from", str(again), "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| nightly | tests | shard:2 | def5678 | 11.0 | long tests, shard 2/3: 10.0 |" in md
    assert "abc1234 | 17.7" not in md and "| nightly | formal | – | abc1234 | 15.0 |" in md
    # one part of a job (NAME=VALUE given): a row of its own
    part = tmp_path / "act3"
    _job(part, "formal", job="formal", matrix=[], env=["DESIGNS=mont_r2"], wall_s=60)
    assert bench_cli.main(["--update", "--ci-from", str(part), "--out", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "| nightly | formal | DESIGNS=mont_r2 | abc1234 | 1.0 |" in md
    assert "| nightly | formal | – | abc1234 | 15.0 |" in md
    capsys.readouterr()


def test_a_record_without_its_log_or_cut_short_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(
        {"machine": "m", "repeat": 3, "points": [], "cycles": []}))
    before = (out / "results.json").read_text()
    record = _job(tmp_path / "act", "tests-shard-2")
    (record.parent / "tests-shard-2.log").unlink()
    with pytest.raises(BenchError, match="cannot read .*tests-shard-2.log"):
        cijobs.read(tmp_path / "act")
    record.write_text(record.read_text()[:40])
    for folder in (tmp_path / "act", tmp_path / "empty"):
        assert bench_cli.main(["--update", "--ci-from", str(folder), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
    assert (out / "results.json").read_text() == before


@pytest.mark.parametrize("log", ["../elsewhere.log", "/etc/passwd", "sub/tests.log", "", "..",
                                 "a\\b.log"])
def test_a_record_whose_log_is_not_beside_it_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], log: str) -> None:
    (tmp_path / "elsewhere.log").write_text(LOG.format(step="1m"))
    (tmp_path / "act" / "nightly" / "sub").mkdir(parents=True)
    (tmp_path / "act" / "nightly" / "sub" / "tests.log").write_text(LOG.format(step="1m"))
    _job(tmp_path / "act", "tests-shard-2", log=log)
    with pytest.raises(BenchError, match="is not a file name beside it"):
        cijobs.read(tmp_path / "act")
    out = tmp_path / "bench"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(
        {"machine": "m", "repeat": 3, "points": [], "cycles": []}))
    assert bench_cli.main(["--update", "--ci-from", str(tmp_path / "act"),
                           "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_no_jobs_measured_writes_no_jobs_key(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(
        {"machine": "m", "repeat": 3, "points": [], "cycles": []}))
    assert bench_cli.main(["--update", "--out", str(out)]) == 0
    assert "ci_jobs" not in json.loads((out / "results.json").read_text())
    assert "CI jobs" not in (out / "results.md").read_text()
    _job(tmp_path / "act", "tests-shard-2")
    assert bench_cli.main(["--update", "--ci-from", str(tmp_path / "act"),
                           "--out", str(out)]) == 0
    assert len(json.loads((out / "results.json").read_text())["ci_jobs"]) == 1


def test_the_formal_checks_seconds_are_recorded_from_regression_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """bench --formal-from: each check's seconds from formal shards' summary.json over those
    recorded (a check measured again replaces its time; one that could not start is left
    out); a folder without a summary is one line."""
    seconds = tmp_path / "formal-seconds.json"
    monkeypatch.setattr(formal_checks, "SECONDS_FILE", seconds)
    seconds.write_text(json.dumps({"git": "old", "from": "x", "seconds": {"a": 1.0, "b": 2.0}}))
    shards = []
    for i, recs in enumerate(({"b": {"status": "bounded", "seconds": 20.5},
                               "c": {"status": "unknown", "seconds": 150.0}},
                              {"d": {"status": "error", "seconds": 0.1}})):
        folder = tmp_path / f"shard-formal-{i}"
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps({"git": "abc1234", "formal": recs}))
        shards.append(str(folder))
    out = tmp_path / "bench"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(
        {"machine": "m", "repeat": 3, "points": [], "cycles": []}))
    assert bench_cli.main(["--update", "--formal-from", *shards, "--out", str(out)]) == 0
    record = json.loads(seconds.read_text())
    assert record["seconds"] == {"a": 1.0, "b": 20.5, "c": 150.0} and record["git"] == "abc1234"
    assert formal_checks.measured_seconds() == record["seconds"]
    capsys.readouterr()
    assert bench_cli.main(["--update", "--formal-from", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --formal-from: no ") and err.count("\n") == 1
