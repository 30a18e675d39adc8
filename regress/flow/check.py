"""Everything a run needs, checked before any work: one-line errors, nothing built."""

from __future__ import annotations

import importlib
from pathlib import Path

from montverif.host import environment, tools
from montverif.host.errors import ConfigError
from montverif.host.paths import shown
from montverif.models.result import ModelInputError
from montverif.regress.flow.spec import (
    BUS_MODES,
    STREAM_VECTOR_TESTS,
    VECTOR_TESTS,
    RunSpec,
    design_tb,
    has_engine,
    with_design_tests,
)
from montverif.spec import regmap
from montverif.spec.bounds import ACK_WAIT, IDLE_MAX, SEED, TIMEOUT_S, TXNS
from montverif.spec.design import Design
from montverif.spec.designs import check_width, load_design
from montverif.verif.steer import Bias, BiasError
from montverif.verif.vectors import load_vectors


def _check_numbers(run: RunSpec) -> None:
    """The run's numbers within their documented bounds (montverif.spec.bounds): those of a
    list entry or an API caller, which no command-line parser saw."""
    for name, value, bound in (("ACK_WAIT", run.build.ack_wait, ACK_WAIT),
                               ("TXNS", run.txns, TXNS), ("TIMEOUT", run.timeout_s, TIMEOUT_S),
                               ("IDLE_MAX", run.idle_max, IDLE_MAX), ("SEED", run.seed, SEED)):
        if not bound.holds(value):
            raise ConfigError(f"{name} {bound.message(value)}")


def check_waves(run: RunSpec, design: Design) -> None:
    """Waves hold every signal in clear, and a secret operand reaches signals no filter
    could list (the exponent steers the core's control): a traced run of a design with
    secret operands only with --keep-secrets (KEEP_SECRETS=1)."""
    if run.build.waves and design.secret and not run.keep_secrets:
        raise ConfigError(
            f"--waves (WAVES=1): {design.name}'s waves would hold its secret operand(s) "
            f"{', '.join(design.secret)} in clear, in its control signals too; add "
            "--keep-secrets (KEEP_SECRETS=1) to write them anyway, and keep the run folder "
            "private")


def validate(run: RunSpec) -> Design:
    """Check everything a run needs before any work; raises with a one-line message."""
    run = with_design_tests(run)
    b = run.build
    design = load_design(b.dut)
    if b.fault and not design.fault_params:
        raise ConfigError(f"{b.dut} has no fault build: its descriptor "
                          f"({shown(design.descriptor)}) has no [fault] parameters (FAULT=1, "
                          "--fault)")
    if b.sim not in tools.SIMULATORS:
        raise ConfigError(f"unknown simulator '{b.sim}' (known: {', '.join(tools.SIMULATORS)})")
    if b.sim == "icarus" and design.foreign is not None and design.foreign.icarus:
        raise ConfigError(f"{b.dut}: Icarus cannot build it: {design.foreign.icarus} "
                          f"([core] icarus in {shown(design.descriptor)}); use --sim verilator")
    if b.coverage and b.sim != "verilator":
        raise ConfigError("line/toggle coverage (COV=1) needs SIM=verilator")
    rm = regmap.load()
    if b.bus_w not in rm.bus_widths:
        raise ConfigError(f"unsupported bus width BUSW={b.bus_w} "
                          f"(supported: {', '.join(map(str, rm.bus_widths))})")
    check_width(design, b.n, run.allow_wide, dict(b.params))
    red = design.redundant_width(b.n) or b.n
    if regmap.words(red, b.bus_w) > 1 << rm.index_width:
        raise ConfigError(f"N={b.n} needs more than {1 << rm.index_width} words at BUSW={b.bus_w}")
    try:
        b.design_params(design)
    except ModelInputError as exc:
        raise ConfigError(str(exc)) from None
    if b.bus not in BUS_MODES:
        raise ConfigError(f"unknown bus mode '{b.bus}' (known: {', '.join(BUS_MODES)})")
    if b.bus == "engine" and design.stream is not None:
        raise ConfigError(f"{b.dut} runs behind the streaming harness, whose source and sink "
                          "run whole batches already: --bus does not apply (use --bus pins)")
    if b.bus == "engine" and not has_engine(b.dut):
        raise ConfigError(f"{b.dut}'s testbench ({design_tb(b.dut)[0]}) has no fast bus mode: "
                          "use --bus pins")
    _check_numbers(run)
    check_waves(run, design)
    if run.vectors is not None and Path(run.vectors).is_dir():
        raise ConfigError(f"VECTORS={run.vectors} is a directory, not a vector file")
    _, tb_tests, vector_loader = design_tb(b.dut)
    try:
        if run.vectors is not None and vector_loader:
            module, _, func = vector_loader.partition(":")
            getattr(importlib.import_module(module), func)(Path(run.vectors), b.n,
                                                           secret=design.secret)
        elif run.vectors is not None:
            load_vectors(Path(run.vectors), b.n, design.operands, design.below_modulus,
                         design.carry_save_operands, design.range_groups, design.has_field,
                         secret=design.secret)
    except OSError as exc:  # a file the loader cannot read (no permission, ...)
        raise ConfigError(f"VECTORS={run.vectors}: cannot read it ({exc.strerror})") from None
    known = tb_tests + VECTOR_TESTS + (STREAM_VECTOR_TESTS if design.stream else ())
    unknown = [t for t in run.tests if t not in known]
    if unknown:
        raise ConfigError(f"unknown test(s) {', '.join(unknown)} "
                          f"(known: {', '.join(known)})")
    if twice := sorted({t for t in run.tests if run.tests.count(t) > 1}):
        raise ConfigError(f"test(s) {', '.join(twice)} given twice in TESTS "
                          f"({','.join(run.tests)}): give each once")
    if bias := (run.bias or environment.BIAS.get()).strip():  # steering (verif/steer.py)
        try:
            Bias.parse(bias)
        except BiasError as exc:
            raise ConfigError(str(exc)) from None
    tools.setup_env(b.sim)
    return design
