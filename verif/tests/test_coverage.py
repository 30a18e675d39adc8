"""The coverage model without a simulator: corner classes, summary, and mergeable XML."""

from __future__ import annotations

import json
import logging
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db, merge_coverage

from montverif.verif.env.coverage import Batched, Coverage
from montverif.verif.env.rsa_coverage import RsaCoverage
from montverif.verif.operands import modulus_class, operand_class

N = 8


def test_operand_and_modulus_classes():
    m = 0xEB
    assert operand_class(0, 5, m, N) == "zero"
    assert operand_class(1, 5, m, N) == "one"
    assert operand_class(m - 1, 5, m, N) == "m_minus_1"
    assert operand_class(7, 7, m, N) == "equal_other"
    assert operand_class(9, 5, m, N) == "short"
    assert operand_class(200, 5, m, N) == "wide"
    assert modulus_class(0x81, N) == "pow2_plus_1"
    assert modulus_class(0xFF, N) == "all_ones"
    assert modulus_class(0xEB, N) == "top_bit"
    assert modulus_class(0x3B, N) == "short"


def _bin_hits(xml_path, point: str, bin_index: int) -> int:
    name = f"top.{point}.bin{bin_index}"
    for el in ET.parse(xml_path).getroot().iter():
        if el.get("abs_name") == name:
            return int(el.get("hits", ""))
    raise AssertionError(f"{name} not in {xml_path}")


def test_summary_and_merge(tmp_path):
    cov = Coverage("covtest", 16)
    run_a, run_b = tmp_path / "a", tmp_path / "b"
    run_a.mkdir()
    run_b.mkdir()
    cov.sample_operation({"X": 0, "Y": 5, "M": 0xEB}, N, [1] * 4 + [0] * 12, sub_taken=True)
    cov.sample_error("ERR_BUSY")
    cov.export(run_a)
    summary = json.loads((run_a / "coverage.json").read_text())
    assert summary["covtest.lut.addr"]["hits"] == 4
    assert "4" in summary["covtest.lut.addr"]["missing"]
    assert summary["covtest.final_sub"]["missing"] == ["not_taken"]
    cov.sample_operation({"X": 7, "Y": 7, "M": 0x81}, N, [0] * 4 + [1] * 12, sub_taken=False)
    cov.export(run_b)
    merged = tmp_path / "merged.xml"
    merge_coverage(logging.getLogger("test").info, str(merged), str(run_a / "coverage.xml"),
                   str(run_b / "coverage.xml"))
    # run b exported the cumulative database; the merge sums the two files bin by bin
    assert _bin_hits(run_a / "coverage.xml", "covtest.lut.addr", 0) == 1
    assert _bin_hits(run_a / "coverage.xml", "covtest.lut.addr", 4) == 0
    assert _bin_hits(run_b / "coverage.xml", "covtest.lut.addr", 4) == 1
    assert _bin_hits(merged, "covtest.lut.addr", 0) == 2
    assert _bin_hits(merged, "covtest.lut.addr", 4) == 1
    assert coverage_db["covtest.lut.addr"].cover_percentage == 100.0


def test_illegal_bins_get_no_coverage_bin():
    cov = Coverage("covillegal", 8, illegal_bins=(3, 7))
    cov.sample_operation({"X": 1, "Y": 2, "M": 0xEB}, N, [1] * 8, sub_taken=False)
    summary = cov.summary()
    assert summary["covillegal.lut.addr"]["size"] == 6
    assert summary["covillegal.lut.addr"]["covered"] == 100.0


def _unbatched(cov: Coverage) -> Coverage:
    """The same coverage model with every sample applied at once (flushed after each: every
    point's sampling function called once a sample, cocotb-coverage's own sampling, no
    counts)."""
    def at_once(sample: Callable[..., None]) -> Callable[..., None]:
        def sample_now(*args: Any, **kwargs: Any) -> None:
            sample(*args, **kwargs)
            cov.flush()
        return sample_now

    cov.sample_operation = at_once(cov.sample_operation)  # type: ignore[method-assign]
    cov.sample_error = at_once(cov.sample_error)  # type: ignore[method-assign]
    return cov


def _items(prefix: str) -> dict[str, object]:
    """Every cover item under `prefix`, named without it: a point's or cross's hits per bin,
    and the coverage and size of every point, cross and group."""
    return {name[len(prefix):]: (dict(item.detailed_coverage)
                                 if isinstance(item, CoverPoint | CoverCross) else None,
                                 item.coverage, item.size)
            for name, item in coverage_db.items() if name.startswith(prefix + ".")}


