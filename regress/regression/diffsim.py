"""The same seed on Icarus and on Verilator: identical transaction logs (timing aside)?"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from montverif.regress.regression.results import PASS, DiffResult, RunResult
from montverif.regress.regression.seeds import sim_free_key

TIMING_FIELDS = frozenset({"start_ns", "end_ns", "wall_s", "time_ns"})


def transactions(log_dir: Path | None) -> list[dict] | None:
    """A run's txns.jsonl without timing fields (None if there is none)."""
    try:
        lines = (log_dir / "txns.jsonl").read_text().splitlines() if log_dir else None
    except OSError:
        return None
    if lines is None:
        return None
    return [{k: v for k, v in json.loads(ln).items() if k not in TIMING_FIELDS}
            for ln in lines if ln.strip()]


def compare_sims(results: Sequence[RunResult]) -> list[DiffResult]:
    """Runs of one build and seed on two or more simulators: the same transaction log?"""
    groups: dict[str, list[RunResult]] = {}
    for res in results:
        groups.setdefault(f"{sim_free_key(res.run.build)}-s{res.run.seed}", []).append(res)
    diffs: list[DiffResult] = []
    for key, group in groups.items():
        if len({r.run.build.sim for r in group}) < 2:
            continue
        keys = tuple(r.run.key for r in group)
        logs = [transactions(r.log_dir) for r in group]
        if any(r.status != PASS for r in group):
            diffs.append(DiffResult(key, keys, False, "not compared: a run did not pass"))
            continue
        if any(log is None for log in logs):
            diffs.append(DiffResult(key, keys, False, "not compared: no txns.jsonl"))
            continue
        ref = logs[0] or []
        detail = ""
        for other, res in zip(logs[1:], group[1:], strict=True):
            other = other or []
            if len(other) != len(ref):
                detail = f"{len(ref)} vs {len(other)} operations ({res.run.build.sim})"
                break
            bad = next((i for i, (a, b) in enumerate(zip(ref, other, strict=True)) if a != b),
                       None)
            if bad is not None:
                fields = sorted(k for k in ref[bad].keys() | other[bad].keys()
                                if ref[bad].get(k) != other[bad].get(k))
                detail = f"operation {bad} differs in {', '.join(fields)}"
                break
        diffs.append(DiffResult(key, keys, not detail, detail))
    return diffs
