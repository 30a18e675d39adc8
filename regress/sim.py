"""One simulation run: build (shared, skipped when up to date) and run the cocotb tests.

    montverif sim --dut mont_lut --n 256 --sim verilator --seed 123 [--waves]
                          [--vectors file.json] [--txns 200] [--busw 32] [--timeout 600]

Prints PASS/FAIL, the log folder and a repro command; exit 0 on pass, 1 on fail, 2 on bad
input (a one-line `error:` message, never a traceback). `montverif sim` (and `make sim`) run this.
The tests run in a child process, so a hung simulation is ended by the wall-clock watchdog.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

from montverif.models.registry import get_algo
from montverif.models.result import ModelInputError
from montverif.regress import tools
from montverif.verif import regmap
from montverif.verif.bus import engine
from montverif.verif.bus.vpi import STORAGE_SYMBOL
from montverif.verif.config import (
    CLOCK_PERIOD_NS,
    CONFIG_DIR,
    ConfigError,
    DesignConfig,
    RunConfig,
    load_design,
    parse_params,
)
from montverif.verif.vectors import VectorError, load_vectors

ROOT = Path(__file__).resolve().parent.parent
BUILD_ROOT = ROOT / "build"
TIMESCALE = ("1ns", "1ps")  # (unit, precision) of every build and run
UNIT_NS = {"fs": 1e-6, "ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}  # time units
TEST_MODULE = "montverif.verif.tb_mult"
ALL_TESTS = ("RandomTest", "CornerTest", "BackToBackTest", "StatusWhileBusyTest", "ErrorTest")
VECTOR_TESTS = ("VectorTest",)
DEFAULT_TIMEOUT_S = 1800
# simulations this process runs at once (regress/run.py's `parallel` sets it): a run gets the
# scoreboard's checker thread only when every one of them can have a second core
CONCURRENT_JOBS = 1
BUS_MODES = ("pins", "engine")


def design_tb(dut: str) -> tuple[str, tuple[str, ...], str | None]:
    """The design's testbench: (cocotb test module, default tests, vector loader "mod:func"),
    from the optional keys test_module, tests and vector_loader of its config TOML; the
    multiplier testbench (TEST_MODULE, ALL_TESTS, verif.vectors) by default."""
    path = CONFIG_DIR / f"{dut}.toml"
    raw = tomllib.loads(path.read_text()) if path.is_file() else {}
    return (raw.get("test_module", TEST_MODULE), tuple(raw.get("tests", ALL_TESTS)),
            raw.get("vector_loader"))


def has_engine(dut: str) -> bool:
    """Whether the design's testbench runs in the fast bus mode (the multiplier testbench;
    the RSA core's drives the pins)."""
    return design_tb(dut)[0] == TEST_MODULE


def with_design_tests(run: RunSpec) -> RunSpec:
    """A run asking for the default tests (ALL_TESTS) gets its design's own default list."""
    if run.tests != ALL_TESTS:
        return run
    return dataclasses.replace(run, tests=design_tb(run.build.dut)[1])


