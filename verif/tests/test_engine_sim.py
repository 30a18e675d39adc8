"""The fast bus mode (BUS=engine): the HDL bus engine performs the transfers, Python checks
them. Same stimulus and results as pin mode, every check still active (a corrupted design is
caught), on both simulators."""

from __future__ import annotations

import json
import re

import pytest

from montverif.host.paths import ROOT, sim_builds
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import ALL_TESTS, BuildSpec, RunSpec
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import load_design
from montverif.verif.tests.test_designs_sim import check_log_against_gmpy2

pytestmark = pytest.mark.sim
# both simulators, Icarus in make test (a build of about a second; Verilator's takes three or
# more: the nightly and the tests that stay run it)
ICARUS_STANDIN = standins(["verilator", "icarus"], ["icarus"], seconds=15)


def _timing_free(path) -> list[dict]:
    """The transaction log without its times (the engine spends a cycle per script)."""
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        out.append({k: v for k, v in rec.items() if not k.endswith("_ns")})
    return out


@pytest.mark.parametrize("sim", ICARUS_STANDIN)
@pytest.mark.parametrize("dut,n", standins([("mont_lut", 32), ("mm42", 40)], [("mont_lut", 32)],
                                           unpack=True))
def test_engine_matches_pins(tmp_path, sim, dut, n):
    logs = {}
    for bus in ("pins", "engine"):
        run = RunSpec(BuildSpec(dut, n, 16, sim, bus=bus), seed=11, txns=8, tests=ALL_TESTS,
                      timeout_s=900)
        outcome = execute(run, tmp_path / run.key)
        assert outcome.passed, f"{bus}: {outcome.first_error}"
        assert check_log_against_gmpy2(outcome, load_design(dut), n) >= 8
        logs[bus] = _timing_free(outcome.log_dir / "txns.jsonl")
    assert logs["engine"] == logs["pins"]


@pytest.mark.parametrize("sim", ICARUS_STANDIN)
def test_engine_mode_catches_a_corrupted_design(tmp_path, sim):
    run = RunSpec(BuildSpec("mont_lut", 32, 32, sim, fault=True, bus="engine"), seed=3,
                  txns=6, tests=("RandomTest",), timeout_s=900)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert outcome.first_error.startswith("MISMATCH"), outcome.first_error
    assert "--bus engine" in run.repro()


OBSERVE_SV = ROOT / "hdl" / "common" / "mv_observe.sv"


# each capture on Icarus in make test, on Verilator in the nightly
@pytest.mark.parametrize("sim", ICARUS_STANDIN)
@pytest.mark.parametrize("old, new, message", [
    ("HitW] + 1'b1", "HitW] + 2'd2", "table-address hits"),  # every use counted twice
    ("sub_taken_q <= sub_taken_i;", "sub_taken_q <= !sub_taken_i;", "final subtraction"),
])
def test_engine_capture_at_done_is_checked(tmp_path, sim, old, new, message):
    """In fast mode the engine captures the observation signals when done rises (no Python
    wakes at the edge); a core whose observation lies is still caught, by the same check."""
    overlay = tmp_path / "observe_lies"
    overlay.mkdir()
    text = OBSERVE_SV.read_text()
    assert old in text
    (overlay / OBSERVE_SV.name).write_text(text.replace(old, new))
    run = RunSpec(BuildSpec("mont_lut", 32, 32, sim, bus="engine", overlay=str(overlay)),
                  seed=3, txns=6, tests=("RandomTest",), timeout_s=900)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert outcome.first_error.startswith("MISMATCH"), outcome.first_error
    assert message in outcome.first_error, outcome.first_error


def test_engine_watchdog_reports_a_hung_operation(tmp_path, monkeypatch):
    """An operation that never raises done ends with the engine's watchdog message."""
    run = RunSpec(BuildSpec("mont_lut", 32, 32, "verilator", bus="engine"), seed=1, txns=2,
                  tests=("RandomTest",), timeout_s=900)
    monkeypatch.setenv("MV_DONE_TIMEOUT", "3")  # cycles: far below the 34 an operation takes
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    # the hang names the test and the operation it hung in (with its operands)
    assert re.search(r"watchdog: RandomTest op 0 \(x=0x\w+, y=0x\w+, m=0x\w+\): DONE not "
                     r"raised within 3 cycles", outcome.first_error), outcome.first_error


