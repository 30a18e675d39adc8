"""Illegal parameter sets of the scalable designs stop the RTL at elaboration (generate-if +
initial $fatal, one line naming the rule) and the runner before building (one error line)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from montverif.host.paths import include_flags
from montverif.spec import top as gen_top
from montverif.spec.designs import load_design
from montverif.verif.tests.test_bad_input import assert_clear_error, sim_cli

ROOT = Path(__file__).resolve().parents[2]

RTL_ILLEGAL = [
    ("mwr2mm", {"N": 32, "W": 8, "P": 3}, "mwr2mm: P=3 must be in 1..p_max=2"),
    ("mwr2mm", {"N": 32, "W": 1, "P": 1}, "mwr2mm: W must be >= 2"),
    ("mwrkmm", {"N": 32, "V": 4, "W": 8, "P": 1}, "mwrkmm: W=8 must be in 1..V=4"),
    ("mwrkmm", {"N": 30, "V": 8, "W": 4, "P": 1}, "mwrkmm: W=4 must divide N=30"),
    ("mwrkmm", {"N": 32, "V": 8, "W": 8, "P": 3}, "mwrkmm: P=3 must be in 1..p_max=2"),
    ("mwrkmm", {"N": 32, "V": 8, "W": 8, "P": 1, "PeAdder": 2},
     "mwrkmm: PeAdder=2 must be 0 or 1"),
]


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs iverilog")
@pytest.mark.parametrize(("design", "params", "message"), RTL_ILLEGAL)
def test_rtl_rejects_illegal_parameters(tmp_path: Path, design: str, params: dict[str, int],
                                        message: str):
    cfg = load_design(design)
    top = cfg.toplevel
    out = tmp_path / "a.vvp"
    cmd = ["iverilog", "-g2012", "-o", str(out), "-s", top, *include_flags(),
           *[f"-P{top}.{k}={v}" for k, v in params.items()],
           *[str(ROOT / s) for s in gen_top.sources(cfg)]]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=60)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    res = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, timeout=60,
                         env=env, check=False)
    text = res.stdout + res.stderr
    assert message in text, text
    assert "FATAL" in text.upper()


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs iverilog")
@pytest.mark.parametrize("design", ["mwr2mm", "mwrkmm"])
def test_rtl_legal_parameters_elaborate_silently(tmp_path: Path, design: str):
    """The control for the test above: a legal set elaborates with no $fatal."""
    cfg = load_design(design)
    out = tmp_path / "a.vvp"
    params = {"N": 32, "W": 8, "P": 2} if design == "mwr2mm" else {"N": 32, "V": 8, "W": 8,
                                                                     "P": 2}
    subprocess.run(["iverilog", "-g2012", "-o", str(out), "-s", cfg.toplevel, *include_flags(),
                    *[f"-P{cfg.toplevel}.{k}={v}" for k, v in params.items()],
                    *[str(ROOT / s) for s in gen_top.sources(cfg)]], check=True, timeout=60)
    res = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, timeout=60,
                         check=False)
    assert "FATAL" not in (res.stdout + res.stderr).upper()


@pytest.mark.parametrize(("design", "params", "needle"), [
    ("mwr2mm", "W=8,P=3", "P=3 must be in 1..p_max=2"),
    ("mwrkmm", "V=4,W=8,P=1", "W=8 must be <= V=4"),
    ("mwrkmm", "V=8,W=8,P=3", "P=3 must be in 1..p_max=2"),
    ("mwrkmm", "V=8,W=8,PeAdder=2", "PeAdder=2 is above its largest value 1"),
])
def test_runner_rejects_illegal_parameters(design: str, params: str, needle: str):
    assert_clear_error(sim_cli("--dut", design, "--n", "32", "--params", params), needle)
