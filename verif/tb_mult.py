"""cocotb tests (pyuvm) for any multiplier behind mv_bus_loader.

The runner (regress/flow/simulate.py) selects the DUT, width and seed through MV_* environment
variables and the tests through COCOTB_TEST_FILTER; in a process that runs several runs,
verif/batch.py gives each test its run's configuration (config.current_run). This module is
loaded by cocotb, not collected by pytest.
"""

from __future__ import annotations

import gc
import random

import cocotb
import pyuvm
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from pyuvm import ConfigDB, uvm_test

from montverif.spec.designs import load_design
from montverif.verif.bus.agent import BusIf
from montverif.verif.bus.handles import Handle
from montverif.verif.config import CLOCK_PERIOD_NS, current_run
from montverif.verif.context import SeqContext
from montverif.verif.env.env import MulEnv
from montverif.verif.env.loggers import release_stale_loggers
from montverif.verif.mutant import select_mutant
from montverif.verif.sequences import (
    BackToBackSeq,
    CornerSeq,
    ErrorSeq,
    LoaderSeq,
    RandomSeq,
    StatusWhileBusySeq,
    VectorSeq,
)
from montverif.verif.vectors import directed_file, load_vectors, vector_fields, vector_option

RESET_CYCLES = 3
# the collector's young generation: an operation allocates a few hundred objects, and the
# default (700) made collections that walk everything a long run keeps (the predictor keeps
# every operation) cost about 15 us an operation (mont_r2, N = 1024, fast mode; measured)
GC_YOUNG = 20_000


class BaseTest(uvm_test):
    """Builds the env from the run configuration, resets the DUT and runs `sequences()`."""

    def build_phase(self) -> None:
        release_stale_loggers(self)
        self.run_cfg = current_run()
        self.run_cfg.log_dir.mkdir(parents=True, exist_ok=True)
        self.design = load_design(self.run_cfg.dut)
        dut = cocotb_top()
        self.dut = dut
        bus_if = BusIf(dut, dut.clk_i, dut.done_o, CLOCK_PERIOD_NS, self.run_cfg.idle_max,
                       engine=self.run_cfg.bus == "engine", bus_w=self.run_cfg.bus_w)
        ConfigDB().set(None, "*", "BUS_IF", bus_if)
        ConfigDB().set(None, "*", "RUN", self.run_cfg)
        ConfigDB().set(None, "*", "DESIGN", self.design)
        ConfigDB().set(None, "*", "TEST", type(self).__name__)
        self.rng = random.Random(f"{self.run_cfg.seed}:{type(self).__name__}")
        self.domain_rng = random.Random(f"{self.run_cfg.seed}:{type(self).__name__}:domain")
        self.env = MulEnv("env", self)

    def context(self) -> SeqContext:
        """What the test's sequences share (built when the test makes them)."""
        return SeqContext.for_run(self.run_cfg, self.design, self.rng,
                                  domain_rng=self.domain_rng)

    def sequences(self) -> list[LoaderSeq]:
        raise NotImplementedError

    async def run_phase(self) -> None:
        self.raise_objection()
        gc.freeze()  # what the build made (env, cocotb, pyuvm) stays: out of every collection
        gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
        dut = self.dut
        if self.run_cfg.clock == "tb":  # else the build's main loop or the engine's wrapper
            Clock(dut.clk_i, CLOCK_PERIOD_NS, unit="ns", impl="gpi").start()
        select_mutant(dut, self.run_cfg)  # a meta-mutant model's run: before the reset
        dut.rst_ni.value = 0
        if not self.run_cfg.bus == "engine":
            dut.bus_req_i.value = 0
        await ClockCycles(dut.clk_i, RESET_CYCLES)
        dut.rst_ni.value = 1
        seqr = ConfigDB().get(None, "", "BUS_SEQR")
        for seq in self.sequences():
            await seq.start(seqr)
        self.drop_objection()


def cocotb_top() -> Handle:
    return cocotb.top


@pyuvm.test()
class RandomTest(BaseTest):
    """TXNS random operations."""

    def sequences(self) -> list[LoaderSeq]:
        return [RandomSeq("random", self.context(), self.run_cfg.txns)]


@pyuvm.test()
class CornerTest(BaseTest):
    """Operand and modulus corners, then the design's directed vectors (verif/directed/:
    inputs that told a mutant apart), those limited to other parameters left out."""

    def sequences(self) -> list[LoaderSeq]:
        seqs: list[LoaderSeq] = [CornerSeq("corners", self.context())]
        design, path = self.design, directed_file(self.design.name)
        if path is not None:
            params = self.run_cfg.params
            vectors = load_vectors(path, self.run_cfg.n, design.operands,
                                   design.below_modulus, design.carry_save_operands,
                                   design.range_groups, design.has_field, params)
            fields = vector_fields(path, params, self.run_cfg.n) if design.has_field else None
            if vectors:
                seqs.append(VectorSeq("directed", self.context(), vectors, fields=fields))
        return seqs


@pyuvm.test()
class BackToBackTest(BaseTest):
    """Operations without idle cycles in between, operands reused."""

    def build_phase(self) -> None:
        super().build_phase()
        ConfigDB().get(None, "", "BUS_IF").idle_max = 0

    def sequences(self) -> list[LoaderSeq]:
        return [BackToBackSeq("b2b", self.context(), max(4, self.run_cfg.txns // 4))]


@pyuvm.test()
class StatusWhileBusyTest(BaseTest):
    """STATUS, CYCLES and P read over the bus while the core runs."""

    def sequences(self) -> list[LoaderSeq]:
        return [StatusWhileBusySeq("status", self.context(), 2)]


@pyuvm.test()
class ErrorTest(BaseTest):
    """Even modulus, operands out of range, busy writes, unmapped accesses, CLEAR."""

    def sequences(self) -> list[LoaderSeq]:
        return [ErrorSeq("errors", self.context())]


@pyuvm.test()
class VectorTest(BaseTest):
    """Replays MV_VECTORS (run alone by the runner when VECTORS= is given)."""

    def sequences(self) -> list[LoaderSeq]:
        assert self.run_cfg.vectors is not None, "VectorTest needs MV_VECTORS"
        design = self.design
        vectors = load_vectors(self.run_cfg.vectors, self.run_cfg.n, design.operands,
                               design.below_modulus, design.carry_save_operands,
                               design.range_groups, design.has_field)
        # a vector's field (CTRL.FIELD) goes into its START; without one the seed draws it
        fields = vector_fields(self.run_cfg.vectors) if design.has_field else None
        idle_reads = vector_option(self.run_cfg.vectors, "idle_reads")
        return [VectorSeq("vectors", self.context(), vectors, idle_reads=bool(idle_reads),
                          fields=fields)]
