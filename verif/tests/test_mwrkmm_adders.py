"""mwrkmm's two PE addition units: PeAdder = 0 (two carry-propagate adders, the recurrences of
Algorithm 2 as written) and PeAdder = 1 (Michalski-Buell 2006 section 5.2's carry-save tree
and one carry-propagate adder, hdl/scalable/mwrkmm_pe.sv's g_csa).

The S words of a job are the radix-2^V digits of one value, so both units must put the same
word out of every PE in the same clock. verif/hdl/mwrkmm_adders_tb.sv builds the core with
each unit, runs the same operations on both and compares every PE's S word and step flag,
busy, last and P in every clock, on Icarus and on Verilator (where the PEs' assertions run),
at both PE latencies; each P is checked against gmpy2 and each cycle count against the
model. A copy of the PE that drops the word-0 carry makes the bench report mismatches, and
fails the full testbench on both simulators; a copy whose tree takes the whole x_i Y(j-1)
product breaks the CPA's carry bound and fires PeCpaCarryBelow4_A; the fault build (u'
flipped) fires PeWord0Carry_A on Verilator before the scoreboard sees the wrong P."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import gmpy2
import pytest

from montverif.host import tools
from montverif.host.paths import include_flags
from montverif.models import scalable
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import load_design

pytestmark = pytest.mark.sim
ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "verif" / "hdl" / "mwrkmm_adders_tb.sv"
PE = ROOT / "hdl" / "scalable" / "mwrkmm_pe.sv"

# the word-0 carry z never set: S'(0) loses 2^W whenever word 0's low bits are not both 0
DROP_Z = ("        z_q       <= z_new;\n", "        z_q       <= 1'b0;\n")
# the tree takes the whole product x_i Y(j-1), its carry Cxy too (added again next word)
WHOLE_PXY = ("    assign x_p  = TW'(pxy[V-1:0]);\n", "    assign x_p  = TW'(pxy);\n")


def _mutant(tmp_path: Path, old: str, new: str) -> Path:
    """A folder holding a copy of mwrkmm_pe.sv with `old` replaced by `new` (an overlay)."""
    text = PE.read_text()
    assert text.count(old) == 1, old
    folder = tmp_path / "overlay"
    folder.mkdir()
    (folder / PE.name).write_text(text.replace(old, new))
    return folder


def _operations(n: int, V: int, W: int, count: int, seed: int) -> list[tuple[int, int, int]]:
    """(X, Y, M): the corners (X = Y = M - 1 under an all-ones M and under 2^(N-1) + 1, zero
    operands) and random ones."""
    rng = random.Random(seed)
    top = (1 << n) - 1
    ops = [(top - 1, top - 1, top), (1 << (n - 1), 1 << (n - 1), (1 << (n - 1)) + 1),
           (0, 5 % top, top)]
    while len(ops) < count:
        m = rng.getrandbits(n) | 1 | (1 << (n - 1))
        ops.append((rng.randrange(m), rng.randrange(m), m))
    return ops


def _run_bench(tmp_path: Path, sim: str, n: int, V: int, W: int, P: int, lat: int,
               ops: list[tuple[int, int, int]], pe: Path = PE) -> str:
    """Build and run the side-by-side bench; returns its output."""
    vec = tmp_path / "ops.hex"
    digits = -(-n // 4)
    vec.write_text("".join(f"{v:0{digits}x}\n" for x, y, m in ops
                           for v in (x, y, m, scalable.mwrkmm_mprime(m, n, V, W))))
    sources = [str(pe if s.name == PE.name else s) for s in load_design("mwrkmm").core_sources]
    params = {"N": n, "V": V, "W": W, "P": P, "PeLatency": lat, "Ops": len(ops)}
    top = BENCH.stem
    if sim == "icarus":
        binary = tmp_path / "bench.vvp"
        subprocess.run(["iverilog", "-g2012", "-o", str(binary), "-s", top, *include_flags(),
                        *[f"-P{top}.{k}={v}" for k, v in params.items()], *sources, str(BENCH)],
                       check=True, capture_output=True, text=True, timeout=300)
        cmd = ["vvp", "-n", str(binary)]
    else:
        tools.setup_env("verilator")
        obj = tmp_path / "obj"
        subprocess.run(["verilator", "--binary", "--timing", "-CFLAGS", "-std=c++20", "--assert",
                        "-Wno-fatal", "-Wno-lint", "-Wno-style", "-j", "2", "--Mdir", str(obj),
                        "--top-module", top, *include_flags(),
                        *[f"-G{k}={v}" for k, v in params.items()], *sources, str(BENCH)],
                       check=True, capture_output=True, text=True, timeout=900)
        cmd = [str(obj / f"V{top}")]
    res = subprocess.run([*cmd, f"+vectors={vec}"], capture_output=True, text=True,
                         timeout=600, check=False)
    return res.stdout + res.stderr


POINTS = [  # sim, N, V, W, P, PeLatency: W < V and W = V, P < p_max and P = p_max
    ("icarus", 64, 8, 4, 3, 3),
    ("icarus", 48, 4, 4, 3, 3),
    ("icarus", 97, 8, 1, 2, 4),
    ("icarus", 64, 16, 16, 1, 4),
    ("verilator", 256, 12, 4, 7, 3),
    ("verilator", 1024, 17, 16, 20, 3),
    ("verilator", 1024, 17, 16, 15, 4),
]


# Icarus's points in make test; the Verilator builds (N = 256 and the paper's v = 17, w = 16
# at N = 1024: 15 to 25 s each) in the nightly
@pytest.mark.parametrize("sim,n,V,W,P,lat",
                         standins(POINTS, lambda p: p[0] == "icarus", unpack=True, seconds=30,
                                  ids=lambda p: f"{p[0]}-n{p[1]}-V{p[2]}-W{p[3]}-P{p[4]}-L{p[5]}"))
def test_both_adders_put_out_the_same_words_in_the_same_clocks(
        tmp_path: Path, sim: str, n: int, V: int, W: int, P: int, lat: int) -> None:
    if sim == "icarus" and shutil.which("iverilog") is None:
        pytest.skip("needs Icarus Verilog")
    ops = _operations(n, V, W, 6 if n >= 1024 else 12, seed=n + P)
    out = _run_bench(tmp_path, sim, n, V, W, P, lat, ops)
    assert "DONE MISMATCHES 0" in out, out
    assert "ASSERT FAILED" not in out, out
    lines = re.findall(r"OP (\d+) P ([0-9a-f]+) CYCLES (\d+) WORDS (\d+)", out)
    assert len(lines) == len(ops), out
    words = scalable.mwrkmm_words(n, V) * scalable.mwrkmm_jobs(n, W)
    for (i, p, cycles, got_words), (x, y, m) in zip(lines, ops, strict=True):
        model = scalable.mwrkmm(x, y, m, n, V=V, W=W, P=P, PeLatency=lat, PeAdder=1)
        assert int(p, 16) == int(gmpy2.mpz(x) * y * gmpy2.invert(gmpy2.mpz(2) ** n, m) % m), i
        assert int(p, 16) == model.p and int(cycles) == model.cycles, (i, cycles, model.cycles)
        assert int(got_words) == words, (i, got_words, words)


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog")
def test_the_bench_sees_a_pe_that_drops_the_word0_carry(tmp_path: Path) -> None:
    """The control of the test above: with the word-0 carry dropped from the CSA unit the
    words part from the two adders' (the bench reports the clock)."""
    overlay = _mutant(tmp_path, *DROP_Z)
    ops = _operations(64, 8, 4, 6, seed=1)
    out = _run_bench(tmp_path, "icarus", 64, 8, 4, 3, 3, ops, pe=overlay / PE.name)
    assert "MISMATCH @ " in out and "DONE MISMATCHES 0" not in out, out


