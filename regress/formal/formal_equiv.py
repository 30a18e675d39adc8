"""A mutant against the original core: an equivalence check with SymbiYosys.

Mutation testing (regress/mutate/) calls a surviving mutant equivalent when simulation finds
no difference; this module tries to prove it (docs/mutation.md). Two copies of a design's
core, the original (gold) and one with the mutated source (gate), are each elaborated at the
same formal point with their parameters set by a top that passes every port through
(montverif.spec.core_top), flattened, and given the registers the testbench observes (the
descriptor's [observe] paths, read at every DONE) as outputs. yosys `miter -equiv` joins
them: its `trigger` is high in a cycle in which any output of the two copies differs.

A generated harness drives both copies with the same stimulus, any the bus loader can give:

- reset in cycle 0; then START and CLEAR free in every cycle, never both at once and never
  while the original is busy;
- the operands (and the host-precomputed registers) free in every cycle within the loader's
  range rule and the relations that define them (formal_core.operands), held while the
  original is busy;

and asserts that `trigger` never rises after reset. A bounded model check to `depth` covers
every such stimulus of that many cycles: by default two whole operations and the cycles
around them, CLEARs and idle cycles wherever they fit.

- equivalent: no difference within the depth, for every input and every such sequence;
  and, where induction closes, for all time (`unbounded`): the copies' registers become
  candidate equalities that a Houdini loop proves together with the check by k-induction
  (formal.equiv_induction); the candidates also make the bounded check fast, each proved
  equality a lemma for the cycles after it;
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
import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from montverif.host import templates
from montverif.host.errors import ConfigError
from montverif.host.paths import COMMON, stage
from montverif.regress.formal import equiv_induction, formal, formal_core
from montverif.spec import core_top, top
from montverif.spec.designs import load_design

_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the harness's and .sby's text
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
    # also for all time: k-induction with the copies' register equalities found by a Houdini
    # loop (formal.equiv_induction), at most timeout_s more
    induction: bool = True


@dataclass
class EquivVerdict:
    status: str
    folder: Path
    depth: int
    seconds: float = 0.0
    message: str = ""
    trace: Path | None = None
    vector: Path | None = None  # the distinguishing input (a different verdict)
    unbounded: bool = False  # equivalent for all time (k-induction closed at `depth`)
    refused: bool = False  # different: the mutant's copy does not elaborate, the original's does
    equalities: int = 0  # the register equalities the induction kept

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
    return sorted(v for v in proof.design.observe.paths() if v.startswith("u_core."))


def script(proof: formal_core.CoreProof, files: dict[str, list[str]],
           regs: Sequence[equiv_induction.Register] = ()) -> list[str]:
    """The yosys script (templates/equiv.ys.j2): each copy elaborated, flattened, its
    observed registers exposed, its assertions removed, its flip-flops started at 0; then
    the miter (`regs`: registers of both copies made its outputs) and the harness."""
    expose = " ".join(f"w:{name}" for name in observed(proof))
    return templates.render(
        _TEMPLATES, "equiv.ys.j2", copies=[GOLD, GATE], files=files, top_file=core_top.FILE,
        top=core_top.TOP, observed=expose, expose=equiv_induction.expose_line(list(regs)),
        harness=HARNESS).splitlines()


def harness(proof: formal_core.CoreProof,
            cands: equiv_induction.Candidates | None = None) -> str:
    """The harness's SystemVerilog (templates/equiv.sv.j2): the loader's stimulus into the
    miter, `trigger` never; with `cands`, the copies' registers and the candidates still
    standing asserted too."""
    d, n = proof.design, proof.n
    core = top.core_header(d)
    conns = dict(top.core_connections(d, core))
    operands, _ = formal_core.operands(proof, free="anyseq")
    held = sorted(proof.used | ({"field"} if d.has_field else set()))
    inputs = [(name, _input(name, conns)) for name, port in core.ports.items()
              if port.direction == "input"]
    return templates.render(
        _TEMPLATES, "equiv.sv.j2", name=d.name, n=n, module=HARNESS,
        params=[*proof.params.items(), *proof.consts], ww=proof.ww, operands=operands,
        seen=equiv_induction.SEEN, held=held, inputs=inputs, check=equiv_induction.CHECK,
        registers=None if cands is None else [(r.name, r.width) for r in cands.registers],
        checks=[] if cands is None else equiv_induction.checks(cands))


def _input(name: str, conns: dict[str, str]) -> str:
    """What drives a core input in the harness: the clock and reset by name, START and CLEAR
    by the harness's own, the rest as the generated top connects them to the loader."""
    if name in ("clk_i", "rst_ni"):
        return name
    return {"start_i": "start", "clear_i": "clear"}.get(name, conns.get(name) or "'0")


