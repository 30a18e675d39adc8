"""Formal checks of a regression list: the `[[<list>.formal]]` blocks of regress/lists.toml,
run by `montverif regress` after the list's simulation runs (docs/formal.md, docs/regression.md).

A block names what to check:

    [[nightly.formal]]
    dut = "*"        # every design's [formal] points and the bus loader's proof; or a name,
                     # or a list of names (designs, or the blocks mv_bus_loader and
                     # mont_dual_mul: formal.BLOCKS)
    n = [4]          # optional: only these widths (a design without a [formal] point at a
                     # width is checked there with its default parameters)
    fault = true     # optional: also each design's fault build at its first point, which
                     # must fail (a counterexample): the check catches a broken design
    timeout = 600    # optional: seconds per SBY task (a design's [formal] timeout if longer)
    prove = true     # optional: also each design's core for all time at its first point
                     # (k-induction over operations back to back, formal_core's mode prove)
    prove_timeout = 180  # optional: seconds per SBY task of those checks

A `prove` check upgrades its core's verdict: PROVED when induction closes; where it does not
close within `prove_timeout` (or at its depth) the core stays BOUNDED by its bounded checks,
and the check passes saying so (`cores`, below). A counterexample from reset, an unreached
cover or a run that could not start fails it.

Each check is one `formal.formal` run in <results>/formal/<NN>-<key>/ and ends in a record
(summary.json "formal": {key: record}): its verdict (proved, bounded to depth k, failed with
the failing assertion, its counterexample VCD and a replayable vector file, vacuous,
unknown), the verdict it needed and whether it got it, and the `montverif formal` line that
repeats it. A check that could not run is an `error` record with one line.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from montverif.host import readback
from montverif.host.errors import ConfigError
from montverif.regress.flow.launcher import one_line
from montverif.regress.formal import formal
from montverif.regress.regression.lists import (
    ListError,
    TestList,
    as_bool,
    as_duts,
    as_int,
    as_ints,
)
from montverif.regress.regression.results import FAIL, PASS, Regression
from montverif.regress.regression.scheduler import Progress, ScheduleOptions, parallel
from montverif.regress.regression.shards import deal
from montverif.spec.bounds import TIMEOUT_S, WIDTH, Bound
from montverif.spec.designs import known_designs, load_design

KEYS = ("dut", "n", "fault", "timeout", "prove", "prove_timeout")
FOLDER = "formal"
DEFAULT_TIMEOUT_S = 600
DEFAULT_PROVE_TIMEOUT_S = 180
PROVED_OR_OPEN = "proved (else open)"  # what a design's prove check needs
ERROR, SKIPPED = "error", "skipped"  # records of checks that gave no verdict


@dataclass(frozen=True)
class Check:
    """One formal check of a list: the proof, and its position among the list's checks."""

    spec: formal.FormalSpec
    index: int = 0

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def folder(self) -> str:
        """The check's folder, relative to the results folder."""
        return f"{FOLDER}/{self.index:02d}-{self.key}"

    @property
    def wanted(self) -> str:
        return wanted(self.spec)

    @property
    def dut(self) -> str:
        return self.spec.block


def is_induction(spec: formal.FormalSpec) -> bool:
    """A design's check by k-induction: it upgrades the core's verdict to PROVED, or leaves
    it open (BOUNDED by the bounded checks) when induction does not close."""
    return spec.is_design and spec.mode == "prove" and not spec.fault


def wanted(spec: formal.FormalSpec) -> str:
    return PROVED_OR_OPEN if is_induction(spec) else formal.wanted(spec)


def reached(spec: formal.FormalSpec, status: str) -> bool:
    """Whether a verdict is the one the check needs: an induction check passes proved, or
    open (bounded: induction did not close at its depth; unknown: not within its time)."""
    if is_induction(spec):
        return status in ("proved", "bounded", "unknown")
    return status == formal.wanted(spec)


# --- lists.toml -----------------------------------------------------------------------------
def _names(raw: object, where: str) -> list[str]:
    if raw == "*":
        return [*formal.BLOCKS, *(d for d in known_designs() if load_design(d).formal_points)]
    return list(dict.fromkeys(as_duts(raw, where, tuple(formal.BLOCKS))))


# a formal check's N, at least 2; formal.check narrows it, saying why (a block's harness
# 2..64, a core 4..16: the solver's time grows steeply with N)
FORMAL_WIDTH = Bound(2, WIDTH.hi)


