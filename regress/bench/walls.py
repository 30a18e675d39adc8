"""A regression list's wall time at each job count, from a fresh state or taken from a
regression already run, and the parallel efficiency between them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from montverif.host import environment, readback, tools
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, work
from montverif.regress.bench.common import BenchError, Record, bench_build, scratch
from montverif.regress.regression.results import PARTS_NOTE


def regression_wall(list_name: str, jobs: list[int]) -> Record:
    """Wall time of a list at each job count, each from the same fresh state: no model built
    (a cache of builds of its own) and an empty compiler cache, as on a new machine; otherwise
    the second measurement would reuse the first one's models. Each result names the git revision
    it was measured at, as wall times taken from a finished regression do."""
    out: Record = {}
    rev = tools.git_revision(ROOT)
    base = scratch(bench_build() / "walls")  # this process's: nothing below is another's
    for j in jobs:
        folder = base / "regress" / f"{list_name}-j{j}"
        if folder.exists():
            shutil.rmtree(folder)
        # every model built again, in a cache of the measurement's own (the user's builds,
        # which other runs may be using, are left alone), ccache's too
        builds = base / f"builds-j{j}"
        shutil.rmtree(builds, ignore_errors=True)
        cache = base / "ccache-wall"
        shutil.rmtree(cache, ignore_errors=True)
        t0 = time.monotonic()
        res = subprocess.run([sys.executable, "-m", "montverif.regress.cli", "regress",
                              "--list", list_name, "--jobs", str(j), "--out", str(folder)],
                             capture_output=True, text=True,
                             env=os.environ | {"CCACHE_DIR": str(cache),
                                               environment.CACHE.name: str(builds),
                                               environment.WORKDIR.name: str(work())})
        wall = time.monotonic() - t0
        if (folder / "summary.json").exists():  # runs, campaigns and models counted apart
            last = str(wall_from_results(folder)[str(j)]["last_line"])
        else:
            last = f"{(res.stdout.strip().splitlines() or [''])[-1]} (git {rev})"
        out[str(j)] = {"wall_s": round(wall, 1), "exit": res.returncode, "last_line": last}
    return with_efficiency(out)


def wall_revision(wall: Record) -> str:
    """The git revision a wall time was measured at, as its result line names it ("" when
    it does not)."""
    found = re.search(r"\bgit ([0-9a-f]{7,40})\b", str(wall.get("last_line", "")))
    return found.group(1)[:7] if found else ""


def with_efficiency(walls: Record) -> Record:
    """A list's wall times, with the parallel efficiency when both 1 and 2 jobs are there
    and were measured at the same git revision (wall(1 job) / (2 x wall(2 jobs)); each
    figure's row names where it came from). Times of different revisions are not compared:
    the list and the testbench may have changed between them."""
    walls.pop("parallel_efficiency", None)
    one, two = walls.get("1"), walls.get("2")
    if isinstance(one, dict) and isinstance(two, dict) and wall_revision(one) \
            and wall_revision(one) == wall_revision(two):
        walls["parallel_efficiency"] = one["wall_s"] / (2 * two["wall_s"])
    return walls


def pair(item: str) -> tuple[str, str]:
    name, sep, folder = item.partition("=")
    if not sep or not name or not folder:
        raise ConfigError(f"--wall-from expects LIST=DIR (got {item!r})")
    return name, folder


# what a wall time is read from in a regression's summary.json (checked: readback)
SUMMARY_SHAPE = {"jobs": int, "wall_s": float, "passed": int, "failed?": int, "git": str,
                 "shard?": (str, type(None)), "builds": [None],
                 "mutation?": ({str: {str: None}}, type(None)),
                 "formal?": ({str: {str: None}}, type(None))}


def wall_from_results(folder: Path) -> Record:
    """A regression already run (summary.json): its wall time at its job count, with where it
    came from (a measurement of its own, not repeated here)."""
    path = folder / "summary.json"
    try:
        s = readback.read_json(path, SUMMARY_SHAPE)
    except OSError as exc:
        raise BenchError(f"cannot read {path}: {exc.strerror}") from None
    except readback.CorruptFile as exc:
        raise BenchError(str(exc)) from None
    if s.get("shard"):
        raise BenchError(f"{path} is one shard ({s['shard']}), not a whole list")
    failed = s.get("failed", 0)
    campaigns = list((s.get("mutation") or {}).values())
    bad = [c for c in campaigns if c.get("status") != "passed"]
    parts = ([f"{s['passed']} passed, {failed} failed"] if s["passed"] or failed or not campaigns
             else [])
    checks = list((s.get("formal") or {}).values())
    missed = [c for c in checks if not c.get("ok")]
    if checks:  # the list's formal checks, each as it wanted (proved, bounded, a fault found)
        parts.append(f"{len(checks)} formal checks, {len(checks) - len(missed)} as wanted")
    if campaigns:  # a list's mutation campaigns (a list of campaigns alone has no runs)
        parts.append(f"{len(campaigns)} mutation campaigns, {len(campaigns) - len(bad)} passed")
    builds = s.get("builds", [])
    only = [n[len(PARTS_NOTE):] for n in s.get("notes", []) if n.startswith(PARTS_NOTE)]
    source = (f"{len(builds)} models; " if builds or not campaigns else "") + (
        f"from {folder.name}, git {str(s.get('git', ''))[:7]}")
    if only:  # a wall of some parts of the list (--parts), not of the whole list
        parts.insert(0, f"{only[0]} only")
    return {str(s["jobs"]): {"wall_s": round(float(s["wall_s"]), 1),
                             "exit": int(failed > 0 or bool(bad) or bool(missed)),
                             "last_line": f"{'; '.join(parts)} ({source})"}}
