"""Two writers, one folder: a run owns its run folder and a regression its results folder
while they write; the second writer is refused with one line and nothing is merged."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.regress.tests.reliability.helpers import (
    montverif,
    regress,
    scratch_tree,
    sim_started,
    wait_for,
)

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


@pytest.mark.sim
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


@pytest.mark.sim
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


@pytest.mark.sim
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


# `montverif new-design NAME --like mont_r2`, reading the designs' ids a second later than it
# would: two of them started at once both read the ids before either writes its descriptor
_SLOW_NEW_DESIGN = """
import sys, time
from montverif.spec import designs
every = designs.every
def slow():
    found = every()
    time.sleep(1.0)
    return found
designs.every = slow
from montverif.regress.cli import main
sys.exit(main(["new-design", sys.argv[1], "--like", "mont_r2"]))
"""


@pytest.mark.nightly(seconds=12)
def test_two_new_designs_at_once_take_two_ids(tmp_path: Path) -> None:
    """Both took id 17 and every later command failed on the clash; now the second waits
    for the first (a lock of hdl/) and takes the next id."""
    tree = scratch_tree(tmp_path)
    first = subprocess.Popen([sys.executable, "-c", _SLOW_NEW_DESIGN, "race_a"], cwd=tree.root,
                             env=tree.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    second = tree.python(_SLOW_NEW_DESIGN, "race_b")
    out1, err1 = first.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, (err1, second.stderr)
    ids = [re.search(r"(?m)^id = (\d+)", (tree.root / "hdl" / "mont" / f"{n}.toml")
                     .read_text()) for n in ("race_a", "race_b")]
    assert ids[0] and ids[1] and ids[0][1] != ids[1][1], ids
    listed = tree.run("models", "list")
    assert listed.code == 0 and not listed.err, listed
    assert "race_a " in listed.out and "race_b " in listed.out
