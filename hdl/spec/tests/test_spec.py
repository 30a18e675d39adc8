"""The descriptors as the one source of a design's facts: every one reads and agrees with its
core's RTL, the derived files are fresh, and a malformed descriptor is one clear error."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from montverif.host.errors import ConfigError
from montverif.host.paths import HDL, ROOT
from montverif.spec import designs, formula, generate, scaffold, top
from montverif.spec.design import LOADER_RANGE_OPERANDS, LOADER_SOURCE, parse
from montverif.spec.designs import load_design
from montverif.spec.params import parse_params

NAMES = designs.known_designs()


def test_every_descriptor_reads_with_unique_ids() -> None:
    found = designs.every()
    assert len(found) >= 15 and len({d.id for d in found}) == len(found)
    assert all(d.descriptor.stem == d.name and d.rtl for d in found)
    with pytest.raises(ConfigError, match="unknown DUT 'nope'"):
        designs.load_design("nope")


@pytest.mark.parametrize("name", NAMES)
def test_parameters_and_faults_are_the_cores(name: str) -> None:
    """What the descriptor says of the RTL is in the RTL: every build and fault parameter is
    one of the core's parameters; the generated top connects every core input."""
    d = designs.load_design(name)
    # a core of its own: the parameters are its header's; a core from elsewhere ([core]):
    # its fault belongs to the generated top around it, which declares it
    own = set(top.core_header(d).params) if d.foreign is None else \
        {p for _, p, _ in top.parameters(d)}
    assert set(d.parameters) | set(d.fault_params) | set(d.synth_parameters) <= own, own
    text = top.emit(d)
    assert f"module {d.toplevel}" in text
    # behind the bus loader, the top names the design's id (a streaming top has no loader)
    assert d.stream is not None or f"DesignId{generate.camel(d.name)}" in text


@pytest.mark.parametrize("name", NAMES)
def test_the_top_connects_the_shared_core_ports(name: str) -> None:
    """The port macros of hdl/common/mv_core_ports.svh are read as the simulators read them:
    every core has the shared interface, and the top connects all of it."""
    d = designs.load_design(name)
    if d.foreign is not None or d.stream is not None:  # a core with ports of its own
        return
    core = top.core_header(d)
    shared = ("clk_i", "rst_ni", "start_i", "clear_i", "busy_o", "last_o", "p_o")
    assert set(shared) <= set(core.ports), core.ports
    assert core.ports["p_o"] == top.Port("p_o", "output", "N-1:0")
    text = top.emit(d)
    assert all(re.search(rf"^\s*\.{port}\b", text, re.M) for port in shared)


def test_macros_expand_as_the_simulators_expand_them(tmp_path: Path) -> None:
    """Nested macros with arguments, from an include beside the file or in hdl/common; an
    include that is nowhere is one line."""
    (tmp_path / "widths.svh").write_text("`define W(A) [(A)-1:0] \\\n  /* gone */\n"
                                         "`define OUTS(A) output logic `W(A) s_o, \\\n"
                                         "  output logic `W(A) c_o\n")
    core = tmp_path / "core.sv"
    core.write_text('`include "widths.svh"\n`include "mv_core_ports.svh"\n'
                    "module core #(parameter int N = 8) (\n  `MV_CORE_CTRL_PORTS, // the usual\n"
                    "  `OUTS(N + 2)\n);\nendmodule\n")
    h = top.header(core, "core")
    assert list(h.ports) == ["clk_i", "rst_ni", "start_i", "clear_i", "s_o", "c_o"]
    assert h.ports["c_o"] == top.Port("c_o", "output", "(N+2)-1:0")
    core.write_text('`include "nowhere.svh"\nmodule core (input logic a);\nendmodule\n')
    with pytest.raises(ConfigError, match='`include "nowhere.svh" is in none of hdl/common'):
        top.header(core, "core")


def test_the_derived_files_are_fresh() -> None:
    assert generate.stale() == []


def test_the_register_package_carries_every_id() -> None:
    text = generate.emit_sv(generate.load_regmap(), designs.every())
    for d in designs.every():
        assert f"DesignId{generate.camel(d.name)} = {d.id};" in text
    other = [dataclasses.replace(designs.load_design("mont_lut"), id=99)]
    assert "DesignIdMontLut = 99;" in generate.emit_sv(generate.load_regmap(), other)


