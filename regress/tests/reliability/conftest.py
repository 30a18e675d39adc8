"""The reliability suite: attacks a hostile or unlucky user makes (two writers on one folder,
interruptions, bad input, secrets in logs), each kept as a test so the fix stays. Every test
here carries the `reliability` marker: `make reliability` (or `pytest -m reliability`) runs
the suite alone; `make test` runs it with everything else."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from montverif.regress.tests.reliability.helpers import regress


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/reliability/" in str(item.path):
            item.add_marker(pytest.mark.reliability)


@pytest.fixture(scope="module")
def regression(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A finished regression (the smoke list's mont_r2 runs, its coverage merged): the
    folder the attacks on results folders and their records start from."""
    root = tmp_path_factory.mktemp("regress")
    out = root / "R"
    proc = regress(root, "regress", "--list", "smoke", "--dut", "mont_r2", "--jobs", "2",
                   "--out", str(out))
    _, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err[-2000:]
    assert (out / "coverage" / "summary.json").is_file()
    yield out
