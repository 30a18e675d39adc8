"""Regression lists: expand a list of regress/lists.toml into runs, build every model once,
run everything in parallel and report.

    montverif lists [NAME]
    montverif regress --list smoke [--jobs 2] [--sim verilator] [--dut D] [--seeds K]
                          [--seed S | --fixed-seed S] [--out DIR] [--timeout SEC] [--fail-fast]
                          [--shard I/K] [--resume] [--diff-sims] [--history FILE]
                          [--code-coverage]
    montverif merge OUT SHARD_DIR...
    montverif report DIR      (rewrite DIR/report.html, e.g. after a coverage merge)

Progress goes to stderr (one line per build and per finished run); the summary table, the
failures with their repro commands and a last line `N passed, M failed` go to stdout.
Results: <out>/report.html, junit.xml, summary.json, coverage/ (merged functional
coverage and its summary, regress/closure.py), runs/<run key>/ and mutation/<dut>/ (the
list's mutation campaigns, run after its runs: regress/mutation.py) (default out:
build/regress/<list>-<timestamp>, with build/regress/latest pointing at it); each finished run
leaves runs/<key>/result.json, which `--resume` reads. Failures are grouped into buckets
(regress/buckets.py). A summary line per regression goes to build/regress/history.jsonl.

Launchers: a `Launcher` (see the Protocol below) is all the runner knows about where work
happens. A cluster launcher (Slurm, LSF) implements check/build/run: `run` submits the job,
waits for it and returns the `Outcome` (sim.execute's record: read back the run folder's
outcome.json); a job that crashes, hangs or is killed must come back as a failed Outcome (or
an exception, which the runner records as that run's failure) - no other result is lost.
Mutation campaigns run on this machine (regress/mutate), not through the launcher.
Exit 0 when every run passed and every mutation campaign met its goal, 1 otherwise, 2 on bad
input (one-line `error:` message).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import shutil
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol, TypeVar

from montverif.regress import closure, report, sim, tools
from montverif.regress.report import (
    FAIL,
    PASS,
    SKIP,
    BuildResult,
    DiffResult,
    Regression,
    Rerun,
    RunResult,
)
from montverif.regress.sim import ALL_TESTS, BuildSpec, Outcome, RunSpec
from montverif.verif.config import ConfigError, known_designs
from montverif.verif.vectors import VectorError

if TYPE_CHECKING:
    from montverif.regress.mutation import CampaignSpec

LISTS_FILE = Path(__file__).resolve().with_name("lists.toml")
RESULTS_ROOT = sim.BUILD_ROOT / "regress"
DEFAULT_BASE_SEED = 1
SEED_RANGE = 1_000_000  # derived seeds are 1..999999: short run keys, valid cocotb seeds
INPUT_ERRORS = (ConfigError, VectorError, tools.ToolError)


class ListError(ValueError):
    """lists.toml or a list name cannot be used (one-line message)."""


# --- lists ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One block of a list: every widths x bus_widths x simulators x ack_wait combination."""

    dut: str
    widths: tuple[int, ...]
    bus_widths: tuple[int, ...]
    simulators: tuple[str, ...]
    seeds: int
    txns: int
    txns_from_n: tuple[tuple[int, int], ...] = ()  # (from N, txns), ascending N
    ack_wait: tuple[int, ...] = (0,)
    tests: tuple[str, ...] = ALL_TESTS
    idle_max: int = 2
    # parameter points beyond N (each a tuple of (name, value)); () = the design's defaults
    params: tuple[tuple[tuple[str, int], ...], ...] = ((),)
    diff_sims: bool = False  # run on both simulators, same seeds, compare transaction logs
    bias: str = ""  # coverage steering (MV_BIAS JSON, verif/steer.py) of every run; "" = none

    def txns_for(self, n: int) -> int:
        return next((t for start, t in reversed(self.txns_from_n) if n >= start), self.txns)

    def builds(self) -> list[BuildSpec]:
        return [BuildSpec(self.dut, n, bus_w, sim_, wait, params=point) for n in self.widths
                for point in self.params for bus_w in self.bus_widths
                for sim_ in self.simulators for wait in self.ack_wait]


@dataclass(frozen=True)
class TestList:
    name: str
    description: str
    entries: tuple[Entry, ...]
    timeout_s: int = sim.DEFAULT_TIMEOUT_S
    mutations: tuple[CampaignSpec, ...] = ()  # [[<list>.mutation]] (regress/mutation.py)


_REQUIRED = ("dut", "widths", "bus_widths", "simulators", "seeds", "txns")
_OPTIONAL = ("txns_from_n", "ack_wait", "tests", "idle_max", "params", "diff_sims", "bias")


def _ints(value: object, where: str, minimum: int = 0) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value):
        raise ListError(f"{where}: expected a non-empty list of integers >= {minimum}")
    return tuple(value)


