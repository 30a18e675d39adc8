"""Coverage bins decided by SBY cover statements (regress/formal/formal_cover.py): a bin proved
unreachable at a point leaves the closure total there with the proof as the reason; a
reached bin's witness replays in simulation and hits it. The formal tests run SBY and the
simulator for real; every verdict is checked against the bit-accurate model, which shares
nothing with the RTL or the harness."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from montverif.models.registry import get_algo
from montverif.regress.cli import closure as closure_cli
from montverif.regress.cli import formal as formal_cli
from montverif.regress.cli import sim as sim_cli
from montverif.regress.coverage import merge as cov
from montverif.regress.formal import formal, formal_core, formal_cover
from montverif.spec.designs import known_designs, load_design
from montverif.spec.sections import CoverageGoal
from montverif.verif.operands import modulus_class


def model_bins(dut: str, n: int, params: dict[str, int], x: int, y: int, m: int) -> set[str]:
    """The bins of formal_cover.bin_covers one operation hits, by the bit-accurate model."""
    algo = get_algo(load_design(dut).model)
    res = algo.model(algo.resolve(n, params))(x, y, m, n)
    out = {f"lut.addr:{a}" for a, hits in res.lut.items() if hits}
    cls = modulus_class(m, n)
    out.add(f"operands.m:{cls}")
    if res.before_sub is not None:
        taken = res.before_sub >= m
        out |= {f"cross.sub_x_m:{(taken, cls)!r}",
                f"final_sub:{'taken' if taken else 'not_taken'}"}
    return out


def random_operands(dut: str, n: int, rng: random.Random) -> tuple[int, int, int]:
    """Operands of the design's domain (M odd; an operand of domain below_m below M)."""
    design = load_design(dut)
    m = rng.randrange(1, 1 << n) | 1
    x, y = (rng.randrange(m) if r in design.below_modulus else rng.randrange(1 << n)
            for r in ("X", "Y"))
    return x, y, m


def check_against_model(run: formal_cover.CoverRun, samples: int = 300) -> None:
    """Every witness hits its bin in the model; no random operation of the model hits a bin
    SBY proved unreachable, and every bin the model hits SBY reached."""
    rng = random.Random(1)
    for name in run.with_status("reached"):
        ops = run.bins[name].operands
        assert name in model_bins(run.dut, run.n, run.params, ops["x"], ops["y"], ops["m"]), \
            (name, ops)
    hit: set[str] = set()
    for _ in range(samples):
        hit |= model_bins(run.dut, run.n, run.params, *random_operands(run.dut, run.n, rng))
    proved = {b for b, v in run.bins.items() if v.status == "unreachable"}  # illegal ones too
    assert not hit & proved, hit & proved
    assert hit & set(run.bins) <= {b for b, v in run.bins.items() if v.status == "reached"}


