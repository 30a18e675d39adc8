"""`montverif formal --dut` for kind modexp (rsa_core: P = X^E mod M) and for a design with a
field bit (mont_dual: GF(p) and GF(2^n) in one harness), regress/formal/formal_core.py. The
checks marked formal run SBY for real; the fault builds' counterexamples are replayed in
simulation, where the same build fails and the correct one passes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.regress.cli import formal as formal_cli
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.formal import formal, formal_core
from montverif.spec.designs import load_design

RSA = load_design("rsa_core")
DUAL = load_design("mont_dual")


def _replays(tmp_path: Path, dut: str, n: int, params: tuple[tuple[str, int], ...],
             vector: Path) -> dict[bool, tuple[bool, str]]:
    """The vector through the bus (VectorTest) on the fault build and on the correct one."""
    out = {}
    for fault in (True, False):
        build = BuildSpec(dut, n, params=params, fault=fault)
        res = execute(RunSpec(build, vectors=str(vector), tests=("VectorTest",)),
                      log_dir=tmp_path / f"sim-{fault}")
        out[fault] = (res.passed, res.first_error)
    return out


def test_the_modexp_harness_states_x_to_the_e_over_the_loader_s_domain() -> None:
    proof = formal_core.prepare(RSA, 4, {})
    text = formal_core.harness(proof)
    assert proof.relation() == "P = X^E mod M"
    # the message below M, the exponent free, R2 = 2^(2 RB) mod M and m' = -M^-1 mod 2^N
    assert "assume (x < m);" in text and "assume (e <" not in text
    assert "localparam int RB = 4;" in text and "// R2: rsa:r2" in text
    assert "// MP: rsa:mprime" in text
    # the reference: square-and-multiply, 1 mod M (0 for M = 1) for E = 0
    assert "assign acc[0] = (m == N'(1)) ? '0 : N'(1);" in text
    # constant time: (N + 2)(Lm + 1) = 6 * 7 for mont_lut at N = 4, one count for every E
    assert proof.cycles == 42 and proof.by_operand is None
    assert "assign ops_cycles = 16'(Cycles);" in text


def test_variable_time_checks_the_model_s_count_for_each_exponent() -> None:
    proof = formal_core.prepare(RSA, 4, {"ConstTime": 0})
    assert proof.by_operand is not None
    counts = dict(proof.by_operand[1])
    # (bitlen(E) + 2)(Lm + 1): E = 0 takes 2 steps, E = 8..15 six
    assert counts[0] == 14 and counts[1] == 21 and counts[15] == proof.cycles == 42
    text = formal_core.harness(proof)
    assert "      4'd0: ops_cycles = 16'd14;" in text
    assert "      default: ops_cycles = 16'd42;" in text


def test_the_field_bit_harness_checks_both_fields_at_the_narrowest_width() -> None:
    assert formal_core.unsupported(DUAL) == ""
    # the default point is the descriptor's first, a small configuration
    assert formal.FormalSpec("mont_dual", mode="bmc").resolved() == \
        {"N": 6, "K": 2, "Units": 2}
    spec = formal.FormalSpec("mont_dual", (("N", 80),), mode="bmc", depth=37)
    assert spec.resolved() == {"N": DUAL.min_n} == {"N": 80}
    proof = spec.core_proof()
    # GF(p) R = 2^(16 ceil(N/16)), GF(2^n) R = x^(64 ceil(N/64)); cycles per field
    assert proof.r_bits == 80 and proof.field1 == (13, 128) and proof.cycles == 33
    assert proof.relation() == ("P = X*Y*2^-80 mod M (GF(p)) and "
                                "P = X(x)*Y(x)*x^-128 mod M(x) (GF(2^n))")
    text = formal_core.harness(proof)
    assert "(* anyconst *) logic field;" in text
    assert "assign ops_cycles = field ? 16'd13 : 16'd33;" in text
    assert "assign expected = field ? expected_gf2 : expected_gfp;" in text
    assert "assume (y < m);" in text and "localparam int K = 16;" in text
    assert "clmulw(mp[K +: K*Units], m[K*Units-1:0]) == (K*Units)'(1)" in text
    with pytest.raises(ConfigError, match="narrowest width only, N=80"):
        formal_core.prepare(DUAL, 16, {})


def test_the_small_configuration_s_harness() -> None:
    """K = 2, Units = 2 (4-bit words): N = 6 is legal, and the harness follows K and Units:
    R = 2^(2 ceil(N/2)) and x^(4 ceil(N/4)), MP packs a 2-bit m' and a 4-bit q(x)."""
    proof = formal_core.prepare(DUAL, 6, {"K": 2, "Units": 2})
    # GF(p): 3 digits * (2 + 2 * 2 words) + 2 subtraction cycles + FIN; GF(2^n) 2 * 6 + 1
    assert proof.r_bits == 6 and proof.field1 == (13, 8) and proof.cycles == 21
    text = formal_core.harness(proof)
    assert "localparam int K = 2;" in text and "localparam int Units = 2;" in text
    assert "assign ops_cycles = field ? 16'd13 : 16'd21;" in text


