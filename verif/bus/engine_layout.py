"""The fast bus mode's layout: what the build and the driver share, without cocotb. The
simulation-only bus host (verif/hdl/mv_bus_engine.sv) sits in a generated wrapper toplevel
(`emit_wrapper`) next to the design's own toplevel (instance `u_dut`); its script and log
entries (`entry_stride`), depth (`script_depth`, `ops_per_script`), done captures
(`CaptureLayout`) and the record of a core's internal products (`ProductTap`) are laid out
here. The build (regress/flow/build.py) and the lint write the wrapper from it; the driver
(verif/bus/engine.py) runs scripts in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from montverif.spec import formula, regmap
from montverif.spec.design import RSA_MODULUS, Design
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
    if not design.rsa:
        return None
    rsa = design.rsa_at(params or {})
    width = formula.integer(str(rsa["width"]), n, design.resolve(params)) if "width" in rsa \
        else n
    return ProductTap(str(rsa["core"]), tuple(str(m) for m in rsa["mults"]),
                      tuple(str(p) for p in rsa.get("wipe", ())), n, width)


def _product_instance(tap: ProductTap) -> tuple[str, str, int]:
    """The wrapper's mv_product_log instance for `tap`, its done-capture expression (the
    wipe registers, zero-extended) and that expression's width."""
    slot, core = tap.slot, f"{DUT_INSTANCE}.{tap.core}"

    def each(signal: str) -> str:  # multiplier k's signal at [k*Slot +: Slot]
        return "{" + ", ".join(f"{slot}'({core}.{m}_{signal})"
                                for m in reversed(tap.mults)) + "}"

    busy = "{" + ", ".join(f"{core}.{m}_busy" for m in reversed(tap.mults)) + "}"
    params = f".Mults({len(tap.mults)}), .Slot({slot}), .Depth({tap.depth})"
    inst = f"""  {PRODUCT_MODULE} #({params}) {PRODUCT_INSTANCE} (
    .clk_i, .rst_ni, .busy_i({busy}),
    .x_i({each("x")}), .y_i({each("y")}), .p_i({each("p")}), .s_i({each("s")}),
    .c_i({each("c")}), .m_i({slot}'({core}.{RSA_MODULUS}))
  );
"""
    wipe = ("{" + ", ".join(f"{slot}'({DUT_INSTANCE}.{p})" for p in reversed(tap.wipe)) + "}"
            if tap.wipe else "1'b0")
    return inst, wipe, len(tap.wipe) * slot or 1


def observed(observe: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """The observation signals the engine captures when done rises, from a design config's
    [observe] table: (key, path inside the design's toplevel, bits), the least significant
    first (the hit counters, then the final-subtraction flag)."""
    out: list[tuple[str, str, int]] = []
    if "lut_hits" in observe:
        bits = int(observe.get("lut_bins", 0)) * int(observe.get("hit_width", 32))
        if bits:
            out.append(("lut_hits", str(observe["lut_hits"]), bits))
    if "sub_taken" in observe:
        out.append(("sub_taken", str(observe["sub_taken"]), 1))
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
    def of(observe: Mapping[str, Any]) -> CaptureLayout:
        where: dict[str, int] = {}
        offset = 0
        for key, _, bits in observed(observe):
            where[key] = offset
            offset += bits
        return CaptureLayout(where.get("lut_hits"), where.get("sub_taken"),
                             int(observe.get("lut_bins", 0)), int(observe.get("hit_width", 32)))

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
                 observe: Mapping[str, Any] | None = None, tap: ProductTap | None = None
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
    entries and `slots` done captures (script_depth, ops_per_script)."""
    name = wrapper_name(toplevel)
    signals = observed(observe or {})
    obs_w = sum(bits for _, _, bits in signals) or 1
    obs = ("{" + ", ".join(f"{DUT_INSTANCE}.{path}" for _, path, _ in reversed(signals)) + "}"
           if signals else "1'b0")
    products = ""
    if tap is not None:
        products, obs, obs_w = _product_instance(tap)
    clock_port = "" if hdl_clock else "\n  input  logic                      clk_i,"
    clock = (f"logic             clk_i = 1'b1;\n"
             f"  always #({period_ns / 2}) clk_i = ~clk_i;  // ns: the build's timescale is 1ns/1ps"
             if hdl_clock else "// clk_i: toggled by the Verilator main loop (ENGINE_MAIN)")
    decl = ",\n".join(f"  parameter int {k} = {v}" for k, v in params.items())
    decl += f",\n  parameter int EngDepth = {depth}"
    passdown = ",\n".join(f"    .{k}({k})" for k in params)
    stride = entry_stride(regmap.load().addr_width, params["BusW"])
    return f"""// GENERATED by verif/bus/engine_layout.py: {toplevel} and the simulation-only bus
// engine.
module {name}
  import mv_regmap_pkg::*;
#(
{decl}
) ({clock_port}
  input  logic                      rst_ni,
  input  logic                      tb_go_i,
  input  logic [{LEN_W - 1}:0]               tb_len_i,
  input  logic [31:0]               tb_ack_timeout_i,
  input  logic [31:0]               tb_done_timeout_i,
  output logic                      tb_fin_o,
  output logic                      tb_timeout_o,
  output logic [{LEN_W - 1}:0]               tb_pos_o,
  output logic [63:0]               tb_start_o,
  output logic                      busy_o,
  output logic                      done_o
);
  {clock}

  logic             req, we, ack;
  logic [AddrW-1:0] addr;
  logic [BusW-1:0]  wdata, rdata;

  {toplevel} #(
{passdown}
  ) {DUT_INSTANCE} (
    .clk_i, .rst_ni, .bus_req_i(req), .bus_we_i(we), .bus_addr_i(addr),
    .bus_wdata_i(wdata), .bus_ack_o(ack), .bus_rdata_o(rdata), .busy_o, .done_o
  );

  {ENGINE_MODULE} #(.BusW(BusW), .AddrW(AddrW), .Depth(EngDepth), .IdleW({IDLE_W}),
                  .EntStride({stride}), .LenW({LEN_W}), .ObsW({obs_w}),
                  .DoneSlots({slots})) {ENGINE_INSTANCE} (
    .clk_i, .rst_ni, .go_i(tb_go_i), .len_i(tb_len_i),
    .ack_timeout_i(tb_ack_timeout_i), .done_timeout_i(tb_done_timeout_i), .fin_o(tb_fin_o),
    .timeout_o(tb_timeout_o), .pos_o(tb_pos_o), .start_o(tb_start_o),
    .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .ack_i(ack), .rdata_i(rdata),
    .done_i(done_o), .obs_i({obs})
  );
{products}endmodule
"""
