"""The fixture-group plugin (regress/tests/fixture_groups.py) marks exactly the tests that
share a fixture built once for their module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def built_once() -> object:
    return object()


@pytest.fixture
def built_each_time() -> object:
    return object()


def test_a_test_using_a_module_fixture_runs_in_its_module_s_group(
        request: pytest.FixtureRequest, built_once: object) -> None:
    mark = request.node.get_closest_marker("xdist_group")
    assert mark is not None and mark.args == (__name__,)


def test_a_test_with_function_fixtures_only_is_not_grouped(
        request: pytest.FixtureRequest, built_each_time: object, tmp_path: object) -> None:
    assert request.node.get_closest_marker("xdist_group") is None
