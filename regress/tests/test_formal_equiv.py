"""A mutant against the original core with SBY (regress/formal/formal_equiv.py), and the
campaign step that uses it (regress/mutate/prove.py). Each check runs SBY for real."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.regress.formal import equiv_induction, formal_core, formal_equiv
from montverif.regress.mutate import engine, prove, state
from montverif.regress.mutate import sites as msites
from montverif.spec.designs import load_design

CORE = load_design("mont_r2").rtl[0]
RESET = "if (!rst_ni) begin\n      {x_q, acc_q} <= '0;"  # reloaded by every START


def _overlay(tmp_path: Path, old: str, new: str) -> Path:
    text = CORE.read_text()
    assert text.count(old) == 1, old
    folder = tmp_path / "mutant"
    folder.mkdir()
    (folder / CORE.name).write_text(text.replace(old, new))
    return folder


def _labels_of(harness: Path, register: str) -> set[str]:
    """The candidate assertions of one register in a harness file."""
    text = harness.read_text()
    index = next(line.split("gold_r")[1].split(",")[0] for line in text.splitlines()
                 if line.rstrip().endswith(f"// {register}"))
    return {w.rstrip(":") for w in text.split() if w.startswith(f"Eq{index}_")}


@pytest.mark.nightly(seconds=10)
@pytest.mark.formal
def test_a_reset_value_that_start_reloads_is_proved_equivalent(tmp_path: Path) -> None:
    """{x_q, acc_q} = '1 at reset: equal in both copies only once START loads them. The
    short bounded check drops the candidate 'always equal' of both registers, keeps 'equal
    after the first START', and induction with those closes at the short depth: equivalent
    for all time, without the long bounded check."""
    over = _overlay(tmp_path, RESET, RESET.replace("<= '0;", "<= '1;"))
    v = formal_equiv.run(formal_equiv.EquivSpec("mont_r2", str(over), 4), tmp_path / "eq")
    assert v.status == "equivalent", (v.message, v.folder)
    assert v.unbounded and v.equalities > 0, v.message
    proof = formal_core.prepare(load_design("mont_r2"), 4, {})
    assert v.depth == formal_equiv.SHORT_DEPTH < formal_equiv.default_depth(proof)
    assert not (tmp_path / "eq" / "equiv.sby").exists()  # no long bounded check
    eq = tmp_path / "eq"
    first, closing = eq / "short_mv_equiv.sv", eq / "short_induct1_mv_equiv.sv"
    for reg in ("u_core.acc_q", "u_core.x_q"):
        index = _labels_of(first, reg)
        assert len(index) == 1 + 2 * equiv_induction.SEEN
        always = next(lab for lab in index if "_S" not in lab and "_T" not in lab)
        assert always not in _labels_of(closing, reg)  # it failed from reset: dropped
        assert _labels_of(closing, reg) == index - {always}
    assert "u_core.u_ctrl.state_q" in closing.read_text()
    assert not (eq / "short_induct2.sby").exists()  # closed at the first run
    text = (eq / "short.sby").read_text()
    assert f"depth {formal_equiv.SHORT_DEPTH}" in text
    # both copies, the observed registers as outputs, the copies' own assertions removed
    assert "gate/mont_r2.sv" in text and "gold/mont_r2.sv" in text
    assert "expose w:u_core.u_ctrl.u_observe.lut_hits_q" in text
    assert " mv_miter/w:gold.u_core.acc_q mv_miter/w:gate.u_core.acc_q" in text
    assert "chformal -assert -cover -remove" in text and "--keep-going" in text
    saved = json.loads((tmp_path / "eq" / "equiv.json").read_text())
    assert (saved["status"], saved["unbounded"]) == ("equivalent", True)


@pytest.mark.nightly(seconds=10)
@pytest.mark.formal
def test_a_reset_mutant_is_proved_at_n6_where_a_bounded_check_alone_took_minutes(
        tmp_path: Path) -> None:
    """The same mutant at mont_r2's second formal point: the plain bounded check ran past
    300 s here without a verdict; with the equalities it ends in seconds, for all time."""
    over = _overlay(tmp_path, RESET, RESET.replace("<= '0;", "<= '1;"))
    v = formal_equiv.run(formal_equiv.EquivSpec("mont_r2", str(over), 6, timeout_s=240),
                         tmp_path / "eq")
    assert (v.status, v.unbounded) == ("equivalent", True), (v.message, v.folder)


@pytest.mark.formal
@pytest.mark.nightly(seconds=60)
def test_registers_in_generate_blocks_close_the_induction(tmp_path: Path) -> None:
    """mwr2mm's PE state lives in g_pe[i]: with those registers' equalities (their names
    escaped for yosys) induction closes; without them it ran out of 120 s."""
    design = load_design("mwr2mm")
    sites = msites.all_sites(design)
    site = next(s for s in sites if s.description == "mwr2mm_pe.sv:99: 'W-1:' -> 'W-0:'")
    rtl = next(p for p in design.core_sources if p.name == "mwr2mm_pe.sv")
    folder = tmp_path / "mutant"
    folder.mkdir()
    (folder / rtl.name).write_text(site.apply(rtl.read_text()))
    v = formal_equiv.run(formal_equiv.EquivSpec("mwr2mm", str(folder), 4, (("W", 2),),
                                                timeout_s=300), tmp_path / "eq")
    assert (v.status, v.unbounded) == ("equivalent", True), (v.message, v.folder)
    assert "g_pe\\[0\\].u_pe" in (tmp_path / "eq" / "short.sby").read_text()


def test_without_induction_the_harness_has_no_candidates(tmp_path: Path) -> None:
    proof = formal_core.prepare(load_design("mont_r2"), 4, {})
    plain = formal_equiv.harness(proof)
    regs = [equiv_induction.Register("u_core.acc_q", 5)]
    cands = equiv_induction.Candidates(regs, {"Eq0_S2_A"})
    full = formal_equiv.harness(proof, cands)
    assert "Eq0" not in plain and "seen_q" not in plain and "MutantEquivalent_A" in plain
    assert ".\\gold.u_core.acc_q (gold_r0)" in full and "logic [4:0] gold_r0, gate_r0;" in full
    assert {w.rstrip(":") for w in full.split() if w.startswith(("Eq0", "Busy"))} == set(
        cands.labels()) - {"Eq0_S2_A"}


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
    # found by the short check (an operation at N = 4 takes 5 cycles): SBY's whole summary
    whole = (tmp_path / "eq" / "short" / "FAIL").read_text()
    assert "failed assertion mv_equiv.MutantEquivalent_A" in whole


@pytest.mark.nightly(seconds=20)
@pytest.mark.formal
def test_a_difference_beyond_the_short_depth_is_found_by_the_long_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a short depth of 3 cycles the q_i mutant's difference (at the end of an
    operation) lies beyond the short check and breaks its induction step: the flow goes on
    to the long bounded check, which finds it."""
    monkeypatch.setattr(formal_equiv, "SHORT_DEPTH", 3)
    over = _overlay(tmp_path, "assign q_i       = t3[0];", "assign q_i       = t3[1];")
    v = formal_equiv.run(formal_equiv.EquivSpec("mont_r2", str(over), 4), tmp_path / "eq")
    assert v.status == "different" and v.vector is not None, (v.message, v.folder)
    eq = tmp_path / "eq"
    assert (eq / "short" / "PASS").is_file() and (eq / "short_induct1.sby").is_file()
    assert "failed assertion mv_equiv.MutantEquivalent_A" in (eq / "equiv" / "FAIL").read_text()