@pytest.mark.parametrize("sim", ICARUS_STANDIN)
def test_engine_scripts_give_the_same_transfers(tmp_path, monkeypatch, sim):
    """An operation as one engine script gives the same transfers (address, data, read data)
    as the engine item by item (MV_BATCH=0) and as pin mode; only the times differ. The
    script, the log and the done capture moved in place (the default on Verilator), as VPI
    words (the default on Icarus, MV_VPI=words) or as cocotb's binary strings (MV_VPI=cocotb)
    give the same."""
    tests = ("RandomTest", "BackToBackTest", "ErrorTest")
    logs, txns = {}, {}
    default = "memory" if sim == "verilator" else "words"
    for bus, batch, vpi in (("pins", "1", "direct"), ("engine", "0", "direct"),
                            ("engine", "1", "direct"), ("engine", "1", "words"),
                            ("engine", "1", "cocotb")):
        key = f"{bus}-{batch}-{vpi}"
        monkeypatch.setenv("MV_BATCH", batch)
        monkeypatch.setenv("MV_VPI", vpi)
        monkeypatch.setenv("MV_BUS_LOG", str(tmp_path / f"{key}.bus"))
        run = RunSpec(BuildSpec("mont_lut", 32, 8, sim, bus=bus), seed=5, txns=6, tests=tests,
                      timeout_s=900)
        outcome = execute(run, tmp_path / key / run.key)
        assert outcome.passed, f"{key}: {outcome.first_error}"
        logs[key] = (tmp_path / f"{key}.bus").read_text().splitlines()
        txns[key] = _timing_free(outcome.log_dir / "txns.jsonl")
        if bus == "engine":
            split = json.loads((outcome.log_dir / "engine.json").read_text())
            assert split["vpi"] == (default if vpi == "direct" else vpi), split
            # scripts of whole operations (verif/bus/ops.py) only where items are batched
            assert (_whole(outcome) > 0) is (batch == "1"), key
    assert len(logs["engine-1-direct"]) > 300  # 8-bit bus: multi-word bursts
    assert logs["engine-1-direct"] == logs["engine-1-words"] == logs["engine-1-cocotb"] \
        == logs["engine-0-direct"] == logs["pins-1-direct"]
    assert txns["engine-1-direct"] == txns["engine-1-words"] == txns["engine-1-cocotb"] \
        == txns["engine-0-direct"] == txns["pins-1-direct"]


@pytest.mark.parametrize("sim", ["verilator", "icarus"])
def test_engine_watchdog_inside_a_script(tmp_path, monkeypatch, sim):
    """A wait for done that never ends inside an operation's script: the watchdog message of
    item-by-item mode, and the script's transfers before it (the loads and START) were all
    published and checked."""
    monkeypatch.setenv("MV_DONE_TIMEOUT", "3")
    monkeypatch.setenv("MV_BUS_LOG", str(tmp_path / "bus.log"))
    run = RunSpec(BuildSpec("mont_lut", 32, 8, sim, bus="engine"), seed=1, txns=2,
                  tests=("RandomTest",), timeout_s=900)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert re.search(r"watchdog: RandomTest op 0 \(x=0x\w+, y=0x\w+, m=0x\w+\): DONE not "
                     r"raised within 3 cycles \(hung operation\)", outcome.first_error), \
        outcome.first_error
    lines = (tmp_path / "bus.log").read_text().splitlines()
    assert len(lines) == 3 * 4 + 1 and lines[-1].startswith("W 0 "), lines  # X, Y, M, START


