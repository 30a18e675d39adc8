"""The streaming harness against broken copies of mont_pipe (an overlay of its RTL, as the
mutation campaigns build them), on Icarus, which has no assertions of the core's to lean on:
a core that ignores back-pressure, one that never offers a result, one that takes a new
operation only every other clock. The harness itself must fail each, naming the test and
the operation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montverif.host.paths import HDL
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.tests.testshard import standins
from montverif.spec.stream_top import DEPTH

pytestmark = pytest.mark.sim
CORE = HDL / "pipe" / "mont_pipe.sv"


def broken(tmp_path: Path, old: str, new: str) -> Path:
    text = CORE.read_text()
    assert text.count(old) == 1, old
    over = tmp_path / "mut"
    over.mkdir()
    (over / CORE.name).write_text(text.replace(old, new))
    return over


def run(tmp_path: Path, overlay: Path | None, test: str) -> tuple[bool, str, Path]:
    build = BuildSpec("mont_pipe", 16, sim="icarus", overlay=str(overlay or ""))
    out = execute(RunSpec(build, seed=3, txns=120, tests=(test,), timeout_s=600),
                  tmp_path / "run")
    return out.passed, out.first_error, tmp_path / "run"


def test_the_intact_core_passes_every_traffic(tmp_path: Path) -> None:
    for test in ("StreamFullRateTest", "StreamBackPressureTest"):
        passed, first, _ = run(tmp_path / test, None, test)
        assert passed, first


@pytest.mark.parametrize(("old", "new", "test", "needle"), [
    # results overwritten while the sink holds them back: wrong or missing results
    ("assign advance    = !out_valid_o || out_ready_i;", "assign advance    = 1'b1;",
     "StreamBackPressureTest", "StreamBackPressureTest op "),
    # no result ever: a hang, naming the first operation without one
    ("assign out_valid_o = out_valid_q;", "assign out_valid_o = 1'b0;",
     "StreamFullRateTest", "StreamFullRateTest op 0: hang: no result came"),
    # an operation only every other clock at full rate: the interval (or what it breaks)
    ("assign in_ready_o = advance;", "assign in_ready_o = advance && !in_valid_q;",
     "StreamFullRateTest", "StreamFullRateTest op "),
])
def test_a_broken_core_fails_the_harness(tmp_path: Path, old: str, new: str, test: str,
                                         needle: str) -> None:
    passed, first, folder = run(tmp_path, broken(tmp_path, old, new), test)
    assert not passed and needle in first, first
    logged = [json.loads(line) for line in (folder / "txns.jsonl").read_text().splitlines()]
    assert logged and all(entry["test"] == test for entry in logged)


@pytest.mark.parametrize("fault", standins([False, True], [True], seconds=8))
def test_checks_on_a_thread_log_what_inline_checks_log(tmp_path: Path, fault: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Three batches on Verilator, the checks inline and then on a worker thread while the
    simulator runs the next batch: the same verdict and the same txns.jsonl; where the core
    returns one wrong P in the first batch (the result of the operation tagged 5), the run
    stops after the batch that follows it."""
    overlay = broken(tmp_path, "assign p_o         = p_q;",
                     "assign p_o         = p_q ^ N'(out_tag_q == 8'd5);") if fault else None
    logs = {}
    for thread in ("0", "1"):
        monkeypatch.setenv("MV_CHECK_THREAD", thread)
        build = BuildSpec("mont_pipe", 16, sim="verilator", overlay=str(overlay or ""))
        folder = tmp_path / thread
        out = execute(RunSpec(build, seed=5, txns=2 * DEPTH + 100,
                              tests=("StreamRandomTest",), timeout_s=600), folder)
        assert out.passed != fault, out.first_error
        assert not fault or "StreamRandomTest op 5: P = " in out.first_error
        logs[thread] = (folder / "txns.jsonl").read_text()
        probe = json.loads((folder / "throughput.json").read_text())
        assert probe["check_thread"] == (thread == "1")
    assert logs["0"] == logs["1"]
    assert len(logs["1"].splitlines()) == (2 * DEPTH if fault else 2 * DEPTH + 100)