@pytest.mark.nightly(seconds=15)
@pytest.mark.formal
def test_rsa_core_holds_x_to_the_e_for_every_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = formal_cli.main(["--dut", "rsa_core", "--n", "4", "--out", str(tmp_path / "p")])
    line = capsys.readouterr().out.strip()
    assert code == 0, line
    assert line.startswith("BOUNDED rsa_core N=4: P = X^E mod M and the cycle count hold for "
                           "every input"), line
    record = json.loads((tmp_path / "p" / "formal.json").read_text())
    assert record["result_cycle"] == 43 and record["depth"] == 46
    assert record["covers_reached"] == record["covers_total"] == 1


@pytest.mark.sim
@pytest.mark.formal
@pytest.mark.nightly(seconds=30)  # mont_dual's fault below stands in
def test_rsa_core_s_fault_build_fails_and_its_counterexample_replays(tmp_path: Path) -> None:
    """At N = 8 (the simulated minimum) with the variable-time ladder, whose short exponents
    end early: the solver finds a counterexample in seconds, where constant time (N + 2
    steps of N + 3 cycles) took more than ten minutes."""
    params = (("N", 8), ("ConstTime", 0))
    spec = formal.FormalSpec("rsa_core", params, mode="bmc", fault=True)
    spec = dataclasses.replace(spec, depth=spec.core_proof().depth)
    verdict = formal.run(spec, tmp_path / "p")
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.endswith("CoreResult_A"), verdict.line()
    assert verdict.vector is not None
    ops = {k: int(v, 16) for k, v in json.loads(verdict.vector.read_text())["vectors"][0].items()}
    assert set(ops) == {"msg", "exp", "mod"}  # the RSA vector loader's names
    assert ops["mod"] % 2 == 1 and ops["msg"] < ops["mod"]
    assert "--params ConstTime=0 --fault --vectors" in verdict.replay
    runs = _replays(tmp_path, "rsa_core", 8, (("ConstTime", 0),), verdict.vector)
    assert not runs[True][0] and "MISMATCH" in runs[True][1], runs[True]
    assert runs[False][0], runs[False]


@pytest.mark.sim
@pytest.mark.formal
@pytest.mark.nightly(seconds=450)  # SBY at N = 80; the small configuration's test stands in
def test_mont_dual_s_fault_build_fails_and_its_counterexample_replays(tmp_path: Path) -> None:
    """The proof at N = 80 does not finish (docs/formal.md), but a counterexample does: MB
    multiplies by M_0 with bit 1 flipped, wrong in both fields. (No cover task to speak of:
    the unified W x W array makes each step of it cost, and the failure is what counts.)"""
    spec = formal.FormalSpec("mont_dual", (("N", 80),), mode="bmc", fault=True, depth=37,
                             cover_depth=1)
    verdict = formal.run(spec, tmp_path / "p")
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.endswith("CoreResult_A"), verdict.line()
    assert verdict.vector is not None
    ops = {k: int(v, 16) for k, v in json.loads(verdict.vector.read_text())["vectors"][0].items()}
    assert set(ops) == {"x", "y", "m", "field"}
    assert ops["m"] % 2 == 1 and ops["y"] < ops["m"] and ops["field"] in (0, 1)
    runs = _replays(tmp_path, "mont_dual", 80, (), verdict.vector)
    assert not runs[True][0] and "MISMATCH" in runs[True][1], runs[True]
    assert runs[False][0], runs[False]


@pytest.mark.nightly(seconds=20)
@pytest.mark.sim
@pytest.mark.formal
def test_mont_dual_s_small_configuration_proves_and_its_fault_replays_in_its_field(
        tmp_path: Path) -> None:
    """K = 1, Units = 3 (1-bit digits, 3-bit words) at N = 4, the cheapest point (seconds):
    the correct build holds both fields for every input; the fault build fails with a
    counterexample whose vector replays in the field the solver chose (the transaction log
    records it) and fails the fault build only."""
    params = (("N", 4), ("K", 1), ("Units", 3))
    ok = formal.run(formal.FormalSpec("mont_dual", params, mode="bmc", depth=31),
                    tmp_path / "ok")
    assert ok.status == "bounded", ok.line()
    spec = formal.FormalSpec("mont_dual", params, mode="bmc", fault=True, depth=31)
    verdict = formal.run(spec, tmp_path / "p")
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.endswith("CoreResult_A"), verdict.line()
    assert verdict.vector is not None
    ops = {k: int(v, 16) for k, v in json.loads(verdict.vector.read_text())["vectors"][0].items()}
    assert set(ops) == {"x", "y", "m", "field"}
    runs = _replays(tmp_path, "mont_dual", 4, params[1:], verdict.vector)
    assert not runs[True][0] and "MISMATCH" in runs[True][1], runs[True]
    assert runs[False][0], runs[False]
    txns = [json.loads(ln) for ln in
            (tmp_path / "sim-True" / "txns.jsonl").read_text().splitlines() if ln.strip()]
    assert [t["field"] for t in txns] == [ops["field"]], txns
