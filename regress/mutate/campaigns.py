"""Mutation campaigns of a regression list: the `[[<list>.mutation]]` blocks of
regress/lists.toml, run by `montverif regress` after the list's simulation runs.

Each campaign is one design's regress/mutate campaign (engine.run_campaign, report.write)
written to <results>/mutation/<dut>/ (mutants.json, mutate.md, mutate.html, mutants/, runs/).
Its seed, which picks the sample of mutants and drives the runs, is derived from the
regression's base seed and the design (`--fixed-seed S` uses S), so a list always picks the
same mutants for a given `--seed` and another seed picks others; the record's `repro` is the
`montverif mutate` command of the same campaign.

A campaign ends in one status: passed (proved score >= goal), failed (proved score below the
goal, or no score: nothing was killed or survived), error (the original design fails its own
runs, or the flow broke; one line) or skipped (not started: --fail-fast, interrupt; or cut
short by an interrupt, its unjudged survivors errors, never holes, and run again by
--resume). Scores are percentages (score.py): the score leaves out every equivalent, the
proved score only those a formal verdict backs; the goal is on the proved score.
"""

from __future__ import annotations

import functools
import json
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from montverif.host import readback, tools
from montverif.regress.flow import check as flow_check
from montverif.regress.flow.launcher import INPUT_ERRORS, one_line
from montverif.regress.mutate import engine, mutant_run, state
from montverif.regress.mutate import report as mreport
from montverif.regress.mutate import score as mscore
from montverif.regress.mutate.sites import Mutant, all_sites, core_sources, select
from montverif.regress.regression.lists import ListError, TestList, as_duts, as_int, as_strs
from montverif.regress.regression.results import FAIL, PASS, Regression
from montverif.regress.regression.scheduler import Progress, ScheduleOptions, parallel
from montverif.regress.regression.seeds import derive_seed
from montverif.regress.regression.shards import deal
from montverif.spec.bounds import MUTANTS, TIMEOUT_S, TXNS, WIDTH, Bound
from montverif.spec.designs import known_designs, load_design

KEYS = ("dut", "mutants", "sim", "n", "txns", "goal", "share", "prove", "eq_timeout", "rotate")
DEFAULT_SIM = "icarus"
DEFAULT_TXNS = 20
DEFAULT_GOAL = 100.0
MUTANT_TIMEOUT_S = 120  # wall-clock seconds per mutant run (`--timeout` overrides)
EQ_TIMEOUT_S = state.CampaignOptions.eq_timeout_s  # seconds per equivalence run or SBY check
FOLDER = "mutation"
ROTATE = Bound(1, 31)  # the shares a block rotates over, one a night (rotation.py)
PASSED, FAILED, ERROR, SKIPPED = "passed", "failed", "error", "skipped"


@dataclass(frozen=True)
class CampaignSpec:
    """One design's mutation campaign in a list; `seed` and `index` are set by `plan`."""

    dut: str
    mutants: int  # the budget: mutants drawn (all sites if the design has fewer)
    sim: str = DEFAULT_SIM
    n: int = 8
    txns: int = DEFAULT_TXNS
    goal: float = DEFAULT_GOAL  # percent
    seed: int = 0
    timeout_s: int = MUTANT_TIMEOUT_S
    index: int = 0  # position among the list's campaigns
    share: bool = True  # build-once-run-many (state.CampaignOptions.share)
    prove: bool = False  # equivalent mutants checked by SBY (state.CampaignOptions.prove)
    eq_timeout_s: int = EQ_TIMEOUT_S  # seconds per equivalence run or SBY check
    rotate: int = 1  # its block's campaigns run in this many shares, one a night (rotation)

    @property
    def folder(self) -> str:
        """The campaign's folder, relative to the results folder."""
        return f"{FOLDER}/{self.dut}"

    def options(self, jobs: int) -> state.CampaignOptions:
        return state.CampaignOptions(n=self.n, seed=self.seed, txns=self.txns,
                              timeout_s=self.timeout_s, jobs=jobs, sim=self.sim,
                              share=self.share, prove=self.prove,
                              eq_timeout_s=self.eq_timeout_s)

    def repro(self) -> str:
        cmd = (f"montverif mutate --dut {self.dut} --n {self.n} --mutants {self.mutants}"
               f" --seed {self.seed} --sim {self.sim} --txns {self.txns}")
        cmd += f" --timeout {self.timeout_s}" if self.timeout_s != MUTANT_TIMEOUT_S else ""
        cmd += f" --eq-timeout {self.eq_timeout_s}" if self.eq_timeout_s != EQ_TIMEOUT_S else ""
        return cmd + ("" if self.share else " --no-share") + (" --prove" if self.prove else "")


