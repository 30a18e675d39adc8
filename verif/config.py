"""The configuration of one simulation run, as the testbench reads it.

A run is configured through environment variables set by the flow (montverif.regress.flow:
simulate starts the simulator, child runs the cocotb tests), so a cocotb test module needs
no arguments of its own. Every variable the project reads is listed in docs/environment.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from montverif.spec.params import format_params, parse_params

CLOCK_PERIOD_NS = 10


@dataclass(frozen=True)
class RunConfig:
    """What one simulation run does: read from MV_* environment variables."""

    dut: str
    n: int
    bus_w: int
    ack_wait: int
    txns: int
    seed: int
    log_dir: Path
    vectors: Path | None
    idle_max: int  # random idle cycles (0..idle_max) the driver inserts before a transfer
    # build parameters beyond N, resolved (defaults included): e.g. {"W": 16, "P": 4}
    params: dict[str, int] = field(default_factory=dict)
    bus: str = "pins"  # "pins": Python drives the bus pins; "engine": the HDL bus engine
    # the scoreboard checks on a worker thread while the engine's main loop runs without the
    # GIL (Verilator engine builds with a spare core: regress/flow/simulate.py decides)
    check_thread: bool = False

    @staticmethod
    def from_env() -> RunConfig:
        env = os.environ
        vectors = env.get("MV_VECTORS") or None
        return RunConfig(
            dut=env.get("MV_DUT", "mont_lut"),
            n=int(env.get("MV_N", "32")),
            bus_w=int(env.get("MV_BUSW", "32")),
            ack_wait=int(env.get("MV_ACK_WAIT", "0")),
            txns=int(env.get("MV_TXNS", "50")),
            seed=int(env.get("COCOTB_RANDOM_SEED", env.get("MV_SEED", "1"))),
            log_dir=Path(env.get("MV_LOG_DIR", ".")),
            vectors=Path(vectors) if vectors else None,
            idle_max=int(env.get("MV_IDLE_MAX", "2")),
            params=_int_params(env.get("MV_PARAMS", "")),
            bus=env.get("MV_BUS", "pins"),
            check_thread=env.get("MV_CHECK_THREAD", "0") == "1",
        )

    def to_env(self) -> dict[str, str]:
        env = {
            "MV_DUT": self.dut,
            "MV_N": str(self.n),
            "MV_BUSW": str(self.bus_w),
            "MV_ACK_WAIT": str(self.ack_wait),
            "MV_TXNS": str(self.txns),
            "MV_SEED": str(self.seed),
            "MV_LOG_DIR": str(self.log_dir),
            "MV_IDLE_MAX": str(self.idle_max),
            "MV_CHECK_THREAD": "1" if self.check_thread else "0",
        }
        if self.vectors:
            env["MV_VECTORS"] = str(self.vectors)
        if self.params:
            env["MV_PARAMS"] = format_params(self.params)
        if self.bus != "pins":
            env["MV_BUS"] = self.bus
        return env


def _int_params(text: str) -> dict[str, int]:
    """MV_PARAMS: the build's resolved parameters, every value an integer."""
    return {k: int(v) for k, v in parse_params(text).items()}
