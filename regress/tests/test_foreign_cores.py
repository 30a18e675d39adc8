"""Cores from elsewhere, verified from a project folder of the user's own with a descriptor
and no wrapper (docs/own-design.md, route 2): every shape of docs/examples/third_party on
both simulators (start/done with a level or a pulse, ports wider than N, valid/ready with a
packed operand port, a fixed latency with no done), each failing under --fault and linting
clean; each of the adapter's checks failing a broken core with its own line; a core Icarus
cannot take refused on Icarus in one line. And adding them to montverif's own tree keeps its
checks green."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.regress.tests.reliability.helpers import scratch_tree

EXAMPLES = ROOT / "docs" / "examples" / "third_party"
SHAPES = ("tp_mont", "tp_wide", "tp_axis", "tp_fixed")
STANDINS = ("tp_mont",)  # in make test: a register core; the stream (tp_axis) and the rest nightly
pytestmark = pytest.mark.sim


def project(tmp_path: Path, *cores: str) -> Path:
    """A project folder with montverif.toml and the example cores (and descriptors)."""
    folder = tmp_path / "mine"
    (folder / "rtl").mkdir(parents=True)
    (folder / "montverif.toml").write_text('designs = ["rtl"]\n')
    for core in cores:
        for f in EXAMPLES.glob(f"{core}.*"):
            shutil.copy2(f, folder / "rtl" / f.name)
    return folder


def mv(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MV_PROJECT"}
    return subprocess.run([sys.executable, "-m", "montverif.regress.cli", *args], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=900, check=False)


def first_error(got: subprocess.CompletedProcess[str]) -> str:
    m = re.search(r"first error: (.*)", got.stdout)
    return m.group(1) if m else got.stdout + got.stderr


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("core", [
    pytest.param(c, marks=() if c in STANDINS else pytest.mark.nightly) for c in SHAPES])
def test_every_shape_passes_on_both_simulators_and_fails_under_fault(
        tmp_path: Path, core: str) -> None:
    folder = project(tmp_path, core)
    n = "256" if core == "tp_mont" else "33"
    for sim in ("verilator", "icarus"):
        got = mv(folder, "sim", "--dut", core, "--sim", sim, "--n", n, "--txns", "4")
        assert got.returncode == 0 and f"PASS {core}" in got.stdout, got.stdout + got.stderr
    fault = mv(folder, "sim", "--dut", core, "--sim", "icarus", "--n", n, "--txns", "2",
               "--fault")
    assert fault.returncode == 1 and f"FAIL {core}" in fault.stdout, fault.stdout
    lint = mv(folder, "lint", "--dut", core)
    assert lint.returncode == 0 and f"lint {core}: ok" in lint.stdout, lint.stdout + lint.stderr
    top = (folder / "build" / "gen" / core / f"{core}_top.sv").read_text()
    assert "montverif.spec.adapter" in top


@pytest.mark.nightly(seconds=30)
def test_each_adapter_check_fails_a_broken_core_with_its_reason(tmp_path: Path) -> None:
    folder = project(tmp_path, "tp_mont", "tp_wide", "tp_axis")
    rtl = folder / "rtl"
    # an expression wider than its port: the elaboration stops, naming it, on both
    edit(rtl / "tp_mont.toml", 'a = "X"', "a = \"{X, 1'b0}\"")
    for sim in ("verilator", "icarus"):
        got = mv(folder, "sim", "--dut", "tp_mont", "--sim", sim, "--n", "256", "--txns", "2")
        assert got.returncode == 1
        assert "[core] ports.a is 257 bits, wider than tp_mont's a (256)" in first_error(got)
    # a result with a bit set above N: CoreResultFits_A, on both
    edit(rtl / "tp_wide.sv", "r       <= d[W+2] ? acc[W:0] : d[W:0];",
         "r       <= {1'b1, d[W+2] ? acc[W-1:0] : d[W-1:0]};")
    # a result out of no operation: CoreOutWithoutOp_A, on both
    edit(rtl / "tp_axis.sv", "        end else if (m_valid && m_ready) begin",
         "        end else if (!running && !m_valid && !s_valid && m_data == '0) begin\n"
         "            m_valid <= 1'b1;\n        end else if (m_valid && m_ready) begin")
    for core, name in (("tp_wide", "CoreResultFits_A"), ("tp_axis", "CoreOutWithoutOp_A")):
        for sim in ("verilator", "icarus"):
            got = mv(folder, "sim", "--dut", core, "--sim", sim, "--n", "16", "--txns", "2")
            assert got.returncode == 1
            assert first_error(got).startswith(f"ASSERT FAILED {name} @ "), first_error(got)


def test_a_hang_names_its_test_and_operation_and_is_logged(tmp_path: Path) -> None:
    folder = project(tmp_path, "tp_axis")
    edit(folder / "rtl" / "tp_axis.sv", "                m_valid <= 1'b1;",
         "                m_valid <= 1'b0;")
    for sim, bus in (("icarus", "pins"), ("verilator", "engine")):
        got = mv(folder, "sim", "--dut", "tp_axis", "--sim", sim, "--bus", bus, "--n", "16",
                 "--txns", "2", "--tests", "RandomTest")
        assert got.returncode == 1
        assert re.search(r"watchdog: RandomTest op 0 \(x=0x\w+, y=0x\w+, m=0x\w+\): DONE not "
                         r"raised", first_error(got)), first_error(got)
        run = next((folder / "build" / "runs").glob(f"tp_axis-n16-*{sim}-s1"))
        logged = [json.loads(ln) for ln in (run / "txns.jsonl").read_text().splitlines()]
        assert logged[-1]["test"] == "RandomTest" and logged[-1]["op"] == 0
        assert logged[-1]["error"] == "hang" and "end_ns" not in logged[-1]
        shutil.rmtree(folder / "build" / "runs")


STRUCT_PKG = """package tps_pkg;
  localparam int W = 64;
  typedef struct packed {
    logic [W-1:0] n;
    logic [W-1:0] b;
    logic [W-1:0] a;
  } op_t;
