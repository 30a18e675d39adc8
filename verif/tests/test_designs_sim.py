"""Every design through the full pyuvm testbench on both simulators, at the points its
descriptor (hdl/<family>/<design>.toml) lists under [test], plus each design's negative test:
a build with a corrupted table entry or selection (its `fault_params`) must fail in the scoreboard.
Adding a design adds its cases here without touching this file.

`make test` runs each design's first point, the designs taking Verilator and Icarus in turn,
and every negative test; the other points carry the `nightly` marker (`make test-nightly`,
the nightly's test job)."""

from __future__ import annotations

import json

import pytest

from montverif.models.registry import get_algo, matches_reference, promise_broken
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, Outcome, RunSpec, design_tb
from montverif.regress.tests.testshard import standins
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design

pytestmark = pytest.mark.sim
SEED = 7


Params = tuple[tuple[str, int], ...]
Point = tuple[str, int, int, int, int, tuple[str, ...], Params]


def _points(sim: str) -> list[Point]:
    """[N, BusW, txns, AckWait] or [N, BusW, txns, AckWait, { W = .., P = .. }]."""
    out: list[Point] = []
    for name in known_designs():
        design = load_design(name)
        quick_from = design.test.quick_from_n.get(sim)
        own = design_tb(name)[1]  # the design's tests (a streaming design's are its own)
        quick = design.test.quick_tests or own
        for p in design.test.on(sim):
            tests = quick if quick_from is not None and p.n >= quick_from else own
            params = tuple(sorted(design.normalize(p.params)))
            out.append((name, p.n, p.bus_w, p.txns, p.ack_wait, tests, params))
    return out


def _ids(points: list[Point]) -> list[str]:
    return [f"{p[0]}-n{p[1]}" + "".join(f"-{k}{v}" for k, v in p[6]) + f"-b{p[2]}"
            for p in points]


def txns(outcome: Outcome) -> list[dict]:
    log = outcome.log_dir / "txns.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()]


def operand_value(design: Design, values: dict[str, int], reg: str) -> int:
    """An operand's value by its register name: a carry-save group's (named by its first
    register, as [operands] domain names it) is the sum of its halves."""
    group = next((g for g in design.carry_save_operands if g[0] == reg), (reg,))
    return sum(values[r] for r in group)


def check_log_against_gmpy2(outcome: Outcome, design: Design, n: int, *,
                            random_draws: bool = True) -> int:
    """Independent of the scoreboard: every logged result against gmpy2, the cycle count
    against the model, the logged P and S + C against the design's promise; with random
    draws, a design whose domain takes X >= M ran some (replayed vectors are the user's
    choice). Returns the number of operations checked."""
    algo = get_algo(design.model)
    params = outcome.run.build.design_params(design)
    checked = beyond = beyond_y = exact = 0
    for rec in txns(outcome):
        if "error" in rec:
            continue
        operands = [int(rec[r.lower()], 16) for r in design.operands]
        field = int(rec.get("field", 0))  # designs with CTRL.FIELD log each operation's
        p = int(rec["p"], 16)
        # the function's value (a congruent P within the promise where P may reach M)
        assert matches_reference(algo, p, *operands, n, field=field, **params), rec
        res = algo.run(params, *operands, n, field=field)
        if design.stream is None:
            assert rec["cycles"] == res.cycles, rec
        else:  # a stream: the latency, the model's or more where a stall held it back
            assert rec["latency"] >= res.cycles, rec
            exact += rec["latency"] == res.cycles
        v = int(rec["s"], 16) + int(rec["c"], 16) if "s" in rec else res.before_sub
        assert not promise_broken(algo, p, v, (*operands, n), field, params), rec
        # X and Y by their register names ([operands] registers), not their places
        values = dict(zip(design.operands, operands, strict=True))
        beyond += "X" in values and operand_value(design, values, "X") >= values[design.modulus]
        beyond_y += "Y" in values and operand_value(design, values, "Y") >= values[design.modulus]
        checked += 1
    if random_draws and design.domain.get("X") == "below_2n" and checked:
        assert beyond, "no operation with X >= M in a design whose domain takes it"
    if random_draws and design.domain.get("Y") == "below_2n" and checked:
        assert beyond_y, "no operation with Y >= M in a design whose domain takes it"
    assert design.stream is None or exact, "no operation took exactly the model's latency"
    return checked


