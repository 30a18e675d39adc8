"""Coverage bins decided by SBY cover statements (docs/closure.md, "Bins SBY decides").

`montverif formal --dut D --covers [--n N] [--params ..]` asks SymbiYosys, for one build
point, which coverage bins of verif/env/coverage.py one operation of the core can hit:

- the cover statements are the observation block's (hdl/common/mv_observe.sv, compiled in
  with -D MV_COVER_LUT / -D MV_COVER_SUB, defines no other build sets): `lut.addr:<a>` is
  "some port counts address a", `final_sub:taken` / `not_taken` the flag recorded in the
  final clock. yosys' `read -formal` defines FORMAL instead of SYNTHESIS, so the cores
  keep their `ifndef SYNTHESIS` observation in this build;
- the harness (generated here, beside the run) drives the core as the core proofs do
  (montverif.regress.formal.formal_core: reset in cycle 0, START in cycle 1, the operands free
  constants under the loader's range rule) and adds nothing to check: no reference, no
  assertion. A cross with the modulus class (`cross.sub_x_m:(taken, class)`) is one SBY
  task per class, whose harness assumes the class (parameter MClass); its `ModClass_C`
  cover also decides `operands.m:<class>`;
- each task is a cover run (mode cover) to two cycles past the core's last_o, so it
  spans the whole first operation: a cover SBY reports unreached is unreachable in any
  operation from reset, for every input of the design's domain, at that point ("proved by
  SBY cover"); a reached one comes with a witness trace whose operands (the harness's free
  constants, read by formal_core.counterexample_operands) become a vector that
  `montverif sim --vectors` replays (VectorTest) to hit the bin in simulation; a task that
  ends without a verdict (timeout) leaves its bins undecided.

What is decided holds for one operation from reset, as the core proofs (docs/formal.md):
an operation that follows another starts from the same cleared registers in these cores,
by argument, not by proof.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from montverif.host import claim, readback, templates
from montverif.host.claim import Mode
from montverif.host.errors import ConfigError
from montverif.host.paths import COMMON, work
from montverif.regress.formal import formal, formal_core
from montverif.spec.designs import check_known, load_design
from montverif.verif.operands import M_CLASSES


def covers_root() -> Path:
    """The folder of the cover runs (one folder each)."""
    return work("formal-covers")


_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the harness's and .sby's text
HIT_SOURCE = formal.HARNESSES / "mv_cover_hit.sv"  # the observation's per-bin cover
STATUSES = ("reached", "unreachable", "undecided")
PROVED = "proved by SBY cover"  # the reason a proved bin carries (its first words)
MAX_N = 64  # a cover run's widest point (the proofs of unreachability grow with N)
LUT_TASK = "lut"
VECTORS = "witnesses.json"  # the reached bins' operands, one vector each
RESULT = "covers.json"
IN_RESULTS = "formal-covers"  # a results folder's cover run (closure run --formal)


@dataclass(frozen=True)
class BinCover:
    """One coverage bin (named below the design, as its coverage files name it) and the cover
    statement that decides it: the SBY task and the statement's name (its hierarchical name
    ends so)."""

    bin: str
    task: str
    cover: str
    illegal: bool = False  # a table address the descriptor calls unreachable (no bin)


@dataclass
class BinVerdict:
    bin: str
    status: str  # one of STATUSES
    reason: str = ""  # unreachable: "proved by SBY cover at ..."; undecided: why
    step: int = -1  # reached: the witness's step
    trace: str = ""  # reached: the witness VCD
    operands: dict[str, int] = field(default_factory=dict)  # reached: x, y, m (x2, y2)
    illegal: bool = False  # not a bin: an address the descriptor's illegal_bins names


@dataclass
class CoverRun:
    """The verdicts of one cover run (written as covers.json in its folder)."""

    dut: str
    n: int
    params: dict[str, int]
    depth: int
    folder: str
    seconds: float
    tasks: dict[str, dict[str, Any]]  # per task: status, seconds
    bins: dict[str, BinVerdict]
    vectors: str = ""  # the witnesses as one vector file ("" when none was reached)

    def with_status(self, status: str) -> list[str]:
        """The coverage bins of this verdict (illegal addresses left out)."""
        return [b for b, v in self.bins.items() if v.status == status and not v.illegal]

    def illegal(self) -> dict[str, str]:
        """The descriptor's illegal addresses and their verdicts: each should be proved
        unreachable; one reached means the descriptor is wrong at this point."""
        return {b: v.status for b, v in self.bins.items() if v.illegal}

    def unreachable(self) -> dict[str, str]:
        """The bins proved unreachable, with the proof as the reason."""
        return {b: v.reason for b, v in self.bins.items()
                if v.status == "unreachable" and not v.illegal}

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"schema": 1, "point": point_text(self.n, self.params)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> CoverRun:
        bins = {b: BinVerdict(**v) for b, v in data["bins"].items()}
        keys = ("dut", "n", "params", "depth", "folder", "seconds", "tasks", "vectors")
        return CoverRun(**{k: data[k] for k in keys}, bins=bins)


def point_text(n: int, params: dict[str, int]) -> str:
    return " ".join([f"N={n}", *(f"{k}={v}" for k, v in params.items())])


def m_task(cls: str) -> str:
    return f"m_{cls}"


def bin_covers(dut: str) -> list[BinCover]:
    """The bins of the design's coverage model (verif/env/coverage.py) that a cover statement
    decides: its table addresses (the illegal ones too, which have no bin: their covers
    check the descriptor), and, with a final subtraction it reports, the subtraction crossed
    with each modulus class and the classes themselves."""
    design = load_design(dut)
    observe = design.observe
    illegal = set(observe.illegal_bins)
    out = [BinCover(f"lut.addr:{a}", LUT_TASK, f"g_bin[{a}].u_cover.Hit_C", a in illegal)
           for a in range(observe.lut_bins)]
    if observe.sub_taken:
        for cls in M_CLASSES:
            out += [BinCover(f"cross.sub_x_m:{(True, cls)!r}", m_task(cls), "SubTaken_C"),
                    BinCover(f"cross.sub_x_m:{(False, cls)!r}", m_task(cls), "SubNotTaken_C"),
                    BinCover(f"operands.m:{cls}", m_task(cls), "ModClass_C")]
    return out


# final_sub:<label> is decided by the crosses: reached where one class reaches it,
# unreachable where every class is proved not to
DERIVED = {"final_sub:taken": "SubTaken_C", "final_sub:not_taken": "SubNotTaken_C"}


def unsupported(dut: str) -> str:
    """Why the design's bins cannot be decided by covers ("" when they can)."""
    try:
        check_known(dut)
    except ConfigError as exc:
        return str(exc)
    design = load_design(dut)
    if why := formal_core.unsupported(design):
        return why
    if design.stream is not None:
        return f"{dut}: a streaming core has no cover harness yet (it drives start_i)"
    if not bin_covers(dut):
        return f"{dut}: its observation reports no table address and no final subtraction"
    return ""


