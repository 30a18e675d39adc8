"""The descriptor's schema (hdl/spec/descriptor.schema.json) and its check
(montverif.spec.schema): a valid draft-7 schema, read by the check in full; every descriptor
of the project passes it; the check's verdicts are jsonschema's own over thousands of broken
descriptors; an editor's engine (taplo, which VS Code's Even Better TOML runs) validates the
descriptors with the repository's .taplo.toml and flags a broken one."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.spec import schema
from montverif.spec.designs import known_designs, load_design

# values of every type, and out of range, to put where a descriptor has one
ODD = [3, -1, 10**7, 4.5, True, "x y", "", [], [1, 1], {}, {"k k": 1}]


def _keywords(node: object) -> Iterator[str]:
    """Every keyword the schema uses (property names and definitions are not keywords)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key in ("properties", "definitions"):
                for sub in value.values():
                    yield from _keywords(sub)
            elif key != "enum":
                yield from _keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


def test_the_schema_is_draft_7_and_the_check_reads_all_of_it() -> None:
    jsonschema.Draft7Validator.check_schema(schema.schema())
    assert set(_keywords(schema.schema())) <= schema.KEYWORDS
    assert schema.section_keys()["design"] is not None
    assert "id" in (schema.section_keys()["design"] or ())


def _descriptors() -> list[Path]:
    return [load_design(name).descriptor for name in known_designs()]


def test_every_descriptor_of_the_project_passes() -> None:
    validator = jsonschema.Draft7Validator(schema.schema())
    for path in _descriptors():
        raw = tomllib.loads(path.read_text())
        schema.check(raw, str(path))
        assert not list(validator.iter_errors(raw)), path


def _leaves(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every place in a descriptor: its tables' keys and its lists' items, at any depth."""
    if path:
        yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, (*path, i))


def _get(raw: dict[str, Any], path: tuple[str | int, ...]) -> Any:
    node: Any = raw
    for part in path:
        node = node[part]
    return node


def _set(raw: dict[str, Any], path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    out = copy.deepcopy(raw)
    _get(out, path[:-1])[path[-1]] = value
    return out


def _broken(raw: dict[str, Any], rng: random.Random, count: int) -> list[dict[str, Any]]:
    """`count` copies of `raw`, each with one place given an odd value, its table given a
    stray key, or the place taken away."""
    places = list(_leaves(raw))
    out: list[dict[str, Any]] = []
    while len(out) < count:
        place = rng.choice(places)
        what = rng.random()
        if what < 0.7:
            out.append(_set(raw, place, copy.deepcopy(rng.choice(ODD))))
        elif what < 0.85 and isinstance(table := _get(raw, place[:-1]), dict):
            out.append(_set(raw, place[:-1], table | {"stray_key": 1}) if place[:-1]
                       else raw | {"stray": {}})
        else:
            cut = copy.deepcopy(raw)
            del _get(cut, place[:-1])[place[-1]]
            out.append(cut)
    return out


@pytest.mark.parametrize("name", ["mont_r2", "rsa_core", "mont_dual", "mwrkmm", "mont_pipe"])
def test_the_check_agrees_with_jsonschema(name: str) -> None:
    """Over broken copies of a descriptor: the check finds a fault exactly when jsonschema
    does, at a place jsonschema names (or the key inside it), as one line."""
    raw = {k: v for k, v in tomllib.loads(load_design(name).descriptor.read_text()).items()
           if k != "lists"}  # free-form here (regress/lists reads its entries)
    validator = jsonschema.Draft7Validator(schema.schema())
    rng = random.Random(name)
    found = agreed = 0
    for case in _broken(raw, rng, 200):
        theirs = [tuple(e.absolute_path) for e in validator.iter_errors(case)]
        mine = schema.first_error(case)
        assert (mine is None) == (not theirs), (mine, theirs)
        if mine is None:
            continue
        found += 1
        path, what = mine
        assert path in theirs or path[:-1] in theirs, (path, what, theirs)
        assert "\n" not in what
        with pytest.raises(ConfigError, match=r"^d\.toml: "):
            schema.check(case, "d.toml")
        agreed += 1
    assert found >= 120 and agreed == found  # most cases broke it: the corpus tests the check


def _taplo() -> str:
    exe = Path(sys.executable).with_name("taplo")
    if not exe.is_file():
        pytest.fail(f"{exe} missing: taplo is in requirements.txt (make setup)")
    return str(exe)


def test_an_editor_validates_the_descriptors_and_flags_a_broken_one(tmp_path: Path) -> None:
    """taplo (the engine of VS Code's Even Better TOML) with the repository's .taplo.toml:
    every descriptor valid; a descriptor with an id out of range and one with a stray key
    flagged, at their lines."""
    ok = subprocess.run([_taplo(), "lint", *map(str, _descriptors())], cwd=ROOT,
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    tree = tmp_path / "repo"
    (tree / "hdl" / "mont").mkdir(parents=True)
    (tree / "hdl" / "spec").mkdir()
    shutil.copy(ROOT / ".taplo.toml", tree)
    shutil.copy(schema.SCHEMA_FILE, tree / "hdl" / "spec")
    text = (ROOT / "hdl" / "mont" / "mont_r2.toml").read_text()
    (tree / "hdl" / "mont" / "a.toml").write_text(text.replace("\nid = 1 ", "\nid = 300 "))
    (tree / "hdl" / "mont" / "b.toml").write_text(text.replace("[fault]", "[fault]\n\"x y\" = 1")
                                                  .replace("hit_width = 32", "hit_wdth = 32"))
    for name, needle in (("a", "300 is greater than the maximum of 255"), ("b", "hit_wdth")):
        bad = subprocess.run([_taplo(), "lint", f"hdl/mont/{name}.toml"], cwd=tree,
                             capture_output=True, text=True, check=False)
        assert bad.returncode != 0 and needle in bad.stdout + bad.stderr, bad.stderr
    assert json.loads(schema.SCHEMA_FILE.read_text()) == schema.schema()


def test_the_docs_table_names_every_section_and_key() -> None:
    """docs/own-design.md's table of the descriptor's keys, row by row, against the schema:
    every section has a row, and a section whose keys the row lists lists them all."""
    rows = {}
    for line in (ROOT / "docs" / "own-design.md").read_text().splitlines():
        if line.startswith("| `[") and "|" in line[2:]:
            head, _, rest = line[2:].partition(" | ")
            for section in head.replace("`", "").replace("[", "").replace("]", "").split(","):
                rows[section.strip().removesuffix(".<list>")] = rest
    for section, keys in schema.section_keys().items():
        assert section in rows, f"docs/own-design.md: no row for [{section}]"
        listed = [k for k in keys or () if f"`{k}`" in rows[section]]
        if listed:
            assert listed == list(keys or ()), (section, sorted(set(keys or ()) - set(listed)))
