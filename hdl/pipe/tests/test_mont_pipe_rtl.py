"""mont_pipe (hdl/pipe/mont_pipe.sv) simulated on its own, before the project's stream harness
exists: cocotb's runner builds the core (the flags of regress/flow/build.py: -I hdl/common,
the 1 ns / 1 ps timescale, Verilator with --assert) and runs tb_mont_pipe.py, which streams
operations at full rate, with idle clocks and with back-pressure, and checks every result
(in order, by tag, against the model and gmpy2), every latency and the initiation interval.
Both simulators; a FaultEn = 1 build must fail on both (on Verilator by the stage's
assertion, on Icarus by the mismatch it causes)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from cocotb_tools.check_results import get_results
from cocotb_tools.runner import Icarus, Runner, Verilator

from montverif.host import tools
from montverif.host.paths import HDL, INCLUDE_DIRS
from montverif.models.mont_pipe import digits
from montverif.regress.flow.spec import TIMESCALE

pytestmark = pytest.mark.sim

TOP = "mont_pipe"
SOURCES = [HDL / "pipe" / f"{name}.sv"
           for name in ("mont_pipe_mprime", "mont_pipe_stage", "mont_pipe_final", TOP)]
TB_MODULE = "montverif.hdl.pipe.tests.tb_mont_pipe"
TESTS = ("full_rate", "fill_and_drain", "random_traffic")


class _OneJobVerilator(Verilator):
    """cocotb's Verilator runner, its C++ compiled by one make job (the suite shares two cores
    with other work; cocotb's runner takes up to four)."""

    def _build_command(self) -> list[list[str]]:
        cmds = super()._build_command()
        for cmd in cmds:
            if "-j" in cmd:
                cmd[cmd.index("-j") + 1] = "1"
        return cmds


@dataclass(frozen=True)
class Point:
    """One build of the core and one run of its tests."""

    sim: str
    n: int
    k: int
    ops: int = 300  # random_traffic's operations (and a quarter more)
    fault: bool = False
    seed: int = 1

    @property
    def fault_stage(self) -> int:
        return digits(self.n, self.k) // 2

    @property
    def parameters(self) -> dict[str, int]:
        return {"N": self.n, "K": self.k, "TagW": 8, "FaultEn": int(self.fault),
                "FaultStage": self.fault_stage}

    @property
    def plusargs(self) -> list[str]:
        return [f"+pipe_n={self.n}", f"+pipe_k={self.k}", "+pipe_tag_w=8",
                f"+pipe_ops={self.ops}"]


@dataclass(frozen=True)
class Outcome:
    tests: int
    failed: int
    log: str