def _int(value: object, where: str, minimum: int = 0) -> int:
    return _ints([value], where, minimum)[0]


def _strs(value: object, where: str, known: Sequence[str]) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ListError(f"{where}: expected a non-empty list of strings")
    if unknown := [v for v in value if v not in known]:
        raise ListError(f"{where}: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    return tuple(value)


def _txns_from_n(value: object, where: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, dict) or not all(k.isdigit() for k in value):
        raise ListError(f"{where}: expected a table {{ <N> = <txns> }}")
    return tuple(sorted((int(k), _int(v, f"{where}.{k}", 1)) for k, v in value.items()))


def _params(value: object, where: str) -> tuple[tuple[tuple[str, int], ...], ...]:
    if not isinstance(value, list) or not value or not all(
            isinstance(p, dict) and all(isinstance(k, str) and isinstance(v, int)
                                        and not isinstance(v, bool) for k, v in p.items())
            for p in value):
        raise ListError(f"{where}: expected a non-empty list of tables {{ NAME = <int> }}")
    return tuple(tuple(sorted(p.items())) for p in value)


def _bias(value: object, where: str) -> str:
    """A list entry's steering table (verif/steer.py) as the MV_BIAS JSON; "" = none."""
    if value is None:
        return ""
    from montverif.verif.steer import Bias, BiasError

    if not isinstance(value, dict):
        raise ListError(f"{where}: expected a table {{ targets = [...], p = .. }}")
    text = json.dumps(value, sort_keys=True)
    try:
        Bias.parse(text)
    except BiasError as exc:
        raise ListError(f"{where}: {exc}") from None
    return text


def _entries(raw: object, where: str) -> list[Entry]:
    """An entry whose `dut` is a list stands for one entry per design, in that order."""
    if isinstance(raw, dict) and isinstance(raw.get("dut"), list):
        duts = _strs(raw["dut"], f"{where}.dut", known_designs())
        return [_entry(raw | {"dut": dut}, where) for dut in duts]
    return [_entry(raw, where)]


def _entry(raw: object, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    if missing := [k for k in _REQUIRED if k not in raw]:
        raise ListError(f"{where}: missing {', '.join(missing)}")
    if unknown := [k for k in raw if k not in _REQUIRED + _OPTIONAL]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                        f"(known: {', '.join(_REQUIRED + _OPTIONAL)})")
    return Entry(
        dut=_strs([raw["dut"]], f"{where}.dut", known_designs())[0],
        widths=_ints(raw["widths"], f"{where}.widths", 1),
        bus_widths=_ints(raw["bus_widths"], f"{where}.bus_widths", 1),
        simulators=_strs(raw["simulators"], f"{where}.simulators", tools.SIMULATORS),
        seeds=_int(raw["seeds"], f"{where}.seeds", 1),
        txns=_int(raw["txns"], f"{where}.txns", 1),
        txns_from_n=_txns_from_n(raw.get("txns_from_n", {}), f"{where}.txns_from_n"),
        ack_wait=_ints(raw.get("ack_wait", [0]), f"{where}.ack_wait"),
        tests=_strs(raw.get("tests", list(ALL_TESTS)), f"{where}.tests", ALL_TESTS),
        idle_max=_int(raw.get("idle_max", 2), f"{where}.idle_max"),
        params=_params(raw.get("params", [{}]), f"{where}.params"),
        diff_sims=_bool(raw.get("diff_sims", False), f"{where}.diff_sims"),
        bias=_bias(raw.get("bias"), f"{where}.bias"),
    )


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ListError(f"{where}: expected true or false")
    return value


def _test_list(name: str, raw: object, where: str) -> TestList:
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    known = ("description", "timeout", "entry", "coverage_goals", "mutation")
    if unknown := [k for k in raw if k not in known]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                        f"(known: {', '.join(known)})")
    entries = raw.get("entry", [] if "mutation" in raw else None)
    if not isinstance(entries, list) or not (entries or "mutation" in raw):
        raise ListError(f"{where}: no [[{name}.entry]]")
    from montverif.regress import mutation

    return TestList(name, str(raw.get("description", "")),
                    tuple(entry for i, e in enumerate(entries)
                          for entry in _entries(e, f"{where}.entry[{i}]")),
                    _int(raw.get("timeout", sim.DEFAULT_TIMEOUT_S), f"{where}.timeout", 1),
                    mutation.parse_all(raw.get("mutation", []), f"{where}.mutation"))


def load_lists(path: Path = LISTS_FILE) -> dict[str, TestList]:
    """Every list of a lists file; raises ListError with a one-line message."""
    try:
        raw = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ListError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ListError(f"{path.name}: {exc}") from None
    return {name: _test_list(name, body, f"{path.name}: {name}") for name, body in raw.items()}


