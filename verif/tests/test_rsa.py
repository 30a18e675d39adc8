"""The RSA core's testbench pieces: vector files, test selection through the design config,
vector replay and the non-constant-time build on a real simulator."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import gmpy2
import pytest

from montverif.host.errors import ConfigError
from montverif.host.secrets import digest
from montverif.models import rsa as rsa_model
from montverif.regress.flow.check import validate
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import ALL_TESTS, BuildSpec, RunSpec, design_tb
from montverif.regress.tests.testshard import standins
from montverif.verif.env.rsa_seq import NoKeyError, rsa_key
from montverif.verif.env.rsa_vectors import load_rsa_vectors
from montverif.verif.tests.test_designs_sim import txns
from montverif.verif.vectors import VectorError

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "v.json"
    path.write_text(json.dumps(data))
    return path


def test_vectors_parse(tmp_path: Path) -> None:
    path = _write(tmp_path, {"vectors": [{"msg": "0x10", "exp": "200", "mod": "0xfb",
                                          "comment": "ignored"}, {"msg": 3, "exp": 0, "mod": 7}]})
    assert load_rsa_vectors(path, 8) == [(16, 200, 251), (3, 0, 7)]


def test_a_vector_s_params_limit_it_to_builds_with_those_values(tmp_path: Path) -> None:
    """A directed vector that tells a mutant apart only at one parameter point carries that
    point (`params`); CornerTest replays it only on such builds, VectorTest (no params given)
    replays every vector."""
    path = _write(tmp_path, {"vectors": [{"msg": 2, "exp": 5, "mod": 3, "params": {"ConstTime": 0}},
                                         {"msg": 4, "exp": 2, "mod": 11}]})
    assert load_rsa_vectors(path, 8, {"ConstTime": 0, "Mult": 0}) == [(2, 5, 3), (4, 2, 11)]
    assert load_rsa_vectors(path, 8, {"ConstTime": 1, "Mult": 0}) == [(4, 2, 11)]
    assert load_rsa_vectors(path, 8) == [(2, 5, 3), (4, 2, 11)]


@pytest.mark.parametrize("vec,match", [
    ({"msg": "1", "exp": "1"}, "missing 'mod'"),
    ({"msg": "1", "exp": "1", "mod": "0x10"}, "must be odd"),
    ({"msg": "0xff", "exp": "1", "mod": "0xfb"}, "msg must be below mod"),
    ({"msg": "1", "exp": "0x1ff", "mod": "0xfb"}, "does not fit in N=8"),
    ({"msg": "zz", "exp": "1", "mod": "0xfb"}, "vectors\\[0\\].msg"),
    ({"msg": "1", "exp": "1", "mod": "0xfb", "params": {"ConstTime": "0"}}, "params: expected"),
])
def test_bad_vectors_are_one_line_errors(tmp_path: Path, vec: dict, match: str) -> None:
    with pytest.raises(VectorError, match=match) as info:
        load_rsa_vectors(_write(tmp_path, {"vectors": [vec]}), 8)
    assert "\n" not in str(info.value)


def test_rsa_keys_at_small_widths() -> None:
    """KeyTest's keys: exactly n bits, e prime to phi, d its inverse. At n = 8, e = 3 the
    random draws (both primes with their top two bits set) find none and used to loop
    forever (the mutation flow's width); a search over all primes finds one. Where none
    exists, a clear error in milliseconds."""
    rng = random.Random(4)
    for n, e in [(8, 3)] * 20 + [(8, 5), (9, 3), (12, 3), (16, 65537), (64, 65537)]:
        mod, d = rsa_key(n, e, rng)
        assert mod.bit_length() == n and mod % 2 == 1, (n, e, mod)
        assert pow(pow(7, e, mod), d, mod) == 7 % mod, (n, e)
    with pytest.raises(NoKeyError, match="no 8-bit RSA key has e=2"):
        rsa_key(8, 2, rng)  # phi is even


def test_tests_come_from_the_design_config() -> None:
    module, tests, loader = design_tb("rsa_core")
    assert module == "montverif.verif.tb_rsa" and "KeyTest" in tests and loader
    assert design_tb("mont_lut") == ("montverif.verif.tb_mult", ALL_TESTS, None)
    run = RunSpec(BuildSpec("rsa_core", 64), tests=ALL_TESTS)  # the default list maps
    validate(run)
    with pytest.raises(ConfigError, match="unknown test.*BackToBackTest"):
        validate(RunSpec(BuildSpec("rsa_core", 64), tests=("BackToBackTest",)))
    with pytest.raises(ConfigError, match="Mult=9: one of mont_lut"):
        validate(RunSpec(BuildSpec("rsa_core", 64, params=(("Mult", 9),))))


def test_bad_vector_file_on_the_command_line(tmp_path: Path) -> None:
    path = _write(tmp_path, {"vectors": [{"msg": "5", "exp": "3", "mod": "8"}]})
    cp = subprocess.run([sys.executable, "-m", "montverif.regress.cli", "sim", "--dut", "rsa_core",
                         "--n", "64", "--vectors", str(path)],
                        capture_output=True, text=True, cwd=ROOT)
    assert cp.returncode == 2 and cp.stderr.startswith("error:") and "odd" in cp.stderr
    assert len(cp.stderr.strip().splitlines()) == 1


@pytest.mark.nightly(seconds=10)
@pytest.mark.sim
def test_vector_replay_logs_result_and_cycles(tmp_path: Path) -> None:
    rng = random.Random(11)
    n = 64
    mod, d = rsa_key(n, 65537, rng)
    msg = rng.randrange(2, mod)
    vectors = [(msg, d, mod), (msg, 65537, mod), (0, 0, mod), (rng.randrange(mod), 1, mod)]
    path = _write(tmp_path, {"vectors": [{"msg": hex(x), "exp": str(e), "mod": hex(m),
                                          "note": "x"} for x, e, m in vectors]})
    run = RunSpec(BuildSpec("rsa_core", n, 32, "verilator"), seed=3, vectors=str(path),
                  tests=("VectorTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert outcome.passed, outcome.first_error
    logged = txns(outcome)  # the secret exponent as its digest (montverif.host.secrets)
    assert [(int(r["x"], 16), r["e"], int(r["m"], 16)) for r in logged] == [
        (x, digest(e, n), m) for x, e, m in vectors]
    for rec, (x, e, m) in zip(logged, vectors, strict=True):
        assert int(rec["p"], 16) == int(gmpy2.powmod(x, e, m))
        assert rec["cycles"] == (n + 2) * (n + 3)  # constant time: mont_lut, N + 2 steps


@pytest.mark.sim
def test_without_constant_time_the_cycles_follow_the_bit_length(tmp_path: Path) -> None:
    n = 64
    vectors = [(5, e, 0xFFFF_FFFF_FFFF_FFC5) for e in (1, 0xFF, 1 << 40, (1 << 64) - 1)]
    path = _write(tmp_path, {"vectors": [{"msg": str(x), "exp": hex(e), "mod": hex(m)}
                                         for x, e, m in vectors]})
    run = RunSpec(BuildSpec("rsa_core", n, 32, "verilator", params=(("ConstTime", 0),)),
                  seed=3, vectors=str(path), tests=("VectorTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert outcome.passed, outcome.first_error
    cycles = [r["cycles"] for r in txns(outcome)]
    assert cycles == [rsa_model.rsa_cycles(e, n, ConstTime=0) for _, e, _ in vectors]
    assert len(set(cycles)) == len(cycles)


@pytest.mark.sim
def test_a_run_whose_operations_need_no_product_passes(tmp_path: Path) -> None:
    """inter_lut without constant time runs no product for E = 0 (1 cycle): a run of only
    such operations is legal, and the scoreboard's guard against a monitor that sees no
    product must not fail it (it did: the input SBY found for a gencond mutant, replayed
    alone by `montverif mutate directed`)."""
    n = 8
    path = _write(tmp_path, {"vectors": [{"msg": "0x5", "exp": "0", "mod": "0xfb"},
                                         {"msg": "0x0", "exp": "0", "mod": "0x7"}]})
    run = RunSpec(BuildSpec("rsa_core", n, 8, "icarus",
                            params=(("Mult", 6), ("ConstTime", 0))),
                  seed=3, vectors=str(path), tests=("VectorTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert outcome.passed, outcome.first_error
    logged = txns(outcome)
    assert [(int(r["p"], 16), r["cycles"], r["products"]) for r in logged] == [(1, 1, 0)] * 2
    assert rsa_model.rsa_cycles(0, n, ConstTime=0, Mult=6) == 1


@pytest.mark.sim
# make test's stand-in: mont_qp's multiplier; the nightly also mwrkmm's and the lazy core's
@pytest.mark.parametrize("params", standins([(("Mult", 4), ("V", 8), ("W", 4), ("P", 2)),
                                             (("Mult", 5), ("V", 4), ("W", 8), ("P", 2)),
                                             (("Mult", 5), ("V", 4), ("W", 8), ("P", 2),
                                              ("Lazy", 1))],
                                            lambda p: p == (("Mult", 5), ("V", 4), ("W", 8),
                                                            ("P", 2)), seconds=8),
                         ids=["mwrkmm", "mont_qp", "mont_qp-lazy"])
def test_a_broken_word_multiplier_inside_is_caught_on_its_first_product(
        tmp_path: Path, params: tuple[tuple[str, int], ...]) -> None:
    """FaultEn flips a quotient digit of one PE of multiplier A: the per-product scoreboard
    (gmpy2 with that multiplier's R) names the first wrong Montgomery product, not just the
    final result."""
    run = RunSpec(BuildSpec("rsa_core", 32, 16, "verilator", params=params, fault=True),
                  seed=5, txns=1, tests=("RandomTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    rb = rsa_model.r_bits(32, **dict(params))
    assert "MISMATCH op 0 multiplier A product 0" in outcome.first_error
    assert f"x*y*2^-{rb} mod m" in outcome.first_error


def _rsa_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: BuildSpec, tag: str,
             tests: tuple[str, ...]) -> tuple[object, list[str], list[dict]]:
    """One RSA run with its bus log: (outcome, bus log lines, txns without their times)."""
    log = tmp_path / f"{tag}.bus"
    monkeypatch.setenv("MV_BUS_LOG", str(log))
    run = RunSpec(build, seed=11, txns=2, tests=tests, timeout_s=900)
    outcome = execute(run, tmp_path / tag / run.key)
    rows = [{k: v for k, v in r.items() if not k.endswith("_ns")} for r in txns(outcome)]
    return outcome, log.read_text().splitlines(), rows


@pytest.mark.sim
# the core alone on Icarus in make test (its Verilator run and the other multipliers in the
# nightly)
@pytest.mark.parametrize("sim,n,bus_w,params", standins([
    ("verilator", 64, 32, ()),
    ("verilator", 96, 16, (("Mult", 4), ("V", 16), ("W", 16), ("P", 2))),
    ("icarus", 32, 16, ()),
    # mwrkmm's token pipelines on Icarus: every product was 0 in the fast mode while the
    # product log held a loop Icarus 11 mis-simulates (montverif.spec.portability)
    ("icarus", 32, 16, (("Mult", 4), ("V", 8), ("W", 4), ("P", 1))),
    ("verilator", 64, 32, (("Units", 1),)),
    ("verilator", 64, 16, (("Mult", 5), ("V", 8), ("W", 16), ("P", 3), ("ConstTime", 0),
                           ("Units", 1))),
    ("verilator", 64, 32, (("Mult", 5), ("V", 8), ("W", 16), ("P", 3), ("Lazy", 1))),
    # inter_lut: no TO or FROM step, E = 0 runs no product; its C is N + 2 bits (63 + 2 does
    # not fit the 64-bit slot the other multipliers need at N = 63)
    ("verilator", 63, 16, (("Mult", 6), ("ConstTime", 0))),
    # mm42_u2: carry-save pairs of N + 1-bit halves chained (a 128-bit pair at N = 63)
    ("verilator", 63, 16, (("Mult", 8),)),
], lambda case: case[3] == () and case[0] == "icarus", unpack=True),
    ids=["verilator-mont_lut", "verilator-mwrkmm",
                                                 "icarus-mont_lut", "icarus-mwrkmm",
        "verilator-one-unit",
        "verilator-one-unit-mont_qp-vartime", "verilator-mont_qp-lazy",
        "verilator-inter_lut-vartime", "verilator-mm42_u2"])
def test_fast_mode_checks_what_pin_mode_checks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sim: str, n: int, bus_w: int,
        params: tuple[tuple[str, int], ...]) -> None:
    """BUS=engine for the RSA core: the simulation records every multiplier product
    (verif/hdl/mv_product_log.sv) and the wipe registers at done, and Python reads them once
    per engine script. Every test passes with the same bus transfers, results, cycles and
    number of checked products as in pin mode."""
    tests = ("RandomTest", "CornerTest", "WipeTest", "ErrorTest")
    got = {}
    for bus in ("pins", "engine"):
        build = BuildSpec("rsa_core", n, bus_w, sim, params=params, bus=bus)
        outcome, bus_log, rows = _rsa_run(tmp_path, monkeypatch, build, bus, tests)
        assert outcome.passed, f"{bus}: {outcome.first_error}"  # type: ignore[attr-defined]
        sim_log = (outcome.log_dir / "sim.log").read_text()  # type: ignore[attr-defined]
        products = [int(w) for w in re.findall(r"scoreboard: (\d+) multiplier products", sim_log)]
        got[bus] = (bus_log, rows, products)
    assert len(got["pins"][0]) > 100 and len(got["pins"][1]) >= 4
    assert sum(got["pins"][2]) > 4 * n
    assert got["engine"] == got["pins"]


@pytest.mark.sim
@pytest.mark.parametrize("sim,params,where", standins([
    ("verilator", (), "multiplier A product"),
    ("icarus", (), "multiplier A product"),
    ("verilator", (("Units", 1),), "multiplier U product 8, A's"),
    ("verilator", (("Mult", 5), ("V", 4), ("W", 8), ("P", 2), ("Units", 1)),
     "multiplier U product 0, A's"),
    ("verilator", (("Mult", 5), ("V", 4), ("W", 8), ("P", 2), ("Lazy", 1)),
     "multiplier A product 0"),
    ("verilator", (("Mult", 6),), "multiplier A product"),
    ("verilator", (("Mult", 7),), "multiplier A product"),
], lambda case: case[1] == () and case[0] == "icarus", unpack=True),
    ids=["verilator", "icarus", "verilator-one-unit", "verilator-one-unit-mont_qp",
         "verilator-mont_qp-lazy", "verilator-inter_lut", "verilator-mm42"])
def test_fast_mode_catches_a_broken_multiplier_on_its_first_wrong_product(
        tmp_path: Path, sim: str, params: tuple[tuple[str, int], ...], where: str) -> None:
    """The fault build (a wrong table entry in multiplier A, or a flipped quotient digit of
    mont_qp's; with Units = 1 in the one multiplier) fails in the fast mode with the product
    it broke, as in pin mode."""
    first = {}
    for bus in ("pins", "engine"):
        run = RunSpec(BuildSpec("rsa_core", 32, 16, sim, params=params, fault=True, bus=bus),
                      seed=3, txns=1, tests=("RandomTest",), timeout_s=600)
        outcome = execute(run, tmp_path / bus / run.key)
        assert not outcome.passed
        first[bus] = re.sub(r"\(@[\d.]+ns\)", "", outcome.first_error)
    assert f"MISMATCH op 0 {where}" in first["engine"], first["engine"]
    assert first["engine"] == first["pins"]


LAZY = (("Mult", 5), ("V", 4), ("W", 8), ("P", 2), ("Lazy", 1))


@pytest.mark.sim
@pytest.mark.parametrize("old,new,message", standins([
    # multiplier A built with its reducer: its products are reduced, not the raw values
    (".Reduce   (!Lazy),\n      .FaultEn  (FaultEn),\n      .FaultAddr(FaultAddr)\n    ) u_mult_a",
     ".Reduce   (1'b1),\n      .FaultEn  (FaultEn),\n      .FaultAddr(FaultAddr)\n    ) u_mult_a",
     "MISMATCH op 0 multiplier A product 0"),
    # the final reduction keeps the wrong value: P is not below M (the core's assertion
    # fires before the bus reads P)
    ("assign red_keep   = red_b_q ? a0_q : a1_q;", "assign red_keep   = red_b_q ? a1_q : a0_q;",
     "ASSERT FAILED RsaLazyReduced_A"),
    # one restoring step fewer: P is often reduced all the same, but the cycles are not
    ("red_s_q <= RsW'(2 * V);", "red_s_q <= RsW'(2 * V - 1);", "model expects"),
], lambda case: "u_mult_a" in case[0], unpack=True),
    ids=["multiplier-reduces", "keeps-the-wrong-value", "one-step-fewer"])
@pytest.mark.nightly(seconds=10)
def test_a_lazy_core_that_reduces_wrongly_fails(
        tmp_path: Path, old: str, new: str, message: str) -> None:
    """Lazy = 1 (Jiang-Harris: products unreduced, the last one reduced by the core): a copy
    of rsa_core.sv whose multiplier reduces, whose final reduction keeps the wrong value or
    runs one step fewer fails: the bit-exact check of each unreduced product (the
    multiplier's own value, models.vhr.lazy_product), the core's assertion that P is below M
    (on Verilator), the cycle count."""
    text = (ROOT / "hdl" / "rsa" / "rsa_core.sv").read_text()
    assert text.count(old) == 1
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "rsa_core.sv").write_text(text.replace(old, new))
    run = RunSpec(BuildSpec("rsa_core", 32, 16, "verilator", params=LAZY,
                            overlay=str(overlay)),
                  seed=5, txns=1, tests=("RandomTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert message in outcome.first_error, outcome.first_error


@pytest.mark.sim
@pytest.mark.parametrize("file,old,new,message", standins([
    # S and C swapped: P is right (their sum is), the halves are not inter_lut's
    ("rsa_mont_mult.sv", ".p_o, .s_o, .c_o\n    );\n  end else if (Mult == MultMm42 ",
     ".p_o, .s_o(c_o), .c_o(s_o)\n    );\n  end else if (Mult == MultMm42 ",
     "models.inter.inter_lut gives"),
    # a FROM step after the loop, as with a Montgomery multiplier: P is right (1 * A mod M),
    # the product chain and the cycle count are not
    ("rsa_core.sv", "          if (Direct) begin\n            finish = 1'b1;",
     "          if (1'b0) begin\n            finish = 1'b1;", "Algorithm 4 needs only"),
], lambda case: case[0] == "rsa_core.sv", unpack=True, seconds=6), ids=["s-c-swapped", "from-step"])
def test_an_interleaved_core_that_goes_wrong_fails(
        tmp_path: Path, file: str, old: str, new: str, message: str) -> None:
    """Mult = 6 (inter_lut, no Montgomery domain): a copy of the RTL whose multiplier gives
    its S and C swapped, or whose core runs a FROM product, fails on the bit-exact check of
    the halves (models.inter) or on the product chain, though P is right in both."""
    _overlay_fails(tmp_path, file, old, new, message, (("Mult", 6),))


@pytest.mark.sim
@pytest.mark.parametrize("old,new,message", standins([
    # the chain carries each product reduced (a carry-propagate addition between products,
    # which MM42 exists to avoid): every value is right, the pairs are not the multiplier's
    ("    assign p_o = {s2[NH-1:0], s1[NH-1:0]};", "    assign p_o = N'(p);",
     "models.mm42 gives"),
    # FROM's P taken from the pair's second half instead of the multiplier's reduced P
    ("    assign from_p = Pairs ? ma_s[N-1:0] : ma_p[N-1:0];",
     "    assign from_p = Pairs ? N'(ma_p[NI-1:NH]) : ma_p[N-1:0];", "read P[0]"),
], lambda case: case[2] == "read P[0]", unpack=True, seconds=6),
    ids=["reduced-between-products", "from-half"])
def test_an_mm42_core_that_breaks_its_pairs_fails(
        tmp_path: Path, old: str, new: str, message: str) -> None:
    """Mult = 7 (MM42, carry-save pairs chained): a copy of the RTL that reduces every
    product before the next one, or takes one half of FROM's pair as P, fails."""
    file = "rsa_mont_mult.sv" if "p_o" in old else "rsa_core.sv"
    _overlay_fails(tmp_path, file, old, new, message, (("Mult", 7),))


def _overlay_fails(tmp_path: Path, file: str, old: str, new: str, message: str,
                   params: tuple[tuple[str, int], ...]) -> None:
    """A copy of hdl/rsa/`file` with `old` replaced by `new` fails with `message`."""
    text = (ROOT / "hdl" / "rsa" / file).read_text()
    assert text.count(old) == 1
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / file).write_text(text.replace(old, new))
    run = RunSpec(BuildSpec("rsa_core", 32, 16, "verilator", params=params,
                            overlay=str(overlay)),
                  seed=5, txns=1, tests=("RandomTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert message in outcome.first_error, outcome.first_error


def test_the_lazy_mode_is_mont_qp_s_and_shortens_every_product() -> None:
    """The model: Lazy needs mont_qp; its multiplier is 2V + 2 bits wider (whole W-bit words),
    each product 2V cycles shorter, the core's final reduction (2V + 1) (NI / W + 1) clocks;
    P is X^E mod M."""
    with pytest.raises(Exception, match="Lazy must be 0, or 1 with Mult=5"):
        rsa_model.check(64, Mult=4, V=8, W=4, P=1, Lazy=1)
    vwp = {"Mult": 5, "V": 16, "W": 16, "P": 16}
    assert rsa_model.width(1024, **vwp, Lazy=1) == 1024 + 48  # 1058 rounded to 16-bit words
    full = rsa_model.rsa_cycles(1, 1024, Units=1, **vwp)
    lazy = rsa_model.rsa_cycles(1, 1024, Units=1, **vwp, Lazy=1)
    assert full == 2051 * 369 and lazy == 2051 * (rsa_model.mult_cycles(
        5, 1024, **vwp, Lazy=1) + 1) + 33 * (1072 // 16 + 1)
    rng = random.Random(7)
    for n in (64, 97):
        m = rng.getrandbits(n) | 1 | 1 << (n - 1)
        x, e = rng.randrange(m), rng.getrandbits(n)
        res = rsa_model.rsa_core(x, e, m, n, Mult=5, V=4, W=8, P=2, Lazy=1)
        assert res.p == int(gmpy2.powmod(x, e, m))
        steps = rsa_model.products(x, e, m, n, Mult=5, V=4, W=8, P=2, Lazy=1)
        # the chain runs on unreduced values: some product is at or above M
        assert any(p.p >= m for step in steps for p in step)