@pytest.mark.nightly(seconds=10)
def test_engine_main_loop_matches_the_hdl_clock(tmp_path, monkeypatch):
    """Verilator engine builds toggle the wrapper's clock in their own main loop
    (verif/bus/engine_main.cpp, no --timing): every transfer, result and time is the same as
    with the wrapper's HDL delay-loop clock under cocotb's own main (MV_ENGINE_CLOCK=hdl)."""
    tests = ("RandomTest", "BackToBackTest", "ErrorTest")
    logs, txns = {}, {}
    for clock in ("hdl", "main"):
        monkeypatch.setenv("MV_ENGINE_CLOCK", clock)
        monkeypatch.setenv("MV_BUS_LOG", str(tmp_path / f"{clock}.bus"))
        run = RunSpec(BuildSpec("mont_lut", 32, 8, "verilator", bus="engine"), seed=5, txns=6,
                      tests=tests, timeout_s=900)
        assert ("hdlclk" in run.key) == (clock == "hdl")
        outcome = execute(run, tmp_path / clock / run.key)
        assert outcome.passed, f"{clock}: {outcome.first_error}"
        logs[clock] = (tmp_path / f"{clock}.bus").read_text().splitlines()
        txns[clock] = outcome.log_dir.joinpath("txns.jsonl").read_text().splitlines()
    assert len(logs["main"]) > 300 and len(txns["main"]) >= 6
    assert logs["main"] == logs["hdl"]
    assert txns["main"] == txns["hdl"]  # times included


def test_pins_main_loop_matches_cocotb_clock(tmp_path, monkeypatch):
    """Verilator pin-mode builds toggle the design top's clock in the same main loop, and the
    testbench starts no cocotb Clock (MV_CLOCK=main): within a test every transfer, result and
    time is the same as with cocotb's Clock under cocotb's main (MV_ENGINE_CLOCK=hdl); over
    several tests of one simulation every transfer and result is (the clock keeps running
    between tests, where cocotb's Clock stopped: later tests may lie half a cycle apart)."""
    def strip(lines: list[str]) -> list[dict]:
        return [{k: v for k, v in json.loads(t).items() if not k.endswith("_ns")}
                for t in lines]

    for tests in (("RandomTest",), ("RandomTest", "BackToBackTest", "ErrorTest")):
        logs, txns = {}, {}
        for clock in ("hdl", "main"):
            monkeypatch.setenv("MV_ENGINE_CLOCK", clock)
            monkeypatch.setenv("MV_BUS_LOG", str(tmp_path / f"{clock}{len(tests)}.bus"))
            run = RunSpec(BuildSpec("mont_lut", 32, 8, "verilator"), seed=5, txns=6,
                          tests=tests, timeout_s=900)
            assert ("hdlclk" in run.key) == (clock == "hdl")
            outcome = execute(run, tmp_path / f"{clock}{len(tests)}" / run.key)
            assert outcome.passed, f"{clock}: {outcome.first_error}"
            # the main loop's object, or cocotb's main's, in the build
            objs = {f.name for f in (sim_builds() / run.build.key).glob("*.o")}
            assert ("engine_main.o" in objs, "verilator.o" in objs) == (
                clock == "main", clock == "hdl"), objs
            logs[clock] = (tmp_path / f"{clock}{len(tests)}.bus").read_text().splitlines()
            txns[clock] = outcome.log_dir.joinpath("txns.jsonl").read_text().splitlines()
        assert len(logs["main"]) > 100 and len(txns["main"]) >= 6
        assert logs["main"] == logs["hdl"]
        if len(tests) == 1:
            assert txns["main"] == txns["hdl"]  # times included
        else:
            assert strip(txns["main"]) == strip(txns["hdl"])


PROBE_TIMEOUT_S = 120  # one probe run takes about 2 s


def _run_probe(spec, design, module: str, out, env: dict[str, str]):
    """Run a probe module on the built engine model; what it wrote to MV_PROBE_OUT."""
    from montverif.regress.bench.common import WallLimit, run_module

    try:
        run_module(spec, design, module, out, env | {"MV_PROBE_OUT": str(out / "probe.json")},
                   PROBE_TIMEOUT_S, seed=3)
    except WallLimit:
        pytest.fail(f"{module} {env}: the probe hung ({PROBE_TIMEOUT_S} s)")
    assert (out / "probe.json").exists(), (out / "sim.log").read_text()[-2000:]
    return json.loads((out / "probe.json").read_text())