def get_list(name: str, path: Path = LISTS_FILE) -> TestList:
    lists = load_lists(path)
    if name not in lists:
        raise ListError(f"unknown list '{name}' (known: {', '.join(sorted(lists))})")
    return lists[name]


# --- expansion ------------------------------------------------------------------------------
def derive_seed(base: int, build_key: str, index: int) -> int:
    """The index-th seed of one model: depends only on the base seed, the model and index."""
    digest = hashlib.sha256(f"{base}:{build_key}:{index}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % (SEED_RANGE - 1)


def sim_free_key(spec: BuildSpec) -> str:
    """The model key without the simulator: the same stimulus on every simulator."""
    return spec.key.rsplit("-", 1)[0]


def expand(tlist: TestList, base_seed: int = DEFAULT_BASE_SEED, seeds: int | None = None,
           sims: Sequence[str] | None = None, timeout_s: int | None = None,
           duts: Sequence[str] | None = None, fixed_seed: int | None = None,
           diff_sims: bool = False) -> list[RunSpec]:
    """The runs of a list, in list order; `seeds` overrides every entry's seed count, `sims`
    and `duts` keep only those simulators/designs, `fixed_seed` gives every model exactly one
    run with that seed. With `diff_sims` (or an entry's `diff_sims = true`) every model runs on
    both simulators with the same seeds. Run keys (model + seed) are unique."""
    runs: list[RunSpec] = []
    next_index: dict[str, int] = {}
    used: dict[str, set[int]] = {}
    for entry in tlist.entries:
        if duts and entry.dut not in duts:
            continue
        both = diff_sims or entry.diff_sims
        specs = entry.builds() if not both else list(dict.fromkeys(
            replace(b, sim=s_) for b in entry.builds() for s_ in tools.SIMULATORS))
        for spec in specs:
            if sims and spec.sim not in sims:
                continue
            seed_key = sim_free_key(spec) if both else spec.key
            for _ in range(1 if fixed_seed is not None else seeds or entry.seeds):
                index, taken = next_index.get(spec.key, 0), used.setdefault(spec.key, set())
                while (seed := fixed_seed if fixed_seed is not None else
                       derive_seed(base_seed, seed_key, index)) in taken:
                    if fixed_seed is not None:
                        break
                    index += 1
                if seed in taken:  # a fixed seed already run on this model
                    continue
                next_index[spec.key] = index + 1
                taken.add(seed)
                runs.append(RunSpec(spec, seed=seed, txns=entry.txns_for(spec.n),
                                    tests=entry.tests, idle_max=entry.idle_max,
                                    timeout_s=timeout_s or tlist.timeout_s, bias=entry.bias))
    return runs


def unique_builds(runs: Iterable[RunSpec]) -> list[BuildSpec]:
    """Each model the runs need, once, in first-use order."""
    return list(dict.fromkeys(r.build for r in runs))


def parse_shard(text: str) -> tuple[int, int]:
    """'i/k' with 1 <= i <= k -> (i, k); ListError otherwise."""
    parts = text.split("/")
    if len(parts) != 2 or not all(p.isdigit() for p in parts) or not 1 <= int(parts[0]) <= int(
            parts[1]):
        raise ListError(f"bad shard spec '{text}': expected I/K with 1 <= I <= K, e.g. 2/4")
    return int(parts[0]), int(parts[1])


# Seconds of a run (fitted to the nightly shards of 2026-11-21 on the 2-core machine): a
# start-up, and per operation a simulator share (cycles x N) and a Python share (~N: the
# bit-accurate model and the per-word bus checking). The RSA core's operation is a whole
# exponentiation (~10 s at N = 256 on Verilator, quadratic in N).
COST_START_S = 3.0
COST_OPS_EXTRA = 25  # the corner, back-to-back, status and error tests' operations
COST_SIM_S = {"verilator": 0.015e-6, "icarus": 1.0e-6}  # per cycle x bit
COST_PY_S = {"verilator": 0.145e-3, "icarus": 0.63e-3}  # per operation x bit
COST_RSA_S = {"verilator": 10.0, "icarus": 40.0}  # per exponentiation at N = 256


@functools.cache
def op_cycles(dut: str, n: int, params: tuple[tuple[str, int], ...]) -> int:
    """The model's cycles of one worst-case operation of a build (4N when unknown)."""
    from montverif.models.registry import get_algo
    from montverif.verif.config import load_design

    try:
        algo = get_algo(load_design(dut).model)
        func = algo.model(algo.resolve(n, dict(params)))
        m = (1 << n) - 1
        res = func(m - 1, 0, m - 1, 0, m, n) if algo.halves else func(m - 1, m - 1, m, n)
        return int(res.cycles or 0) or 4 * n
    except Exception:
        return 4 * n


def run_cost(run: RunSpec) -> float:
    """Estimated seconds of a run, to balance shards and start the longest runs first."""
    b = run.build
    if b.dut == "rsa_core":
        return COST_START_S + run.txns * COST_RSA_S[b.sim] * (max(b.n, 32) / 256) ** 2
    ops = run.txns + COST_OPS_EXTRA
    cycles = op_cycles(b.dut, b.n, tuple(sorted(b.params)))
    return COST_START_S + ops * b.n * (cycles * COST_SIM_S[b.sim] + COST_PY_S[b.sim])


def shard(runs: Sequence[RunSpec], index: int, count: int) -> list[RunSpec]:
    """The runs of shard index/count (1-based). Whole models go to one shard (each shard
    builds only its own models; the runs of a cross-simulator pair stay together); models are
    dealt largest first to the least loaded shard, so the split depends only on the runs."""
    groups: dict[str, list[RunSpec]] = {}
    for run in runs:
        groups.setdefault(sim_free_key(run.build), []).append(run)
    load = [0.0] * count
    owner: dict[str, int] = {}
    for key, group in sorted(groups.items(), key=lambda kv: (-sum(map(run_cost, kv[1])), kv[0])):
        target = min(range(count), key=lambda i: (load[i], i))
        owner[key] = target
        load[target] += sum(map(run_cost, group))
    return [r for r in runs if owner[sim_free_key(r.build)] == index - 1]


# --- launchers ------------------------------------------------------------------------------
class Launcher(Protocol):
    """Where builds and runs happen. `LocalLauncher` runs them on this machine; a batch
    system launcher (or a test's fake) only needs these three methods."""

    def check(self, run: RunSpec) -> None:
        """Raise ConfigError / VectorError / ToolError (one line) if the run cannot be done."""

    def build(self, spec: BuildSpec) -> float:
        """Compile one model; seconds spent (0 when up to date); raise with one line if not."""

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        """One simulation run, its logs in log_dir; its model is built already."""


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class LocalLauncher:
    """Builds and runs on this machine through regress.sim."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def check(self, run: RunSpec) -> None:
        sim.validate(run)

    def build(self, spec: BuildSpec) -> float:
        design = sim.validate(RunSpec(spec))
        try:
            return sim.build(spec, design)[1]
        except INPUT_ERRORS:
            raise
        except Exception as exc:
            log = sim.BUILD_ROOT / "sim" / spec.key / "build.log"
            raise tools.ToolError(f"build of {spec.key} failed ({one_line(exc)}); "
                                  f"see {log}") from None

    def run(self, run: RunSpec, log_dir: Path) -> Outcome:
        # sim.execute rebuilds a model whose sources changed since the build phase (someone
        # edited the HDL); do that here once per model, not in every parallel run of it.
        with self._lock(run.build.key):
            self.build(run.build)
        return sim.execute(run, log_dir)


# --- scheduling -----------------------------------------------------------------------------
T = TypeVar("T", bound=Hashable)
R = TypeVar("R")


def parallel(fn: Callable[[T], R], items: Sequence[T], jobs: int,
             done: Callable[[T, R], bool]) -> tuple[dict[T, R], str]:
    """fn over items, at most `jobs` at a time on threads (fn must not raise).
    `done(item, result)` is called in this thread as results arrive; when it returns False
    no further item is started. Returns the results and why items were left out ("" if none).
    """
    results: dict[T, R] = {}
    todo = list(reversed(items))
    running: dict[Future[R], T] = {}
    stopped = ""
    concurrent, sim.CONCURRENT_JOBS = sim.CONCURRENT_JOBS, max(1, min(jobs, len(items)))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        try:
            while running or (todo and not stopped):
                while todo and not stopped and len(running) < jobs:
                    item = todo.pop()
                    running[pool.submit(fn, item)] = item
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    item = running.pop(fut)
                    results[item] = fut.result()
                    if not done(item, results[item]):
                        stopped = stopped or "--fail-fast"
        except KeyboardInterrupt:
            stopped = "interrupted"
            print(f"interrupted: waiting for {len(running)} running job(s) to end",
                  file=sys.stderr, flush=True)
        finally:
            sim.CONCURRENT_JOBS = concurrent
    for fut, item in running.items():  # left running by an interrupt; the pool waited for them
        results[item] = fut.result()
    return results, stopped


@dataclass
class Options:
    jobs: int = 2
    fail_fast: bool = False
    rerun_waves: int = 3  # failing seeds rerun with waves (0: none)


class Progress:
    """One stderr line per finished build or run, with the running counts:
    `[12/30] PASS <key> 1.2s  (11 ok, 1 failed)`."""

    def __init__(self, total: int, what: str = "") -> None:
        self.total, self.count, self.what, self.failed = total, 0, what, 0

    def line(self, verdict: str, key: str, seconds: float | None, note: str = "") -> None:
        self.count += 1
        self.failed += verdict == FAIL
        width = len(str(self.total))
        text = f"[{self.what}{self.count:>{width}}/{self.total}] {verdict} {key}"
        text += f" {seconds:.1f}s" if seconds is not None else ""
        text += f"  ({self.count - self.failed} ok, {self.failed} failed)"
        print(text + (f"  {note}" if note else ""), file=sys.stderr, flush=True)


def build_all(launcher: Launcher, specs: Sequence[BuildSpec], opts: Options,
              reg: Regression) -> None:
    """Compile each model once; failures are recorded in reg.builds[key].error."""
    progress = Progress(len(specs), "build ")

    def one(spec: BuildSpec) -> BuildResult:
        t0 = time.monotonic()
        try:
            return BuildResult(spec.key, launcher.build(spec))
        except Exception as exc:
            return BuildResult(spec.key, time.monotonic() - t0, one_line(exc))

    def done(spec: BuildSpec, res: BuildResult) -> bool:
        reg.builds[spec.key] = res
        progress.line("FAIL" if res.error else "OK", spec.key, res.seconds,
                      res.error or ("" if res.seconds else "(up to date)"))
        return not (opts.fail_fast and res.error)

    _, reg.stopped = parallel(one, specs, opts.jobs, done)


def run_all(launcher: Launcher, runs: Sequence[RunSpec], opts: Options,
            reg: Regression, previous: dict[str, RunResult] | None = None) -> None:
    """Every run whose model was built; reg.results in list order. Runs in `previous`
    (finished in an earlier, interrupted regression: --resume) are kept, not run again."""
    results: dict[RunSpec, RunResult] = {}
    todo: list[RunSpec] = []
    previous = previous or {}
    for run in runs:
        build = reg.builds.get(run.build.key)
        if run.key in previous:
            results[run] = previous[run.key]
        elif build and build.error:
            results[run] = RunResult(run, FAIL, first_error=f"build failed: {build.error}")
        elif build and not reg.stopped:
            todo.append(run)
        else:  # its build or every run was called off (--fail-fast, interrupt)
            results[run] = RunResult(run, SKIP)
    progress = Progress(len(todo))

    def one(run: RunSpec) -> RunResult:
        log_dir = reg.out_dir / "runs" / run.key
        try:
            return RunResult.from_outcome(launcher.run(run, log_dir))
        except Exception as exc:
            return RunResult(run, FAIL, first_error=one_line(exc), log_dir=log_dir)

    def done(run: RunSpec, res: RunResult) -> bool:
        progress.line(res.status, run.key, res.wall_s,
                      "" if res.passed else res.first_error[:120])
        save_result(reg.out_dir, res)
        return not (opts.fail_fast and not res.passed)

    # longest first (estimated) so the slowest runs do not finish last
    order = sorted(todo, key=run_cost, reverse=True)
    done_runs, stopped = parallel(one, order, opts.jobs, done)
    reg.stopped = reg.stopped or stopped
    results |= done_runs
    reg.results = [results.get(run) or RunResult(run, SKIP) for run in runs]
    for res in reg.results:
        res.index = reg.order.get(res.run.key, 0)


RESULT_FILE = "result.json"


def save_result(out_dir: Path, res: RunResult) -> None:
    """runs/<key>/result.json: the finished run's summary record (read by --resume)."""
    folder = out_dir / "runs" / res.run.key
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULT_FILE).write_text(json.dumps(report.run_record(res), indent=1) + "\n")


