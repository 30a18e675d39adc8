"""A core from elsewhere read from its descriptor and its header: the port-expression language
with the widths it knows, the ANSI headers third-party cores are written in, the latency
formula as RTL, and one clear line for each thing a descriptor can get wrong."""

from __future__ import annotations

import re

import pytest

from montverif.host.errors import ConfigError
from montverif.spec import adapter, schema
from montverif.spec.foreign import (
    REGISTER_SIGNALS,
    CorePort,
    ForeignCore,
    _package_of,
    core_ports,
    parse_core,
    parse_expression,
    simplified,
)

REGS = {r: REGISTER_SIGNALS[r] for r in ("X", "Y", "M")}


@pytest.mark.parametrize(("text", "sv", "width"), [
    ("X", "x", "N"),
    ("{1'b0, X}", "{1'b0, x}", "N + 1"),
    ("{M, Y, X}", "{m, y, x}", "3*N"),
    ("X[N-1:1]", "x[N - 1:1]", "N - 1"),
    ("X[0]", "x[0]", "1"),
    ("zext(X, N + 2)", "(N + 2)'(x)", "N + 2"),
    ("sext(Y[7:0], 16)", "(16)'($signed(y[7:0]))", "16"),
    ("2'b01", "2'b01", "2"),
    ("{X[N-1:N-8], 8'h00}", "{x[N - 1:N - 8], 8'h00}", "16"),
])
def test_expressions_become_rtl_with_their_widths(text: str, sv: str, width: str) -> None:
    got = parse_expression(text, REGS, "[core] ports.a")
    assert (got.sv, got.width) == (sv, width)


@pytest.mark.parametrize(("text", "needle"), [
    ("Z", "'Z' is none of X, Y, M"),
    ("X[N-1:", "is no integer expression of N"),
    ("{X, Y", "expected '}'"),
    ("X Y", "unexpected 'Y'"),
    ("zext(X)", "expected ','"),
    ("X[foo:0]", "is no integer expression of N"),
    ("", "is empty"),
])
def test_a_bad_expression_is_one_line_naming_it(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(needle)) as exc:
        parse_expression(text, REGS, "d.toml: [core] ports.a")
    assert str(exc.value).startswith("d.toml: [core] ports.a: ") and "\n" not in str(exc.value)


def test_widths_are_simplified_where_linear() -> None:
    assert simplified("((N)-1) - (0) + 1") == "N"
    assert simplified("(N+1-1)-(0)+1") == "N + 1"
    assert simplified("(N) + (N) + (N)") == "3*N"
    assert simplified("(7) - (0) + 1") == "8"
    assert simplified("(N) - (3)") == "N - 3"
    assert simplified("N/2") == "N/2"  # a division: as written
    assert simplified("$bits(t)") == "$bits(t)"
    assert simplified("N*N") == "N*N"  # not linear: as written


HEADER = """
module core #(
    parameter WIDTH = 256,
    parameter int Lanes = 2
) (
    input                  clk, rst,
    input  wire            go,
    input      [WIDTH-1:0] a,
    input  logic signed [WIDTH:0] b,
    input  pkg_t           op,
    output reg [WIDTH-1:0] r,
    output                 done
);
endmodule
"""


def test_an_ansi_header_is_read_in_the_styles_cores_are_written_in() -> None:
    ports = core_ports(HEADER, "core", {"WIDTH": "N"})
    assert ports == {
        "clk": CorePort("clk", "input", "1"), "rst": CorePort("rst", "input", "1"),
        "go": CorePort("go", "input", "1"), "a": CorePort("a", "input", "N"),
        "b": CorePort("b", "input", "N + 1"), "op": CorePort("op", "input", "$bits(pkg_t)"),
        "r": CorePort("r", "output", "N"), "done": CorePort("done", "output", "1")}
    # a parameter [core] params does not set keeps the header's default
    assert core_ports(HEADER, "core", {})["a"].width == "256"
    with pytest.raises(ConfigError, match="ANSI-style header"):
        core_ports("module core (a, b);\n  input a;\nendmodule\n", "core", {})
    with pytest.raises(ConfigError, match="no module nope"):
        core_ports(HEADER, "nope", {})


def test_a_type_port_is_named_by_the_package_that_declares_it() -> None:
    pkg = ("package tp_pkg;\n  typedef struct packed { logic [7:0] m; logic [7:0] x; } op_t;\n"
           "  typedef logic [3:0] nib_t;\nendpackage\n")
    assert _package_of([pkg], "op_t") == "tp_pkg"
    assert _package_of([pkg], "nib_t") == "tp_pkg"
    assert _package_of([pkg], "other_t") == ""


