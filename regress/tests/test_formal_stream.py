"""`montverif formal --dut` of a streaming core ([stream]; regress/formal/formal_stream.py):
mont_pipe against its function, its latency, its tag and its valid/ready handshake for every
input, one operation from reset. The formal tests run SBY for real, 3-5 s a check."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from montverif.regress.cli import formal as formal_cli
from montverif.regress.formal import formal, formal_stream
from montverif.regress.tests.testshard import standins
from montverif.spec.design import Design
from montverif.spec.designs import load_design

PIPE = load_design("mont_pipe")
RTL = {p.name: p for p in PIPE.rtl}

# one more register after the output stage: every value right, the latency one clock longer
OUT_REGS = """  assign out_valid_o = out_valid_q;
  assign tag_o       = out_tag_q;
  assign p_o         = p_q;"""
EXTRA_STAGE = """  logic            out_valid_q2;
  logic [TagW-1:0] out_tag_q2;
  logic [N-1:0]    p_q2;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q2 <= 1'b0;
      out_tag_q2   <= '0;
      p_q2         <= '0;
    end else if (advance) begin
      out_valid_q2 <= out_valid_q;
      out_tag_q2   <= out_tag_q;
      p_q2         <= p_q;
    end
  end
  assign out_valid_o = out_valid_q2;
  assign tag_o       = out_tag_q2;
  assign p_o         = p_q2;"""

# (file, the good text, the broken text, the assertions that may fail first)
BROKEN = {
    "extra-stage": ("mont_pipe.sv", OUT_REGS, EXTRA_STAGE, {"CoreLatency_A"}),
    # T = S + C < 2M is left unreduced: no assertion of the core says P < M
    "no-final-sub": ("mont_pipe_final.sv",
                     "assign p_o   = diff[Wd-1] ? sum[N-1:0] : diff[N-1:0];",
                     "assign p_o   = sum[N-1:0];", {"CoreResult_A"}),
    # back-pressure ignored: a result not taken is overwritten by the bubble behind it
    "no-hold": ("mont_pipe.sv", "assign advance    = !out_valid_o || out_ready_i;",
                "assign advance    = 1'b1;", {"CoreHeld_A", "PipeOutStable_A"}),
    "tag-lost": ("mont_pipe.sv", "in_tag_q <= tag_i;", "in_tag_q <= '0;", {"CoreTag_A"}),
}


def test_the_harness_drives_the_core_by_its_stream_ports() -> None:
    proof = formal.prepare(PIPE, 4, {"K": 2})
    assert isinstance(proof, formal_stream.StreamProof)
    # taken in cycle 1, out ceil(4/2) + 2 = 4 clocks later, held up to 2: taken by cycle 7
    assert (proof.cycles, proof.result_cycle, proof.depth) == (4, 5, 10)
    text = formal.harness(proof)
    for port, sig in [("in_valid_i", "in_valid"), ("in_ready_o", "in_ready"), ("x_i", "x"),
                      ("y_i", "y"), ("m_i", "m"), ("out_valid_o", "out_valid"),
                      ("out_ready_i", "out_ready"), ("p_o", "p"), ("tag_i", "tag"),
                      ("tag_o", "tag_out")]:
        assert f".{port}({sig})" in text
    assert "localparam int Latency = 4;" in text and "localparam int TagW = 8;" in text
    assert "(* anyconst *) logic [TagW-1:0] tag;" in text
    # the operand domain: Y below M, X any N-bit value, M odd
    assert "assume (y < m);" in text and "assume (x < m);" not in text
    assert "assume (m[0]);" in text
    for name in ("CoreTaken_A", "CoreEarly_A", "CoreLatency_A", "CoreHeld_A", "CoreOnce_A",
                 "CoreResult_A", "CoreTag_A", "CoreDone_C", "CoreHeld_C"):
        assert f"{name}:" in text
    fault = formal.prepare(PIPE, 4, {"K": 2}, fault=True)
    assert ".FaultEn(FaultEn)" in formal.harness(fault) and fault.params["FaultStage"] == 1


def test_an_untagged_core_is_checked_without_a_tag() -> None:
    assert PIPE.stream is not None
    plain = dataclasses.replace(PIPE, stream=dataclasses.replace(
        PIPE.stream, tag_in="", tag_out="", tag_width="", order="in_order"))
    text = formal.harness(formal.prepare(plain, 4, {"K": 2}))
    assert "CoreTag_A" not in text and ".tag_i(" not in text and " tag;" not in text


@pytest.mark.nightly(seconds=20)
@pytest.mark.formal
def test_the_streaming_core_holds_at_its_points(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = formal_cli.main(["--points", "--dut", "mont_pipe", "--out", str(tmp_path / "p")])
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0, lines
    assert len(lines) == len(PIPE.formal_points) + 1 >= 3
    for line in lines[:-1]:
        assert line.startswith("BOUNDED mont_pipe N="), line
        assert "and the latency, the tag and the handshake hold for every input" in line
        assert "2/2 covers reached" in line
    record = json.loads((tmp_path / "p" / "summary.json").read_text())
    assert record["passed"] == record["total"] == len(PIPE.formal_points)
    first = record["verdicts"][0]
    assert (first["relation"], first["result_cycle"], first["depth"]) == \
        ("P = X*Y*2^-4 mod M", 5, 10)


@pytest.mark.formal
def test_the_fault_build_fails_with_a_counterexample(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = formal_cli.main(["--dut", "mont_pipe", "--fault", "--out", str(tmp_path / "p")])
    line = capsys.readouterr().out.strip()
    # the fault build must fail: exit 0 when it does (digit stage 1's quotient digit is
    # wrong, so its division by 2^K is not exact: the stage's own assertion sees it first)
    assert code == 0 and line.startswith("FAILED mont_pipe N=4 K=2"), line
    assert "g_stage[1].u_stage.PipeLowDigitZero_A" in line and "replay" not in line
    assert (tmp_path / "p" / "formal_proof" / "engine_0" / "trace.vcd").is_file()
    ops = json.loads((tmp_path / "p" / "counterexample.json").read_text())["vectors"][0]
    x, y, m = (int(ops[k], 16) for k in ("x", "y", "m"))
    assert m % 2 == 1 and y < m and x < 16


def _broken(tmp_path: Path, file: str, good: str, bad: str) -> Path:
    over = tmp_path / "over"
    over.mkdir()
    text = RTL[file].read_text()
    assert text.count(good) == 1, file
    (over / file).write_text(text.replace(good, bad))
    return over


def _run(tmp_path: Path, overlay: Path | None = None) -> formal.Verdict:
    spec = formal.FormalSpec("mont_pipe", (("N", 4), ("K", 2)), mode="bmc",
                             overlay=str(overlay) if overlay else "")
    depth = spec.core_proof().depth
    return formal.run(dataclasses.replace(spec, depth=depth, cover_depth=depth),
                      tmp_path / "p")


@pytest.mark.formal
@pytest.mark.parametrize("broken", standins(list(BROKEN), ("no-final-sub",), seconds=8))
def test_a_broken_core_fails(tmp_path: Path, broken: str) -> None:
    file, good, bad, names = BROKEN[broken]
    verdict = _run(tmp_path, _broken(tmp_path, file, good, bad))
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.rsplit(".", 1)[-1] in names, verdict.line()
    assert verdict.trace is not None and verdict.trace.is_file()


@pytest.mark.formal
def test_a_descriptor_latency_one_off_fails(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The descriptor says one clock more than the core takes: its result comes early."""
    assert PIPE.stream is not None
    off = dataclasses.replace(PIPE, stream=dataclasses.replace(
        PIPE.stream, latency=PIPE.stream.latency + " + 1"))

    def load(name: str) -> Design:
        return off if name == "mont_pipe" else load_design(name)

    monkeypatch.setattr(formal, "load_design", load)
    verdict = _run(tmp_path)
    assert verdict.status == "failed", verdict.line()
    assert verdict.failed_assertion.endswith(".CoreEarly_A"), verdict.line()
