"""The operand domain in the RTL: a design whose domain takes X >= M (and Amanor's three, Y
>= M) runs it through the bus loader (the thesis-shaped 1024-bit replays among them), and a
loader that ignores the descriptor's domain fails the tests (docs/operand-domains.md)."""

from __future__ import annotations

import json
from pathlib import Path

import gmpy2
import pytest

from montverif.host.paths import ROOT
from montverif.models import ref
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec import regmap
from montverif.spec.design import LOADER_SOURCE

pytestmark = pytest.mark.sim
REPLAY = ROOT / "docs" / "examples" / "amanor_1024.json"
WIDE_Y = ROOT / "docs" / "examples" / "amanor_1024_wide_y.json"
RANGE_X = "assign x_ok = !RangeX || "  # the loader's range rule for X, from the domain


def _replayed(tmp_path: Path, build: BuildSpec, vectors_file: Path
              ) -> list[tuple[dict[str, str], dict[str, str]]]:
    """The file's vectors replayed by VectorTest on the build (which must pass): each
    operation's log record beside its vector."""
    run = RunSpec(build, seed=1, tests=("VectorTest",), vectors=str(vectors_file),
                  timeout_s=600)
    outcome = execute(run, tmp_path / "run")
    assert outcome.passed, outcome.first_error
    vectors = json.loads(vectors_file.read_text())["vectors"]
    log = [json.loads(line) for line in (outcome.log_dir / "txns.jsonl").read_text().split("\n")
           if line]
    assert len(log) == len(vectors)
    return list(zip(log, vectors, strict=True))


def test_a_loader_that_refuses_x_beyond_m_fails(tmp_path: Path) -> None:
    """The loader built to refuse X >= M whatever its RangeX (the rule before the domains):
    mont_lut's ErrorTest, which starts the largest X, fails on it (the predictor, from the
    descriptor, expects the operation to run; the loader shows ERR_RANGE)."""
    overlay = tmp_path / "old_rule"
    overlay.mkdir()
    text = LOADER_SOURCE.read_text()
    assert text.count(RANGE_X) == 1
    (overlay / LOADER_SOURCE.name).write_text(text.replace(RANGE_X, "assign x_ok = "))
    run = RunSpec(BuildSpec("mont_lut", 16, 16, "icarus", overlay=str(overlay)), seed=3,
                  txns=4, tests=("ErrorTest",), timeout_s=300)
    outcome = execute(run, tmp_path / "run")
    assert not outcome.passed and outcome.failed == 1, outcome.first_error
    assert outcome.first_error.startswith("MISMATCH") and "read STATUS" in outcome.first_error
    err = int(outcome.first_error.rsplit("got 0x", 1)[1], 16)
    rm = regmap.load()
    assert rm.fields["STATUS"]["ERR"].get(err) == rm.errors["ERR_RANGE"], outcome.first_error


def test_the_thesis_shaped_replay_runs_x_beyond_m(tmp_path: Path) -> None:
    """docs/examples/amanor_1024.json through mont_csa (Amanor Algorithm 1b, Fig. 7's
    shape) at N = 1024: every operation has X >= M and runs; the S and C read back (the
    scoreboard compares them with the model's bit for bit) sum to X*Y*2^-1024 mod M, the
    thesis' own check of its figures (section 4.2.3), and stay below 2M."""
    n = 1024
    for rec, vec in _replayed(tmp_path, BuildSpec("mont_csa", n, 64, "icarus"), REPLAY):
        x, y, m = (int(vec[k], 16) for k in ("x", "y", "m"))
        assert (int(rec["x"], 16), int(rec["y"], 16), int(rec["m"], 16)) == (x, y, m)
        assert x >= m and "error" not in rec
        total = int(rec["s"], 16) + int(rec["c"], 16)
        assert total < 2 * m
        assert gmpy2.f_mod(total - ref.mont_product(x, y, m, n), m) == 0
        assert int(rec["p"], 16) == ref.mont_product(x, y, m, n)


@pytest.mark.parametrize("dut", ["mont_lut", "mont_r2"])
def test_y_beyond_m_runs_through_the_amanor_cores(tmp_path: Path, dut: str) -> None:
    """docs/examples/amanor_1024_wide_y.json (random 1024-bit X, Y, M with Y >= M, the shape
    of the thesis's Figs. 7 and 8; Y all ones under a 600-bit M) through Algorithm 3's and
    1a's cores at N = 1024: every operation runs (the loader takes Y >= M); P is congruent to
    X*Y*2^-1024 mod M and below max(Y, M), the one subtraction of T = (X*Y + Q*M) / 2^1024
    (Q from M's inverse, not from any loop), and mont_lut's S + C is T, below Y + M."""
    n = 1024
    beyond = 0
    for rec, vec in _replayed(tmp_path, BuildSpec(dut, n, 32, "verilator"), WIDE_Y):
        x, y, m = (int(vec[k], 16) for k in ("x", "y", "m"))
        assert (int(rec["x"], 16), int(rec["y"], 16), int(rec["m"], 16)) == (x, y, m)
        assert y >= m and "error" not in rec
        q = (-x * y * pow(m, -1, 1 << n)) % (1 << n)
        t = (x * y + q * m) >> n
        p = int(rec["p"], 16)
        assert p == (t - m if t >= m else t) and p < max(y, m)
        assert gmpy2.f_mod(p - ref.mont_product(x, y, m, n), m) == 0
        beyond += p >= m
        if "s" in rec:
            assert int(rec["s"], 16) + int(rec["c"], 16) == t < y + m
    assert beyond >= 1  # P past M, as only a Y past M allows
