"""A mutant's equivalence for all time: k-induction over the miter with register equalities
found by a Houdini loop (regress/formal/formal_equiv.py runs it; docs/mutation.md).

A bounded check of the miter (two copies under the loader's stimulus) says nothing past its
depth, and plain k-induction over it does not close: induction starts from any pair of
states, and two copies with unrelated registers differ soon. What closes it is the relation
between the copies: most registers are equal in both, always or from the first START (or
CLEAR) on. So each register the copies share (same name, same width, after flattening) gets
candidate assertions in the harness:

- `Eq<i>_A`: equal in every cycle after reset;
- `Eq<i>_S<k>_A`: equal from the k-th cycle after the first START or CLEAR (k = 0..3): a
  register whose reset value the mutant changes but START (or CLEAR) reloads;
- `Eq<i>_T<k>_A`: equal from the k-th cycle after the first START (k = 0..3): one that only
  START reloads, where a CLEAR before any START would break the family above;
- and `BusyAfterStart_A`: the original is busy only after a START (induction may otherwise
  start inside an operation no START began, with registers that differ).

Houdini keeps the candidates that hold, all of them proved together with the check itself
(formal_equiv runs the two steps below first at a short depth, then, unless induction
closed there, at the check's full depth; a candidate that failed from reset in the short
check stays dropped):

1. a bounded check from reset to the depth with SBY's `--keep-going`: every candidate that
   fails is dropped; if the check itself (MutantEquivalent_A) fails, the copies differ;
2. induction (`smtbmc --induction`) over what is left, the same depth: each candidate that
   breaks the induction step is dropped, and induction runs again; it closes (the mutant is
   equivalent for all time), or only the check itself breaks it, or the time runs out (the
   mutant is equivalent to the depth of step 1, as a bounded check says).

Sound as k-induction is: what step 2 proves inductive holds in the first `depth` cycles from
reset (step 1 checked every kept candidate and the check itself there), so it holds in every
cycle. A candidate only strengthens the hypothesis once proved; none is assumed.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from montverif.host import processes

CHECK = "MutantEquivalent_A"  # the harness's assertion: no output differs
BUSY = "BusyAfterStart_A"  # a candidate: the original is busy only after a START
SEEN = 4  # candidates from the k-th cycle after the first START (or CLEAR), k < SEEN
FF_TYPES = frozenset({"$dff", "$adff", "$sdff", "$dffe", "$adffe", "$sdffe", "$sdffce",
                      "$aldff", "$aldffe", "$dffsr", "$dffsre", "$ff"})
_GLOB = re.compile(r"[][*?]")  # what a yosys selection reads as a pattern: escaped
_UNNAMEABLE = re.compile(r"[\\\s]")  # a name no selection or escaped identifier can carry
# SBY's summary: a trace, then the assertions that failed in it
_TRACE = re.compile(r"counterexample trace(?: \[\w+\])?: (\S+)")
_FAILED = re.compile(r"failed assertion \S*?\.?(\w+) at ")


@dataclass(frozen=True)
class Register:
    """A register both copies have: its name below each copy (`u_core.acc_q`), its width."""

    name: str
    width: int


@dataclass
class Candidates:
    """The registers and which of their candidates still stand."""

    registers: list[Register]
    dropped: set[str] = field(default_factory=set)

    def labels(self) -> list[str]:
        return [BUSY, *(lab for i in range(len(self.registers)) for lab in _labels(i))]

    def kept(self) -> list[str]:
        return [lab for lab in self.labels() if lab not in self.dropped]


def _labels(i: int) -> list[str]:
    return [f"Eq{i}_A", *(f"Eq{i}_S{k}_A" for k in range(SEEN)),
            *(f"Eq{i}_T{k}_A" for k in range(SEEN))]


# --- the registers --------------------------------------------------------------------------
def registers(netlist: Mapping[str, Any], module: str = "mv_miter") -> list[Register]:
    """The registers of the two copies in the miter's netlist (yosys write_json), paired by
    name and width. A register is named by a public wire that carries exactly its flip-flops'
    outputs (the shortest such name); one without such a wire, or whose name holds a
    backslash or white space, gets no candidate (fewer candidates: still sound)."""
    mod = netlist["modules"][module]
    names: dict[tuple[object, ...], list[str]] = {}
    for name, net in mod["netnames"].items():
        if not net.get("hide_name"):
            names.setdefault(tuple(net["bits"]), []).append(name)
    width: dict[str, int] = {}
    for cell in mod["cells"].values():
        if cell["type"] not in FF_TYPES:
            continue
        q = tuple(cell["connections"]["Q"])
        owned = [n for n in names.get(q, []) if n.startswith(("gold.", "gate."))
                 and not _UNNAMEABLE.search(n)]
        if owned:
            width[min(owned, key=len)] = len(q)
    return [Register(n[len("gold."):], w) for n, w in sorted(width.items())
            if n.startswith("gold.") and width.get("gate." + n[len("gold."):]) == w]


def find_registers(folder: Path, env: dict[str, str], files: list[tuple[str, Path]],
                   script: list[str], limit_s: float) -> list[Register]:
    """Elaborate the miter once with yosys (in folder/registers, the files copied there under
    the names the script reads) and list its registers."""
    work = folder / "registers"
    for dest, src in files:
        (work / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, work / dest)
    (work / "registers.ys").write_text("\n".join(
        [*script, "select mv_miter", "write_json -selected miter.json", ""]))
    done = processes.run([env["YOSYS"], "-q", "-s", "registers.ys"], cwd=work, env=env,
                         capture_output=True, text=True, timeout=limit_s, what="yosys")
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise RuntimeError(f"yosys could not elaborate the miter: {''.join(tail)}")
    return registers(json.loads((work / "miter.json").read_text()))


# --- the harness ----------------------------------------------------------------------------
def expose_line(regs: list[Register]) -> list[str]:
    """The yosys command that makes each register of both copies an output of the miter."""
    if not regs:
        return []
    return ["expose " + " ".join(f"mv_miter/w:{c}.{_escaped(r.name)}"
                                 for r in regs for c in ("gold", "gate"))]


def _escaped(name: str) -> str:
    """A name as a yosys selection reads it literally (`g_pe\\[0\\].x_q`)."""
    return _GLOB.sub(lambda m: "\\" + m.group(0), name)


def checks(cands: Candidates) -> list[tuple[str, str]]:
    """The candidates still standing, (label, condition), each asserted after reset by the
    harness (regress/formal/templates/equiv.sv.j2): the copies' registers are gold_r<i> and
    gate_r<i>, seen_q and started_q the cycles since the first START or CLEAR and since the
    first START (SEEN of them)."""
    kept = set(cands.kept())
    out = [(BUSY, "!core_busy || seen_q[0]")] if BUSY in kept else []
    for i, _reg in enumerate(cands.registers):
        same = f"gold_r{i} == gate_r{i}"
        always, *after = _labels(i)
        if always in kept:
            out.append((always, same))
        for j, lab in enumerate(after):
            flag = "seen_q" if j < SEEN else "started_q"
            if lab in kept:
                out.append((lab, f"!{flag}[{j % SEEN}] || {same}"))
    return out


# --- reading SBY's verdicts -----------------------------------------------------------------
def summary(workdir: Path, status: str, logged: list[str]) -> list[str] | None:
    """SBY's whole summary of a task: the log's summary lines stop after a few failed
    assertions ("and 2 further assertions"); the file named by the status word holds them
    all. None when only the cut one is there (a verdict must not rest on it)."""
    full = workdir / status
    if full.is_file():
        return full.read_text(errors="replace").splitlines()
    return None if any(" further " in line for line in logged) else logged


def failures(lines: list[str]) -> list[tuple[str, str]]:
    """(assertion label, its VCD trace relative to the task's folder) for each failed
    assertion a summary lists."""
    out: list[tuple[str, str]] = []
    trace = ""
    for line in lines:
        if m := _TRACE.search(line):
            if m.group(1).endswith(".vcd"):
                trace = m.group(1)
        elif m := _FAILED.search(line):
            out.append((m.group(1), trace))
    return out

