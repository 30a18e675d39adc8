"""Copied blocks between the hand-written RTL files: the same statements written twice.

A design is its core RTL, and what two designs share is a shared piece (hdl/common/, a
family's shared modules), never a copy. This check finds copies: a run of at least
`MIN_LINES` consecutive *statements* that stand, the same, in two files. A statement is a
source line with its `//` comment removed and its whitespace collapsed, except that:

- a line of only punctuation and block keywords (`end`, `endcase`, `);`, ...) is passed over,
  like blank lines and comments: the closing lines every block has do not make two files
  alike, and a copy interrupted only by them is still one run;
- a declaration (`logic`, `localparam`, a port or parameter, an `include, the port-list macros
  of hdl/common/mv_core_ports.svh) is passed over: every module declares its own names, and
  two datapaths of one family declaring the same registers share no logic;
- an instance of a module is one statement, from its module name to its `);`: using a shared
  piece is what the check asks for, so the connection list of an instance does not count line
  by line.

Generated files (the register-map package) and the formal harnesses (which restate the
loader's protocol on purpose) are not read. Copies inside one file are not what this check is
for (`copies(..., within=True)` lists them too).

`montverif lint` (`make lint`) runs it on hdl/; each copy is a lint error naming both places.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from montverif.host.paths import HDL, shown

MIN_LINES = 6
# not read: written by a generator, or restating another file's contract on purpose
SKIPPED = ("common/mv_regmap_pkg.sv", "formal/", "cores/")
# a line of only these (and punctuation) carries no statement of its own
_THIN = re.compile(r"^(?:(?:end|begin|else|endcase|endmodule|endfunction|endtask|endgenerate"
                   r"|`endif|`else)\b|[\s()\[\]{};,:])*$")
# a declaration: names, not logic
_DECL = re.compile(r"^(?:logic|wire|reg|bit|int|integer|localparam|parameter|input|output|inout"
                   r"|typedef|genvar|import|`include|`MV_CORE_\w*PORTS)\b")
# the first line of a module instance: `name #(` or `name u_x (`
_INSTANCE = re.compile(r"^[A-Za-z_]\w* (?:#\s*\(|u_\w+\s*\()")


@dataclass(frozen=True)
class Line:
    number: int  # 1-based line in the file
    text: str  # the statement, comment removed, whitespace collapsed


@dataclass(frozen=True)
class Copy:
    """`lines` statement lines of `a` from line `a_first` to `a_last` stand again in `b`."""

    a: Path
    a_first: int
    a_last: int
    b: Path
    b_first: int
    b_last: int
    lines: int

    def __str__(self) -> str:
        return (f"{shown(self.a)}:{self.a_first}-{self.a_last} ~ "
                f"{shown(self.b)}:{self.b_first}-{self.b_last}: {self.lines} statement lines "
                "copied (make one shared piece of them)")


def statements(text: str) -> list[Line]:
    """The statements of a source text (the module docstring's rules), each numbered by its
    first line."""
    out: list[Line] = []
    instance: list[str] = []  # the lines of an instance so far
    first = 0
    for k, raw in enumerate(text.splitlines(), 1):
        line = " ".join(raw.split("//", 1)[0].split())
        if instance:
            instance.append(line)
            if line.endswith(");"):
                out.append(Line(first, " ".join(instance)))
                instance = []
            continue
        if not line or _THIN.match(line) or _DECL.match(line):
            continue
        if _INSTANCE.match(line) and not line.endswith(");"):
            instance, first = [line], k
            continue
        out.append(Line(k, line))
    return out


def rtl_files(root: Path = HDL) -> list[Path]:
    """The hand-written RTL under `root` (.sv, .svh), without the SKIPPED ones and those of a
    hidden folder (new-design's staging folder, montverif.spec.scaffold)."""
    files = sorted(p for ext in ("*.sv", "*.svh") for p in root.rglob(ext))
    return [p for p in files
            if not any(p.relative_to(root).as_posix().startswith(s) for s in SKIPPED)
            and not any(part.startswith(".") for part in p.relative_to(root).parts)]


def _pairs(a: Sequence[Line], b: Sequence[Line], same_file: bool) -> Iterable[tuple[int, int, int]]:
    """(i, j, length) of each maximal run of equal statements a[i:i+length] == b[j:j+length]
    of at least MIN_LINES (in one file: runs at two different places, not overlapping)."""
    where: dict[str, list[int]] = {}
    for j, line in enumerate(b):
        where.setdefault(line.text, []).append(j)
    for i, line in enumerate(a):
        for j in where.get(line.text, ()):
            if same_file and j <= i:
                continue
            if i and j and a[i - 1].text == b[j - 1].text:
                continue  # inside a longer run
            n = 0
            while i + n < len(a) and j + n < len(b) and a[i + n].text == b[j + n].text:
                if same_file and i + n >= j:
                    break
                n += 1
            if n >= MIN_LINES:
                yield i, j, n


def copies(files: Sequence[Path], within: bool = False) -> list[Copy]:
    """Every copied block between two of `files` (and inside one, when `within`)."""
    parsed = [(f, statements(f.read_text())) for f in files]
    found: list[Copy] = []
    for k, (fa, sa) in enumerate(parsed):
        for fb, sb in parsed[k if within else k + 1:]:
            for i, j, n in _pairs(sa, sb, fa == fb):
                found.append(Copy(fa, sa[i].number, sa[i + n - 1].number,
                                  fb, sb[j].number, sb[j + n - 1].number, n))
    return found
