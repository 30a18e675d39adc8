"""One worker per module-scoped fixture: a test that uses a fixture of module or wider
scope (a built wheel in a fresh venv, a finished regression, a scratch checkout, a Slurm
cluster) gets the `xdist_group` marker of its module, so that with `--dist loadgroup` (the
Makefile's PYTEST_ARGS) the module's tests run on one pytest-xdist worker and the fixture is
built once rather than once on each worker.

Loaded with `-p montverif.regress.tests.fixture_groups` (pyproject.toml's addopts).
"""

from __future__ import annotations

import pytest

WIDE = ("module", "package", "session")


def shares_a_fixture(item: pytest.Item) -> bool:
    """Whether `item` uses a fixture of the tests (a test module's or a conftest's, not a
    plugin's such as tmp_path_factory) built once for its module or wider."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(d.scope in WIDE and d.baseid
               for defs in info.name2fixturedefs.values() for d in defs)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if shares_a_fixture(item) and item.get_closest_marker("xdist_group") is None:
            module = item.module.__name__ if isinstance(item, pytest.Function) else item.nodeid
            item.add_marker(pytest.mark.xdist_group(module))
