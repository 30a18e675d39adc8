"""The registry a run's parent hands its processes (designs.snapshot, MV_DESIGNS): a child
given it reads no descriptor and sees the parent's designs; a snapshot that is corrupt, not a
registry, or made without a check the child makes is not used (the child reads the
descriptors itself). A command keeps the descriptors it parsed, by their text."""

from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from montverif.host import environment
from montverif.host.errors import ConfigError
from montverif.spec import designs


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's registry read again inside the test and after it; snapshots written
    under tmp_path; MV_DESIGNS unset."""
    monkeypatch.setattr(designs, "cache", lambda *parts: tmp_path.joinpath(*parts))
    monkeypatch.delenv(environment.DESIGNS.name, raising=False)
    designs.reload()
    yield tmp_path
    designs.reload()


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every descriptor read from here on fails (tomllib.loads raises)."""
    def refuse(_text: str, **_kw: Any) -> dict[str, Any]:
        raise tomllib.TOMLDecodeError("read a descriptor")
    monkeypatch.setattr(designs.tomllib, "loads", refuse)


def _stricter(design: object) -> None:
    """A check the parent did not make."""


def _add_stricter(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process makes a check beyond the parent's (designs._checks)."""
    monkeypatch.setattr(designs, "_checks", [*designs._checks, _stricter])


def _snapshot() -> Path:
    path = designs.snapshot()
    assert path is not None
    return path


def _as_child(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(environment.DESIGNS.name, str(path))
    designs.reload()


def test_a_child_reads_the_snapshot_and_no_descriptor(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = designs.load_design("mont_r2")
    path = designs.snapshot()
    assert path is not None and path.parent == fresh / "designs" and path.suffix == ".pickle"
    assert designs.snapshot() == path, "the same registry is the same file"
    _no_parsing(monkeypatch)
    _as_child(path, monkeypatch)
    assert designs.load_design("mont_r2") == parent
    assert designs.known_designs() and designs.broken() == []
    # without the snapshot the same process reads the descriptors (and here fails to, once
    # the parsed descriptors kept from the parent's reading are gone)
    monkeypatch.delenv(environment.DESIGNS.name)
    (fresh / "designs" / designs.PARSED).unlink()
    designs.reload()
    with pytest.raises(ConfigError, match="TOML syntax"):
        designs.load_design("mont_r2")


def test_one_registry_is_one_file_whatever_the_hash_seed(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snapshot's bytes do not depend on the process (set order): every run of one tree
    shares one file, and a changed tree makes another; week-old ones are pruned."""
    code = ("import montverif.regress.cli.sim; from montverif.spec import designs; "
            "print(designs.snapshot())")
    paths = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, env={**os.environ, "PYTHONHASHSEED": seed,
                                             environment.CACHE.name: str(fresh)}
                            ).stdout.strip() for seed in ("1", "2")}
    assert len(paths) == 1
    one = Path(paths.pop())
    assert one.is_relative_to(fresh) and one.parent.name == "designs" and one.exists()
    (fresh / "designs").mkdir(exist_ok=True)
    old = fresh / "designs" / ("f" * 32 + ".pickle")
    old.write_bytes(b"")
    week = time.time() - designs.SNAPSHOT_DAYS * 86400 - 60
    os.utime(old, (week, week))
    young = fresh / "designs" / ("e" * 32 + ".pickle")
    young.write_bytes(b"")
    _add_stricter(monkeypatch)  # another registry, another file
    designs.reload()
    mine = designs.snapshot()
    assert mine is not None and mine.name not in (old.name, young.name)
    assert not old.exists() and young.exists()


def test_a_descriptor_is_parsed_again_only_when_its_text_changes(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parsed descriptors a command keeps (designs.PARSED): the next command parses none
    whose text is the same, and parses one whose text changed; a corrupt file is ignored."""
    first = designs.load_design("mont_r2")
    kept = fresh / "designs" / designs.PARSED
    assert kept.exists()
    _no_parsing(monkeypatch)
    designs.reload()
    assert designs.load_design("mont_r2") == first and designs.broken() == []
    text = designs._text

    def edited(path: Path) -> str:
        return text(path) + ("# edited\n" if path == first.descriptor else "")
    monkeypatch.setattr(designs, "_text", edited)
    designs.reload()
    with pytest.raises(ConfigError, match="TOML syntax"):
        designs.load_design("mont_r2")
    monkeypatch.setattr(designs, "_text", text)
    kept.write_bytes(b"not a pickle")
    designs.reload()
    with pytest.raises(ConfigError, match="TOML syntax"):
        designs.load_design("mont_r2")


def _falls_back(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child does not use the file at `path`: it reads the descriptors."""
    _as_child(path, monkeypatch)
    assert designs._inherited() is None
    assert designs.load_design("mont_r2").name == "mont_r2"


def test_a_snapshot_without_a_check_of_this_process_is_not_used(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _snapshot()
    _as_child(path, monkeypatch)
    assert designs._inherited() is not None
    _add_stricter(monkeypatch)
    _falls_back(path, monkeypatch)


def test_a_cache_that_cannot_take_it_gives_no_snapshot(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (fresh / "designs").write_text("a file where the folder would be")
    assert designs.snapshot() is None
    assert designs.load_design("mont_r2").name == "mont_r2"


def test_a_corrupt_missing_or_foreign_snapshot_is_not_used(
        fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _snapshot()
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    corrupt = path.with_name("0" * 32 + ".pickle")
    corrupt.write_bytes(bytes(data))
    _falls_back(corrupt, monkeypatch)
    flipped = path.read_bytes()[:-5] + bytes([path.read_bytes()[-5] ^ 0xFF])
    path.write_bytes(flipped)  # the right name, the wrong bytes
    _falls_back(path, monkeypatch)
    _falls_back(fresh / "designs" / "missing.pickle", monkeypatch)
    foreign = pickle.dumps((frozenset(), {"mont_r2": "not a registry"}))
    name = fresh / "designs" / f"{hashlib.sha256(foreign).hexdigest()[:32]}.pickle"
    name.write_bytes(foreign)
    _falls_back(name, monkeypatch)