def _copy(tmp_path: Path, name: str) -> Path:
    d = designs.load_design(name)
    folder = tmp_path / d.family
    folder.mkdir()
    for src in d.rtl:
        shutil.copy(src, folder / src.name)
    path = folder / d.descriptor.name
    path.write_text(d.descriptor.read_text())
    return path


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda t: t.replace('name = "mont_lut"', 'name = "other"'), "named after the design"),
    (lambda t: t.replace("kind = \"mont\"", "kind = \"div\""), "[function] kind: must be one of"),
    (lambda t: t.replace('rtl = ["mont_lut.sv"]', 'rtl = ["missing.sv"]'), "no such RTL file"),
    (lambda t: t + "\n[frobs]\nx = 1\n",
     "mont_lut.toml: unknown section(s) frobs (known: design, "),
    (lambda t: t.replace("widths = { min = 8, max = 4096 }", ""), "[design] widths: missing"),
    (lambda t: t.replace("[model]", "[model]\nbroken = "), "mont_lut.toml"),
    (lambda t: t + '\n[parameters]\nW = { default = 1, min = 2 }\n', "below its least value"),
    # the operand domain: every operand named once, with a known domain
    (lambda t: t.replace('domain = { X = "below_2n", Y = "below_2n" }\n', ""),
     "[operands] domain: missing"),
    (lambda t: t.replace('Y = "below_2n" }', 'Y = "below_2m" }'),
     "below_2m is for a carry-save group only"),
    (lambda t: t.replace('Y = "below_2n" }', 'Y = "below_2n", Z = "below_m" }'),
     "Z is no operand with a domain of its own"),
    (lambda t: t.replace('Y = "below_2n" }', 'Y = "small" }'),
     "[operands] domain.Y: must be one of below_m, below_2n, below_2m"),
    (lambda t: t.replace('domain = {', 'below_modulus = ["X"]\ndomain = {'),
     "below_modulus is replaced by domain"),
    # the promise: relations in the known names
    (lambda t: t.replace('p = "p < max(y, m)"', 'p = "p + m"'), "is not a relation"),
    (lambda t: t.replace('p = "p < max(y, m)"', 'p = "q < m"'),
     "promise.p: 'q < m': unknown name q"),
    (lambda t: t.replace('p = "p < max(y, m)"', 'q = "p < m"'), "unknown key(s) q"),
    (lambda t: t.replace("[formal]\n", "[formal]\ntimeout = -5\n"),
     "[formal] timeout: -5 is below 0"),
    # [synthesis]: parameters of their own, cycles only with them
    (lambda t: t + '\n[synthesis]\nfoo = 1\n',
     "[synthesis]: unknown key(s) foo (known: parameters, cycles)"),
    (lambda t: t + '\n[synthesis]\ncycles = "cycles + 1"\n', "is an expression, with parameters"),
    (lambda t: t + '\n[synthesis]\nparameters = { Reduce = { default = 2, max = 1 } }\n',
     "above its largest value 1"),
])
def test_a_malformed_descriptor_is_one_line(tmp_path: Path, edit, needle: str) -> None:
    path = _copy(tmp_path, "mont_lut")
    path.write_text(edit(path.read_text()))
    with pytest.raises(ConfigError, match=re.escape(needle)) as exc:
        parse(path)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("text", ['"n + 4"', '"K / 2"', '"ceil(K)"', '"Q + 1"', "4.5",
                                  '"K + "', '"K * \'a\'"'])
def test_widths_min_is_a_number_or_a_parameter_sum(tmp_path: Path, text: str) -> None:
    """widths.min: a number, or an expression of the build parameters in + - * (the top's
    MinN takes it as it stands); anything else is one line."""
    path = _copy(tmp_path, "mont_dual")
    path.write_text(path.read_text().replace('min = "K + K * Units"', f"min = {text}"))
    needle = "widths.min: expected an integer or a string (got 4.5)" if text == "4.5" else \
        "widths.min must be a number or"  # the schema's finding, or the reader's
    with pytest.raises(ConfigError, match=re.escape(needle)) as exc:
        parse(path)
    assert "\n" not in str(exc.value)


def test_widths_min_follows_the_parameters() -> None:
    d = designs.load_design("mont_dual")
    assert (d.min_n, d.min_n_at({"K": 2, "Units": 2}), d.min_n_at({"K": 1, "Units": 3})) \
        == (80, 6, 4)
    assert designs.load_design("mont_lut").min_n_at({}) == 8
    top_sv = top.emit(d)
    assert "localparam int MinN = K + K * Units;" in top_sv