@dataclass(frozen=True)
class BuildSpec:
    """What one compiled model is: shared by every seed that uses it."""

    dut: str
    n: int
    bus_w: int = 32
    sim: str = "verilator"
    ack_wait: int = 0
    fault: bool = False
    waves: bool = False
    # build parameters beyond N as given (e.g. (("P", 2), ("W", 8))); defaults fill the rest
    params: tuple[tuple[str, int], ...] = ()
    # "pins": Python drives the bus pins; "engine": the simulation-only HDL bus engine does
    # (verif/bus/engine.py), Python wakes about once per operation (one engine script)
    bus: str = "pins"
    # Verilator line + toggle coverage (coverage.dat per run, regress/codecov.py)
    coverage: bool = False
    # a folder whose files replace the design's sources of the same name (mutation testing,
    # regress/mutate/); its name and a digest of its path go into the key, so each overlay
    # is its own build: two campaigns run at once (parallel jobs, parallel tests) with the
    # same mutant number never build in, or remove, each other's folder
    overlay: str = ""

    @property
    def key(self) -> str:
        parts = [self.dut, f"n{self.n}"] + [f"{k}{v}" for k, v in self.params]
        if self.overlay:
            where = hashlib.sha256(str(Path(self.overlay).resolve()).encode()).hexdigest()
            parts += [Path(self.overlay).name, where[:8]]
        parts += [f"b{self.bus_w}"]
        parts += [f"w{self.ack_wait}"] if self.ack_wait else []
        parts += ["fault"] if self.fault else []
        parts += ["waves"] if self.waves else []
        parts += ["eng"] if self.bus == "engine" else []
        # the old HDL-clock engine build (MV_ENGINE_CLOCK=hdl) in a folder of its own
        parts += ["hdlclk"] if self.bus == "engine" and _engine_hdl_clock() else []
        parts += ["cov"] if self.coverage else []
        return "-".join(parts + [self.sim])

    def toplevel(self, design: DesignConfig) -> str:
        return engine.wrapper_name(design.toplevel) if self.bus == "engine" else \
            design.toplevel

    def sources(self, design: DesignConfig) -> list[Path]:
        """The design's sources, each replaced by the overlay's file of the same name."""
        if not self.overlay:
            return list(design.sources)
        over = Path(self.overlay)
        return [over / s.name if (over / s.name).is_file() else s for s in design.sources]

    def design_params(self, design: DesignConfig) -> dict[str, int]:
        """The parameters beyond N, defaults included (raises ModelInputError if illegal)."""
        return get_algo(design.model).resolve(self.n, dict(self.params))

    def parameters(self, design: DesignConfig) -> dict[str, int]:
        params = {"N": self.n, "BusW": self.bus_w, "AckWait": self.ack_wait}
        params |= self.design_params(design)
        return params | (design.fault_params if self.fault else {})


@dataclass(frozen=True)
class RunSpec:
    build: BuildSpec
    seed: int = 1
    txns: int = 50
    vectors: str | None = None
    tests: tuple[str, ...] = ALL_TESTS
    idle_max: int = 2
    timeout_s: int = DEFAULT_TIMEOUT_S
    # coverage steering (verif/steer.py): the MV_BIAS JSON this run's stimulus uses, "" = none
    bias: str = ""
    # simulator plusargs, e.g. ("+MV_MUTANT=63",): the mutant a shared mutation build runs
    plusargs: tuple[str, ...] = ()

    def __post_init__(self) -> None:  # read back from JSON (outcome.json, summary.json): a list
        object.__setattr__(self, "plusargs", tuple(self.plusargs))

    @property
    def key(self) -> str:
        extra = "".join("-" + re.sub(r"\W+", "", p) for p in self.plusargs)
        return f"{self.build.key}-s{self.seed}{extra}"

    def repro(self) -> str:
        """The one command that runs this seed again, with waves."""
        b = self.build
        cmd = f"montverif sim --dut {b.dut} --n {b.n}"
        cmd += f" --params {','.join(f'{k}={v}' for k, v in b.params)}" if b.params else ""
        cmd += f" --busw {b.bus_w} --sim {b.sim} --seed {self.seed} --txns {self.txns}"
        cmd += f" --ack-wait {b.ack_wait}" if b.ack_wait else ""
        cmd += " --fault" if b.fault else ""
        cmd += " --coverage" if b.coverage else ""
        cmd += f" --idle-max {self.idle_max}" if self.idle_max != 2 else ""
        cmd += " --bus engine" if b.bus == "engine" else ""
        cmd += f" --vectors {self.vectors}" if self.vectors else ""
        cmd += f" --tests {','.join(self.tests)}" if self.tests not in (ALL_TESTS, VECTOR_TESTS) \
            else ""
        cmd += f" --bias '{self.bias}'" if self.bias else ""
        return cmd + " --waves"