@pytest.mark.formal
def test_a_mutant_that_refuses_a_legal_point_is_told_apart(tmp_path: Path) -> None:
    """mwr2mm's legality check `W < 2` made `W <= 2`: the same design wherever W > 2, but at
    the formal point W = 2 the mutant's copy builds its $fatal block and does not elaborate,
    while the original does: different (no trace), not 'no verdict'."""
    rtl = next(p for p in load_design("mwr2mm").core_sources if p.name == "mwr2mm.sv")
    text = rtl.read_text()
    assert text.count("if (W < 2) begin : g_bad_w") == 1
    folder = tmp_path / "mutant"
    folder.mkdir()
    (folder / rtl.name).write_text(text.replace("if (W < 2) begin", "if (W <= 2) begin"))
    v = formal_equiv.run(formal_equiv.EquivSpec("mwr2mm", str(folder), 4, (("W", 2),),
                                                timeout_s=120), tmp_path / "eq")
    assert (v.status, v.refused, v.trace) == ("different", True, None), (v.message, v.folder)
    assert "does not elaborate" in v.message and "mwr2mm.sv:" in v.message
    r = prove.prove("mwr2mm", load_design("mwr2mm"), folder, tmp_path / "pr", 120)
    assert r.status == prove.DIFFERENT and "does not elaborate" in r.text, r.text


