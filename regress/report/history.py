"""Nightly history: one JSON line per regression (pass rate, counts, wall time, coverage %,
each formal check's verdict and how many reached the one they need, the mutation score of
each design with a campaign and their mean and minimum).

`montverif regress` appends to <results root>/history.jsonl (`--history PATH` changes it;
shards do not append, their `regress merge` does). The HTML report plots it.

A regression that did not run everything it planned (interrupted, --fail-fast, a merge with
shards missing) is written as partial: `"partial"` says why, and its pass rate and coverage
are null, since they describe only the part that ran. Trends read complete regressions only.
"""

from __future__ import annotations

import json
from pathlib import Path


def coverage_duts(out_dir: Path) -> dict[str, dict]:
    """Per-DUT records of <out>/coverage/summary.json (regress/coverage/merge.py: covered,
    total and, from the merge, goal, met, uncovered, waived), those with int covered/total
    bins only. Accepts {"duts": {dut: {...}}}, {dut: {...}} or [{"dut": ..., ...}]; the
    names covered_bins/total_bins are read as covered/total."""
    path = out_dir / "coverage" / "summary.json"
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if isinstance(raw, dict) and isinstance(raw.get("duts"), dict | list):
        raw = raw["duts"]
    items = raw.items() if isinstance(raw, dict) else (
        (d.get("dut"), d) for d in raw if isinstance(d, dict)) if isinstance(raw, list) else ()
    out: dict[str, dict] = {}
    for dut, rec in items:
        if isinstance(dut, str) and isinstance(rec, dict):
            cov = rec.get("covered", rec.get("covered_bins"))
            tot = rec.get("total", rec.get("total_bins"))
            if isinstance(cov, int) and isinstance(tot, int) and tot > 0:
                out[dut] = rec | {"covered": cov, "total": tot}
    return out


def coverage_summary(out_dir: Path) -> dict[str, tuple[int, int]]:
    """Per-DUT (covered, total) bins from <out>/coverage/summary.json if it exists."""
    return {dut: (rec["covered"], rec["total"]) for dut, rec in coverage_duts(out_dir).items()}


def coverage_pct(out_dir: Path) -> float | None:
    cov = coverage_summary(out_dir)
    if not cov:
        return None
    return round(100.0 * sum(c for c, _ in cov.values()) / sum(t for _, t in cov.values()), 2)


def mutation_scores(summary: dict) -> dict[str, object]:
    """Each design's mutation score (percent; None when the campaign gave none) and the
    mean and minimum over the designs that have one (None if none has)."""
    per = {dut: rec.get("score") for dut, rec in summary.get("mutation", {}).items()}
    scores = [s for s in per.values() if isinstance(s, int | float)]
    return {"mutation": per,
            "mutation_mean": round(sum(scores) / len(scores), 2) if scores else None,
            "mutation_min": min(scores) if scores else None}


def formal_verdicts(summary: dict) -> dict[str, object]:
    """Each formal check's verdict (`bounded`, `failed`, ...; `ok` whether it is the one the
    check needs) and how many of the checks reached theirs (None without formal checks)."""
    checks = summary.get("formal", {})
    per = {key: {"status": rec.get("status"), "ok": bool(rec.get("ok"))}
           for key, rec in checks.items()}
    return {"formal": per,
            "formal_ok": sum(v["ok"] for v in per.values()) if per else None,
            "formal_total": len(per) if per else None}


def partial(summary: dict) -> str:
    """Why the regression of this summary is partial ("" when it ran all it planned)."""
    passed, failed = int(summary["passed"]), int(summary["failed"])
    planned = int(summary.get("planned") or passed + failed + int(summary["skipped"]))
    campaigns = summary.get("mutation", {})
    camp_done = sum(rec.get("status") != "skipped" for rec in campaigns.values())
    camp_planned = int(summary.get("mutation_planned", len(campaigns)))
    checks = summary.get("formal", {})
    checks_done = sum(rec.get("status") != "skipped" for rec in checks.values())
    checks_planned = int(summary.get("formal_planned", len(checks)))
    if passed + failed == planned and camp_done == camp_planned and \
            checks_done == checks_planned and not summary.get("stopped"):
        return ""
    why = summary.get("stopped") or "incomplete"
    text = f"{why}: {passed + failed} of {planned} runs"
    text += f", {checks_done} of {checks_planned} formal checks" if checks_planned else ""
    return text + (f", {camp_done} of {camp_planned} mutation campaigns" if camp_planned else "")


def record(summary: dict, out_dir: Path) -> dict[str, object]:
    passed, failed = int(summary["passed"]), int(summary["failed"])
    done = passed + failed
    rec: dict[str, object] = {
        "list": summary["list"], "start": summary["start"], "git": summary["git"],
        "passed": passed, "failed": failed, "skipped": summary["skipped"],
        "errors": summary.get("errors", 0),
        "pass_rate": round(100.0 * passed / done, 2) if done else None,
        "buckets": len(summary.get("buckets", [])), "wall_s": summary["wall_s"],
        "coverage_pct": coverage_pct(out_dir), **formal_verdicts(summary),
        **mutation_scores(summary),
        "out_dir": str(out_dir)}
    if why := partial(summary):
        rec |= {"partial": why, "pass_rate": None, "coverage_pct": None}
    return rec


def append(path: Path, summary: dict, out_dir: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(record(summary, out_dir)) + "\n")


def load(path: Path) -> list[dict]:
    """Every readable line of the history file (a damaged line is skipped, not fatal)."""
    try:  # a line that is not a record (nor UTF-8) is left out, as a half-written one is
        lines = path.read_bytes().decode(errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "start" in rec:
            out.append(rec)
    return out


def complete(records: list[dict]) -> list[dict]:
    """The records of regressions that ran everything they planned (what trends show)."""
    return [rec for rec in records if not rec.get("partial")]
