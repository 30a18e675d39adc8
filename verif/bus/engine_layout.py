"""The fast bus mode's layout: what the build and the driver share, without cocotb. The
simulation-only bus host (verif/hdl/mv_bus_engine.sv) sits in a generated wrapper toplevel
(`emit_wrapper`) next to the design's own toplevel (instance `u_dut`); its script and log
entries (`entry_stride`), depth (`script_depth`, `ops_per_script`), done captures
(`CaptureLayout`) and the record of a core's internal products (`ProductTap`) are laid out
here. The build (regress/flow/build.py) and the lint write the wrapper from it; the driver
(verif/bus/engine.py) runs scripts in it. The wrapper's text is the Jinja2 template
verif/bus/templates/engine_wrapper.sv.j2 (montverif.host.templates); what goes in it (the
parameters, the clock, the done capture, the product log) is decided here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from montverif.host import templates
from montverif.spec import formula, regmap
from montverif.spec.design import RSA_MODULUS, Design
from montverif.spec.sections import Observe
from montverif.verif.config import CLOCK_PERIOD_NS

ENGINE_SV = Path(__file__).resolve().parent.parent / "hdl" / "mv_bus_engine.sv"
# Verilator main loop of engine builds: the wrapper's clock toggled in C++ (no --timing)
ENGINE_MAIN = Path(__file__).resolve().parent / "engine_main.cpp"
IDLE_W = 4
CYC_W = 32  # the log's time of an entry: falling edges since the script started
LEN_W = 16
ACK_TIMEOUT_CYCLES = 256
# operations one script may hold (the sequences send this many in one batch: ops_per_script):
# the engine's depth is this many operations' entries, and it keeps this many done captures
# (DoneSlots) between two reads. One wake of Python, one sequencer hand-shake and one script's
# fixed costs per script: 16 operations where they fit in SCRIPT_ENTRIES entries (at N = 256
# on a 32-bit bus, 4 -> 16 took inter_r2's checked operations a second from 0.46 to 0.52 of
# the raw harness), fewer where one operation has more words, never fewer than 4.
OPS_PER_SCRIPT = 16
MIN_OPS_PER_SCRIPT = 4
SCRIPT_ENTRIES = 4096
RESULT_REGIONS = ("P", "S", "C", "CYCLES")  # what an operation reads back (and STATUS)
# the engine's script and log: variables of the engine instance, written and read through VPI
# (not ports: Verilator copies a toplevel's ports whole at every evaluation)
ENGINE_INSTANCE = "u_engine"
DUT_INSTANCE = "u_dut"  # the wrapper's instance of the design's top
ENGINE_MODULE = "mv_bus_engine"
SCRIPT_VAR, LOG_VAR = "tb_script", "tb_log_q"
CYCLE_VAR = "cyc_q"  # falling edges since the script started: visible to tests and debugging
# the done observation the engine captures (mv_bus_engine)
DONE_VARS = ("tb_done_rises_q", "tb_done_time_q", "tb_done_obs_q")
# the record of a core's internal multiplier products (the RSA core: verif/env/rsa_capture.py)
PRODUCT_SV = ENGINE_SV.parent / "mv_product_log.sv"
PRODUCT_MODULE, PRODUCT_INSTANCE = "mv_product_log", "u_prod"
PRODUCT_VARS = ("tb_prod_q", "tb_prod_count_q")
PRODUCT_HEAD_BYTES = 24  # an entry's two times and its multiplier index (64 bits each)
_TEMPLATES = Path(__file__).resolve().parent / "templates"


class EngineError(RuntimeError):
    """The fast mode cannot check what the sequence asked for."""


def meta_bits(addr_w: int) -> int:
    """Bits of an entry's kind, address and idle cycles (its high slot)."""
    return 2 + addr_w + IDLE_W


def entry_stride(addr_w: int, bus_w: int) -> int:
    """Bits of one script or log entry (the engine's EntStride, passed by the wrapper): two
    slots of max(bus_w, CYC_W) bits, the low one for the write data (the log: the cycle), the
    high one for the kind, address and idle cycles (the log: the read data). Both are machine
    words, so Python packs and unpacks a whole script as two interleaved arrays instead of
    shifting fields together entry by entry."""
    slot = max(bus_w, CYC_W)
    if meta_bits(addr_w) > slot or slot not in regmap.UINT_FORMAT:
        raise EngineError(f"no engine entry layout for a {bus_w}-bit bus and {addr_w}-bit "
                          "addresses")
    return 2 * slot





