"""What became of a regression: a result per build and per run, the traced reruns of
failures, the cross-simulator comparisons, the formal checks' and the mutation campaigns'
records."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from montverif.regress.flow.spec import Outcome, RunSpec

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
# a batch system ended the run's job twice (node failure, time limit, ...): no verdict
ERROR = "ERROR"
# the note of a regression that did only some parts of its list (--parts): "parts: runs"
PARTS_NOTE = "parts: "
STATUSES = (PASS, FAIL, ERROR, SKIP)


# a mutation campaign's status (regress/mutate/campaigns.py)
MUT_PASSED, MUT_FAILED, MUT_ERROR, MUT_SKIPPED = "passed", "failed", "error", "skipped"


@dataclass
class Rerun:
    """A failing seed run again with waves on: does it fail the same way?"""

    key: str
    first_error: str
    log_dir: Path | None
    waves: Path | None

    def same_as(self, original: str) -> bool:
        return bool(self.first_error) and self.first_error == original

    def describe(self, original: str) -> str:
        if self.same_as(original):
            verdict = "rerun with waves fails the same way"
        elif not self.first_error:
            verdict = "rerun with waves PASSED: the failure did not reproduce"
        else:
            verdict = f"rerun with waves failed differently: {self.first_error}"
        return f"{verdict}; waves: {self.waves or 'none'}"


@dataclass
class RunResult:
    """What became of one run: passed, failed (run or build), ended by the batch system
    (ERROR: an infrastructure error, no verdict) or not started."""

    run: RunSpec
    status: str
    first_error: str = ""
    wall_s: float = 0.0
    log_dir: Path | None = None
    tests: int = 0
    failed_tests: int = 0
    rerun: Rerun | None = None  # the traced rerun of a failure, if one was made
    index: int = 0  # position in the list's full expansion (shards keep it; merge sorts by it)
    retried: str = ""  # the batch jobs that were ended before the one that gave this result

    @classmethod
    def from_outcome(cls, outcome: Outcome) -> RunResult:
        if outcome.interrupted:  # not run to its end: neither passed nor failed
            return cls(outcome.run, SKIP, first_error=outcome.first_error,
                       wall_s=outcome.wall_s, log_dir=outcome.log_dir)
        if outcome.infrastructure:  # nor when the batch system ended it
            return cls(outcome.run, ERROR, first_error=outcome.first_error,
                       log_dir=outcome.log_dir, retried=outcome.retried)
        return cls(outcome.run, PASS if outcome.passed else FAIL, retried=outcome.retried,
                   first_error="" if outcome.passed else outcome.first_error or "failed",
                   wall_s=outcome.wall_s, log_dir=outcome.log_dir, tests=outcome.tests,
                   failed_tests=outcome.failed)

    @property
    def passed(self) -> bool:
        return self.status == PASS


@dataclass
class BuildResult:
    key: str
    seconds: float = 0.0
    error: str = ""


@dataclass
class Regression:
    """One `montverif regress`: what was asked, what happened."""

    name: str
    base_seed: int
    jobs: int
    out_dir: Path
    start: datetime
    git: str = "unknown"
    versions: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0
    builds: dict[str, BuildResult] = field(default_factory=dict)
    results: list[RunResult] = field(default_factory=list)
    stopped: str = ""  # why not every run was started (--fail-fast, interrupt), else ""
    shard: str = ""  # "i/k" when this is one shard of a regression
    planned: int = 0  # runs of the whole (unsharded) regression
    diffs: list[DiffResult] = field(default_factory=list)  # cross-simulator comparisons
    history: Path | None = None  # history.jsonl to append to (None: not this one, e.g. a shard)
    notes: list[str] = field(default_factory=list)  # shown in the summary and the report
    order: dict[str, int] = field(default_factory=dict)  # run key -> index in the full list
    # mutation campaigns: design -> record (regress/mutate/campaigns.py), in list order
    mutation: dict[str, dict] = field(default_factory=dict)
    mutation_planned: int = 0  # campaigns of the whole (unsharded) regression
    # campaigns the list's rotation rests this night -> the night their share last came round
    # (a date, or "seed N"; regress/mutate/rotation.py)
    mutation_resting: dict[str, str] = field(default_factory=dict)
    # formal checks: check key -> record (regress/regression/formal_checks.py), in list order
    formal: dict[str, dict] = field(default_factory=dict)
    formal_planned: int = 0  # checks of the whole (unsharded) regression
    # where base_seed came from: "given", "date YYYY-MM-DD", "run number K" (--seed)
    seed_source: str = "given"

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def campaigns(self, *statuses: str) -> int:
        return sum(m["status"] in statuses for m in self.mutation.values())

    def formal_ok(self) -> int:
        """Formal checks that reached the verdict they needed."""
        return sum(bool(f.get("ok")) for f in self.formal.values())

    @property
    def passed(self) -> bool:
        return (bool(self.results) or bool(self.mutation) or bool(self.formal)
                or self.shard != "") and all(
            r.passed for r in self.results) and all(d.same for d in self.diffs) and \
            self.campaigns(MUT_PASSED) == len(self.mutation) and \
            self.formal_ok() == len(self.formal)


@dataclass
class DiffResult:
    """The same seed on two simulators: identical transaction logs (timing fields ignored)?"""

    key: str  # build key without the simulator, plus the seed
    runs: tuple[str, ...]  # the run keys compared
    same: bool
    detail: str = ""  # the first difference, or why no comparison was possible
