"""mont_dual refuses widths and parameters it cannot do (N < K + K*Units: MP packs the K-bit
m' and the K*Units-bit GF(2^n) inverse, 80 at the paper's K = 16, Units = 4; K*Units < K + 2)
with one line, in the runner and in the RTL (generate-if + $fatal); the fault build fails in
both fields at the default and at a small configuration."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from montverif.host.errors import ConfigError
from montverif.host.paths import include_flags
from montverif.regress.flow.check import validate
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec import top as gen_top
from montverif.spec.designs import load_design


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


@pytest.mark.parametrize("n,params,why", [
    (5, (("K", 2), ("Units", 2)), "(supported: 6..2048)"),
    (8, (("K", 1), ("Units", 2)), "K*Units must be >= K + 2"),
    (8, (("K", 0), ("Units", 4)), "K=0 is below its least value 1"),
])
def test_runner_refuses_illegal_parameters(n: int, params: tuple[tuple[str, int], ...],
                                           why: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate(RunSpec(BuildSpec("mont_dual", n, 32, "verilator", 0, False, params=params),
                         seed=1, txns=1))
    assert "\n" not in str(info.value) and why in str(info.value), str(info.value)


def test_runner_takes_the_narrowest_small_configuration() -> None:
    validate(RunSpec(BuildSpec("mont_dual", 6, 32, "verilator", 0, False,
                               params=(("K", 2), ("Units", 2))), seed=1, txns=1))


@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")
@pytest.mark.parametrize("n,k,units,fatal", [
    (5, 2, 2, "N must be at least 6 (got 5)"),
    (8, 1, 2, "K*Units must be >= K + 2 (got K=1, Units=2)"),
    (6, 2, 2, ""),
    (4, 1, 3, ""),
])
def test_rtl_fatal_on_illegal_parameters(tmp_path, n: int, k: int, units: int,
                                         fatal: str) -> None:
    """The core and the top refuse what the model's check refuses (the same rules)."""
    design = load_design("mont_dual")
    out = tmp_path / "a.vvp"
    top = design.toplevel
    subprocess.run(["iverilog", "-g2012", "-o", str(out), "-s", top, *include_flags(),
                    f"-P{top}.N={n}", f"-P{top}.K={k}", f"-P{top}.Units={units}",
                    *map(str, gen_top.sources(design))], check=True)
    res = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, timeout=60,
                         check=False)
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("FATAL")]
    if fatal:
        assert res.returncode != 0 and any(fatal in ln for ln in lines), res.stdout
    else:
        assert res.returncode == 0 and not lines, res.stdout


@pytest.mark.sim
@pytest.mark.parametrize("n,params", [(80, ()), (8, (("K", 2), ("Units", 2)))])
def test_fault_is_caught_in_both_fields(tmp_path, n: int,
                                        params: tuple[tuple[str, int], ...]) -> None:
    """The faulty build (FaultEn: t_i times a corrupted M_0) fails in GF(p) and in GF(2^n):
    the scoreboard reports P mismatches tagged with each field."""
    from montverif.regress.flow.simulate import execute

    run = RunSpec(BuildSpec("mont_dual", n, 32, "icarus", 0, True, params=params), seed=5,
                  txns=12 if params == () else 40, tests=("RandomTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed and outcome.first_error.startswith("MISMATCH")
    log = (outcome.log_dir / "sim.log").read_text()
    lines = [ln for ln in log.splitlines() if "MISMATCH" in ln and ": P = " in ln]
    assert any("field=GF(p)" in ln for ln in lines), lines
    assert any("field=GF(2^n)" in ln for ln in lines), lines


@pytest.mark.nightly(seconds=15)
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


def test_a_vector_s_field_is_read_and_checked(tmp_path) -> None:
    import json

    from montverif.verif.vectors import VectorError, load_vectors, vector_fields

    path = tmp_path / "v.json"
    path.write_text(json.dumps({"vectors": [{"x": "0x1c", "y": "0x1b", "m": "0x21",
                                             "field": "0x1"},
                                            {"x": 1, "y": 2, "m": 3, "field": 0},
                                            {"x": 1, "y": 2, "m": 3}]}))
    assert load_vectors(path, 6, has_field=True) == [(0x1C, 0x1B, 0x21), (1, 2, 3), (1, 2, 3)]
    assert vector_fields(path) == [1, 0, None]
    for bad in ("2", "GF", True, 1.5):
        path.write_text(json.dumps({"vectors": [{"x": 1, "y": 2, "m": 3, "field": bad}]}))
        with pytest.raises(VectorError, match=r"vectors\[0\]\.field: ") as info:
            load_vectors(path, 6, has_field=True)
        assert "\n" not in str(info.value)


@pytest.mark.sim
@pytest.mark.parametrize("field", [0, 1])
def test_a_vector_replays_in_its_field(tmp_path, field: int) -> None:
    """VectorTest starts each operation in the field its vector names: the transaction log
    records it, and the fault build fails there."""
    import json

    from montverif.regress.flow.simulate import execute

    path = tmp_path / "v.json"
    vectors = [{"x": "0x1c", "y": "0x1b", "m": "0x21", "field": field}] * 3
    path.write_text(json.dumps({"vectors": vectors}))
    params = (("K", 2), ("Units", 2))
    for fault in (False, True):
        run = RunSpec(BuildSpec("mont_dual", 6, 32, "icarus", 0, fault, params=params), seed=1,
                      txns=1, vectors=str(path), tests=("VectorTest",), timeout_s=600)
        outcome = execute(run, tmp_path / run.key)
        assert outcome.passed != fault, outcome.first_error
        txns = [json.loads(ln) for ln in (outcome.log_dir / "txns.jsonl").read_text().split("\n")
                if ln.strip()]
        assert txns and all(t["field"] == field for t in txns), txns
