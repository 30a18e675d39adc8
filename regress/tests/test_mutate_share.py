"""Build-once-run-many (regress/mutate/meta.py, sharing.share_builds): which sites are guarded
and how, the meta-mutant source, the stillborn check and the fallbacks to a build of its own;
with a real simulator, the meta source without a selected mutant is the original and with one
is that mutant (exhaustively, on Icarus), and a mont_lut campaign through the shared build."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from montverif.host import paths, tools
from montverif.regress.cli import mutate as mutate_cli
from montverif.regress.flow import build as flow_build
from montverif.regress.flow import check as flow_check
from montverif.regress.flow import simulate, spec
from montverif.regress.mutate import campaigns, engine, meta, state
from montverif.regress.mutate import report as mreport
from montverif.regress.mutate import sites as msites
from montverif.regress.mutate.svmut import Site, candidates
from montverif.regress.regression import lists as rlists
from montverif.regress.regression import summary as rsummary
from montverif.spec.designs import load_design
from montverif.verif.config import mutant_plusarg

DEMO = """\
module demo #(parameter int W = 4) (
  input  logic [W-1:0] a_i, b_i,
  input  logic [1:0]   s_i,
  output logic [7:0]   y_o,
  output logic [3:0]   q_o, w_o, z_o,
  output logic [5:0]   r_o
);
  localparam int K = W - 1;
  initial if (W < 2) $fatal(1, "W < 2");
  logic [3:0] t;
  function automatic logic [3:0] f(input logic [3:0] v);
    if (v[0]) f = v >> 1;
    else f = v + 4'd3;
  endfunction
  assign t   = (a_i ^ b_i) + {2'b01, s_i};
  assign q_o = s_i == 2'd2 ? f(a_i) : (a_i & b_i) | 4'h1;
  assign w_o = (a_i + b_i) >> 1;
  assign z_o = {a_i[2:0], 1'b1} ^ b_i;
  assign r_o = {2{s_i}} | {2'b00, a_i};
  always_comb begin
    case (s_i)
      2'd0:    y_o = {a_i, b_i} - 8'd1;
      2'd1:    y_o = {t, t[3:2], 2'b10};
      default: y_o = (a_i < b_i) ? {4'd0, a_i} : {b_i[2:0], 5'd7};
    endcase
    for (int i = 0; i < 2; i++) y_o[i] = y_o[i] ^ a_i[i + 1];
    if (a_i >= 4'd9 && !b_i[1]) y_o = y_o ^ 8'hA5;
    if (b_i[3:2] == 2'd3) y_o = y_o + 8'd1;
  end
  if (K > 2) begin : g_big
    assign unused = a_i[K] ^ b_i[0];
  end
endmodule
"""

TB = """\
module tb;
  logic [3:0] a, b, q, w, z;
  logic [1:0] s;
  logic [7:0] y;
  logic [5:0] r;
  logic unused;
  demo dut(.a_i(a), .b_i(b), .s_i(s), .y_o(y), .q_o(q), .w_o(w), .z_o(z), .r_o(r));
  initial begin
    #1;  // as under cocotb: nothing is driven at time 0
    for (int i = 0; i < 1024; i++) begin
      {a, b, s} = i[9:0];
      #1 $display("%h %h %h %h %h", y, q, w, z, r);
    end
    $finish;
  end
endmodule
"""


def _demo_sites() -> list[Site]:
    return candidates("demo.sv", DEMO)


def _guards() -> dict[int, meta.Guard | str]:
    return {i: meta.guard(DEMO, s) for i, s in enumerate(_demo_sites())}


def test_each_site_kind_gets_the_right_guard() -> None:
    sites = _demo_sites()
    guards = _guards()

    def find(line_text: str, original: str, kind: str) -> meta.Guard | str:
        line = DEMO[:DEMO.index(line_text)].count("\n") + 1
        hit = [guards[i] for i, s in enumerate(sites)
               if s.line == line and s.original == original and kind in ("", s.kind)]
        assert hit, (line_text, original, kind)
        return hit[0]

    stmt = find("2'd0:    y_o", "-", "arith")
    assert isinstance(stmt, meta.Guard) and stmt.kind == "stmt"
    assert DEMO[stmt.start:stmt.end] == "y_o = {a_i, b_i} - 8'd1;"  # not the case label
    cond = find("if (a_i >= 4'd9", ">=", "compare")
    inv = find("if (a_i >= 4'd9", "(a_i >= 4'd9 && !b_i[1])", "invert_if")
    assert isinstance(cond, meta.Guard) and isinstance(inv, meta.Guard)
    assert cond.kind == inv.kind == "cond" and (cond.start, cond.end) == (inv.start, inv.end)
    expr = find("assign w_o", "+", "arith")
    assert isinstance(expr, meta.Guard) and expr.kind == "assign"
    assert DEMO[expr.start:expr.end] == "assign w_o = (a_i + b_i) >> 1;"
    assert DEMO[expr.eq] == "=" and expr.width == "[3:0]"  # w_o's range, from its port
    # each right side at the left side's range, as in its own build: width changes work too
    for line, width in (("assign z_o", "[3:0]"), ("assign r_o", "[5:0]")):
        wide = find(line, "2", "const_bit")
        assert isinstance(wide, meta.Guard) and (wide.kind, wide.width) == ("assign", width)
    # a left side the module does not declare as a vector: the ?: guard, without width
    # changes
    plain = find("assign unused = a_i[K]", "^", "")
    assert isinstance(plain, meta.Guard) and plain.kind == "expr"
    in_function = find("if (v[0]) f = v >> 1", "1", "const_bit")
    assert isinstance(in_function, meta.Guard) and in_function.kind == "stmt"
    # elaboration-time constants and width changes in a condition: their own build
    assert find("2'd0:    y_o", "2'd0", "const_bit") == "case label"
    assert find("for (int i = 0; i < 2", "<", "compare") == "in a for header"
    assert str(find("initial if (W < 2)", "<", "compare")).startswith("in an initial block")
    assert str(find("if (K > 2)", ">", "compare")).startswith("module-level code")
    assert find("if (b_i[3:2]", "3", "const_bit") == "changes a part-select's width"
    # ... but in a procedural statement each branch is elaborated on its own
    part = find("2'd1:    y_o", "3", "const_bit")
    assert isinstance(part, meta.Guard) and part.kind == "stmt"


def test_a_function_used_in_a_constant_expression_is_not_guarded() -> None:
    def plus_in_f(text: str) -> meta.Guard | str:
        line = text[:text.index("else f = v +")].count("\n") + 1
        site = next(s for s in candidates("demo.sv", text) if s.kind == "arith"
                    and s.line == line)
        return meta.guard(text, site)

    const = DEMO.replace("localparam int K = W - 1;", "localparam int K = f(4'd5);")
    assert plus_in_f(const) == "in function f, which is also used in constant expressions"
    assert isinstance(plus_in_f(DEMO), meta.Guard)


def _entries() -> list[tuple[int, Site, meta.Guard]]:
    return [(i, s, g) for i, (s, g) in enumerate(zip(_demo_sites(), _guards().values(),
                                                    strict=True))
            if isinstance(g, meta.Guard)]


def _meta_demo() -> tuple[str, list[int]]:
    entries = _entries()
    return meta.meta_source(DEMO, entries, "tb"), [i for i, _, _ in entries]


def test_meta_source_keeps_the_original_as_the_last_arm_and_its_lines() -> None:
    text, ids = _meta_demo()
    assert len(ids) > 30
    assert text.count("\n") == DEMO.count("\n")  # line numbers of the original are kept
    assert "int mv_mut_sel" not in text  # the top holds the one selector
    for i, _, g in _entries():  # the original, verbatim, is what no selected mutant gives
        original = DEMO[g.start:g.end]
        if g.kind == "assign":
            original = f" ={DEMO[g.eq + 1:g.end - 1]};"
        assert any(arm in text for arm in (f"else {original} end", f": {original})",
                                           f": ({original}))", f"o{i} {original}")) or (
            g.kind == "assign" and original in text), (i, original)
        assert f"(tb.mv_mut_sel == {i})" in text
    top = meta.with_selector(TB, "tb")
    assert top.count("\n") == TB.count("\n") and top.count("int mv_mut_sel = -1;") == 1
    assert top.startswith("module tb; int mv_mut_sel = -1;")
    assert '$value$plusargs("MV_MUTANT=%d", mv_mut_sel)' in top
    with pytest.raises(ValueError, match="no module demo"):
        meta.with_selector(TB, "demo")
    assert mutant_plusarg(63) == "+MV_MUTANT=63"


def test_overlapping_spans_are_refused() -> None:
    (i, site, g), (j, other, _) = _entries()[:2]
    bad = meta.Guard(g.kind, g.start + 1, g.end + 5)
    with pytest.raises(ValueError, match="overlapping"):
        meta.meta_source(DEMO, [(i, site, g), (j, other, bad)], "tb")


def test_every_design_has_run_time_sites_and_a_reason_for_the_others() -> None:
    for dut in ("mont_lut", "mont_r2", "mwr2mm"):
        sites = msites.all_sites(load_design(dut))
        guards = [meta.guard((paths.ROOT / s.file).read_text(), s) for s in sites]
        shared = sum(isinstance(g, meta.Guard) for g in guards)
        assert shared > len(sites) // 2, dut
        assert all(g for g in guards if isinstance(g, str))
    assert shared < len(sites)  # mwr2mm: generate code and instance connections


# --- the campaign's shared path without a simulator ----------------------------------------
def _fallback_site(design: str) -> int:
    """A site of the design that cannot be selected at run time."""
    sites = msites.all_sites(load_design(design))
    return next(i for i, s in enumerate(sites)
                if isinstance(meta.guard((paths.ROOT / s.file).read_text(), s), str))


def _fake_sim(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, build_fails: bool = False,
              differs: bool = False, bad: tuple[int, ...] = ()) -> list[str]:
    calls: list[str] = []

    def build(b: spec.BuildSpec, design: object, log: Path | None = None
              ) -> tuple[Path, float]:
        calls.append(f"build {Path(b.overlay).name or 'original'}")
        if build_fails and "meta" in b.overlay:
            raise tools.ToolError(f"build of {b.key} failed: boom")
        return tmp_path, 0.0

    def execute(run: spec.RunSpec, log_dir: Path, quiet: bool = False) -> spec.Outcome:
        calls.append(f"run {Path(run.build.overlay).name or 'original'} mutant={run.mutant}")
        log_dir.mkdir(parents=True, exist_ok=True)
        changed = differs and "meta" in run.build.overlay and run.mutant is None
        (log_dir / "txns.jsonl").write_text(json.dumps({"op": 0, "p": 2 if changed else 1}))
        mutant = run.mutant is not None or Path(run.build.overlay).name.startswith("mut")
        return spec.Outcome(run, not mutant, log_dir, tests=5, failed=int(mutant),
                           first_error="MISMATCH" if mutant else "")

    def elaborate(sim_name: str, sources: list[Path], top: str, params: dict,
                  limit_s: float | None = None) -> str | None:
        over = [s for s in sources if "mutants" in str(s)]
        if limit_s is not None:  # mutant_run.build_mutant's check before a mutant's own build
            calls.append(f"limited elaboration {over[0].parent.name}")
            return None
        calls.append(f"elaborate {over[0].parent.name}")
        return "syntax error" if any(f"mut{i:04d}" in str(over[0]) for i in bad) else None

    monkeypatch.setattr(flow_build, "build", build)
    monkeypatch.setattr(simulate, "execute", execute)
    monkeypatch.setattr(flow_check, "validate", lambda run: load_design(run.build.dut))
    monkeypatch.setattr(meta, "elaboration_error", elaborate)
    return calls


def _campaign(tmp_path: Path, ids: list[int], share: bool = True
              ) -> tuple[state.Campaign, list[str]]:
    design = load_design("mont_r2")
    sites = msites.all_sites(design)
    mutants = [msites.Mutant(i, sites[i]) for i in ids]
    opts = state.CampaignOptions(n=8, sim="icarus", share=share, keep_builds=True)
    lines: list[str] = []
    return engine.run_campaign("mont_r2", design, mutants, len(sites), opts, tmp_path,
                               lines.append), lines


def _shared_ids(n: int) -> list[int]:
    sites = msites.all_sites(load_design("mont_r2"))
    return [i for i, s in enumerate(sites)
            if isinstance(meta.guard((paths.ROOT / s.file).read_text(), s), meta.Guard)][:n]


def test_shared_build_runs_each_mutant_selected(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two run-time mutants share one build, a stillborn one is never run, an elaboration
    constant gets its own build; the original runs plain and on the shared build."""
    a, b, dead = _shared_ids(3)
    const = _fallback_site("mont_r2")
    calls = _fake_sim(monkeypatch, tmp_path, bad=(dead,))
    camp, lines = _campaign(tmp_path, [a, b, dead, const])
    by_id = {m.id: m for m in camp.mutants}
    assert [by_id[i].status for i in (a, b, dead, const)] == ["killed"] * 2 + [
        "stillborn", "killed"]
    assert [by_id[i].build for i in (a, b, dead, const)] == ["shared"] * 3 + ["own"]
    assert by_id[dead].reason == "syntax error"
    assert calls.count("build meta") == 1 and "run meta mutant=None" in calls  # the original
    assert f"run meta mutant={a}" in calls and f"run meta mutant={b}" in calls
    assert not any(f"mutant={dead}" in c for c in calls)
    assert f"build mut{const:04d}" in calls and f"build mut{dead:04d}" not in calls
    meta_src = (tmp_path / "mutants" / "meta" / "mont_r2.sv").read_text()
    assert f"(mont_r2_top.mv_mut_sel == {a})" in meta_src
    assert f"mv_mut_sel == {dead})" not in meta_src
    top = (tmp_path / "mutants" / "meta" / "mont_r2_top.sv").read_text()
    assert top.count("int mv_mut_sel = -1;") == 1
    assert camp.extra["shared"] == 2 and camp.extra["own_builds"] == 1

    assert "builds: 2 mutant(s) run on a shared build (+MV_MUTANT), 1 built on their own" \
        in mreport.table(camp)
    mreport.write(camp)
    records = json.loads((tmp_path / "mutants.json").read_text())["mutants"]
    assert [r["build"] for r in records] == ["shared"] * 3 + ["own"]
    assert [m.build for m in mreport.load(tmp_path).mutants] == ["shared"] * 3 + ["own"]
    assert any("need their own build" in line for line in lines)


@pytest.mark.parametrize("problem", ["build_fails", "differs"])
def test_a_broken_shared_build_falls_back_to_own_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem: str) -> None:
    a, b = _shared_ids(2)
    calls = _fake_sim(monkeypatch, tmp_path, build_fails=problem == "build_fails",
                      differs=problem == "differs")
    camp, lines = _campaign(tmp_path, [a, b])
    assert [m.status for m in camp.mutants] == ["killed", "killed"]
    assert [m.build for m in camp.mutants] == ["own", "own"]
    assert f"build mut{a:04d}" in calls and f"build mut{b:04d}" in calls
    assert not any(c.startswith("run meta mutant=") and not c.endswith("None") for c in calls)
    assert any("building each of its 2 mutants on its own" in line for line in lines)


def test_a_lone_mutant_is_built_on_its_own(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared build of one mutant would cost a build and the original's run for nothing."""
    a, dead = _shared_ids(2)
    calls = _fake_sim(monkeypatch, tmp_path, bad=(dead,))
    camp, _ = _campaign(tmp_path, [a, dead])
    assert [(m.status, m.build) for m in camp.mutants] == [("killed", "own"),
                                                           ("stillborn", "shared")]
    assert not any("meta" in c for c in calls) and f"build mut{a:04d}" in calls


def test_no_share_builds_every_mutant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _shared_ids(2)
    calls = _fake_sim(monkeypatch, tmp_path)
    camp, _ = _campaign(tmp_path, [a, b], share=False)
    assert [m.build for m in camp.mutants] == ["own", "own"]
    assert not any("meta" in c or "elaborate" in c for c in calls)
    for i in (a, b):  # each own build is elaborated first under the time limit
        assert calls.index(f"limited elaboration mut{i:04d}") < calls.index(f"build mut{i:04d}")


def test_run_key_and_child_round_trip_carry_the_plusargs() -> None:
    run = spec.RunSpec(spec.BuildSpec("mont_lut", 8), seed=3)
    assert run.key == "mont_lut-n8-b32-verilator-s3"  # unchanged without plusargs
    sel = spec.RunSpec(spec.BuildSpec("mont_lut", 8), seed=3, mutant=63)
    assert sel.key == "mont_lut-n8-b32-verilator-s3-MV_MUTANT63"
    assert sel.sim_plusargs() == ["+MV_MUTANT=63"] and run.sim_plusargs() == []
    more = spec.RunSpec(spec.BuildSpec("mont_lut", 8), seed=3, plusargs=("+trace",), mutant=0)
    assert more.key == "mont_lut-n8-b32-verilator-s3-trace-MV_MUTANT0"
    assert more.sim_plusargs() == ["+trace", "+MV_MUTANT=0"]
    from dataclasses import asdict

    assert rsummary.run_spec(json.loads(json.dumps(asdict(sel)))) == sel  # --resume compares
    assert rsummary.run_spec(json.loads(json.dumps(asdict(more)))) == more
    assert rsummary.run_spec(json.loads(json.dumps(asdict(run)))) == run


# --- with a simulator -----------------------------------------------------------------------
def _iverilog(tmp: Path, name: str, design: str, tb: str = TB) -> Path:
    (tmp / f"{name}.sv").write_text(design)
    (tmp / "tb.sv").write_text(tb)
    out = tmp / f"{name}.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(out), "-s", "tb", str(tmp / f"{name}.sv"),
                    str(tmp / "tb.sv")], check=True, capture_output=True, text=True)
    return out


def _vvp(model: Path, *plusargs: str) -> str:
    return subprocess.run(["vvp", "-n", str(model), *plusargs], check=True,
                          capture_output=True, text=True).stdout


@pytest.mark.nightly(seconds=10)
@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog")
def test_meta_model_is_the_original_and_each_mutant_exhaustively(tmp_path: Path) -> None:
    """One meta build of every run-time site of the demo: with no mutant (and with an id it
    does not hold) it prints exactly what the original prints for all 1024 inputs, and
    +MV_MUTANT=K exactly what the single mutant K prints (its own build)."""
    text, ids = _meta_demo()
    sites = _demo_sites()
    shared = _iverilog(tmp_path, "meta", text, meta.with_selector(TB, "tb"))
    original = _vvp(_iverilog(tmp_path, "orig", DEMO))
    assert original.count("\n") >= 1024
    assert _vvp(shared) == original
    assert _vvp(shared, "+MV_MUTANT=99999") == original
    differ = 0
    for i in ids:
        alone = _vvp(_iverilog(tmp_path, f"mut{i}", sites[i].apply(DEMO)))
        assert _vvp(shared, mutant_plusarg(i)) == alone, (i, sites[i].description)
        differ += alone != original
    assert differ > len(ids) // 2  # the mutants do change the behaviour


@pytest.mark.nightly(seconds=8)
@pytest.mark.sim
def test_shared_campaign_kills_stillbirths_and_falls_back(tmp_path: Path) -> None:
    """mont_lut_u2 at N = 8 on Icarus: the CSA carry with ^ for & and the second stage reading
    X's first bit are killed through the shared build, a syntax error is stillborn without a
    run, and a localparam change of the table it owns (hdl/mont/mont_lut_table.sv: an
    elaboration constant) is built and killed on its own."""
    design = load_design("mont_lut_u2")
    sites = msites.all_sites(design)
    csa = next(i for i, s in enumerate(sites)
               if s.description.endswith("'c & v' -> 'c ^ v'"))
    count = next(i for i, s in enumerate(sites)
                 if s.description.endswith("'x_q[1]' -> 'x_q[0]'"))
    good = sites[csa]
    broken = Site(good.file, good.line, "bitwise", good.start, good.end, good.original, "^;")
    table = "hdl/mont/mont_lut_table.sv"
    text = (paths.ROOT / table).read_text()
    at = text.index("SelZero = 2'd0") + len("SelZero = ")
    const = Site(table, text[:at].count("\n") + 1, "const_bit", at, at + 4, "2'd0", "2'd1")
    assert isinstance(meta.guard(text, const), str)
    mutants = [msites.Mutant(csa, good), msites.Mutant(count, sites[count]),
               msites.Mutant(9998, broken),
               msites.Mutant(9999, const)]
    opts = state.CampaignOptions(n=8, txns=5, timeout_s=300, sim="icarus",
                          tests=("RandomTest", "CornerTest"))
    camp = engine.run_campaign("mont_lut_u2", design, mutants, len(sites), opts, tmp_path,
                               lambda _line: None)
    by_id = {m.id: m for m in camp.mutants}
    for i in (csa, count):
        assert (by_id[i].status, by_id[i].build) == ("killed", "shared")
        assert "MISMATCH" in by_id[i].reason
    assert (by_id[9998].status, by_id[9998].build) == ("stillborn", "shared")
    assert not (tmp_path / "runs" / "mut9998").exists()
    assert (by_id[9999].status, by_id[9999].build) == ("killed", "own")
    assert (tmp_path / "runs" / "meta-original" / "txns.jsonl").is_file()
    assert engine.score(camp.mutants) == (3, 0, 1.0)


@pytest.mark.nightly(seconds=15)
@pytest.mark.sim
@pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus Verilog")
def test_survivors_are_judged_in_one_shared_verilator_model(tmp_path: Path) -> None:
    """mont_csa at N = 8, an Icarus campaign without shared builds: the two survivors, an
    equivalent change of the CSA's majority (| -> ^ of terms that are never both one) and
    CLEAR setting S to all ones (RandomTest and CornerTest never read S after CLEAR), have
    their exhaustive equivalence runs in one meta-mutant model on Verilator, one after the
    other in one simulator process: the first is equivalent, the second a hole, as on their
    own builds; the original's reference is the Icarus run, and no model is left behind."""
    design = load_design("mont_csa")
    sites = msites.all_sites(design)
    maj = next(i for i, s in enumerate(sites) if s.description.endswith(
        "'(s_q & c_q) | (s_q & xy)' -> '(s_q & c_q) ^ (s_q & xy)'"))
    regs = "hdl/common/mv_sc_regs.sv"
    in_clear = (paths.ROOT / regs).read_text().index("if (clear_i)")
    clear_s = next(i for i, s in enumerate(sites) if s.file == regs and s.start > in_clear
                   and s.description.endswith("'s_q <= '0;' -> 's_q <= '1;'"))
    mutants = [msites.Mutant(maj, sites[maj]), msites.Mutant(clear_s, sites[clear_s])]
    opts = state.CampaignOptions(n=8, txns=5, timeout_s=300, sim="icarus", share=False, eq_bits=3,
                          eq_wide=10, tests=("RandomTest", "CornerTest"), use_proofs=False)
    camp = engine.run_campaign("mont_csa", design, mutants, len(sites), opts, tmp_path,
                               lambda _line: None)
    by_id = {m.id: m for m in camp.mutants}
    assert by_id[maj].status == "equivalent", by_id[maj].reason
    assert by_id[clear_s].status == "survived"
    assert by_id[clear_s].reason.startswith("testbench hole"), by_id[clear_s].reason
    assert "2 of the survivors' runs on one verilator build" in camp.eq_note
    ref = json.loads((tmp_path / "runs" / "original-exhaustive-n8" / "outcome.json").read_text())
    assert "-icarus-" in ref["key"]
    for i in (maj, clear_s):
        run = json.loads((tmp_path / "runs" / f"mut{i:04d}-eq-n8" / "outcome.json").read_text())
        assert "meta-eq-n8" in run["key"] and "-verilator-" in run["key"]
        assert f"-MV_MUTANT{i}-" in run["key"]  # the run selected it
    assert not list(paths.sim_builds().glob("mont_csa-n8-meta-eq-n8-*"))


def test_list_campaigns_share_by_default_and_can_opt_out() -> None:

    nightly = campaigns.of_list(rlists.load_lists()["nightly"])  # Icarus: sharing turned off there
    assert nightly and not any(s.share or s.options(1).share for s in nightly)
    assert "--no-share" in nightly[0].repro().split()
    default = campaigns.parse({"dut": "mont_lut", "mutants": 4}, "x")[0]
    assert default.share and default.options(1).share
    assert "--no-share" not in default.repro()
    spec = campaigns.parse({"dut": "mont_lut", "mutants": 4, "share": False}, "x")[0]
    assert not spec.share and not spec.options(1).share
    assert spec.repro().endswith(" --no-share")
    with pytest.raises(rlists.ListError, match=r"x.share: expected true or false"):
        campaigns.parse({"dut": "mont_lut", "mutants": 4, "share": "no"}, "x")


def test_cli_no_share_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:

    seen: list[bool] = []

    def fake(dut: str, design: object, mutants: list[msites.Mutant], total: int,
             opts: state.CampaignOptions, out: Path, progress: object) -> state.Campaign:
        seen.append(opts.share)
        return state.Campaign(dut, load_design(dut), opts, out, total, mutants)

    monkeypatch.setattr(engine, "run_campaign", fake)
    monkeypatch.setattr(flow_check, "validate", lambda run: load_design(run.build.dut))
    for extra in ([], ["--no-share", "--force"]):  # the second replaces the first's results
        assert mutate_cli.main(["--dut", "mont_lut", "--mutants", "1", "--out", str(tmp_path),
                         *extra]) == 0
    assert seen == [True, False]
    assert "--no-share" in mutate_cli._parser().format_help()