def test_only_the_mutants_own_elaboration_error_counts(tmp_path: Path) -> None:
    log = tmp_path / "logfile.txt"
    log.write_text("SBY [equiv] base: gate/m.sv:39: ERROR:Can't resolve task name `$fatal'.\n")
    assert formal_equiv.gate_refused(log) == "m.sv:39: Can't resolve task name `$fatal'."
    log.write_text(log.read_text() + "SBY [equiv] base: gold/m.sv:39: ERROR:x\n")
    assert formal_equiv.gate_refused(log) == ""  # the original fails too: no verdict
    assert formal_equiv.gate_refused(tmp_path / "missing.txt") == ""


def test_a_verdict_never_rests_on_a_cut_summary(tmp_path: Path) -> None:
    """SBY's log lists a few failed assertions per trace ("and 2 further assertions"); the
    check may be among the rest. The file named by the status word has them all."""
    logged = ["counterexample trace: equiv/engine_0/trace0.vcd",
              "  failed assertion mv_equiv.Eq1_A at mv_equiv.sv:78.17-78.51 step 4",
              "  and 2 further assertions"]
    assert equiv_induction.summary(tmp_path, "FAIL", logged) is None
    (tmp_path / "FAIL").write_text("\n".join([
        "counterexample trace: engine_0/trace0.vcd", "counterexample trace: engine_0/trace0.yw",
        "  failed assertion mv_equiv.Eq1_A at mv_equiv.sv:78.17-78.51 step 4",
        "  failed assertion mv_equiv.MutantEquivalent_A at mv_equiv.sv:71.17-71.54 step 4",
        "counterexample trace: engine_0/trace1.vcd",
        "  failed assertion mv_equiv.Eq4_S1_A at mv_equiv.sv:95.17-95.68 step 6"]))
    whole = equiv_induction.summary(tmp_path, "FAIL", logged)
    assert whole is not None
    assert equiv_induction.failures(whole) == [
        ("Eq1_A", "engine_0/trace0.vcd"), ("MutantEquivalent_A", "engine_0/trace0.vcd"),
        ("Eq4_S1_A", "engine_0/trace1.vcd")]
    assert equiv_induction.summary(tmp_path, "PASS", logged[:2]) == logged[:2]