CSA = (("P", 3), ("PeAdder", 1), ("V", 8), ("W", 4))


def _testbench(tmp_path: Path, sim: str, overlay: Path | None = None,
               fault: bool = False) -> Outcome:
    run = RunSpec(BuildSpec("mwrkmm", 64, 32, sim, params=CSA, fault=fault,
                            overlay=str(overlay) if overlay else ""),
                  seed=5, txns=4, tests=("RandomTest",), timeout_s=900)
    return execute(run, tmp_path / sim / run.key)


@pytest.mark.parametrize("sim", standins(["verilator", "icarus"], ["icarus"], seconds=8))
def test_a_csa_pe_that_drops_the_word0_carry_fails(tmp_path: Path, sim: str) -> None:
    """The full testbench: the copy without the word-0 carry fails in the scoreboard (wrong P
    and table counts) on both simulators; no assertion sees it (the carry is dropped after
    PeWord0Carry_A has checked it)."""
    if sim == "icarus" and shutil.which("iverilog") is None:
        pytest.skip("needs Icarus Verilog")
    outcome = _testbench(tmp_path, sim, _mutant(tmp_path, *DROP_Z))
    assert not outcome.passed
    assert outcome.first_error.startswith("MISMATCH"), outcome.first_error


def test_a_tree_beyond_the_carry_bound_fires_its_assertion(tmp_path: Path) -> None:
    """The copy whose tree adds the whole x_i Y(j-1) product (its high W bits too) drives
    the CPA's carry past 3: PeCpaCarryBelow4_A fires (Verilator) before the wrong P is read."""
    outcome = _testbench(tmp_path, "verilator", _mutant(tmp_path, *WHOLE_PXY))
    assert not outcome.passed
    assert outcome.first_error.startswith("ASSERT FAILED PeCpaCarryBelow4_A"), \
        outcome.first_error


def test_the_fault_build_fires_the_word0_assertion(tmp_path: Path) -> None:
    """The descriptor's fault (PE 0's u' with bit 0 flipped) leaves word 0's low W bits
    non-zero: with PeAdder = 1 PeWord0Carry_A fires in state B of PE 0's first job."""
    outcome = _testbench(tmp_path, "verilator", fault=True)
    assert not outcome.passed
    assert outcome.first_error.startswith("ASSERT FAILED PeWord0Carry_A"), outcome.first_error
    assert "g_pe[0].u_pe" in outcome.first_error, outcome.first_error