# --- lists.toml -----------------------------------------------------------------------------
def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise ListError(f"{where}: expected a percentage 0..100")
    return float(value)


def parse(raw: object, where: str) -> list[CampaignSpec]:
    """One `[[<list>.mutation]]` block: a campaign per design of its `dut`."""
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    if missing := [k for k in ("dut", "mutants") if k not in raw]:
        raise ListError(f"{where}: missing {', '.join(missing)}")
    if unknown := [k for k in raw if k not in KEYS]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                           f"(known: {', '.join(KEYS)})")
    dut = raw["dut"]
    duts = known_designs() if dut == "*" else as_duts(dut, f"{where}.dut")
    mutants = as_int(raw["mutants"], f"{where}.mutants", MUTANTS)
    simulator = as_strs([raw.get("sim", DEFAULT_SIM)], f"{where}.sim", tools.SIMULATORS)[0]
    txns = as_int(raw.get("txns", DEFAULT_TXNS), f"{where}.txns", TXNS)
    goal = _number(raw.get("goal", DEFAULT_GOAL), f"{where}.goal")
    share = raw.get("share", True)
    if not isinstance(share, bool):
        raise ListError(f"{where}.share: expected true or false")
    prove_ = raw.get("prove", False)
    if not isinstance(prove_, bool):
        raise ListError(f"{where}.prove: expected true or false")
    eq_timeout = as_int(raw.get("eq_timeout", EQ_TIMEOUT_S), f"{where}.eq_timeout", TIMEOUT_S)
    rotate = as_int(raw.get("rotate", 1), f"{where}.rotate", ROTATE)
    return [CampaignSpec(d, mutants, simulator, _width(raw.get("n"), d, f"{where}.n"), txns,
                         goal, share=share, prove=prove_, eq_timeout_s=eq_timeout,
                         rotate=rotate) for d in duts]


def _width(value: object, dut: str, where: str) -> int:
    """The campaign's N (default: the design's min_n); the design must have RTL to mutate."""
    design = load_design(dut)
    if not core_sources(design):
        raise ListError(f"{where}: {dut} has no design-specific RTL to mutate")
    if value is None:
        return design.min_n
    n = as_int(value, where, WIDTH)
    if not design.min_n <= n <= design.max_n:
        raise ListError(f"{where}: N={n} outside {dut}'s {design.min_n}..{design.max_n}")
    return n


def parse_all(blocks: object, where: str) -> tuple[CampaignSpec, ...]:
    """Every `[[<list>.mutation]]` block of a list; a design may have one campaign only."""
    if not isinstance(blocks, list):
        raise ListError(f"{where}: expected [[...mutation]] blocks")
    specs = [s for i, b in enumerate(blocks) for s in parse(b, f"{where}[{i}]")]
    seen: set[str] = set()
    for s in specs:
        if s.dut in seen:
            raise ListError(f"{where}: {s.dut} has more than one mutation campaign")
        seen.add(s.dut)
    return tuple(specs)


def of_list(tlist: TestList, lists_name: str = "lists.toml") -> tuple[CampaignSpec, ...]:
    """The campaigns of a list's `[[<list>.mutation]]` blocks (ListError if malformed)."""
    return parse_all(list(tlist.mutation), f"{lists_name}: {tlist.name}.mutation")


# --- planning -------------------------------------------------------------------------------
def campaign_seed(base_seed: int, dut: str) -> int:
    return derive_seed(base_seed, f"{FOLDER}-{dut}", 0)


def plan(specs: Sequence[CampaignSpec], base_seed: int, fixed_seed: int | None = None,
         sims: Sequence[str] | None = None, duts: Sequence[str] | None = None,
         timeout_s: int | None = None) -> list[CampaignSpec]:
    """The campaigns to run (filtered by simulator and design), each with its seed."""
    return [replace(s, index=i, timeout_s=timeout_s or s.timeout_s,
                    seed=campaign_seed(base_seed, s.dut) if fixed_seed is None else fixed_seed)
            for i, s in enumerate(specs)
            if not (sims and s.sim not in sims) and not (duts and s.dut not in duts)]