@dataclass
class Outcome:
    run: RunSpec
    passed: bool
    log_dir: Path
    tests: int = 0
    failed: int = 0
    first_error: str = ""
    wall_s: float = 0.0
    build_s: float = 0.0
    waves: Path | None = None
    extra: dict[str, object] = field(default_factory=dict)


# --- validation -----------------------------------------------------------------------------
def validate(run: RunSpec) -> DesignConfig:
    """Check everything a run needs before any work; raises with a one-line message."""
    run = with_design_tests(run)
    b = run.build
    design = load_design(b.dut)
    if b.sim not in tools.SIMULATORS:
        raise ConfigError(f"unknown simulator '{b.sim}' (known: {', '.join(tools.SIMULATORS)})")
    if b.coverage and b.sim != "verilator":
        raise ConfigError("line/toggle coverage (COV=1) needs SIM=verilator")
    rm = regmap.load()
    if b.bus_w not in rm.bus_widths:
        raise ConfigError(f"unsupported bus width BUSW={b.bus_w} "
                          f"(supported: {', '.join(map(str, rm.bus_widths))})")
    if not design.min_n <= b.n <= design.max_n:
        raise ConfigError(f"unsupported width N={b.n} for {b.dut} "
                          f"(supported: {design.min_n}..{design.max_n})")
    red = design.design.redundant_width(b.n) or b.n
    if regmap.words(red, b.bus_w) > 1 << rm.index_width:
        raise ConfigError(f"N={b.n} needs more than {1 << rm.index_width} words at BUSW={b.bus_w}")
    try:
        b.design_params(design)
    except ModelInputError as exc:
        raise ConfigError(str(exc)) from None
    if b.bus not in BUS_MODES:
        raise ConfigError(f"unknown bus mode '{b.bus}' (known: {', '.join(BUS_MODES)})")
    if b.bus == "engine" and not has_engine(b.dut):
        raise ConfigError(f"{b.dut}'s testbench ({design_tb(b.dut)[0]}) has no fast bus mode: "
                          "use --bus pins")
    if not 0 <= b.ack_wait <= 15:
        raise ConfigError(f"ACK_WAIT must be 0..15 (got {b.ack_wait})")
    if run.txns < 1:
        raise ConfigError(f"TXNS must be at least 1 (got {run.txns})")
    _, tb_tests, vector_loader = design_tb(b.dut)
    if run.vectors is not None and vector_loader:
        module, _, func = vector_loader.partition(":")
        getattr(importlib.import_module(module), func)(Path(run.vectors), b.n)
    elif run.vectors is not None:
        load_vectors(Path(run.vectors), b.n, design.design.operands, design.design.below_modulus,
                     design.design.carry_save_operands)
    known = tb_tests + VECTOR_TESTS
    unknown = [t for t in run.tests if t not in known]
    if unknown:
        raise ConfigError(f"unknown test(s) {', '.join(unknown)} "
                          f"(known: {', '.join(known)})")
    if bias := (run.bias or os.environ.get("MV_BIAS", "")).strip():  # steering (verif/steer.py)
        from montverif.verif.steer import Bias, BiasError

        try:
            Bias.parse(bias)
        except BiasError as exc:
            raise ConfigError(str(exc)) from None
    tools.setup_env(b.sim)
    return design


# --- build ----------------------------------------------------------------------------------
def vpi_control(design: DesignConfig, engine_build: bool = False) -> str:
    """Verilator control file that makes the signals the testbench probes inside the DUT
    visible through VPI, and in engine builds the bus engine's script, log and cycle count.
    The build replaces cocotb's --public-flat-rw (every signal public, which keeps Verilator
    from optimising them: the simulation runs 2-3x slower) with --public-depth 1 (the
    toplevel's ports) and this file. MV_VPI=flat restores the old behaviour (e.g. to poke at any
    internal signal from a cocotb shell)."""
    lines = ["`verilator_config",
             "// GENERATED by regress/sim.py from the design config's [observe] / [rsa] paths"]
    lines += [f'public_flat_rw -module "*" -var "{leaf}"' for leaf in design.probe_leaves()]
    if engine_build:
        lines += [f'public_flat_rw -module "{engine.ENGINE_MODULE}" -var "{var}"'
                  for var in (engine.SCRIPT_VAR, engine.LOG_VAR, engine.CYCLE_VAR,
                              *engine.DONE_VARS)]
    return "\n".join(lines) + "\n"


