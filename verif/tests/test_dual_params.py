"""mont_dual refuses widths it cannot do (N < 80: MP packs the 16-bit m' and the 64-bit
GF(2^n) inverse) with one line, in the runner and in the RTL (generate-if + $fatal)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from montverif.regress.flow.check import validate
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec import top as gen_top
from montverif.spec.designs import load_design
from montverif.spec.errors import ConfigError
from montverif.spec.paths import include_flags


def test_runner_refuses_narrow_builds() -> None:
    with pytest.raises(ConfigError) as info:
        validate(RunSpec(BuildSpec("mont_dual", 64, 32, "verilator", 0, False), seed=1, txns=1))
    assert "\n" not in str(info.value) and "80" in str(info.value)
    validate(RunSpec(BuildSpec("mont_dual", 80, 32, "verilator", 0, False), seed=1, txns=1))


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")
@pytest.mark.parametrize("n,fails", [(64, True), (79, True), (80, False)])
def test_rtl_fatal_below_80(tmp_path, n: int, fails: bool) -> None:
    design = load_design("mont_dual")
    out = tmp_path / "a.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(out), "-s", design.toplevel, *include_flags(),
                    f"-P{design.toplevel}.N={n}", *map(str, gen_top.sources(design))], check=True)
    res = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, timeout=60,
                         check=False)
    fatal = [ln for ln in res.stdout.splitlines() if ln.startswith("FATAL")]
    if fails:
        assert res.returncode != 0
        assert any(f"N must be at least 80 (got {n})" in ln for ln in fatal), res.stdout
    else:
        assert res.returncode == 0 and not fatal, res.stdout


@pytest.mark.sim
def test_fault_is_caught_in_both_fields(tmp_path) -> None:
    """The faulty build (FaultEn: t_i times a corrupted M_0) fails in GF(p) and in GF(2^n):
    the scoreboard reports P mismatches tagged with each field."""
    from montverif.regress.flow.simulate import execute

    run = RunSpec(BuildSpec("mont_dual", 80, 32, "icarus", 0, True), seed=5, txns=12,
                  tests=("RandomTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed and outcome.first_error.startswith("MISMATCH")
    log = (outcome.log_dir / "sim.log").read_text()
    lines = [ln for ln in log.splitlines() if "MISMATCH" in ln and ": P = " in ln]
    assert any("field=GF(p)" in ln for ln in lines), lines
    assert any("field=GF(2^n)" in ln for ln in lines), lines


@pytest.mark.sim
def test_a_vector_s_field_is_the_field_it_runs_and_is_checked_in(tmp_path) -> None:
    """VectorTest replays each vector in the field it names (the formal flow writes mont_dual's
    counterexamples with one): the START carries it, the scoreboard logs it and checks P in
    it (P is the carry-less Montgomery product in GF(2^n), the integer one in GF(p), and the
    two differ), and the fault build fails on the first vector, a GF(2^n) one."""
    import json
    import random

    from montverif.models.registry import get_algo, reference
    from montverif.regress.flow.simulate import execute

    n, rng = 80, random.Random("dual-vector-fields")
    want = [1, 0, 1, 1, 0, 1]  # a seed's draw is unlikely to give this order
    ops = []
    for _ in want:
        m = rng.getrandbits(n - 1) | 1 << (n - 1) | 1
        ops.append((rng.getrandbits(n), rng.randrange(m), m))
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"vectors": [{"x": hex(x), "y": hex(y), "m": hex(m), "field": f}
                                            for (x, y, m), f in zip(ops, want, strict=True)]}))
    algo = get_algo(load_design("mont_dual").model)
    outcomes = {}
    for fault in (False, True):
        run = RunSpec(BuildSpec("mont_dual", n, 32, "verilator", 0, fault), seed=3, txns=1,
                      vectors=str(path), tests=("VectorTest",), timeout_s=600)
        outcomes[fault] = execute(run, tmp_path / run.key)
    ok = outcomes[False]
    assert ok.passed, ok.first_error
    logged = [json.loads(ln) for ln in (ok.log_dir / "txns.jsonl").read_text().splitlines()]
    assert [rec["field"] for rec in logged] == want
    for rec, (x, y, m) in zip(logged, ops, strict=True):
        p = int(rec["p"], 16)
        assert p == reference(algo, x, y, m, n, field=rec["field"]), rec
        assert p != reference(algo, x, y, m, n, field=1 - rec["field"]), rec
    bad = outcomes[True]
    assert not bad.passed and bad.first_error.startswith("MISMATCH"), bad.first_error
    log = (bad.log_dir / "sim.log").read_text()
    first = next(ln for ln in log.splitlines() if "MISMATCH" in ln and ": P = " in ln)
    assert "field=GF(2^n)" in first, first
