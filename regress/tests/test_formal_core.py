"""`montverif formal --dut`: a design's core against its function for every input, one
operation from reset (regress/formal/formal_core.py). Each check runs SBY for real."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.regress.cli import formal as formal_cli
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.formal import formal, formal_core
from montverif.regress.tests.testshard import standins
from montverif.spec.designs import known_designs, load_design

CORE = load_design("mont_r2").rtl[0]
# step 4 of Algorithm 1a: T = T + q_i M; the mutant adds M when q_i is 0 instead
GOOD_ADD = "assign add_m     = q_i ^ fault_hit;"


@pytest.mark.formal
def test_a_core_holds_its_function_and_cycle_count_for_every_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = formal_cli.main(["--dut", "mont_r2", "--n", "4", "--out", str(tmp_path / "p")])
    line = capsys.readouterr().out.strip()
    assert code == 0, line
    assert line.startswith("BOUNDED mont_r2 N=4: P = X*Y*2^-4 (mod M), p < max(y, m) and the "
                           "cycle count hold for every input"), line
    record = json.loads((tmp_path / "p" / "formal.json").read_text())
    # last_o in cycle 1 + (n + 1) = 6; checked two cycles past it
    assert record["result_cycle"] == 6 and record["depth"] == 9
    assert record["covers_reached"] == record["covers_total"] == 1
    harness = (tmp_path / "p" / "mont_r2_formal.sv").read_text()
    assert "(* anyconst *) logic [N-1:0] x, y, m;" in harness
    # X is scanned bit by bit and Y stays below Y + M in the loop: both any N-bit value
    # (their domain below_2n); P congruent to the product and below max(Y, M)
    assert "assume (y < m);" not in harness and "assume (x < m);" not in harness
    assert "CoreResult_A: assert (p_mod == expected);" in harness
    assert "CorePromise_A: assert ((WW'(p) < ((WW'(y) > WW'(m)) ? WW'(y) : WW'(m))));" \
        in harness
    assert "CoreCycles_A" in harness


@pytest.mark.sim
@pytest.mark.formal
def test_the_fault_build_fails_and_its_counterexample_replays_in_simulation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The descriptor's fault build (the negative test's) fails its proof; the counterexample's
    operands, replayed through the bus by VectorTest, fail the same build on the scoreboard
    and pass the correct one."""
    code = formal_cli.main(["--dut", "mont_r2", "--n", "8", "--fault",
                            "--out", str(tmp_path / "p")])
    line = capsys.readouterr().out.strip()
    # the fault build must fail: exit 0 when it does
    assert code == 0 and line.startswith("FAILED mont_r2 N=8"), line
    assert "CoreResult_A" in line
    vector = tmp_path / "p" / "counterexample.json"
    assert f"replay: montverif sim --dut mont_r2 --n 8 --fault --vectors {vector}" in line
    ops = json.loads(vector.read_text())["vectors"][0]
    x, y, m = (int(ops[k], 16) for k in ("x", "y", "m"))
    assert m % 2 == 1 and x < 2**8 and y < 2**8
    runs = {}
    for fault in (True, False):
        build = BuildSpec("mont_r2", 8, fault=fault)
        runs[fault] = execute(RunSpec(build, vectors=str(vector), tests=("VectorTest",)),
                              log_dir=tmp_path / f"sim-{fault}")
    assert not runs[True].passed and "MISMATCH" in runs[True].first_error
    assert runs[False].passed, runs[False].first_error


# make test proves inter_r2 (about 8 s), the stand-in of mont_r2 (about 30 s: the nightly)
PROVED = [("inter_r2", "P = X*Y mod M and the cycle count", 14),
          ("mont_r2", "P = X*Y*2^-4 (mod M), p < max(y, m) and the cycle count", 16)]


@pytest.mark.formal
@pytest.mark.parametrize(("dut", "holds", "depth"),
                         standins(PROVED, lambda c: c[0] == "inter_r2", seconds=30, unpack=True,
                                  ids=lambda c: c[0]))