def prepare(dut: str, n: int, params: dict[str, int]) -> formal_core.CoreProof:
    """The point's harness data; raises ConfigError (one line) on bad input."""
    if why := unsupported(dut):
        raise ConfigError(why)
    design = load_design(dut)
    low = design.min_n_at(params)
    if not low <= n <= MAX_N:
        raise ConfigError(f"N={n}: cover runs of {dut} take {low} <= N <= {MAX_N} "
                          "(its narrowest simulated width, where a witness replays, to the "
                          "width where unreachability proofs stay affordable)")
    return formal_core.prepare(design, n, params, max_n=MAX_N)


def harness(proof: formal_core.CoreProof) -> str:
    """The cover harness (templates/cover.sv.j2): the core driven as in the core proofs, the
    modulus class of the task assumed (MClass; -1: any) and covered (ModClass_C)."""
    d = proof.design
    control = formal_core.control(proof)
    operands, _ = formal_core.operands(proof)
    core = formal_core.instance(proof)
    return templates.render(_TEMPLATES, "cover.sv.j2", descriptor=d.descriptor.name,
                            name=d.name, n=proof.n, module=cover_module(proof),
                            control=control, operands=operands, core=core,
                            classes=list(M_CLASSES))


def cover_module(proof: formal_core.CoreProof) -> str:
    return f"{proof.design.core_module}_covers"


