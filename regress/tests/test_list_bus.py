"""A list entry's bus mode (`bus = "engine"`): its runs are fast-mode builds, a bad value or a
testbench without the fast mode is one line, and a real regression runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from montverif.regress.flow import spec as flow_spec
from montverif.regress.regression import lists as rlists
from montverif.spec.designs import load_design

MONTVERIF = Path(sys.executable).parent / "montverif"
ENTRY = """[l]
[[l.entry]]
dut = "%s"
widths = [32]
bus_widths = [16]
simulators = ["verilator"]
seeds = 1
txns = 2
tests = ["RandomTest"]
"""


def test_an_entry_names_its_bus_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "lists.toml"
    path.write_text(ENTRY % "mont_lut" + 'bus = "engine"\n')
    (build,) = rlists.load_lists(path)["l"].entries[0].builds()
    assert build.bus == "engine" and "-eng-" in build.key
    path.write_text(ENTRY % "mont_lut")
    (build,) = rlists.load_lists(path)["l"].entries[0].builds()
    assert build.bus == "pins" and "-eng-" not in build.key
    path.write_text(ENTRY % "mont_lut" + 'bus = "wires"\n')
    with pytest.raises(rlists.ListError, match=r"\.bus: expected one of pins, engine, got 'wires'"):
        rlists.load_lists(path)
    rsa = load_design("rsa_core")  # its testbench without engine = true
    plain = replace(rsa, testbench=replace(rsa.testbench, engine=None))
    monkeypatch.setattr(flow_spec, "load_design",
                        lambda d: plain if d == "rsa_core" else load_design(d))
    path.write_text(ENTRY % "rsa_core" + 'bus = "engine"\n')
    with pytest.raises(rlists.ListError, match="rsa_core's testbench has no fast bus mode"):
        rlists.load_lists(path)


@pytest.mark.sim
def test_a_regression_runs_fast_mode_entries(tmp_path: Path) -> None:
    """Both testbenches in the fast mode, beside a pin-mode entry, in one real regression."""
    path = tmp_path / "lists.toml"
    path.write_text(ENTRY % "mont_lut" + 'bus = "engine"\n'
                    + (ENTRY % "rsa_core").replace("[l]\n", "") + 'bus = "engine"\n'
                    + (ENTRY % "mont_r2").replace("[l]\n", ""))
    out = tmp_path / "out"
    cp = subprocess.run([str(MONTVERIF), "regress", "--lists", str(path), "--list", "l",
                         "--out", str(out), "--history", str(tmp_path / "h.jsonl")],
                        capture_output=True, text=True, timeout=900, check=False)
    assert cp.returncode == 0, cp.stdout[-2000:] + cp.stderr[-2000:]
    runs = json.loads((out / "summary.json").read_text())["runs"]
    got = sorted((r["dut"], r["run"]["build"]["bus"], r["passed"]) for r in runs)
    assert got == [("mont_lut", "engine", True), ("mont_r2", "pins", True),
                   ("rsa_core", "engine", True)]
    assert all(" --bus engine" in r["repro"] for r in runs if r["run"]["build"]["bus"] == "engine")
