"""`montverif new-design NAME --like DESIGN`: a new design's files, as a working copy of an
existing one. The core RTL (the module and its sub-modules renamed) and the descriptor (a
new id, the copy's own name, the original's model, test points and list entries) land in
hdl/<family>/; the derived files are written again. `montverif sim --dut NAME` passes at
once; docs/own-design.md takes it from there (the core, the model, the descriptor's facts).
"""

from __future__ import annotations

import re
from pathlib import Path

from montverif.spec import designs, generate
from montverif.spec.errors import ConfigError
from montverif.spec.paths import HDL

NAME = re.compile(r"[a-z][a-z0-9_]{1,30}")


def _renamed(text: str, like: str, name: str) -> str:
    """`like` and `like_<suffix>` identifiers (the module and its sub-modules) as `name`'s."""
    return re.sub(rf"\b{re.escape(like)}(?=\b|_)", name, text)


def new_design(name: str, like: str, family: str | None = None) -> list[Path]:
    """Write the new design's core and descriptor; the paths written (derived files too)."""
    if not NAME.fullmatch(name):
        raise ConfigError(f"design name {name!r}: lower case letters, digits and _, starting "
                          "with a letter (it names the module, the descriptor and its keys)")
    if name in designs.known_designs():
        raise ConfigError(f"design {name} exists already ({designs.load_design(name).descriptor})")
    src = designs.load_design(like)
    if src.foreign is not None or src.uses:
        raise ConfigError(f"{like} is built from other RTL (a core of its own or other "
                          "designs): copy a multiplier of the project's own instead")
    folder = HDL / (family or src.family)
    if family is not None and not re.fullmatch(r"[a-z][a-z0-9_]*", family):
        raise ConfigError(f"family {family!r}: a folder name of lower case letters")
    new_id = max(d.id for d in designs.every()) + 1
    targets = {folder / _renamed(f.name, like, name): f for f in src.rtl}
    descriptor = folder / f"{name}.toml"
    if clash := [p for p in (*targets, descriptor) if p.exists()]:
        raise ConfigError(f"{clash[0]} exists already")
    folder.mkdir(parents=True, exist_ok=True)
    for target, original in targets.items():
        target.write_text(_renamed(original.read_text(), like, name))
    text = _renamed(src.descriptor.read_text(), like, name)
    text = re.sub(r"(?m)^id = \d+", f"id = {new_id}", text, count=1)
    # it uses the same shared RTL, but `like` stays the one campaign that mutates it
    text = re.sub(r"(?m)^owns = .*\n", "", text, count=1)
    # the copy keeps the original's model until it has its own (docs/own-design.md)
    text = re.sub(r'(?m)^function = ".*"', f'function = "{src.model_function}"', text, count=1)
    descriptor.write_text(text)
    designs.reload()
    return [*targets, descriptor, *generate.write()]