def test_the_latency_becomes_an_rtl_constant() -> None:
    assert adapter.sv_integer("n + 1") == "(N + 1)"
    assert adapter.sv_integer("ceil(n / 4) + 2") == "(((N + 4 - 1) / 4) + 2)"
    assert adapter.sv_integer("max(n // 2, 3)") == "(((N / 2) > 3) ? (N / 2) : 3)"
    with pytest.raises(ConfigError, match="become RTL"):
        adapter.sv_integer("n ** 2")


def _core(**core: object) -> dict[str, object]:
    base: dict[str, object] = {"module": "c", "clock": "clk", "reset": "rst",
                               "start": "go", "done": "fin",
                               "ports": {"a": "X", "b": "Y", "n": "M"}, "result": "r"}
    return {"core": base | core}


def test_the_core_table_reads_every_handshake() -> None:
    regs = ("X", "Y", "M")
    plain = parse_core(_core(), regs, "d.toml")
    assert plain is not None and plain.handshake == "start_done" and plain.done_pulse
    stream = parse_core(_core(handshake="valid_ready", in_valid="sv", in_ready="sr",
                              out_valid="mv"), regs, "d.toml")
    assert stream is not None and (stream.in_valid, stream.out_ready) == ("sv", "")
    fixed = parse_core(_core(handshake="latency", latency="n + 1", done_style="pulse"),
                       regs, "d.toml")
    assert fixed is not None and fixed.latency == "n + 1"
    assert parse_core({}, regs, "d.toml") is None


@pytest.mark.parametrize(("core", "needle"), [
    ({"handshake": "axi"}, "[core] handshake: must be one of start_done, valid_ready, latency"),
    ({"handshake": "valid_ready"}, "handshake valid_ready needs in_valid, in_ready, out_valid"),
    ({"handshake": "latency"}, "handshake latency needs latency"),
    ({"done_style": "edge"}, "[core] done_style: must be one of pulse, level (got 'edge')"),
    ({"reset_active": "both"}, "[core] reset_active: must be one of low, high"),
    ({"start": "go now"}, "[core] start: expected a name of letters, digits and _"),
    ({"ports": {"a": "X", "b": "Y"}}, "no core input reads M"),
    ({"ports": {"a": "X", "b": "Y", "n": "Q"}}, "[core] ports.n: 'Q': 'Q' is none of"),
    ({"ports": {"a b": "X"}}, "[core] ports.a b: is not a name of letters, digits and _"),
    ({"stray": 1}, "d.toml: [core]: unknown key(s) stray (known: module, "),
])
def test_a_bad_core_table_is_one_line(core: dict[str, object], needle: str) -> None:
    """What the schema finds (montverif.spec.schema, before the descriptor is read) and what
    reading it finds, each one line."""
    with pytest.raises(ConfigError, match=re.escape(needle)):
        schema.check(_core(**core), "d.toml", section="core")
        parse_core(_core(**core), ("X", "Y", "M"), "d.toml")


def _emit(core: ForeignCore, ports: dict[str, CorePort]) -> str:
    return "\n".join(adapter.emit(core, ports, ("X", "Y", "M"), "c_top"))


PORTS = {"clk": CorePort("clk", "input", "1"), "rst": CorePort("rst", "input", "1"),
         "go": CorePort("go", "input", "1"), "a": CorePort("a", "input", "N + 1"),
         "b": CorePort("b", "input", "N"), "n": CorePort("n", "input", "N"),
         "mode": CorePort("mode", "input", "2"), "r": CorePort("r", "output", "N + 1"),
         "fin": CorePort("fin", "output", "1"), "dbg": CorePort("dbg", "output", "8")}


def test_the_adapter_fits_widths_and_checks_what_it_cannot_fit() -> None:
    core = parse_core(_core(ports={"a": "X", "b": "Y", "n": "M", "mode": "2'b01"}),
                      ("X", "Y", "M"), "d.toml")
    assert core is not None
    text = _emit(core, PORTS)
    assert ".a           ((N + 1)'(x))" in text  # N bits into N + 1: zero-extended
    assert ".b           (y)" in text and ".mode        (2'b01)" in text
    assert "if ((N) > (N + 1)) begin : g_wide_a" in text  # the elaboration's own check
    assert "g_wide_b" not in text  # equal widths: nothing to check
    assert "CoreResultFits_A" in text  # an (N + 1)-bit result: its top bit must be 0
    assert ".dbg        ()" in text.replace("  ", " ") or re.search(r"\.dbg\s+\(\)", text)
    unmapped = parse_core(_core(), ("X", "Y", "M"), "d.toml")
    assert unmapped is not None
    with pytest.raises(ConfigError, match="input mode is not connected"):
        _emit(unmapped, PORTS)
    wrong = parse_core(_core(ports={"a": "X", "b": "Y", "q": "M", "mode": "2'b0"}),
                       ("X", "Y", "M"), "d.toml")
    assert wrong is not None
    with pytest.raises(ConfigError, match="q is no input of c"):
        _emit(wrong, PORTS)
