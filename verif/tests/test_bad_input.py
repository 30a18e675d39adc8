"""Bad input to `make sim` / regress.sim gets one clear `error:` line and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def sim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return subprocess.run([sys.executable, "-m", "montverif.regress.cli", "sim", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)


def assert_clear_error(res: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    for needle in needles:
        assert needle in lines[0]


def write_vectors(tmp_path: Path, payload: object) -> str:
    path = tmp_path / "v.json"
    path.write_text(payload if isinstance(payload, str) else json.dumps(payload))
    return str(path)


def test_unknown_dut():
    assert_clear_error(sim_cli("--dut", "mont_nope"), "unknown DUT 'mont_nope'", "mont_lut")


def test_unknown_sim():
    assert_clear_error(sim_cli("--sim", "modelsim"), "unknown simulator 'modelsim'", "icarus")


@pytest.mark.parametrize("n", ["4", "5000"])
def test_unsupported_width(n):
    assert_clear_error(sim_cli("--n", n), f"N={n}")


def test_unsupported_bus_width():
    assert_clear_error(sim_cli("--busw", "12"), "BUSW=12")


def test_unknown_test_name():
    assert_clear_error(sim_cli("--tests", "NoSuchTest"), "NoSuchTest")


@pytest.mark.parametrize("payload,needle", [
    ("{not json", "not valid JSON"),
    ({"vector": []}, "'vectors' list"),
    ({"vectors": []}, "empty"),
    ({"vectors": [{"x": "1", "y": "2"}]}, "missing 'm'"),
    ({"vectors": [{"x": "1", "y": "2", "m": "0xZZ"}]}, "cannot parse"),
    ({"vectors": [{"x": "1", "y": "2", "m": "10"}]}, "modulus must be odd"),
    ({"vectors": [{"x": "1", "y": "2", "m": hex(1 << 40 | 1)}]}, "does not fit"),
    ({"vectors": ["1 2 3"]}, "expected an object"),
    # mont_lut has no field bit: a vector that names one would silently run in another
    ({"vectors": [{"x": "1", "y": "2", "m": "11", "field": 1}]}, "has no field bit"),
])
def test_malformed_vector_file(tmp_path, payload, needle):
    res = sim_cli("--n", "32", "--vectors", write_vectors(tmp_path, payload))
    assert_clear_error(res, needle)


def test_y_at_or_above_m_where_the_domain_is_below_m(tmp_path):
    """mont_lut_u2 keeps Y below M (its descriptor's domain; mont_lut takes any N-bit Y):
    one error line."""
    path = write_vectors(tmp_path, {"vectors": [{"x": "1", "y": "11", "m": "11"}]})
    assert_clear_error(sim_cli("--dut", "mont_lut_u2", "--n", "32", "--vectors", path),
                       "Y must be below M")


def test_x_at_or_above_m_where_the_domain_is_below_m(tmp_path):
    """The RSA core's message must be below M (its descriptor's domain): one error line."""
    path = write_vectors(tmp_path, {"vectors": [{"msg": "11", "exp": "3", "mod": "11"}]})
    assert_clear_error(sim_cli("--dut", "rsa_core", "--n", "32", "--vectors", path),
                       "msg must be below mod")


def test_a_field_on_a_design_without_one_or_out_of_range(tmp_path):
    """`field` (CTRL.FIELD) is mont_dual's alone; there it is 0 (GF(p)) or 1 (GF(2^n))."""
    path = write_vectors(tmp_path, {"vectors": [{"msg": "2", "exp": "3", "mod": "11",
                                                  "field": "0x1"}]})
    assert_clear_error(sim_cli("--dut", "rsa_core", "--n", "32", "--vectors", path),
                       "vectors[0].field", "has no field bit")
    for bad, needle in (("2", "expected 0 (GF(p)) or 1 (GF(2^n)), got 2"),
                        ("0xZ", "cannot parse"), (None, "expected 0 (GF(p)) or 1")):
        path = write_vectors(tmp_path, {"vectors": [{"x": "1", "y": "2", "m": "11"},
                                                      {"x": "1", "y": "2", "m": "11",
                                                       "field": bad}]})
        assert_clear_error(sim_cli("--dut", "mont_dual", "--n", "80", "--vectors", path),
                           "vectors[1].field", needle)


def test_missing_vector_file(tmp_path):
    assert_clear_error(sim_cli("--vectors", str(tmp_path / "nope.json")), "no such vector file")
