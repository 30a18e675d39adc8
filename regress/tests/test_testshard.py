"""The test shards (testshard.py): every test in exactly one shard, the heavy ones apart,
the same shards from the same collection, and bad values refused before any test runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from montverif.regress.tests import testshard

TESTS = '''
import pytest

@pytest.mark.nightly(seconds=400)
def test_heavy():
    pass

@pytest.mark.nightly(seconds=300)
def test_second():
    pass

@pytest.mark.nightly
@pytest.mark.parametrize("k", range(6))
def test_light(k):
    pass
'''


def test_deal_puts_every_test_in_one_shard_and_the_heavy_ones_apart() -> None:
    items = [("a", 400.0), ("b", 300.0), *((f"c{k}", 15.0) for k in range(6))]
    shards = testshard.deal(items, 2)
    assert shards[:2] == [0, 1]  # the two heaviest go to different shards
    loads = [sum(w for (_, w), s in zip(items, shards, strict=True) if s == i) for i in (0, 1)]
    assert loads == [400.0, 390.0]  # the light ones fill the lighter shard first
    assert testshard.deal(list(reversed(items)), 2) == list(reversed(shards))  # order-free
    assert testshard.deal(items, 1) == [0] * len(items)
    assert sorted(testshard.deal(items, 20)) == list(range(len(items)))  # more shards: one each


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_is_refused(text: str) -> None:
    with pytest.raises(pytest.UsageError, match="expected I/K"):
        testshard.parse(text)


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "montverif.regress.tests.testshard", "-o",
                           "markers=nightly", "--collect-only", *args, "test_x.py"],
                          cwd=folder, capture_output=True, text=True, check=False)


def test_the_shards_of_a_real_collection_make_the_whole(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(TESTS)
    every = set(_run(tmp_path).stdout.split("\n\n")[0].split())
    shards = [_run(tmp_path, "--test-shard", f"{i}/2") for i in (1, 2)]
    ids = [set(s.stdout.split("\n\n")[0].split()) for s in shards]
    assert len(every) == 8 and not ids[0] & ids[1] and ids[0] | ids[1] == every
    assert "test_x.py::test_heavy" in ids[0] and "test_x.py::test_second" in ids[1]
    assert "7 deselected" in shards[0].stdout and "1 deselected" in shards[1].stdout
    bad = _run(tmp_path, "--test-shard", "3/2")
    assert bad.returncode == 4 and "--test-shard '3/2': expected I/K" in bad.stderr