def test_a_core_is_proved_for_every_sequence_of_operations_by_k_induction(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], dut: str, holds: str,
        depth: int) -> None:
    """--mode prove: START whenever the core is idle, the operands free with each; the
    function, the cycle count and the core's own assertions by k-induction, for all time;
    a second result covered."""
    code = formal_cli.main(["--dut", dut, "--n", "4", "--mode", "prove",
                            "--out", str(tmp_path / "p")])
    line = capsys.readouterr().out.strip()
    assert code == 0, line
    assert line.startswith(f"PROVED {dut} N=4: {holds} hold for every input and every "
                           "sequence of operations, for all time (k-induction closed at depth "
                           f"{depth}), 2/2 covers"), line
    harness = (tmp_path / "p" / f"{dut}_formal.sv").read_text()
    assert "(* anyseq *) logic [N-1:0] x, y, m;" in harness
    assert "assign start = start_any && rst_ni && !core_busy;" in harness
    assert "CoreSecond_C: cover (done_q && ops_q == 2'd2);" in harness
    assert "proof: mode prove" in (tmp_path / "p" / "formal.sby").read_text()


@pytest.mark.nightly(seconds=10)
@pytest.mark.formal
def test_mont_r4_s_own_bound_holds_when_the_next_m_comes_at_once(tmp_path: Path) -> None:
    """mont_r4's SumBelow2M_A read the M port in the cycle after FIN, where the host may
    already give the next operation's M: k-induction over operations back to back failed
    it (m = 0xb, then m = 0x1). It now checks against the M the operation had."""
    spec = formal.FormalSpec("mont_r4", (("N", 4),), mode="prove")
    spec = formal.FormalSpec("mont_r4", (("N", 4),), mode="prove",
                             depth=formal.design_depth(spec),
                             cover_depth=formal.design_depth(spec))
    verdict = formal.run(spec, tmp_path / "p")
    assert verdict.status == "proved", verdict.line()


@pytest.mark.nightly(seconds=10)
@pytest.mark.formal
def test_a_core_wrong_only_on_its_second_operation_fails_the_induction_check(
        tmp_path: Path) -> None:
    """A core that does not clear its accumulator on START is right from reset (the one-
    operation check passes it: BOUNDED) and wrong on the next operation: mode prove fails,
    and its vector file holds both operations in order. (N = 4, below the simulated widths:
    at N = 8 the base case took more than 600 s on a busy machine.)"""
    over = tmp_path / "mut"
    over.mkdir()
    text, load = CORE.read_text(), "      x_q   <= x_i;\n      acc_q <= '0;\n"
    assert text.count(load) == 1
    (over / CORE.name).write_text(text.replace(load, "      x_q   <= x_i;\n"))
    once = formal.run(formal.FormalSpec("mont_r2", (("N", 4),), mode="bmc", depth=9,
                                        cover_depth=9, overlay=str(over)), tmp_path / "b")
    assert once.status == "bounded", once.line()
    every = formal.FormalSpec("mont_r2", (("N", 4),), mode="prove", overlay=str(over))
    every = formal.FormalSpec("mont_r2", (("N", 4),), mode="prove", overlay=str(over),
                              depth=formal.design_depth(every),
                              cover_depth=formal.design_depth(every))
    verdict = formal.run(every, tmp_path / "p")
    assert verdict.status == "failed", verdict.line()
    assert verdict.depth > 9  # past the first operation's result
    assert verdict.vector is not None
    ops = json.loads(verdict.vector.read_text())["vectors"]
    assert len(ops) == 2, ops  # the operation that leaves the accumulator, and the next
    assert all(int(op["m"], 16) % 2 == 1 for op in ops)


