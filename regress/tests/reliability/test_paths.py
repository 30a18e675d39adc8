"""Odd paths (issue 59, item 6): results folders below /tmp (which the WebAssembly tools
replace with a /tmp of their own) and with spaces and non-ASCII characters in their names.
Each tool reads only its own folder's copy of its sources (host.paths.stage). Before: SBY
split its [files] entries at the spaces and ended ERROR (`formal` said UNKNOWN), Yosys
read an unquoted script path."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from montverif.regress.tests.reliability.helpers import Tree, scratch_tree

MONTVERIF = Path(sys.executable).parent / "montverif"


@pytest.fixture
def odd(tmp_path: Path) -> Iterator[Path]:
    """A folder below /tmp whose name holds spaces and non-ASCII characters."""
    with tempfile.TemporaryDirectory(prefix="mv odd ü ", dir="/tmp") as folder:
        yield Path(folder) / "a b é"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MONTVERIF), *args], capture_output=True, text=True,
                          timeout=900, check=False)


@pytest.mark.formal
def test_a_proof_in_an_odd_folder_reaches_its_verdict(odd: Path) -> None:
    cp = run("formal", "--dut", "mont_r2", "--out", str(odd / "proof"))
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert json.loads((odd / "proof" / "formal.json").read_text())["status"] == "bounded"


@pytest.mark.nightly(seconds=12)
@pytest.mark.formal
def test_covers_in_an_odd_folder_are_decided(odd: Path) -> None:
    cp = run("formal", "--dut", "mont_r2", "--covers", "--out", str(odd / "covers"))
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert " 0 undecided" in cp.stdout and "UNDECIDED" not in cp.stdout, cp.stdout


@pytest.mark.nightly(seconds=10)
@pytest.mark.synth
def test_a_synthesis_in_an_odd_folder_gives_its_figures(odd: Path) -> None:
    cp = run("synth", "run", "--dut", "mont_r2", "--n", "32", "--out", str(odd / "synth"))
    assert cp.returncode == 0, cp.stdout + cp.stderr
    result = json.loads((odd / "synth" / "synth.json").read_text())
    assert result["cells"]["luts"] > 0 and result["timing"]["logic_delay_ns"] > 0


@pytest.fixture(scope="module")
def odd_checkout() -> Iterator[Tree]:
    """A copy of the checkout below /tmp at a path with spaces and non-ASCII characters."""
    with tempfile.TemporaryDirectory(prefix="mv odd ü ", dir="/tmp") as folder:
        yield scratch_tree(Path(folder))


@pytest.mark.nightly(seconds=25)
@pytest.mark.formal
@pytest.mark.synth
@pytest.mark.sim
def test_a_checkout_at_an_odd_path_simulates_proves_and_synthesises(odd_checkout: Tree) -> None:
    """Both simulators, SBY and Yosys run there. Verilator's makefiles cannot take such a
    path: its build names the sources through aliases and builds in the user's cache
    (host.paths.alias, sim_builds()); the run folder stays in the checkout's build/."""
    icarus, verilator, formal, synth = odd_checkout.commands(
        ["sim", "--dut", "mont_r2", "--n", "32", "--txns", "5", "--sim", "icarus"],
        ["sim", "--dut", "mont_lut", "--n", "32", "--txns", "5", "--sim", "verilator"],
        ["formal", "--dut", "mont_r2"],
        ["synth", "run", "--dut", "mont_r2", "--n", "32"])
    for sim in (icarus, verilator):
        assert sim.code == 0 and "PASS" in sim.out, sim.out + sim.err
        assert str(odd_checkout.root / "build" / "runs") in sim.out
    assert formal.code == 0 and formal.out.startswith("BOUNDED"), formal.out + formal.err
    assert synth.code == 0 and "LUTs" in synth.out, synth.out + synth.err