def test_engine_main_loop_quiet_slots_change_nothing(tmp_path):
    """The engine main loop skips cocotb's callback protocol while no callback runs (quiet
    slots). A coroutine awaiting every kind of trigger (timers due on edges and between
    them, edges, NextTimeStep, ReadWrite, ReadOnly, value changes, across the quiet
    stretches of a script's wait for done) sees the same times and values as with the whole
    protocol in every slot (MV_ENGINE_QUIET=0; verif/tests/engine_probe.py)."""
    from montverif.regress.flow.build import build
    from montverif.verif.config import CLOCK_PERIOD_NS
    from montverif.verif.tests.engine_probe import M, X, Y

    design = load_design("mont_lut")
    spec = BuildSpec("mont_lut", 32, 8, "verilator", bus="engine")
    build(spec, design)
    notes = {}
    for quiet in ("1", "0"):  # a loop that misses a callback hangs
        notes[quiet] = _run_probe(spec, design, "montverif.verif.tests.engine_probe",
                                  tmp_path / f"quiet{quiet}", {"MV_ENGINE_QUIET": quiet})
    probe = {row[0]: row[1:] for row in notes["1"]}
    ps = CLOCK_PERIOD_NS * 1000
    assert probe["reset held, on a rising edge"][:2] == [3 * ps, "1"]
    assert probe["on a falling edge"][:2] == [3.5 * ps, "0"]
    assert probe["five rising edges"][0] == probe["quiet, on a falling edge"][0] + 4.5 * ps
    assert probe["done changed"][4:6] == ["0", "1"]  # busy low, done high
    assert notes["1"][-1][0] == "read"
    assert sum(w << (8 * k) for k, w in enumerate(notes["1"][-1][2])) == X * Y * pow(
        2, -32, M) % M  # P = X Y 2^-N mod M, read back over the 8-bit bus
    assert notes["1"] == notes["0"]


@pytest.mark.parametrize("bus_w", standins([8, 64], [8], seconds=8))
def test_engine_script_strides(tmp_path, bus_w):
    """The narrowest and the widest bus: script entries of 32 and 128 bits (EntStride, one
    struct code and the byte-wise packing) give the same operations as pin mode."""
    logs = {}
    for bus in ("pins", "engine"):
        run = RunSpec(BuildSpec("mont_lut", 24, bus_w, "icarus", bus=bus), seed=5, txns=4,
                      tests=("RandomTest",), timeout_s=900)
        outcome = execute(run, tmp_path / run.key)
        assert outcome.passed, f"{bus}: {outcome.first_error}"
        logs[bus] = _timing_free(outcome.log_dir / "txns.jsonl")
    assert len(logs["engine"]) >= 4 and logs["engine"] == logs["pins"]


def _whole(outcome) -> int:
    """Operations the last test checked as whole operations (Scoreboard.on_ops)."""
    return json.loads((outcome.log_dir / "throughput.json").read_text())["whole"]


@pytest.mark.parametrize("sim", ["verilator", "icarus"])
@pytest.mark.parametrize("dut,n,bus_w,tests,before", [
    # a corrupted table entry: the hits of op 4 first (ops 0 to 3 are right)
    ("mont_lut", 32, 32, ("RandomTest",), True),
    ("mont_dual", 97, 32, ("RandomTest",), False),  # a corrupted product: op 0's P
])
def test_whole_operations_of_a_broken_design_fail_as_their_bursts(tmp_path, monkeypatch, sim,
                                                                   dut, n, bus_w, tests,
                                                                   before):
    """A fault build checked as scripts of whole operations and item by item (MV_BATCH=0):
    the same transaction log, the same first mismatch and the same verdict. `before`: the
    fault shows after some right operations, which were checked whole."""
    seen = {}
    for batch in ("1", "0"):
        monkeypatch.setenv("MV_BATCH", batch)
        run = RunSpec(BuildSpec(dut, n, bus_w, sim, fault=True, bus="engine"), seed=3,
                      txns=12, tests=tests, timeout_s=900)
        outcome = execute(run, tmp_path / batch / run.key)
        assert not outcome.passed and outcome.first_error.startswith("MISMATCH"), batch
        # without times: item by item, the engine spends a cycle a script
        seen[batch] = (re.sub(r"@[\d.]+ns ", "", outcome.first_error),
                       _timing_free(outcome.log_dir / "txns.jsonl"))
        if batch == "1" and before:
            assert _whole(outcome) > 0
    assert seen["1"] == seen["0"]


