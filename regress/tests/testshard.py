"""Test shards (issue 64): `pytest --test-shard I/K` keeps shard I of K of the collected
tests, so that two CI jobs run the nightly tier side by side (`make test-nightly
TEST_SHARD=1/2`, ci/nightly-tests.sh).

The tests are dealt as the regression deals its models (regression/shards.deal): the
heaviest first, each to the shard with the least weight so far (ties: the lower shard), so
the same collection always gives the same shards, every test goes to exactly one, and the
K shards together are the whole run. A test's weight is
the `seconds` its `nightly` marker gives (`@pytest.mark.nightly(seconds=440)`: a test that
alone takes minutes), else DEFAULT_S.

Loaded with `-p montverif.regress.tests.testshard` (pyproject.toml's addopts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from montverif.regress.regression.shards import deal

DEFAULT_S = 15.0  # a test's weight without its own figure: about one simulator run
SHARD = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")


def parse(text: str) -> tuple[int, int]:
    """I/K with 1 <= I <= K, else a usage error naming the text."""
    found = SHARD.fullmatch(text.strip())
    if found is None or not 1 <= int(found[1]) <= int(found[2]):
        raise pytest.UsageError(f"--test-shard {text!r}: expected I/K with 1 <= I <= K")
    return int(found[1]), int(found[2])


def weight(item: pytest.Item) -> float:
    """The seconds a test's `nightly` marker gives it, else DEFAULT_S."""
    marker = item.get_closest_marker("nightly")
    value = marker.kwargs.get("seconds", DEFAULT_S) if marker is not None else DEFAULT_S
    return float(value)


def standins(values: Iterable[Any], keep: Sequence[Any] | Callable[[Any], bool],
             ids: Callable[[Any], str] | None = None, seconds: float | None = None,
             unpack: bool = False) -> list[Any]:
    """`values` as the cases of a parametrized test: those `keep` names (or picks) run in
    `make test`, as the stand-ins of the rest, which the nightly's test job runs (marker
    `nightly`, each weighed `seconds` for the shards). `unpack`: each value is the tuple of
    a test with several arguments."""
    picked = keep if callable(keep) else (lambda value: value in keep)
    mark = pytest.mark.nightly if seconds is None else pytest.mark.nightly(seconds=seconds)
    return [pytest.param(*(value if unpack else (value,)), marks=() if picked(value) else mark,
                         id=ids(value) if ids is not None else None)
            for value in values]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--test-shard", default=None, metavar="I/K",
                     help="run shard I of K of the collected tests, dealt by weight "
                          "(regress/tests/testshard.py)")


def pytest_configure(config: pytest.Config) -> None:
    text = config.getoption("--test-shard")
    if text is not None:
        parse(text)  # a bad value is a usage error before any test is collected


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    text = config.getoption("--test-shard")
    if text is None:
        return
    index, count = parse(text)
    owner = deal({item.nodeid: weight(item) for item in items}, count)
    keep = [item for item in items if owner[item.nodeid] == index - 1]
    dropped = [item for item in items if owner[item.nodeid] != index - 1]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