def test_each_register_has_a_family_after_start_and_one_after_start_or_clear() -> None:
    """A register only START reloads is equal from START on, and a CLEAR before the first
    START breaks the START-or-CLEAR family: so each register has both families, each
    candidate reading its own flag, and a dropped one leaves the others standing."""
    reg = equiv_induction.Register("u_core.s_q", 4)
    cands = equiv_induction.Candidates([reg])
    proof = formal_core.prepare(load_design("mont_r2"), 4, {})
    text = formal_equiv.harness(proof, cands)
    k = equiv_induction.SEEN
    for j in range(k):
        assert f"Eq0_S{j}_A: assert (!seen_q[{j}] || gold_r0 == gate_r0);" in text
        assert f"Eq0_T{j}_A: assert (!started_q[{j}] || gold_r0 == gate_r0);" in text
    assert len(cands.kept()) == 1 + 1 + 2 * k  # the busy one, always, the two families
    assert "started_q <= {started_q[2:0], started_q[0] | start};" in text
    assert "seen_q <= {seen_q[2:0], seen_q[0] | start | clear};" in text
    cands.dropped |= {"Eq0_S0_A", "Eq0_T1_A"}
    text = formal_equiv.harness(proof, cands)
    assert "Eq0_S0_A" not in text and "Eq0_T1_A" not in text and "Eq0_T0_A" in text


def test_registers_pair_the_copies_by_name_and_width() -> None:
    """From a miter's netlist: a flip-flop named by a public wire in both copies with one
    width is a register (one in a generate block too, its brackets escaped where yosys
    would read them as a pattern); a hidden name, a width that differs, a name with a
    backslash or one copy only is not."""
    def ff(q: list[int]) -> dict[str, object]:
        return {"type": "$adff", "connections": {"Q": q}}

    nets = {"gold.u_core.acc_q": [1, 2], "gate.u_core.acc_q": [3, 4],
            "gold.u_core.acc_q_alias_longer": [1, 2], "gold.x_q": [5], "gate.x_q": [6, 7],
            "gold.g[1].r_q": [8], "gate.g[1].r_q": [9], "gold.only_q": [10],
            "$auto$hidden": [11], "gold.a\\b": [12], "gate.a\\b": [13]}
    cells = {f"c{i}": ff(bits) for i, bits in enumerate(
        [[1, 2], [3, 4], [5], [6, 7], [8], [9], [10], [11], [12], [13]])}
    netlist = {"modules": {"mv_miter": {"netnames": {
        n: {"bits": b, "hide_name": int(n.startswith("$"))} for n, b in nets.items()},
        "cells": cells}}}
    regs = equiv_induction.registers(netlist)
    assert regs == [equiv_induction.Register("g[1].r_q", 1),
                    equiv_induction.Register("u_core.acc_q", 2)]
    assert equiv_induction.expose_line(regs) == [
        "expose mv_miter/w:gold.g\\[1\\].r_q mv_miter/w:gate.g\\[1\\].r_q "
        "mv_miter/w:gold.u_core.acc_q mv_miter/w:gate.u_core.acc_q"]


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


@pytest.mark.nightly(seconds=25)
@pytest.mark.formal
@pytest.mark.sim
def test_a_campaign_with_prove_marks_each_equivalent_proved_or_a_hole(tmp_path: Path) -> None:
    """mont_r2's FaultSel compare inverted is dead logic with FaultEn = 0: simulation calls
    it equivalent and SBY proves it; with prove off it stays simulated."""
    design = load_design("mont_r2")
    sites = msites.all_sites(design)
    i = next(i for i, s in enumerate(sites) if "'sel_addr == SelAddrW'(FaultSel)' -> "
             "'sel_addr != SelAddrW'(FaultSel)'" in s.description)
    opts = state.CampaignOptions(n=8, txns=5, timeout_s=300, sim="icarus", eq_bits=2, eq_wide=4,
                          use_proofs=False, prove=True)
    camp = engine.run_campaign("mont_r2", design, [msites.Mutant(i, sites[i])], len(sites),
                               opts, tmp_path, lambda _line: None)
    (m,) = camp.mutants
    assert m.status == "equivalent" and m.proof == prove.PROVED, m.reason
    assert "proved equivalent by SBY" in m.reason and "N=4" in m.reason
