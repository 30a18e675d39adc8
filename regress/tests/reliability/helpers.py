"""What the attacks share: start the real `montverif` in a process of its own (so that it can
be signalled like a user's Ctrl-C), wait for a run to reach a state, find a run's processes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from montverif.host.paths import ROOT
from montverif.regress.cli.lint import package_dirs

# `montverif regress` with the results root (history, `latest`) inside the test's folder,
# so that no test touches the checkout's build/regress
_REGRESS = ("import sys; from pathlib import Path; from montverif.regress.cli import regress; "
            "sys.exit(regress.main(sys.argv[2:], results_root=Path(sys.argv[1])))")


def montverif(*args: str, **kw: object) -> subprocess.Popen[str]:
    """`montverif ARGS` started, stdout and stderr captured."""
    return subprocess.Popen([sys.executable, "-m", "montverif.regress.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kw)  # type: ignore[call-overload]


def regress(results_root: Path, *args: str) -> subprocess.Popen[str]:
    """`montverif regress ARGS` with its results root (history, latest) in results_root."""
    return subprocess.Popen([sys.executable, "-c", _REGRESS, str(results_root), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(cond: Callable[[], bool], timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(0.2)


def sim_started(log_dir: Path) -> bool:
    """The run's simulation is past start-up: cocotb runs its first test."""
    log = log_dir / "sim.log"
    return log.exists() and "running " in log.read_text(errors="replace")


def child_sessions(log_dir: Path) -> set[int]:
    """Session ids of the run's simulations: a run's supervisor (flow.simulate starts one
    per run, in a session of its own, naming the run's outcome.json) or a batch's child
    (flow.child, naming the run folders)."""
    out = set()
    record = str(log_dir / "outcome.json").encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if (b"montverif.regress.flow.child" in cmd and str(log_dir).encode() in cmd) or (
                    any(c.endswith(b"supervise.py") for c in cmd) and record in cmd):
                out.add(os.getsid(int(pid)))
        except (OSError, ProcessLookupError):
            continue
    return out


def alive_in(session: int) -> list[str]:
    """The processes still alive in a session (zombies aside)."""
    alive = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.getsid(int(pid)) != session:
                continue
            stat = Path(f"/proc/{pid}/stat").read_text()
            if stat.rsplit(")", 1)[1].split()[0] != "Z":
                alive.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                             .decode(errors="replace")[:120])
        except (OSError, ProcessLookupError):
            continue
    return alive


def ends(proc: subprocess.Popen[str], sig: signal.Signals, timeout_s: float = 60
         ) -> tuple[int, str, str]:
    """Send sig; the exit code, stdout and stderr."""
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=timeout_s)
    return proc.returncode, out, err


def working_in(folder: Path) -> list[str]:
    """The live processes whose working directory lies in `folder` (a tool's tree: SBY and
    its solvers, Yosys, a compiler), zombies aside: their command lines."""
    found = []
    folder = folder.resolve()
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if not Path(f"/proc/{pid}/cwd").resolve().is_relative_to(folder):
                continue
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            found.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                         .decode(errors="replace")[:160])
        except (OSError, IndexError):
            continue
    return found


def stamp_state(folder: Path) -> str:
    """How the command that wrote a results folder ended, as its stamp says."""
    return str(json.loads((folder / ".montverif.json").read_text())["state"])


def interrupted_once(code: int, err: str) -> None:
    """An interrupt's end: exit 130, one `interrupted:` line on stderr as the last line, no
    traceback."""
    assert code == 130, err
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("interrupted: "), err
    assert sum(ln.startswith("interrupted:") for ln in lines) == 1, err


# --- a scratch copy of the checkout ---------------------------------------------------------
# what a copy leaves out: the environment, the build, caches
_NOT_COPIED = (".git", ".venv", "build", "__pycache__", ".pytest_cache", ".ruff_cache",
               ".hypothesis", "*.pyc", "*.egg-info")
# runs `montverif` once per argv of a JSON list in one interpreter (the commands of one
# attack without a start-up each): [exit code, stdout, stderr] per command, a traceback
# in stderr as the command would print it
_COMMANDS = """
import contextlib, io, json, sys, traceback
from montverif.regress.cli import main
done = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except Exception:
            traceback.print_exc()
            code = 1
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""


@dataclass(frozen=True)
class Done:
    """A finished command: its exit code and output."""

    code: int
    out: str
    err: str

    def one_line(self, kind: str = "error") -> str:
        """The one `<kind>:` line of stderr (and nothing else there)."""
        lines = [ln for ln in self.err.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith(f"{kind}: "), self.err
        return lines[0]


@dataclass(frozen=True)
class Tree:
    """A scratch copy of the checkout whose `montverif` runs from it (the package found
    through a view of its folders, as `montverif lint` builds one): what an attack writes
    below its hdl/ never reaches the real one."""

    root: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 300) -> Done:
        """`montverif ARGS` in the tree, as a user runs it."""
        res = subprocess.run([sys.executable, "-m", "montverif.regress.cli", *args],
                             cwd=self.root, env=self.env, capture_output=True, text=True,
                             timeout=timeout, check=False)
        return Done(res.returncode, res.stdout, res.stderr)

    def python(self, code: str, *args: str, timeout: float = 300
               ) -> subprocess.CompletedProcess[str]:
        """A Python program run against the tree's package."""
        return subprocess.run([sys.executable, "-c", code, *args], cwd=self.root,
                              env=self.env, capture_output=True, text=True, timeout=timeout,
                              check=False)

    def commands(self, *argvs: list[str], timeout: float = 300) -> list[Done]:
        """Several `montverif` commands, one after the other in one interpreter."""
        res = self.python(_COMMANDS, json.dumps(argvs), timeout=timeout)
        assert res.returncode == 0, res.stdout + res.stderr
        return [Done(*done) for done in json.loads(res.stdout)]

    def files(self) -> dict[str, bytes]:
        """Every file below hdl/ and the derived files, by path: what a command changed."""
        found = {p.relative_to(self.root).as_posix(): p.read_bytes()
                 for p in sorted((self.root / "hdl").rglob("*"))
                 if p.is_file() and "__pycache__" not in p.parts}
        for rel in ("README.md", "docs/generated/regmap.md"):
            found[rel] = (self.root / rel).read_bytes()
        return found


def scratch_tree(tmp_path: Path) -> Tree:
    """A copy of the checkout the running package comes from (sources, docs, lists), with
    the file times kept (of two descriptors that clash, the newer one is the broken one)."""
    root = tmp_path / "repo"
    root.mkdir()
    for src in ROOT.iterdir():
        if src.name in _NOT_COPIED:
            continue
        if src.is_dir():
            shutil.copytree(src, root / src.name, symlinks=True,
                            ignore=shutil.ignore_patterns(*_NOT_COPIED))
        else:
            shutil.copy2(src, root / src.name)
    view = tmp_path / "view" / "montverif"
    view.mkdir(parents=True)
    (view / "__init__.py").touch()
    for name, folder in package_dirs().items():
        (view / name).symlink_to(root / folder, target_is_directory=True)
    env = os.environ | {
        "PYTHONPATH": str(view.parent),
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    }
    return Tree(root, env)