def wrapper_name(toplevel: str) -> str:
    return f"mv_tb_{toplevel}"


def engine_depth(n: int, design: Design, bus_w: int) -> int:
    """Entries of the longest script: one whole operation of this build, i.e. every word of
    every loadable and every result register the design maps (each is written or read at most
    once per operation), plus CTRL (START), the wait for done and STATUS."""
    rm = regmap.load()
    regions = [r.name for r in rm.regions.values() if design.maps(r) and (
        (r.size == "operand" and r.access != "ro") or r.name in RESULT_REGIONS)]
    return 3 + sum(regmap.words(rm.region_bits(r, n, design.redundant_width(n), bus_w) or 0, bus_w)
                   for r in regions)


def ops_per_script(n: int, design: Design, bus_w: int) -> int:
    """Whole operations one script of this build holds: OPS_PER_SCRIPT, fewer where they
    would pass SCRIPT_ENTRIES entries, never fewer than MIN_OPS_PER_SCRIPT."""
    fit = SCRIPT_ENTRIES // engine_depth(n, design, bus_w)
    return max(MIN_OPS_PER_SCRIPT, min(OPS_PER_SCRIPT, fit))


def script_depth(n: int, design: Design, bus_w: int) -> int:
    """The engine's depth: ops_per_script whole operations (engine_depth each)."""
    return ops_per_script(n, design, bus_w) * engine_depth(n, design, bus_w)


