"""A mutant in the condition of a generate `if`, at a parameter point where the mutated
condition has the original's truth value: the same generate branch is elaborated, so the
design there is the original's, and so are its runs. Such a mutant needs no build nor run at
that point; most of them are parameter checks (`if (W < 1 || W > V) begin : g_bad_w initial
$fatal ...`) whose mutants agree with the original at every legal point.

Whether the two agree at a point is read from the point's own elaboration, not computed
here: a probe copy of the file gets, on the `if`'s own line and in its scope,

    initial $display("MV_PROBE %0d", ((!(<condition>)) != (!(<mutated condition>))));

which Icarus compiles with the point's parameters and runs to time 0 without a testbench.
Every line it prints must say 0 (an `if` inside a generate loop prints once per iteration),
and the run must end cleanly; anything else (a compile error, a fatal, no line) leaves the
point to a real build and run, as for any other mutant fixed at elaboration."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from montverif.regress.mutate.meta import (
    ELABORATION_LIMIT_S,
    flat,
    iverilog_command,
    run_limited,
    scan,
)
from montverif.regress.mutate.svmut import Site

PROBE = "MV_PROBE"
_LINE = re.compile(rf"^{PROBE} (\d+)$", re.M)


def probe_source(text: str, site: Site) -> str | None:
    """The file with the probe before the generate `if` whose condition holds the site (the
    file's line numbers kept), or None when the site is not in such a condition: not at
    module level, in an `else if` (no statement may go between `else` and `if`), or not
    inside the parentheses right after `if`."""
    f = scan(text)
    a = f.index(site.start)
    b = next((k for k in range(max(a, 0), len(f.toks)) if f.toks[k].end == site.end), -1)
    if a < 0 or b < 0 or f.scope[a] != "module":
        return None
    for o in range(a, -1, -1):  # from the site itself: an inverted `if` is its parentheses
        t = f.toks[o].text
        if f.scope[o] != "module" or t in (";", "begin", "end"):
            return None
        if t == "(" and f.match[o] >= b and o > 0 and f.toks[o - 1].text == "if":
            break
    else:
        return None
    head, close = o - 1, f.match[o]
    if head > 0 and f.toks[head - 1].text == "else":
        return None
    lo, hi = f.toks[o].start, f.toks[close].end
    original = flat(text[lo:hi])
    mutated = flat(text[lo:site.start] + site.replacement + text[site.end:hi])
    probe = (f'initial $display("{PROBE} %0d", ((!{original}) != (!{mutated}))); ')
    at = f.toks[head].start
    return text[:at] + probe + text[at:]


@dataclass(frozen=True)
class Probe:
    """What a probe found at one point: `same` when the mutated condition agrees with the
    original's there (the design is the original's), else `why` says what was seen."""

    same: bool
    why: str = ""


def probe(sources: list[Path], toplevel: str, parameters: dict[str, int],
          limit_s: float = ELABORATION_LIMIT_S) -> Probe:
    """Compile the sources (one of them a probe_source copy) with Icarus and run them to time
    0; the probe's verdict."""
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "probe.vvp"
        built = run_limited(iverilog_command(Path(tmp), sources, toplevel, parameters,
                                             ["-o", str(model)]), limit_s)
        if built is None or built.returncode != 0:
            return Probe(False, "the probe did not compile")
        ran = run_limited(["vvp", "-n", str(model)], limit_s)
    if ran is None or ran.returncode != 0:
        return Probe(False, "the probe did not run to its end")
    values = _LINE.findall(ran.stdout)
    if not values:
        return Probe(False, "the probe printed nothing")
    if any(v != "0" for v in values):
        return Probe(False, "the mutated condition differs there")
    if re.search(r"\b(FATAL|ERROR)\b", ran.stdout + ran.stderr):
        return Probe(False, "the probe's run reported an error")
    return Probe(True)
