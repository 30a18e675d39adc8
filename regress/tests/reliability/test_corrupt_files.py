"""Corrupted and foreign-shaped files read back (issue 59, item 5): a regression folder whose
records were cut short, replaced by another program's JSON, written in another encoding or
holding a number too long to read. Every command that reads them gives one line naming the
file, or does its job without them (resume runs a run again whose record is unreadable);
never a traceback. Before: `merge`, `regress --resume`, `closure report`, `bench --update`
and the cycle table ended in JSONDecodeError, TypeError, KeyError, AttributeError or
UnicodeDecodeError tracebacks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from montverif.host.paths import ROOT, sim_builds
from montverif.regress.tests.reliability.helpers import _COMMANDS, Done
from montverif.regress.tests.testshard import standins

# what a corrupted file holds instead of its record
CORRUPTIONS = {
    "cut-short": b'{"list": "sm',
    "empty": b"",
    "foreign": b"[1, 2, 3]\n",
    "wrong-types": b'{"list": 5, "runs": "many", "base_seed": "x", "key": 3, "run": []}\n',
    "not-utf8": b"\xff\xfe{\x00}",
    "huge-int": b'{"list": ' + b"9" * 5000 + b"}\n",
}
# the records a regression folder holds, and the commands that read them back
RECORDS = ["summary.json", "plan.json", "runs/*/result.json", "runs/*/outcome.json",
           "runs/*/txns.jsonl", "runs/*/results.xml", "coverage/summary.json"]
READERS = [
    ["report", "{R}"],
    ["report", "{R}", "--markdown"],
    ["merge", "{W}/merged", "{R}"],
    ["closure", "merge", "{R}"],
    ["closure", "report", "{R}"],
    ["bench", "--update", "--wall-from", "smoke={R}", "--out", "{W}/bench"],
    ["cycles", "{R}", "--write", "{W}/cycles.md"],
    ["regress", "--resume", "--out", "{R}", "--list", "smoke", "--dut", "mont_r2",
     "--history", "{W}/history.jsonl"],
]


def commands(argvs: list[list[str]]) -> list[Done]:
    """The commands one after the other in one interpreter (no start-up each)."""
    res = subprocess.run([sys.executable, "-c", _COMMANDS, json.dumps(argvs)],
                         capture_output=True, text=True, timeout=1800, check=False)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return [Done(*done) for done in json.loads(res.stdout)]


@pytest.mark.sim
@pytest.mark.parametrize("record", standins(RECORDS, ("summary.json",),
                                           seconds=45))
def test_a_corrupted_record_is_one_line_or_read_past(regression: Path, tmp_path: Path,
                                                     record: str) -> None:
    argvs: list[list[str]] = []
    where: list[str] = []
    for name, data in CORRUPTIONS.items():
        for reader in READERS:
            folder = tmp_path / f"{name}-{len(argvs)}"
            copy = folder / "R"
            shutil.copytree(regression, copy)
            for target in copy.glob(record):
                target.write_bytes(data)
            (folder / "bench").mkdir()  # figures for `bench --update` to add wall times to
            shutil.copy(ROOT / "docs" / "generated" / "bench" / "results.json", folder / "bench")
            argvs.append([a.replace("{R}", str(copy)).replace("{W}", str(folder))
                          for a in reader])
            where.append(f"{record} {name}: montverif {' '.join(reader[:2])}")
    for what, done in zip(where, commands(argvs), strict=True):
        assert "Traceback" not in done.err, f"{what}\n{done.err}"
        assert done.code in (0, 1, 2), f"{what}: exit {done.code}\n{done.err}"
        if done.code == 2:  # progress lines may come first; then the one error line
            errors = [ln for ln in done.err.splitlines() if ln.startswith("error:")]
            assert len(errors) == 1 and done.err.strip().endswith(errors[0]), done.err
            # it names the file (or, of logs holding no operation, says there are none)
            assert (Path(record).name in errors[0] or "summary.json" in errors[0]
                    or "no transaction logs" in errors[0]), errors[0]


@pytest.mark.sim
@pytest.mark.parametrize("name", standins(CORRUPTIONS, ("cut-short", "not-utf8")))
def test_other_records_cut_short_or_foreign(regression: Path, tmp_path: Path,
                                            name: str) -> None:
    """A synthesis result, a history file, a lists file and a build stamp that are not what
    montverif wrote: the table takes the synthesis again (or leaves it out), the history
    line is skipped, the lists file is one line, the model is built again."""
    data = CORRUPTIONS[name]
    synth_root = tmp_path / "synth"
    (synth_root / "mont_r2-n32-xc7").mkdir(parents=True)
    (synth_root / "mont_r2-n32-xc7" / "synth.json").write_bytes(data)
    lists = tmp_path / "lists.toml"
    lists.write_bytes(data)
    history = tmp_path / "history.jsonl"
    history.write_bytes(data)
    run = tmp_path / "run"
    first = commands([["sim", "--dut", "mont_r2", "--n", "32", "--txns", "3", "--sim", "icarus",
                       "--out", str(run)]])[0]
    assert first.code == 0, first.err
    stamps = list(sim_builds().glob("mont_r2-n32-b32-icarus/montverif.stamp"))
    assert stamps
    for stamp in stamps:
        stamp.write_bytes(data)
    results = tmp_path / "R"
    shutil.copytree(regression, results)
    table, listed, report, again = commands([
        ["synth", "table", "--designs", "mont_r2", "--widths", "32", "--reuse", "--out",
         str(synth_root)],
        ["lists", "--lists", str(lists)],
        ["report", str(results), "--history", str(history)],
        ["sim", "--dut", "mont_r2", "--n", "32", "--txns", "3", "--sim", "icarus", "--out",
         str(run)]])
    for done in (table, listed, report, again):
        assert "Traceback" not in done.err, done.err
    assert table.code == 0 and "no result for mont_r2-n32-xc7" in table.out, table.out
    if name != "empty":  # an empty lists file is a file of no lists
        assert listed.code == 2 and "lists.toml" in listed.one_line()
    assert report.code == 0 and (results / "report.html").is_file(), report.err
    assert again.code == 0, again.err
