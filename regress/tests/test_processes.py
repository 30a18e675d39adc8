"""The process-tree rule (host/processes.py, host/supervise.py): a tool's whole tree ends on a
time limit, on an interrupt, when the command is killed outright and when the tool exits
leaving descendants behind, detached ones (setsid) included; the tool's exit status comes
through unchanged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from montverif.host import processes, supervise

# a tool that leaves descendants: one in a session of its own (as SBY's solvers), one whose
# parent has exited (an orphan), and one it waits for; each sleeps with a marker in its
# command line so that the test can find it
SLEEPER = f"{sys.executable} -c 'import time; time.sleep(1000)'"
TREE = f"""
marker=$1
setsid {SLEEPER} "$marker" &
( {SLEEPER} "$marker" & )
{SLEEPER} "$marker"
"""


def _alive(marker: str) -> list[int]:
    """Live processes of the tree whose command line holds `marker`: the sleepers, the
    shell and the supervisor (zombies aside)."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmd and state != "Z":
            found.append(int(pid))
    return found


def _sleepers(marker: str) -> list[int]:
    """The tree's three sleepers, once they all run."""
    sleeper = [b"-c", b"import time; time.sleep(1000)", marker.encode()]
    found = []
    for pid in _alive(marker):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[1:4] == sleeper:
                found.append(pid)
        except OSError:
            continue
    return found


def _wait_for(cond: Callable[[], bool], timeout_s: float = 10) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.fixture
def marker(tmp_path: Path) -> str:
    return f"mv-tree-{tmp_path.name}-{os.getpid()}"


def test_a_time_limit_ends_the_whole_tree(marker: str) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run(["bash", "-c", TREE, "tree", marker], timeout=1)
    assert _alive(marker) == []


def test_a_tool_that_exits_leaves_nothing_behind(marker: str) -> None:
    done = processes.run(["bash", "-c", f'setsid {SLEEPER} "{marker}" & exit 3'])
    assert done.returncode == 3
    assert _alive(marker) == []


def test_the_tools_exit_status_comes_through(marker: str) -> None:
    assert processes.run(["bash", "-c", "kill -SEGV $$"]).returncode == -signal.SIGSEGV
    out = processes.run([sys.executable, "-c", "print('hi')"], capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (0, "hi\n")
    missing = processes.run(["/no/such/tool"], capture_output=True, text=True)
    assert missing.returncode == 127 and "cannot start /no/such/tool" in missing.stderr


def test_the_tree_ends_when_the_command_is_killed_outright(marker: str) -> None:
    """SIGKILL of the command that started the tool: the supervisor's watch pipe closes."""
    code = ("import sys; from montverif.host import processes; "
            "processes.run(['bash', '-c', sys.argv[1], 'tree', sys.argv[2]])")
    cmd = subprocess.Popen([sys.executable, "-c", code, TREE, marker])
    _wait_for(lambda: len(_sleepers(marker)) == 3)
    cmd.kill()
    cmd.wait()
    _wait_for(lambda: _alive(marker) == [])


def test_an_interrupt_ends_every_tree_and_refuses_new_ones(marker: str) -> None:
    """end_all (what SIGINT and SIGTERM do under `interrupts`) ends a tree a worker thread
    waits on: the worker gets Interrupted, a KeyboardInterrupt, at once; until allow_starts
    no tree starts."""
    got: list[BaseException] = []

    def worker() -> None:
        try:
            processes.run(["bash", "-c", TREE, "tree", marker])
        except BaseException as exc:  # the test looks at what came
            got.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    _wait_for(lambda: len(_sleepers(marker)) == 3)
    t0 = time.monotonic()
    try:
        assert processes.end_all() == 1
        thread.join(timeout=10)
        assert not thread.is_alive() and time.monotonic() - t0 < supervise.GRACE_S + 2
        assert len(got) == 1 and isinstance(got[0], processes.Interrupted)
        assert isinstance(got[0], KeyboardInterrupt)
        assert _alive(marker) == []
        with pytest.raises(processes.Interrupted):
            processes.run(["true"])
    finally:
        processes.allow_starts()
    assert processes.run(["true"]).returncode == 0


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace_time(marker: str) -> None:
    code = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(1000)")
    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run([sys.executable, "-c", code, marker], timeout=1)
    took = time.monotonic() - t0
    assert _alive(marker) == []
    assert took >= 1 + supervise.GRACE_S - 0.1  # SIGTERM ignored: SIGKILL after the grace


def test_wait_returns_when_the_process_ends_and_raises_past_its_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """processes.wait is Popen.wait(timeout): TimeoutExpired while the process runs, its exit
    code once it has ended (reaped already too); on Linux woken by the process's pidfd, never
    by subprocess's polling (a wait with a timeout)."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read(); sys.exit(3)"],
                            stdin=subprocess.PIPE)
    timeouts: list[float | None] = []
    plain = proc.wait

    def recorded(timeout: float | None = None) -> int:
        timeouts.append(timeout)
        return plain(timeout)
    monkeypatch.setattr(proc, "wait", recorded)
    with pytest.raises(subprocess.TimeoutExpired):
        processes.wait(proc, 0.05)
    assert proc.stdin is not None
    proc.stdin.close()
    processes.wait(proc, 600)
    assert proc.returncode == 3
    assert timeouts == [None], "the pidfd decides; the wait only reaps"
    processes.wait(proc, 600)  # reaped already: at once, the same code
    assert proc.returncode == 3


def test_the_orphans_record_is_written_when_the_command_ends_first(
        marker: str, tmp_path: Path) -> None:
    """--orphaned: the watch pipe's end (the command that started the tool is gone) writes
    the record, whole, then ends the tree; no temporary file stays beside it."""
    record = tmp_path / "outcome.json"
    watch_r, watch_w = os.pipe()
    cmd = processes.supervised(["bash", "-c", TREE, "tree", marker], watch_r,
                               (record, '{"verdict": "ORPHANED"}'))
    proc = subprocess.Popen(cmd, pass_fds=(watch_r,), start_new_session=True)
    os.close(watch_r)
    _wait_for(lambda: len(_sleepers(marker)) == 3)
    assert not record.exists()
    os.close(watch_w)
    processes.wait(proc, 60)
    assert proc.returncode == -signal.SIGTERM
    assert _alive(marker) == []
    assert record.read_text() == '{"verdict": "ORPHANED"}'
    assert [p.name for p in tmp_path.iterdir()] == ["outcome.json"]


def test_a_failed_orphans_record_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """The record goes through a temporary file and a rename: when the temporary file cannot
    be written, or the rename fails, the old file stays whole and nothing else is left."""
    record = tmp_path / "outcome.json"
    record.write_text("old")
    blocker = tmp_path / f"outcome.json.{os.getpid()}.tmp"
    blocker.mkdir()  # the temporary file cannot be opened
    supervise._write_whole(str(record), "new")
    assert record.read_text() == "old"
    blocker.rmdir()
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "x").write_text("")  # the rename onto a non-empty folder fails
    supervise._write_whole(str(folder), "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "outcome.json"]
    supervise._write_whole(str(record), "new")
    assert record.read_text() == "new"