def finished_results(out_dir: Path, runs: Sequence[RunSpec]) -> dict[str, RunResult]:
    """The runs that finished (passed or failed) in an earlier regression into out_dir."""
    found: dict[str, RunResult] = {}
    for run in runs:
        path = out_dir / "runs" / run.key / RESULT_FILE
        try:
            res = report.run_result(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not finished (or a half-written record): run it again
        # the record holds the tests as run: a design's own default list (the RSA core's)
        if res.status in (PASS, FAIL) and res.run in (run, sim.with_design_tests(run)):
            found[run.key] = res
    return found


# --- cross-simulator comparison -------------------------------------------------------------
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
    """Runs of one model and seed on two or more simulators: the same transaction log?"""
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


def regress(launcher: Launcher, name: str, runs: Sequence[RunSpec], opts: Options,
            out_dir: Path, base_seed: int, *, order: dict[str, int] | None = None,
            shard_spec: str = "", planned: int = 0, history: Path | None = None,
            resume: bool = False, campaigns: Sequence[CampaignSpec] = (),
            campaigns_planned: int = 0) -> Regression:
    """Build, run, run the mutation campaigns and write the results folder; runs and
    campaigns were checked already."""
    reg = Regression(name, base_seed, opts.jobs, out_dir, datetime.now().astimezone(),
                     git=tools.git_revision(sim.ROOT), versions=tools.versions(),
                     shard=shard_spec, planned=planned or len(runs), history=history,
                     order=order or {r.key: i for i, r in enumerate(runs)},
                     mutation_planned=campaigns_planned or len(campaigns))
    t0 = time.monotonic()
    previous = finished_results(out_dir, runs) if resume else {}
    specs = unique_builds(r for r in runs if r.key not in previous)
    more = f" + {len(campaigns)} mutation campaign(s)" if campaigns else ""
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
    if campaigns:  # after the runs and their reruns, so they never compete with the list
        from montverif.regress import mutation

        mutation.run_all(campaigns, opts, reg, resume)
    reg.wall_s = time.monotonic() - t0
    report.write_all(reg)
    return reg


def rerun_failures(launcher: Launcher, opts: Options, reg: Regression) -> None:
    """Run up to `opts.rerun_waves` failing seeds again on a traced build (same seed, same
    stimulus) and record whether each fails the same way, with its waveform."""
    failed = [r for r in reg.results if r.status == FAIL and r.log_dir is not None
              and not r.run.build.waves and r.rerun is None][:opts.rerun_waves]
    if not failed:
        return
    print(f"rerunning {len(failed)} failing seed(s) with waves", file=sys.stderr, flush=True)

    def one(i: int) -> Rerun:
        res = failed[i]
        wrun = replace(res.run, build=replace(res.run.build, waves=True))
        log_dir = reg.out_dir / "runs" / wrun.key
        try:
            out = launcher.run(wrun, log_dir)
            return Rerun(wrun.key, "" if out.passed else out.first_error or "failed",
                         out.log_dir, out.waves)
        except Exception as exc:
            return Rerun(wrun.key, f"rerun failed to run: {one_line(exc)}", log_dir, None)

    def done(i: int, rerun: Rerun) -> bool:
        res = failed[i]
        res.rerun = rerun
        if rerun.waves is not None and rerun.log_dir is not None:
            from montverif.regress import debug

            note = debug.annotate(res.run, rerun.waves, rerun.log_dir, res.first_error)
            print(f"  {res.run.key}: {note}", file=sys.stderr, flush=True)
        save_result(reg.out_dir, res)
        print(f"  {res.run.key}: {rerun.describe(res.first_error)}", file=sys.stderr,
              flush=True)
        return True

    parallel(one, list(range(len(failed))), opts.jobs, done)


# --- results folder -------------------------------------------------------------------------
def results_dir(root: Path, name: str, out: str | None) -> Path:
    if out:
        path = Path(out).resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path
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


# --- command line ---------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """Bad command-line input: one `error:` line (and exit 2), no usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see montverif --help)\n")


def _lists_option(parser: argparse.ArgumentParser) -> None:
    """--lists after the command too (`montverif regress --lists F --list L`)."""
    parser.add_argument("--lists", default=argparse.SUPPRESS,
                        help=f"lists file (default: {LISTS_FILE})")


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="montverif", description=__doc__,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lists", default=str(LISTS_FILE), help="lists file (default: %(default)s)")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_Parser)
    ls = sub.add_parser("lists", help="show the lists and how many runs each expands to")
    _lists_option(ls)
    ls.add_argument("name", nargs="?", help="print every run of this list")
    run = sub.add_parser("regress", help="build and run one list", description=(
        "Build each model of the list once, then run every seed in parallel; progress on "
        "stderr, summary and `N passed, M failed` on stdout. Exit 0 all passed, 1 a run "
        "failed, 2 bad input."))
    _lists_option(run)
    run.add_argument("--list", required=True, dest="name", help="list name (see `montverif lists`)")
    run.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                     help="parallel builds/runs (default: CPU count, %(default)s)")
    run.add_argument("--sim", action="append",
                     help=f"only runs and mutation campaigns of this simulator "
                          f"({', '.join(tools.SIMULATORS)}; repeatable)")
    run.add_argument("--dut", action="append",
                     help="only runs and mutation campaigns of this design (repeatable)")
    run.add_argument("--seeds", type=int, help="seeds per configuration (overrides the list)")
    run.add_argument("--seed", type=int, default=DEFAULT_BASE_SEED,
                     help="base seed the run seeds are derived from (default %(default)s)")
    run.add_argument("--fixed-seed", type=int, metavar="S",
                     help="one run per model, all with seed S (replays one seed everywhere)")
    run.add_argument("--out", help="results folder (default build/regress/<list>-<time>)")
    run.add_argument("--timeout", type=int,
                     help="wall-clock seconds per run (default: list) and per mutant run "
                          "(default 120)")
    run.add_argument("--rerun-waves", type=int, default=3, metavar="K",
                     help="rerun up to K failing seeds with waves (default 3, 0: none)")
    run.add_argument("--code-coverage", action="store_true",
                     help="Verilator runs with line + toggle coverage (own builds, -cov keys)")
    run.add_argument("--fail-fast", action="store_true",
                     help="start no further build/run after the first failure")
    run.add_argument("--shard", metavar="I/K",
                     help="run only shard I of K (whole models per shard; `merge` joins them)")
    run.add_argument("--resume", action="store_true",
                     help="keep the finished runs of --out (default: build/regress/latest) "
                          "and do only the rest")
    run.add_argument("--diff-sims", action="store_true",
                     help="run every model on Icarus and Verilator with the same seeds and "
                          "compare their transaction logs")
    run.add_argument("--history", metavar="FILE",
                     help="history file to append to (default <results root>/history.jsonl; "
                          "shards never append)")
    mg = sub.add_parser("merge", help="merge shard results folders into one", description=(
        "Join the results folders of `run --shard i/k` into OUT: runs/ copied, summary.json, "
        "junit.xml, report.html and cycles.md as one regression of the same seeds would "
        "write them; appends the history."))
    mg.add_argument("out", help="merged results folder")
    mg.add_argument("shards", nargs="+", help="shard results folders")
    mg.add_argument("--history", metavar="FILE", help="history file (default as for run)")
    rp = sub.add_parser("report", help="rewrite report.html of a results folder", description=(
        "Render DIR/report.html again from DIR/summary.json, e.g. after the coverage merge "
        "wrote DIR/coverage/summary.json; the history is read, not appended to."))
    rp.add_argument("dir", help="results folder")
    rp.add_argument("--history", metavar="FILE", help="history file (default as for run)")
    return ap