@pytest.mark.formal
def test_a_broken_adder_is_caught_with_the_operands_that_show_it(tmp_path: Path) -> None:
    over = tmp_path / "mut"
    over.mkdir()
    text = CORE.read_text()
    assert text.count(GOOD_ADD) == 1
    (over / CORE.name).write_text(text.replace(GOOD_ADD, "assign add_m     = ~q_i;"))
    spec = formal.FormalSpec("mont_r2", (("N", 4),), mode="bmc", depth=9, cover_depth=9,
                             overlay=str(over))
    verdict = formal.run(spec, tmp_path / "p")
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.rsplit(".", 1)[-1] in ("CoreResult_A", "AccBelowYM_A")
    assert verdict.vector is not None and "vectors" in json.loads(verdict.vector.read_text())


@pytest.mark.formal
@pytest.mark.parametrize("dut", standins(["mont_csa", "mont_lut"], ["mont_lut"], seconds=6))
def test_a_congruent_result_beyond_the_promise_is_caught(tmp_path: Path, dut: str) -> None:
    """A core whose final subtraction comes only when P >= 2^N leaves P congruent to the
    product (CoreResult_A holds) but not below max(Y, M): its promise (CorePromise_A) fails."""
    final = ROOT / "hdl" / "common" / "mv_final_sub.sv"
    good = "assign sub_taken_o = !p_diff[DiffW-1];"
    over = tmp_path / "mut"
    over.mkdir()
    assert final.read_text().count(good) == 1
    (over / final.name).write_text(final.read_text().replace(
        good, "assign sub_taken_o = !p_diff[DiffW-1] && p_full[SumW-1];"))
    spec = formal.FormalSpec(dut, (("N", 4),), mode="bmc", depth=10, cover_depth=10,
                             overlay=str(over))
    verdict = formal.run(spec, tmp_path / "p")
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.rsplit(".", 1)[-1] == "CorePromise_A", verdict.line()


def test_every_descriptor_point_can_be_checked() -> None:
    """Every design whose function a harness can state names [formal] points, and each
    generates a harness (the proofs themselves run in the nightly's formal entries). A
    design legal only above the formal widths at its defaults (mont_dual: N >= 80) names
    points with parameters that make it narrower (K = 2, Units = 2: N >= 6)."""
    for name in known_designs():
        design = load_design(name)
        if why := formal.unsupported(design):
            assert not design.formal_points, f"{name}: points but no harness: {why}"
            continue
        assert design.formal_points, f"{name}: no [formal] points"
        for n, params in design.formal_points:
            assert formal_core.MIN_N <= n <= formal_core.MAX_N, (name, n, params)
            # a streaming core's harness (formal_stream) or a bus-loader core's
            proof = formal.prepare(design, n, dict(params))
            text = formal.harness(proof)
            assert f"module {proof.module} (" in text and "CoreResult_A" in text
            # the operand domain: an operand below M is constrained, one of any N-bit
            # value (X of every multiplier) is free
            for reg in ("X", "Y"):
                sig = reg.lower()
                assert (f"assume ({sig} < m);" in text) == (reg in design.below_modulus), name


def test_a_design_s_choice_is_named_as_sim_takes_it() -> None:
    """`--params Mult=inter_lut` is rsa_core's choice 6, as `montverif sim` takes it; an
    unknown name is one line; a block's parameters are integers only."""
    assert formal_cli._params("Mult=inter_lut,ConstTime=0", "rsa_core") == (
        ("Mult", 6), ("ConstTime", 0))
    with pytest.raises(ConfigError, match="Mult=inter_lu is not one of mont_lut"):
        formal_cli._params("Mult=inter_lu", "rsa_core")
    with pytest.raises(ConfigError, match="HasE='yes' is not an integer"):
        formal_cli._params("HasE=yes")


def test_a_design_s_formal_timeout_lengthens_its_points() -> None:
    """mm42's points (X free over any pair) take longer than the command's 600 s."""
    specs = {(s.block, s.resolved()["N"]): s.timeout_s
             for s in formal.point_specs(None, timeout_s=600) if s.block not in formal.BLOCKS}
    assert specs[("mm42", 5)] == load_design("mm42").formal_timeout > 600
    assert specs[("mont_r2", 6)] == 600


