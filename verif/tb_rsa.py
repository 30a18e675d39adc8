"""cocotb tests (pyuvm) for the RSA core behind mv_bus_loader (rsa_core_top).

Selected by hdl/rsa/rsa_core.toml (test_module); the runner passes the DUT, width,
parameters and seed through MV_* environment variables (in a process that runs several runs,
verif/batch.py gives each test its run's configuration: config.current_run). Loaded by
cocotb, not by pytest.
"""

from __future__ import annotations

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
from montverif.verif.env.loggers import release_stale_loggers
from montverif.verif.env.rsa_env import RsaEnv
from montverif.verif.env.rsa_seq import (
    ConstantTimeSeq,
    EdgeExpSeq,
    KeySeq,
    RandomExpSeq,
    RsaErrorSeq,
    RsaSeq,
    RsaVectorSeq,
    WipeSeq,
)
from montverif.verif.env.rsa_vectors import load_rsa_vectors
from montverif.verif.mutant import select_mutant

RESET_CYCLES = 3


class RsaBaseTest(uvm_test):
    def build_phase(self) -> None:
        release_stale_loggers(self)
        self.run_cfg = current_run()
        self.run_cfg.log_dir.mkdir(parents=True, exist_ok=True)
        self.design = load_design(self.run_cfg.dut)
        dut: Handle = cocotb.top
        self.dut = dut
        bus_if = BusIf(dut, dut.clk_i, dut.done_o, CLOCK_PERIOD_NS, self.run_cfg.idle_max,
                       engine=self.run_cfg.bus == "engine", bus_w=self.run_cfg.bus_w)
        ConfigDB().set(None, "*", "BUS_IF", bus_if)
        ConfigDB().set(None, "*", "RUN", self.run_cfg)
        ConfigDB().set(None, "*", "DESIGN", self.design)
        self.rng = random.Random(f"{self.run_cfg.seed}:{type(self).__name__}")
        self.env = RsaEnv("env", self)

    def context(self) -> SeqContext:
        """What the test's sequences share (built when the test makes them; the RSA
        sequences need no multiplier model, steering or field choice)."""
        return SeqContext.for_run(self.run_cfg, self.design, self.rng, stimulus=False)

    def sequences(self) -> list[RsaSeq]:
        raise NotImplementedError

    async def run_phase(self) -> None:
        self.raise_objection()
        dut = self.dut
        if self.run_cfg.clock == "tb":  # else the build's main loop toggles clk_i
            Clock(dut.clk_i, CLOCK_PERIOD_NS, unit="ns", impl="gpi").start()
        select_mutant(dut, self.run_cfg)  # a meta-mutant model's run: before the reset
        dut.rst_ni.value = 0
        if self.run_cfg.bus != "engine":  # else the bus engine drives the bus
            dut.bus_req_i.value = 0
        await ClockCycles(dut.clk_i, RESET_CYCLES)
        dut.rst_ni.value = 1
        seqr = ConfigDB().get(None, "", "BUS_SEQR")
        for seq in self.sequences():
            await seq.start(seqr)
        self.drop_objection()


@pyuvm.test()
class RandomTest(RsaBaseTest):
    """TXNS exponentiations: random moduli, messages and exponents of random length."""

    def sequences(self) -> list[RsaSeq]:
        return [RandomExpSeq("random", self.context(), self.run_cfg.txns)]


@pyuvm.test()
class CornerTest(RsaBaseTest):
    """Edge exponents (0, 1, 2, all ones, single top bit), messages and moduli."""

    def sequences(self) -> list[RsaSeq]:
        return [EdgeExpSeq("edges", self.context())]


@pyuvm.test()
class KeyTest(RsaBaseTest):
    """Real gmpy2 RSA keys, e = 3 and 65537: encrypt/decrypt and sign/verify round trips."""

    def sequences(self) -> list[RsaSeq]:
        return [KeySeq("keys", self.context())]


@pyuvm.test()
class ConstantTimeTest(RsaBaseTest):
    """Identical cycle counts for exponents of different values and Hamming weights."""

    def sequences(self) -> list[RsaSeq]:
        return [ConstantTimeSeq("const_time", self.context())]


@pyuvm.test()
class WipeTest(RsaBaseTest):
    """E write-only; E, A, S and the intermediates wiped at the end and by CLEAR."""

    def sequences(self) -> list[RsaSeq]:
        return [WipeSeq("wipe", self.context())]


@pyuvm.test()
class ErrorTest(RsaBaseTest):
    """Even/zero modulus, message >= modulus, busy writes, unmapped reads."""

    def sequences(self) -> list[RsaSeq]:
        return [RsaErrorSeq("errors", self.context())]


@pyuvm.test()
class VectorTest(RsaBaseTest):
    """Replays MV_VECTORS (msg, exp, mod)."""

    def sequences(self) -> list[RsaSeq]:
        assert self.run_cfg.vectors is not None, "VectorTest needs MV_VECTORS"
        vectors = load_rsa_vectors(self.run_cfg.vectors, self.run_cfg.n)
        return [RsaVectorSeq("vectors", self.context(), vectors)]
