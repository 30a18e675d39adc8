"""Where the project's sources are and where the flow writes."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout: hdl/, models/, verif/, regress/
BUILD_ROOT = ROOT / "build"
SIM_BUILDS = BUILD_ROOT / "sim"  # one folder per compiled model (BuildSpec.key)
RUNS_ROOT = BUILD_ROOT / "runs"  # `montverif sim`'s run folders (default)