def _widths(raw: object, where: str) -> list[int] | None:
    if raw is None:
        return None
    values = raw if isinstance(raw, list) else [raw]
    return list(as_ints(values, where, FORMAL_WIDTH))


def _design_specs(name: str, widths: list[int] | None, fault: bool, timeout_s: int,
                  where: str, prove_s: int = 0) -> list[formal.FormalSpec]:
    """A design's bounded checks at its points, its fault build's and (prove_s > 0) its
    k-induction check at the first point, each SBY task at most prove_s seconds."""
    design = load_design(name)
    points = [(n, p) for n, p in design.formal_points if widths is None or n in widths]
    points += [(n, ()) for n in widths or [] if n not in {p[0] for p in points}]
    if not points:
        raise ListError(f"{where}: {name} names no [formal] points (give n = [...])")
    specs = [formal.FormalSpec(name, (("N", n), *params), mode="bmc",
                               timeout_s=max(timeout_s, design.formal_timeout))
             for n, params in points]
    if fault:
        if not design.fault_params:
            raise ListError(f"{where}: {name} has no [fault] build to check")
        specs.append(dataclasses.replace(specs[0], fault=True))
    try:
        specs = [dataclasses.replace(s, depth=(depth := s.core_proof().depth),
                                     cover_depth=depth) for s in specs]
        if prove_s and design.stream is None:
            spec = dataclasses.replace(specs[0], mode="prove", fault=False, timeout_s=prove_s)
            depth = formal.design_depth(spec)
            specs.append(dataclasses.replace(spec, depth=depth, cover_depth=depth))
        return specs
    except ConfigError as exc:
        raise ListError(f"{where}: {name}: {exc}") from None


def parse(raw: object, where: str) -> list[formal.FormalSpec]:
    """One `[[<list>.formal]]` block: its checks, in the order of its names."""
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    if "dut" not in raw:
        raise ListError(f"{where}: missing dut")
    if unknown := [k for k in raw if k not in KEYS]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                        f"(known: {', '.join(KEYS)})")
    widths = _widths(raw.get("n"), f"{where}.n")
    fault = as_bool(raw.get("fault", False), f"{where}.fault")
    timeout_s = as_int(raw.get("timeout", DEFAULT_TIMEOUT_S), f"{where}.timeout", TIMEOUT_S)
    prove = as_bool(raw.get("prove", False), f"{where}.prove")
    prove_s = as_int(raw.get("prove_timeout", DEFAULT_PROVE_TIMEOUT_S),
                     f"{where}.prove_timeout", TIMEOUT_S)
    if "prove_timeout" in raw and not prove:
        raise ListError(f"{where}: prove_timeout without prove = true")
    specs: list[formal.FormalSpec] = []
    for name in _names(raw["dut"], f"{where}.dut"):
        if block := formal.BLOCKS.get(name):
            specs += [formal.FormalSpec(name, (("N", n),) if n != 8 else (),
                                        depth=block.depth, cover_depth=block.cover_depth,
                                        timeout_s=timeout_s) for n in widths or [8]]
        else:
            specs += _design_specs(name, widths, fault, timeout_s, where,
                                   prove_s if prove else 0)
    for spec in specs:
        try:
            formal.check(spec)
        except ConfigError as exc:
            raise ListError(f"{where}: {exc}") from None
    return specs


def of_list(tlist: TestList, lists_name: str = "lists.toml") -> tuple[Check, ...]:
    """The checks of a list's `[[<list>.formal]]` blocks (ListError if malformed); a check
    named twice is refused."""
    where = f"{lists_name}: {tlist.name}.formal"
    specs = [s for i, b in enumerate(tlist.formal) for s in parse(b, f"{where}[{i}]")]
    seen: set[str] = set()
    for s in specs:
        if s.key in seen:
            raise ListError(f"{where}: {s.key} is checked more than once")
        seen.add(s.key)
    return tuple(Check(s, i) for i, s in enumerate(specs))


def plan(checks: Sequence[Check], sims: Sequence[str] | None = None,
         duts: Sequence[str] | None = None) -> list[Check]:
    """The checks to run: none when the runs are limited to simulators (a proof has none);
    with designs named, only theirs (the loader's proof belongs to no design)."""
    if sims:
        return []
    return [c for c in checks if not duts or c.dut in duts]


# --- shards: dealt by each check's measured time -------------------------------------------
# formal-seconds.json: each check's seconds as a nightly measured them (`montverif bench
# --update --formal-from <a regression's folders>` writes it), the revision and how
SECONDS_FILE = Path(__file__).with_name("formal-seconds.json")
SECONDS_SHAPE = {"git": str, "from": str, "seconds": {str: float}}


