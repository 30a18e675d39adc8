"""The Slurm launcher's tests run against a real single-node cluster (cluster.py) that the
fixture starts on this machine for the module and stops after it, as the user who runs
the tests. Where slurm-wlm and munge are not installed they are skipped, except in CI
(CI=true), where that is a failure: CI installs both (ci/apt.sh, make setup as root)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from montverif.regress.tests.slurm.cluster import LocalCluster, missing


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    if why := missing():
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot start the test Slurm cluster: {why}")
        pytest.skip(f"no test Slurm cluster: {why}")
    started = LocalCluster().start()
    before = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(started.conf)  # the launcher's commands in this process
    try:
        yield started
    finally:
        started.stop()
        shutil.rmtree(started.folder, ignore_errors=True)
        if before is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = before
