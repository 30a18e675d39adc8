"""The copied-block check (montverif.spec.copies): it finds a block pasted from one RTL file
into another, passes over what is not logic, and finds none in the project's RTL."""

from __future__ import annotations

from pathlib import Path

from montverif.host.paths import HDL
from montverif.spec import copies

# a core whose first always_ff block is the block pasted (read from the file, so the test
# follows the RTL)
CORE = HDL / "mont" / "mont_r2.sv"


def _block(path: Path, lines: int) -> list[str]:
    """The first always_ff block of `path` with at least `lines` statements, as text lines."""
    text = path.read_text().splitlines()
    start = next(k for k, line in enumerate(text) if line.strip().startswith("always_ff"))
    end = start + 1
    while len(copies.statements("\n".join(text[start:end]))) < lines:
        end += 1
    return text[start:end]


def test_a_pasted_block_is_found_with_both_places(tmp_path: Path) -> None:
    block = _block(CORE, copies.MIN_LINES)
    other = tmp_path / "other.sv"
    other.write_text("module other;\n  // a comment\n\n" + "\n".join(block) + "\nendmodule\n")
    found = copies.copies([CORE, other])
    assert len(found) == 1
    c = found[0]
    assert (c.a, c.b) == (CORE, other)
    assert c.lines >= copies.MIN_LINES
    assert c.b_first == 4  # after the module line, the comment and the blank line
    assert CORE.read_text().splitlines()[c.a_first - 1].strip().startswith("always_ff")
    assert "copied" in str(c) and "mont_r2.sv" in str(c)


def test_comments_blank_lines_and_block_ends_do_not_break_a_copy(tmp_path: Path) -> None:
    body = ["assign a = b + c;", "assign d = a ^ e;", "assign f = d & g;",
            "assign h = f | a;", "assign k = h - 1;", "assign m = k << 2;"]
    a, b = tmp_path / "a.sv", tmp_path / "b.sv"
    a.write_text("\n".join(body) + "\n")
    spaced: list[str] = []
    for line in body:
        spaced += [f"  {line}   // said again", "", "end", "  // note"]
    b.write_text("\n".join(spaced) + "\n")
    found = copies.copies([a, b])
    assert [c.lines for c in found] == [len(body)]


def test_five_statements_are_not_a_copy(tmp_path: Path) -> None:
    body = [f"assign v{k} = w{k} + 1;" for k in range(copies.MIN_LINES - 1)]
    a, b = tmp_path / "a.sv", tmp_path / "b.sv"
    a.write_text("\n".join(body) + "\nassign x = 1;\n")
    b.write_text("\n".join(body) + "\nassign y = 2;\n")
    assert copies.copies([a, b]) == []
    b.write_text("\n".join(body) + "\nassign x = 1;\n")
    assert len(copies.copies([a, b])) == 1


def test_declarations_and_instances_are_not_logic_copied_line_by_line() -> None:
    text = "\n".join([
        "module m #(", "  parameter int N = 8", ") (", "  input logic clk_i", ");",
        "  logic [N-1:0] a_q;", "  localparam int W = N + 2;",
        "  shared_piece #(", "    .N(N)", "  ) u_piece (", "    .clk_i,", "    .a_i(a_q)", "  );",
        "  assign b = a_q;", "endmodule"])
    got = [(s.number, s.text) for s in copies.statements(text)]
    assert got == [(1, "module m #("),
                   (8, "shared_piece #( .N(N) ) u_piece ( .clk_i, .a_i(a_q) );"),
                   (14, "assign b = a_q;")]


def test_the_project_rtl_has_no_copied_block() -> None:
    files = copies.rtl_files()
    assert CORE in files and len(files) > 20
    assert not any("formal/" in f.as_posix() or f.name == "mv_regmap_pkg.sv" for f in files)
    assert copies.copies(files) == [], "\n".join(str(c) for c in copies.copies(files))
