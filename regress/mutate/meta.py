"""Build-once-run-many: one "meta-mutant" source per RTL file holds many mutants, each chosen
at run time; with none chosen (or an id it does not hold) the source behaves exactly as the
original.

The selector is one variable of the design's top, `int mv_mut_sel` (`with_selector` adds it
to the top's copy in the build's folder), set at time 0 from the plusarg +MV_MUTANT=<id>; a
run that names a mutant also writes it before each test's reset (verif/mutant.py), so the
runs of several mutants follow one another in one simulator process. Every guard reads it by
an upward reference to the top's module name (`<top>.mv_mut_sel`: the top's instance, the
simulated root or the fast bus mode's u_dut), and every site gets a guard whose arms are the
single mutant's own text at that place:

    stmt  a site in a procedural simple statement (assignment, return, call, case item's
          statement): `begin if (<top>.mv_mut_sel == K) <mutated statement> else <statement>
          end`. Each branch is elaborated on its own, so any change works, widths included.
    cond  a site in the condition of a procedural if/while or a case expression:
          `if (((<top>.mv_mut_sel == K) ? (<mutated cond>) : (<cond>)))`
    assign  a site on the right side of a continuous assign to a vector the module declares
          (`logic [R] y;`, an output port likewise): each right side is assigned to a net
          of y's range, evaluated as its own build evaluates it, and the selector picks one:
          `logic [R] mv_mK, mv_oK; assign mv_mK = <mutated rhs>; assign mv_oK = <rhs>;
          assign y = (<top>.mv_mut_sel == K) ? mv_mK : mv_oK;`. So any change works
          there, widths included. (Not `$bits(y)`: Icarus 11 gives 0, or crashes.)
    expr  a site on the right side of any other continuous assign:
          `assign y = ((<top>.mv_mut_sel == K) ? (<mutated rhs>) : (<rhs>));`

In cond and expr guards both arms of ?: are evaluated in the context of the whole expression,
so they must have the same width and signedness: every operator kind keeps them (a swapped
binary operator stays in its width class, a flipped literal keeps its size, an off-by-one
stays inside its comparison), except a change inside a part-select's bounds, a replication
count or a cast's width; those sites, like every elaboration-time constant, are built on
their own (`guard` says why): module-level code other than `assign` (generate if/for/case,
instance parameters and port connections), case labels, for/repeat/foreach headers and
event controls, the left side of an assign, initial blocks (they may run before the select
is set), functions also used outside procedural code or assigns (constant functions), and
anything outside a module.

Several mutants on one statement or expression are chained (`if (sel == K1) ... else if
(sel == K2) ... else <original>`). Mutated copies are written on one line (their tokens
joined by spaces) so that the original keeps its line numbers.
"""

from __future__ import annotations

import bisect
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from montverif.host import processes
from montverif.host.paths import include_flags
from montverif.regress.mutate.svmut import Site, Token, _mutable, tokens
from montverif.verif.config import MUTANT_PLUSARG, MUTANT_SELECT, NO_MUTANT

SELECT = MUTANT_SELECT
PLUSARG = MUTANT_PLUSARG
DECLARATION = (f" int {SELECT} = {NO_MUTANT}; initial begin if (!$value$plusargs("
               f"\"{PLUSARG}=%d\", {SELECT})) {SELECT} = {NO_MUTANT}; end")

_PROC = frozenset("always always_ff always_comb always_latch initial final".split())
_HEADERS = frozenset("if while for case casez casex repeat foreach @ wait".split())
_STOPS = frozenset("; begin end else endcase fork join join_any join_none".split()) | _PROC
_COMPOUND = frozenset("""if for while case casez casex repeat foreach forever do fork begin
    end else unique priority assert assume cover""".split())
_OPEN = frozenset(["(", "[", "{", "'{"])
_CLOSE = frozenset([")", "]", "}"])


