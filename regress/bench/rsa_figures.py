"""RSA core figures for docs/rsa.md, measured, not typed.

    montverif rsa-figures [--widths 1024,2048] [--mults 0,1,2,3,4,5] [--no-write]

For each width and multiplier (the word-based ones at the papers' configurations, mult_params):
one private-key exponentiation (a real gmpy2 RSA key,
e = 65537, the private exponent d) replayed through the full testbench on Verilator (the
scoreboard checks every product and the result); the cycle count is read from the transaction
log and checked against models/rsa.py. The hardware time at 100 MHz is set beside
gmpy2.powmod and `openssl speed rsaN` measured on this machine in the same run, and beside
the figures the papers report. Writes the page docs/generated/rsa-figures.md (docs/rsa.md,
by hand, says how it was measured).
"""

from __future__ import annotations

import json
import platform
import random
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import gmpy2

from montverif.host import pages
from montverif.models import rsa as rsa_model
from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.verif.env.rsa_seq import rsa_key

DOC = pages.GENERATED / "rsa-figures.md"
COMMAND = "montverif rsa-figures"
TITLE = "# The RSA core's measured figures: cycles, simulation time, software beside it"
CLOCK_HZ = 100e6
BUS_W = 64
# Published figures (1024-bit private-key exponentiation)
PAPERS = [
    ("Michalski-Buell 2006 (MWRkMM, 2 x 15 PEs, Virtex2 Pro)", 1024, 3.829e-3, 100e6),
    ("Jiang-Harris (quotient pipelining, radix 2^16, 16 PEs, Virtex II)", 1024, 5.1e-3, 135.7e6),
]
def mult_params(mult: int, n: int) -> dict[str, int]:
    """The multiplier's parameters inside the core at width n (none for the bit-serial ones):
    the papers' configurations (models/rsa.py paper_params)."""
    return rsa_model.paper_params(mult, n)


def mult_label(mult: int, n: int) -> str:
    extra = " ".join(f"{k}={v}" for k, v in mult_params(mult, n).items())
    return f"{rsa_model.mult_name(mult)} (Mult={mult}{', ' + extra if extra else ''})"


def measure_hw(n: int, mult: int, seed: int) -> tuple[int, float]:
    """(cycles, simulation wall seconds) of one private-key exponentiation."""
    rng = random.Random(f"rsa-figures:{n}:{seed}")
    mod, d = rsa_key(n, 65537, rng)
    msg = rng.randrange(2, mod)
    with tempfile.TemporaryDirectory() as tmp:
        vec = Path(tmp) / "key.json"
        vec.write_text(json.dumps({"vectors": [{"msg": hex(msg), "exp": hex(d),
                                                "mod": hex(mod)}]}))
        params = (("Mult", mult), *mult_params(mult, n).items())
        run = RunSpec(BuildSpec("rsa_core", n, BUS_W, "verilator", params=params),
                      seed=seed, txns=1, vectors=str(vec), tests=("VectorTest",),
                      timeout_s=3600)
        outcome = execute(run, Path(tmp) / "run")
        if not outcome.passed:
            raise SystemExit(f"error: {run.key} failed: {outcome.first_error}")
        rec = json.loads((outcome.log_dir / "txns.jsonl").read_text().splitlines()[0])
    cycles = int(rec["cycles"])
    model = rsa_model.rsa_cycles(d, n, Mult=mult, **mult_params(mult, n))
    if cycles != model:
        raise SystemExit(f"error: {run.key}: {cycles} cycles, model {model}")
    if int(rec["p"], 16) != int(gmpy2.powmod(msg, d, mod)):
        raise SystemExit(f"error: {run.key}: wrong result")
    return cycles, outcome.wall_s


def measure_gmpy2(n: int, reps: int = 50) -> float:
    """Seconds per private-key exponentiation with gmpy2.powmod (no CRT)."""
    rng = random.Random(f"rsa-figures-sw:{n}")
    mod, d = rsa_key(n, 65537, rng)
    msg = rng.randrange(2, mod)
    gmod, gd, gmsg = gmpy2.mpz(mod), gmpy2.mpz(d), gmpy2.mpz(msg)
    t0 = time.perf_counter()
    for _ in range(reps):
        gmpy2.powmod(gmsg, gd, gmod)
    return (time.perf_counter() - t0) / reps


def measure_openssl(n: int) -> tuple[float | None, str]:
    """(seconds per private-key operation from `openssl speed -seconds 2 rsaN`, version)."""
    exe = shutil.which("openssl")
    if exe is None:
        return None, "openssl not installed"
    version = subprocess.run([exe, "version"], capture_output=True, text=True).stdout.strip()
    out = subprocess.run([exe, "speed", "-seconds", "2", f"rsa{n}"], capture_output=True,
                         text=True, check=False).stdout
    m = re.search(rf"rsa\s+{n}\s+bits\s+([\d.]+)s", out)
    return (float(m.group(1)) if m else None), version


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def table(widths: list[int], mults: list[int], seed: int) -> str:
    lines = ["| N | multiplier inside | cycles (measured) | time at 100 MHz | sim wall time |",
             "|---|---|---:|---:|---:|"]
    for n in widths:
        for mult in mults:
            cycles, wall = measure_hw(n, mult, seed)
            lines.append(f"| {n} | {mult_label(mult, n)} | {cycles:,} | "
                         f"{ms(cycles / CLOCK_HZ)} | {wall:.0f} s |")
            print(lines[-1], flush=True)
    lines += ["", "| reference | N | time | cycles at its clock |", "|---|---|---:|---:|"]
    for name, n, t, hz in PAPERS:
        lines.append(f"| {name} | {n} | {ms(t)} at {hz / 1e6:g} MHz | {t * hz:,.0f} |")
    cpu = platform.processor() or platform.machine()
    for n in widths:
        lines.append(f"| gmpy2.powmod {gmpy2.version()} (no CRT), this machine ({cpu}) | {n} | "
                     f"{ms(measure_gmpy2(n))} | - |")
        sec, version = measure_openssl(n)
        if sec is None:
            lines.append(f"| openssl speed rsa{n}: {version} | {n} | not measured | - |")
        else:
            lines.append(f"| `openssl speed rsa{n}` private key (CRT), {version} | {n} | "
                         f"{ms(sec)} | - |")
    lines.append("")
    lines.append(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by "
                 f"`montverif rsa-figures` (Verilator, BusW={BUS_W}, one private-key "
                 "exponentiation per row with a gmpy2 RSA key, e = 65537; constant-time core).")
    return "\n".join(lines)


def write_doc(text: str, page: Path = DOC) -> None:
    """The page: its title, then the tables (ConfigError when `page` is someone's own file)."""
    pages.write(page, COMMAND, f"{TITLE}\n\n{text}")
