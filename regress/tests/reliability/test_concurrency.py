"""Two writers, one folder: a run owns its run folder and a regression its results folder
while they write; the second writer is refused with one line and nothing is merged."""

from __future__ import annotations

import json
from pathlib import Path

from montverif.regress.tests.reliability.helpers import montverif, regress, sim_started, wait_for

# the attack, on Icarus with more operations so that the first run is surely
# still running when the second starts
SIM = ("sim", "--dut", "mont_r2", "--n", "130", "--seed", "11", "--txns", "300", "--sim",
       "icarus")

TWO_RUNS = """
[pair]
description = "two short runs"
[[pair.entry]]
dut = "mont_r2"
widths = [130]
bus_widths = [32]
simulators = ["verilator"]
seeds = 2
txns = 20
"""


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_second_sim_into_a_busy_run_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    first = montverif(*SIM, "--out", str(folder))
    wait_for(lambda: sim_started(folder), 300, "the first run to start its tests")
    second = montverif(*SIM, "--out", str(folder))
    out2, err2 = second.communicate(timeout=120)
    out1, err1 = first.communicate(timeout=600)
    assert second.returncode == 2, out2 + err2
    assert "is being written by pid" in one_error_line(err2)
    assert first.returncode == 0, out1 + err1
    ops = [json.loads(line) for line in (folder / "txns.jsonl").read_text().splitlines()]
    # one run's log: every operation once (two writers interleaved two copies before)
    assert len({json.dumps(op, sort_keys=True) for op in ops}) == len(ops)
    assert json.loads((folder / "outcome.json").read_text())["passed"]


def test_second_regression_into_a_busy_results_folder_is_refused(tmp_path: Path) -> None:
    lists = tmp_path / "lists.toml"
    lists.write_text(TWO_RUNS)
    out, hist = tmp_path / "out", tmp_path / "history.jsonl"
    args = ("--lists", str(lists), "regress", "--list", "pair", "--jobs", "1", "--out",
            str(out), "--history", str(hist))
    first = regress(tmp_path / "results", *args)
    wait_for(lambda: (out / "plan.json").exists(), 120, "the first regression to start")
    second = regress(tmp_path / "results2", *args)
    out2, err2 = second.communicate(timeout=120)
    out1, err1 = first.communicate(timeout=900)
    assert second.returncode == 2, out2 + err2
    assert "is being written by pid" in one_error_line(err2)
    assert first.returncode == 0, out1 + err1
    assert out1.strip().splitlines()[-1] == "2 passed, 0 failed"
    assert len(hist.read_text().splitlines()) == 1  # one regression, one history line
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["runs"]) == 2
    for run in summary["runs"]:  # each run's log written once
        log = Path(run["log_dir"]) / "txns.jsonl"
        ops = log.read_text().splitlines()
        assert len(set(ops)) == len(ops)


def test_a_new_regression_never_writes_over_another(tmp_path: Path) -> None:
    lists = tmp_path / "lists.toml"
    lists.write_text(TWO_RUNS.replace("seeds = 2", "seeds = 1"))
    out = tmp_path / "out"
    args = ("--lists", str(lists), "regress", "--list", "pair", "--jobs", "1", "--out",
            str(out), "--history", str(tmp_path / "history.jsonl"))
    first = regress(tmp_path / "results", *args)
    out1, err1 = first.communicate(timeout=600)
    assert first.returncode == 0, out1 + err1
    before = (out / "summary.json").read_bytes()
    again = regress(tmp_path / "results", *args)
    out2, err2 = again.communicate(timeout=120)
    assert again.returncode == 2, out2 + err2
    assert "holds a regression already" in one_error_line(err2)
    assert (out / "summary.json").read_bytes() == before


def test_out_naming_a_file_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    for args in ((*SIM, "--out", str(afile)),
                 ("regress", "--list", "selftest", "--out", str(afile))):
        proc = montverif(*args)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 2, out + err
        assert "is a file, not a folder" in one_error_line(err)
        assert afile.read_text() == "mine\n"
