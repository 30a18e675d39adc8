"""A watchdog kill keeps what the run had done: the tests that passed before it and the one it
ended are reported (it said "0/0 tests" before)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montverif.regress.tests.reliability.helpers import montverif


@pytest.mark.sim
def test_a_watchdog_kill_reports_the_tests_that_had_passed(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    # RandomTest (one operation) ends in about 1.7 s of the run's wall time; CornerTest (259
    # operations) at N = 2048 on Icarus takes about 50 s, so the watchdog ends it: five times
    # either way (measured on a quiet machine)
    proc = montverif("sim", "--dut", "mont_lut", "--n", "2048", "--sim", "icarus", "--txns", "1",
                     "--tests", "RandomTest,CornerTest", "--timeout", "10", "--out", str(folder))
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 1, out + err
    assert "1/2 tests passed" in out
    outcome = json.loads((folder / "outcome.json").read_text())
    assert outcome["tests"] == 2 and outcome["failed"] == 1
    assert outcome["first_error"].startswith("watchdog: simulation killed after 10s")
    assert "in CornerTest" in outcome["first_error"]
    assert "had passed: RandomTest" in outcome["first_error"]