@dataclass(frozen=True)
class Guard:
    """How one site is selected at run time: text[start:end] of its file is the guarded span
    (a statement, a parenthesised condition, an assign's right side, or a whole assign whose
    `=` is at offset `eq` and whose left side is declared with the packed range `width`)."""

    kind: str  # "stmt", "cond", "expr", "assign"
    start: int
    end: int
    eq: int = -1
    width: str = ""


class FileScan:
    """One source file's tokens with, per token, its scope: "none" (outside a module),
    "module" (module-level code), "assign" (a continuous assign), "init" (an initial or final
    block) or "proc" (an always block, function or task), the function it is in, and the
    module headers' ends."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokens(text)
        self.ok = _mutable(self.toks)
        n = len(self.toks)
        self.match = [-1] * n
        stack: list[int] = []
        for i, t in enumerate(self.toks):
            if t.text in _OPEN:
                stack.append(i)
            elif t.text in _CLOSE and stack:
                j = stack.pop()
                self.match[i], self.match[j] = j, i
        self.scope = ["none"] * n
        self.func = [""] * n
        self.decl = [-1] * n  # per token: offset after its module's header
        self._scan()
        self.const_funcs = self._constant_functions()
        self.starts = [t.start for t in self.toks]

    def _semi(self, i: int) -> int:
        """Index of the first `;` at bracket depth 0 from toks[i] (the last token if none)."""
        j = i
        while j < len(self.toks):
            if self.toks[j].text in _OPEN and self.match[j] > j:
                j = self.match[j]
            elif self.toks[j].text == ";":
                return j
            j += 1
        return len(self.toks) - 1

    def _block_end(self, i: int, opener: str, closers: tuple[str, ...]) -> int:
        depth = 0
        for j in range(i, len(self.toks)):
            t = self.toks[j].text
            if t == opener or (opener == "begin" and t == "fork"):
                depth += 1
            elif t in closers:
                depth -= 1
                if depth == 0:
                    return j
        return len(self.toks) - 1

    def _scan(self) -> None:
        toks = self.toks
        i = 0
        decl = -1
        while i < len(toks):
            t = toks[i].text
            if t in ("module", "macromodule") and toks[i].kind == "id":
                k = i + 2  # after the name: package imports, then parameters and ports
                while k < len(toks) and toks[k].text == "import":
                    k = self._semi(k) + 1
                end = self._semi(k)
                decl = toks[end].end
                self._mark(i, end, "module", "", decl)
                i = end + 1
            elif t == "endmodule" or decl < 0:
                self.scope[i] = "none"
                decl = -1 if t == "endmodule" else decl
                i += 1
            elif t in _PROC:
                j = i + 1
                if j < len(toks) and toks[j].text == "@":
                    j += 1
                    if j < len(toks) and toks[j].text == "(":
                        j = self.match[j] + 1 if self.match[j] > j else j + 1
                    elif j < len(toks) and toks[j].text == "*":
                        j += 1
                end = (self._block_end(j, "begin", ("end", "join", "join_any", "join_none"))
                       if j < len(toks) and toks[j].text == "begin" else self._semi(j))
                self._mark(i, end, "init" if t in ("initial", "final") else "proc", "", decl)
                i = end + 1
            elif t in ("function", "task"):
                end = self._block_end(i, t, (f"end{t}",))
                self._mark(i, end, "proc", self._name(i), decl)
                i = end + 1
            elif t == "assign":
                end = self._semi(i)
                self._mark(i, end, "assign", "", decl)
                i = end + 1
            else:
                self._mark(i, i, "module", "", decl)
                i += 1

    def _mark(self, a: int, b: int, scope: str, func: str, decl: int) -> None:
        for k in range(a, b + 1):
            self.scope[k], self.func[k], self.decl[k] = scope, func, decl

    def _name(self, i: int) -> str:
        """The name of the function or task whose header starts at toks[i]."""
        j = i + 1
        while j < len(self.toks) and self.toks[j].text not in ("(", ";"):
            if self.toks[j].text == "[" and self.match[j] > j:
                j = self.match[j]
            j += 1
        return self.toks[j - 1].text if j - 1 > i else ""

    def _constant_functions(self) -> frozenset[str]:
        """Functions named anywhere but in procedural code or an assign's right side (a
        declaration, a generate condition, an instance parameter): maybe constant functions,
        which cannot read mv_mut_sel."""
        names = {f for f in self.func if f}
        used = set()
        for i, t in enumerate(self.toks):
            if t.text in names and t.kind == "id" and (
                    self.scope[i] not in ("proc", "assign") or not self.ok[i]) and \
                    not (i > 0 and self.toks[i - 1].text in ("function", "task")) and \
                    self.func[i] != t.text:
                used.add(t.text)
        return frozenset(used)

    def index(self, offset: int) -> int:
        i = bisect.bisect_left(self.starts, offset)
        return i if i < len(self.toks) and self.toks[i].start == offset else -1


@functools.cache
def scan(text: str) -> FileScan:
    return FileScan(text)


def guard(text: str, site: Site) -> Guard | str:
    """How the site is selected at run time in a meta-mutant source, or why it cannot be
    (then the mutant is built on its own)."""
    f = scan(text)
    a = f.index(site.start)
    b = next((k for k in range(max(a, 0), len(f.toks)) if f.toks[k].end == site.end), -1)
    if a < 0 or b < 0:
        return "site not on token boundaries"
    scope = f.scope[a]
    if scope == "none" or f.decl[a] < 0:
        return "outside a module"
    if any(f.scope[k] != scope for k in range(a, b + 1)):
        return "crosses a statement"
    if f.func[a] in f.const_funcs:
        return f"in function {f.func[a]}, which is also used in constant expressions"
    if scope == "module":
        return "module-level code (generate condition, instance parameter or connection)"
    if scope == "init":
        return "in an initial block (it may run before mv_mut_sel is set)"
    if scope == "assign":
        return _assign_guard(f, site, a, b)
    return _proc_guard(f, site, a, b)


def _assign_guard(f: FileScan, site: Site, a: int, b: int) -> Guard | str:
    k = a
    while k > 0 and f.toks[k].text != "assign":
        k -= 1
    eq = k
    while eq < len(f.toks) and f.toks[eq].text != "=":
        eq = f.match[eq] if f.toks[eq].text in _OPEN and f.match[eq] > eq else eq
        eq += 1
    semi = f._semi(eq)
    if a <= eq:
        return "left side of an assign"
    if b >= semi or eq + 1 >= semi:
        return "crosses a statement"
    if any(f.toks[j].text == "," for j in _depth0(f, eq + 1, semi)):
        return "assign of several nets"
    # one kind per statement, whatever the site: guarded spans of one assign never overlap
    width = _declared_range(f, k + 1) if eq == k + 2 and f.toks[k + 1].kind == "id" else None
    if width is not None:
        g = _checked(f, "assign", k, semi, a, b)
        return g if isinstance(g, str) else \
            Guard("assign", g.start, g.end, f.toks[eq].start, width)
    if (why := _width_change(f, site, a, b)) is not None:
        return why
    return _checked(f, "expr", eq + 1, semi - 1, a, b)


_TYPES = frozenset("logic wire reg bit signed unsigned".split())
_AFTER_NAME = frozenset([",", ";", ")"])


def _declared_range(f: FileScan, at: int) -> str | None:
    """The packed range of the vector named by toks[at], from its one declaration in the
    module (`logic [N-1:0] a, b;`, `output logic [W-1:0] y_o,`): its text, "" for one bit,
    None when there is no such declaration or more than one, or the type is another
    (a typedef, an unpacked array, several packed dimensions)."""
    toks, name = f.toks, f.toks[at].text
    found: list[str | None] = []
    for i, t in enumerate(toks):
        if t.text != name or t.kind != "id" or f.decl[i] != f.decl[at] or i == at:
            continue
        j = i - 1
        while j > 1 and toks[j].text == "," and toks[j - 1].kind == "id":
            j -= 2
        if toks[j].text in _TYPES:
            found.append("" if i + 1 < len(toks) and toks[i + 1].text in _AFTER_NAME else None)
        elif toks[j].text == "]" and (m := f.match[j]) > 0 and toks[m - 1].text in _TYPES:
            found.append(f.text[toks[m].start:toks[j].end]
                         if i + 1 < len(toks) and toks[i + 1].text in _AFTER_NAME else None)
    return found[0] if len(found) == 1 else None


def _depth0(f: FileScan, lo: int, hi: int) -> Iterator[int]:
    """Indices in [lo, hi) at bracket depth 0 relative to lo."""
    j = lo
    while j < hi:
        yield j
        j = f.match[j] + 1 if f.toks[j].text in _OPEN and f.match[j] > j else j + 1


def _proc_guard(f: FileScan, site: Site, a: int, b: int) -> Guard | str:
    if site.kind == "invert_if":  # the site is the condition's parentheses
        return _checked(f, "cond", a, b, a, b)
    if (why := _in_header(f, a, b)) is not None:
        return why
    start = _statement_start(f, site, a, b)
    return start if not isinstance(start, int) else _statement_guard(f, start, a, b)


def _in_header(f: FileScan, a: int, b: int) -> str | None:
    """Why a procedural site cannot be guarded for sitting in a loop header or an event
    control (a loop header's `;` must not end the statement walk), else None."""
    toks = f.toks
    for o in range(a - 1, -1, -1):
        if f.scope[o] != "proc" or toks[o].text in ("begin", "end"):
            break
        if toks[o].text == "(" and f.match[o] > b and o > 0 and \
                toks[o - 1].text in ("for", "repeat", "foreach", "wait", "@"):
            return f"in a {toks[o - 1].text} header" if toks[o - 1].text != "@" else \
                "in an event control"
    return None


def _statement_start(f: FileScan, site: Site, a: int, b: int) -> int | Guard | str:
    """The first token of the procedural statement the site is in, walking left over
    balanced brackets; an `if`/`case` condition the site sits in is its guard at once, a
    header the reason it has none."""
    toks = f.toks
    j = a - 1
    while j >= 0:
        t = toks[j].text
        if f.scope[j] != "proc":
            return j + 1
        if t in _CLOSE:
            o = f.match[j]
            if o < 0:
                return "unbalanced brackets"
            if o > 0 and toks[o - 1].text in _HEADERS:
                return j + 1
            j = o - 1
            continue
        if t in _OPEN:  # an opener left of the site, not closed before it: the site is inside
            prev = toks[j - 1].text if j > 0 else ""
            if prev in ("if", "while", "case", "casez", "casex"):
                if (why := _width_change(f, site, a, b)) is not None:
                    return why
                return _checked(f, "cond", j, f.match[j], a, b)
            if prev in _HEADERS:
                return f"in a {prev} header" if prev != "@" else "in an event control"
            j -= 1
            continue
        if t in _STOPS:
            if t in ("begin", "end") and j + 2 < len(toks) and toks[j + 1].text == ":":
                return j + 3
            return j + 1
        j -= 1
    return 0


def _statement_guard(f: FileScan, start: int, a: int, b: int) -> Guard | str:
    """The guard of the simple statement from toks[start] to its `;` (after a case item's
    label), or why there is none."""
    toks = f.toks
    semi = start
    for k in _depth0(f, start, len(toks)):
        semi = k
        if toks[k].text == ";" or (k > b and toks[k].text in _COMPOUND):
            break
    if toks[semi].text != ";" or semi < b:
        return "not in a simple statement"
    first = start
    pending = 0
    for k in _depth0(f, start, semi):
        if toks[k].text == "?":
            pending += 1
        elif toks[k].text == ":":
            if pending:
                pending -= 1
            else:  # a case item's label ends here
                if a <= k:
                    return "case label"
                first = k + 1
                break
    if first >= semi or toks[first].text in _COMPOUND:
        return "not in a simple statement"
    return _checked(f, "stmt", first, semi, a, b)


def _checked(f: FileScan, kind: str, lo: int, hi: int, a: int, b: int) -> Guard | str:
    if not lo <= a <= b <= hi:
        return "crosses a statement"
    if any(f.toks[k].kind == "dir" for k in range(lo, hi + 1)):
        return "a macro or directive in the statement"
    return Guard(kind, f.toks[lo].start, f.toks[hi].end)


def _width_change(f: FileScan, site: Site, a: int, b: int) -> str | None:
    """Why the change may alter the width of the expression it is in (None if it cannot):
    inside a part-select's bounds, a replication count or a cast's width."""
    toks = f.toks
    for o in range(a - 1, -1, -1):
        if f.scope[o] != f.scope[a] or toks[o].text == ";":
            break
        c = f.match[o]
        if toks[o].text not in _OPEN or c < b:
            continue
        inner = _depth0(f, o + 1, c)
        if toks[o].text == "[" and any(toks[k].text in (":", "+:", "-:") for k in inner):
            return "changes a part-select's width"
        if toks[o].text == "{":
            braces = [k for k in inner if toks[k].text == "{"]
            if braces and a < braces[0] and not any(toks[k].text == "," for k in inner
                                                    if k < braces[0]):
                return "changes a replication count"
        if toks[o].text == "(" and c + 1 < len(toks) and toks[c + 1].text == "'":
            return "changes a cast's width"
    return None


def flat(text: str) -> str:
    """The text on one line: comments dropped, whitespace between tokens one space, tokens
    that touch still touching."""
    out = []
    prev: Token | None = None
    for t in tokens(text):
        out.append(("" if prev is None or prev.end == t.start else " ") + t.text)
        prev = t
    return "".join(out)


def meta_source(text: str, mutants: list[tuple[int, Site, Guard]], top: str) -> str:
    """The file with every given mutant guarded by `<top>.mv_mut_sel == its id` (guards from
    `guard` on this text; mutants whose guarded spans overlap must share one span); `top` is
    the module name of the design's top, which holds the selector (with_selector)."""
    sel = f"{top}.{SELECT}"
    spans: dict[tuple[int, int], list[tuple[int, Site, Guard]]] = {}
    for mid, site, g in mutants:
        spans.setdefault((g.start, g.end), []).append((mid, site, g))
    keys = sorted(spans)
    for (s0, e0), (s1, _) in zip(keys, keys[1:], strict=False):
        if s1 < e0:
            raise ValueError(f"overlapping guarded spans at offsets {s0} and {s1}")
    edits: list[tuple[int, int, str]] = []
    for (start, end), group in spans.items():
        kind = group[0][2].kind
        original = text[start:end]
        arms = []
        for mid, site, _ in sorted(group, key=lambda x: x[0]):
            arms.append((mid, flat(text[start:site.start] + site.replacement
                                    + text[site.end:end])))
        if kind == "stmt":
            new = "begin " + "".join(f"if ({sel} == {mid}) {arm} else "
                                     for mid, arm in arms) + original + " end"
        elif kind == "cond":
            new = "(" + "".join(f"({sel} == {mid}) ? {arm} : "
                                for mid, arm in arms) + original + ")"
        elif kind == "assign":
            new = _assign_arms(text, group[0][2], sel, group)
        else:
            new = "(" + "".join(f"({sel} == {mid}) ? ({arm}) : "
                                for mid, arm in arms) + f"({original}))"
        edits.append((start, end, new))
    out = text
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + new + out[end:]
    assert out.count("\n") == text.count("\n") or not scan(text).toks
    return out


def _assign_arms(text: str, g: Guard, sel: str,
                 group: list[tuple[int, Site, Guard]]) -> str:
    """A guarded continuous assign: each right side (the mutants' flattened, the original's
    verbatim, so the lines stay) assigned to a net of the left side's range, and the left
    side assigned the one the selector picks."""
    lhs = text[g.start + len("assign"):g.eq]
    rhs, stop = g.eq + 1, g.end - 1  # the right side, without the `;`
    mids = sorted(mid for mid, _, _ in group)
    orig = f"mv_o{mids[0]}"
    out = f"logic {g.width + ' ' if g.width else ''}" + ", ".join(
        [*(f"mv_m{mid}" for mid in mids), orig]) + ";"
    for mid, site, _ in sorted(group, key=lambda x: x[0]):
        arm = flat(text[rhs:site.start] + site.replacement + text[site.end:stop])
        out += f" assign mv_m{mid} = {arm};"
    pick = "".join(f"({sel} == {mid}) ? mv_m{mid} : " for mid in mids)
    return out + f" assign {orig} ={text[rhs:stop]}; assign{lhs}= {pick}{orig};"


def with_selector(text: str, top: str) -> str:
    """The top's source with the selector declared after its header, on the header's last
    line (so the top keeps its line numbers): `int mv_mut_sel`, the original's value until
    the plusarg or a run sets it."""
    f = scan(text)
    at = next((f.decl[i] for i, t in enumerate(f.toks)
               if t.text == top and i > 0 and f.toks[i - 1].text in ("module", "macromodule")),
              -1)
    if at < 0:
        raise ValueError(f"no module {top} in the top's source")
    return text[:at] + DECLARATION + text[at:]


# --- the stillborn check: does the single mutant elaborate? --------------------------------
# Seconds an elaboration may take: the designs elaborate in about a second; a mutant that
# makes a constant function loop forever (mont_dual_mul.sv's `while (r > 2)` -> `r > 1`)
# keeps Icarus elaborating for ever, where Verilator stops with an error.
ELABORATION_LIMIT_S = 60.0
ELABORATION_TIMEOUT = "elaboration did not end within"


def run_limited(cmd: list[str], limit_s: float) -> subprocess.CompletedProcess[str] | None:
    """cmd's result, or None when it ran longer than limit_s (then it is killed, with the
    processes it started: iverilog runs its preprocessor and compiler in a pipe)."""
    try:
        return processes.run(cmd, capture_output=True, text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        return None


def iverilog_command(tmp: Path, sources: list[Path], toplevel: str,
                     parameters: dict[str, int], target: list[str]) -> list[str]:
    """iverilog's command line for the sources with the build's toplevel, parameters and
    timescale (its command file in `tmp`), `target` naming the output (-t null, -o FILE)."""
    cmds = tmp / "cmds.f"
    cmds.write_text("+timescale+1ns/1ps\n")
    cmd = ["iverilog", "-g2012", *target, "-s", toplevel, "-f", str(cmds), *include_flags()]
    cmd += [f"-P{toplevel}.{k}={v}" for k, v in parameters.items()]
    return cmd + [str(s) for s in sources]


def elaboration_error(sim_name: str, sources: list[Path], toplevel: str,
                      parameters: dict[str, int],
                      limit_s: float = ELABORATION_LIMIT_S) -> str | None:
    """Elaborate the sources on the campaign's simulator without compiling a build (Icarus:
    `iverilog -g2012 -t null`, Verilator: `--lint-only -Wno-fatal`, with the build's
    toplevel and parameters); the first error line, or None when they elaborate. An
    elaboration still running after limit_s is stopped and is an error of its own."""
    if sim_name == "icarus":
        with tempfile.TemporaryDirectory() as tmp:
            cmd = iverilog_command(Path(tmp), sources, toplevel, parameters, ["-t", "null"])
            proc = run_limited(cmd, limit_s)
    else:
        root = os.environ.get("VERILATOR_ROOT", "")
        exe = str(Path(root) / "bin" / "verilator") if root else \
            (shutil.which("verilator") or "verilator")
        cmd = [exe, "--lint-only", "-Wno-fatal", "--top-module", toplevel,
               "--timescale", "1ns/1ps", *include_flags()]
        cmd += [f"-G{k}={v}" for k, v in parameters.items()]
        proc = run_limited(cmd + [str(s) for s in sources], limit_s)
    if proc is None:
        return f"{ELABORATION_TIMEOUT} {limit_s:.0f} s (a loop without end at elaboration?)"
    if proc.returncode == 0:
        return None
    lines = (proc.stderr + proc.stdout).splitlines()
    first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    return (first.strip() or f"elaboration failed (exit code {proc.returncode})")[:200]
