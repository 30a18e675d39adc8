"""Every clock figure a hand-written page quotes (a period or delay in ns, a frequency in MHz,
outside the blocks `montverif` generates) is held by one source: a result of
regress/synth/synth-results.json (7-series or ECP5, rounded as the page rounds it), a paper's figure
of docs/papers/figures.toml as the paper prints it, or one of the settings below (a
constraint, a limit, a waveform window, a derivation the page shows). A figure measured at an
old revision and not recorded, or restated from memory, fails (issue 62, item 1)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from montverif.host import pages as generated_pages
from montverif.host.paths import ROOT
from montverif.regress.synth import synth_results

FIGURE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?) ?(ns|MHz)\b")
GENERATED = re.compile(r"<!-- ([\w-]+):begin")
FIGURES_TOML = ROOT / "docs" / "papers" / "figures.toml"

# Figures that are not measurements: (page, figure as written) -> what it is. A derivation
# names its operands on the same line of the page.
SETTINGS: dict[tuple[str, str], str] = {
    ("docs/synth.md", "200 MHz"): "nextpnr's default constraint (--freq)",
    ("docs/synth.md", "1000 MHz"): "the largest --freq accepted",
    ("docs/running.md", "1000 MHz"): "the largest --freq accepted",
    ("docs/regression.md", "400 ns"): "the waveform view's window before the first error",
    ("docs/unfolded.md", "5.54 ns"): "2 x 2.77 ns, derived on the line",
    ("docs/papers.md", "715 MHz"): "derived on the line from the slide's 63 ns",
}


def pages() -> list[Path]:
    """README and the docs written by hand (a generated page is its results file's)."""
    return [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
            if not generated_pages.is_generated(p)]


def handwritten_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of the text outside its generated blocks (`<!-- name:begin` ...
    `<!-- name:end -->`) and code blocks."""
    block, code = "", False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            code = not code
        found = GENERATED.search(line)
        if found:
            block = found.group(1)
        elif block and f"<!-- {block}:end" in line:
            block = ""
        elif not block and not code:
            yield number, line


def quoted(page: Path) -> list[tuple[int, str, str, str]]:
    """(line, figure as written, its digits without separators, unit) of every clock figure
    of the page's hand-written text."""
    return [(n, m.group(0), m.group(1).replace(",", ""), m.group(2))
            for n, line in handwritten_lines(page.read_text())
            for m in FIGURE.finditer(line)]


def _numbers(value: object) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)


def measured(path: Path = synth_results.DEFAULT) -> list[float]:
    """Every timing figure of the results file (both targets), and each period as a clock."""
    out: list[float] = []
    results = synth_results.load(path)
    for target in results.values():
        for result in target:
            timing = result.get("timing", {})
            out += list(_numbers(timing))
            for key in ("period_floor_ns", "path_ns", "logic_delay_ns"):
                period = timing.get(key) if isinstance(timing, dict) else None
                if isinstance(period, int | float) and period > 0:
                    out.append(1000.0 / period)
    return out


def printed(path: Path = FIGURES_TOML) -> set[str]:
    """Every figure the papers print, as figures.toml quotes it (digits, no separators)."""
    out: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.update(d.replace(",", "") for d in
                       re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", value))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.add(str(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    walk(tomllib.loads(path.read_text()))
    return out


def held(digits: str, values: list[float]) -> bool:
    """`digits` (a figure as the page rounds it) is one of `values` rounded alike."""
    places = len(digits.partition(".")[2])
    return any(f"{v:.{places}f}" == digits for v in values)


def unheld(page_list: list[Path], values: list[float], paper: set[str]) -> list[str]:
    bad = []
    for page in page_list:
        name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
        for line, written, digits, _unit in quoted(page):
            if (name, written) in SETTINGS or digits in paper or held(digits, values):
                continue
            bad.append(f"{name}:{line}: {written}")
    return bad


def test_every_clock_figure_of_a_handwritten_page_has_one_source() -> None:
    bad = unheld(pages(), measured(), printed())
    assert not bad, ("figures held by neither regress/synth/synth-results.json nor "
                     "docs/papers/figures.toml (quote a recorded result or a paper's "
                     "figure, or cite the generated table):\n" + "\n".join(bad))


def test_the_settings_are_still_quoted() -> None:
    """An exemption whose figure is gone from its page goes too."""
    for (name, written), _why in SETTINGS.items():
        assert written in (ROOT / name).read_text(), (name, written)


def test_a_figure_no_source_holds_fails(tmp_path: Path) -> None:
    """A page quoting a delay not recorded, or a recorded one misrounded, is named; one
    inside a generated block, a recorded one and a paper's are not."""
    results = synth_results.load()
    xc7 = results["xc7"][0]
    floor = xc7["timing"]["period_floor_ns"]  # type: ignore[index]
    page = tmp_path / "page.md"
    page.write_text(f"The core closes at {floor:.2f} ns.\n"
                    f"Measured once at 9{floor:.3f} ns.\n"
                    "<!-- x-table:begin (generated) -->\n| 777.77 ns |\n<!-- x-table:end -->\n"
                    "Jiang-Harris run at 135.7 MHz.\n")
    bad = unheld([page], measured(), printed())
    assert bad == [f"page.md:2: 9{floor:.3f} ns"]