@pytest.fixture
def sim_env() -> Iterator[None]:
    """tools.setup_env's changes to this process's environment (the simulator first on PATH,
    VERILATOR_ROOT, make's flags) last for one test only."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def simulate(point: Point, folder: Path, tests: Sequence[str] = TESTS,
             sources: Sequence[Path] = tuple(SOURCES)) -> Outcome:
    """Build the core at `point` in `folder` and run `tests` of tb_mont_pipe on it."""
    tools.setup_env(point.sim)
    runner: Runner = _OneJobVerilator() if point.sim == "verilator" else Icarus()
    build_dir = folder / "build"
    runner.build(sources=list(sources), includes=list(INCLUDE_DIRS), hdl_toplevel=TOP,
                 parameters=point.parameters, build_dir=build_dir, always=True,
                 build_args=["-Wno-fatal", "--assert"] if point.sim == "verilator" else [],
                 timescale=TIMESCALE, log_file=folder / "build.log")
    results, log = folder / "results.xml", folder / "sim.log"
    # Under pytest the runner exits when a test fails (SystemExit), and raises when the
    # simulator itself fails (RuntimeError: Verilator stops at a failed assertion); the
    # results and the log tell which.
    try:
        runner.test(test_module=TB_MODULE, hdl_toplevel=TOP, hdl_toplevel_lang="verilog",
                    build_dir=build_dir, test_dir=folder, seed=point.seed,
                    testcase=list(tests), plusargs=point.plusargs,
                    parameters=point.parameters, timescale=TIMESCALE,
                    results_xml=str(results), log_file=log)
    except (SystemExit, RuntimeError):
        pass
    tests_run, failed = get_results(results) if results.is_file() else (0, 0)
    return Outcome(tests_run, failed, log.read_text(errors="replace") if log.is_file() else "")


def _icarus() -> pytest.MarkDecorator:
    return pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")


# Verilator simulates these in well under a second (its build is the cost): more operations
# there; Icarus runs about 7000 clocks a second at N = 16.
PASSING = [
    # make test's stand-in on Verilator is N = 13; the nightly runs the larger builds
    pytest.param(Point("verilator", 16, 4, ops=3000), marks=pytest.mark.nightly(seconds=25)),
    Point("verilator", 13, 2, ops=3000),
    pytest.param(Point("verilator", 64, 8, ops=1500), marks=pytest.mark.nightly(seconds=40)),
    pytest.param(Point("icarus", 16, 4), marks=_icarus()),
    pytest.param(Point("icarus", 13, 2), marks=_icarus()),
    pytest.param(Point("icarus", 8, 1, ops=150), marks=_icarus()),
    pytest.param(Point("icarus", 64, 4, ops=150),
                 marks=(_icarus(), pytest.mark.nightly(seconds=25))),
]


@pytest.mark.parametrize("point", PASSING, ids=lambda p: f"{p.sim}-n{p.n}-k{p.k}")
def test_the_core_streams_right(point: Point, tmp_path: Path, sim_env: None) -> None:
    out = simulate(point, tmp_path)
    assert (out.tests, out.failed) == (len(TESTS), 0), out.log[-3000:]


@pytest.mark.parametrize("sim", [
    pytest.param("verilator", marks=pytest.mark.nightly(seconds=8)),
    pytest.param("icarus", marks=_icarus())])
def test_a_wrong_quotient_digit_is_caught(sim: str, tmp_path: Path, sim_env: None) -> None:
    """FaultEn = 1: one stage flips bit 0 of its quotient digit. The tests must fail: on
    Verilator at the stage's assertion (the division by 2^K drops a one bit), on Icarus (no
    assertions) by a wrong P."""
    point = Point(sim, 16, 4, ops=40, fault=True)
    out = simulate(point, tmp_path, tests=("random_traffic",))
    assert out.tests == 1 and out.failed == 1, out.log[-3000:]
    if sim == "verilator":  # the faulted stage, at the first operation through it
        assert "ASSERT FAILED PipeLowDigitZero_A @ " in out.log, out.log[-3000:]
        assert f"g_stage[{point.fault_stage}].u_stage.PipeLowDigitZero_A" in out.log
    else:
        assert "MISMATCH tag 0: P = " in out.log, out.log[-3000:]


# Handshake and bookkeeping bugs the bench must see (copies of the RTL with one change each):
# (file, old text (found once), new text, what the bench says first)
BROKEN = {
    "output-ignores-back-pressure": (
        f"{TOP}.sv", "end else if (advance && valid_d[D]) begin",
        "end else if (valid_d[D]) begin", "output changed while stalled"),
    "in-ready-high-while-stalled": (
        f"{TOP}.sv", "assign in_ready_o = advance;", "assign in_ready_o = 1'b1;",
        "against the global stall"),
    "stage-data-moves-while-stalled": (
        "mont_pipe_stage.sv", "end else if (en_i && valid_i) begin\n      tag_q",
        "end else if (valid_i) begin\n      tag_q", "ORDER clock"),
    "tag-not-carried": (
        "mont_pipe_stage.sv", "tag_q <= tag_i;", "tag_q <= '0;", "ORDER clock"),
}


@_icarus()
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_handshake_is_caught(name: str, tmp_path: Path, sim_env: None) -> None:
    """Icarus (a build takes no time): each broken copy fails random_traffic, with the
    check that names the bug first."""
    file, old, new, says = BROKEN[name]
    folder = tmp_path / "rtl"
    folder.mkdir()
    sources = []
    for src in SOURCES:
        text = src.read_text()
        if src.name == file:
            assert text.count(old) == 1, f"{file}: {old!r} not found once"
            text = text.replace(old, new)
        (folder / src.name).write_text(text)
        sources.append(folder / src.name)
    out = simulate(Point("icarus", 16, 4, ops=80), tmp_path, ("random_traffic",), sources)
    assert out.tests == 1 and out.failed == 1, out.log[-3000:]
    assert says in out.log, out.log[-3000:]
