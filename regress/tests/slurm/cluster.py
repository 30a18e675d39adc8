"""A real single-node Slurm cluster on this machine, for the Slurm launcher's tests and for
measuring it: its own munge daemon (own key and socket), slurmctld and slurmd with a
minimal slurm.conf (this host with its cores, cons_tres, proctrack/linuxproc), free ports,
and every state, spool, pid and log file in one temporary folder. Needs Debian's slurm-wlm
and munge (`make setup` installs them as root). The daemons run as the user who starts
them (SlurmUser and SlurmdUser are that user), root or not: jobs are then that user's.

    python -m montverif.regress.tests.slurm.cluster start DIR   (prints `export SLURM_CONF=...`)
    python -m montverif.regress.tests.slurm.cluster stop DIR
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DAEMONS = ("slurmctld", "slurmd", "munged")
COMMANDS = ("sbatch", "squeue", "scancel", "sinfo", "scontrol", *DAEMONS)
PARTITION = "mv"


def missing() -> str:
    """Why no cluster can be started here ("" if one can)."""
    if absent := [c for c in COMMANDS if shutil.which(c) is None and
                  not Path(f"/usr/sbin/{c}").exists()]:
        return (f"{', '.join(absent)} not installed (make setup installs slurm-wlm and "
                "munge as root)")
    return ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _exe(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


def _memory_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return max(1000, int(line.split()[1]) // 1024 - 1000)
    return 4000


class LocalCluster:
    """One cluster in `folder` (a new temporary one by default: short paths, as slurmd's
    socket path must stay under 108 characters)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or Path(tempfile.mkdtemp(prefix="mvslurm-", dir="/tmp"))
        self.folder.chmod(0o755)  # munged wants its socket's folders searchable by all
        self.conf = self.folder / "slurm.conf"
        self.host = socket.gethostname().split(".")[0]
        self.cpus = os.cpu_count() or 1
        self.user = pwd.getpwuid(os.geteuid()).pw_name

    @property
    def env(self) -> dict[str, str]:
        """This process's environment with the cluster's clients pointed at it."""
        return os.environ | {"SLURM_CONF": str(self.conf)}

    def _write(self) -> None:
        f = self.folder
        for sub in ("state", "spool", "log", "run"):
            (f / sub).mkdir(parents=True, exist_ok=True)
        key = f / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self.conf.write_text(f"""ClusterName=mvtest
SlurmctldHost={self.host}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={f}/run/munge.sock
SlurmUser={self.user}
SlurmdUser={self.user}
StateSaveLocation={f}/state
SlurmdSpoolDir={f}/spool
SlurmctldPidFile={f}/run/slurmctld.pid
SlurmdPidFile={f}/run/slurmd.pid
SlurmctldLogFile={f}/log/slurmctld.log
SlurmdLogFile={f}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
JobRequeue=0
NodeName={self.host} CPUs={self.cpus} RealMemory={_memory_mb()} State=UNKNOWN
PartitionName={PARTITION} Nodes={self.host} Default=YES MaxTime=INFINITE State=UP
""")

    def start(self, timeout: float = 60) -> LocalCluster:
        """Configure and start munged, slurmctld and slurmd; return once the node is idle."""
        self._write()
        f = self.folder
        subprocess.run([_exe("munged"), *(["--force"] if os.geteuid() == 0 else []),
                        f"--socket={f}/run/munge.sock",
                        f"--key-file={f}/munge.key", f"--log-file={f}/log/munged.log",
                        f"--pid-file={f}/run/munged.pid", f"--seed-file={f}/run/munged.seed"],
                       check=True, capture_output=True)
        for daemon in ("slurmctld", "slurmd"):
            subprocess.run([_exe(daemon), "-f", str(self.conf)], check=True,
                           capture_output=True, env=self.env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True,
                                 env=self.env, check=False)
            if got.stdout.strip() == "idle":
                return self
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the test cluster's node did not become idle in {timeout:.0f} s; "
                           f"see {f}/log")

    def sinfo_state(self) -> str:
        return subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True,
                              env=self.env, check=False).stdout.strip()

    def scontrol(self, *args: str) -> str:
        return subprocess.run(["scontrol", *args], capture_output=True, text=True,
                              env=self.env, check=True).stdout

    def stop(self) -> None:
        """Cancel every job, stop the daemons (by their pid files), leave the folder."""
        subprocess.run(["scancel", "--full", "--user", self.user], capture_output=True,
                       env=self.env, check=False)
        for daemon in DAEMONS:
            pid_file = self.folder / "run" / f"{daemon}.pid"
            try:
                pid = int(pid_file.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m montverif.regress.tests.slurm.cluster start|stop DIR",
              file=sys.stderr)
        return 2
    folder = Path(argv[1]).resolve()
    if argv[0] == "start":
        if why := missing():
            print(f"error: {why}", file=sys.stderr)
            return 2
        folder.mkdir(parents=True, exist_ok=True)
        cluster = LocalCluster(folder).start()
        print(f"export SLURM_CONF={cluster.conf}")
        return 0
    LocalCluster(folder).stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