def sby_text(proof: formal_core.CoreProof, depth: int, timeout_s: int,
             files: dict[str, list[str]], copies: list[tuple[str, str]],
             regs: Sequence[equiv_induction.Register] = (), induction: bool = False) -> str:
    """The .sby file (templates/equiv.sby.j2): the bounded check from reset (every failed
    assertion listed, SBY's --keep-going), or with `induction` the induction step alone;
    `copies`: (the name in SBY's work folder, the file as the run names it: its own
    folder's copy, host.paths.stage)."""
    mode, flag = ("prove", "--induction") if induction else ("bmc", "--keep-going")
    return templates.render(
        _TEMPLATES, "equiv.sby.j2", mode=mode, depth=depth, timeout_s=timeout_s,
        engine=formal.ENGINE.replace("smtbmc", f"smtbmc {flag}", 1),
        script=script(proof, files, regs), copies=copies)


@dataclass
class _Run:
    """What every SBY run of one check shares."""

    spec: EquivSpec
    proof: formal_core.CoreProof
    folder: Path
    env: dict[str, str]
    depth: int
    files: dict[str, list[str]]
    entries: list[tuple[str, str]]  # [files] of SBY but the harness

    def sby(self, name: str, cands: equiv_induction.Candidates | None, timeout_s: int,
            induction: bool = False, depth: int = 0) -> tuple[str, list[str]] | None:
        """Write the harness and `name`.sby, run it (to `depth`, default the check's); SBY's
        status word and summary, or None when the flow had to end it (past its limit)."""
        harness_file = f"{name}_{HARNESS}.sv"
        (self.folder / harness_file).write_text(harness(self.proof, cands))
        (self.folder / f"{name}.sby").write_text(sby_text(
            self.proof, depth or self.depth, timeout_s, self.files,
            [*self.entries, (f"{HARNESS}.sv", harness_file)],
            cands.registers if cands else (), induction))
        log, ended = formal.run_sby(self.folder, f"{name}.sby", self.env,
                                    formal.sby_limit(timeout_s))
        (self.folder / f"{name}.log").write_text(log)
        if ended:
            return None
        status, logged = formal.task_log(self.folder / name)
        whole = equiv_induction.summary(self.folder / name, status, logged)
        return (status, whole) if whole is not None else ("ERROR", logged)


def run(spec: EquivSpec, folder: Path) -> EquivVerdict:
    """Check the mutant against the original in `folder` (made, or refused if it holds
    anything): the bounded check, then (spec.induction) induction for all time; writes
    equiv.json there. Raises ConfigError on bad input."""
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
    (folder / core_top.FILE).write_text(core_top.text(
        proof.design, proof.design.core_module, {"N": proof.n, **proof.params}))
    copies += [(core_top.FILE, folder / core_top.FILE)]
    staged = stage(folder, copies)
    ctx = _Run(spec, proof, folder, env, depth, files,
               [(dest, name) for (dest, _), name in zip(copies, staged, strict=True)])
    t0 = time.monotonic()
    cands = equiv_induction.Candidates(_registers(ctx, copies)) if spec.induction else None
    verdict = _short(ctx, cands, t0) if cands is not None else None
    if verdict is None:
        verdict = _bounded(ctx, cands, t0)
        if cands is not None and verdict.status == "equivalent":
            _induction(ctx, cands, verdict)
    verdict.seconds = time.monotonic() - t0
    (folder / "equiv.json").write_text(json.dumps(verdict.to_json(), indent=1) + "\n")
    return verdict