def tasks(dut: str) -> list[str]:
    return list(dict.fromkeys(c.task for c in bin_covers(dut)))


def sby_text(proof: formal_core.CoreProof, sources: list[Path], timeout_s: int,
             entries: list[str] | None = None) -> str:
    """The .sby file (templates/cover.sby.j2): one cover task per entry of tasks(); the lut
    task reads the RTL with -D MV_COVER_LUT, a class task with -D MV_COVER_SUB and its class
    assumed."""
    top = cover_module(proof)
    names = tasks(proof.design.name)
    files = " ".join(s.name for s in sources)
    classes = [(task, None if task == LUT_TASK else M_CLASSES.index(task.removeprefix("m_")))
               for task in names]
    includes = sorted(COMMON.glob("*.svh"))
    return templates.render(
        _TEMPLATES, "cover.sby.j2", tasks=classes, depth=proof.depth, timeout_s=timeout_s,
        engine=formal.ENGINE, files=files, top=top,
        entries=entries if entries is not None else [str(p) for p in [*includes, *sources]])


_REACHED = re.compile(r"^\s*reached cover statement (.+) at \S+ step (\d+)\s*$")
_UNREACHED = re.compile(r"^\s*(.+) at \S+\s*$")
_TRACE = re.compile(r"trace: (\S+\.vcd)")


def cover_name(text: str) -> str:
    """A cover statement's hierarchical name as SBY prints it, escaped identifiers undone
    (`u_observe.\\g_bin[10].u_cover .Hit_C` -> `u_observe.g_bin[10].u_cover.Hit_C`)."""
    return text.replace("\\", "").replace(" ", "")


def task_covers(workdir: Path) -> tuple[str, dict[str, tuple[int, Path | None]], list[str]]:
    """(SBY's status of one task, its reached covers with the step and the witness trace,
    the covers it lists unreached), from the task's status file (PASS, FAIL, ...: the whole
    summary; the log's summary stops after a few traces)."""
    status, summary = formal.task_log(workdir)
    if (full := workdir / status).is_file():
        summary = full.read_text(errors="replace").splitlines()
    reached: dict[str, tuple[int, Path | None]] = {}
    unreached: list[str] = []
    trace: Path | None = None  # SBY names a trace before the covers it reaches (one or more)
    listing = False
    for line in summary:
        if m := _TRACE.search(line):
            trace = workdir / m.group(1)
        elif m := _REACHED.match(line):
            reached.setdefault(cover_name(m.group(1)), (int(m.group(2)), trace))
        elif line.startswith("unreached cover statements"):
            listing = True
            continue
        if listing and line.startswith(" ") and (m := _UNREACHED.match(line)):
            unreached.append(cover_name(m.group(1)))
        else:
            listing = False
    return status, reached, unreached


def _find(covers: dict[str, Any] | list[str], suffix: str) -> str | None:
    return next((c for c in covers if c.endswith("." + suffix) or c == suffix), None)


def decide(proof: formal_core.CoreProof, folder: Path, stem: str
           ) -> tuple[dict[str, BinVerdict], dict[str, dict[str, Any]]]:
    """Every bin's verdict from the tasks' logs."""
    dut = proof.design.name
    point = point_text(proof.n, dict(proof.params))
    task_out: dict[str, dict[str, Any]] = {}
    verdicts: dict[str, BinVerdict] = {}
    logs = {t: task_covers(folder / f"{stem}_{t}") for t in tasks(dut)}
    for task, (status, _, _) in logs.items():
        task_out[task] = {"status": status}
    for bc in bin_covers(dut):
        status, reached, unreached = logs[bc.task]
        if (name := _find(reached, bc.cover)) is not None:
            step, trace = reached[name]
            ops = (formal_core.counterexample_operands(proof, trace)
                   if trace is not None and trace.is_file() else {})
            verdicts[bc.bin] = BinVerdict(bc.bin, "reached", step=step, trace=str(trace or ""),
                                          operands=ops, illegal=bc.illegal)
        elif status == "FAIL" and _find(unreached, bc.cover) is not None:
            verdicts[bc.bin] = BinVerdict(
                bc.bin, "unreachable",
                f"{PROVED} at {point}: {bc.cover} unreached within {proof.depth} steps, "
                f"the whole first operation (task {bc.task})", illegal=bc.illegal)
        else:
            verdicts[bc.bin] = BinVerdict(bc.bin, "undecided",
                                          f"task {bc.task} ended {status} without a verdict",
                                          illegal=bc.illegal)
    for name, cover in DERIVED.items():
        crosses = [verdicts[b.bin] for b in bin_covers(dut) if b.cover == cover]
        if not crosses:
            continue
        if hit := next((v for v in crosses if v.status == "reached"), None):
            verdicts[name] = BinVerdict(name, "reached", step=hit.step, trace=hit.trace,
                                        operands=dict(hit.operands))
        elif all(v.status == "unreachable" for v in crosses):
            verdicts[name] = BinVerdict(name, "unreachable", f"{PROVED} at {point}: {cover} "
                                        f"unreached in every modulus class within "
                                        f"{proof.depth} steps, the whole first operation")
        else:
            verdicts[name] = BinVerdict(name, "undecided", "a modulus class is undecided")
    return verdicts, task_out


