"""`montverif formal`: the bus loader's assertions proved by SymbiYosys (k-induction), and a
broken loader or a harness that rules out what the loader is for caught (failed with a
counterexample, vacuous). Each proof runs SBY for real (about 10 s each)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.regress.cli import formal as formal_cli
from montverif.regress.formal import formal

LOADER = ROOT / "hdl" / "common" / "mv_bus_loader.sv"
HARNESS = ROOT / "hdl" / "formal" / "mv_bus_loader_formal.sv"
# the mutant: a request is taken while ack is still high (the host holding req across an ack
# gets a second, unrequested transfer)
GOOD_ACCEPT = "assign accept  = waiting && (wait_q == WaitW'(AckWait));"
BAD_ACCEPT = "assign accept  = bus_req_i && (wait_q == WaitW'(AckWait));"


def broken_loader(folder: Path) -> Path:
    """An overlay folder whose mv_bus_loader.sv acknowledges twice per request."""
    folder.mkdir(parents=True, exist_ok=True)
    text = LOADER.read_text()
    assert text.count(GOOD_ACCEPT) == 1
    (folder / LOADER.name).write_text(text.replace(GOOD_ACCEPT, BAD_ACCEPT))
    return folder


# the default loader, and every optional register and wait states (the RSA core's exponent
# wiped at the end, carry-save halves, the field bit, an X of any N-bit value)
ALL_FEATURES = "HasHalves=1,HasMp=1,HasMhat=1,HasR2=1,HasE=1,HasField=1,RangeX=0"


@pytest.mark.formal
@pytest.mark.parametrize("extra, params", [
    # every feature in make test, the default loader in the nightly
    pytest.param([], {"N": 8, "BusW": 8, "AckWait": 0}, marks=pytest.mark.nightly(seconds=6),
                 id="default"),
    pytest.param(["--ack-wait", "2", "--params", ALL_FEATURES],
                 {"N": 8, "BusW": 8, "AckWait": 2, "HasHalves": 1, "HasMp": 1, "HasMhat": 1,
                  "HasR2": 1, "HasE": 1, "HasField": 1, "RangeX": 0}, id="all-features"),
])
def test_the_loader_is_proved_with_every_cover_reached(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
        params: dict[str, int]) -> None:
    out = tmp_path / "proof"
    code = formal_cli.main(["--block", "mv_bus_loader", "--n", "8", "--busw", "8",
                            "--out", str(out), *extra])
    line = capsys.readouterr().out.strip()
    assert code == 0, line
    assert line.startswith(f"PROVED mv_bus_loader N=8 BusW=8 AckWait={params['AckWait']}")
    assert "k-induction closed at depth 20" in line
    record = json.loads((out / "formal.json").read_text())
    assert record["status"] == "proved" and record["depth"] == 20
    assert record["covers_total"] == record["covers_reached"] >= 5
    assert record["spec"]["params"] == params
    assert "mode prove" in (out / "formal.sby").read_text()


@pytest.mark.formal
def test_a_broken_loader_fails_with_a_counterexample(tmp_path: Path) -> None:
    spec = formal.FormalSpec("mv_bus_loader", overlay=str(broken_loader(tmp_path / "mut")))
    verdict = formal.run(spec, tmp_path / "proof")
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.rsplit(".", 1)[-1] in ("AckAfterWait_A", "AckOneCycle_A")
    assert verdict.location.startswith("mv_bus_loader.sv:")
    assert verdict.trace is not None and verdict.trace.suffix == ".vcd"
    assert verdict.trace.is_file() and "$enddefinitions" in verdict.trace.read_text()
    assert verdict.testbench is not None and verdict.testbench.is_file()
    assert json.loads((tmp_path / "proof" / "formal.json").read_text())["status"] == "failed"


@pytest.mark.formal
def test_a_property_induction_cannot_reach_is_bounded_not_proved(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cycle counter that wraps instead of saturating: 2^32 busy cycles are beyond any
    bound, so no counterexample from reset, and induction fails on the saturation assertion."""
    over = tmp_path / "mut"
    over.mkdir()
    text = LOADER.read_text()
    old = "end else if (core_busy_i && cycles_q != '1) begin"
    assert text.count(old) == 1
    (over / LOADER.name).write_text(text.replace(old, "end else if (core_busy_i) begin"))
    code = formal_cli.main(["--block", "mv_bus_loader", "--depth", "6", "--overlay", str(over),
                            "--out", str(tmp_path / "p")])
    line = capsys.readouterr().out.strip()
    assert code == 1 and line.startswith("BOUNDED "), line
    assert "CyclesSaturate_A" in line and "trace_induct.vcd" in line


@pytest.mark.formal
def test_a_harness_that_forbids_requests_is_vacuous(tmp_path: Path) -> None:
    """Every assertion holds when the host never asks for anything: the covers say so."""
    over = tmp_path / "over"
    over.mkdir()
    text = HARNESS.read_text()
    anchor = "  // Covers (the proof's second task"
    assert anchor in text
    (over / HARNESS.name).write_text(text.replace(
        anchor, "  always @(*) begin\n    assume (!bus_req_i);\n  end\n\n" + anchor))
    verdict = formal.run(formal.FormalSpec("mv_bus_loader", overlay=str(over)), tmp_path / "p")
    assert verdict.status == "vacuous", verdict.line()
    assert any(u.endswith("ReadReturnsData_C") for u in verdict.unreached), verdict.unreached


