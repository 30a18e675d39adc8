"""A run's fixed cost: a short run (FIXED_TXNS random operations of mont_r2 at N = 32 on
Verilator, every test, its model built), whose time is almost all imports, simulator start,
pyuvm set-up, reset, reports and outcome. Measured three ways side by side, one after another
in each repeat (the machine's speed drifts over minutes):

- `command`: `montverif sim` as a user types it (the Python start and the CLI included);
- `single`: one run in a simulator process of its own (flow.simulate, as a regression runs a
  run that shares no process);
- `batched`: FIXED_BATCH runs of the model in one simulator process (flow.batch, as a
  regression runs a model's seeds), the batch's wall time per run.

Beside each way's time per run, its part outside the tests (the time per run less cocotb's
own time of the run's tests, results.xml): the Python and simulator starts, the imports and
the outcome, which batching shares among the runs of a process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict
from pathlib import Path

from montverif.host import environment, tools
from montverif.host.paths import ROOT, work
from montverif.regress.bench.common import Record, Stat, bench_build, scratch
from montverif.regress.flow.batch import execute_batch
from montverif.regress.flow.build import build
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.spec.designs import load_design

FIXED_DESIGN, FIXED_N, FIXED_TXNS = "mont_r2", 32, 10
FIXED_BATCH = 8  # runs of the batched measurement (the scheduler's default per process)


def fixed_cost(repeat: int) -> Record:
    """Seconds per run of each way (median, min, max over `repeat`)."""
    spec = BuildSpec(FIXED_DESIGN, FIXED_N)
    build(spec, load_design(FIXED_DESIGN))
    load = os.getloadavg()[0]
    folder = scratch(bench_build() / "fixed", fresh=True)
    command: list[float] = []
    single: list[float] = []
    batched: list[float] = []
    outside: dict[str, list[float]] = {"single": [], "batched": []}
    for r in range(repeat):
        seed = 1 + r * (FIXED_BATCH + 2)
        t0 = time.monotonic()
        res = subprocess.run([sys.executable, "-m", "montverif.regress.cli", "sim", "--dut",
                              FIXED_DESIGN, "--n", str(FIXED_N), "--txns", str(FIXED_TXNS),
                              "--seed", str(seed), "--out", str(folder / f"cmd-{r}")],
                             env=os.environ | {environment.WORKDIR.name: str(work())},
                             capture_output=True, text=True)
        command.append(time.monotonic() - t0)
        if res.returncode != 0:
            raise ValueError(f"montverif sim failed: {res.stdout.strip()[-200:]}")
        t0 = time.monotonic()
        alone = execute(RunSpec(spec, seed=seed + 1, txns=FIXED_TXNS), folder / f"single-{r}")
        single.append(time.monotonic() - t0)
        outside["single"].append(single[-1] - tests_seconds(folder / f"single-{r}"))
        runs = [(RunSpec(spec, seed=seed + 2 + k, txns=FIXED_TXNS), folder / f"batch-{r}-{k}")
                for k in range(FIXED_BATCH)]
        t0 = time.monotonic()
        outcomes = execute_batch(runs)
        batched.append((time.monotonic() - t0) / FIXED_BATCH)
        outside["batched"].append(batched[-1] - sum(tests_seconds(d) for _, d in runs)
                                  / FIXED_BATCH)
        if not alone.passed or not all(o.passed for o in outcomes):
            bad = next(o for o in [alone, *outcomes] if not o.passed)
            raise ValueError(f"{bad.run.key} failed: {bad.first_error}")
    return {"design": FIXED_DESIGN, "n": FIXED_N, "txns": FIXED_TXNS, "batch": FIXED_BATCH,
            "command_s": asdict(Stat.of(command)), "single_s": asdict(Stat.of(single)),
            "batched_s": asdict(Stat.of(batched)),
            "batched_over_single": asdict(Stat.of([b / s for b, s in zip(batched, single,
                                                                           strict=True)])),
            "single_outside_tests_s": asdict(Stat.of(outside["single"])),
            "batched_outside_tests_s": asdict(Stat.of(outside["batched"])),
            "load": [round(load, 1), round(os.getloadavg()[0], 1)],
            "git": tools.git_revision(ROOT)}


def tests_seconds(log_dir: Path) -> float:
    """cocotb's own time of a run's tests (results.xml)."""
    root = ET.parse(log_dir / "results.xml").getroot()
    return sum(float(case.get("time", "0")) for case in root.iter("testcase"))


def fixed_section(fixed: Record) -> list[str]:
    """results.md's table of the fixed cost."""
    def cell(key: str) -> str:
        s = fixed[key]
        return f"{s['median']:.2f} ({s['low']:.2f}–{s['high']:.2f})"

    load = fixed.get("load")
    busy = (f" The machine's load average was {load[0]} at the start and {load[1]} at the "
            "end (other scratch shares its cores: compare the columns, not the figures across "
            "revisions)." if load else "")
    ratio = fixed.get("batched_over_single")
    return ["", "## A run's fixed cost", "",
            f"Seconds per run of a {fixed['txns']}-operation run of {fixed['design']} at "
            f"N = {fixed['n']} on Verilator (every test, model built), median (min–max) of "
            f"{len(fixed['single_s']['samples'])}, the three ways side by side in each repeat "
            f"(git {str(fixed['git'])[:7]}): `montverif sim` (the command), a run in a "
            f"simulator process of its own, and {fixed['batch']} runs in one process "
            "(regress/flow/batch.py, the wall time of the batch per run); *outside the "
            "tests*: the time per run less cocotb's time of the run's tests (the starts, "
            "imports and outcome)." + busy, "",
            "| montverif sim | one run per process | batched, per run | batched / one per "
            "process | outside the tests: one per process | outside the tests: batched |",
            "|---|---|---|---|---|---|",
            f"| {cell('command_s')} | {cell('single_s')} | {cell('batched_s')} | "
            f"{cell('batched_over_single') if ratio else '–'} | "
            f"{cell('single_outside_tests_s') if 'single_outside_tests_s' in fixed else '–'} | "
            f"{cell('batched_outside_tests_s') if 'batched_outside_tests_s' in fixed else '–'} |"]
