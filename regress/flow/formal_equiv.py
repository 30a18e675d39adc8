"""A mutant against the original core: an equivalence check with SymbiYosys.

Mutation testing (regress/mutate/) calls a surviving mutant equivalent when simulation finds
no difference; this module tries to prove it (docs/mutation.md). Two copies of a design's
core, the original (gold) and one with the mutated source (gate), are each elaborated at the
same formal point with their parameters set by a top that passes every port through
(flow.synth.wrapper), flattened, and given the registers the testbench observes (the
descriptor's [observe] paths, read at every DONE) as outputs. yosys `miter -equiv` joins
them: its `trigger` is high in a cycle in which any output of the two copies differs.

A generated harness drives both copies with the same stimulus, any the bus loader can give:

- reset in cycle 0; then START and CLEAR free in every cycle, never both at once and never
  while the original is busy;
- the operands (and the host-precomputed registers) free in every cycle within the loader's
  range rule and the relations that define them (formal_core.operand_lines), held while the
  original is busy;

and asserts that `trigger` never rises after reset. A bounded model check to `depth` covers
every such stimulus of that many cycles: by default two whole operations and the cycles
around them, CLEARs and idle cycles wherever they fit.

- equivalent: no difference within the depth, for every input and every such sequence;
- different: a counterexample; the operands of its last START, taken from the trace, become
  a vector file (verif/vectors.py) that the design's tests can replay: the distinguishing
  input, to close the hole with stimulus;
- unknown: no verdict (timeout, a tool error).

The copies' own assertions are removed (only what the testbench observes counts here), and
every flip-flop of both copies starts at 0, so that only the reset and the stimulus can tell
them apart.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from montverif.regress.flow import formal, formal_core, synth
from montverif.regress.flow.paths import stage
from montverif.spec import top
from montverif.spec.designs import load_design
from montverif.spec.errors import ConfigError
from montverif.spec.paths import COMMON

GOLD, GATE = "gold", "gate"  # the two copies; their sources in folders of these names
HARNESS = "mv_equiv"
STATUSES = ("equivalent", "different", "unknown")


@dataclass(frozen=True)
class EquivSpec:
    """One check: the design at width n with its parameters beyond N, the folder whose files
    replace the core's sources of the same name in the gate copy, the BMC depth (0: two
    operations and the cycles around them)."""

    dut: str
    overlay: str
    n: int
    params: tuple[tuple[str, int], ...] = ()
    depth: int = 0
    timeout_s: int = 900


@dataclass
class EquivVerdict:
    status: str
    folder: Path
    depth: int
    seconds: float = 0.0
    message: str = ""
    trace: Path | None = None
    vector: Path | None = None  # the distinguishing input (a different verdict)

    def to_json(self) -> dict[str, object]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}


def default_depth(proof: formal_core.CoreProof) -> int:
    """Two whole operations back to back, START and CLEAR cycles around them."""
    return 2 * (proof.cycles + 2) + 2


def prepare(spec: EquivSpec) -> tuple[formal_core.CoreProof, int]:
    """The formal point and the depth; ConfigError (one line) when no check can be made."""
    design = load_design(spec.dut)
    if design.stream is not None:
        raise ConfigError(f"{spec.dut}: a streaming core has no equivalence harness yet (the "
                          "miter drives the bus loader's port contract)")
    proof = formal_core.prepare(design, spec.n, dict(spec.params))
    if not Path(spec.overlay).is_dir():
        raise ConfigError(f"no such overlay folder: {spec.overlay}")
    depth = spec.depth or default_depth(proof)
    if not proof.cycles + 2 <= depth <= 400:
        raise ConfigError(f"depth {depth}: use {proof.cycles + 2} to 400 (one operation of "
                          f"{spec.dut} at N={spec.n} takes {proof.cycles + 1} cycles)")
    return proof, depth


def observed(proof: formal_core.CoreProof) -> list[str]:
    """The registers the testbench reads inside the core (hierarchical names in the
    flattened copy, below the top's u_core)."""
    return sorted(v for v in proof.design.observe.values()
                  if isinstance(v, str) and v.startswith("u_core."))


def script(proof: formal_core.CoreProof, files: dict[str, list[str]]) -> list[str]:
    """The yosys script: each copy elaborated, flattened, its observed registers exposed,
    its assertions removed, its flip-flops started at 0; then the miter and the harness."""
    expose = " ".join(f"w:{name}" for name in observed(proof))
    lines: list[str] = []
    for copy in (GOLD, GATE):
        lines += [f"read -formal {' '.join(files[copy])} {synth.WRAPPER}",
                  f"hierarchy -top {synth.TOP}", "proc", "flatten",
                  *([f"expose {expose}"] if expose else []),
                  "chformal -assert -cover -remove", "setundef -zero -init",
                  f"design -stash {copy}"]
    lines += [f"design -copy-from {copy} -as {copy} {synth.TOP}" for copy in (GOLD, GATE)]
    return [*lines, f"miter -equiv -flatten -make_outputs -ignore_gold_x {GOLD} {GATE} "
                    "mv_miter", f"read -formal {HARNESS}.sv", f"prep -top {HARNESS}"]


def harness(proof: formal_core.CoreProof) -> str:
    """The harness's SystemVerilog: the loader's stimulus into the miter, `trigger` never."""
    d, n = proof.design, proof.n
    core = top.core_header(d)
    conns = dict(top.core_connections(d, core))
    operands, _ = formal_core.operand_lines(proof, free="anyseq")
    held = sorted(proof.used | ({"field"} if d.has_field else set()))
    inputs = [name for name, port in core.ports.items() if port.direction == "input"]
    lines = [
        f"// GENERATED by montverif.regress.flow.formal_equiv: {d.name} at N = {n}, the",
        "// original core (gold) against a mutant (gate) under any stimulus the loader gives.",
        f"module {HARNESS} (",
        "  input logic clk_i,",
        "  input logic rst_ni",
        ");",
        f"  localparam int N = {n};",
        *(f"  localparam int {k} = {v};" for k, v in proof.params.items()),
        *(f"  localparam int {k} = {v};" for k, v in proof.consts),
        f"  localparam int WW = {proof.ww};",
        "  logic [15:0] cyc_q = '0;",
        "  always @(posedge clk_i) begin",
        "    if (cyc_q != 16'hffff) cyc_q <= cyc_q + 1'b1;",
        "  end",
        "  always @(*) assume (rst_ni == (cyc_q != '0));",
        "  (* anyseq *) logic start, clear;",
        "  logic trigger, core_busy;",
        *operands,
        "  // START and CLEAR while idle only, never together; operands held while busy",
        "  always @(*) begin",
        "    assume (!(start && clear));",
        "    if (core_busy) assume (!start && !clear);",
        "  end",
        "  always @(posedge clk_i) begin",
        "    if (cyc_q != '0 && core_busy) assume ("
        + " && ".join(f"{s} == $past({s})" for s in held) + ");",
        "  end",
        "  mv_miter u_miter (",
        *(f"    .in_{name}({_input(name, conns)})," for name in inputs),
        "    .gold_busy_o(core_busy),",
        "    .trigger(trigger)",
        "  );",
        "  always @(posedge clk_i) begin",
        "    if (rst_ni) MutantEquivalent_A: assert (!trigger);",
        "  end",
        "endmodule",
    ]
    return "\n".join(lines) + "\n"


def _input(name: str, conns: dict[str, str]) -> str:
    """What drives a core input in the harness: the clock and reset by name, START and CLEAR
    by the harness's own, the rest as the generated top connects them to the loader."""
    if name in ("clk_i", "rst_ni"):
        return name
    return {"start_i": "start", "clear_i": "clear"}.get(name, conns.get(name) or "'0")


def sby_text(proof: formal_core.CoreProof, depth: int, timeout_s: int,
             files: dict[str, list[str]], copies: list[tuple[str, str]]) -> str:
    """The .sby file; `copies`: (the name in SBY's work folder, the file as the run names
    it: its own folder's copy, flow.paths.stage)."""
    return "\n".join([
        "[options]", "mode bmc", f"depth {depth}", f"timeout {timeout_s}", "",
        "[engines]", formal.ENGINE, "",
        "[script]", *script(proof, files), "",
        "[files]", *(f"{dest} {src}" for dest, src in copies), "",
    ])


def run(spec: EquivSpec, folder: Path) -> EquivVerdict:
    """Check the mutant against the original in `folder` (made, or refused if it holds
    anything); writes equiv.json there. Raises ConfigError on bad input."""
    proof, depth = prepare(spec)
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise ConfigError(f"{folder} is not empty: a check runs in a folder of its own")
    folder = folder.resolve()
    env = formal.tool_env(folder)
    formal.warm(env)
    over = Path(spec.overlay)
    copies: list[tuple[str, Path]] = [(p.name, p) for p in sorted(COMMON.glob("*.svh"))]
    files: dict[str, list[str]] = {}
    for copy in (GOLD, GATE):
        srcs = [over / s.name if copy == GATE and (over / s.name).is_file() else s
                for s in proof.design.core_sources]
        files[copy] = [f"{copy}/{s.name}" for s in srcs]
        copies += [(f"{copy}/{s.name}", s) for s in srcs]
    (folder / synth.WRAPPER).write_text(synth.wrapper(synth.Plan(
        proof.design, proof.design.core_module, proof.design.core_sources,
        {"N": proof.n, **proof.params})))
    (folder / f"{HARNESS}.sv").write_text(harness(proof))
    copies += [(synth.WRAPPER, folder / synth.WRAPPER), (f"{HARNESS}.sv", folder / f"{HARNESS}.sv")]
    staged = stage(folder, copies)
    (folder / "equiv.sby").write_text(sby_text(
        proof, depth, spec.timeout_s, files,
        [(dest, name) for (dest, _), name in zip(copies, staged, strict=True)]))
    t0 = time.monotonic()
    limit = formal.sby_limit(spec.timeout_s)
    log, ended = formal.run_sby(folder, "equiv.sby", env, limit)
    (folder / "sby.log").write_text(log)
    if ended:
        verdict = EquivVerdict("unknown", folder, depth, time.monotonic() - t0,
                               f"SBY did not end within {limit}s")
    else:
        verdict = _verdict(proof, folder, depth, time.monotonic() - t0)
    (folder / "equiv.json").write_text(json.dumps(verdict.to_json(), indent=1) + "\n")
    return verdict


def _verdict(proof: formal_core.CoreProof, folder: Path, depth: int,
             seconds: float) -> EquivVerdict:
    status, summary = formal.task_log(folder / "equiv")
    if status == "PASS":
        return EquivVerdict("equivalent", folder, depth, seconds)
    trace = next(iter(sorted((folder / "equiv").glob("engine_*/trace*.vcd"))), None)
    if status == "FAIL" and trace is not None:
        v = EquivVerdict("different", folder, depth, seconds, trace=trace)
        ops = start_operands(proof, trace)
        if ops is None:
            v.message = "the copies differ without an operation (after reset or CLEAR)"
        else:
            v.vector = folder / "distinguishing.json"
            v.vector.write_text(json.dumps(
                {"vectors": [{k: hex(val) for k, val in sorted(ops.items())}]}, indent=1)
                + "\n")
        return v
    return EquivVerdict("unknown", folder, depth, seconds,
                        f"SBY ended {status} without a verdict: "
                        + ("; ".join(summary[-2:]) or f"see {folder / 'sby.log'}"))


def start_operands(proof: formal_core.CoreProof, trace: Path) -> dict[str, int] | None:
    """The operands at the last START of a counterexample trace (by a vector file's names:
    x, y, m, x2, y2 for the second carry-save halves, msg, exp, mod for kind modexp, field
    for a design with a field bit), or None if it has no START."""
    last = None
    names = formal_core.vector_signals(proof)
    for step in formal_core.top_steps(trace, (*names, "start")):
        if step.get("start") == 1:
            last = step
    if last is None:
        return None
    return formal_core.split_halves(proof, {k: last[k] for k in names if k in last})
