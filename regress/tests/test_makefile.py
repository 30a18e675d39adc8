"""The Makefile passes on only what the user set: the defaults live in the CLI alone
(issue 65). Each target's montverif command line is read from `make -n`."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess

import pytest

from montverif.host.paths import ROOT

# make's variable -> the option it becomes, for `make sim` (every one of them)
SIM_VARS = {"DUT": "--dut", "N": "--n", "BUSW": "--busw", "SIM": "--sim", "SEED": "--seed",
            "TXNS": "--txns", "ACK_WAIT": "--ack-wait", "IDLE_MAX": "--idle-max",
            "TIMEOUT": "--timeout", "VECTORS": "--vectors", "TESTS": "--tests",
            "PARAMS": "--params", "BUS": "--bus", "OUT": "--out"}
SIM_SWITCHES = {"WAVES": "--waves", "FAULT": "--fault", "COV": "--coverage",
                "ALLOW_WIDE": "--allow-wide", "BEYOND_PAPER": "--beyond-paper",
                "KEEP_SECRETS": "--keep-secrets"}
# the variables that are make's own choices (which list `make regress` runs, the test
# suite's settings), not options of a command: the only ones with a default here
MAKE_OWN = {"PYTHON", "LIST", "REGRESS_ARGS", "PYTEST_ARGS", "TEST_MARKS", "NIGHTLY_JUNIT",
            "TEST_SHARD", "TEST_JUNIT", "MUTANT_ARGS", "BENCH_LISTS", "BENCH_ARGS"}


def command(target: str, *assignments: str) -> list[str]:
    """The arguments after `montverif <target>` in the recipe `make -n` prints (an
    environment of PATH and HOME alone: no variable of the caller's reaches make)."""
    make = shutil.which("make")
    assert make is not None, "make is not on PATH"
    out = subprocess.run([make, "-n", "--no-print-directory", target, *assignments],
                         cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": str(ROOT)}).stdout
    lines = [line for line in out.replace("\\\n", " ").splitlines()
             if line.startswith(f".venv/bin/montverif {target}")]
    assert lines, out
    return shlex.split(lines[-1])[2:]


def test_a_target_given_nothing_passes_no_option() -> None:
    assert command("sim") == []
    assert command("formal") == []
    assert command("synth") == ["run"]
    assert command("mutate") == []
    assert command("closure") == ["run"]
    assert command("regress") == ["--list", "smoke"]


@pytest.mark.parametrize("var", sorted(SIM_VARS))
def test_each_variable_set_becomes_its_option_and_nothing_else(var: str) -> None:
    assert command("sim", f"{var}=x1") == [SIM_VARS[var], "x1"]
    assert command("sim", f"{var}=") == []  # set empty: not passed


@pytest.mark.parametrize("var", sorted(SIM_SWITCHES))
def test_each_switch_set_to_1_becomes_its_flag(var: str) -> None:
    assert command("sim", f"{var}=1") == [SIM_SWITCHES[var]]
    assert command("sim", f"{var}=0") == []


def test_the_other_targets_pass_what_was_set() -> None:
    assert command("mutate", "DUT=mont_r2", "JOBS=2") == ["--dut", "mont_r2", "--jobs", "2"]
    assert command("closure", "DUT=mont_r2", "STEER=0", "SEED=3") == \
        ["run", "--dut", "mont_r2", "--seed", "3", "--no-steer"]
    assert command("formal", "BLOCK=mont_dual_mul") == ["--block", "mont_dual_mul"]
    assert command("formal", "DUT=mont_r2", "FAULT=1") == ["--dut", "mont_r2", "--fault"]
    assert command("synth", "DUT=mont_r2", "N=64", "PNR=1") == \
        ["pnr", "--dut", "mont_r2", "--n", "64"]
    assert command("synth", "DUT=mont_r2", "PNR=0") == ["run", "--dut", "mont_r2"]
    assert command("regress", "JOBS=1") == ["--list", "smoke", "--jobs", "1"]


def test_no_option_has_a_default_in_the_makefile() -> None:
    text = (ROOT / "Makefile").read_text()
    defaulted = set(re.findall(r"^([A-Z_]+)\s*\?=", text, re.M))
    assert defaulted == MAKE_OWN, defaulted ^ MAKE_OWN
    assert "$(origin" not in text.replace("$(origin $(1))", "")
