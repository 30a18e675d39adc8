"""Secret operands: how their values appear in what the project writes.

A design's descriptor names the registers that hold a secret (`[operands] secret`, the RSA
core's private exponent E); that list is the one source. Every log, report and artifact of
a run shows a secret register's value as its digest, `sha256:` and the first 16 hex digits
of the SHA-256 of `<width>:<value in lower-case hex>`, never the value. The digest is
stable, so two runs of one seed still compare (the cross-simulator diff, the mutation
flow's equivalence runs, `--resume`) while the value cannot be read back from it. Parts of
a secret (a bus word of it) and values the testbench computes from one (the RSA core's
intermediate products, the registers its wipe check reads) are left out (HIDDEN): a digest
of a 32-bit word is undone by trying all 2^32 words, one word after the other, and digests
of the intermediate products would still show which of them are equal, and with that the
exponent's bits.

`montverif sim` / `montverif regress --keep-secrets` (make `KEEP_SECRETS=1`) keeps them in
clear, for debugging; the flow tells the simulation with MV_KEEP_SECRETS.

A digest of a narrow value is found back by trying every value (an 8-bit exponent has 256):
it protects keys of real width, not toy ones.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

DIGEST_PREFIX = "sha256:"
DIGEST_HEX = 16
DIGEST = re.compile(rf"\b{DIGEST_PREFIX}[0-9a-f]{{{DIGEST_HEX}}}\b")  # one, in any text
HIDDEN = "<secret>"  # a value computed from a secret, in a message


def digest(value: int, width: int) -> str:
    """`sha256:<16 hex>` of the value with its width in bits (`<width>:<hex>`)."""
    text = f"{width}:{value:x}"
    return DIGEST_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:DIGEST_HEX]


@dataclass(frozen=True)
class Secrets:
    """The secret registers of one run's design, N, and whether the run keeps them (the
    default: no secret registers, nothing to redact)."""

    registers: frozenset[str] = frozenset()
    width: int = 0  # N: the width a register's digest is taken at
    keep: bool = False  # --keep-secrets: every value in clear

    @staticmethod
    def of(registers: Iterable[str], width: int, keep: bool = False) -> Secrets:
        return Secrets(frozenset(registers), width, keep)

    @property
    def redacting(self) -> bool:
        """Whether anything is redacted: the design has secret registers, not kept."""
        return bool(self.registers) and not self.keep

    def secret(self, register: str | None) -> bool:
        """Whether the register's values are redacted in this run."""
        return not self.keep and register in self.registers

    def show(self, register: str, value: int) -> str:
        """A register's whole value as every log writes it: 0x-hex, or the digest of a
        secret one (at N bits)."""
        return digest(value, self.width) if self.secret(register) else f"{value:#x}"

    def part(self, register: str | None, value: int) -> str:
        """A part of a register's value (a bus word): 0x-hex, or HIDDEN for a secret one."""
        return HIDDEN if self.secret(register) else f"{value:#x}"

    def derived(self, value: int) -> str:
        """A value computed from a secret operand: 0x-hex when kept (or when the design has
        no secret), else HIDDEN."""
        return HIDDEN if self.redacting else f"{value:#x}"
