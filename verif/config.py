"""Design test configurations (verif/configs/<design>.toml) and the per-run configuration.

A run is configured through environment variables set by the runner (regress/flow/simulate.py), so a
cocotb test module needs no arguments of its own.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from montverif.verif import regmap

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = Path(__file__).resolve().parent / "configs"
CLOCK_PERIOD_NS = 10


class ConfigError(ValueError):
    """A configuration or command-line value that cannot be used (one-line message)."""


# The RSA core's multiplier interfaces as its monitors read them (verif/env/rsa_env.py):
# <prefix>_<signal> in the core for each prefix of [rsa] mults, plus the modulus input.
MULT_SIGNALS = ("busy", "x", "y", "p", "s", "c")
RSA_MODULUS = "m_i"


@dataclass(frozen=True)
class DesignConfig:
    name: str
    toplevel: str
    model: str
    sources: tuple[Path, ...]
    min_n: int
    max_n: int
    fault_params: dict[str, int]
    observe: dict[str, object] = field(default_factory=dict)
    test: dict[str, object] = field(default_factory=dict)  # `make test` points, see TOML
    paper: dict[str, object] = field(default_factory=dict)  # the paper's cycle formula
    rsa: dict[str, object] = field(default_factory=dict)  # [rsa]: monitored core signals

    @property
    def design(self) -> regmap.Design:
        return regmap.load().designs[self.name]

    def probe_leaves(self) -> list[str]:
        """Names of the signals inside the DUT the testbench reads through VPI (the last
        element of each hierarchical path in [observe] and [rsa]): the Verilator build makes
        only these and the toplevel's ports visible (regress/flow/simulate.py), not every signal."""
        leaves = {v.rsplit(".", 1)[1] for v in self.observe.values()
                  if isinstance(v, str) and "." in v}
        if self.rsa:
            leaves |= {f"{m}_{s}" for m in self.rsa.get("mults", [])  # type: ignore[union-attr]
                       for s in MULT_SIGNALS}
            leaves |= {RSA_MODULUS}
            leaves |= {str(p).rsplit(".", 1)[-1] for key in ("wipe", "clear")
                       for p in self.rsa.get(key, [])}  # type: ignore[attr-defined]
        return sorted(leaves)


def known_designs() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.toml"))


def load_design(name: str) -> DesignConfig:
    path = CONFIG_DIR / f"{name}.toml"
    if not path.is_file():
        raise ConfigError(f"unknown DUT '{name}' (known: {', '.join(known_designs())})")
    raw = tomllib.loads(path.read_text())
    if raw["design"] not in regmap.load().designs:
        raise ConfigError(f"{path.name}: design '{raw['design']}' is not in regmap.json")
    return DesignConfig(
        name=raw["design"],
        toplevel=raw["toplevel"],
        model=raw["model"],
        sources=tuple(ROOT / s for s in raw["sources"]),
        min_n=raw["min_n"],
        max_n=raw["max_n"],
        fault_params=dict(raw.get("fault_params", {})),
        observe=dict(raw.get("observe", {})),
        test=dict(raw.get("test", {})),
        paper=dict(raw.get("paper", {})),
        rsa=dict(raw.get("rsa", {})),
    )


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
            params=parse_params(env.get("MV_PARAMS", "")),
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


def parse_params(text: str) -> dict[str, int]:
    """"W=16,P=4" -> {"W": 16, "P": 4}; raises ConfigError with a one-line message."""
    out: dict[str, int] = {}
    for item in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = int(value.strip(), 0)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise ConfigError(f"bad parameter {item!r}: expected NAME=VALUE with an integer value")
    return out


def format_params(params: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())
