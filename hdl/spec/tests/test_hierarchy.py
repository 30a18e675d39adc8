"""hierarchy.declaring_module: each probed signal's own module, read from the RTL."""

from __future__ import annotations

import re
from pathlib import Path

from montverif.spec import top
from montverif.spec.designs import known_designs, load_design
from montverif.spec.hierarchy import declaring_module, instance_module


def declares(src: Path, leaf: str) -> bool:
    """Whether the module in `src` declares `leaf` (a port, a logic or a register)."""
    text = top.preprocess(src)
    return re.search(rf"\b(?:logic|input|output|wire|reg)\b[^;()]*?\b{leaf}\b", text) is not None


def test_every_probe_resolves_to_the_module_declaring_it() -> None:
    seen = set()
    for name in known_designs():
        design = load_design(name)
        sources = top.sources(design)
        files = {s.stem: s for s in sources}
        for path in design.probe_paths():
            module = declaring_module(path, design.toplevel, sources)
            assert module is not None, (name, path)
            leaf = path.rsplit(".", 1)[-1]
            assert declares(files[module], leaf), (name, path, module)
            seen.add(module)
    # the observation counters, the RSA core's own registers, its loader's and its result's
    assert {"mv_observe", "rsa_core", "mv_bus_loader", "mv_result"} <= seen


def test_instances_generate_blocks_and_unknown_names() -> None:
    text = """
      mv_loop_ctrl #(.ResW(N), .F(f(a, (b)))) u_ctrl (.clk_i);
      mont_lut u_plain(.clk_i);
      if (Units == 1) begin : g_one
        mont_csa #(.N(N)) u_mult (.clk_i);
      end
      assign y = f_call (x);
    """
    modules = {"mv_loop_ctrl", "mont_lut", "mont_csa"}
    assert instance_module(text, "u_ctrl", modules) == "mv_loop_ctrl"
    assert instance_module(text, "u_plain", modules) == "mont_lut"
    assert instance_module(text, "u_mult", modules) == "mont_csa"
    assert instance_module(text, "f_call", modules) is None
    design = load_design("rsa_core")
    sources = top.sources(design)
    assert declaring_module("u_core.g_one.t_q", design.toplevel, sources) == "rsa_core"
    assert declaring_module("u_core.no_such.t_q", design.toplevel, sources) is None
    assert declaring_module("u_core.t_q", "no_such_top", sources) is None
