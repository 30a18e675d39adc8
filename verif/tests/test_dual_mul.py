"""mont_dual's unified datapath (hdl/dual/mont_dual_mul.sv, Tanimura 2008): one W x W array of
partial products, a carry-save tree of dual-field full adders and one dual-field adder for
both fields. Checked on Icarus against Python's integers (GF(p): a*b + c + d mod 2^(2W)) and
models.gf2's carry-less product (GF(2^n): a.b ^ c ^ d), exhaustively at W = 3 and over every
a, b at W = 4, both the tree and the fast form a plain Icarus build simulates (FAST_FORMS),
and the two against each other at the paper's W = 64; the dual-field adder on its own against
a + b and a ^ b; copies with the carry suppression broken fail, and the core built with such
a copy fails its own simulation in GF(2^n) only."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from montverif.host.paths import FAST_FORMS
from montverif.models import gf2
from montverif.spec import top as gen_top
from montverif.spec.designs import load_design

pytestmark = [pytest.mark.sim,
              pytest.mark.skipif(shutil.which("iverilog") is None, reason="needs Icarus")]

DATAPATH = ("mont_dual_csa.sv", "mont_dual_add.sv", "mont_dual_mul.sv")
SOURCES = {s.name: s for s in gen_top.sources(load_design("mont_dual")) if s.name in DATAPATH}

Vector = tuple[int, int, int, int, int]  # gfp, a, b, c, d

TB = """module tb;
  localparam int W = {w};
  localparam int Count = {count};
  logic [5*W:0] mem [0:Count-1];
  logic gfp;
  logic [W-1:0] a, b, d;
  logic [2*W-1:0] c, p;
  mont_dual_mul #(.W(W)) u_dut (.gfp_i(gfp), .a_i(a), .b_i(b), .c_i(c), .d_i(d), .p_o(p));
  initial begin
    $readmemh("{vec}", mem);
    for (int i = 0; i < Count; i++) begin
      {{gfp, a, b, c, d}} = mem[i];
      #1 $display("p %h", p);
    end
  end
endmodule
"""


def expected(v: Vector, w: int) -> int:
    gfp, a, b, c, d = v
    if gfp:
        return (a * b + c + d) % (1 << 2 * w)
    return gf2.mul(a, b) ^ c ^ d


def exhaustive(w: int) -> list[Vector]:
    return [(f, a, b, c, d) for f in (0, 1) for a in range(1 << w) for b in range(1 << w)
            for c in range(1 << 2 * w) for d in range(1 << w)]


def every_a_b(w: int) -> list[Vector]:
    """Every a and b, with addends at their corners and a few random ones."""
    top = (1 << 2 * w) - 1
    rng = random.Random(f"dual-mul-{w}")
    cs = [0, 1, top, top >> 1, 1 << (2 * w - 1)] + [rng.randrange(top + 1) for _ in range(3)]
    ds = [0, 1, (1 << w) - 1, rng.randrange(1 << w)]
    return [(f, a, b, c, d) for f in (0, 1) for a in range(1 << w) for b in range(1 << w)
            for c in cs for d in ds]


def simulate(tmp_path: Path, w: int, vectors: list[Vector],
             sources: dict[str, Path], form: str = "tree") -> list[int]:
    """The array's p_o for each vector on Icarus, built from `sources` (name -> file): the
    tree, or with `form` "fast" the fast form a plain Icarus build simulates (FAST_FORMS)."""
    vec = tmp_path / "vec.hex"
    digits = (5 * w + 1 + 3) // 4
    vec.write_text("".join(f"{(((((g << w | a) << w | b) << 2 * w | c) << w) | d):0{digits}x}\n"
                           for g, a, b, c, d in vectors))
    tb = tmp_path / "tb.sv"
    tb.write_text(TB.format(w=w, count=len(vectors), vec=vec))
    out = tmp_path / "tb.vvp"
    defines = [f"-D{FAST_FORMS}"] if form == "fast" else []
    subprocess.run(["iverilog", "-g2012", *defines, "-o", str(out), "-s", "tb",
                    *(str(sources[name]) for name in DATAPATH), str(tb)], check=True)
    run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, check=True,
                         timeout=300)
    lines = [ln.split()[1] for ln in run.stdout.splitlines() if ln.startswith("p ")]
    assert len(lines) == len(vectors), run.stdout[-2000:]
    return [int(ln, 16) for ln in lines]


def wrong_fields(tmp_path: Path, w: int, vectors: list[Vector],
                 sources: dict[str, Path], form: str = "tree") -> set[int]:
    """The fields (gfp) in which some vector's p_o differs from the reference."""
    got = simulate(tmp_path, w, vectors, sources, form)
    return {v[0] for v, p in zip(vectors, got, strict=True) if p != expected(v, w)}