def cost(spec: CampaignSpec) -> float:
    """Relative cost, to balance shards (a Verilator mutant builds for ~2x as long)."""
    return spec.mutants * (1.0 if spec.sim == "icarus" else 2.0)


@functools.cache
def expected_s(spec: CampaignSpec) -> float:
    """Estimated seconds (engine.estimated_cost), to start the longest campaigns first: its
    ranking is what counts (the nightly's mwrkmm, rsa_core and mont_dual first); its
    figures are not (rsa_core's runs at N = 8 are estimated far too long)."""
    return engine.estimated_cost(spec.dut, load_design(spec.dut), spec.options(1),
                                 spec.mutants)


def shard(specs: Sequence[CampaignSpec], index: int, count: int) -> list[CampaignSpec]:
    """The campaigns of shard index/count (1-based): each to exactly one shard, largest first
    to the least loaded, dealt from the last shard backwards (run.shard fills the first
    shards first), so the split depends only on the campaigns."""
    owner = deal({s.dut: cost(s) for s in specs}, count, from_last=True)
    return [s for s in specs if owner[s.dut] == index - 1]


def sample(spec: CampaignSpec) -> tuple[int, list[Mutant]]:
    """(candidate sites, the mutants the campaign runs): deterministic in spec.seed."""
    sites = all_sites(load_design(spec.dut))
    return len(sites), select(sites, spec.mutants, spec.seed)


def check(spec: CampaignSpec) -> None:
    """Raise (one line) if the campaign cannot run: width, simulator installed, tests."""
    flow_check.validate(mutant_run.smoke_run(spec.dut, spec.options(1)))


def check_all(specs: Sequence[CampaignSpec]) -> None:
    """Every campaign can run, else a ListError naming it (one line)."""
    for spec in specs:
        try:
            check(spec)
        except INPUT_ERRORS as exc:
            raise ListError(f"mutation {spec.dut}: {exc}") from None


# --- records (summary.json "mutation": {dut: record}) ---------------------------------------
def _base(spec: CampaignSpec, status: str, message: str, wall_s: float) -> dict[str, Any]:
    return {"dut": spec.dut, "sim": spec.sim, "n": spec.n, "txns": spec.txns,
            "seed": spec.seed, "budget": spec.mutants, "goal": spec.goal, "index": spec.index,
            "status": status, "message": message, "wall_s": round(wall_s, 1),
            "dir": spec.folder, "repro": spec.repro(), "mutants": 0, "sites": 0,
            **dict.fromkeys(state.STATUSES, 0), "score": None, "equivalence": "",
            "survivors": []}


def verdict(proved: float | None, goal: float, survived: int, unproved: int
            ) -> tuple[str, str]:
    """The goal is on the proved score (score.py): an equivalent judged by simulation alone
    counts as a survivor."""
    if proved is None:
        return FAILED, "no score: no mutant was killed or survived"
    if proved < goal:
        why = f"{survived} survivor(s)" + (f", {unproved} equivalent(s) without a proof"
                                           if unproved else "")
        return FAILED, f"proved score {proved:.1f}% below the goal {goal:g}% ({why})"
    return PASSED, ""


def record(spec: CampaignSpec, data: dict) -> dict[str, Any]:
    """A finished campaign's record from its mutants.json."""
    summ, mutants = data["summary"], data["mutants"]
    counts = {s: sum(m["status"] == s for m in mutants) for s in state.STATUSES}
    sc = mscore.of((m["status"], m.get("proof", "")) for m in mutants)
    score, proved = mscore.percent(sc.value), mscore.percent(sc.proved)
    status, message = verdict(proved, spec.goal, counts["survived"], sc.unproved)
    if summ.get("interrupted"):  # neither passed nor failed: --resume runs it again
        status, message = SKIPPED, (f"interrupted: {counts['error']} of {len(mutants)} "
                                    "mutants without a verdict")
    rec = _base(spec, status, message, float(summ.get("wall_s", 0.0)))
    rec |= counts | {"mutants": len(mutants), "sites": summ["sites"],
                     "score": score, "score_proved": proved,
                     "equivalent_unproved": sc.unproved,
                     "equivalence": summ.get("equivalence", ""),
                     "survivors": [{"id": m["id"], "where": m["where"],
                                    "change": str(m["change"]).split(": ", 1)[-1],
                                    "reason": m["reason"]}
                                   for m in mutants if m["status"] == "survived"]}
    return rec