def cmd_list(lists_file: Path, name: str | None) -> int:
    from montverif.regress import mutation

    lists = load_lists(lists_file)
    if name is not None:
        tlist = get_list(name, lists_file)
        for run in expand(tlist):
            print(f"{run.key:<40} txns={run.txns}")
        for c in mutation.plan(tlist.mutations, DEFAULT_BASE_SEED):
            print(f"{c.folder:<40} sim={c.sim} n={c.n} mutants={c.mutants} txns={c.txns} "
                  f"goal={c.goal:g}% seed={c.seed}")
        return 0
    width = max(map(len, lists), default=0)
    for tl in lists.values():
        runs = expand(tl)
        budget = (f" + {len(tl.mutations)} mutation campaign{'s' * (len(tl.mutations) > 1)}, "
                  f"{sum(c.mutants for c in tl.mutations)} mutants" if tl.mutations else "")
        print(f"{tl.name:<{width}}  {len(runs):>4} runs  {len(unique_builds(runs)):>3} builds"
              f"{budget}  {tl.description}")
    return 0


def _check_args(args: argparse.Namespace) -> None:
    for opt in ("jobs", "seeds", "timeout"):
        value = getattr(args, opt)
        if value is not None and value < 1:
            raise ListError(f"--{opt} must be at least 1 (got {value})")
    for opt in ("seed", "fixed_seed"):
        value = getattr(args, opt)
        if value is not None and not 0 <= value < 2**32:
            raise ListError(f"--{opt.replace('_', '-')} must be 0..2^32-1 (got {value})")
    if unknown := [s_ for s_ in args.sim or [] if s_ not in tools.SIMULATORS]:
        raise ListError(f"unknown simulator {', '.join(unknown)} "
                        f"(known: {', '.join(tools.SIMULATORS)})")
    if unknown := [d for d in args.dut or [] if d not in known_designs()]:
        raise ListError(f"unknown design {', '.join(unknown)} "
                        f"(known: {', '.join(known_designs())})")


