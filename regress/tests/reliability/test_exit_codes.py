"""Exit codes (docs/running.md): 0 every test passed, 1 a test failed, 2 bad input, 130
interrupted (test_interrupt.py). A FAULT=1 failure through make used to look like bad input;
make exits 2 for any failed command, so its last line must name the command's code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.regress.tests.reliability.helpers import montverif

QUICK = ("--dut", "mont_r2", "--n", "16", "--txns", "3", "--tests", "RandomTest")


@pytest.mark.parametrize("extra, code", [((), 0), (("--fault",), 1), (("--n", "text"), 2),
                                          (("--dut", "no_such_design"), 2)])
@pytest.mark.sim
def test_sim_exit_codes(tmp_path: Path, extra: tuple[str, ...], code: int) -> None:
    proc = montverif("sim", *QUICK, *extra, "--out", str(tmp_path / "run"))
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == code, out + err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err


@pytest.mark.sim
@pytest.mark.parametrize("variables, code", [(("FAULT=1",), 1), (("DUT=no_such_design",), 2)])
def test_make_sim_names_the_code(tmp_path: Path, variables: tuple[str, ...], code: int) -> None:
    proc = subprocess.run(["make", "--no-print-directory", "sim", "DUT=mont_r2", "N=16",
                           "TXNS=3", "TESTS=RandomTest", *variables,
                           f"OUT={tmp_path / 'run'}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2  # GNU make's code for any failed command
    assert proc.stderr.strip().splitlines()[-1].endswith(f"sim] Error {code}"), proc.stderr