def _vpi_flat() -> bool:
    return os.environ.get("MV_VPI", "lean") == "flat"


def _engine_hdl_clock() -> bool:
    """Engine builds on Verilator toggle the wrapper's clock in their own main loop
    (verif/bus/engine_main.cpp, no --timing); MV_ENGINE_CLOCK=hdl keeps the wrapper's HDL
    delay-loop clock and cocotb's main (the earlier build, for comparison)."""
    return os.environ.get("MV_ENGINE_CLOCK", "main") == "hdl"


def half_period_units(period_ns: int = CLOCK_PERIOD_NS, precision: str = TIMESCALE[1]) -> int:
    """Half a clock period in the builds' time precision (the engine main loop's step)."""
    m = re.fullmatch(r"(1|10|100)(s|ms|us|ns|ps|fs)", precision)
    if not m:
        raise ConfigError(f"unsupported time precision {precision!r}")
    units = round(period_ns / (int(m[1]) * UNIT_NS[m[2]]) / 2, 6)
    if units != int(units) or units < 1:
        raise ConfigError(f"half of {period_ns} ns is not a whole number of {precision}")
    return int(units)


def _verilator_runner(control: Path | None, main: Path | None = None):
    """cocotb's Verilator runner (a cocotb_tools runner), with the lean VPI visibility of
    vpi_control (control=None: cocotb's own flags) and, for engine builds, the engine's own
    main loop instead of cocotb's verilator.cpp (main=None: cocotb's)."""
    from cocotb_tools.runner import Verilator

    class LeanVerilator(Verilator):
        def _build_command(self) -> list:  # type: ignore[override]
            cmds = super()._build_command()
            first = cmds[0]
            if control is not None and "--public-flat-rw" in first:
                i = first.index("--public-flat-rw")
                first[i:i + 1] = ["--public-depth", "1", str(control)]
            if main is not None:
                stock = [i for i, arg in enumerate(first) if arg.endswith("verilator.cpp")]
                if len(stock) != 1:
                    raise tools.ToolError("cocotb's Verilator build command has changed: "
                                          "cannot put the engine main loop in its place")
                first[stock[0]] = str(main)
            return cmds

    return LeanVerilator()


def _build_stamp(b: BuildSpec, design: DesignConfig) -> str:
    spec = {k: v for k, v in asdict(b).items()  # old stamps stay valid
            if k not in ("coverage", "overlay") or v}
    h = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    if b.sim == "verilator":
        h.update(b"vpi=flat" if _vpi_flat()
                 else vpi_control(design, b.bus == "engine").encode())
        h.update(b"clock=hdl" if b.bus == "engine" and _engine_hdl_clock() else b"")
    for src in b.sources(design) + ([engine.ENGINE_SV, engine.ENGINE_MAIN,
                                     Path(engine.__file__)] if b.bus == "engine" else []):
        h.update(src.read_bytes())
    h.update(json.dumps(tools.versions(), sort_keys=True).encode())
    return h.hexdigest()


