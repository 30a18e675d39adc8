"""Which module declares a signal named by its instance path inside a design's top (e.g.
"u_core.u_ctrl.u_observe.lut_hits_q": the module of instance u_observe), read from the RTL
(lowRISC: one module per file, named as the file).

The Verilator build makes the signals the testbench probes visible through VPI
(regress/flow/build.py, vpi_control). Made visible by name in every module, a probed name
that is common (s_q, x_q, p_q) also froze the registers of that name in every multiplier
inside the RSA core, which Verilator then could not optimise: its engine build ran at twice
the raw harness's time per cycle at N = 1024. Named in its own module, only the probed
signal is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from montverif.spec.top import preprocess

_IDENT = re.compile(r"[A-Za-z_]\w*$")


def _skip_back(text: str, i: int) -> int:
    """The index of the last non-blank character at or before i (-1: none)."""
    while i >= 0 and text[i].isspace():
        i -= 1
    return i


def _open_paren(text: str, close: int) -> int:
    """The index of the "(" matching the ")" at text[close] (-1: none)."""
    depth = 0
    for i in range(close, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    return -1


def instance_module(text: str, instance: str, modules: set[str]) -> str | None:
    """The module that `text` (one module's preprocessed source) instantiates as `instance`:
    `<module> [#(...)] <instance> (`, the module one of `modules`; None: no such instance."""
    for m in re.finditer(rf"\b{re.escape(instance)}\s*\(", text):
        i = _skip_back(text, m.start() - 1)
        if i >= 0 and text[i] == ")":  # a parameter list: #( ... )
            i = _skip_back(text, _open_paren(text, i) - 1)
            if i < 0 or text[i] != "#":
                continue
            i = _skip_back(text, i - 1)
        word = _IDENT.search(text[max(0, i - 200):i + 1])
        if word and word.group(0) in modules:
            return word.group(0)
    return None


def declaring_module(path: str, top_module: str, sources: Sequence[Path]) -> str | None:
    """The module that declares the last element of `path`, a dotted path from an instance
    of `top_module`: each instance along it followed to its module, a generate block's label
    (`begin : g_one`) staying in its module. None when an element is neither, or a module
    has no source of its own (the caller then names the signal in every module)."""
    files = {src.stem: src for src in sources}
    module = top_module
    for part in path.split(".")[:-1]:
        src = files.get(module)
        if src is None:
            return None
        text = preprocess(src)
        inner = instance_module(text, part, set(files))
        if inner is not None:
            module = inner
        elif not re.search(rf":\s*{re.escape(part)}\b", text):
            return None
    return module
