"""The lean VPI visibility of Verilator builds (regress/flow/simulate.py: vpi_control)."""

from __future__ import annotations

import pytest

from montverif.regress.flow.build import _build_stamp, vpi_control
from montverif.regress.flow.spec import BuildSpec, clock_source
from montverif.spec import top
from montverif.spec.design import MULT_SIGNALS
from montverif.spec.designs import known_designs, load_design
from montverif.spec.hierarchy import declaring_module


def test_every_probed_signal_is_made_public_in_its_own_module() -> None:
    """Each probed path's signal in the module that declares it (spec.hierarchy), none by
    its name in every module: a common name (s_q, x_q) would freeze the registers of that
    name in the multipliers inside the RSA core as well."""
    for name in known_designs():
        design = load_design(name)
        text = vpi_control(design)
        assert text.startswith("`verilator_config\n")
        assert '-module "*"' not in text, name
        sources = top.sources(design)
        for path in design.probe_paths():
            module = declaring_module(path, design.toplevel, sources)
            leaf = path.rsplit(".", 1)[1]
            assert f'public_flat_rw -module "{module}" -var "{leaf}"' in text, (name, path)
        for path in [v for v in design.observe.paths() if "." in v]:
            assert path in design.probe_paths(), (name, path)
    rsa = load_design("rsa_core")
    paths = rsa.probe_paths()
    for prefix in ("ma", "ms"):
        for sig in MULT_SIGNALS:
            assert f"u_core.{prefix}_{sig}" in paths
    assert {str(p) for p in rsa.rsa_at({}).clear} <= set(paths)
    lines = vpi_control(rsa)
    assert 'public_flat_rw -module "mv_bus_loader" -var "e_q"' in lines
    assert 'public_flat_rw -module "rsa_core" -var "e_q"' in lines
    assert 'public_flat_rw -module "mv_result" -var "p_q"' in lines


def test_flat_visibility_is_a_different_build(monkeypatch: pytest.MonkeyPatch) -> None:
    design = load_design("mont_lut")
    spec = BuildSpec("mont_lut", 32)
    lean = _build_stamp(spec, design)
    monkeypatch.setenv("MV_VPI", "flat")
    assert _build_stamp(spec, design) != lean


def test_engine_main_loop_half_period() -> None:
    """The engine main loop's step: half of CLOCK_PERIOD_NS in the builds' time precision."""
    from montverif.host.errors import ConfigError
    from montverif.regress.flow.build import half_period_units
    from montverif.regress.flow.spec import TIMESCALE
    from montverif.verif.config import CLOCK_PERIOD_NS

    assert TIMESCALE[1] == "1ps" and half_period_units() == CLOCK_PERIOD_NS * 1000 // 2
    assert half_period_units(10, "1ns") == 5
    assert half_period_units(10, "100ps") == 50
    assert half_period_units(10, "10fs") == 500_000
    with pytest.raises(ConfigError, match="not a whole number of 1us"):
        half_period_units(10, "1us")
    with pytest.raises(ConfigError, match="unsupported time precision"):
        half_period_units(10, "3ps")


def test_engine_clock_variants_are_builds_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """MV_ENGINE_CLOCK=hdl (the HDL delay-loop clock, or cocotb's Clock in pin mode, under
    cocotb's main) is its own build folder and stamp, for either bus mode on Verilator and
    for neither on Icarus; the wrapper of the main-loop build has the clock as an input port
    and no delay."""
    from montverif.verif.bus import engine_layout as layout

    design = load_design("mont_lut")
    eng, pins = BuildSpec("mont_lut", 32, bus="engine"), BuildSpec("mont_lut", 32)
    icarus = BuildSpec("mont_lut", 32, sim="icarus")
    main_key, main_stamp, pins_stamp = eng.key, _build_stamp(eng, design), _build_stamp(
        pins, design)
    pins_key, icarus_key = pins.key, icarus.key
    assert [clock_source(b) for b in (eng, pins, icarus)] == ["main", "main", "tb"]
    monkeypatch.setenv("MV_ENGINE_CLOCK", "hdl")
    assert [clock_source(b) for b in (eng, pins, icarus)] == ["hdl", "tb", "tb"]
    assert eng.key == main_key.replace("-eng-", "-eng-hdlclk-")
    assert pins.key == pins_key.replace("-verilator", "-hdlclk-verilator")
    assert icarus.key == icarus_key
    assert _build_stamp(eng, design) != main_stamp
    assert _build_stamp(pins, design) != pins_stamp
    params = {"N": 32, "BusW": 32, "AckWait": 0}
    port = layout.emit_wrapper(design.toplevel, params, 8, hdl_clock=False)
    hdl = layout.emit_wrapper(design.toplevel, params, 8)
    clock_port = "input  logic                      clk_i,"
    assert clock_port in port and "always #" not in port
    assert "always #(5.0) clk_i = ~clk_i;" in hdl and clock_port not in hdl


def test_engine_script_and_log_are_public_variables_not_ports() -> None:
    """The engine's script and log (thousands of bits at N = 1024) are variables of the
    engine, public in engine builds only: as ports of the wrapper toplevel, Verilator copied
    both whole at every evaluation. Every port of the wrapper stays a few words wide."""
    import re

    from montverif.verif.bus import engine_layout as layout

    design = load_design("mont_lut")
    eng = vpi_control(design, engine_build=True)
    for var in (layout.SCRIPT_VAR, layout.LOG_VAR):
        line = f'public_flat_rw -module "{layout.ENGINE_MODULE}" -var "{var}"'
        assert line in eng and line not in vpi_control(design)
    wrapper = layout.emit_wrapper(design.toplevel, {"N": 1024, "BusW": 32, "AckWait": 0}, 140)
    ports = re.findall(r"^\s*(?:input|output)\s+logic\s*(\[[^\]]*\])?\s*(\w+),?$", wrapper,
                       flags=re.M)
    assert {name for _, name in ports} >= {"tb_go_i", "tb_len_i", "tb_fin_o", "tb_start_o"}
    assert all("EngDepth" not in width for width, _ in ports), ports
    sv = layout.ENGINE_SV.read_text()
    for var in (layout.SCRIPT_VAR, layout.LOG_VAR):
        assert re.search(rf"^\s*logic \[Depth\*\w+-1:0\] {var};", sv, flags=re.M), var
