"""The test shards (testshard.py): every test of a real collection in exactly one shard,
the heavy ones apart by their markers' weights, and bad values refused before any test
runs (the dealing is regression/shards.deal, the runs' own)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from montverif.regress.regression.shards import deal
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


def test_the_heavy_tests_go_to_different_shards() -> None:
    weights = {"a": 400.0, "b": 300.0, **{f"c{k}": 15.0 for k in range(6)}}
    owner = deal(weights, 2)
    assert (owner["a"], owner["b"]) == (0, 1)  # the two heaviest apart
    loads = [sum(w for k, w in weights.items() if owner[k] == i) for i in (0, 1)]
    assert loads == [400.0, 390.0]  # the light ones fill the lighter shard first


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