@pytest.mark.sim
@pytest.mark.formal
@pytest.mark.nightly(seconds=70)  # the nightly job's script; the proofs above stand in
def test_the_nightly_formal_job_checks_the_points_and_writes_the_summary(tmp_path: Path) -> None:
    """ci/nightly-formal.sh: the nightly list's formal checks of one design as a results
    folder the merge joins with the shards, its Markdown in the job summary, then the
    recorded equivalent mutants into a copy of the proof file."""
    summary = tmp_path / "step-summary.md"
    out = tmp_path / "f"
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-formal.sh"), str(out), "7"],
                         env=os.environ | {"DUT": "mont_r2", "GITHUB_STEP_SUMMARY": str(summary)},
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    record = json.loads((out / "summary.json").read_text())
    assert (record["list"], record["base_seed"], record["runs"]) == ("nightly", 7, [])
    points = load_design("mont_r2").formal_points
    checks = list(record["formal"].values())
    # every point, the fault build and the core for all time at its first point
    assert len(checks) == len(points) + 2 >= 4
    assert [c["point"]["N"] for c in checks if c["mode"] == "bmc" and not c["fault"]] == [
        n for n, _ in points]
    assert all(c["ok"] for c in checks)
    assert [c["status"] for c in checks] == ["bounded"] * len(points) + ["failed", "proved"]
    text = summary.read_text()
    assert f"### Formal ({len(checks)} of {len(checks)} as required)" in text
    assert "| `mont_r2-N4-bmc-k9` | bounded to depth 9 | bounded |" in text
    assert "| mont_r2 | PROVED (k-induction at depth 16, N=4) |" in text
    # then the recorded equivalent mutants no SBY proof backs yet, into a copy of the file
    checked = (out / "mutants" / "mutants.txt").read_text().splitlines()
    assert checked[-1].endswith(str(out / "mutants" / "equivalents.json"))
    assert "proof(s) checked" in checked[-1] and "Recorded equivalent mutants" in text
    again = subprocess.run(["bash", str(ROOT / "ci" / "nightly-formal.sh"), str(out)],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "holds a regression already" in again.stderr


@pytest.mark.parametrize("shard", ["x", "0/2", "3/2", "1/2/3"])
def test_the_nightly_formal_job_refuses_a_bad_shard(tmp_path: Path, shard: str) -> None:
    res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-formal.sh"), str(tmp_path / "f"),
                          "7", shard], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and res.stderr.startswith("error: "), res.stderr
    assert res.stderr.count("\n") == 1 and not (tmp_path / "f").exists()


@pytest.mark.sim
@pytest.mark.formal
@pytest.mark.nightly(seconds=80)
def test_the_nightly_formal_shards_hold_each_check_once(tmp_path: Path) -> None:
    """ci/nightly-formal.sh OUT SEED I/K: the two shards' checks are the list's, each in one
    shard; the recorded equivalents are checked in the first only."""
    got: dict[str, list[str]] = {}
    for i in (1, 2):
        out = tmp_path / f"f{i}"
        res = subprocess.run(["bash", str(ROOT / "ci" / "nightly-formal.sh"), str(out), "7",
                              f"{i}/2"], env=os.environ | {"DUT": "mont_r2"},
                             capture_output=True, text=True, timeout=900)
        assert res.returncode == 0, res.stdout + res.stderr
        record = json.loads((out / "summary.json").read_text())
        assert record["shard"] == f"{i}/2"
        got[str(i)] = sorted(record["formal"])
        assert (out / "mutants" / "mutants.txt").exists() == (i == 1)
    assert got["1"] and got["2"] and not set(got["1"]) & set(got["2"])
    points = load_design("mont_r2").formal_points
    assert len(got["1"]) + len(got["2"]) == len(points) + 2
