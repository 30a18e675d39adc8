"""A regression on disk: runs/<key>/result.json as each run finishes (what --resume reads)
and summary.json (every run, the builds, buckets, comparisons and campaigns), and both read
back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from montverif.host import readback
from montverif.regress.flow.spec import BuildSpec, RunSpec, with_design_tests
from montverif.regress.regression.buckets import buckets
from montverif.regress.regression.results import (
    ERROR,
    FAIL,
    PASS,
    SKIP,
    BuildResult,
    DiffResult,
    Regression,
    Rerun,
    RunResult,
)


def run_record(res: RunResult) -> dict[str, object]:
    b = res.run.build
    return {"key": res.run.key, "config": b.key, "dut": b.dut, "n": b.n, "bus_w": b.bus_w,
            "params": dict(b.params), "sim": b.sim, "ack_wait": b.ack_wait,
            "seed": res.run.seed, "txns": res.run.txns,
            "tests": list(res.run.tests), "status": res.status, "passed": res.passed,
            "first_error": res.first_error, "repro": res.run.repro(),
            "log_dir": str(res.log_dir) if res.log_dir else None,
            "wall_s": round(res.wall_s, 3), "tests_run": res.tests,
            "tests_failed": res.failed_tests,
            "index": res.index, "run": asdict(res.run), "retried": res.retried,
            "beyond_paper": res.run.beyond_paper(),
            "rerun": None if res.rerun is None else {
                "key": res.rerun.key, "first_error": res.rerun.first_error,
                "same_failure": res.rerun.same_as(res.first_error),
                "waves": str(res.rerun.waves) if res.rerun.waves else None,
                "log_dir": str(res.rerun.log_dir) if res.rerun.log_dir else None}}


def summary_dict(reg: Regression) -> dict[str, object]:
    return {"list": reg.name, "git": reg.git, "versions": reg.versions,
            "start": reg.start.isoformat(timespec="seconds"), "wall_s": round(reg.wall_s, 3),
            "base_seed": reg.base_seed, "base_seed_source": reg.seed_source, "jobs": reg.jobs,
            "out_dir": str(reg.out_dir),
            "passed": reg.count(PASS), "failed": reg.count(FAIL), "skipped": reg.count(SKIP),
            "errors": reg.count(ERROR),
            "stopped": reg.stopped, "shard": reg.shard, "planned": reg.planned or
            len(reg.results), "notes": reg.notes,
            "builds": [{"key": b.key, "seconds": round(b.seconds, 3), "error": b.error}
                       for b in sorted(reg.builds.values(), key=lambda b: b.key)],
            "buckets": [b.to_dict() for b in buckets(reg.results)],
            "diffs": [asdict(d) for d in reg.diffs],
            "mutation": reg.mutation, "mutation_planned": reg.mutation_planned,
            "mutation_resting": reg.mutation_resting,
            "formal": reg.formal, "formal_planned": reg.formal_planned,
            "runs": [run_record(r) for r in reg.results]}


# the shapes of what this module writes, checked when read back (montverif.host.readback)
_TEXT = (str, type(None))
RUN_SPEC_SHAPE = {"build": {"dut": str, "n": int, "bus_w": int, "sim": str,
                            "params?": [[(str, int)]]},
                  "seed": int, "txns": int, "tests": [str]}
RUN_RECORD_SHAPE = {"key": str, "status": str, "first_error": str, "wall_s": float,
                    "log_dir": _TEXT, "tests_run": int, "tests_failed": int, "index?": int,
                    "retried?": str, "run": RUN_SPEC_SHAPE,
                    "rerun?": ({"key": str, "first_error": str, "log_dir": _TEXT,
                                "waves": _TEXT}, type(None))}
SUMMARY_SHAPE = {"list": str, "base_seed": int, "jobs": int, "out_dir": str, "start": str,
                 "git": str, "versions": {str: None}, "wall_s": float, "stopped": str,
                 "shard?": _TEXT, "planned?": int, "notes?": [str], "passed?": int,
                 "failed?": int, "builds": [{"key": str, "seconds": float, "error": str}],
                 "runs": [RUN_RECORD_SHAPE],
                 "diffs?": [{"key": str, "runs": [str], "same": bool, "detail": str}],
                 "mutation?": {str: {str: None}}, "mutation_planned?": int,
                 "mutation_resting?": {str: str},
                 "formal?": {str: {str: None}}, "formal_planned?": int}


def run_spec(raw: dict) -> RunSpec:
    """A RunSpec from its asdict() form (summary.json, outcome.json)."""
    build = dict(raw["build"])
    build["params"] = tuple(tuple(p) for p in build.get("params", ()))
    return RunSpec(**(raw | {"build": BuildSpec(**build), "tests": tuple(raw["tests"])}))


def _path(v: str | None) -> Path | None:
    """A path of summary.json (null or empty: none)."""
    return Path(v) if v else None


def run_result(rec: dict) -> RunResult:
    """A RunResult from its summary.json record."""
    rr = rec.get("rerun")
    rerun = None if rr is None else Rerun(rr["key"], rr["first_error"], _path(rr["log_dir"]),
                                          _path(rr["waves"]))
    return RunResult(run_spec(rec["run"]), rec["status"], rec["first_error"], rec["wall_s"],
                     _path(rec["log_dir"]), rec["tests_run"], rec["tests_failed"], rerun,
                     rec.get("index", 0), rec.get("retried", ""))


def load_summary(path: Path) -> Regression:
    """A Regression back from summary.json; raises ValueError with one line if unusable."""
    try:
        raw = readback.read_json(path, SUMMARY_SHAPE)
        reg = Regression(raw["list"], raw["base_seed"], raw["jobs"], Path(raw["out_dir"]),
                         datetime.fromisoformat(raw["start"]), raw["git"], raw["versions"],
                         raw["wall_s"], stopped=raw["stopped"], shard=raw.get("shard", ""),
                         planned=raw.get("planned", 0), notes=list(raw.get("notes", [])),
                         seed_source=raw.get("base_seed_source", "given"))
        reg.builds = {b["key"]: BuildResult(b["key"], b["seconds"], b["error"])
                      for b in raw["builds"]}
        reg.results = [run_result(r) for r in raw["runs"]]
        reg.diffs = [DiffResult(d["key"], tuple(d["runs"]), d["same"], d["detail"])
                     for d in raw.get("diffs", [])]
        reg.mutation = dict(raw.get("mutation", {}))
        reg.mutation_planned = int(raw.get("mutation_planned", len(reg.mutation)))
        reg.mutation_resting = dict(raw.get("mutation_resting", {}))
        reg.formal = dict(raw.get("formal", {}))
        reg.formal_planned = int(raw.get("formal_planned", len(reg.formal)))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except readback.CorruptFile:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a regression summary ({one_line_exc(exc)})") from None
    return reg


def one_line_exc(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def write_summary(reg: Regression, path: Path) -> None:
    path.write_text(json.dumps(summary_dict(reg), indent=1) + "\n")


RESULT_FILE = "result.json"


def save_result(out_dir: Path, res: RunResult) -> None:
    """runs/<key>/result.json: the finished run's summary record (read by --resume)."""
    folder = out_dir / "runs" / res.run.key
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULT_FILE).write_text(json.dumps(run_record(res), indent=1) + "\n")


def finished_results(out_dir: Path, runs: Sequence[RunSpec]) -> dict[str, RunResult]:
    """The runs that finished (passed or failed) in an earlier regression into out_dir."""
    found: dict[str, RunResult] = {}
    for run in runs:
        path = out_dir / "runs" / run.key / RESULT_FILE
        try:
            res = run_result(readback.read_json(path, RUN_RECORD_SHAPE))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not finished (or a half-written record): run it again
        # the record holds the tests as run: a design's own default list (the RSA core's)
        if res.status in (PASS, FAIL) and res.run in (run, with_design_tests(run)):
            found[run.key] = res
    return found