def _run(tmp_path, design: str, sim: str, n: int, bus_w: int, txns_: int, ack_wait: int,
         tests: tuple[str, ...], fault: bool = False, params: Params = ()) -> Outcome:
    # the log is checked against gmpy2 on its own: it must hold every operand, a secret one
    # (the RSA core's exponent) too (regress/tests/reliability/test_secrets.py: redacted)
    run = RunSpec(BuildSpec(design, n, bus_w, sim, ack_wait, fault, params=params), seed=SEED,
                  txns=txns_, tests=tests, timeout_s=900,
                  keep_secrets=bool(load_design(design).secret))
    return execute(run, tmp_path / run.key)


def _check_pass(tmp_path, point: tuple, sim: str) -> None:
    name, n, bus_w, txns_, ack_wait, tests, params = point
    outcome = _run(tmp_path, name, sim, n, bus_w, txns_, ack_wait, tests, params=params)
    assert outcome.passed, outcome.first_error
    assert outcome.tests == len(tests)
    assert check_log_against_gmpy2(outcome, load_design(name), n) >= txns_
    cov = json.loads((outcome.log_dir / "coverage.json").read_text())
    assert any(v["hits"] for v in cov.values())


def _first_on(name: str) -> str:
    """The simulator of a design's first point in `make test`: the designs take Verilator
    and Icarus in turn (each design's fault build runs on Icarus there too); the nightly runs
    every point on both."""
    return ("verilator", "icarus")[known_designs().index(name) % 2]


def _cases(sim: str) -> list:
    """The points as test cases: a design's first point in `make test` on the simulator
    `_first_on` gives it, the rest nightly."""
    points = _points(sim)
    return [pytest.param(p, id=i, marks=() if (k == 0 or p[0] != points[k - 1][0])
                         and _first_on(p[0]) == sim else pytest.mark.nightly)
            for k, (p, i) in enumerate(zip(points, _ids(points), strict=True))]


@pytest.mark.parametrize("point", _cases("verilator"))
def test_verilator(tmp_path, point):
    _check_pass(tmp_path, point, "verilator")


@pytest.mark.parametrize("point", _cases("icarus"))
def test_icarus(tmp_path, point):
    _check_pass(tmp_path, point, "icarus")


NEGATIVE = [(d, s) for d in known_designs() if load_design(d).fault_params
            for s in ("verilator", "icarus")]


# every design's fault build on Icarus in make test (its build takes about a second, a
# Verilator build three or more), on Verilator in the nightly
@pytest.mark.parametrize("design,sim", standins(NEGATIVE, lambda case: case[1] == "icarus",
                                                ids=lambda case: f"{case[0]}-{case[1]}",
                                                unpack=True))
def test_corrupted_design_is_caught(tmp_path, design, sim):
    """The faulty build (fault_params of the design's config) must fail, in the scoreboard."""
    n = max(32, load_design(design).min_n)  # 32, or the design's smallest width
    tests = design_tb(design)[1][:2]  # RandomTest and CornerTest (a stream's own first two)
    outcome = _run(tmp_path, design, sim, n, 32, 10, 0, tests, fault=True)
    assert not outcome.passed
    assert outcome.failed >= 1
    # a streaming core's own assertions (Verilator) may see the fault before the checks do
    own = sim == "verilator" and load_design(design).stream is not None
    assert outcome.first_error.startswith("MISMATCH") or (
        own and outcome.first_error.startswith("ASSERT FAILED")), outcome.first_error
    assert "--fault" in outcome.run.repro()


def test_a_corrupted_subpipelined_mwrkmm_is_caught(tmp_path):
    """mwrkmm's PE of latency 4 (Michalski-Buell section 7) has a datapath of its own (the
    product registers, the adders a clock later): its fault build fails in the scoreboard
    too, at P = p_max, on both simulators."""
    for sim in ("verilator", "icarus"):
        outcome = _run(tmp_path / sim, "mwrkmm", sim, 48, 32, 6, 0, ("RandomTest",), fault=True,
                       params=(("V", 4), ("W", 4), ("P", 3), ("PeLatency", 4)))
        assert not outcome.passed, sim
        assert outcome.first_error.startswith("MISMATCH"), outcome.first_error


def test_every_design_has_test_points_and_a_negative_test():
    for name in known_designs():
        design = load_design(name)
        assert design.test.verilator and design.test.icarus, name
        assert design.fault_params, f"{name} has no fault_params for its negative test"
        assert design.paper_cycles.cycles or design.paper_cycles.figures, \
            f"{name}: no [paper] cycle formula or figures (docs/generated/cycles.md)"