@pytest.mark.nightly(seconds=15)
@pytest.mark.formal
@pytest.mark.sim
def test_bins_a_point_cannot_reach_are_proved_and_leave_the_closure_total(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """mwr2mm with one PE counts its word steps at the addresses of PE 0 only: at N = 8 the
    cover run proves the other table addresses unreachable. `closure run --formal` leaves
    them out of the total with the proof as the reason, and its first batch, the witnesses
    alone, hits every bin SBY reached."""
    out = tmp_path / "closure"
    code = closure_cli.main(["run", "--dut", "mwr2mm", "--n", "8", "--params", "W=8,P=1",
                             "--formal", "--jobs", "1", "--budget-seeds", "1", "--txns", "5",
                             "--out", str(out)])
    assert code in (0, 1), capsys.readouterr()
    run = formal_cover.load_runs(out)[0]
    assert (run.dut, run.n, run.params) == ("mwr2mm", 8, {"W": 8, "P": 1})
    assert all(t["status"] in ("PASS", "FAIL") for t in run.tasks.values()), run.tasks
    proved = run.with_status("unreachable")
    assert proved and not run.with_status("undecided")
    check_against_model(run)
    # SBY's own list of unreached covers names each proved bin's statement
    unreached = (Path(run.folder) / "covers_lut" / "FAIL").read_text()
    for name in proved:
        if name.startswith("lut.addr:"):
            assert f"g_bin[{name.split(':')[1]}].u_cover .Hit_C" in unreached, name

    summary = cov.load_summary(out)
    d = summary["duts"]["mwr2mm"]
    for name in proved:
        assert d["unreachable"][f"mwr2mm.{name}"].startswith(
            f"{formal_cover.PROVED} at N=8 W=8 P=1"), d["unreachable"]
    every = sum(p["total"] for p in d["points"].values())
    assert d["total"] + len(d["unreachable"]) + len(d["waived"]) == every
    assert not set(d["unreachable"]) & set(d["uncovered"])
    # one run only, the witnesses: each bin SBY reached is covered by it
    runs = json.loads((out / "summary.json").read_text())["runs"]
    assert len(runs) == 1 and runs[0]["status"] == "PASS" and "-vec-" in runs[0]["key"]
    for name in run.with_status("reached"):
        assert d["first_hit"][f"mwr2mm.{name}"] == runs[0]["key"], name


@pytest.mark.nightly(seconds=10)
@pytest.mark.formal
@pytest.mark.sim
def test_a_witness_replays_with_montverif_sim_and_hits_the_rarest_bin(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """inter_csa's table address 5 is hit by 3 in 189 681 operand triples at N = 8 (and by
    none of 20 000 random ones at N = 32, docs/closure.md): the cover run finds a witness,
    which `montverif sim --vectors` replays to hit it."""
    code = formal_cli.main(["--dut", "inter_csa", "--covers", "--n", "8",
                            "--out", str(tmp_path / "cov")])
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0, lines
    assert lines[-1].startswith("COVERS inter_csa N=8: "), lines[-1]
    run = formal_cover.CoverRun.from_json(
        json.loads((tmp_path / "cov" / formal_cover.RESULT).read_text()))
    assert run.bins["lut.addr:5"].status == "reached"
    # the descriptor's illegal addresses (k = 6) are proved unreachable, and have no vector
    illegal = {f"lut.addr:{a}" for a in load_design("inter_csa").observe.illegal_bins}
    assert illegal and run.illegal() == dict.fromkeys(illegal, "unreachable")
    check_against_model(run)
    vectors = Path(run.vectors)
    assert f"--vectors {vectors}" in lines[-1]
    code = sim_cli.main(["--dut", "inter_csa", "--n", "8", "--vectors", str(vectors),
                         "--out", str(tmp_path / "sim")])
    assert code == 0, capsys.readouterr()
    summary = json.loads((tmp_path / "sim" / "coverage.json").read_text())
    for name in run.with_status("reached"):
        point, _, label = name.rpartition(":")
        assert label not in summary[f"inter_csa.{point}"]["missing"], name


def test_a_proof_excludes_a_bin_only_at_its_own_width() -> None:
    """A bin proved unreachable at N = 8 leaves the total when every merged run was at
    N = 8; a run at another width may reach it, so there it stays a hole."""
    cover = formal_cover.CoverRun("mwr2mm", 8, {}, 23, "", 1.0, {}, {
        "lut.addr:3": formal_cover.BinVerdict("lut.addr:3", "unreachable", "proved by SBY "
                                              "cover at N=8: ...")})
    for widths, excluded in (({8}, True), ({8, 16}, False)):
        dut = cov.DutCoverage("mwr2mm", CoverageGoal(), widths=set(widths))
        dut.points["mwr2mm.lut.addr"] = cov.PointHits("mwr2mm.lut.addr", 1, {"2": 1, "3": 0})
        dut.proved = {cover.n: {f"mwr2mm.{b}": why for b, why in cover.unreachable().items()}}
        assert ("mwr2mm.lut.addr:3" in dut.unreachable()) == excluded
        assert dut.total == (1 if excluded else 2)
    dut.points["mwr2mm.lut.addr"].hits["3"] = 1  # hit, though proved unreachable at 8
    dut.widths = {8}
    assert dut.contradicted() == ["mwr2mm.lut.addr:3"] and not dut.unreachable()


def test_the_cover_statements_exist_only_in_the_cover_build() -> None:
    """The observation's cover statements are compiled in by the cover run's defines alone:
    the core proofs' scripts read the RTL without them."""
    proof = formal_cover.prepare("mont_lut", 8, {})
    text = formal_cover.sby_text(proof, list(load_design("mont_lut").core_sources), 60)
    assert "lut: read -formal -D MV_COVER_LUT" in text
    assert "m_short: chparam -set MClass 3 mont_lut_covers" in text
    spec = formal.FormalSpec("mont_lut", (("N", 4),), mode="bmc", depth=10)
    assert "MV_COVER" not in formal.sby_text(spec, spec.sources())
    assert formal_cover.cover_name(r"t.u_observe.\g_bin[10].u_cover .Hit_C") == \
        "t.u_observe.g_bin[10].u_cover.Hit_C"
    # every design with a harness and an observation block has bins a cover decides (not
    # rsa_core, which observes none); the others are refused
    for dut in known_designs():
        if not formal_core.unsupported(load_design(dut)) and load_design(dut).observe.paths():
            assert formal_cover.bin_covers(dut), dut


@pytest.mark.parametrize("argv", [
    ["formal", "--dut", "nosuch", "--covers"],
    ["formal", "--dut", "mont_lut", "--covers", "--n", "4"],      # below its simulated widths
    ["formal", "--dut", "mont_lut", "--covers", "--n", "65"],
    ["formal", "--dut", "mont_dual", "--covers", "--n", "16"],    # K = 16: N >= 80
    ["formal", "--dut", "rsa_core", "--covers"],                  # no bins a cover decides
    ["formal", "--covers"],
    ["formal", "--dut", "mont_lut", "--covers", "--fault"],
    ["formal", "--dut", "mont_lut", "--covers", "--points"],
    ["formal", "--dut", "mont_lut", "--covers", "--timeout", "0"],
    ["formal", "--dut", "mont_lut", "--covers", "--params", "W"],
    ["closure", "run", "--dut", "mont_dual", "--n", "163", "--formal"],
    ["closure", "run", "--dut", "mont_lut", "--n", "8", "--formal", "--formal-timeout", "0"],
    ["closure", "compare", "--duts", "mont_lut", "--formal"],
])
def test_bad_input_is_one_error_line_and_exit_2(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main = formal_cli.main if argv[0] == "formal" else closure_cli.main
    try:
        code: object = main([*argv[1:], "--out", str(tmp_path / "out")])
    except SystemExit as exc:  # the parser's own refusal (a number beyond its bound)
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: "), (code, err)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_trace_that_reaches_several_covers_is_the_witness_of_each(tmp_path: Path) -> None:
    """SBY names a trace once, before every cover statement it reaches; the unreached ones
    follow a heading. Read from the task's status file (the log's summary stops early)."""
    task = tmp_path / "covers_lut"
    task.mkdir()
    (task / "logfile.txt").write_text("SBY 1:00:00 [covers_lut] DONE (FAIL, rc=2)\n")
    (task / "FAIL").write_text("\n".join([
        "engine_0 (smtbmc boolector) returned FAIL",
        "cover trace: engine_0/trace0.vcd",
        "cover trace: engine_0/trace0.yw",
        r"  reached cover statement top.u_observe.\g_bin[0].u_cover .Hit_C at h.sv:11 step 3",
        r"  reached cover statement top.u_observe.\g_bin[4].u_cover .Hit_C at h.sv:11 step 3",
        "cover trace: engine_0/trace1.vcd",
        r"  reached cover statement top.u_observe.\g_bin[1].u_cover .Hit_C at h.sv:11 step 5",
        "unreached cover statements:",
        r"  top.u_observe.\g_bin[2].u_cover .Hit_C at h.sv:11",
        r"  top.u_observe.\g_bin[3].u_cover .Hit_C at h.sv:11", ""]))
    status, reached, unreached = formal_cover.task_covers(task)
    trace0, trace1 = task / "engine_0" / "trace0.vcd", task / "engine_0" / "trace1.vcd"
    assert status == "FAIL"
    assert reached == {"top.u_observe.g_bin[0].u_cover.Hit_C": (3, trace0),
                       "top.u_observe.g_bin[4].u_cover.Hit_C": (3, trace0),
                       "top.u_observe.g_bin[1].u_cover.Hit_C": (5, trace1)}
    assert unreached == ["top.u_observe.g_bin[2].u_cover.Hit_C",
                         "top.u_observe.g_bin[3].u_cover.Hit_C"]
