"""A full disk (issue 59, item 5): each command that writes results, run with its results
folder on a file system of 64 KiB (a tmpfs mounted in a mount namespace of its own), ends
with one `error:` line that names the file it could not write or found cut short, and what
was kept; exit code 2, never a traceback. Before: sim, mutate and closure ended in a
ParseError traceback, formal in `OSError: [Errno 28]`, synth in a JSONDecodeError, merge in
shutil.Error."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

MONTVERIF = Path(sys.executable).parent / "montverif"


def _can_mount(where: Path) -> bool:
    """Whether this machine lets a test mount a tmpfs in a namespace of its own."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c",
                            f"mount -t tmpfs -o size=64k tmpfs '{where}'"],
                           capture_output=True, check=False)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    disk = tmp_path_factory.mktemp("disk")
    if not _can_mount(disk):
        pytest.skip("mounting a tmpfs needs root or unprivileged user namespaces")
    yield disk


def on_full_disk(disk: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`montverif ARGV` with `disk` a 64 KiB file system while it runs."""
    script = f"mount -t tmpfs -o size=64k tmpfs '{disk}' && exec \"$@\""
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(MONTVERIF), *argv],
                          capture_output=True, text=True, timeout=900, check=False)


# each command, its results folder on the small disk ({D}); the words its line must hold
WRITERS = [
    (("sim", "--dut", "mont_r2", "--n", "32", "--txns", "5", "--sim", "icarus",
      "--out", "{D}/o"), "results.xml"),
    (("formal", "--dut", "mont_r2", "--out", "{D}/o"), "{D}/o"),
    (("synth", "run", "--dut", "mont_r2", "--n", "32", "--out", "{D}/o"), "{D}/o"),
    (("mutate", "--dut", "mont_r2", "--mutants", "2", "--out", "{D}/o"), "{D}/o"),
    (("closure", "run", "--dut", "mont_r2", "--budget-seeds", "1", "--sim", "icarus",
      "--out", "{D}/o"), "{D}/o"),
    (("regress", "--list", "smoke", "--dut", "mont_r2", "--out", "{D}/o",
      "--history", "{D}/history.jsonl"), "{D}/o"),
]


@pytest.mark.synth
@pytest.mark.formal
@pytest.mark.sim
@pytest.mark.parametrize(("argv", "named"), WRITERS, ids=[w[0][0] for w in WRITERS])
def test_a_full_disk_is_one_line_naming_what_was_kept(small_disk: Path, argv: tuple[str, ...],
                                                       named: str) -> None:
    cp = on_full_disk(small_disk, *(a.replace("{D}", str(small_disk)) for a in argv))
    assert "Traceback" not in cp.stderr, cp.stderr
    assert cp.returncode == 2, cp.stdout + cp.stderr
    errors = [ln for ln in cp.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and cp.stderr.strip().endswith(errors[0]), cp.stderr
    assert "No space left on device" in errors[0] or "the disk holding it is full" in errors[0]
    assert named.replace("{D}", str(small_disk)) in errors[0], errors[0]


@pytest.mark.sim
def test_a_merge_onto_a_full_disk_says_which_copy_failed(small_disk: Path,
                                                         regression: Path) -> None:
    cp = on_full_disk(small_disk, "merge", str(small_disk / "o"), str(regression))
    assert "Traceback" not in cp.stderr and cp.returncode == 2, cp.stderr
    line = [ln for ln in cp.stderr.splitlines() if ln.strip()][-1]
    assert line.startswith("error: cannot copy ") and "No space left on device" in line
    assert f"kept as they stood, unfinished: {small_disk / 'o'}" in line