def check_runs(launcher: Launcher, runs: Sequence[RunSpec]) -> None:
    """Every run can be done (widths, bus widths, simulators installed ...), else raise."""
    for run in runs:
        try:
            launcher.check(run)
        except INPUT_ERRORS as exc:
            raise ListError(f"{run.key}: {exc}") from None


def _resume_dir(results_root: Path, out: str | None) -> Path:
    path = Path(out).resolve() if out else (results_root / "latest").resolve()
    if not path.is_dir() or not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        raise ListError(f"--resume: cannot use results folder {path} (missing or unreadable)")
    return path


def cmd_run(args: argparse.Namespace, launcher: Launcher, results_root: Path) -> int:
    _check_args(args)
    tlist = get_list(args.name, Path(args.lists))
    shard_ix = parse_shard(args.shard) if args.shard else None
    all_runs = expand(tlist, args.seed, args.seeds, args.sim, args.timeout, args.dut,
                      args.fixed_seed, args.diff_sims)
    if args.code_coverage:
        all_runs = [replace(r, build=replace(r.build, coverage=r.build.sim == "verilator"))
                    for r in all_runs]
    from montverif.regress import mutation

    all_campaigns = mutation.plan(tlist.mutations, args.seed, args.fixed_seed, args.sim,
                                  args.dut, args.timeout)
    if not all_runs and not all_campaigns:
        raise ListError(f"list '{tlist.name}' has no runs for "
                        f"{', '.join((args.sim or []) + (args.dut or []))}")
    runs = shard(all_runs, *shard_ix) if shard_ix else all_runs
    campaigns = mutation.shard(all_campaigns, *shard_ix) if shard_ix else all_campaigns
    check_runs(launcher, runs)
    mutation.check_all(campaigns)
    out_dir = _resume_dir(results_root, args.out) if args.resume else results_dir(
        results_root, tlist.name + (f"-shard{shard_ix[0]}of{shard_ix[1]}" if shard_ix else ""),
        args.out)
    point_latest(results_root, out_dir)
    opts = Options(args.jobs, args.fail_fast, args.rerun_waves)
    history = None if shard_ix else Path(args.history) if args.history else \
        results_root / "history.jsonl"
    order = {r.key: i for i, r in enumerate(all_runs)}
    # the history line and report.html come after the coverage merge (they show it)
    reg = regress(launcher, tlist.name, runs, opts, out_dir, args.seed, order=order,
                  shard_spec=args.shard or "", planned=len(all_runs), history=None,
                  resume=args.resume, campaigns=campaigns,
                  campaigns_planned=len(all_campaigns))
    # functional coverage merged into <out>/coverage/, closure table; goals (lists.toml
    # `coverage_goals = true`) missed -> exit 1 (a shard only merges: goals apply to the whole)
    coverage_ok = closure.after_regression(out_dir, tlist.name, Path(args.lists),
                                           shard=bool(shard_ix))
    finish_report(reg, history)
    print(report.format_summary(reg), flush=True)
    if reg.stopped == "interrupted":
        return 130
    return 0 if reg.passed and coverage_ok else 1


