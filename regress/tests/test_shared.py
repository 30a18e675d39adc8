"""shared.once: a folder built once per test session, whichever worker asks first."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from montverif.regress.tests import shared


class Base:
    """A stand-in for pytest's TempPathFactory: the base folder only."""

    def __init__(self, base: Path) -> None:
        self.base = base

    def getbasetemp(self) -> Path:
        return self.base


def test_two_workers_at_once_build_it_once(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    builds: list[int] = []

    def build(folder: Path) -> None:
        builds.append(1)
        time.sleep(0.3)  # the second caller arrives while the first builds
        (folder / "made").write_text("x")

    got: list[Path] = []
    workers = [threading.Thread(target=lambda: got.append(
        shared.once(Base(tmp_path), "thing", build))) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(builds) == 1 and got == [tmp_path / "thing"] * 2
    assert (tmp_path / "thing" / "made").read_text() == "x"


def test_a_failed_build_is_tried_again_from_an_empty_folder(tmp_path: Path) -> None:
    def broken(folder: Path) -> None:
        (folder / "half").write_text("x")
        raise AssertionError("the build failed")

    with pytest.raises(AssertionError):
        shared.once(Base(tmp_path), "thing", broken)
    seen: list[list[str]] = []
    folder = shared.once(Base(tmp_path), "thing",
                         lambda f: seen.append(sorted(p.name for p in f.iterdir())))
    assert seen == [[]] and (folder / shared.DONE).is_file()


def test_workers_share_the_session_s_folder(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert shared.session_folder(Base(tmp_path / "popen-gw1")) == tmp_path
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert shared.session_folder(Base(tmp_path)) == tmp_path