def mutated(tmp_path: Path, name: str, old: str, new: str) -> dict[str, Path]:
    """The datapath's sources with one file's `old` (found once) replaced by `new`."""
    text = SOURCES[name].read_text()
    assert text.count(old) == 1, f"{name}: {old!r} not found once"
    folder = tmp_path / "mutant"
    folder.mkdir()
    (folder / name).write_text(text.replace(old, new))
    return SOURCES | {name: folder / name}


@pytest.mark.parametrize("form", ["tree", "fast"])
@pytest.mark.parametrize("w,vectors", [(3, exhaustive(3)), (4, every_a_b(4))],
                         ids=["W3-exhaustive", "W4-every-a-b"])
def test_the_array_is_the_integer_and_the_carry_less_product(tmp_path, w: int,
                                                             vectors: list[Vector],
                                                             form: str) -> None:
    got = simulate(tmp_path, w, vectors, SOURCES, form)
    bad = [(v, p) for v, p in zip(vectors, got, strict=True) if p != expected(v, w)]
    assert not bad, bad[:5]
    # the two fields' results differ on most vectors: a check of one field is not the other's
    assert sum(p != expected((1 - v[0], *v[1:]), w) for v, p in zip(vectors, got,
                                                                     strict=True)) > len(got) / 2


@pytest.mark.parametrize("form", ["tree", "fast"])
def test_the_array_at_a_wider_word(tmp_path, form: str) -> None:
    """W = 8 (K = 2, Units = 4; or K = 4, Units = 2): random operands, both fields."""
    w, rng = 8, random.Random("dual-mul-8")
    vectors = [(f, rng.getrandbits(w), rng.getrandbits(w), rng.getrandbits(2 * w),
                rng.getrandbits(w)) for f in (0, 1) for _ in range(1500)]
    vectors += [(f, (1 << w) - 1, (1 << w) - 1, (1 << 2 * w) - 1, (1 << w) - 1) for f in (0, 1)]
    assert wrong_fields(tmp_path, w, vectors, SOURCES, form) == set()


def test_the_two_forms_agree_at_the_papers_word(tmp_path) -> None:
    """W = 64 (the paper's K = 16, Units = 4), where SBY gives no verdict (hdl/formal/
    mont_dual_mul_forms.sv proves the forms equal at W <= 6): the tree and the fast form on
    the same random operands and corners, in both fields, GF(p) digits K bits wide as
    mont_dual drives them and full-width ones, both against the reference."""
    w, rng = 64, random.Random("dual-mul-64")
    digit = [rng.getrandbits(16) for _ in range(60)] + [rng.getrandbits(w) for _ in range(60)]
    vectors = [(f, a, rng.getrandbits(w), rng.getrandbits(2 * w), rng.getrandbits(w))
               for f in (0, 1) for a in digit]
    vectors += [(f, (1 << w) - 1, (1 << w) - 1, (1 << 2 * w) - 1, (1 << w) - 1) for f in (0, 1)]
    (tmp_path / "tree").mkdir()
    (tmp_path / "fast").mkdir()
    tree = simulate(tmp_path / "tree", w, vectors, SOURCES)
    fast = simulate(tmp_path / "fast", w, vectors, SOURCES, "fast")
    assert tree == fast == [expected(v, w) for v in vectors]


def test_a_broken_fast_form_is_caught(tmp_path) -> None:
    """The fast form adding C as XOR in GF(p): wrong there, and only there."""
    sources = mutated(tmp_path, "mont_dual_mul.sv", "acc = SW'(a) * SW'(b) + c + SW'(d);",
                      "acc = SW'(a) * SW'(b) ^ c + SW'(d);")
    assert wrong_fields(tmp_path, 3, exhaustive(3), sources, "fast") == {1}


@pytest.mark.parametrize("name,old,new,fails_in", [
    # the full adders' carries kept in GF(2^n)
    ("mont_dual_csa.sv", "maj & {CarryW{gfp_i}}", "maj", {0}),
    # the full adders' carries lost in GF(p)
    ("mont_dual_csa.sv", "maj & {CarryW{gfp_i}}", "maj & {CarryW{1'b0}}", {1}),
    # a carry not moved one column up
    ("mont_dual_csa.sv", "{maj & {CarryW{gfp_i}}, 1'b0}", "{1'b0, maj & {CarryW{gfp_i}}}",
     {1}),
])
def test_broken_carry_suppression_is_caught(tmp_path, name: str, old: str, new: str,
                                            fails_in: set[int]) -> None:
    """A mutated copy of the datapath fails the exhaustive check at W = 3, in the field the
    change breaks and only there."""
    sources = mutated(tmp_path, name, old, new)
    assert wrong_fields(tmp_path, 3, exhaustive(3), sources) == fails_in


