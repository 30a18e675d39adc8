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
