"""Constant time beyond cycles (hdl/rsa/rsa_core.sv header, docs/rsa.md): in constant-time
mode no register of the RSA core's loop is written, or switches, according to the exponent's
bits. Measured on the waves of a real simulation: the core runs three exponents of the same
bit length and very different Hamming weight (1, 2 and 64 one bits of 64) on the same modulus
and message, and for each register of the core and each operation the dump gives

- writes: the clock edges at which the register took a new value (a write of the value it
  already holds is invisible in a dump; the loop's datapath registers take a fresh residue at
  each write, so an unchanged value would be a coincidence of about 2^-64), and
- toggles: the bits it flipped over the operation (the sum of the Hamming distances of
  successive values).

The same comparison fails, clearly, on the variable-time core (ConstTime = 0, Algorithm 4
literally: A is written only for a one bit) and on a constant-time core whose decoy write is
inhibited (the register that held A keeps it: the old datapath's enable), so the test can fail.

And in the netlist (Yosys, after `proc; opt_dff`, the pass that turns a hold into a clock
enable): no loop register's enable has the exponent in its cone, and neither accumulator
register's next value comes from itself (a hold is what a synthesizer may turn into an
enable); the variable-time core's A register holds itself through the exponent bit.
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import gmpy2
import pytest
import pywellen

from montverif.host import paths
from montverif.host.paths import STAGED, stage
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.synth import synth
from montverif.spec.designs import load_design
from montverif.verif.tests.test_designs_sim import txns

ROOT = Path(__file__).resolve().parents[2]
CORE_SV = ROOT / "hdl" / "rsa" / "rsa_core.sv"

N = 64
MOD = 0xC3A5_9E1D_7B24_F0B7  # odd, 64 bits
MSG = 0x1234_5678_9ABC_DEF1
EXPONENTS = {"100..000": 1 << 63, "100..001": (1 << 63) | 1, "111..111": (1 << N) - 1}

# The registers of the loop: the accumulator pair and S take an N-bit residue at every step
# (toggles compared within TOLERANCE); the control registers' values do not depend on the data
# (compared exactly). e_q holds the exponent itself, so its toggles are the exponent's: it is
# reported, not compared (its writes, one shift per step, are).
DATAPATH = ("a0_q", "a1_q", "s_q")
CONTROL = ("cnt_q", "phase_q", "state_q", "ran_a_q", "ran_s_q")
# Each write of a fresh residue flips about N/2 bits, with a standard deviation of sqrt(N)/2 (4
# bits at N = 64). Over the ~N writes of one operation a register flips ~N^2/2 = 2048 bits with
# a standard deviation of ~N/2 = 32 (1.6 %), so the totals of two exponents differ by ~2.3 %
# (one sigma): 15 % is more than 6 sigma, and a register whose writes follow the weight misses
# it by a factor of ten or more (4 writes against 66 here). The inputs are fixed, so the test
# is deterministic; the margin is for other moduli and messages.
TOLERANCE = 0.15


@dataclass(frozen=True)
class Activity:
    writes: int  # clock edges at which the register took a new value
    toggles: int  # bits flipped over the operation


def activity(waves: Path) -> dict[str, list[Activity]]:
    """Per register of the core (every `*_q` signal of u_core, multipliers' prefixed with
    their instance), per operation: from the edge at which the core leaves IDLE to the next
    such edge (the wipe at the end included)."""
    wave = pywellen.Waveform(str(waves))
    core = next(v.full_name for v in wave.all_vars()
                if v.full_name.endswith(".u_core.state_q")).removesuffix("state_q")
    regs = {v.full_name.removeprefix(core): v for v in wave.all_vars()
            if v.full_name.startswith(core) and v.full_name.endswith("_q")}
    by_signal: dict[str, dict[int, object]] = defaultdict(dict)  # last value per time step
    wave.stream_changes(lambda t, sid, value: by_signal[str(sid)].__setitem__(t, value),
                        list(regs.values()))
    changes = {name: sorted(by_signal[str(var.signal_id)].items()) for name, var in regs.items()}
    state = changes["state_q"]
    starts = [t for (_, old), (t, new) in zip(state, state[1:], strict=False)
              if old == 0 and new != 0]
    ends = starts[1:] + [max(t for ch in changes.values() for t, _ in ch) + 1]
    out: dict[str, list[Activity]] = {}
    for name, ch in changes.items():
        out[name] = []
        for start, end in zip(starts, ends, strict=True):
            before = [v for t, v in ch if t < start]
            prev = before[-1] if before else None
            writes = toggles = 0
            for t, value in ch:
                if start <= t < end:
                    assert isinstance(value, int) and isinstance(prev, int), (name, t, value)
                    if value != prev:
                        writes += 1
                        toggles += bin(value ^ prev).count("1")
                    prev = value
            out[name].append(Activity(writes, toggles))
    return out


def run_exponents(tmp_path: Path, params: tuple[tuple[str, int], ...],
                  overlay: Path | None = None) -> dict[str, list[Activity]]:
    """The three exponents on Icarus with waves; every result checked (the scoreboard against
    gmpy2 and the model, and here once more against gmpy2)."""
    vectors = tmp_path / "vectors.json"
    vectors.write_text(json.dumps({"vectors": [
        {"msg": hex(MSG), "exp": hex(e), "mod": hex(MOD)} for e in EXPONENTS.values()]}))
    run = RunSpec(BuildSpec("rsa_core", N, 32, "icarus", waves=True, params=params,
                            overlay=str(overlay) if overlay else ""),
                  seed=1, vectors=str(vectors), tests=("VectorTest",), timeout_s=600,
                  keep_secrets=True)  # waves of the exponents (test values, no key)
    outcome = execute(run, tmp_path / run.key)
    assert outcome.passed, outcome.first_error
    assert [int(r["p"], 16) for r in txns(outcome)] == [
        int(gmpy2.powmod(MSG, e, MOD)) for e in EXPONENTS.values()]
    assert outcome.waves is not None
    act = activity(outcome.waves)
    assert all(len(ops) == len(EXPONENTS) for ops in act.values()), "one window per operation"
    print(table(act, ", ".join(f"{k}={v}" for k, v in params) + (" (overlay)" if overlay else "")))
    return act


# With one multiplier (Units = 1, the core's g_one): t_q holds A*S while S*S runs (datapath)
# and half_q marks the second product of a step (control).
ONE_UNIT_DATAPATH = ("g_one.t_q",)
ONE_UNIT_CONTROL = ("g_one.half_q",)


def differences(act: dict[str, list[Activity]]) -> list[str]:
    """The loop registers whose activity differs between the exponents: writes anywhere,
    toggles beyond TOLERANCE (datapath) or at all (control); with one multiplier its t_q and
    half_q too."""
    out = []
    one = ONE_UNIT_DATAPATH + ONE_UNIT_CONTROL if "g_one.t_q" in act else ()
    for reg in DATAPATH + CONTROL + ("e_q",) + one:
        writes = [a.writes for a in act[reg]]
        if len(set(writes)) > 1:
            out.append(f"{reg} writes {writes}")
        toggles = [a.toggles for a in act[reg]]
        allowed = (TOLERANCE * sum(toggles) / len(toggles)
                   if reg in DATAPATH + ONE_UNIT_DATAPATH else 0)
        if reg != "e_q" and max(toggles) - min(toggles) > allowed:
            out.append(f"{reg} toggles {toggles}")
    return out


def table(act: dict[str, list[Activity]], title: str) -> str:
    """Writes/toggles per register and exponent; the multipliers' registers summed."""
    rows = [f"{title}: writes/toggles per operation ({', '.join(EXPONENTS)})"]
    one = ONE_UNIT_DATAPATH + ONE_UNIT_CONTROL if "g_one.t_q" in act else ()
    for reg in DATAPATH + CONTROL + ("e_q",) + one:
        rows.append(f"  {reg:10s} " + "  ".join(f"{a.writes:5d}/{a.toggles:6d}" for a in act[reg]))
    for mult in ("u_mult_a.", "u_mult_s.", "u_mult."):  # g_two's two, g_one's one
        regs = [r for r in act if f".{mult}" in f".{r}" and ".u_observe." not in r
                and ".u_regs." not in r]  # u_regs' registers are aliases of x_q, s_q, c_q
        total = [sum(act[r][i].toggles for r in regs) for i in range(len(EXPONENTS))]
        if not regs:
            continue
        rows.append(f"  {mult[:-1]:10s} " + "  ".join(f"      {t:6d}" for t in total)
                    + f"  (toggles of {len(regs)} registers)")
    return "\n".join(rows)


