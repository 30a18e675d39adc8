"""Regression lists: expand a list of regress/lists.toml into runs, build every model once,
run everything in parallel and report.

    python -m regress list [NAME]
    python -m regress run --list smoke [--jobs 2] [--sim verilator] [--seeds K] [--seed S]
                          [--out DIR] [--timeout SEC] [--fail-fast]

Progress goes to stderr (one line per build and per finished run); the summary table, the
failures with their repro commands and a last line `N passed, M failed` go to stdout.
Results: <out>/junit.xml, <out>/summary.json and <out>/runs/<run key>/ (default out:
build/regress/<list>-<timestamp>, with build/regress/latest pointing at it).
Exit 0 when every run passed, 1 otherwise, 2 on bad input (one-line `error:` message).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Protocol, TypeVar

from regress import closure, report, sim, tools
from regress.report import FAIL, SKIP, BuildResult, Regression, Rerun, RunResult
from regress.sim import ALL_TESTS, BuildSpec, Outcome, RunSpec
from verif.config import ConfigError, known_designs
from verif.vectors import VectorError

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


_REQUIRED = ("dut", "widths", "bus_widths", "simulators", "seeds", "txns")
_OPTIONAL = ("txns_from_n", "ack_wait", "tests", "idle_max", "params")


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
    )


def _test_list(name: str, raw: object, where: str) -> TestList:
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    known = ("description", "timeout", "entry", "coverage_goals")
    if unknown := [k for k in raw if k not in known]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                        f"(known: {', '.join(known)})")
    entries = raw.get("entry")
    if not isinstance(entries, list) or not entries:
        raise ListError(f"{where}: no [[{name}.entry]]")
    return TestList(name, str(raw.get("description", "")),
                    tuple(entry for i, e in enumerate(entries)
                          for entry in _entries(e, f"{where}.entry[{i}]")),
                    _int(raw.get("timeout", sim.DEFAULT_TIMEOUT_S), f"{where}.timeout", 1))


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


def expand(tlist: TestList, base_seed: int = DEFAULT_BASE_SEED, seeds: int | None = None,
           sims: Sequence[str] | None = None, timeout_s: int | None = None) -> list[RunSpec]:
    """The runs of a list, in list order; `seeds` overrides every entry's seed count and
    `sims` keeps only those simulators. Run keys (model + seed) are unique."""
    runs: list[RunSpec] = []
    next_index: dict[str, int] = {}
    used: dict[str, set[int]] = {}
    for entry in tlist.entries:
        for spec in entry.builds():
            if sims and spec.sim not in sims:
                continue
            for _ in range(seeds or entry.seeds):
                index, taken = next_index.get(spec.key, 0), used.setdefault(spec.key, set())
                while (seed := derive_seed(base_seed, spec.key, index)) in taken:
                    index += 1
                next_index[spec.key] = index + 1
                taken.add(seed)
                runs.append(RunSpec(spec, seed=seed, txns=entry.txns_for(spec.n),
                                    tests=entry.tests, idle_max=entry.idle_max,
                                    timeout_s=timeout_s or tlist.timeout_s))
    return runs


def unique_builds(runs: Iterable[RunSpec]) -> list[BuildSpec]:
    """Each model the runs need, once, in first-use order."""
    return list(dict.fromkeys(r.build for r in runs))


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
        except Exception as exc:  # noqa: BLE001 - e.g. the cocotb runner's RuntimeError
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
    for fut, item in running.items():  # left running by an interrupt; the pool waited for them
        results[item] = fut.result()
    return results, stopped


@dataclass
class Options:
    jobs: int = 2
    fail_fast: bool = False
    rerun_waves: int = 3  # failing seeds rerun with waves (0: none)


class Progress:
    """One stderr line per finished build or run: `[12/30] PASS <key> 1.2s`."""

    def __init__(self, total: int, what: str = "") -> None:
        self.total, self.count, self.what = total, 0, what

    def line(self, verdict: str, key: str, seconds: float | None, note: str = "") -> None:
        self.count += 1
        width = len(str(self.total))
        text = f"[{self.what}{self.count:>{width}}/{self.total}] {verdict} {key}"
        text += f" {seconds:.1f}s" if seconds is not None else ""
        print(text + (f"  {note}" if note else ""), file=sys.stderr, flush=True)


def build_all(launcher: Launcher, specs: Sequence[BuildSpec], opts: Options,
              reg: Regression) -> None:
    """Compile each model once; failures are recorded in reg.builds[key].error."""
    progress = Progress(len(specs), "build ")

    def one(spec: BuildSpec) -> BuildResult:
        t0 = time.monotonic()
        try:
            return BuildResult(spec.key, launcher.build(spec))
        except Exception as exc:  # noqa: BLE001 - recorded as the build's error
            return BuildResult(spec.key, time.monotonic() - t0, one_line(exc))

    def done(spec: BuildSpec, res: BuildResult) -> bool:
        reg.builds[spec.key] = res
        progress.line("FAIL" if res.error else "OK", spec.key, res.seconds,
                      res.error or ("" if res.seconds else "(up to date)"))
        return not (opts.fail_fast and res.error)

    _, reg.stopped = parallel(one, specs, opts.jobs, done)


def run_all(launcher: Launcher, runs: Sequence[RunSpec], opts: Options,
            reg: Regression) -> None:
    """Every run whose model was built; reg.results in list order."""
    results: dict[RunSpec, RunResult] = {}
    todo: list[RunSpec] = []
    for run in runs:
        build = reg.builds.get(run.build.key)
        if build and build.error:
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
        except Exception as exc:  # noqa: BLE001 - recorded as the run's error
            return RunResult(run, FAIL, first_error=one_line(exc), log_dir=log_dir)

    def done(run: RunSpec, res: RunResult) -> bool:
        progress.line(res.status, run.key, res.wall_s,
                      "" if res.passed else res.first_error[:120])
        return not (opts.fail_fast and not res.passed)

    # longest first (icarus, then wide) so the slowest runs do not finish last
    order = sorted(todo, key=lambda r: (r.build.sim == "icarus", r.build.n), reverse=True)
    done_runs, stopped = parallel(one, order, opts.jobs, done)
    reg.stopped = reg.stopped or stopped
    results |= done_runs
    reg.results = [results.get(run) or RunResult(run, SKIP) for run in runs]


def regress(launcher: Launcher, name: str, runs: Sequence[RunSpec], opts: Options,
            out_dir: Path, base_seed: int) -> Regression:
    """Build, run and write junit.xml + summary.json; runs were checked already."""
    reg = Regression(name, base_seed, opts.jobs, out_dir, datetime.now().astimezone(),
                     git=tools.git_revision(sim.ROOT), versions=tools.versions())
    t0 = time.monotonic()
    specs = unique_builds(runs)
    print(f"{name}: {len(runs)} runs, {len(specs)} builds, {opts.jobs} job(s); "
          f"results in {out_dir}", file=sys.stderr, flush=True)
    build_all(launcher, specs, opts, reg)
    run_all(launcher, runs, opts, reg)
    rerun_failures(launcher, opts, reg)
    reg.wall_s = time.monotonic() - t0
    report.write_all(reg)
    return reg


def rerun_failures(launcher: Launcher, opts: Options, reg: Regression) -> None:
    """Run up to `opts.rerun_waves` failing seeds again on a traced build (same seed, same
    stimulus) and record whether each fails the same way, with its waveform."""
    failed = [r for r in reg.results if r.status == FAIL and r.log_dir is not None
              and not r.run.build.waves][:opts.rerun_waves]
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
        except Exception as exc:  # noqa: BLE001 - recorded as the rerun's error
            return Rerun(wrun.key, f"rerun failed to run: {one_line(exc)}", log_dir, None)

    def done(i: int, rerun: Rerun) -> bool:
        res = failed[i]
        res.rerun = rerun
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
def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m regress", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lists", default=str(LISTS_FILE), help="lists file (default: %(default)s)")
    sub = ap.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="show the lists and how many runs each expands to")
    ls.add_argument("name", nargs="?", help="print every run of this list")
    run = sub.add_parser("run", help="build and run one list", description=(
        "Build each model of the list once, then run every seed in parallel; progress on "
        "stderr, summary and `N passed, M failed` on stdout. Exit 0 all passed, 1 a run "
        "failed, 2 bad input."))
    run.add_argument("--list", required=True, dest="name", help="list name (see `list`)")
    run.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                     help="parallel builds/runs (default: CPU count, %(default)s)")
    run.add_argument("--sim", action="append", choices=tools.SIMULATORS,
                     help="only runs of this simulator (repeatable)")
    run.add_argument("--seeds", type=int, help="seeds per configuration (overrides the list)")
    run.add_argument("--seed", type=int, default=DEFAULT_BASE_SEED,
                     help="base seed the run seeds are derived from (default %(default)s)")
    run.add_argument("--out", help="results folder (default build/regress/<list>-<time>)")
    run.add_argument("--timeout", type=int, help="wall-clock seconds per run (default: list)")
    run.add_argument("--rerun-waves", type=int, default=3, metavar="K",
                     help="rerun up to K failing seeds with waves (default 3, 0: none)")
    run.add_argument("--code-coverage", action="store_true",
                     help="Verilator runs with line + toggle coverage (own builds, -cov keys)")
    run.add_argument("--fail-fast", action="store_true",
                     help="start no further build/run after the first failure")
    return ap


def cmd_list(lists_file: Path, name: str | None) -> int:
    lists = load_lists(lists_file)
    if name is not None:
        for run in expand(get_list(name, lists_file)):
            print(f"{run.key:<40} txns={run.txns}")
        return 0
    width = max(map(len, lists), default=0)
    for tl in lists.values():
        runs = expand(tl)
        print(f"{tl.name:<{width}}  {len(runs):>4} runs  {len(unique_builds(runs)):>3} builds"
              f"  {tl.description}")
    return 0


def _check_args(args: argparse.Namespace) -> None:
    for opt in ("jobs", "seeds", "timeout"):
        value = getattr(args, opt)
        if value is not None and value < 1:
            raise ListError(f"--{opt} must be at least 1 (got {value})")


def check_runs(launcher: Launcher, runs: Sequence[RunSpec]) -> None:
    """Every run can be done (widths, bus widths, simulators installed ...), else raise."""
    for run in runs:
        try:
            launcher.check(run)
        except INPUT_ERRORS as exc:
            raise ListError(f"{run.key}: {exc}") from None


def cmd_run(args: argparse.Namespace, launcher: Launcher, results_root: Path) -> int:
    _check_args(args)
    tlist = get_list(args.name, Path(args.lists))
    runs = expand(tlist, args.seed, args.seeds, args.sim, args.timeout)
    if args.code_coverage:
        runs = [replace(r, build=replace(r.build, coverage=r.build.sim == "verilator"))
                for r in runs]
    if not runs:
        raise ListError(f"list '{tlist.name}' has no runs for simulator(s) {', '.join(args.sim)}")
    check_runs(launcher, runs)
    out_dir = results_dir(results_root, tlist.name, args.out)
    point_latest(results_root, out_dir)
    opts = Options(args.jobs, args.fail_fast, args.rerun_waves)
    reg = regress(launcher, tlist.name, runs, opts, out_dir,
                  args.seed)
    # functional coverage merged into <out>/coverage/, closure table; goals (lists.toml
    # `coverage_goals = true`) missed -> exit 1
    coverage_ok = closure.after_regression(out_dir, tlist.name, Path(args.lists))
    print(report.format_summary(reg), flush=True)
    if reg.stopped == "interrupted":
        return 130
    return 0 if reg.passed and coverage_ok else 1


def main(argv: list[str] | None = None, launcher: Launcher | None = None,
         results_root: Path = RESULTS_ROOT) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            return cmd_list(Path(args.lists), args.name)
        return cmd_run(args, launcher or LocalLauncher(), results_root)
    except (ListError, *INPUT_ERRORS) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
