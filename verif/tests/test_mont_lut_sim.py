"""mont_lut through the full pyuvm testbench on both simulators, plus the negative test:
a build with one corrupted table entry must fail, and fail in the scoreboard."""

from __future__ import annotations

import json
import random

import gmpy2
import pytest

from regress.sim import ALL_TESTS, BuildSpec, RunSpec, execute

pytestmark = pytest.mark.sim

# (N, BusW, txns, ack_wait, tests): widths include a non-power-of-two and 1024; 2048 spot-check
VERILATOR_POINTS = [
    (32, 32, 40, 0, ALL_TESTS),
    (97, 8, 20, 2, ALL_TESTS),
    (1024, 32, 20, 0, ALL_TESTS),
    (2048, 64, 2, 0, ("RandomTest", "ErrorTest")),
]
# Icarus is simulator-bound (~5k cycles/s on wide vectors): fewer operations at 1024
ICARUS_POINTS = [
    (32, 16, 20, 0, ALL_TESTS),
    (97, 8, 8, 1, ALL_TESTS),
    (1024, 64, 2, 0, ("RandomTest", "ErrorTest")),
]


def _run(tmp_path, sim: str, n: int, bus_w: int, txns: int, ack_wait: int, tests: tuple,
         seed: int = 7, fault: bool = False, **kw: object):
    kw.setdefault("timeout_s", 900)
    run = RunSpec(BuildSpec("mont_lut", n, bus_w, sim, ack_wait, fault), seed=seed, txns=txns,
                  tests=tests, **kw)  # type: ignore[arg-type]
    return execute(run, tmp_path / run.key)


def _txns(outcome) -> list[dict]:
    return [json.loads(line) for line in (outcome.log_dir / "txns.jsonl").read_text().splitlines()]


def _check_log_against_gmpy2(outcome, n: int) -> int:
    """Independent of the scoreboard: every logged result is x*y*2^-n mod m."""
    checked = 0
    for rec in _txns(outcome):
        if "error" in rec:
            continue
        x, y, m = int(rec["x"]), int(rec["y"]), int(rec["m"])
        expected = int(gmpy2.mpz(x) * y * gmpy2.invert(gmpy2.mpz(2) ** n, m) % m) if m > 1 else 0
        assert int(rec["p"]) == expected, rec
        assert rec["cycles"] == n + 2
        checked += 1
    return checked


@pytest.mark.parametrize("n,bus_w,txns,ack_wait,tests", VERILATOR_POINTS,
                         ids=[f"n{p[0]}-b{p[1]}" for p in VERILATOR_POINTS])
def test_verilator(tmp_path, n, bus_w, txns, ack_wait, tests):
    outcome = _run(tmp_path, "verilator", n, bus_w, txns, ack_wait, tests)
    assert outcome.passed, outcome.first_error
    assert outcome.tests == len(tests)
    assert _check_log_against_gmpy2(outcome, n) >= txns
    cov = json.loads((outcome.log_dir / "coverage.json").read_text())
    assert cov["mont_lut.lut.addr"]["hits"] > 0


@pytest.mark.parametrize("n,bus_w,txns,ack_wait,tests", ICARUS_POINTS,
                         ids=[f"n{p[0]}-b{p[1]}" for p in ICARUS_POINTS])
def test_icarus(tmp_path, n, bus_w, txns, ack_wait, tests):
    outcome = _run(tmp_path, "icarus", n, bus_w, txns, ack_wait, tests)
    assert outcome.passed, outcome.first_error
    assert _check_log_against_gmpy2(outcome, n) >= txns


@pytest.mark.parametrize("sim", ["verilator", "icarus"])
def test_corrupted_table_entry_is_caught(tmp_path, sim):
    """FaultEn swaps table entry 6 (x_i=0, y_0=1, s_0=1, c_0=0: M becomes 0)."""
    outcome = _run(tmp_path, sim, 32, 32, 10, 0, ("RandomTest", "CornerTest"), fault=True)
    assert not outcome.passed
    assert outcome.failed >= 1
    assert outcome.first_error.startswith("MISMATCH"), outcome.first_error
    assert "FAULT=1" in outcome.run.repro()


def test_vector_replay(tmp_path):
    rng = random.Random(5)
    n = 64
    vectors = []
    for _ in range(6):
        m = rng.getrandbits(n) | (1 << (n - 1)) | 1
        vectors.append({"x": hex(rng.randrange(m)), "y": str(rng.randrange(m)), "m": hex(m),
                        "note": "extra keys are ignored"})
    vectors.append({"x": "0", "y": "0x5", "m": "0xffffffffffffffff"})
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps({"vectors": vectors}))
    outcome = _run(tmp_path, "verilator", n, 32, 1, 0, ("VectorTest",), vectors=str(path))
    assert outcome.passed, outcome.first_error
    logged = _txns(outcome)
    assert [(int(r["x"]), int(r["y"]), int(r["m"])) for r in logged] == [
        (int(v["x"], 0), int(v["y"], 0), int(v["m"], 0)) for v in vectors]
    assert _check_log_against_gmpy2(outcome, n) == len(vectors)


@pytest.mark.parametrize("sim", ["verilator", "icarus"])
def test_waves(tmp_path, sim):
    run = RunSpec(BuildSpec("mont_lut", 16, 8, sim, waves=True), seed=3, txns=2,
                  tests=("RandomTest",))
    outcome = execute(run, tmp_path / run.key)
    assert outcome.passed, outcome.first_error
    assert outcome.waves is not None and outcome.waves.stat().st_size > 0
    assert outcome.waves.read_bytes()[:1] != b""  # an FST file


def test_wall_clock_watchdog(tmp_path):
    """A run that cannot finish in its time budget is killed and reported, not left hanging."""
    outcome = _run(tmp_path, "verilator", 1024, 32, 100000, 0, ("RandomTest",), timeout_s=3)
    assert not outcome.passed
    assert outcome.first_error.startswith("watchdog:"), outcome.first_error
