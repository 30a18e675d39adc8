"""Where the hardware and its descriptions are."""

from __future__ import annotations

from pathlib import Path

HDL = Path(__file__).resolve().parent.parent  # hdl/
ROOT = HDL.parent  # the checkout
COMMON = HDL / "common"
REGMAP_JSON = COMMON / "regmap.json"


def shown(path: Path) -> str:
    """A path as messages write it: relative to the checkout when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
