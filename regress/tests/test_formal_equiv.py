"""A mutant against the original core with SBY (regress/flow/formal_equiv.py), and the
campaign step that uses it (regress/mutate/prove.py). Each check runs SBY for real."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from montverif.regress.flow import formal_core, formal_equiv
from montverif.regress.mutate import engine, prove
from montverif.regress.mutate import sites as msites
from montverif.spec.designs import load_design
from montverif.spec.errors import ConfigError

CORE = load_design("mont_r2").rtl[0]
RESET = "if (!rst_ni) begin\n      {x_q, acc_q} <= '0;"  # reloaded by every START


def _overlay(tmp_path: Path, old: str, new: str) -> Path:
    text = CORE.read_text()
    assert text.count(old) == 1, old
    folder = tmp_path / "mutant"
    folder.mkdir()
    (folder / CORE.name).write_text(text.replace(old, new))
    return folder


@pytest.mark.formal
def test_a_reset_value_that_start_reloads_is_proved_equivalent(tmp_path: Path) -> None:
    over = _overlay(tmp_path, RESET, RESET.replace("<= '0;", "<= '1;"))
    v = formal_equiv.run(formal_equiv.EquivSpec("mont_r2", str(over), 4), tmp_path / "eq")
    assert v.status == "equivalent", (v.message, v.folder)
    proof = formal_core.prepare(load_design("mont_r2"), 4, {})
    assert v.depth == formal_equiv.default_depth(proof) > 2 * (proof.cycles + 1)
    text = (tmp_path / "eq" / "equiv.sby").read_text()
    # both copies, the observed registers as outputs, the copies' own assertions removed
    assert "gate/mont_r2.sv" in text and "gold/mont_r2.sv" in text
    assert "expose w:u_core.u_ctrl.u_observe.lut_hits_q" in text
    assert "chformal -assert -cover -remove" in text
    assert json.loads((tmp_path / "eq" / "equiv.json").read_text())["status"] == "equivalent"


@pytest.mark.formal
def test_a_mutant_that_differs_yields_its_distinguishing_input(tmp_path: Path) -> None:
    """q_i taken from bit 1 of T instead of bit 0 (mut0006 of mont_r2's campaign): the
    check finds operands within the loader's range rule on which the two differ."""
    over = _overlay(tmp_path, "assign q_i       = t3[0];", "assign q_i       = t3[1];")
    v = formal_equiv.run(formal_equiv.EquivSpec("mont_r2", str(over), 4), tmp_path / "eq")
    assert v.status == "different" and v.vector is not None, (v.message, v.folder)
    (vec,) = json.loads(v.vector.read_text())["vectors"]
    x, y, m = (int(vec[k], 16) for k in ("x", "y", "m"))
    assert m % 2 == 1 and x < 16 and y < 16  # mont_r2's domain: any 4-bit X and Y
    assert v.trace is not None and v.trace.is_file()


def test_start_operands_reads_the_last_start_of_a_trace(tmp_path: Path) -> None:
    trace = tmp_path / "t.vcd"
    trace.write_text("\n".join([
        "$scope module mv_equiv $end",
        "$var wire 1 ! start $end", "$var wire 4 \" x $end", "$var wire 4 # y $end",
        "$var wire 4 $ m $end", "$var wire 1 % clk_i $end",
        "$upscope $end", "$enddefinitions $end",
        "#0", "0!", "b0001 \"", "b0010 #", "b1001 $",
        "#10", "1!", "#20", "0!", "b0011 \"", "#30", "1!", "b0101 #", "#40", "0!", ""]))
    proof = formal_core.prepare(load_design("mont_r2"), 4, {})
    assert formal_equiv.start_operands(proof, trace) == {"x": 3, "y": 5, "m": 9}
    trace.write_text(trace.read_text().replace("1!", "0!"))
    assert formal_equiv.start_operands(proof, trace) is None


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such overlay folder"):
        formal_equiv.prepare(formal_equiv.EquivSpec("mont_r2", str(tmp_path / "none"), 4))
    with pytest.raises(ConfigError, match="narrowest width only"):
        formal_equiv.prepare(formal_equiv.EquivSpec("mont_dual", str(tmp_path), 4))
    with pytest.raises(ConfigError, match="depth 3"):
        formal_equiv.prepare(formal_equiv.EquivSpec("mont_r2", str(tmp_path), 4, depth=3))
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("")
    with pytest.raises(ConfigError, match="not empty"):
        formal_equiv.run(formal_equiv.EquivSpec("mont_r2", str(tmp_path), 4), tmp_path / "busy")
    # a design without [formal] points (mont_dual's, taken away: at its defaults, N = 80,
    # no proof finishes)
    design = dataclasses.replace(load_design("mont_dual"), formal_points=())
    result = prove.prove("mont_dual", design, tmp_path, tmp_path / "p")
    assert result.status == prove.NOT_PROVED and "names no [formal] points" in result.text


@pytest.mark.formal
@pytest.mark.sim
def test_a_campaign_with_prove_marks_each_equivalent_proved_or_a_hole(tmp_path: Path) -> None:
    """mont_r2's FaultSel compare inverted is dead logic with FaultEn = 0: simulation calls
    it equivalent and SBY proves it; with prove off it stays simulated."""
    design = load_design("mont_r2")
    sites = msites.all_sites(design)
    i = next(i for i, s in enumerate(sites) if "'sel_addr == SelAddrW'(FaultSel)' -> "
             "'sel_addr != SelAddrW'(FaultSel)'" in s.description)
    opts = engine.Options(n=8, txns=5, timeout_s=300, sim="icarus", eq_bits=2, eq_wide=4,
                          use_proofs=False, prove=True)
    camp = engine.run_campaign("mont_r2", design, [msites.Mutant(i, sites[i])], len(sites),
                               opts, tmp_path, lambda _line: None)
    (m,) = camp.mutants
    assert m.status == "equivalent" and m.proof == prove.PROVED, m.reason
    assert "proved equivalent by SBY" in m.reason and "N=4" in m.reason
