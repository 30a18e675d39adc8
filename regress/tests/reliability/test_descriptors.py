"""A broken descriptor is one error about that file (issue 59, items 2, 3 and 4): a user's
malformed descriptor, written beside a copied core into a scratch copy of the checkout,
leaves every other design working; using it by name is one `error:` line naming the file
and the field, the listing commands warn of it, lint fails on it. Every field the parser
reads is checked for its type and range. A design without [fault] refuses --fault.
`new-design` is all or nothing, from every design that can be copied, and refuses names
SystemVerilog takes (keywords, existing modules)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.regress.tests.reliability.helpers import Tree, scratch_tree
from montverif.spec import designs
from montverif.spec.design import parse

# --- a malformed descriptor in the tree --------------------------------------------------------

MINE = "hdl/mont/mine.toml"
RUN = ["--n", "8", "--x", "3", "--y", "5", "--m", "13"]


def _mine(tree: Tree, edit: Callable[[str], str]) -> None:
    """hdl/mont/mine.toml and mine.sv: mont_r2's, renamed (its model kept), then `edit`."""
    mont = tree.root / "hdl" / "mont"
    (mont / "mine.sv").write_text(re.sub(r"\bmont_r2\b", "mine",
                                         (mont / "mont_r2.sv").read_text()))
    text = re.sub(r"\bmont_r2\b", "mine", (mont / "mont_r2.toml").read_text())
    text = text.replace("id = 1 ", "id = 200 ").replace('"mont:mine"', '"mont:mont_r2"')
    edited = edit(text)
    assert edited != text, "the attack must change the descriptor"
    (mont / "mine.toml").write_text(edited)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    yield scratch_tree(tmp_path_factory.mktemp("descriptors"))