def write_vectors(verdicts: dict[str, BinVerdict], target: Path) -> Path | None:
    """One vector per distinct witness of a reached bin, as `montverif sim --vectors` reads
    them (verif/vectors.py); None when no bin was reached."""
    seen: dict[tuple[tuple[str, int], ...], list[str]] = {}
    for v in verdicts.values():
        if v.status == "reached" and v.operands and not v.illegal:
            seen.setdefault(tuple(sorted(v.operands.items())), []).append(v.bin)
    if not seen:
        return None
    vectors = [{k: hex(val) for k, val in ops} | {"bins": bins} for ops, bins in seen.items()]
    target.write_text(json.dumps({"vectors": vectors}, indent=1) + "\n")
    return target


def run(dut: str, n: int, params: dict[str, int], timeout_s: int = 600,
        out: Path | None = None, mode: Mode = Mode.NEW) -> CoverRun:
    """Run the design's covers at one point in a folder of its own (`out`, claimed with
    `mode`: host.claim.output; else a new one); raises ConfigError on bad input, ToolError
    when the tools are missing."""
    if timeout_s < 1:
        raise ConfigError(f"--timeout {timeout_s}: use 1 second or more")
    proof = prepare(dut, n, params)
    if out is not None:
        folder = out.resolve()
    else:
        covers_root().mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f"{dut}-N{n}-", dir=covers_root()))
    with claim.output(folder, claim.COVER_RUN, mode):
        return _run_in(proof, dut, timeout_s, folder)


def _run_in(proof: formal_core.CoreProof, dut: str, timeout_s: int, folder: Path) -> CoverRun:
    env = formal.tool_env(folder)
    formal.warm(env)
    sources = [*proof.design.core_sources, HIT_SOURCE]
    sources.append(folder / f"{cover_module(proof)}.sv")
    sources[-1].write_text(harness(proof))
    stem = "covers"
    (folder / f"{stem}.sby").write_text(sby_text(proof, sources, timeout_s,
                                                 formal.staged_files(folder, sources)))
    t0 = time.monotonic()
    limit = len(tasks(dut)) * (timeout_s + 60)
    log, _ = formal.run_sby(folder, f"{stem}.sby", env, limit)
    (folder / "sby.log").write_text(log)
    seconds = time.monotonic() - t0
    verdicts, task_out = decide(proof, folder, stem)
    vectors = write_vectors(verdicts, folder / VECTORS)
    result = CoverRun(dut, proof.n, dict(proof.params), proof.depth, str(folder),
                      round(seconds, 1), task_out, verdicts, str(vectors or ""))
    (folder / RESULT).write_text(json.dumps(result.to_json(), indent=1) + "\n")
    return result


def load_runs(results: Path) -> list[CoverRun]:
    """The cover runs of a results folder (<results>/formal-covers/covers.json); a file that
    cannot be read raises ConfigError."""
    out = []
    for path in sorted(results.glob(f"{IN_RESULTS}*/{RESULT}")):
        try:
            out.append(CoverRun.from_json(readback.read_json(path, {"dut": str, "n": int})))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path} is unreadable ({type(exc).__name__}: {exc})") from None
    return out