def test_batched_samples_give_cocotb_coverages_own_hits():
    """Counted samples, applied at flush, leave every point, cross and group with the hits
    and coverage that sampling each operation at once gives: points with labelled bins,
    points that hit several bins per sample, crosses, operand halves and field crosses."""
    rnd = random.Random(7)
    def coverage(name: str) -> Coverage:
        return Coverage(name, 8, illegal_bins=(5,), carry_save=(("X", "X2"),), has_field=True)

    batched, direct = coverage("covbatch"), _unbatched(coverage("covdirect"))
    ms = [0x81, 0xFF, 0xEB, 0x3B]
    for _ in range(300):
        m = rnd.choice(ms)
        ops = {"X": rnd.choice([0, 1, m - 1, rnd.randrange(m)]), "X2": rnd.choice([0, 3]),
               "Y": rnd.choice([1, rnd.randrange(m)]), "M": m}
        hits = [rnd.choice([0, 0, 1, 5]) for _ in range(8)]
        hits[5] = 0
        sub, field = rnd.random() < 0.3, rnd.randrange(2)
        err = rnd.choice(["ERR_BUSY", "ERR_RANGE", "ERR_NONE"])
        for cov in (batched, direct):
            cov.sample_operation(ops, N, hits, sub_taken=sub, field=field)
            cov.sample_error(err)
    before = _items("covbatch")
    batched.flush()
    after = _items("covbatch")
    assert after == _items("covdirect")
    assert after != before  # the samples reached the database at flush, not before
    assert coverage_db["covbatch"].coverage == coverage_db["covdirect"].coverage
    assert coverage_db["covbatch"].coverage < coverage_db["covbatch"].size  # bins missing
    batched.flush()  # a second flush adds nothing
    assert _items("covbatch") == after


def test_batched_counts_reach_at_least_and_the_parents():
    """A bin that needs three hits is covered after three counted samples, and the groups
    above it see the coverage change."""
    @CoverPoint("covleast.grp.p", bins=["a", "b"], at_least=3)
    def _p(v: str) -> None: ...

    sampler = Batched(_p, ["covleast.grp.p"])
    for v in ["a", "a", "b", "a"]:
        sampler(v)
    assert coverage_db["covleast.grp.p"].detailed_coverage == {"a": 0, "b": 0}
    sampler.flush()
    assert coverage_db["covleast.grp.p"].detailed_coverage == {"a": 3, "b": 1}
    assert coverage_db["covleast.grp.p"].coverage == 1
    assert coverage_db["covleast.grp"].coverage == 1
    assert coverage_db["covleast"].coverage == 1


def test_a_design_without_observation_has_no_dead_points() -> None:
    """A core that observes no table and reports no final subtraction (a core of its own)
    gets neither point, nor the cross with the subtraction: every bin can be hit."""
    from cocotb_coverage.coverage import coverage_db

    cov = Coverage("covblack", 0, has_sub=False)
    cov.sample_operation({"X": 3, "Y": 5, "M": 11}, 8, [], False)
    cov.flush()
    names = [n for n in coverage_db if n.startswith("covblack.")]
    assert "covblack.operands.x" in names
    assert not [n for n in names if "lut" in n or "sub" in n]


def test_a_design_without_a_range_rule_has_no_range_error_bin() -> None:
    """Every operand of any N-bit value (mont_r2, mont_csa, mont_lut): the loader never
    answers ERR_RANGE, so errors.code has no bin for it; with a range rule it has."""
    from cocotb_coverage.coverage import coverage_db

    wide, narrow = Coverage("covwide", 4, has_range=False), Coverage("covnarrow", 4)
    for cov in (wide, narrow):
        for err in ("ERR_EVEN_MODULUS", "ERR_RANGE", "ERR_BUSY", "ERR_UNMAPPED"):
            cov.sample_error(err)
        cov.flush()
    assert coverage_db["covwide.errors.code"].size == 3
    assert coverage_db["covwide.errors.code"].coverage == 3
    assert coverage_db["covnarrow.errors.code"].size == 4
    assert coverage_db["covnarrow.errors.code"].coverage == 4


def test_the_rsa_coverage_reports_without_operation_samples():
    """The RSA core's coverage (a Coverage of its own points, no per-operation samples of a
    multiplier) flushes and reports what it sampled."""
    cov = RsaCoverage("covrsa", const_time=True)
    cov.sample_exp(1, 0b1011, 0xFB, 8)
    cov.sample_error("ERR_RANGE")
    summary = cov.summary()
    assert summary["covrsa.msg"]["hits"] == 1 and summary["covrsa.errors.code"]["hits"] == 1
