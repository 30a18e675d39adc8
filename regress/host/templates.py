"""The Jinja2 set-up of montverif's generated text, the SystemVerilog and report.html: each
generating module renders its templates (<module's folder>/templates/*.j2, package data)
through one environment per folder made here. The templates hold the text; the modules decide
what goes in it and pass plain data (strings, numbers, lists and dicts of them).

Settings: the text as written (no HTML escaping, a template's last newline kept), a block
tag's line left out of the output (trim_blocks, lstrip_blocks), and a name the module did not
pass is an error, never an empty string (StrictUndefined). An HTML template escapes what it
puts in the page itself, with the filter `h` (html.escape: & < > " ' as &amp; &lt; &gt; &quot;
&#x27;, where Jinja2's own `e` writes &#34; and &#39;); autoescape stays off for all.

Jinja2 is imported at the first render, not with the modules that render: a simulation's
processes import them (for their layouts and names) and never render (about 0.02 to 0.035 s
of each process's start)."""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path
from typing import Any


def render(folder: Path, template: str, /, **data: Any) -> str:
    """Template `template` of `folder` (a module's templates/ folder) filled with `data`."""
    return _environment(folder).get_template(template).render(**data)


@cache
def _environment(folder: Path) -> Any:
    """The environment of the templates in `folder` (a jinja2.Environment)."""
    import jinja2  # noqa: PLC0415 - heavy: imported only to render

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder),
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined, autoescape=False)
    env.filters["h"] = escape_html
    return env


def escape_html(value: object) -> str:
    """`value` as HTML text: html.escape of its str (the filter `h`)."""
    return html.escape(str(value))
