"""Failure buckets: failing runs grouped by a normalised signature of their first error.

The signature is the first scoreboard mismatch or error with everything run-specific taken
out (test name prefix, build and run keys, seeds, absolute and relative paths, simulation
times, hex and decimal numbers, digests of secret operands, lists of numbers), so one bug
that fails 40 seeds with 40 different operands is one bucket, and one cause that fails the
build of every BuildSpec (a missing tool, a broken environment) is one bucket too.
Run failures are bucketed per design (`dut`): two designs failing the same way are two
separate pieces of RTL. A build failure's bucket spans designs: its cause is the build's,
whichever design it was building (the bucket lists them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from montverif.host.secrets import DIGEST

if TYPE_CHECKING:
    from montverif.regress.regression.results import RunResult

BUILD_FAILED = "build failed:"  # the first error of a run whose build failed
_TEST_PREFIX = re.compile(r"^[A-Z]\w*Test: ")
# the test a first error names (a scoreboard mismatch, a watchdog: "RandomTest op 3 ...")
_TEST = re.compile(r"\b([A-Z]\w*Test)\b(?: op \d+)?:? ?")
_TIME = re.compile(r"@\s*[\d.]+\s*[munpf]?s\b")
_HEX = re.compile(r"\b0x[0-9a-fA-F_]+\b|\b[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*h\b")
_NUM = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?")
_LIST = re.compile(r"\[(?:\s*(?:#|\d+|'[^']*')\s*,?)+\]")
# a build key (flow.spec.BuildSpec.key: design, n<N>, parameters, ..., simulator) and a run
# key (the build's, -s<seed>, plusargs, mutant, vectors)
_KEY = re.compile(r"(?<![\w.-])[A-Za-z]\w*-n\d+(?:-[\w.]+)*?-(?:verilator|icarus)"
                  r"(?:-s\d+(?:-[\w.]+)*)?(?![\w.-])")
# the folders of an absolute path (two parts or more: /bin/sh), or of a relative one (folders
# and a name, each with a letter: build/sim/k/build.log, ../x.sv; not 3/4); a hierarchical
# name (top.u_core.s_q) is none. The name stays: `<path>/python3: not found` is another
# cause than `<path>/c++: not found`.
_PART = r"[\w.+-]*[A-Za-z][\w.+-]*"
_PATH = re.compile(rf"(?:/[\w.+-]+)+(?=/[\w.+-]+)|(?<![\w/.+-])(?:\.{{1,2}}/|{_PART}/)*"
                   rf"(?:\.{{1,2}}|{_PART})(?=/{_PART})")
_SEED = re.compile(r"(?<![\w-])(--seed[= ]|seed[= :]*)\d+\b", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
MAX_SIGNATURE = 160


def signature(first_error: str) -> str:
    """The bucket signature of one first error: same cause, same string."""
    text = first_error.strip().splitlines()[0] if first_error.strip() else "failed"
    text = _TEST_PREFIX.sub("", text)
    text = _TEST.sub("", text)  # one bug fails its operations in every test alike
    text = _PATH.sub("<path>", text)
    text = _KEY.sub("<key>", text)
    text = _SEED.sub(lambda m: f"{m[1]}<seed>", text)
    text = _TIME.sub("@#", text)
    text = DIGEST.sub("#", text)
    text = _HEX.sub("#", text)
    text = _NUM.sub("#", text)
    text = _LIST.sub("[#...]", text)
    text = re.sub(r"#(?:\s*[,x*]\s*#)+", "#", text)
    return _SPACE.sub(" ", text).strip()[:MAX_SIGNATURE]


@dataclass
class Bucket:
    """Every failing run of one design (every design, for a build failure) with one
    signature; `repro` is the cheapest one."""

    scope: str  # the design, or "" for a build failure (any design)
    signature: str
    results: list[RunResult] = field(default_factory=list)

    @property
    def dut(self) -> str:
        """The design, or the designs (comma-separated) of a build failure's bucket."""
        return self.scope or ", ".join(sorted({r.run.build.dut for r in self.results}))

    @property
    def count(self) -> int:
        return len(self.results)

    @property
    def seeds(self) -> list[int]:
        return sorted({r.run.seed for r in self.results})

    @property
    def example(self) -> RunResult:
        """The quickest run to reproduce: narrowest, fewest transactions, Verilator first."""
        return min(self.results, key=lambda r: (r.run.build.n, r.run.txns,
                                                r.run.build.sim != "verilator", r.run.key))

    def to_dict(self) -> dict[str, object]:
        ex = self.example
        return {"dut": self.dut, "signature": self.signature, "count": self.count,
                "seeds": self.seeds, "runs": [r.run.key for r in self.results],
                "configs": sorted({r.run.build.key for r in self.results}),
                "tests": self.tests, "example": ex.run.key, "first_error": ex.first_error,
                "repro": ex.run.repro()}

    @property
    def tests(self) -> list[str]:
        """The tests whose operations failed this way (as the first errors name them)."""
        return sorted({m.group(1) for r in self.results
                       if (m := _TEST.search(r.first_error or ""))})


def buckets(results: Iterable[RunResult]) -> list[Bucket]:
    """Failing runs grouped by (dut, signature), build failures by signature alone; biggest
    bucket first."""
    groups: dict[tuple[str, str], Bucket] = {}
    for res in results:
        if res.status != "FAIL":
            continue
        sig = signature(res.first_error)
        key = ("" if sig.startswith(BUILD_FAILED) else res.run.build.dut, sig)
        groups.setdefault(key, Bucket(*key)).results.append(res)
    return sorted(groups.values(), key=lambda b: (-b.count, b.dut, b.signature))
