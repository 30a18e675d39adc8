"""One meaning per name (issue 65): no two public classes of the package share a name, so
that `Point` or `Options` in a traceback or a review says which one it is. The exceptions
are the cocotb tests, whose names are what `--tests` and the lists give (RandomTest is
RandomTest in every testbench), and private classes (a leading underscore)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from montverif.host.paths import ROOT

PACKAGE = ("hdl/spec", "models", "verif", "regress")


def _tests_of_a_testbench(path: Path, node: ast.ClassDef) -> bool:
    """A cocotb test of one of the testbenches (verif/tb_*.py), named for the runs."""
    return path.parent == ROOT / "verif" and path.name.startswith("tb_") \
        and node.name.endswith("Test")


def classes() -> dict[str, list[str]]:
    """Each public class name of the package's modules (tests aside), with where it is."""
    found: dict[str, list[str]] = defaultdict(list)
    for top in PACKAGE:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if "tests" in rel.parts or ".venv" in rel.parts:
                continue
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_") \
                        and not _tests_of_a_testbench(path, node):
                    found[node.name].append(f"{rel}:{node.lineno}")
    return found


def test_no_two_classes_share_a_name() -> None:
    found = classes()
    assert len(found) > 100  # the walk found the package
    twice = {name: where for name, where in found.items() if len(where) > 1}
    assert not twice, twice


def test_the_check_sees_a_second_class_of_the_same_name(tmp_path: Path) -> None:
    """The check is not blind: the project's own files give two `RandomTest` classes (the
    testbenches'), which only the cocotb exception lets through."""
    tb = [ROOT / "verif" / "tb_mult.py", ROOT / "verif" / "tb_rsa.py"]
    names = [{n.name for n in ast.parse(p.read_text()).body if isinstance(n, ast.ClassDef)}
             for p in tb]
    assert "RandomTest" in names[0] & names[1]
    assert "RandomTest" not in classes()
