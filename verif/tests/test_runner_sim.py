"""Runner and testbench features, with mont_lut as the vehicle: vector replay, waveforms,
the wall-clock watchdog. The per-design runs are in test_designs_sim.py."""

from __future__ import annotations

import json
import random

import pytest

from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec.designs import load_design
from montverif.verif.tests.test_designs_sim import check_log_against_gmpy2, txns

pytestmark = pytest.mark.sim


def _run(tmp_path, sim: str, n: int, bus_w: int, txns_: int, tests: tuple[str, ...],
         **kw: object):
    kw.setdefault("timeout_s", 900)
    run = RunSpec(BuildSpec("mont_lut", n, bus_w, sim), seed=7, txns=txns_, tests=tests,
                  **kw)  # type: ignore[arg-type]
    return execute(run, tmp_path / run.key)


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
    outcome = _run(tmp_path, "verilator", n, 32, 1, ("VectorTest",), vectors=str(path))
    assert outcome.passed, outcome.first_error
    logged = txns(outcome)
    assert [(int(r["x"], 16), int(r["y"], 16), int(r["m"], 16)) for r in logged] == [
        (int(v["x"], 0), int(v["y"], 0), int(v["m"], 0)) for v in vectors]
    assert check_log_against_gmpy2(outcome, load_design("mont_lut"), n,
                                  random_draws=False) == len(vectors)


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
    outcome = _run(tmp_path, "verilator", 1024, 32, 100000, ("RandomTest",), timeout_s=3)
    assert not outcome.passed
    assert outcome.first_error.startswith("watchdog:"), outcome.first_error
