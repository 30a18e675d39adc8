"""One regression: compile every build once, run every seed, rerun failures with waves, compare
the simulators; and shard folders merged back into one regression."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from montverif.host import tools
from montverif.host.paths import ROOT
from montverif.regress.flow import debug
from montverif.regress.flow.launcher import Launcher
from montverif.regress.flow.spec import Outcome, RunSpec
from montverif.regress.regression.diffsim import compare_sims
from montverif.regress.regression.lists import ListError
from montverif.regress.regression.results import FAIL, Regression, Rerun, RunResult
from montverif.regress.regression.scheduler import (
    RAISED,
    ScheduleOptions,
    build_all,
    dispatch_runs,
    run_all,
)
from montverif.regress.regression.seeds import unique_builds
from montverif.regress.regression.summary import finished_results, load_summary, save_result
from montverif.spec.designs import load_design


def regress(launcher: Launcher, name: str, runs: Sequence[RunSpec], opts: ScheduleOptions,
            out_dir: Path, base_seed: int, *, order: dict[str, int] | None = None,
            shard_spec: str = "", planned: int = 0, history: Path | None = None,
            resume: bool = False, campaigns: int = 0, campaigns_planned: int = 0,
            checks: int = 0, checks_planned: int = 0,
            seed_source: str = "given") -> Regression:
    """Compile every build, run every seed, rerun failures with waves and compare the
    simulators (the runs were checked already); `checks` formal checks and `campaigns`
    mutation campaigns follow (run by the caller, after this returns). reg.wall_s is this
    part's time."""
    reg = Regression(name, base_seed, opts.jobs, out_dir, datetime.now().astimezone(),
                     git=tools.git_revision(ROOT), versions=tools.versions(),
                     shard=shard_spec, planned=planned or len(runs), history=history,
                     order=order or {r.key: i for i, r in enumerate(runs)},
                     mutation_planned=campaigns_planned or campaigns,
                     formal_planned=checks_planned or checks,
                     seed_source=seed_source)
    t0 = time.monotonic()
    previous = finished_results(out_dir, runs) if resume else {}
    specs = unique_builds(r for r in runs if r.key not in previous)
    more = f" + {checks} formal check(s)" if checks else ""
    more += f" + {campaigns} mutation campaign(s)" if campaigns else ""
    print(f"{name}: {len(runs)} runs, {len(specs)} builds{more}, {opts.jobs} job(s); "
          f"results in {out_dir}", file=sys.stderr, flush=True)
    if resume:
        print(f"--resume: {len(previous)} run(s) finished already, {len(runs) - len(previous)}"
              " to do", file=sys.stderr, flush=True)
        reg.notes.append(f"resumed: {len(previous)} run(s) kept from the interrupted regression")
    build_all(launcher, specs, opts, reg)
    run_all(launcher, runs, opts, reg, previous)
    rerun_failures(launcher, opts, reg)
    reg.diffs = compare_sims(reg.results)
    reg.wall_s = time.monotonic() - t0
    return reg


def rerun_failures(launcher: Launcher, opts: ScheduleOptions, reg: Regression) -> None:
    """Run up to `opts.rerun_waves` failing seeds again on a traced build (same seed, same
    stimulus) and record whether each fails the same way, with its waveform."""
    failed = [r for r in reg.results if r.status == FAIL and r.log_dir is not None
              and not r.run.build.waves and r.rerun is None]
    # waves hold every signal in clear: a design with secret operands is rerun with waves
    # only when the run keeps its secrets (--keep-secrets)
    hidden = sorted({r.run.build.dut for r in failed
                     if load_design(r.run.build.dut).secret and not r.run.keep_secrets})
    if hidden:
        reg.notes.append(f"no waves for failing runs of {', '.join(hidden)}: waves would "
                         "hold its secret operands in clear (--keep-secrets reruns them)")
    failed = [r for r in failed if r.run.build.dut not in hidden][:opts.rerun_waves]
    if not failed:
        return
    print(f"rerunning {len(failed)} failing seed(s) with waves", file=sys.stderr, flush=True)

    original: dict[RunSpec, RunResult] = {}
    for res in failed:
        wrun = replace(res.run, build=replace(res.run.build, waves=True))
        original[wrun] = res

    def done(wrun: RunSpec, out: Outcome) -> bool:
        res = original[wrun]
        error = "" if out.passed else out.first_error or "failed"
        if out.extra.get(RAISED):
            error = f"rerun failed to run: {error}"
        rerun = res.rerun = Rerun(wrun.key, error, out.log_dir, out.waves)
        if rerun.waves is not None and rerun.log_dir is not None:
            note = debug.annotate(res.run, rerun.waves, rerun.log_dir, res.first_error)
            print(f"  {res.run.key}: {note}", file=sys.stderr, flush=True)
        save_result(reg.out_dir, res)
        print(f"  {res.run.key}: {rerun.describe(res.first_error)}", file=sys.stderr,
              flush=True)
        return True

    dispatch_runs(launcher, [(w, reg.out_dir / "runs" / w.key) for w in original], opts.jobs,
                  done)


