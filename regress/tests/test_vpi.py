"""The lean VPI visibility of Verilator builds (regress/sim.py: vpi_control)."""

from __future__ import annotations

import pytest

from regress.sim import BuildSpec, _build_stamp, vpi_control
from verif.config import MULT_SIGNALS, known_designs, load_design


def test_every_probed_signal_is_made_public() -> None:
    for name in known_designs():
        design = load_design(name)
        text = vpi_control(design)
        assert text.startswith("`verilator_config\n")
        for path in [v for v in design.observe.values() if isinstance(v, str) and "." in v]:
            assert f'-var "{path.rsplit(".", 1)[1]}"' in text, (name, path)
    rsa = vpi_control(load_design("rsa_core"))
    for prefix in ("ma", "ms"):
        for sig in MULT_SIGNALS:
            assert f'-var "{prefix}_{sig}"' in rsa
    for path in load_design("rsa_core").rsa["clear"]:  # type: ignore[union-attr]
        assert f'-var "{str(path).rsplit(".", 1)[1]}"' in rsa


def test_flat_visibility_is_a_different_build(monkeypatch: pytest.MonkeyPatch) -> None:
    design = load_design("mont_lut")
    spec = BuildSpec("mont_lut", 32)
    lean = _build_stamp(spec, design)
    monkeypatch.setenv("MV_VPI", "flat")
    assert _build_stamp(spec, design) != lean
