"""mont_qp RTL: illegal parameter sets stop elaboration with the model's one-line message."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from montverif.host.paths import include_flags
from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.spec import top as gen_top
from montverif.spec.designs import load_design

pytestmark = pytest.mark.sim
ROOT = Path(__file__).resolve().parents[2]

SOURCES = [str(s) for s in gen_top.sources(load_design("mont_qp"))]


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog")
@pytest.mark.parametrize("params,msg", [
    ({"V": 9, "W": 8}, "mont_qp: V must not exceed W (got V=9, W=8)"),
    ({"N": 16, "P": 9}, "mont_qp: P must be 1..5 for N=16, V=8 (got P=9)"),
    ({"N": 4, "V": 2, "W": 4}, "mont_qp_top: N must be at least 8 (got 4)"),
])
def test_illegal_parameters_stop_elaboration(tmp_path, params, msg):
    out = tmp_path / "bad.vvp"
    flags = [f"-Pmont_qp_top.{k}={v}" for k, v in params.items()]
    comp = subprocess.run(["iverilog", "-g2012", "-o", str(out), *flags, "-s", "mont_qp_top",
                           *include_flags(), *SOURCES], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    if comp.returncode == 0:
        run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True,
                             check=False)
        text = run.stdout + run.stderr
        assert run.returncode != 0
    else:
        text = comp.stdout + comp.stderr
    assert msg in text, text


@pytest.mark.parametrize("params", [{"V": 9, "W": 8}, {"N": 16, "P": 9}, {"V": 0}, {"P": 0}])
def test_runner_check_rejects_the_same_sets(params):
    n = params.get("N", 64)
    given = {k: v for k, v in params.items() if k != "N"}
    with pytest.raises(ModelInputError, match="mont_qp: "):
        get_algo("mont_qp").resolve(n, given)