def test_a_core_input_the_top_cannot_drive_is_refused(tmp_path: Path) -> None:
    """A core with an input named like no loader signal needs the descriptor's [top] ports."""
    path = _copy(tmp_path, "mont_lut")
    core = path.with_name("mont_lut.sv")
    core.write_text(core.read_text().replace("`MV_CORE_SC_PORTS(N + 1)", """`MV_CORE_CTRL_PORTS,
  input  logic [N-1:0] x_i,
  input  logic [N-1:0] b_i,
  input  logic [N-1:0] m_i,
  `MV_CORE_RESULT_PORTS,
  `MV_CORE_SC_OUT_PORTS(N + 1)"""))
    with pytest.raises(ConfigError, match="core input b_i is none of the loader's signals"):
        top.emit(parse(path))
    path.write_text(path.read_text() + '\n[top]\nports = { b_i = "y" }\n')
    assert ".b_i" in top.emit(parse(path))


def test_formulas_and_parameters() -> None:
    assert formula.formula("ceil(n / W) * 2 + (W == 8)", 97, {"W": 8}) == 27
    # a promise: a relation of exact integers (1024-bit values), 2**n
    big = {"x": (1 << 1024) - 1, "y": 3, "m": (1 << 1023) + 1, "r": 1024, "v": 7}
    assert formula.holds("v * 2**r < x * y + m * 2**r", big)
    assert not formula.holds("v * 2**r < x * y + m * 2**r", big | {"v": 2 * big["m"] + 3})
    with pytest.raises(ConfigError, match="exponent must be an integer"):
        formula.holds("2**(2**20) > 0", {})
    with pytest.raises(ConfigError, match="not a relation"):
        formula.holds("x + 1", {"x": 1})
    with pytest.raises(ConfigError, match="unsupported expression"):
        formula.formula("__import__('os')", 8)
    assert parse_params("W=16, P=0x4,Mult=mwrkmm") == {"W": 16, "P": 4, "Mult": "mwrkmm"}
    with pytest.raises(ConfigError, match="expected NAME=VALUE"):
        parse_params("W")
    rsa = designs.load_design("rsa_core")
    assert rsa.normalize({"Mult": "mont_qp", "V": 8}) == (("Mult", 5), ("V", 8))
    assert rsa.param_text("Mult", 4) == "mwrkmm"


def test_the_loader_range_rule_follows_the_operand_domains(tmp_path: Path) -> None:
    """RangeX/RangeY of the generated top: 0 for an operand of any N-bit value (or one the
    design does not read), the loader's default (1, below M) otherwise."""
    def rule(text: str) -> set[str]:
        return set(re.findall(r"\.(Range[XY])\s*\(1'b0\)", text))

    assert rule(top.emit(load_design("mont_lut"))) == {"RangeX", "RangeY"}  # any N-bit Y
    assert rule(top.emit(load_design("mont_lut_u2"))) == {"RangeX"}
    assert rule(top.emit(load_design("mm42"))) == {"RangeX"}  # Y + Y2 < 2M stays
    assert rule(top.emit(load_design("rsa_core"))) == {"RangeY"}  # X < M, no Y
    path = _copy(tmp_path, "mont_lut_u2")
    path.write_text(path.read_text().replace('X = "below_2n"', 'X = "below_m"'))
    assert rule(top.emit(parse(path))) == set()


@pytest.mark.parametrize("name", NAMES)
def test_the_loader_range_rule_is_the_designs_one(name: str) -> None:
    """The generated top's Range<reg> parameters (the loader's default where the top does
    not set one) are on for exactly Design.range_rule_operands, so the testbench's
    has_range_rule (the coverage's ERR_RANGE bin) is the loader's: both read one property.
    A streaming design's top has no loader, hence no range rule."""
    d = load_design(name)
    text = top.emit(d)
    loader = LOADER_SOURCE.read_text()
    on = set()
    for reg in LOADER_RANGE_OPERANDS:
        default = re.search(rf"parameter\s+bit\s+Range{reg}\s*=\s*1'b([01])", loader)
        assert default is not None, reg
        if "mv_bus_loader #(" not in text:  # no loader in this top (a streaming design)
            continue
        given = re.search(rf"\.Range{reg}\s*\(1'b([01])\)", text)
        if (given or default).group(1) == "1":
            on.add(reg)
    assert (d.stream is None) == ("mv_bus_loader #(" in text), name
    assert on == set(d.range_rule_operands), (name, on, d.range_rule_operands)
    assert d.has_range_rule == bool(on), name


