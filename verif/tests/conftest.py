"""pytest set-up of the testbench tests (also used by regress/tests)."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sim: runs a real simulator (deselect with -m 'not sim')")
