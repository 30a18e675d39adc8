"""Vector files in a design's own format (the multiplier testbench's, or the one its vector
loader reads, e.g. the RSA core's msg/exp/mod): what `montverif sim --vectors` replays."""

from __future__ import annotations

import importlib

from montverif.regress.flow.spec import design_tb
from montverif.spec.designs import load_design


def vector_keys(dut: str) -> tuple[str, ...] | None:
    """The keys of a design's own vector format in its operand order (the loader module's
    KEYS, e.g. verif/env/rsa_vectors.py msg, exp, mod), None when it has none we can write."""
    loader = design_tb(dut)[2]
    if loader is None:
        return None
    return getattr(importlib.import_module(loader.partition(":")[0]), "KEYS", None)


def vector_file(dut: str, vecs: list[dict[str, str]]) -> dict[str, object]:
    """The equivalence vectors in the design's vector format; the multiplier format also
    reads P, S, C after reset and after a final CLEAR (idle_reads)."""
    if (keys := vector_keys(dut)) is None:
        return {"idle_reads": True, "vectors": vecs}
    regs = [r.lower() for r in load_design(dut).operands]
    rename = dict(zip(regs, keys, strict=True))
    return {"vectors": [{rename[k]: v for k, v in vec.items()} for vec in vecs]}
