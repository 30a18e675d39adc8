"""The workflows' jobs as act ran them on this machine (ci/act.sh): each job's record
(build/act/<workflow>/<job>[-<key>-<value>].json: workflow, job, matrix entry, the NAME=VALUE
pairs it was given, git revision, exit, wall time) and what its log says (the longest step and
its time, the last line counting what passed), kept in results.json's `ci_jobs` and shown in
results.md. A job measured again replaces its row; the others keep theirs, each with the
revision it ran at."""

from __future__ import annotations

import re
from pathlib import Path

from montverif.host import readback
from montverif.regress.bench.common import BenchError, Record

# a job's record, as ci/act.sh writes it
RECORD_SHAPE = {"workflow": str, "job": str, "matrix": [str], "env": [str], "git": str,
                "exit": int, "wall_s": int, "log": str, "ended": str}
# a step's end in act's log: `[nightly/tests]   ✅  Success - Main long tests [17m3.2s]`
_STEP = re.compile(r"^\[[^\]]+\]\s+(?:✅|❌)\s+(Success|Failure) - Main (.*) \[([0-9.hmsµn]+)\]$")
_DURATION = re.compile(r"([0-9.]+)(h|ms|µs|ns|m|s)")
_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
# the line that counts a job's results (pytest's, a regression's), else the line a nightly
# script ends with (its time and exit)
_COUNTS = re.compile(r"\b\d+ (?:passed|failed)\b")
_ENDS = re.compile(r"\bnightly (?:shard|tests)\b.*: \d+ s, exit")
_PREFIX = re.compile(r"^\[[^\]]+\]\s+\|\s?")


def duration(text: str) -> float:
    """A Go duration as act prints it (`17m3.215s`, `745.6µs`) in seconds."""
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(float(n) * _SECONDS[u] for n, u in parts)


def from_log(text: str) -> Record:
    """The longest step of a job's log (name, seconds, whether it succeeded) and the last line
    of the steps' output that counts results (else the nightly script's last line; "" when
    there is neither)."""
    steps = []
    counts = ends = ""
    for line in text.splitlines():
        if m := _STEP.match(line):
            steps.append((duration(m.group(3)), m.group(2), m.group(1) == "Success"))
        elif not _PREFIX.match(line):
            continue  # act's own lines and the job summary it prints at the end
        elif _COUNTS.search(line) and not _PREFIX.sub("", line).startswith("["):
            counts = _PREFIX.sub("", line).strip()  # not a run's progress line: [3/9] PASS ..
        elif _ENDS.search(line):
            ends = _PREFIX.sub("", line).strip()
    counts = counts or ends
    if not steps:
        return {"step": "", "step_s": 0.0, "step_ok": False, "result": counts}
    seconds, name, ok = max(steps)
    return {"step": name, "step_s": round(seconds, 1), "step_ok": ok, "result": counts}


def _log_name(record: Path, name: str) -> str:
    """A record's log: a file beside it, named without a folder (ci/act.sh writes it so); a
    path that would reach elsewhere is a corrupt record."""
    if not name or name in {".", ".."} or "/" in name or "\\" in name or "\0" in name:
        raise BenchError(f"{record}: its log {name!r} is not a file name beside it")
    return name


def read(folder: Path) -> list[Record]:
    """Every job record below `folder` (build/act: <workflow>/<job>.json) with what its log
    says; a record that is missing its log or cut short: BenchError, one line."""
    records = sorted(folder.glob("*/*.json"))
    if not records:
        raise BenchError(f"--ci-from {folder}: no job records (<workflow>/<job>.json, written "
                         "by ci/act.sh)")
    out = []
    for path in records:
        try:
            rec = readback.read_json(path, RECORD_SHAPE)
            log = (path.parent / _log_name(path, rec["log"])).read_text(errors="replace")
        except OSError as exc:
            raise BenchError(f"cannot read {exc.filename}: {exc.strerror}") from None
        except readback.CorruptFile as exc:
            raise BenchError(str(exc)) from None
        try:
            out.append(rec | from_log(log))
        except ValueError as exc:
            raise BenchError(f"{path.parent / rec['log']}: {exc}") from None
    return out


def key(rec: Record) -> tuple[str, ...]:
    return (rec["workflow"], rec["job"], *rec["matrix"], *rec["env"])


def merged(old: list[Record], new: list[Record]) -> list[Record]:
    """`old` with each job of `new` in its place (or added), in workflow and job order."""
    by_key = {key(r): r for r in old} | {key(r): r for r in new}
    return [by_key[k] for k in sorted(by_key)]


def section(jobs: list[Record]) -> list[str]:
    """results.md's table of the jobs."""
    lines = ["", "## CI jobs as act ran them", "",
             "Each job of the workflows as written, run by `ci/act.sh` on this machine "
             "(host mode, two cores), with the caches the workflow keeps as this machine's "
             "previous runs left them; the job's `.venv` is made again each time (the "
             "stand-in of actions/cache keeps only `~/.cache`). A job given NAME=VALUE pairs "
             "ran a part of itself, as the column says. A job with a non-zero exit and no "
             "result did not end by itself (stopped from outside, or act failed): its wall "
             "time is a lower bound.", "",
             "| workflow | job | given | git | wall (min) | longest step (min) | exit | result |",
             "|---|---|---|---|---|---|---|---|"]
    for r in jobs:
        given = ", ".join([*r["matrix"], *r["env"]]) or "–"
        step = f"{r['step']}: {r['step_s'] / 60:.1f}" if r["step"] else "–"
        lines.append(f"| {r['workflow']} | {r['job']} | {given} | {r['git']} | "
                     f"{r['wall_s'] / 60:.1f} | {step} | {r['exit']} | {r['result'] or '–'} |")
    return lines