endpackage
"""


@pytest.mark.nightly(seconds=15)
def test_a_core_icarus_cannot_take_is_refused_there_in_one_line(tmp_path: Path) -> None:
    """tp_axis with its operands in a package's struct type: Verilator runs it; Icarus 11
    sizes the port at 0 bits (the elaboration check names it), and once the descriptor says
    so a run on Icarus is refused before any build, and lint leaves Icarus out."""
    folder = project(tmp_path)
    rtl = folder / "rtl"
    (rtl / "tps_pkg.sv").write_text(STRUCT_PKG)
    core = (EXAMPLES / "tp_axis.sv").read_text().replace(
        "module tp_axis #(", "module tps_axis\n  import tps_pkg::*;\n#(")
    core = core.replace("input  logic [3*W-1:0] s_data,", "input  op_t s_data,")
    (rtl / "tps_axis.sv").write_text(core)
    desc = (EXAMPLES / "tp_axis.toml").read_text().replace("tp_axis", "tps_axis")
    desc = desc.replace('rtl = ["tps_axis.sv"]', 'rtl = ["tps_pkg.sv", "tps_axis.sv"]')
    desc = desc.replace("widths = { min = 8, max = 1024 }", "widths = { min = 64, max = 64 }")
    desc = re.sub(r"(?m)^verilator = .*$", "verilator = [[64, 32, 4, 0]]", desc)
    desc = re.sub(r"(?m)^icarus = \[\[.*$", "icarus = []", desc)
    (rtl / "tps_axis.toml").write_text(desc)
    ok = mv(folder, "sim", "--dut", "tps_axis", "--n", "64", "--txns", "3")
    assert ok.returncode == 0 and "PASS tps_axis" in ok.stdout, ok.stdout + ok.stderr
    icarus = mv(folder, "sim", "--dut", "tps_axis", "--sim", "icarus", "--n", "64",
                "--txns", "2")
    assert icarus.returncode == 1 and "s_data (0)" in first_error(icarus), first_error(icarus)
    edit(rtl / "tps_axis.toml", 'params = { W = "N" }',
         'params = { W = "N" }\nicarus = "its operand port is a package struct (op_t)"')
    refused = mv(folder, "sim", "--dut", "tps_axis", "--sim", "icarus", "--n", "64")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert refused.stderr.startswith("error: tps_axis: Icarus cannot build it: its operand "
                                     "port is a package struct (op_t)"), refused.stderr
    lint = mv(folder, "lint", "--dut", "tps_axis")
    assert lint.returncode == 0 and "iverilog" not in lint.stdout, lint.stdout + lint.stderr


@pytest.mark.nightly(seconds=90)  # a scratch checkout's whole lint
def test_cores_from_elsewhere_in_the_tree_keep_its_checks_green(tmp_path: Path) -> None:
    """Issue 61: the guide's example added to montverif's own tree failed three of its tests
    and its lint. Every shape (both done styles among them), in a scratch copy of the
    checkout: generate, the whole lint, and the spec, docs and layout tests pass."""
    tree = scratch_tree(tmp_path)
    folder = tree.root / "hdl" / "thirdparty"
    folder.mkdir()
    for core in SHAPES:
        for f in EXAMPLES.glob(f"{core}.*"):
            shutil.copy2(f, folder / f.name)
    assert tree.run("generate").code == 0
    lint = tree.run("lint", timeout=1200)
    assert lint.code == 0, lint.out[-3000:] + lint.err[-3000:]
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not sim",
         "hdl/spec/tests/test_spec.py", "regress/tests/test_docs.py",
         "models/tests/test_descriptors.py"],
        cwd=tree.root, env=tree.env, capture_output=True, text=True, timeout=1200, check=False)
    assert tests.returncode == 0, tests.stdout[-4000:]
    assert " passed" in tests.stdout and "tp_axis" in tests.stdout + \
        (tree.root / "README.md").read_text()
