"""The Jinja2 set-up of montverif's generated SystemVerilog: each generating module loads its
templates (<module's folder>/templates/*.sv.j2, package data) through one environment made
here. The templates hold the text; the modules decide what goes in it and pass plain data
(strings, numbers, lists of them).

Settings: the text as written (no HTML escaping, a template's last newline kept), a block
tag's line left out of the output (trim_blocks, lstrip_blocks), and a name the module did not
pass is an error, never an empty string (StrictUndefined)."""

from __future__ import annotations

from pathlib import Path

import jinja2


def environment(folder: Path) -> jinja2.Environment:
    """The environment of the templates in `folder` (a module's templates/ folder)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder),
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined, autoescape=False)
