"""RTL that both simulators accept but Icarus 11 simulates wrongly, found in the text.

One construct so far, measured on this toolchain (docs: ../shared/notes/toolchain-facts.md):

- **A loop variable declared in a `for` header inside a function** (`for (int j = 0; ...)`
  between `function` and `endfunction`). Once the design holds such a function, called or
  only used for a constant, Icarus 11 drops every nonblocking write to an unpacked-array
  element indexed by a `for (int d ...)` variable anywhere else in the design: the registers
  keep their X. scalable_delay's token pipelines are written so, and the RSA core's fast bus
  mode (verif/hdl/mv_product_log.sv, whose `ends_below` had such a loop) then computed every
  mwrkmm product as 0 on Icarus while pin mode and Verilator passed. A variable declared
  with the function's own (`int j; ... for (j = 0; ...)`) is simulated right.

`montverif lint` (`make lint`) runs the check on hdl/ and the testbench's RTL; each finding is
a lint error naming the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from montverif.host.paths import shown

_FUNCTION = re.compile(r"^\s*function\b")
_END = re.compile(r"^\s*endfunction\b")
_HEADER_VAR = re.compile(r"\bfor\s*\(\s*(?:int|integer|logic|bit|byte|shortint|longint)\b")


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int  # 1-based

    def __str__(self) -> str:
        return (f"{shown(self.path)}:{self.line}: a for-loop variable declared in the loop "
                "header inside a function: Icarus 11 then drops nonblocking writes to arrays "
                "indexed by loop variables elsewhere in the design; declare it with the "
                "function's variables (montverif.spec.portability)")


def _code(line: str) -> str:
    """The line without its `//` comment."""
    return line.split("//", 1)[0]


def findings(files: Iterable[Path]) -> list[Finding]:
    """Every for loop with a header-declared variable inside a function, in file order."""
    out: list[Finding] = []
    for path in files:
        inside = False
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = _code(line)
            if _FUNCTION.match(code):
                inside = True
            elif _END.match(code):
                inside = False
            if inside and _HEADER_VAR.search(code):
                out.append(Finding(path, number))
    return out