def _registers(ctx: _Run, copies: list[tuple[str, Path]]) -> list[equiv_induction.Register]:
    """The copies' registers (none when yosys cannot list them: the checks then run without
    equalities, still sound)."""
    try:
        return equiv_induction.find_registers(ctx.folder, ctx.env, copies,
                                              script(ctx.proof, ctx.files)[:-2],
                                              ctx.spec.timeout_s)
    except (RuntimeError, OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        return []


SHORT_DEPTH = 10  # the short base case and induction step tried first (cycles)


def _short(ctx: _Run, cands: equiv_induction.Candidates, t0: float) -> EquivVerdict | None:
    """Induction at a short depth first, within a third of the time: the bounded check to
    SHORT_DEPTH cycles (its failing candidates dropped for good: they fail from reset; a
    difference found there is the verdict), then Houdini at that depth. Closed, the mutant
    is equivalent for all time (base case and step at the same depth: k-induction) without
    the long bounded check; else None, and the candidates the step broke stand again."""
    depth = min(SHORT_DEPTH, ctx.depth)
    budget = max(ctx.spec.timeout_s // 3, 1)
    v = _bounded(ctx, cands, t0, "short", depth, budget)
    if v.status != "equivalent":
        return v if v.status == "different" else None
    from_reset = set(cands.dropped)
    left = max(int(t0 + budget - time.monotonic()), 1)  # below ROUND_MIN_S: no round
    _induction(ctx, cands, v, "short_induct", depth, left)
    if v.unbounded:
        v.seconds = time.monotonic() - t0
        return v
    cands.dropped = from_reset
    return None


def _bounded(ctx: _Run, cands: equiv_induction.Candidates | None, t0: float,
             name: str = "equiv", depth: int = 0, timeout_s: int = 0) -> EquivVerdict:
    """The check from reset to the depth (default the check's) with every candidate; drops
    those that fail."""
    depth, timeout_s = depth or ctx.depth, timeout_s or ctx.spec.timeout_s
    ended = ctx.sby(name, cands, timeout_s, depth=depth)
    seconds = time.monotonic() - t0
    if ended is None:
        return EquivVerdict("unknown", ctx.folder, depth, seconds,
                            f"SBY did not end within {formal.sby_limit(timeout_s)}s")
    status, summary = ended
    if status == "ERROR" and (why := gate_refused(ctx.folder / name / "logfile.txt")):
        return EquivVerdict("different", ctx.folder, depth, seconds,
                            "the mutant does not elaborate here, the original does: " + why,
                            refused=True)
    failed = equiv_induction.failures(summary)
    if traces := [t for lab, t in failed if lab == equiv_induction.CHECK]:
        # named below the task's folder (its summary file) or below ours (SBY's log)
        trace = ctx.folder / name / traces[0]
        return _different(ctx, seconds, trace if trace.is_file() else ctx.folder / traces[0],
                          depth)
    if status == "PASS" or (status == "FAIL" and failed and cands is not None):
        if cands is not None:
            cands.dropped |= {lab for lab, _ in failed}
        return EquivVerdict("equivalent", ctx.folder, depth, seconds)
    return EquivVerdict("unknown", ctx.folder, depth, seconds,
                        f"SBY ended {status} without a verdict: "
                        + ("; ".join(summary[-2:]) or f"see {ctx.folder / (name + '.log')}"))


_ELAB_ERROR = re.compile(r"\b(gold|gate)/(\S+?:\d+): ERROR: ?(.*)")


def gate_refused(log: Path) -> str:
    """The mutant's elaboration error at this point ("file:line: message"), when SBY's log
    has one in the mutant's copy (gate/) and none in the original's; else ""."""
    try:
        found = [m.groups() for m in map(_ELAB_ERROR.search, log.read_text(
            errors="replace").splitlines()) if m]
    except OSError:
        return ""
    if not found or any(copy == GOLD for copy, _, _ in found):
        return ""
    _, where, message = found[0]
    return f"{where}: {message.strip()}"


def _different(ctx: _Run, seconds: float, trace: Path, depth: int) -> EquivVerdict:
    v = EquivVerdict("different", ctx.folder, depth, seconds, trace=trace)
    ops = start_operands(ctx.proof, trace)
    if ops is None:
        v.message = "the copies differ without an operation (after reset or CLEAR)"
    else:
        v.vector = ctx.folder / "distinguishing.json"
        v.vector.write_text(json.dumps(
            {"vectors": [{k: hex(val) for k, val in sorted(ops.items())}]}, indent=1) + "\n")
    return v


ROUNDS = 20  # induction runs at most, each after dropping the candidates that broke it
ROUND_MIN_S = 5  # the least time worth another induction run


def _induction(ctx: _Run, cands: equiv_induction.Candidates, v: EquivVerdict,
               name: str = "induct", depth: int = 0, timeout_s: int = 0) -> None:
    """Houdini: induction over the kept candidates and the check at the depth (default the
    check's), dropping what breaks it, until it closes (v.unbounded) or only the check
    breaks it or the time is up (v.message says why; the bounded verdict stands)."""
    depth, timeout_s = depth or ctx.depth, timeout_s or ctx.spec.timeout_s
    end = time.monotonic() + timeout_s
    why = f"not within {timeout_s} s"
    for r in range(1, ROUNDS + 1):
        left = int(end - time.monotonic())
        if left < ROUND_MIN_S:
            break
        ended = ctx.sby(f"{name}{r}", cands, left, induction=True, depth=depth)
        if ended is None:
            break
        status, summary = ended
        if any("returned pass for induction" in line for line in summary):
            v.unbounded, v.equalities, v.message = True, len(cands.kept()), ""
            return
        broken = {lab for lab, _ in equiv_induction.failures(summary)} - {
            equiv_induction.CHECK}
        if not broken:
            why = (f"the induction step breaks {equiv_induction.CHECK} at depth {depth}"
                   if status in ("FAIL", "UNKNOWN") and summary else f"SBY ended {status}")
            break
        cands.dropped |= broken
    else:
        why = f"{ROUNDS} rounds"
    v.message = f"bounded: induction did not close ({why})"


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