@pytest.fixture
def clean(tree: Tree) -> Iterator[Tree]:
    """The tree, as it was again after the test (whatever the outcome): the files an attack
    wrote below hdl/ removed, the derived files it changed restored."""
    before = tree.files()
    yield tree
    for rel, data in tree.files().items():
        if rel not in before:
            (tree.root / rel).unlink()
        elif data != before[rel]:
            (tree.root / rel).write_bytes(before[rel])
    for folder in sorted((tree.root / "hdl").rglob("*"), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def _sub(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


LIST_ENTRY = """
[[lists.smoke]]
widths = [32]
bus_widths = [8]
simulators = ["verilator"]
seeds = "three"
txns = 3
"""

# (attack, the field the error names): the examples and their kin
ATTACKS = [
    (_sub("[function]", "[function"), "TOML syntax"),
    (_sub("widths = { min = 8, max = 4096 }", 'widths = "8..4096"'), "[design] widths:"),
    (_sub("widths = { min = 8, max = 4096 }", "widths = { min = 8 }"), "[design] widths.max:"),
    (_sub("id = 200 ", 'id = "two hundred" '), "[design] id: expected an integer"),
    (_sub('"mont:mont_r2"', '"mont:no_such_model"'), "[model] function: no function"),
    (_sub("rtl = ", 'uses = ["nope"]\nrtl = '), "[design] uses: 'nope' is no design"),
    (_sub("rtl = ", 'uses = ["mine"]\nrtl = '), "[design] uses: designs use each other"),
    (_sub("id = 200 ", "id = 1 "), "[design] id: 1 is mont_r2's already"),
    (_sub('name = "mine"', 'name = "logic"'), "[design] name: logic is a SystemVerilog keyword"),
    (lambda t: t + LIST_ENTRY, "].seeds: must be an integer 1..10000"),
    (_sub("illegal_bins = []", "illegal_bins = [9]"), "[observe] illegal_bins: 9 is no bin"),
]


@pytest.mark.parametrize(("edit", "field"), ATTACKS, ids=[a[1] for a in ATTACKS])
def test_a_broken_descriptor_is_one_error_about_that_file(clean: Tree, edit, field: str
                                                           ) -> None:
    _mine(clean, edit)
    good, bad, sim, listed, lists = clean.commands(
        ["models", "run", "mont_r2", *RUN], ["models", "run", "mine", *RUN],
        ["sim", "--dut", "mine", "--n", "8", "--sim", "icarus", "--out",
         str(clean.root / "build" / "mine-run")],
        ["models", "list"], ["lists"])
    # the other designs keep working
    assert good.code == 0 and '"algo": "mont_r2"' in good.out and not good.err, good
    # the broken one, by name: one line naming the file and the field
    for done in (bad, sim):
        assert done.code == 2, done
        line = done.one_line("error")
        assert line.startswith(f"error: {MINE}: ") and field in line, line
    assert not (clean.root / "build" / "mine-run").exists()  # refused before any work
    # the lists: the good designs, one warning about the broken file
    assert listed.code == 0 and re.search(r"(?m)^mont_r2 ", listed.out), listed
    assert not re.search(r"(?m)^mine ", listed.out), listed.out
    assert listed.one_line("warning").startswith(f"warning: {MINE}: ")
    assert lists.code == 0 and re.search(r"(?m)^smoke ", lists.out), lists
    assert field in lists.one_line("warning")


@pytest.mark.sim
def test_lint_and_generate_name_the_broken_file(clean: Tree) -> None:
    """`montverif lint` fails naming the file and the field; the derived files cover every
    design, so `generate` writes none while one is broken (before: a traceback)."""
    _mine(clean, _sub("widths = { min = 8, max = 4096 }", "widths = { min = 8 }"))
    before = clean.files()
    lint = clean.run("lint", "--dut", "mont_r2")
    assert lint.code == 1, lint
    assert "design descriptors: problems" in lint.out and "lint mont_r2: ok" in lint.out
    assert f"{MINE}: [design] widths.max: missing" in lint.err and "Traceback" not in lint.err
    gen = clean.run("generate")
    assert gen.code == 2 and f"{MINE}: [design] widths.max" in gen.one_line("error"), gen
    assert clean.files() == before


def test_generate_shows_every_formula_the_parser_takes(clean: Tree) -> None:
    """`**` and a unary minus are formulas the descriptors may hold (montverif.spec.formula):
    `montverif generate` failed on them with a KeyError traceback; the README shows them."""
    _mine(clean, _sub('cycles = "n + 1"', 'cycles = "2 ** 3 + n - -1"'))
    gen = clean.run("generate")
    assert gen.code == 0 and not gen.err, gen
    assert "| 2^3 + N - -1 |" in (clean.root / "README.md").read_text()


def test_a_second_descriptor_of_one_name_is_the_broken_one(clean: Tree) -> None:
    """hdl/zz/mont_r2.toml beside hdl/mont/mont_r2.toml: the newer file is refused, the
    design keeps working (before: every command refused)."""
    other = clean.root / "hdl" / "zz"
    other.mkdir()
    try:
        shutil.copy(clean.root / "hdl" / "mont" / "mont_r2.sv", other)
        (other / "mont_r2.toml").write_text((clean.root / "hdl" / "mont" / "mont_r2.toml")
                                            .read_text())
        good, listed = clean.commands(["models", "run", "mont_r2", *RUN], ["models", "list"])
        assert good.code == 0, good
        assert listed.one_line("warning").startswith(
            "warning: hdl/zz/mont_r2.toml: [design] name: mont_r2 is described in "
            "hdl/mont/mont_r2.toml already")
    finally:
        shutil.rmtree(other)


def test_a_descriptor_that_is_a_fifo_is_refused(clean: Tree) -> None:
    """A FIFO named like a descriptor: every command waited for a writer for ever."""
    fifo = clean.root / "hdl" / "mont" / "mine.toml"
    os.mkfifo(fifo)
    try:
        listed = clean.run("models", "list", timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("`montverif models list` hangs on a FIFO below hdl/")
    finally:
        fifo.unlink()
    assert listed.code == 0 and re.search(r"(?m)^mont_r2 ", listed.out), listed
    assert f"warning: {MINE}: not a regular file" in listed.one_line("warning")


# --- every field the parser reads: its type and range --------------------------------------

def _copy(tmp_path: Path, name: str, edit: Callable[[str], str]) -> Path:
    """The design's descriptor and own RTL in a folder of the test's, edited."""
    d = designs.load_design(name)
    folder = tmp_path / d.descriptor.parent.name
    folder.mkdir()
    for src in d.rtl:
        shutil.copy(src, folder / src.name)
    path = folder / d.descriptor.name
    text = d.descriptor.read_text()
    edited = edit(text)
    assert edited != text, "the edit must change the descriptor"
    path.write_text(edited)
    return path


def _add(section: str, line: str) -> Callable[[str], str]:
    """A line at the top of a section (a new section at the end if there is none)."""
    def edit(text: str) -> str:
        if f"\n[{section}]\n" in text:
            return text.replace(f"\n[{section}]\n", f"\n[{section}]\n{line}\n", 1)
        return f"{text}\n[{section}]\n{line}\n"
    return edit


FIELDS = [
    ("mont_lut", _sub("id = 3 ", 'id = "3" '), "[design] id: expected an integer"),
    ("mont_lut", _sub("id = 3 ", "id = 0 "), "[design] id: 0 is below 1"),
    ("mont_lut", _sub("id = 3 ", "id = true "), "[design] id: expected an integer"),
    ("mont_lut", _sub('name = "mont_lut"', "name = 3"), "[design] name: expected a name"),
    ("mont_lut", _sub('family = "mont"', "family = 3"), "[design] family: expected a string"),
    ("mont_lut", _sub('paper = "Amanor 2005"', 'paper = ["x"]'),
     "[design] paper: expected a string"),
    ("mont_lut", _sub('rtl = ["mont_lut.sv"]', 'rtl = ["../mont/mont_lut.sv"]'),
     "[design] rtl: '../mont/mont_lut.sv' is not a path inside its folder"),
    ("mont_lut", _sub('rtl = ["mont_lut.sv"]', "rtl = []"), "[design] rtl: names no RTL"),
    ("mont_lut", _sub("max = 4096", 'max = "4096"'), "[design] widths.max: expected an integer"),
    ("mont_lut", _sub("max = 4096", "max = 4"), "[design] widths.max: 4 is below min (8)"),
    ("mont_lut", _sub("max = 4096", "max = 4096, step = 2"),
     "[design] widths: unknown key(s) step (known: min, max)"),
    ("mont_lut", _sub("min = 8", "min = 0"), "[design] widths.min: 0"),
    ("mont_lut", _sub('cycles = "n + 2"', "cycles = 5"), "[design] cycles: expected a string"),
    ("mont_lut", _sub('cycles = "n + 2"', 'cycles = "n +"'),
     "[design] cycles: unsupported expression"),
    ("mont_lut", _sub('cycles = "n + 2"', 'cycles = "n + W"'),
     "[design] cycles: 'n + W': unknown name W"),
    ("mont_lut", _sub('cycles = "n + 2"', 'cycles = "n / (n - n)"'),
     "[design] cycles: cannot be evaluated"),
    ("mont_lut", _add("design", "widht = 3"), "[design]: unknown key(s) widht"),
    ("mont_lut", _sub('kind = "mont"', "kind = 3"), "[function] kind: must be one of"),
    ("mont_lut", _sub('r_bits = "n"', 'r_bits = "x + 1"'), "[function] r_bits: 'x + 1': unknown"),
    ("mont_lut", _add("function", 'field1 = { kind = "gf3", r_bits = "n" }'),
     "[function] field1.kind: must be one of"),
    ("mont_lut", _sub('registers = ["X", "Y", "M"]', 'registers = ["X", "Q", "M"]'),
     "[operands] registers: Q is not in the register map"),
    ("mont_lut", _add("operands", 'carry_save = "XY"'), "[operands] carry_save: expected"),
    ("mont_lut", _add("operands", "precomputed = { MP = 3 }"),
     "[operands] precomputed.MP: expected \"<module>:<function>\" (got 3)"),
    ("mont_lut", _sub("redundant_extra_bits = 1", 'redundant_extra_bits = "1"'),
     "[results] redundant_extra_bits: expected an integer"),
    ("mont_lut", _sub("redundant_extra_bits = 1", "redundant_extra_bits = -1"),
     "[results] redundant_extra_bits: -1 is below 0"),
    ("mont_lut", _sub('function = "mont:mont_lut"', "function = 3"),
     "[model] function: expected \"<module>:<function>\" (got 3)"),
    ("mont_lut", _sub('function = "mont:mont_lut"', 'function = "mont lut"'),
     "[model] function: expected \"<module>:<function>\""),
    ("mont_lut", _add("model", 'generic = "yes"'), "[model] generic: expected true or false"),
    ("mont_lut", _sub("FaultEn = 1", 'FaultEn = "1"'), "[fault] FaultEn: expected an integer"),
    ("mont_lut", _sub("lut_bins = 16", 'lut_bins = "16"'),
     "[observe] lut_bins: expected an integer"),
    ("mont_lut", _sub("hit_width = 32", "hit_width = 0"), "[observe] hit_width: 0 is below 1"),
    ("mont_lut", _sub('lut_hits = "u_core', 'lut_hits = "u core'),
     "[observe] lut_hits: expected a signal's path below the core"),
    ("mont_lut", _sub('cycles = "n + 1"', "cycles = 1"), "[paper] cycles: expected a string"),
    ("mont_lut", _sub("icarus = [[32, 16, 20, 0]", "icarus = [[32, 16]"),
     "[test] icarus[0]: expected [N, BusW, txns, AckWait] or"),
    ("mont_lut", _sub("icarus = 1024 }", 'icarus = "x" }'),
     "[test] quick_from_n.icarus: expected an integer"),
    ("mont_lut", _sub("goal = 100", 'goal = "all"'),
     "[coverage] goal: expected a number (got 'all')"),
    ("mont_lut", _sub("points = [{ n = 4 }", "points = [{ n = true }"),
     "[formal] points[0].n: expected an integer (got True)"),
    ("mont_lut", _add("parameters", 'W = { default = 8, min = "2" }'),
     "[parameters] W.min: expected an integer"),
    ("mont_lut", _add("top", "ports = { b_i = 3 }"), "[top] ports.b_i: expected a string"),
    ("mont_lut", _add("testbench", 'engine = "yes"'), "[testbench] engine: expected true or"),
    ("mont_lut", _add("synthesis", 'parameters = { Q = { default = 1 } }\ncycles = "cycles + Z"'),
     "[synthesis] cycles: 'cycles + Z': unknown name Z"),
    ("mont_dual", _sub("n = 256, field = 0, cycles = 165", 'n = "256", field = 0, cycles = 165'),
     "[paper] figures[0].n: expected an integer (got '256')"),
    ("rsa_core", _sub('mults = ["ma", "ms"]', 'mults = "ma"'),
     "[rsa] mults: expected a list (got 'ma')"),
    ("rsa_core", _sub("when = { Units = 1 }", 'when = { Units = "one" }'),
     "[rsa] variants[0].when: Units=one: expected an integer"),
    ("rsa_core", _sub('vector_loader = "montverif.verif.env.rsa_vectors:load_rsa_vectors"',
                      "vector_loader = 3"),
     "[testbench] vector_loader: expected \"<module>:<function>\" (got 3)"),
]


@pytest.mark.parametrize(("design", "edit", "field"), FIELDS, ids=[f[2] for f in FIELDS])
def test_every_field_is_checked_for_its_type_and_range(tmp_path: Path, design: str, edit,
                                                       field: str) -> None:
    """A malformed value is one ConfigError line naming the file and the field when the
    descriptor is read (before: a TypeError or KeyError later, or nothing at all)."""
    path = _copy(tmp_path, design, edit)
    with pytest.raises(ConfigError) as exc:
        parse(path)
    message = str(exc.value)
    assert "\n" not in message and message.startswith(f"{path}: ") and field in message, \
        message


# --- --fault without [fault] ----------------------------------------------------------------

def test_fault_of_a_design_without_fault_is_refused(tmp_path: Path) -> None:
    """`sim --fault` of a design whose descriptor has no [fault] built and passed the
    correct design (a negative test that tests nothing); now one line, nothing built."""
    tree = scratch_tree(tmp_path)
    toml = tree.root / "hdl" / "mont" / "mont_r2.toml"
    text = toml.read_text()
    toml.write_text(re.sub(r"(?ms)^\[fault\]\n.*?\n\n", "", text))
    sim = tree.run("sim", "--dut", "mont_r2", "--fault", "--sim", "icarus", "--n", "8",
                   "--txns", "1", "--out", str(tmp_path / "run"))
    assert sim.code == 2, sim
    assert "mont_r2 has no fault build" in sim.one_line("error")
    assert not (tmp_path / "run").exists()
    formal = tree.run("formal", "--dut", "mont_r2", "--fault", "--out", str(tmp_path / "f"))
    assert formal.code == 2 and "no [fault]" in formal.one_line("error"), formal


# --- new-design -----------------------------------------------------------------------------

def _smallest(d: designs.Design, sim: str) -> list[str]:
    """The run options of the design's narrowest `[test]` point of `sim` (else of the other
    simulator): its width, bus width and parameters, three operations."""
    points = d.test.on(sim) or d.test.verilator or d.test.icarus
    point = min(points, key=lambda p: p.n)
    given = ",".join(f"{k}={v}" for k, v in point.params.items())
    return ["--n", str(point.n), "--busw", str(point.bus_w), "--ack-wait", str(point.ack_wait),
            "--txns", "3",
            *(["--params", given] if given else [])]


@pytest.mark.sim
def test_new_design_like_every_design_loads(tmp_path: Path) -> None:
    """`new-design x_<D> --like D` for every design D (mont_lut's table, mm42's step and
    registers, the scalable PEs: every file named after D is the copy's own; the RSA core's
    multiplier selector, named otherwise, takes the copy's name as a prefix), then every
    copy is a design that loads, with a model and a generated top, and no descriptor is
    broken (before: --like mont_lut failed halfway, and the RSA core was refused)."""
    tree = scratch_tree(tmp_path)
    names = designs.known_designs()
    assert {"mont_lut", "mm42", "rsa_core"} <= set(names)
    done = tree.commands(*(["new-design", f"x_{d}", "--like", d] for d in names))
    for d, new in zip(names, done, strict=True):
        assert new.code == 0 and not new.err, (d, new)
    listed, lint = tree.run("models", "list"), tree.run("lint", "--dut", "x_mont_lut")
    assert not listed.err, listed.err
    multipliers = [d for d in names if designs.load_design(d).kind != "modexp"]
    assert {f"x_{d}" for d in multipliers} <= set(re.findall(r"(?m)^(x_\w+) ", listed.out))
    assert lint.code == 0 and "generated files: ok" in lint.out, lint
    table = tree.root / "hdl" / "mont" / "x_mont_lut_table.sv"
    assert "module x_mont_lut_table" in table.read_text()
    selector = tree.root / "hdl" / "rsa" / "x_rsa_core_rsa_mont_mult.sv"
    assert "module x_rsa_core_rsa_mont_mult" in selector.read_text()


def _copies_pass(tmp_path: Path, names: list[str]) -> None:
    """Each copy runs at once, on Verilator and Icarus, at its original's narrowest test
    point: the build and the testbench find it."""
    tree = scratch_tree(tmp_path)
    assert all(d.code == 0 for d in tree.commands(
        *(["new-design", f"x_{d}", "--like", d] for d in names)))
    failed = []
    for name in names:
        d = designs.load_design(name)
        for sim in ("verilator", "icarus"):
            out = tmp_path / "runs" / f"{name}-{sim}"
            run = tree.run("sim", "--dut", f"x_{name}", "--sim", sim, *_smallest(d, sim),
                           "--out", str(out), timeout=900)
            if run.code != 0 or f"PASS x_{name}" not in run.out:
                failed.append(f"{name} {sim}: {run.out}{run.err}")
    assert failed == []


@pytest.mark.nightly(seconds=35)
@pytest.mark.sim
def test_a_copy_of_a_scalable_design_and_of_the_rsa_core_passes(tmp_path: Path) -> None:
    """make test's stand-in for the nightly's copy of every design: mwr2mm (PEs and a
    controller in files of their own) and rsa_core (its own testbench, its multipliers'
    files and mont_lut's table)."""
    _copies_pass(tmp_path, ["mwr2mm", "rsa_core"])


@pytest.mark.sim
@pytest.mark.nightly(seconds=260)
def test_a_copy_of_every_design_passes_on_both_simulators(tmp_path: Path) -> None:
    _copies_pass(tmp_path, designs.known_designs())


@pytest.mark.parametrize(("name", "needle"), [
    ("logic", "'logic' is a SystemVerilog keyword"),
    ("module", "'module' is a SystemVerilog keyword"),
    ("wire", "'wire' is a SystemVerilog keyword"),
    ("always", "'always' is a SystemVerilog keyword"),
    ("endmodule", "'endmodule' is a SystemVerilog keyword"),
    ("mv_result", "module mv_result exists already (hdl/common/mv_result.sv)"),
    ("mont_csa_top", "module mont_csa_top exists already (the generated top of mont_csa)"),
])
def test_new_design_refuses_names_systemverilog_takes(clean: Tree, name: str,
                                                      needle: str) -> None:
    before = clean.files()
    done = clean.run("new-design", name, "--like", "mont_r2")
    assert done.code == 2 and needle in done.one_line("error"), done
    assert clean.files() == before


# new-design with the derived files failing as a full disk fails them: after they are written
_FULL_DISK = """
import sys
from montverif.spec import generate
written = generate.write
def full() -> list:
    written()
    raise OSError(28, "No space left on device", "README.md")
generate.write = full
from montverif.regress.cli import main
sys.exit(main(["new-design", "late_fail", "--like", "mont_lut"]))
"""


def test_a_failed_new_design_leaves_nothing(clean: Tree) -> None:
    """A new-design that fails at its last step (the disk fills while the derived files are
    written) leaves the tree as it was, and every command still works."""
    before = clean.files()
    res = clean.python(_FULL_DISK)
    assert res.returncode == 2 and "No space left on device" in res.stderr, res
    assert clean.files() == before
    assert not [p for p in (clean.root / "hdl").iterdir() if p.name.startswith(".")]
    listed = clean.run("models", "list")
    assert listed.code == 0 and not listed.err, listed


def test_new_design_is_refused_while_a_descriptor_is_broken(clean: Tree) -> None:
    """It writes the derived files of every design: with one broken, nothing is written."""
    _mine(clean, _sub("id = 200 ", 'id = "x" '))
    before = clean.files()
    done = clean.run("new-design", "copy_r2", "--like", "mont_r2")
    assert done.code == 2 and f"{MINE}: [design] id" in done.one_line("error"), done
    assert clean.files() == before

