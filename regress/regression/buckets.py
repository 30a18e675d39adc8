"""Failure buckets: failing runs grouped by a normalised signature of their first error.

The signature is the first scoreboard mismatch or error with everything run-specific taken
out (test name prefix, simulation times, hex and decimal numbers, digests of secret operands,
lists of numbers), so one bug that fails 40 seeds with 40 different operands is one bucket.
Buckets are per design (`dut`): two designs failing the same way are two separate pieces of
RTL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from montverif.spec.secrets import DIGEST

if TYPE_CHECKING:
    from montverif.regress.regression.results import RunResult

_TEST_PREFIX = re.compile(r"^[A-Z]\w*Test: ")
_TIME = re.compile(r"@\s*[\d.]+\s*[munpf]?s\b")
_HEX = re.compile(r"\b0x[0-9a-fA-F_]+\b|\b[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*h\b")
_NUM = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?")
_LIST = re.compile(r"\[(?:\s*(?:#|\d+|'[^']*')\s*,?)+\]")
_PATH = re.compile(r"(?:/[\w.+-]+){2,}")
_SPACE = re.compile(r"\s+")
MAX_SIGNATURE = 160


def signature(first_error: str) -> str:
    """The bucket signature of one first error: same bug, same string."""
    text = first_error.strip().splitlines()[0] if first_error.strip() else "failed"
    text = _TEST_PREFIX.sub("", text)
    text = _PATH.sub("<path>", text)
    text = _TIME.sub("@#", text)
    text = DIGEST.sub("#", text)
    text = _HEX.sub("#", text)
    text = _NUM.sub("#", text)
    text = _LIST.sub("[#...]", text)
    text = re.sub(r"#(?:\s*[,x*]\s*#)+", "#", text)
    return _SPACE.sub(" ", text).strip()[:MAX_SIGNATURE]


@dataclass
class Bucket:
    """Every failing run of one design with one signature; `repro` is the cheapest one."""

    dut: str
    signature: str
    results: list[RunResult] = field(default_factory=list)

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
                "example": ex.run.key, "first_error": ex.first_error, "repro": ex.run.repro()}


def buckets(results: Iterable[RunResult]) -> list[Bucket]:
    """Failing runs grouped by (dut, signature); biggest bucket first."""
    groups: dict[tuple[str, str], Bucket] = {}
    for res in results:
        if res.status != "FAIL":
            continue
        key = (res.run.build.dut, signature(res.first_error))
        groups.setdefault(key, Bucket(*key)).results.append(res)
    return sorted(groups.values(), key=lambda b: (-b.count, b.dut, b.signature))
