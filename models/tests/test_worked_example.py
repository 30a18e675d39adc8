"""The thesis's worked example (Amanor 2005, section 5.4: X = 47563, Y = 46337, M = 57349,
simulated there on the Fast Montgomery multiplier, Figure 18) is a directed vector of every
Amanor design (verif/directed/<design>.json, min_n = 16): its CornerTest replays it on every
build of at least 16 bits. At the thesis's n = 16 each bit-accurate model gives the reference
product, and the carry-save ones S and C whose sum is congruent to X·Y·2^-16 and below Y + M
(the loop's bound). Figure 18's printed s_final and c_final are in the figure, which the
project's copy of the thesis does not carry as text: they are not compared."""

from __future__ import annotations

import json
from pathlib import Path

import gmpy2
import pytest

from montverif.models.registry import get_algo
from montverif.spec.designs import known_designs, load_design
from montverif.verif.vectors import DIRECTED, load_vectors

AMANOR = [d for d in known_designs() if load_design(d).paper == "Amanor 2005"]
N = 16


def example(design: str) -> tuple[int, int, int]:
    path = DIRECTED / f"{design}.json"
    found = [v for v in json.loads(path.read_text())["vectors"]
             if "section 5.4" in str(v.get("source", ""))]
    assert len(found) == 1, f"{path} holds the section 5.4 example once"
    return int(found[0]["x"]), int(found[0]["y"]), int(found[0]["m"])


def test_every_amanor_design_has_the_example() -> None:
    assert len(AMANOR) == 6
    assert {example(d) for d in AMANOR} == {(47563, 46337, 57349)}


@pytest.mark.parametrize("design", AMANOR)
def test_the_model_computes_the_example_at_the_thesis_width(design: str) -> None:
    x, y, m = example(design)
    info = get_algo(design)
    result = info.func(x, y, m, N)
    if info.kind == "mont":
        r_inv = int(gmpy2.invert(1 << N, m))
        assert result.p == x * y * r_inv % m
        if result.s is not None and result.c is not None:
            assert (result.s + result.c) % m == x * y * r_inv % m
            assert result.s + result.c < y + m
    else:
        assert result.p == x * y % m


def test_the_example_applies_from_16_bits(tmp_path: Path) -> None:
    """min_n keeps the example out of a narrower build (its M has 16 bits) and in at 16."""
    path = DIRECTED / "mont_csa.json"
    assert load_vectors(path, 8) == []
    assert load_vectors(path, 16) == [(47563, 46337, 57349)]
    bad = tmp_path / "v.json"
    bad.write_text(json.dumps({"vectors": [{"x": 1, "y": 1, "m": 3, "min_n": "16"}]}))
    with pytest.raises(Exception, match=r"vectors\[0\]\.min_n: expected a width"):
        load_vectors(bad, 8)
