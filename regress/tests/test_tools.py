"""regress/flow/tools.py: the Verilator build environment."""

from __future__ import annotations

import os
import shutil

import pytest

from montverif.regress.flow import paths, tools


def test_ccache_is_used_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAKEFLAGS", "")
    monkeypatch.delenv("CCACHE_DIR", raising=False)
    monkeypatch.delenv("CCACHE_BASEDIR", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    tools.setup_env("verilator")
    assert tools.PCH_FIX in os.environ["MAKEFLAGS"]
    assert "OBJCACHE=ccache" in os.environ["MAKEFLAGS"]
    # the user's cache, outside the checkout, paths hashed relative to the checkout
    cache = os.environ["CCACHE_DIR"]
    assert cache == str(tools.ccache_dir()) and not cache.startswith(str(paths.ROOT))
    assert os.environ["CCACHE_BASEDIR"] == str(paths.ROOT)
    tools.setup_env("verilator")  # idempotent
    assert os.environ["MAKEFLAGS"].count("OBJCACHE=ccache") == 1


def test_no_ccache_no_objcache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAKEFLAGS", "")
    monkeypatch.setenv("CCACHE_DIR", "/somewhere/else")
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "ccache" else name)
    tools.setup_env("verilator")
    assert "OBJCACHE" not in os.environ["MAKEFLAGS"]
    assert os.environ["CCACHE_DIR"] == "/somewhere/else"


def test_models_are_optimised_alike_and_the_level_is_in_the_stamp(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Verilated model (cocotb's builds and the raw harness of `make bench`) gets
    tools.OPT_FAST through MAKEFLAGS, a user's own OPT_FAST wins, and a build made at another
    level is another build (its stamp differs)."""
    from montverif.regress.flow.build import _build_stamp
    from montverif.regress.flow.spec import BuildSpec
    from montverif.spec.designs import load_design

    monkeypatch.setenv("MAKEFLAGS", "")
    tools.setup_env("verilator")
    assert f"OPT_FAST={tools.OPT_FAST}" in tools.make_overrides()
    assert not [w for w in tools.make_overrides() if w.startswith("OBJCACHE=")]
    tools.setup_env("verilator")  # idempotent
    assert os.environ["MAKEFLAGS"].count("OPT_FAST=") == 1
    design, spec = load_design("mont_lut"), BuildSpec("mont_lut", 32, bus="engine")
    ours = _build_stamp(spec, design)
    monkeypatch.setenv("MAKEFLAGS", "OPT_FAST=-O0")
    tools.setup_env("verilator")
    assert "OPT_FAST=-O0" in tools.make_overrides()
    assert f"OPT_FAST={tools.OPT_FAST}" not in os.environ["MAKEFLAGS"]
    assert _build_stamp(spec, design) != ours