def merge(out_dir: Path, shard_dirs: Sequence[Path], history: Path | None) -> Regression:
    """One Regression from shard folders: runs/ copied into out_dir, results in list order."""
    regs = []
    for folder in shard_dirs:
        if not (folder / "summary.json").is_file():
            raise ListError(f"cannot read results folder {folder}: no summary.json")
        try:
            regs.append(report.load_summary(folder / "summary.json"))
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
                        mutation_planned=max(r.mutation_planned for r in regs))
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
        _merge_mutation(merged, reg, folder)
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
    report.write_all(merged)
    return merged


def _merge_mutation(merged: Regression, reg: Regression, folder: Path) -> None:
    """A shard's mutation campaigns (records and their folders) into the merged results."""
    if (folder / "mutation").is_dir():
        shutil.copytree(folder / "mutation", merged.out_dir / "mutation", dirs_exist_ok=True)
    for dut, rec in reg.mutation.items():
        if dut in merged.mutation:
            raise ListError(f"mutation campaign {dut} is in more than one shard")
        merged.mutation[dut] = rec


def finish_report(reg: Regression, history_file: Path | None) -> None:
    """After the coverage merge: the history line (with coverage %) and report.html."""
    from montverif.regress import history, html

    summary = report.summary_dict(reg)
    past: list[dict] = []
    if history_file is not None:
        history.append(history_file, summary, reg.out_dir)
        past = history.load(history_file)
    (reg.out_dir / "report.html").write_text(html.render(summary, reg.out_dir, past))


