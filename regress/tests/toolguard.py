"""The marker guard (issue 64): a test that starts a simulator, a solver or a synthesis tool
carries the marker that says so (`sim`, `formal`, `synth`), so that `make test-fast`
(`-m "not sim and not formal and not synth"`) starts none of them.

A Python audit hook (sys.addaudithook) sees every process this interpreter starts
(subprocess, os.exec*, os.posix_spawn, os.system) and names the tool's kind by its
program or its `-m` module (TOOLS, MODULES). Each pytest process installs it; so does
every Python process the tests start, directly or through the command line, through
toolsite/sitecustomize.py (the folder is put on PYTHONPATH: toolhook.with_site), which
appends each start to the worker's log (GUARD_LOG). After a test's setup and call the
plugin reads the log: a kind whose marker the test lacks fails the test, naming the
command. Processes started outside Python (a simulator's own children) are the tool's, and
already counted.

Loaded with `-p montverif.regress.tests.toolguard` (pyproject.toml's addopts).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

from montverif.regress.tests.toolhook import COVERS, install, with_site
from montverif.regress.tests.toolhook import LOG as GUARD_LOG


def _log_path(config: pytest.Config) -> Path:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    base = Path(str(config.rootpath)) / "build" / "toolguard"
    base.mkdir(parents=True, exist_ok=True)
    return base / f"{os.getpid()}-{worker}.log"


def pytest_configure(config: pytest.Config) -> None:
    log = _log_path(config)
    log.write_text("")
    os.environ[GUARD_LOG] = str(log)
    os.environ["PYTHONPATH"] = with_site(os.environ.get("PYTHONPATH", ""))
    install(str(log))


def pytest_unconfigure(config: pytest.Config) -> None:
    Path(os.environ.pop(GUARD_LOG, "")).unlink(missing_ok=True)


def missing(log: Path, markers: set[str]) -> list[str]:
    """The starts in `log` whose kind none of `markers` covers (one line each)."""
    covered = {k for m in markers for k in COVERS.get(m, ())}
    lines = log.read_text().splitlines() if log.is_file() else []
    return [line for line in lines if line.split("\t", 1)[0] not in covered]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    Path(os.environ[GUARD_LOG]).write_text("")
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    result = yield
    bad = missing(Path(os.environ[GUARD_LOG]), {m.name for m in item.iter_markers()})
    if bad:
        kinds = sorted({b.split("\t", 1)[0] for b in bad})
        pytest.fail(f"this test starts a tool without its marker "
                    f"(@pytest.mark.{', @pytest.mark.'.join(kinds)}): "
                    + "; ".join(b.split("\t", 1)[1] for b in bad[:3]), pytrace=False)
    return result
