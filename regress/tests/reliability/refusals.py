"""Many refusals of the real `montverif` at the cost of one start: one Python process imports
the command once, then runs each command line in a child forked from it (its own session,
stdout and stdin on /dev/null, stderr captured, its address space capped), as the console
script would run it (`montverif.regress.cli.main`). A command line that is not refused at
once (the attack got through: a build, a simulation, a runaway) is killed at its deadline
and reported as such, so a missing check fails its test instead of hanging the suite.

    python -m montverif.regress.tests.reliability.refusals '<JSON list of argv lists>' SECONDS

prints one JSON object per command line: {"argv", "code", "stderr", "timed_out"}.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass

from montverif.regress.cli import main as montverif_main

MEMORY = 2 << 30  # an attack that would eat memory fails fast instead


@dataclass(frozen=True)
class Refusal:
    argv: list[str]
    code: int | None  # the exit code; None when killed at the deadline
    stderr: str
    timed_out: bool

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def _child(argv: list[str], w: int) -> None:
    """The forked child: the command line as `montverif` runs it, stderr into w."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(w, 2)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    try:
        code = montverif_main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # reported as the traceback the user would see
        traceback.print_exc()
        code = 1
    sys.stderr.flush()
    os._exit(code)


def _one(argv: list[str], timeout_s: float) -> Refusal:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(argv, w)
    os.close(w)
    chunks, deadline, timed_out = [], time.monotonic() + timeout_s, False
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([r], [], [], max(left, 0))
        if not ready:
            timed_out = True
            os.killpg(pid, signal.SIGKILL)
            break
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    code = None if timed_out else os.waitstatus_to_exitcode(status)
    return Refusal(argv, code, b"".join(chunks).decode(errors="replace"), timed_out)


def refusals(cases: list[list[str]], timeout_s: float = 20) -> list[Refusal]:
    """Each command line of `cases` run as above (from the test: in a process of its own)."""
    cp = subprocess.run([sys.executable, "-m", __name__, json.dumps(cases), str(timeout_s)],
                        capture_output=True, text=True, check=False,
                        timeout=timeout_s * len(cases) + 60)
    assert cp.returncode == 0, cp.stderr
    return [Refusal(**json.loads(line)) for line in cp.stdout.splitlines()]


if __name__ == "__main__":
    for case in json.loads(sys.argv[1]):
        got = _one(case, float(sys.argv[2]))
        print(json.dumps(got.__dict__), flush=True)
