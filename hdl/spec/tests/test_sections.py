"""The descriptor's typed sections (montverif.spec.sections) against its schema and its files:
each section class has a field for every key the schema gives its table (a key added to one
and not the other fails here), and every design's sections hold what its file says."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from montverif.spec import schema, sections
from montverif.spec.designs import known_designs, load_design

# section -> its class and the keys the class holds otherwise (or leaves to the reader)
CLASSES: dict[str, tuple[type, set[str]]] = {
    "coverage": (sections.CoverageGoal, set()),
    "testbench": (sections.Testbench, set()),
    "test": (sections.SimPoints, set()),
    "observe": (sections.Observe, set()),
    "paper": (sections.PaperCycles, set()),
    "rsa": (sections.RsaMonitor, {"variants"}),  # Rsa.variants beside Rsa.table
}


@pytest.mark.parametrize("section", sorted(CLASSES))
def test_a_section_class_holds_every_key_of_its_table(section: str) -> None:
    cls, beside = CLASSES[section]
    keys = set(schema.section_keys()[section] or ())
    fields = {f.name for f in dataclasses.fields(cls)}
    assert keys - beside == fields, (section, sorted(keys ^ fields))


@pytest.mark.parametrize("name", known_designs())
def test_every_design_s_sections_hold_its_file(name: str) -> None:
    design = load_design(name)
    raw = tomllib.loads(design.descriptor.read_text())
    cov = raw.get("coverage", {})
    assert design.coverage == sections.CoverageGoal(
        float(cov.get("goal", 100)), tuple(cov.get("waive", ())), cov.get("waive_reason", ""))
    obs = raw.get("observe", {})
    assert design.observe.lut_hits == obs.get("lut_hits", "")
    assert design.observe.illegal_bins == tuple(obs.get("illegal_bins", ()))
    test = raw.get("test", {})
    for sim in sections.SIMULATORS:
        assert [[p.n, p.bus_w, p.txns, p.ack_wait] for p in design.test.on(sim)] == \
            [p[:4] for p in test.get(sim, [])]
        assert [dict(p.params) for p in design.test.on(sim)] == \
            [p[4] if len(p) > 4 else {} for p in test.get(sim, [])]
    paper = raw.get("paper", {})
    assert design.paper_cycles.cycles == paper.get("cycles", "")
    assert len(design.paper_cycles.figures) == len(paper.get("figures", []))
    assert (design.rsa is None) == ("rsa" not in raw)
    if design.rsa is not None:
        assert design.rsa.table.mults == tuple(raw["rsa"]["mults"])
        assert len(design.rsa.variants) == len(raw["rsa"].get("variants", []))