@pytest.mark.parametrize("argv, message", [
    (["--block", "nope"], "unknown block 'nope'"),
    (["--block", "mv_bus_loader", "--busw", "12"], "BusW=12"),
    (["--block", "mv_bus_loader", "--params", "Nope=1"], "has no parameter 'Nope'"),
    (["--block", "mv_bus_loader", "--params", "HasE"], "NAME=VALUE"),
    (["--block", "mv_bus_loader", "--depth", "300"], "depth 300: use 1 to 200"),
    (["--block", "mv_bus_loader", "--overlay", "/no/such/folder"], "no such overlay"),
    # a design's core (--dut, regress/tests/test_formal_core.py)
    (["--dut", "nope"], "unknown design 'nope'"),
    (["--dut", "mont_r2", "--n", "3"], "N=3"),
    (["--dut", "mont_r2", "--n", "17"], "N=17"),
    (["--dut", "mont_r2", "--busw", "8"], "--busw and --ack-wait"),
    (["--dut", "mont_pipe", "--mode", "prove"], "a streaming core is checked by BMC"),
    (["--dut", "mont_r2", "--n", "4", "--depth", "5"], "at least 7"),
    (["--dut", "mont_dual", "--n", "16"], "narrowest width only, N=80"),
    (["--dut", "mont_dual", "--n", "5", "--params", "K=2,Units=2"], "at least 6 = K + K*Units"),
    (["--dut", "mont_dual", "--n", "8", "--params", "K=1,Units=2"], "K*Units must be >= K + 2"),
    (["--dut", "rsa_core", "--n", "17"], "N=17"),
    (["--dut", "mwr2mm", "--n", "4", "--params", "W=8"], "W=8"),
    (["--block", "mont_r2"], "use --dut"),
    (["--block", "mv_bus_loader", "--fault"], "--fault is a design's"),
    # without --block or --dut: the loader
    (["--busw", "12"], "BusW=12"),
    (["--fault"], "--fault is a design's"),
])
def test_bad_input_is_one_error_line(argv: list[str], message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert formal_cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


def test_a_run_folder_is_never_shared(tmp_path: Path) -> None:
    """Two runs get two folders; a folder holding anything else is refused before SBY
    starts (host.claim.output), and nothing in it is touched."""
    spec = formal.FormalSpec("mv_bus_loader")
    a, b = formal.new_folder(spec.key), formal.new_folder(spec.key)
    try:
        assert a != b and a.parent == b.parent == formal.formal_root()
    finally:
        a.rmdir()
        b.rmdir()
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("mine")
    with pytest.raises(ConfigError, match="files montverif did not write"):
        formal.run(spec, tmp_path / "used")
    assert (tmp_path / "used" / "x").read_text() == "mine"


def test_the_sby_file_names_the_tasks_engine_and_parameters() -> None:
    spec = formal.FormalSpec("mv_bus_loader", (("N", 6), ("HasE", 1)), depth=5)
    text = formal.sby_text(spec, spec.sources())
    assert "proof: mode prove" in text and "proof: depth 5" in text and "cover: mode cover" in text
    assert "smtbmc boolector" in text
    assert "chparam -set N 6 -set BusW 8 -set AckWait 0 -set HasE 1 mv_bus_loader_formal" in text
    assert str(ROOT / "hdl" / "common" / "mv_assert.svh") in text


def test_a_failed_assertion_inside_a_generate_block_is_named_whole(tmp_path: Path) -> None:
    """SBY names an assertion below a generate block by an escaped identifier, which ends
    in a space (mont_pipe's digit stages): the verdict names it whole, without the escape."""
    (tmp_path / "formal_proof").mkdir()
    (tmp_path / "formal_proof" / "logfile.txt").write_text(
        "SBY 2:48:31 [formal_proof] summary: counterexample trace: "
        "formal_proof/engine_0/trace.vcd\n"
        "SBY 2:48:31 [formal_proof] summary:   failed assertion mont_pipe_formal.u_core."
        "\\g_stage[1].u_stage .PipeLowDigitZero_A at mont_pipe_stage.sv:169.82-169.145 "
        "step 4\n"
        "SBY 2:48:31 [formal_proof] DONE (FAIL, rc=2)\n")
    v = formal.parse(formal.FormalSpec("mont_pipe", mode="bmc", depth=10), tmp_path, 1.0)
    assert v.status == "failed" and v.depth == 4
    assert v.failed_assertion == "mont_pipe_formal.u_core.g_stage[1].u_stage.PipeLowDigitZero_A"
    assert v.location == "mont_pipe_stage.sv:169"


def _processes_in(folder: Path) -> list[int]:
    """Processes whose working directory lies in `folder` (SBY and its solvers)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(proc / "cwd").resolve().is_relative_to(folder):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.formal
def test_a_run_past_its_limit_is_ended_with_its_solvers(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A proof that runs past the flow's limit (here 2 s: mm42 at N = 5 takes minutes) ends
    as `unknown` with the limit in its message, and none of SBY's processes is left."""
    monkeypatch.setattr(formal, "LIMIT_MARGIN_S", 0)
    spec = next(s for s in formal.point_specs("mm42") if dict(s.params)["N"] == 5)
    spec = dataclasses.replace(spec, timeout_s=1)
    verdict = formal.run(spec, tmp_path / "run")
    assert verdict.status == "unknown"
    assert verdict.message == "SBY did not end within 2s"
    assert "ended" in (verdict.folder / "sby.log").read_text()
    assert _processes_in(verdict.folder.resolve()) == []