def build(b: BuildSpec, design: DesignConfig, log: Path | None = None) -> tuple[Path, float]:
    """Compile once per BuildSpec; returns (build dir, seconds spent, 0 when up to date)."""
    tools.setup_env(b.sim)
    build_dir = BUILD_ROOT / "sim" / b.key
    build_dir.mkdir(parents=True, exist_ok=True)
    with (build_dir.parent / f"{b.key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build per model, however many runs wait on it
        return _build_locked(b, design, build_dir, log)


def _build_locked(b: BuildSpec, design: DesignConfig, build_dir: Path, log: Path | None
                  ) -> tuple[Path, float]:
    from cocotb_tools.runner import get_runner

    stamp = build_dir / "montverif.stamp"
    want = _build_stamp(b, design)
    if stamp.exists() and stamp.read_text() == want:
        return build_dir, 0.0
    t0 = time.monotonic()
    # A stale or half-finished build dir can break Verilator's make (precompiled headers):
    # rebuild from scratch whenever the stamp does not match.
    for entry in build_dir.iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    build_args: list[str] = []
    if b.sim == "verilator":
        build_args += ["-Wno-fatal"] + (["--trace-fst", "--trace-structs"] if b.waves else [])
        build_args += ["--coverage-line", "--coverage-toggle"] if b.coverage else []
    main_loop = b.sim == "verilator" and b.bus == "engine" and not _engine_hdl_clock()
    if main_loop:  # the engine main loop toggles the wrapper's clock
        build_args += ["-CFLAGS", f"-DMV_HALF_PERIOD={half_period_units()}",
                       "-LDFLAGS", f"-Wl,--export-dynamic-symbol={STORAGE_SYMBOL}"]
    elif b.sim == "verilator" and b.bus == "engine":  # the wrapper's clock is a delay loop
        build_args += ["--timing", "-CFLAGS", "-std=c++20"]
    if b.sim == "verilator":
        control = None if _vpi_flat() else build_dir / "probes.vlt"
        if control is not None:
            control.write_text(vpi_control(design, b.bus == "engine"))
        runner = _verilator_runner(control, engine.ENGINE_MAIN if main_loop else None)
    else:
        runner = get_runner(b.sim)
    log = log or build_dir / "build.log"
    sources = b.sources(design)
    if b.bus == "engine":
        wrapper = build_dir / f"{b.toplevel(design)}.sv"
        depth = engine.script_depth(b.n, design.design, b.bus_w)
        wrapper.write_text(engine.emit_wrapper(design.toplevel, b.parameters(design), depth,
                                               hdl_clock=not main_loop,
                                               observe=design.observe))
        sources += [engine.ENGINE_SV, wrapper]
    try:
        runner.build(sources=sources, hdl_toplevel=b.toplevel(design),
                     parameters=b.parameters(design), build_dir=build_dir, always=True,
                     build_args=build_args, timescale=TIMESCALE, waves=b.waves,
                     log_file=log)
    except (subprocess.CalledProcessError, RuntimeError, SystemExit) as exc:
        first = next((ln.strip() for ln in log.read_text(errors="replace").splitlines()
                      if "error" in ln.lower()), str(exc)) if log.exists() else str(exc)
        raise tools.ToolError(f"build of {b.key} failed: {first[:200]} (log: {log})") from None
    stamp.write_text(want)
    return build_dir, time.monotonic() - t0


# --- test phase (child process) -------------------------------------------------------------
def _child_test(run: RunSpec, log_dir: Path) -> int:
    from cocotb_tools.runner import get_runner

    b = run.build
    design = load_design(b.dut)
    tools.setup_env(b.sim)
    cfg = RunConfig(dut=b.dut, n=b.n, bus_w=b.bus_w, ack_wait=b.ack_wait, txns=run.txns,
                    seed=run.seed, log_dir=log_dir,
                    vectors=Path(run.vectors).resolve() if run.vectors else None,
                    idle_max=run.idle_max, params=b.design_params(design), bus=b.bus,
                    check_thread=os.environ.get("MV_CHECK_THREAD") == "1")
    runner = get_runner(b.sim)
    runner.test(test_module=design_tb(b.dut)[0], hdl_toplevel=b.toplevel(design),
                hdl_toplevel_lang="verilog", build_dir=BUILD_ROOT / "sim" / b.key,
                test_dir=log_dir, seed=run.seed, extra_env=cfg.to_env(),
                testcase=list(run.tests), waves=b.waves, results_xml=str(log_dir / "results.xml"),
                parameters=b.parameters(design), timescale=TIMESCALE,
                plusargs=list(run.plusargs))
    return 0


def _results(xml: Path) -> tuple[int, int, str]:
    """(tests, failed, first failure message) from a cocotb results.xml."""
    root = ET.parse(xml).getroot()
    tests = failed = 0
    first = ""
    for case in root.iter("testcase"):
        tests += 1
        fail = case.find("failure")
        if fail is None:
            fail = case.find("error")
        if fail is not None:
            failed += 1
            if not first:
                msg = fail.get("message") or (fail.text or "").strip().splitlines()[-1:]
                first = f"{case.get('name')}: {msg if isinstance(msg, str) else ''.join(msg)}"
    return tests, failed, first


_FIRST_ERROR = re.compile(r"(MISMATCH .*|watchdog: .*|AssertionError: .*|Error: .*)")


def _first_log_error(log: Path) -> str:
    if not log.exists():
        return ""
    for line in log.read_text(errors="replace").splitlines():
        if m := _FIRST_ERROR.search(line):
            return m.group(1).strip()[:300]
    return ""


def _exit_text(code: int) -> str:
    """Why a simulation left no results: killed by a signal (crash, OOM killer) or exit code."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"simulator killed by signal {name} with no results"
    return f"simulator exited with code {code} and no results"


def check_thread(run: RunSpec) -> bool:
    """Whether the run's scoreboard checks on a worker thread while the engine's main loop runs
    the model without Python's GIL (verif/env/scoreboard.py, verif/bus/engine_main.cpp).

    MV_CHECK_THREAD=1 or 0 decides; unset, a Verilator engine build gets it when this process
    has two cores for each simulation it runs at once (CONCURRENT_JOBS, or pytest-xdist's
    workers). On a single core the thread costs time: the two threads take turns."""
    given = os.environ.get("MV_CHECK_THREAD", "")
    if given in ("0", "1"):
        return given == "1"
    if given:
        raise ConfigError(f"MV_CHECK_THREAD={given!r}: use 1 (on) or 0 (off), or leave it "
                          "unset (on when a core is spare)")
    b = run.build
    if b.bus != "engine" or b.sim != "verilator" or _engine_hdl_clock():
        return False
    jobs = max(CONCURRENT_JOBS, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))
    return available_cores() >= 2 * jobs


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def execute(run: RunSpec, log_dir: Path | None = None, quiet: bool = False) -> Outcome:
    """Validate, build and run in a child process under the wall-clock watchdog."""
    run = with_design_tests(run)
    design = validate(run)
    log_dir = (log_dir or BUILD_ROOT / "runs" / run.key).resolve()
    if log_dir.exists():
        shutil.rmtree(log_dir)
    log_dir.mkdir(parents=True)
    _, build_s = build(run.build, design)
    t0 = time.monotonic()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["MV_CHECK_THREAD"] = "1" if check_thread(run) else "0"
    if run.bias:  # the run's own steering (a list entry's `bias`) wins over the caller's
        env["MV_BIAS"] = run.bias
    if os.environ.get("MV_PROFILE"):
        env["COCOTB_ENABLE_PROFILING"] = "1"
    cmd = [sys.executable, "-m", "montverif.regress.sim", "--child", json.dumps(asdict(run)),
           str(log_dir)]
    sim_log = log_dir / "sim.log"
    timed_out = False
    with sim_log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
                                start_new_session=True)
        try:
            proc.wait(timeout=run.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = time.monotonic() - t0
    outcome = Outcome(run, False, log_dir, wall_s=wall, build_s=build_s)
    xml = log_dir / "results.xml"
    if timed_out:
        outcome.first_error = f"watchdog: simulation killed after {run.timeout_s}s wall time"
    elif not xml.exists():
        outcome.first_error = _first_log_error(sim_log) or _exit_text(proc.returncode)
    else:
        outcome.tests, outcome.failed, first = _results(xml)
        outcome.passed = outcome.failed == 0 and outcome.tests > 0 and proc.returncode == 0
        if not outcome.passed:
            outcome.first_error = _first_log_error(sim_log) or first or "no test ran"
    build_dir = BUILD_ROOT / "sim" / run.build.key
    for wave in (log_dir / "dump.fst", build_dir / f"{run.build.toplevel(design)}.fst"):
        if run.build.waves and wave.exists():
            outcome.waves = log_dir / "waves.fst"
            shutil.move(str(wave), outcome.waves)
            break
    record = {"key": run.key, "passed": outcome.passed, "tests": outcome.tests,
              "failed": outcome.failed, "first_error": outcome.first_error,
              "wall_s": round(wall, 3), "build_s": round(build_s, 3), "repro": run.repro(),
              "git": tools.git_revision(ROOT), "versions": tools.versions(), "run": asdict(run),
              "params": run.build.design_params(design)}
    (log_dir / "outcome.json").write_text(json.dumps(record, indent=1) + "\n")
    return outcome


# --- command line ---------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="montverif sim", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dut", default="mont_lut")
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--busw", type=int, default=32)
    ap.add_argument("--sim", default="verilator")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--txns", type=int, default=50)
    ap.add_argument("--ack-wait", type=int, default=0)
    ap.add_argument("--bus", default="pins", choices=BUS_MODES,
                    help="pins: Python drives the bus; engine: the HDL bus engine (faster)")
    ap.add_argument("--params", default="",
                    help="build parameters beyond N, e.g. W=16,P=4 (montverif models list)")
    ap.add_argument("--idle-max", type=int, default=2)
    ap.add_argument("--waves", action="store_true")
    ap.add_argument("--fault", action="store_true", help="test only: build the corrupted design")
    ap.add_argument("--coverage", action="store_true",
                    help="Verilator line + toggle coverage (coverage.dat in the log folder)")
    ap.add_argument("--vectors", default=None)
    ap.add_argument("--tests", default=None, help="comma-separated cocotb test names")
    ap.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="wall-clock seconds")
    ap.add_argument("--bias", default="",
                    help="coverage steering of the stimulus, as JSON (docs/closure.md)")
    ap.add_argument("--out", default=None, help="log folder (default build/runs/<key>)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.child:
        raw = json.loads(args.child[0])
        raw["build"]["params"] = tuple(tuple(p) for p in raw["build"]["params"])
        raw["build"] = BuildSpec(**raw["build"])
        raw["tests"] = tuple(raw["tests"])
        return _child_test(RunSpec(**raw), Path(args.child[1]))
    tests = tuple(t for t in (args.tests or "").split(",") if t) or (
        VECTOR_TESTS if args.vectors else ALL_TESTS)
    try:
        params = tuple(parse_params(args.params).items())
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    run = RunSpec(BuildSpec(args.dut, args.n, args.busw, args.sim, args.ack_wait, args.fault,
                            args.waves, params, args.bus, args.coverage),
                  seed=args.seed, txns=args.txns, vectors=args.vectors, tests=tests,
                  idle_max=args.idle_max, timeout_s=args.timeout, bias=args.bias)
    try:
        outcome = execute(run, Path(args.out) if args.out else None)
    except (ConfigError, VectorError, tools.ToolError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    verdict = "PASS" if outcome.passed else "FAIL"
    print(f"{verdict} {run.key}: {outcome.tests - outcome.failed}/{outcome.tests} tests passed "
          f"in {outcome.wall_s:.1f}s (build {outcome.build_s:.1f}s)")
    if not outcome.passed:
        print(f"  first error: {outcome.first_error}")
        print(f"  repro: {run.repro()}")
    print(f"  log: {outcome.log_dir}")
    if outcome.waves:
        print(f"  waves: {outcome.waves}")
    return 0 if outcome.passed else 1


if __name__ == "__main__":
    sys.exit(main())