def error_record(spec: CampaignSpec, message: str, wall_s: float) -> dict[str, Any]:
    return _base(spec, ERROR, message, wall_s)


def skipped_record(spec: CampaignSpec, why: str) -> dict[str, Any]:
    return _base(spec, SKIPPED, f"not started: {why}", 0.0)


def finished(out_dir: Path, spec: CampaignSpec) -> dict[str, Any] | None:
    """The record of a campaign that finished earlier in out_dir with the same settings."""
    try:
        data = readback.read_json(out_dir / spec.folder / "mutants.json", mreport.MUTANTS_SHAPE)
        if data["summary"].get("command") != spec.repro() or data["summary"].get("interrupted"):
            return None
        return record(spec, data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


# --- running --------------------------------------------------------------------------------
def _progress(dut: str) -> Callable[[str], None]:
    def line(text: str) -> None:
        print(f"  mutation {dut}: {text}", file=sys.stderr, flush=True)

    return line


def run_one(spec: CampaignSpec, jobs: int, out_dir: Path) -> dict[str, Any]:
    """Run one campaign into out_dir/mutation/<dut>/; never raises (errors are records)."""
    folder = out_dir / spec.folder
    t0 = time.monotonic()
    try:
        for stale in ("mutants", "runs", "formal"):
            shutil.rmtree(folder / stale, ignore_errors=True)
        (folder / "mutants.json").unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        total, mutants = sample(spec)
        camp = engine.run_campaign(spec.dut, load_design(spec.dut), mutants, total,
                                   spec.options(jobs), folder, _progress(spec.dut))
        camp.extra["command"] = spec.repro()
        mreport.write(camp)
        return record(spec, json.loads((folder / "mutants.json").read_text()))
    except Exception as exc:
        return error_record(spec, one_line(exc), time.monotonic() - t0)


def run_all(specs: Sequence[CampaignSpec], opts: ScheduleOptions, reg: Regression,
            resume: bool = False) -> None:
    """Every campaign (after the runs), the longest first (expected_s): up to opts.jobs mutants
    at a time, the campaigns spread over them; reg.mutation gets one record per campaign in
    list order."""
    previous = {s.dut: rec for s in specs if resume and (rec := finished(reg.out_dir, s))}
    todo = [s for s in specs if s.dut not in previous and not reg.stopped]
    if resume and previous:
        reg.notes.append(f"resumed: {len(previous)} mutation campaign(s) kept")
    width = max(1, min(opts.jobs, len(todo)))
    per = max(1, opts.jobs // width)
    progress = Progress(len(todo), "mutation ")
    if todo:
        print(f"mutation: {len(todo)} campaign(s), {sum(s.mutants for s in todo)} mutants, "
              f"{width} at a time with {per} job(s) each", file=sys.stderr, flush=True)

    def done(spec: CampaignSpec, rec: dict[str, Any]) -> bool:
        ok = rec["status"] == PASSED
        note = f"{_score(rec)} (goal {spec.goal:g}%)" + (f"  {rec['message']}" if not ok else "")
        progress.line(PASS if ok else FAIL, f"{spec.dut} {spec.sim}", float(rec["wall_s"]), note)
        return not (opts.fail_fast and not ok)

    longest_first = sorted(todo, key=lambda s: -expected_s(s))  # records stay in list order
    results, stopped = parallel(lambda s: run_one(s, per, reg.out_dir), longest_first, width,
                                done)
    reg.stopped = reg.stopped or stopped
    why = reg.stopped or "stopped"
    reg.mutation = {s.dut: previous.get(s.dut) or results.get(s) or skipped_record(s, why)
                    for s in specs}


def _score(rec: dict[str, Any]) -> str:
    if rec["score"] is None:
        return "no score"
    proved = rec.get("score_proved")
    return f"{rec['score']:.1f}%" + ("" if proved is None else f", proved {proved:.1f}%")