def _check_thread(outcome) -> bool:
    return json.loads((outcome.log_dir / "throughput.json").read_text())["check_thread"]


@pytest.mark.parametrize("dut,n", standins([("mont_lut", 32), ("mm42", 40)], [("mont_lut", 32)],
                                           unpack=True, seconds=10))
def test_check_thread_checks_the_same(tmp_path, monkeypatch, dut, n):
    """The scoreboard on its worker thread (the engine's main loop running the model without
    the GIL meanwhile) checks the same operations, with the same results and times, as in
    the publishing thread."""
    logs = {}
    for flag in ("0", "1"):
        monkeypatch.setenv("MV_CHECK_THREAD", flag)
        run = RunSpec(BuildSpec(dut, n, 16, "verilator", bus="engine"), seed=11, txns=40,
                      tests=ALL_TESTS, timeout_s=900)
        outcome = execute(run, tmp_path / flag / run.key)
        assert outcome.passed, f"MV_CHECK_THREAD={flag}: {outcome.first_error}"
        assert _check_thread(outcome) is (flag == "1")
        assert check_log_against_gmpy2(outcome, load_design(dut), n) >= 40
        logs[flag] = (outcome.log_dir / "txns.jsonl").read_text().splitlines()
    assert logs["1"] == logs["0"]


@pytest.mark.parametrize("fault,overlay_old,overlay_new", [
    (True, "", ""),  # the corrupted table entry: a P mismatch
    (False, "HitW] + 1'b1", "HitW] + 2'd2"),  # the done capture lies: a hit-count mismatch
])
def test_check_thread_catches_a_corrupted_design(tmp_path, monkeypatch, fault, overlay_old,
                                                  overlay_new):
    """Mismatches found on the checker thread fail the test and are logged (by the main
    thread) with the same message."""
    monkeypatch.setenv("MV_CHECK_THREAD", "1")
    overlay = ""
    if overlay_old:
        folder = tmp_path / "observe_lies"
        folder.mkdir()
        text = OBSERVE_SV.read_text()
        assert overlay_old in text
        (folder / OBSERVE_SV.name).write_text(text.replace(overlay_old, overlay_new))
        overlay = str(folder)
    run = RunSpec(BuildSpec("mont_lut", 32, 32, "verilator", fault=fault, bus="engine",
                            overlay=overlay), seed=3, txns=40, tests=("RandomTest",),
                  timeout_s=900)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert outcome.first_error.startswith("MISMATCH"), outcome.first_error
    assert _check_thread(outcome)
    log = (outcome.log_dir / "sim.log").read_text()
    assert "MISMATCH" in log and "scoreboard" in log


def test_engine_main_loop_hands_the_gil_back_while_the_model_runs(tmp_path):
    """With MV_CHECK_THREAD=1 the engine main loop releases Python's GIL during quiet slots:
    while the test awaits a timer 2,000,000 cycles away, a second Python thread gets to run
    in the first half of the wait. Without it (MV_CHECK_THREAD=0, as cocotb itself does) the
    simulator's thread keeps the GIL and the other thread runs only once the wait is over
    (verif/tests/gil_probe.py)."""
    from montverif.regress.flow.build import build

    design = load_design("mont_lut")
    spec = BuildSpec("mont_lut", 32, 8, "verilator", bus="engine")
    build(spec, design)
    probe = {flag: _run_probe(spec, design, "montverif.verif.tests.gil_probe",
                              tmp_path / f"thread{flag}", {"MV_CHECK_THREAD": flag})
             for flag in ("1", "0")}
    assert probe["1"]["first_run_s"] < probe["1"]["wait_s"] / 2, probe
    assert probe["0"]["first_run_s"] > probe["0"]["wait_s"] / 2, probe