@pytest.mark.sim
def test_constant_time_loop_registers_do_not_follow_the_exponent(tmp_path: Path) -> None:
    act = run_exponents(tmp_path, (("ConstTime", 1),))
    assert differences(act) == []
    # every LOOP step writes each accumulator register and S: TO (a1_q keeps its 0 there),
    # N steps, the wipe
    for reg, count in (("a0_q", N + 2), ("a1_q", N + 1), ("s_q", N + 2)):
        assert [a.writes for a in act[reg]] == [count] * len(EXPONENTS), reg


@pytest.mark.sim
def test_one_multiplier_s_loop_registers_do_not_follow_the_exponent(tmp_path: Path) -> None:
    """Units = 1: the step's two products in turn on one multiplier; t_q (A*S while S*S runs)
    and half_q are written at every step like the others, whatever the bit."""
    act = run_exponents(tmp_path, (("ConstTime", 1), ("Units", 1)))
    assert differences(act) == []
    # TO's and each LOOP step's A*S into t_q, and the wipe
    for reg, count in (("a0_q", N + 2), ("a1_q", N + 1), ("s_q", N + 2), ("g_one.t_q", N + 2)):
        assert [a.writes for a in act[reg]] == [count] * len(EXPONENTS), reg
    assert [a.writes for a in act["g_one.half_q"]] == [2 * (N + 1)] * len(EXPONENTS)


