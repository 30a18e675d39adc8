"""Where the hardware and its descriptions are."""

from __future__ import annotations

from pathlib import Path

HDL = Path(__file__).resolve().parent.parent  # hdl/
ROOT = HDL.parent  # the checkout
COMMON = HDL / "common"
REGMAP_JSON = COMMON / "regmap.json"
# Where an RTL file's `include is found (every build, lint and elaboration passes -I<dir>):
# hdl/common/mv_core_ports.svh, the port list every core shares.
INCLUDE_DIRS = (COMMON,)


def include_files() -> list[Path]:
    """The files an `include can name: part of every build's inputs (its stamp)."""
    return sorted(f for d in INCLUDE_DIRS for f in d.glob("*.svh"))


def include_flags() -> list[str]:
    """The include search path as Verilator and Icarus both take it."""
    return [f"-I{d}" for d in INCLUDE_DIRS]


def shown(path: Path) -> str:
    """A path as messages write it: relative to the checkout when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
