"""The documentation as a user meets it: README.md is a user guide of about 12 KB, no page
says what a figure used to be (history goes to CHANGELOG.md; generated figure files carry
their revision), every relative link and anchor resolves, nothing points outside the
repository, and the README's layout names every design family folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.spec import designs, generate

README = ROOT / "README.md"
README_MAX_BYTES = 12_000  # the hand-written guide (the design table is generated)
# Generated files (they name the revision of each figure) and the history itself.
EXEMPT = {"CHANGELOG.md", "docs/generated/cycles.md", "docs/generated/regmap.md",
          "docs/generated/bench/results.md"}
DIARY = re.compile(
    r"\bgit [0-9a-f]{7}\b|\bat git\b"
    r"|\bfrom (about )?[0-9][0-9.,]* (to|down to) [0-9][0-9.,]* ?(s|us|ms|min|%)\b"
    r"|\bwas [0-9][0-9.,]* ?(s|us|ms|min)\b"
)
OUTSIDE = re.compile(r"/work/|\.\./shared/|shared/(notes|papers)/")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    top = [ROOT / n for n in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    return top + sorted((ROOT / "docs").rglob("*.md"))


def rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix() if p.is_relative_to(ROOT) else p.name


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    out: set[str] = set()
    in_code = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


def diary_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if DIARY.search(line)]


def broken_links(page: Path) -> list[str]:
    bad = []
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: outside links are not checked here
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{rel(page)}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{rel(page)}: {target} (no such heading)")
    return bad


def handwritten(readme: str) -> str:
    """The README without its generated design table (montverif generate writes it from the
    descriptors, one row a design: its size is the designs', not the guide's)."""
    head, _, rest = readme.partition(generate.BEGIN)
    return head + rest.partition(generate.END)[2]


def test_readme_is_a_guide_of_about_12_kb() -> None:
    text = handwritten(README.read_text())
    assert len(text.encode()) <= README_MAX_BYTES, len(text.encode())
    for needed in ("make regress", "make test", "## One transaction", "## Your own design",
                   "docs/own-design.md", "## Layout"):
        assert needed in text, needed


@pytest.mark.parametrize("page", [p for p in pages() if rel(p) not in EXEMPT], ids=rel)
def test_no_page_says_what_a_figure_used_to_be(page: Path) -> None:
    assert diary_lines(page.read_text()) == []


@pytest.mark.parametrize("page", pages(), ids=rel)
def test_links_resolve_and_nothing_points_outside_the_repository(page: Path) -> None:
    assert broken_links(page) == []
    assert [ln for ln in page.read_text().splitlines() if OUTSIDE.search(ln)] == []


def test_layout_points_to_the_generated_design_table() -> None:
    """The layout names no design family by hand (a new hdl/<family>/ would need an edit):
    it points to the design table, which generate writes with every design."""
    text = README.read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("| `hdl/<family>/`"))
    assert "design table" in row
    table = text.partition(generate.BEGIN)[2].partition(generate.END)[0]
    assert all(f"`{d.name}`" in table for d in designs.complete())


def layout_gaps(readme: str, root: Path) -> list[str]:
    """What the README's layout table leaves out of the tree: a top-level folder, a folder
    of hdl/ that holds no design's descriptor (a family's folder is covered by
    `hdl/<family>/`), or a subpackage of regress/ that neither its row names nor a row of
    its own (regress/host/, montverif.host)."""
    layout = readme.partition("## Layout")[2].partition("\n## ")[0]
    rows = {ln.split("|")[1].strip().strip("`"): ln for ln in layout.splitlines()
            if ln.startswith("| `")}
    gaps = [f"{d.name}/" for d in sorted(root.iterdir())
            if d.is_dir() and not d.name.startswith((".", "_")) and d.name != "build"
            and ((d / "__init__.py").exists() or any(d.glob("*.sh")) or any(d.glob("*.md")))
            and not any(r.startswith(f"{d.name}/") for r in rows)]
    families = {t.parent for t in (root / "hdl").glob("*/*.toml")}
    gaps += [f"hdl/{d.name}/" for d in sorted((root / "hdl").iterdir())
             if d.is_dir() and not d.name.startswith((".", "_")) and d not in families
             and f"hdl/{d.name}/" not in rows]
    regress_row = rows.get("regress/", "")
    gaps += [f"regress/{d.name}" for d in sorted((root / "regress").iterdir())
             if (d / "__init__.py").exists() and d.name != "tests"
             and f"regress/{d.name}/" not in rows
             and not re.search(rf"\b{d.name}\b", regress_row)]
    return gaps


def test_the_layout_covers_the_tree() -> None:
    assert layout_gaps(README.read_text(), ROOT) == []


def test_the_layout_check_finds_a_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "hdl" / "common").mkdir(parents=True)
    (tmp_path / "hdl" / "fam").mkdir()
    (tmp_path / "hdl" / "fam" / "d.toml").write_text("")
    for sub in ("regress/flow", "regress/newpart", "ci"):
        (tmp_path / sub).mkdir(parents=True)
    for pkg in ("regress", "regress/flow", "regress/newpart"):
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "ci" / "x.sh").write_text("")
    readme = ("## Layout\n\n| path | what |\n|---|---|\n| `hdl/<family>/` | families |\n"
              "| `regress/` | flow |\n\n## More\n")
    assert layout_gaps(readme, tmp_path) == ["ci/", "hdl/common/", "regress/newpart"]


def test_the_checks_catch_a_diary_and_a_dangling_link(tmp_path: Path) -> None:
    diary = ("Throughput went from 132 to 115 us an operation.\n"
             "The nightly took 28 min at git 74e8d78 and was 50 s before.\n"
             "A plain sentence about 2 cores.\n")
    assert len(diary_lines(diary)) == 2
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## Real heading\n")
    page.write_text("[a](other.md#real-heading) [b](missing.md) [c](other.md#nope) "
                    "[d](https://example.org)\n")
    assert [b.split(": ", 1)[1] for b in broken_links(page)] == [
        "missing.md (no such file)", "other.md#nope (no such heading)"]
    assert OUTSIDE.search("see ../shared/notes/toolchain-facts.md")