@pytest.mark.sim
def test_one_multiplier_without_constant_time_follows_the_weight(tmp_path: Path) -> None:
    """Units = 1, ConstTime = 0: A*S runs only for a one bit, so t_q and half_q (and A)
    follow the exponent and the comparison sees them."""
    act = run_exponents(tmp_path, (("ConstTime", 0), ("Units", 1)))
    assert {"a0_q", "ran_a_q", "g_one.t_q", "g_one.half_q"} <= {
        d.split()[0] for d in differences(act)}


@pytest.mark.sim
def test_without_constant_time_the_accumulator_follows_the_weight(tmp_path: Path) -> None:
    """Algorithm 4 literally: A (a0_q) is written, and multiplier A runs (ran_a_q), only for
    a one bit. The comparison sees both."""
    act = run_exponents(tmp_path, (("ConstTime", 0),))
    assert {d.split()[0] for d in differences(act)} == {"a0_q", "ran_a_q"}
    sparse, _, dense = act["a0_q"]
    assert 4 * sparse.writes < dense.writes and 4 * sparse.toggles < dense.toggles


@pytest.mark.sim
def test_an_inhibited_decoy_write_is_caught(tmp_path: Path) -> None:
    """The constant-time core with its decoy write inhibited (the register that held A keeps
    it, as the single A register of the old datapath did for a zero bit): results stay right,
    the accumulator registers' activity follows the weight and the comparison fails."""
    text = CORE_SV.read_text()
    decoy = "assign d_nxt = e_bit ? ms_p : ma_p;"
    assert text.count(decoy) == 1
    overlay = tmp_path / "inhibit"
    overlay.mkdir()
    (overlay / CORE_SV.name).write_text(text.replace(decoy, "assign d_nxt = a_reg;"))
    act = run_exponents(tmp_path, (("ConstTime", 1),), overlay)
    assert {d.split()[0] for d in differences(act)} == {"a0_q", "a1_q"}
    for reg in ("a0_q", "a1_q"):
        sparse, _, dense = act[reg]
        assert 4 * sparse.toggles < dense.toggles, reg


LOOP_REGS = DATAPATH + CONTROL + ("e_q",)
FLOPS = "$adff,$adffe,$dff,$dffe,$sdff,$sdffe,$sdffce,$aldff,$aldffe"


