"""The reliability suite: attacks a hostile or unlucky user makes (two writers on one folder,
interruptions, bad input, secrets in logs), each kept as a test so the fix stays. Every test
here carries the `reliability` marker: `make reliability` (or `pytest -m reliability`) runs
the suite alone; `make test` runs it with everything else."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/reliability/" in str(item.path):
            item.add_marker(pytest.mark.reliability)
