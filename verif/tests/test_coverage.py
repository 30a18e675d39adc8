"""The coverage model without a simulator: corner classes, summary, and mergeable XML."""

from __future__ import annotations

import json
import logging
import xml.etree.ElementTree as ET

from cocotb_coverage.coverage import coverage_db, merge_coverage

from verif.env.coverage import Coverage, modulus_class, operand_class

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
            return int(el.get("hits"))
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