def test_descriptors_live_beside_their_rtl() -> None:
    for d in designs.every():
        assert d.descriptor.parent.parent == HDL and all(s.parent == d.descriptor.parent
                                                         for s in d.rtl)


def _example(tmp_path: Path) -> Path:
    """docs/examples/third_party: a core with its own ports, reset and handshake."""
    folder = tmp_path / "thirdparty"
    shutil.copytree(ROOT / "docs" / "examples" / "third_party", folder)
    return folder / "tp_mont.toml"


def test_a_core_of_its_own_is_adapted(tmp_path: Path) -> None:
    """[core]: the generated top drives the core's own ports, inverts an active-high reset,
    counts a level done by its rising edge (a pulse as it comes) and holds the result."""
    path = _example(tmp_path)
    d = parse(path)
    assert d.foreign is not None and d.toplevel == "tp_mont_top" and d.generic_model
    text = top.emit(d)
    for needle in (".rst         (!rst_ni)", ".go          (start)", ".a           (x)",
                   ".WIDTH    (N)", "assign core_done = busy_q && (co_finish && !done_q);",
                   "p_q    <= result ^ N'(FaultEn);"):
        assert needle in text, needle
    path.write_text(path.read_text().replace('done_style = "level"', 'done_style = "pulse"')
                    .replace('reset_active = "high"', 'reset_active = "low"'))
    text = top.emit(parse(path))
    assert "assign core_done = busy_q && (co_finish);" in text and "(rst_ni)" in text
    assert "done_q" not in text  # a pulse needs no edge detection: nothing unused to lint


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda t: t.replace('b = "Y", ', ""), "[core] ports: no core input reads Y"),
    (lambda t: t.replace('a = "X"', 'q = "Q", a = "X"'), "[core] ports.q: 'Q': 'Q' is none of"),
    (lambda t: t.replace('reset_active = "high"', 'reset_active = "up"'),
     "[core] reset_active: must be one of low, high (got 'up')"),
    (lambda t: t.replace('done_style = "level"', 'done_style = "edge"'),
     "[core] done_style: must be one of pulse, level (got 'edge')"),
    (lambda t: t.replace('start = "go"\n', ""), "handshake start_done needs start"),
    (lambda t: t.replace('cycles = "n + 2"', ""), "cycles"),
])
def test_a_malformed_core_table_is_one_line(tmp_path: Path, edit, needle: str) -> None:
    path = _example(tmp_path)
    path.write_text(edit(path.read_text()))
    with pytest.raises(ConfigError, match=re.escape(needle)) as exc:
        parse(path)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(("name", "like", "needle"), [
    ("Mont-R4", "mont_csa", "lower case letters"),
    ("mont_lut", "mont_csa", "exists already"),
    ("mont_r8", "nope", "unknown DUT 'nope'"),
])
def test_a_new_design_is_refused_before_anything_is_written(name: str, like: str,
                                                            needle: str) -> None:
    before = sorted(HDL.rglob("*"))
    with pytest.raises(ConfigError, match=re.escape(needle)):
        scaffold.new_design(name, like)
    assert sorted(HDL.rglob("*")) == before


def test_two_threads_regenerate_one_top_at_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Two builds of one design in one process (the runner's threads) write its stale top at
    the same moment: both temporary files are written before either is renamed, and both
    writes succeed (a temporary name per process alone was shared, and the second rename
    failed: `No such file or directory: ...top.<pid>.tmp`)."""
    monkeypatch.setattr(top, "generated_root", lambda: tmp_path)
    design = load_design("mont_r2")
    both_written = threading.Barrier(2, timeout=30)
    replace = os.replace

    def slow_replace(src: os.PathLike[str] | str, dst: os.PathLike[str] | str) -> None:
        both_written.wait()
        replace(src, dst)

    monkeypatch.setattr(top.os, "replace", slow_replace)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            top.write(design)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and top.path(design).read_text() == top.emit(design)
    assert not list(tmp_path.rglob("*.tmp"))