@dataclass(frozen=True)
class ProductTap:
    """What an engine wrapper records of a core with internal multipliers (a design's [rsa]
    table) beside the bus: each multiplier's products (verif/hdl/mv_product_log.sv: operands,
    modulus, P, S, C and the times of its busy edges) and, at each rise of done, the
    registers that must be wiped (the engine's done capture, one Slot each, in `wipe`'s
    order from the least significant). Paths are inside the design's toplevel."""

    core: str  # the core's instance (u_core)
    mults: tuple[str, ...]  # each multiplier's signal prefix (<prefix>_busy, _x, _y, ...)
    wipe: tuple[str, ...]
    n: int
    width: int = 0  # bits of the multipliers' operands and products ([rsa] width; 0: n)

    @property
    def slot(self) -> int:
        """Bits of one captured value: the multipliers' width + 2 (S and C: rsa_mont_mult.sv)
        rounded up to 32-bit words."""
        return 32 * -(-(max(self.width, self.n) + 2) // 32)

    @property
    def depth(self) -> int:
        """Products kept between two reads: one exponentiation's (2N + 3 at most: N + 2
        steps on two multipliers) and a margin; more between two scripts' ends is refused."""
        return 2 * self.n + 8

    @property
    def entry_bytes(self) -> int:
        return PRODUCT_HEAD_BYTES + 6 * self.slot // 8


def product_tap(design: Design, n: int,
                params: Mapping[str, int] | None = None) -> ProductTap | None:
    """The design's ProductTap at width n and these build parameters (its [rsa] table at
    them: Design.rsa_at); None: no internal multipliers to record."""
    if design.rsa is None:
        return None
    rsa = design.rsa_at(params or {})
    width = formula.integer(rsa.width, n, design.resolve(params)) if rsa.width else n
    return ProductTap(rsa.core, rsa.mults, rsa.wipe, n, width)


@dataclass(frozen=True)
class _ProductLog:
    """The wrapper's mv_product_log instance: the multipliers' signal prefixes as paths in
    the wrapper (the last multiplier first: the most significant Slot), Slot, Depth and the
    path of the modulus."""

    module: str
    instance: str
    mults: list[str]
    slot: int
    depth: int
    modulus: str


def _product_instance(tap: ProductTap) -> tuple[_ProductLog, list[str], int]:
    """The wrapper's mv_product_log instance for `tap`, its done capture (the wipe
    registers' paths, the last first, each zero-extended to Slot bits) and that capture's
    width."""
    core = f"{DUT_INSTANCE}.{tap.core}"
    log = _ProductLog(PRODUCT_MODULE, PRODUCT_INSTANCE,
                      [f"{core}.{m}" for m in reversed(tap.mults)], tap.slot, tap.depth,
                      f"{core}.{RSA_MODULUS}")
    wipe = [f"{DUT_INSTANCE}.{p}" for p in reversed(tap.wipe)]
    return log, wipe, len(tap.wipe) * tap.slot or 1


def observed(observe: Observe) -> list[tuple[str, str, int]]:
    """The observation signals the engine captures when done rises, from a design config's
    [observe] table: (key, path inside the design's toplevel, bits), the least significant
    first (the hit counters, then the final-subtraction flag)."""
    out: list[tuple[str, str, int]] = []
    if observe.lut_hits and (bits := observe.lut_bins * observe.hit_width):
        out.append(("lut_hits", observe.lut_hits, bits))
    if observe.sub_taken:
        out.append(("sub_taken", observe.sub_taken, 1))
    return out


@dataclass(frozen=True)
class CaptureLayout:
    """Where each observed signal sits in the engine's capture of a rise of done (`observed`)
    and how the table-address hit counters split: the capture decoded as the done observer
    reads the signals in pin mode."""

    hits_at: int | None  # bit offset of the hit counters (None: the design has none)
    sub_at: int | None  # bit offset of the final-subtraction flag
    bins: int
    width: int

    @staticmethod
    def of(observe: Observe) -> CaptureLayout:
        where: dict[str, int] = {}
        offset = 0
        for key, _, bits in observed(observe):
            where[key] = offset
            offset += bits
        return CaptureLayout(where.get("lut_hits"), where.get("sub_taken"),
                             observe.lut_bins, observe.hit_width)

    def lut(self, hits: int) -> list[int]:
        """The hit counters, one per table address, of their packed value."""
        return regmap.split(hits, self.bins * self.width, self.width) if self.bins else []

    def decode(self, packed: int) -> tuple[list[int], bool | None]:
        """(the hit counters, the final-subtraction flag or None) of one capture."""
        hits = packed >> self.hits_at if self.hits_at is not None else 0
        taken = bool(packed >> self.sub_at & 1) if self.sub_at is not None else None
        return self.lut(hits), taken


def emit_wrapper(toplevel: str, params: dict[str, int], depth: int,
                 slots: int = MIN_OPS_PER_SCRIPT,
                 period_ns: int = CLOCK_PERIOD_NS, hdl_clock: bool = True,
                 observe: Observe | None = None, tap: ProductTap | None = None
                 ) -> str:
    """A toplevel holding the design's toplevel and the bus engine, with the same
    parameters (the runner sets them on the wrapper, which passes them down). The clock is
    not cocotb's: a clock that cocotb drives costs a VPI write and a callback round-trip per
    edge, which made up most of a fast run's wall time (measured at N = 1024: 0.34 s of clock
    alone for 57k cycles against 0.08 s with the clock in the HDL). It starts high at time 0,
    as cocotb's Clock does, and is either made by the wrapper (hdl_clock: a delay loop, for
    Icarus) or an input port that the engine's Verilator main loop toggles (ENGINE_MAIN),
    which spares Verilator's --timing scheduler an evaluation per edge. `observe` (the design
    config's [observe] table) names the signals the engine captures when done rises; `tap`
    adds the record of a core's internal multipliers (mv_product_log), and its wipe
    registers are then what the engine captures when done rises. The engine holds `depth`
    entries and `slots` done captures (script_depth, ops_per_script). The text:
    templates/engine_wrapper.sv.j2."""
    signals = observed(observe if observe is not None else Observe())
    # the done capture: the observed signals (the last first), or a tap's wipe registers
    capture = [f"{DUT_INSTANCE}.{path}" for _, path, _ in reversed(signals)]
    capture_slot, obs_w, product = None, sum(bits for _, _, bits in signals) or 1, None
    if tap is not None:
        product, capture, obs_w = _product_instance(tap)
        capture_slot = tap.slot
    return templates.render(_TEMPLATES, "engine_wrapper.sv.j2",
        toplevel=toplevel, name=wrapper_name(toplevel), params=list(params.items()),
        depth=depth, hdl_clock=hdl_clock, half_period=period_ns / 2, len_w=LEN_W,
        idle_w=IDLE_W, stride=entry_stride(regmap.load().addr_width, params["BusW"]),
        obs_w=obs_w, slots=slots, capture=capture, capture_slot=capture_slot,
        dut_instance=DUT_INSTANCE, engine_module=ENGINE_MODULE,
        engine_instance=ENGINE_INSTANCE, product=product)
