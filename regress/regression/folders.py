"""Results folders: one per regression, named after the list and the time, and `latest`."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from montverif.regress.flow.paths import BUILD_ROOT
from montverif.regress.regression.lists import ListError

RESULTS_ROOT = BUILD_ROOT / "regress"

def results_dir(root: Path, name: str, out: str | None) -> Path:
    if out:
        path = Path(out).resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    root.mkdir(parents=True, exist_ok=True)
    for suffix in ("", *(f"-{i}" for i in range(2, 100))):
        path = root / f"{name}-{stamp}{suffix}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise ListError(f"cannot create a results folder under {root}")


def point_latest(root: Path, target: Path) -> None:
    """root/latest -> target (relative when inside root), replaced atomically."""
    root.mkdir(parents=True, exist_ok=True)
    link = root / "latest"
    dest = Path(os.path.relpath(target, root)) if target.parent == root.resolve() else target
    tmp = root / f".latest.{os.getpid()}"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(dest)
    os.replace(tmp, link)
