"""Results folders: one per regression, named after the list and the time, and `latest`;
the plan a folder was started with (plan.json), which `--resume` must match."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from montverif.host import readback
from montverif.host.paths import work
from montverif.regress.regression.lists import ListError


def results_root() -> Path:
    """The regressions' results folders."""
    return work("regress")

def results_dir(root: Path, name: str, out: str | None) -> Path:
    """--out as given (the caller claims and creates it), else a new folder under root."""
    if out:
        return Path(out).resolve()
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


PLAN_FILE = "plan.json"
# what --resume reads of plan.json and (a folder of an older montverif) summary.json
PLAN_SHAPE = {"list": str, "base_seed": int, "runs": [str], "campaigns": [str],
              "formal?": [str]}
SUMMARY_SHAPE = {"list": str, "base_seed": int, "runs": [{"key": str}],
                 "mutation?": {str: None}, "formal?": {str: None}, "wall_s?": float}


def plan(name: str, base_seed: int, runs: Sequence[str], campaigns: Sequence[str],
         checks: Sequence[str] = ()) -> dict[str, object]:
    """What a regression sets out to do: its list, base seed, run keys, the designs of its
    mutation campaigns and the keys of its formal checks (when it has any)."""
    return {"list": name, "base_seed": base_seed, "runs": sorted(runs),
            "campaigns": sorted(campaigns)} | ({"formal": sorted(checks)} if checks else {})


def write_plan(out_dir: Path, wanted: dict[str, object]) -> None:
    (out_dir / PLAN_FILE).write_text(json.dumps(wanted, indent=1) + "\n")


def _described(p: dict[str, object]) -> str:
    runs, camps = p.get("runs") or [], p.get("campaigns") or []
    extra = f" + {len(camps)} mutation campaign(s)" if isinstance(camps, list) and camps else ""
    checks = p.get("formal") or []
    extra += f" + {len(checks)} formal check(s)" if isinstance(checks, list) and checks else ""
    count = len(runs) if isinstance(runs, list) else "?"
    return f"list '{p.get('list')}' (seed {p.get('base_seed')}, {count} runs{extra})"


def check_resume(out_dir: Path, wanted: dict[str, object]) -> float:
    """Refuse (ListError, one line) to resume a folder that holds another regression than
    `wanted`; returns the wall time the folder's earlier attempts took (0 if unknown)."""
    summary: dict = {}
    try:  # only what the plan needs: a summary cut short is written again
        summary = readback.read_json(out_dir / "summary.json", SUMMARY_SHAPE)
    except (OSError, ValueError):
        pass
    try:
        found = readback.read_json(out_dir / PLAN_FILE, PLAN_SHAPE)
    except readback.CorruptFile as exc:
        raise ListError(f"--resume: {exc}") from None
    except OSError:  # a folder of an older montverif: its summary says
        found = plan(summary["list"], summary["base_seed"],
                     [r["key"] for r in summary["runs"]],
                     list(summary.get("mutation", {})),
                     list(summary.get("formal", {}))) if summary else {}
    if not found:
        raise ListError(f"--resume: results folder {out_dir} holds no regression to resume "
                        f"(no {PLAN_FILE} or summary.json)")
    if found != wanted:
        raise ListError(f"--resume: results folder {out_dir} holds {_described(found)}, not "
                        f"{_described(wanted)}; resume with the same list and options, or "
                        "choose another --out")
    wall = summary.get("wall_s", 0.0) if isinstance(summary, dict) else 0.0
    return float(wall) if isinstance(wall, int | float) else 0.0


def check_fresh(out_dir: Path) -> None:
    """A new regression never writes over another one's results (ListError, one line)."""
    if (out_dir / PLAN_FILE).exists() or (out_dir / "summary.json").exists():
        raise ListError(f"results folder {out_dir} holds a regression already: resume it with "
                        "--resume, or choose another --out")
