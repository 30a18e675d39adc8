"""ci/act.sh's stand-in actions (ci/act/<owner>/<repo>/): one for every action the workflows
use, each a valid composite action, and the artifact pair keeping the real actions' rules
(the deepest common folder is an artifact's root; a pattern downloads each artifact into a
folder of its name). `.ci/run` runs a whole job through them (pr.yml's smoke job)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from montverif.host.paths import ROOT
from montverif.regress.bench import cijobs

STANDINS = ROOT / "ci" / "act"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def used_actions() -> set[str]:
    found = set()
    for wf in WORKFLOWS:
        for job in yaml.safe_load(wf.read_text())["jobs"].values():
            found |= {step["uses"] for step in job["steps"] if "uses" in step}
    return found


def test_every_action_the_workflows_use_has_a_stand_in() -> None:
    used = used_actions()
    assert {"actions/checkout@v4", "actions/upload-artifact@v4"} <= used
    for action in used:
        spec = yaml.safe_load((STANDINS / action.split("@")[0] / "action.yml").read_text())
        assert spec["runs"]["using"] == "composite", action
        assert spec["runs"]["steps"], action


def test_every_job_runs_on_the_tested_system() -> None:
    """Every job names the container ci/act.sh checks the host against."""
    for wf in WORKFLOWS:
        for name, job in yaml.safe_load(wf.read_text())["jobs"].items():
            assert job.get("container") == "debian:bookworm", f"{wf.name}: {name}"
            runs = " ".join(step.get("run", "") for step in job["steps"])
            assert "ci/apt.sh" in runs, f"{wf.name}: {name} installs no system packages"


def test_act_sh_refuses_an_unknown_job_or_workflow() -> None:
    for args in (["nosuch", "smoke"], ["pr"], ["pr", "smoke", "not-a-pair"]):
        res = subprocess.run(["bash", str(ROOT / "ci" / "act.sh"), *args],
                             capture_output=True, text=True, check=False)
        assert res.returncode == 2, (args, res.stderr)
        assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1


def _action(name: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    script = next((STANDINS / "actions" / name).glob("*.py"))
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env=os.environ | env,
                          capture_output=True, text=True, check=False)


def test_artifacts_round_trip_by_the_real_actions_rules(tmp_path: Path) -> None:
    work, store = tmp_path / "work", tmp_path / "store"
    (work / "res" / "runs" / "a").mkdir(parents=True)
    (work / "res" / "report.html").write_text("r")
    (work / "res" / "runs" / "a" / "sim.log").write_text("s")
    (work / "res" / "runs" / "a" / "other.txt").write_text("o")
    up = _action("upload-artifact", {"NAME": "shard-1", "IF_NONE": "error",
                                     "MV_ACT_ARTIFACTS": str(store),
                                     "PATHS": "res/report.html\nres/runs/**/sim.log\n"}, work)
    assert up.returncode == 0, up.stderr
    got = sorted(p.relative_to(store).as_posix() for p in store.rglob("*") if p.is_file())
    assert got == ["shard-1/report.html", "shard-1/runs/a/sim.log"]
    none = _action("upload-artifact", {"NAME": "x", "IF_NONE": "error", "PATHS": "nothing/*",
                                       "MV_ACT_ARTIFACTS": str(store)}, work)
    assert none.returncode == 1 and "no files found" in none.stderr
    down = _action("download-artifact", {"NAME": "", "PATTERN": "shard-*", "DEST": "shards",
                                         "MERGE": "false", "MV_ACT_ARTIFACTS": str(store)},
                   tmp_path)
    assert down.returncode == 0, down.stderr
    assert (tmp_path / "shards" / "shard-1" / "runs" / "a" / "sim.log").read_text() == "s"
    missing = _action("download-artifact", {"NAME": "nosuch", "PATTERN": "", "DEST": ".",
                                            "MERGE": "false", "MV_ACT_ARTIFACTS": str(store)},
                      tmp_path)
    assert missing.returncode == 1 and "no artifact 'nosuch'" in missing.stderr


@pytest.mark.parametrize("wf", WORKFLOWS, ids=lambda p: p.name)
def test_no_step_uses_sudo_itself(wf: Path) -> None:
    """A container job is root with no sudo: the one privileged script escalates itself."""
    assert not re.search(r"\bsudo\b", wf.read_text())


@pytest.mark.skipif(os.getuid() != 0, reason="act.sh as another user needs passwordless sudo")
def test_act_sh_keeps_a_record_and_a_log_per_matrix_entry(tmp_path: Path) -> None:
    """What ci/act.sh keeps of a job (the docs' table of jobs reads it: bench --ci-from): its
    log and record named by the matrix entry, with the pairs given, the revision and the
    job's own exit status (act's, here a stand-in of act that fails)."""
    fake = tmp_path / "act"
    fake.write_text("#!/bin/sh\necho \"[weekly/shard] args: $*\"\n"
                    "echo '[weekly/shard]   ❌  Failure - Main mutation [2m3.5s]'\nexit 3\n")
    fake.chmod(0o755)
    env = os.environ | {"MV_ACT": str(fake), "MV_ACT_USER": "root",
                        "MV_ACT_OUT": str(tmp_path / "out")}
    folder = tmp_path / "out" / "weekly"
    folder.mkdir(parents=True)  # what a killed earlier run left: a record half written
    (folder / "shard-shard-2.json.part").write_text('{"workflow": "wee')
    res = subprocess.run(["bash", str(ROOT / "ci" / "act.sh"), "weekly", "shard", "X=a b",
                          "--", "--matrix", "shard:2"], env=env, capture_output=True,
                         text=True, check=False)
    assert res.returncode == 3, res.stderr
    assert sorted(p.name for p in folder.glob("shard-shard-2.*")) == [
        "shard-shard-2.json", "shard-shard-2.log"]  # written whole, then renamed
    log = (folder / "shard-shard-2.log").read_text()
    assert "--matrix shard:2" in log and "--env X=a b" in log
    record = json.loads((folder / "shard-shard-2.json").read_text())
    assert record["exit"] == 3 and record["matrix"] == ["shard:2"] and record["env"] == ["X=a b"]
    assert record["log"] == "shard-shard-2.log" and re.fullmatch(r"[0-9a-f]{7}(\+changes)?",
                                                                 record["git"])
    [job] = cijobs.read(tmp_path / "out")
    assert (job["step"], job["step_s"], job["step_ok"]) == ("mutation", 123.5, False)