def test_the_core_with_carries_kept_in_gf2n_fails_there(tmp_path) -> None:
    """The whole core built with full adders whose carries are not suppressed (a copy of
    mont_dual_csa.sv in an overlay): its GF(p) results stay right and its GF(2^n) results
    are wrong, and the scoreboard says so per field."""
    from montverif.regress.flow.simulate import execute
    from montverif.regress.flow.spec import BuildSpec, RunSpec

    overlay = mutated(tmp_path, "mont_dual_csa.sv", "maj & {CarryW{gfp_i}}", "maj")[
        "mont_dual_csa.sv"].parent
    params = (("K", 2), ("Units", 2))
    run = RunSpec(BuildSpec("mont_dual", 8, 32, "icarus", 0, False, params=params,
                            overlay=str(overlay)), seed=7, txns=40, tests=("RandomTest",),
                  timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed and outcome.first_error.startswith("MISMATCH"), \
        outcome.first_error
    log = (outcome.log_dir / "sim.log").read_text()
    lines = [ln for ln in log.splitlines() if "MISMATCH" in ln and ": P = " in ln]
    assert lines and all("field=GF(2^n)" in ln for ln in lines), lines


ADD_TB = """module tb;
  localparam int Width = {w};
  logic gfp;
  logic [Width-1:0] a, b, sum;
  mont_dual_add #(.Width(Width)) u_dut (.gfp_i(gfp), .a_i(a), .b_i(b), .sum_o(sum));
  initial begin
    for (int f = 0; f < 2; f++) begin
      for (int i = 0; i < 2 ** (2 * Width); i++) begin
        {{a, b}} = i[2*Width-1:0];
        gfp = f[0];
        #1 $display("s %0d %0d %0d %0d", gfp, a, b, sum);
      end
    end
  end
endmodule
"""


def adder_wrong_fields(tmp_path: Path, adder: Path, w: int) -> set[int]:
    """The fields in which mont_dual_add (the file `adder`) at Width = w is wrong for some a, b
    (every pair): a + b mod 2^w in GF(p) (gfp = 1), a ^ b in GF(2^n)."""
    tb = tmp_path / "add_tb.sv"
    tb.write_text(ADD_TB.format(w=w))
    out = tmp_path / "add_tb.vvp"
    subprocess.run(["iverilog", "-g2012", "-o", str(out), "-s", "tb", str(adder), str(tb)],
                   check=True)
    run = subprocess.run(["vvp", "-n", str(out)], capture_output=True, text=True, check=True,
                         timeout=300)
    rows = [tuple(map(int, ln.split()[1:])) for ln in run.stdout.splitlines()
            if ln.startswith("s ")]
    assert len(rows) == 2 << 2 * w, run.stdout[-2000:]
    return {g for g, a, b, s in rows if s != ((a + b) % (1 << w) if g else a ^ b)}


def test_the_dual_field_adder_on_its_own(tmp_path) -> None:
    """mont_dual_add for every a, b at Width = 5: a + b in GF(p), a ^ b in GF(2^n). Behind the
    carry-save tree its second input (a carry row) is 0 in GF(2^n), so there the adder's own
    carry suppression is not visible; this checks it, and a copy without it fails."""
    assert adder_wrong_fields(tmp_path, SOURCES["mont_dual_add.sv"], 5) == set()
    bad = mutated(tmp_path, "mont_dual_add.sv", "a_i & b_i & {Width{gfp_i}}", "a_i & b_i")
    assert adder_wrong_fields(tmp_path, bad["mont_dual_add.sv"], 5) == {0}


def test_a_gf_p_digit_wider_than_k_fires_its_assertion(tmp_path) -> None:
    """DualMulDigitK_A: t_i kept at W bits in GF(p) drives the array's rows K and up (T2's
    product u*q gives t_i its upper bits); the Verilator run stops on the assertion, before
    the wrong result reaches the scoreboard."""
    from montverif.regress.flow.simulate import execute
    from montverif.regress.flow.spec import BuildSpec, RunSpec

    core = next(s for s in gen_top.sources(load_design("mont_dual")) if s.name == "mont_dual.sv")
    old = "assign t_next = gfp ? W'(mac[K-1:0]) : mac[W-1:0];"
    text = core.read_text()
    assert text.count(old) == 1
    overlay = tmp_path / "mutant"
    overlay.mkdir()
    (overlay / core.name).write_text(text.replace(old, "assign t_next = mac[W-1:0];"))
    run = RunSpec(BuildSpec("mont_dual", 8, 8, "verilator", 0, False,
                            params=(("K", 2), ("Units", 2)), overlay=str(overlay)),
                  seed=1, txns=20, tests=("RandomTest",), timeout_s=600)
    outcome = execute(run, tmp_path / run.key)
    assert not outcome.passed
    assert outcome.first_error.startswith("ASSERT FAILED DualMulDigitK_A @ "), \
        outcome.first_error
