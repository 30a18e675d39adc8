"""One writer per folder, and nothing deleted that the command did not create (issue 59,
item 2): every command with an output folder (`mutate` and its subcommands, `closure`,
`merge`, `report`, `bench`, `synth`, `formal`, `sim`) refuses a folder that another process
is writing, that holds another kind of result or files montverif did not write, and (unless
--force) one that holds its own kind of result already; nothing in a refused folder is
touched. Before: `mutate proofs prove --out D` deleted D, `mutate --out R` over a regression
deleted its runs/ and exited 0, a second `mutate --out D` deleted the first's mutants/,
`merge A B` rewrote regression A, `closure run --out D` twice replaced the first closure."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.regress.tests.reliability.helpers import montverif, stamp_state, wait_for
from montverif.regress.tests.testshard import standins

MONTVERIF = Path(sys.executable).parent / "montverif"


def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MONTVERIF), *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def refused(cp: subprocess.CompletedProcess[str], words: str) -> None:
    """Exactly one `error:` line holding `words`, exit code 2."""
    lines = [ln for ln in cp.stderr.splitlines() if ln.strip()]
    assert cp.returncode == 2, cp.stdout + cp.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), cp.stderr
    assert words in lines[0], lines[0]


def digest(folder: Path) -> dict[str, str]:
    """Every file below `folder` (the owner's lock aside) and its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".lock"}


@pytest.mark.sim
def test_a_finished_regression_says_so_in_its_stamp(regression: Path) -> None:
    assert stamp_state(regression) == "complete"


@pytest.fixture
def users_folder(tmp_path: Path) -> Path:
    """A folder of the user's own files, which no command may touch."""
    folder = tmp_path / "mine"
    (folder / "notes").mkdir(parents=True)
    (folder / "thesis.tex").write_text("chapter 1\n")
    (folder / "notes" / "todo.txt").write_text("everything\n")
    return folder


# each command with an output folder; --force where it has one (it never reaches beyond
# the command's own kind of result)
WRITERS = [
    ("mutate", "--dut", "mont_r2", "--mutants", "2", "--force"),
    ("mutate", "proofs", "prove", "--dut", "mont_r2", "--force"),
    ("mutate", "proofs", "renew", "--dut", "mont_r2", "--force"),
    ("closure", "run", "--dut", "mont_r2", "--budget-seeds", "1", "--force"),
    ("synth", "run", "--dut", "mont_r2", "--n", "32", "--force"),
    ("synth", "pnr", "--dut", "mont_r2", "--n", "32", "--force"),
    ("formal", "--dut", "mont_r2", "--force"),
    ("formal", "--points", "--dut", "mont_r2", "--force"),
    ("formal", "--covers", "--dut", "mont_r2", "--force"),
    ("sim", "--dut", "mont_r2", "--n", "32"),
    ("bench", "--update"),
]


@pytest.mark.sim
@pytest.mark.parametrize("argv", WRITERS, ids=lambda a: "-".join(a[:2]))
# a user's own folder in make test (what a user loses); a regression's folder in the nightly
@pytest.mark.parametrize("victim", standins(["users_folder", "regression"], ["users_folder"],
                                            seconds=3))
def test_a_folder_of_something_else_is_refused_and_left_as_it_was(
        argv: tuple[str, ...], victim: str, request: pytest.FixtureRequest) -> None:
    folder: Path = request.getfixturevalue(victim)
    before = digest(folder)
    cp = run(*argv, "--out", str(folder))
    refused(cp, "files montverif did not write" if victim == "users_folder"
            else "holds a regression")
    assert digest(folder) == before


@pytest.mark.sim
def test_merge_never_writes_over_a_regression_nor_into_a_shard(regression: Path,
                                                               tmp_path: Path) -> None:
    before = digest(regression)
    refused(run("merge", str(regression), str(regression)), "cannot be, hold or lie in")
    refused(run("merge", str(tmp_path / "x"), str(regression), str(regression)),
            "named twice")
    other = tmp_path / "other"
    other.mkdir()
    (other / "file.txt").write_text("mine")
    refused(run("merge", str(other), str(regression)), "files montverif did not write")
    merged = tmp_path / "merged"
    assert run("merge", str(merged), str(regression)).returncode == 0
    refused(run("merge", str(merged), str(regression)), "add --force to replace it")
    assert run("merge", str(merged), str(regression), "--force").returncode == 0
    # a regression named as OUT is refused, even with --force: it is not a merge's to replace
    assert digest(regression) == before


@pytest.mark.sim
def test_a_second_closure_into_a_folder_is_refused_unless_forced(tmp_path: Path) -> None:
    folder = tmp_path / "closure"
    args = ("closure", "run", "--dut", "mont_r2", "--budget-seeds", "1", "--sim", "icarus",
            "--out", str(folder))
    assert run(*args).returncode in (0, 1)
    before = digest(folder)
    refused(run(*args), "holds a coverage closure already")
    assert digest(folder) == before
    assert run(*args, "--force").returncode in (0, 1)
    assert stamp_state(folder) == "complete"


@pytest.mark.nightly(seconds=10)
@pytest.mark.sim
def test_a_second_campaign_into_a_busy_folder_is_refused_before_it_touches_it(
        tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    first = montverif("mutate", "--dut", "mont_lut", "--mutants", "4", "--out", str(folder))
    wait_for(lambda: (folder / "mutants").is_dir(), 300, "the first campaign's mutants")
    second = run("mutate", "--dut", "mont_lut", "--mutants", "4", "--out", str(folder),
                 "--force")
    refused(second, "is being written by pid")
    assert (folder / "mutants").is_dir()
    out, err = first.communicate(timeout=600)
    assert first.returncode == 0, err[-2000:]
    assert (folder / "mutants.json").is_file() and stamp_state(folder) == "complete"


@pytest.mark.sim
def test_reports_are_rendered_again_only_into_their_own_kind_of_folder(
        regression: Path, users_folder: Path) -> None:
    before = digest(regression)
    refused(run("mutate", "report", str(regression)), "not a mutation campaign")
    refused(run("closure", "merge", str(users_folder)), "files montverif did not write")
    assert digest(regression) == before