def cmd_merge(args: argparse.Namespace, results_root: Path) -> int:
    history = Path(args.history) if args.history else results_root / "history.jsonl"
    out = Path(args.out).resolve()
    reg = merge(out, [Path(d).resolve() for d in args.shards], None)
    coverage_ok = closure.after_regression(out, reg.name, LISTS_FILE)
    finish_report(reg, history)
    print(report.format_summary(reg), flush=True)
    return 0 if reg.passed and coverage_ok else 1


def cmd_report(args: argparse.Namespace, results_root: Path) -> int:
    folder = Path(args.dir).resolve()
    if not (folder / "summary.json").is_file():
        raise ListError(f"cannot read results folder {folder}: no summary.json")
    try:
        summary = report.summary_dict(report.load_summary(folder / "summary.json"))
    except ValueError as exc:
        raise ListError(str(exc)) from None
    from montverif.regress import history, html

    past = history.load(Path(args.history) if args.history else results_root / "history.jsonl")
    (folder / "report.html").write_text(html.render(summary, folder, past))
    print(f"wrote {folder / 'report.html'}")
    return 0


def main(argv: list[str] | None = None, launcher: Launcher | None = None,
         results_root: Path = RESULTS_ROOT) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "lists":
            return cmd_list(Path(args.lists), args.name)
        if args.command == "merge":
            return cmd_merge(args, results_root)
        if args.command == "report":
            return cmd_report(args, results_root)
        return cmd_run(args, launcher or LocalLauncher(), results_root)
    except (ListError, *INPUT_ERRORS) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