def measured_seconds(path: Path | None = None) -> dict[str, float]:
    """The checks' measured seconds (SECONDS_FILE's unless `path`; none when the file is
    absent); a file cut short or not of its shape: ConfigError, one line."""
    path = SECONDS_FILE if path is None else path
    if not path.exists():
        return {}
    try:
        return dict(readback.read_json(path, SECONDS_SHAPE)["seconds"])
    except (OSError, readback.CorruptFile) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def estimate(check: Check) -> float:
    """A check's size without a measurement: the state grows with N, the steps with the
    depth, a fault build twice."""
    params = check.spec.resolved()
    return float(params.get("N", 8) * check.spec.depth) * (2.0 if check.spec.fault else 1.0)


def costs(checks: Sequence[Check], seconds: dict[str, float]) -> dict[str, float]:
    """Each check's cost in seconds: its measured time, else its estimate scaled by the
    median seconds per unit of estimate over the measured checks."""
    ratios = sorted(seconds[c.key] / estimate(c) for c in checks if c.key in seconds)
    scale = ratios[len(ratios) // 2] if ratios else 1.0
    return {c.key: seconds.get(c.key, estimate(c) * scale) for c in checks}


def shard(checks: Sequence[Check], index: int, count: int,
          seconds: dict[str, float] | None = None) -> list[Check]:
    """The checks of shard index/count (1-based): each to exactly one shard, the costliest
    first to the least loaded, dealt from the last shard backwards (the first shard also
    checks the recorded equivalents), so the split depends only on the checks and their
    costs (`seconds`: measured times, by default formal-seconds.json's)."""
    measured = measured_seconds() if seconds is None else seconds
    owner = deal(costs(checks, measured), count, from_last=True)
    return [c for c in checks if owner[c.key] == index - 1]


def seconds_of(summaries: Sequence[Path]) -> dict[str, float]:
    """Each formal check's seconds in regression folders' summary.json (a nightly's formal
    shards): the checks that ran (a `prove` check that ran out of time took that time; a
    check that could not start measures nothing)."""
    out: dict[str, float] = {}
    for path in summaries:
        for key, rec in readback.read_json(path, {"formal?": {str: {str: None}}}) \
                .get("formal", {}).items():
            if rec.get("status") != "error" and isinstance(
                    rec.get("seconds"), int | float):
                out[key] = float(rec["seconds"])
    return out


# --- records (summary.json "formal": {key: record}) -----------------------------------------
def _rel(path: Path | None, out_dir: Path) -> str | None:
    if path is None:
        return None
    try:
        return str(path.resolve().relative_to(out_dir.resolve()))
    except ValueError:
        return str(path)


def _base(check: Check, status: str, message: str, seconds: float) -> dict[str, Any]:
    return {"key": check.key, "dut": check.dut, "index": check.index,
            "point": check.spec.resolved(), "fault": check.spec.fault,
            "mode": check.spec.mode, "wanted": check.wanted, "status": status,
            "ok": False, "depth": 0, "seconds": round(seconds, 1), "message": message,
            "failed_assertion": "", "location": "", "trace": None, "vector": None,
            "replay": "", "relation": "", "dir": check.folder,
            "repro": formal.command(check.spec)}


def record(check: Check, verdict: formal.Verdict, out_dir: Path) -> dict[str, Any]:
    """A finished check's record from its verdict (paths relative to the results folder)."""
    rec = _base(check, verdict.status, verdict.message, verdict.seconds)
    rec |= {"ok": reached(check.spec, verdict.status), "depth": verdict.depth,
            "failed_assertion": verdict.failed_assertion, "location": verdict.location,
            "trace": _rel(verdict.trace, out_dir), "vector": _rel(verdict.vector, out_dir),
            "replay": verdict.replay, "relation": verdict.relation,
            "covers": [verdict.covers_reached, verdict.covers_total]}
    if verdict.status == "vacuous":
        rec["message"] = f"covers unreached: {', '.join(verdict.unreached)}"
    return rec


def error_record(check: Check, message: str, seconds: float) -> dict[str, Any]:
    return _base(check, ERROR, message, seconds)


def skipped_record(check: Check, why: str) -> dict[str, Any]:
    return _base(check, SKIPPED, f"not started: {why}", 0.0)


def describe(rec: dict[str, Any]) -> str:
    """A record's verdict in words: `bounded to depth 18`, `FAILED: u_core.a_sum at step 7`."""
    status = str(rec["status"])
    if rec.get("wanted") == PROVED_OR_OPEN and status in ("bounded", "unknown"):
        why = (f"not within {rec['message'].split('within ')[-1]}" if "within" in rec["message"]
               else f"not at depth {rec['depth']}" if status == "bounded" else rec["message"])
        return f"open: induction did not close ({why})"
    if status == "bounded":
        text = f"bounded to depth {rec['depth']}"
    elif status == "proved":
        text = f"proved (k-induction at depth {rec['depth']})"
    elif status == "failed":
        text = f"failed: {rec['failed_assertion'] or 'an assertion'} at step {rec['depth']}"
    else:
        text = status + (f": {rec['message']}" if rec.get("message") else "")
    if rec.get("fault"):
        text += " (fault build: must fail)"
    return text


def cores(recs: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Each design's core in one word and its evidence, from its checks' records: PROVED (its
    induction check closed), BOUNDED (every bounded check reached its depth), FAILED (a
    check of the core missed its verdict), or what else stands (none ran)."""
    out: dict[str, str] = {}
    for dut in dict.fromkeys(str(r["dut"]) for r in recs if r.get("mode") == "bmc"
                             or r.get("wanted") == PROVED_OR_OPEN):
        mine = [r for r in recs if r["dut"] == dut and not r.get("fault")]
        bounded = [r for r in mine if r.get("mode") == "bmc"]
        proved = [r for r in mine if r["wanted"] == PROVED_OR_OPEN and r["status"] == "proved"]
        if missed := [r for r in mine if not r["ok"]]:
            word = "NOT RUN" if missed[0]["status"] == SKIPPED else "FAILED"
            out[dut] = f"{word} ({describe(missed[0])})"
        elif proved:
            n = proved[0]["point"].get("N")
            out[dut] = f"PROVED (k-induction at depth {proved[0]['depth']}, N={n})"
        elif bounded:
            out[dut] = "BOUNDED (" + ", ".join(
                f"N={r['point'].get('N')} to depth {r['depth']}" for r in bounded) + ")"
    return out


RECORD = "record.json"  # a check's record in its folder, written last: the check finished


def finished(out_dir: Path, check: Check) -> dict[str, Any] | None:
    """The record of a check that finished earlier in out_dir with the same settings."""
    try:
        rec = readback.read_json(out_dir / check.folder / RECORD, {"repro": str})
        return dict(rec) if rec["repro"] == formal.command(check.spec) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


# --- running --------------------------------------------------------------------------------
def run_one(check: Check, out_dir: Path) -> dict[str, Any]:
    """Run one check into out_dir/formal/<NN>-<key>/; never raises (errors are records)."""
    folder = out_dir / check.folder
    t0 = time.monotonic()
    try:
        shutil.rmtree(folder, ignore_errors=True)
        verdict = formal.run(check.spec, folder)
        rec = record(check, verdict, out_dir)
        tmp = folder / f".{RECORD}.tmp"
        tmp.write_text(json.dumps(rec, indent=1) + "\n")
        tmp.replace(folder / RECORD)
        return rec
    except Exception as exc:
        return error_record(check, one_line(exc), time.monotonic() - t0)


def run_all(checks: Sequence[Check], opts: ScheduleOptions, reg: Regression,
            resume: bool = False) -> None:
    """Every check, up to opts.jobs at a time; reg.formal gets one record per check in list
    order."""
    previous = {c.key: rec for c in checks if resume and (rec := finished(reg.out_dir, c))}
    todo = [c for c in checks if c.key not in previous and not reg.stopped]
    if resume and previous:
        reg.notes.append(f"resumed: {len(previous)} formal check(s) kept")
    progress = Progress(len(todo), "formal ")
    if todo:
        print(f"formal: {len(todo)} check(s), {opts.jobs} at a time", file=sys.stderr,
              flush=True)

    def done(check: Check, rec: dict[str, Any]) -> bool:
        ok = bool(rec["ok"])
        note = describe(rec) + ("" if ok else f" (needs {check.wanted})")
        progress.line(PASS if ok else FAIL, check.key, float(rec["seconds"]), note)
        return not (opts.fail_fast and not ok)

    results, stopped = parallel(lambda c: run_one(c, reg.out_dir), todo, opts.jobs, done)
    reg.stopped = reg.stopped or stopped
    why = reg.stopped or "stopped"
    reg.formal = {c.key: previous.get(c.key) or results.get(c) or skipped_record(c, why)
                  for c in checks}