def merge(out_dir: Path, shard_dirs: Sequence[Path], history: Path | None) -> Regression:
    """One Regression from shard folders: runs/ copied into out_dir, results in list order."""
    regs = []
    for folder in shard_dirs:
        if not (folder / "summary.json").is_file():
            raise ListError(f"cannot read results folder {folder}: no summary.json")
        try:
            regs.append(load_summary(folder / "summary.json"))
        except ValueError as exc:
            raise ListError(str(exc)) from None
    names = {(r.name, r.base_seed) for r in regs}
    if len(names) > 1:
        raise ListError("shards of different regressions: "
                        + ", ".join(f"{n} (seed {s_})" for n, s_ in sorted(names)))
    first = regs[0]
    out_dir.mkdir(parents=True, exist_ok=True)
    merged = Regression(first.name, first.base_seed, max(r.jobs for r in regs), out_dir,
                        min(r.start for r in regs), git=first.git, versions=first.versions,
                        wall_s=max(r.wall_s for r in regs), history=history,
                        planned=max(r.planned for r in regs),
                        mutation_planned=max(r.mutation_planned for r in regs),
                        formal_planned=max(r.formal_planned for r in regs),
                        seed_source=first.seed_source,
                        mutation_resting=first.mutation_resting)
    seen: set[str] = set()
    for reg, folder in zip(regs, shard_dirs, strict=True):
        if (folder / "runs").is_dir():
            shutil.copytree(folder / "runs", out_dir / "runs", dirs_exist_ok=True)
        merged.builds |= reg.builds
        for res in reg.results:
            if res.run.key in seen:
                raise ListError(f"run {res.run.key} is in more than one shard")
            seen.add(res.run.key)
            res.log_dir = out_dir / "runs" / res.run.key if res.log_dir else None
            if res.rerun is not None:
                res.rerun.log_dir = out_dir / "runs" / res.rerun.key
                res.rerun.waves = (res.rerun.log_dir / res.rerun.waves.name
                                   if res.rerun.waves else None)
            merged.results.append(res)
        merged.diffs += reg.diffs
        merged.stopped = merged.stopped or reg.stopped
        _merge_records(merged.mutation, reg.mutation, folder / "mutation",
                       merged.out_dir / "mutation", "mutation campaign")
        _merge_records(merged.formal, reg.formal, folder / "formal",
                       merged.out_dir / "formal", "formal check")
    merged.results.sort(key=lambda r: r.index)
    merged.diffs.sort(key=lambda d: d.key)
    gits = sorted({r.git for r in regs})
    if len(gits) > 1:
        merged.notes.append(f"shards ran different git revisions: {', '.join(gits)}")
    shards = sorted({r.shard for r in regs})
    if len(merged.results) != merged.planned:
        merged.notes.append(f"incomplete: {len(merged.results)} of {merged.planned} runs "
                            f"(shards {', '.join(shards)})")
    merged.mutation = dict(sorted(merged.mutation.items(), key=lambda kv: kv[1].get("index", 0)))
    if len(merged.mutation) != merged.mutation_planned:
        merged.notes.append(f"incomplete: {len(merged.mutation)} of {merged.mutation_planned} "
                            f"mutation campaigns (shards {', '.join(shards)})")
    merged.formal = dict(sorted(merged.formal.items(), key=lambda kv: kv[1].get("index", 0)))
    if len(merged.formal) != merged.formal_planned:
        merged.notes.append(f"incomplete: {len(merged.formal)} of {merged.formal_planned} "
                            f"formal checks (shards {', '.join(shards)})")
    return merged


def _merge_records(merged: dict[str, dict], records: dict[str, dict], folder: Path,
                   into: Path, what: str) -> None:
    """A shard's records of one kind (mutation campaigns, formal checks) and their folders
    into the merged results; one that two shards hold is refused."""
    if folder.is_dir():
        shutil.copytree(folder, into, dirs_exist_ok=True)
    for key, rec in records.items():
        if key in merged:
            raise ListError(f"{what} {key} is in more than one shard")
        merged[key] = rec