def netlist_cones(tmp_path: Path, const_time: int, regs: tuple[str, ...] = LOOP_REGS,
                  units: int = 2, more: tuple[tuple[str, int], ...] = ()
                  ) -> dict[str, dict[str, set[str]]]:
    """Per register of the core at N = 8 (and `more` parameters): the signals in the cones
    of its flop's D and EN inputs, up to the next flops (Yosys after proc, flatten, opt and
    opt_dff)."""
    design = load_design("rsa_core")
    # the run folder's copy of the sources (Yosys's WebAssembly has a /tmp of its own)
    files = " ".join(stage(tmp_path, [(f.name, f) for f in (*design.core_sources,
                                                            *paths.include_files())])
                     [:len(design.core_sources)])
    chparams = "".join(f" -chparam {k} {v}" for k, v in more)
    lines = [f"read_verilog -sv -I{STAGED} {files}",
             f"hierarchy -check -top rsa_core -chparam N 8 -chparam ConstTime {const_time} "
             f"-chparam Units {units}{chparams}",
             "proc; flatten; opt -full; opt_dff; opt_clean"]
    for reg in regs:
        # a register of a generate block: Yosys puts an else-if chain's block inside an
        # unnamed one (genblk1.g_one.t_q), where the simulators name it g_one.t_q
        wire = f"*.{reg}" if "." in reg else reg
        lines += [f"select -set ff w:{wire} %ci1 t:$adffe t:$adff %u %i",
                  "select -assert-min 1 @ff"]
        lines += [f"tee -q -o {reg}.{port} select -list @ff %ci1:+[{port}] @ff %d "
                  f"%ci*:-{FLOPS}" for port in ("D", "EN")]
    (tmp_path / "cones.ys").write_text("\n".join(lines) + "\n")
    cp = subprocess.run([*synth.command(), "-q", "-l", "yosys.log", "cones.ys"], cwd=tmp_path,
                        capture_output=True, text=True, timeout=600)
    assert cp.returncode == 0, (tmp_path / "yosys.log").read_text()[-2000:]
    return {reg: {port: {ln.split("/", 1)[1] for ln in (tmp_path / f"{reg}.{port}")
                         .read_text().splitlines() if ln.startswith("rsa_core/")}
                  for port in ("D", "EN")} for reg in regs}


@pytest.mark.synth
def test_no_loop_register_is_enabled_or_held_by_the_exponent(tmp_path: Path) -> None:
    cones = netlist_cones(tmp_path, 1)
    for reg in LOOP_REGS:
        assert not cones[reg]["EN"] & {"e_q", "e_bit"}, (reg, cones[reg]["EN"])
        assert "state_q" in cones[reg]["EN"], (reg, cones[reg]["EN"])  # the step enables
    for reg, other in (("a0_q", "a1_q"), ("a1_q", "a0_q")):
        assert reg not in cones[reg]["D"] and {other, "e_q"} <= cones[reg]["D"], reg


@pytest.mark.synth
def test_one_multiplier_s_registers_are_not_enabled_by_the_exponent(tmp_path: Path) -> None:
    """Units = 1: the same for the loop registers, t_q (A*S while S*S runs) and half_q."""
    regs = LOOP_REGS + ("g_one.t_q", "g_one.half_q")
    cones = netlist_cones(tmp_path, 1, regs, units=1)
    for reg in regs:
        assert not cones[reg]["EN"] & {"e_q", "e_bit"}, (reg, cones[reg]["EN"])
        if reg != "g_one.half_q":  # a flop without enable, its D from the control only
            assert "state_q" in cones[reg]["EN"], (reg, cones[reg]["EN"])
    assert not cones["g_one.half_q"]["EN"]
    assert not cones["g_one.half_q"]["D"] & {"e_q", "e_bit"}, cones["g_one.half_q"]["D"]
    for reg, other in (("a0_q", "a1_q"), ("a1_q", "a0_q")):
        assert reg not in cones[reg]["D"] and {other, "e_q"} <= cones[reg]["D"], reg


@pytest.mark.synth
def test_lazy_registers_are_not_enabled_by_the_exponent(tmp_path: Path) -> None:
    """Lazy = 1 (mont_qp's products unreduced, the last one reduced by the core in StRed):
    the loop registers, which StRed reuses, and the reduction's own counters and borrow are
    enabled by the control alone, never by the exponent; the select of each restoring step
    writes a0_q either way (a mux, not an inhibited write)."""
    red = ("red_s_q", "red_w_q", "red_b_q")
    lazy = (("Mult", 5), ("V", 2), ("W", 2), ("P", 1), ("Lazy", 1))
    cones = netlist_cones(tmp_path, 1, LOOP_REGS + red, more=lazy)
    for reg in LOOP_REGS + red:
        assert not cones[reg]["EN"] & {"e_q", "e_bit"}, (reg, cones[reg]["EN"])
        assert "state_q" in cones[reg]["EN"], (reg, cones[reg]["EN"])
    assert {"red_s_q", "red_w_q"} <= cones["a0_q"]["EN"] | cones["a0_q"]["D"]


@pytest.mark.synth
def test_without_constant_time_a_holds_itself_through_the_exponent_bit(tmp_path: Path) -> None:
    """Algorithm 4 literally (and the constant-time core before the accumulator pair): A's
    next value is A itself unless the bit is one. The same cones show it. (a1_q is constant 0
    there and has no flop.)"""
    cones = netlist_cones(tmp_path, 0, ("a0_q",))
    assert {"a0_q", "e_q"} <= cones["a0_q"]["D"]
