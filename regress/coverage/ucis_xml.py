"""Functional coverage as UCIS XML: the Accellera UCIS interchange format, written with pyucis,
beside cocotb-coverage's own XML (regress/coverage/merge.py writes both):

    <results>/coverage/<dut>.ucis.xml    one design's merged coverage
    <results>/coverage/merged.ucis.xml   every design

The database has one instance (`top`, design unit `montverif`), one covergroup per design with
one cover instance of the same name, and one coverpoint per cocotb-coverage cover point or
cross, named by its path below the design (`lut.addr`, `cross.sub_x_m`; crosses are written
as coverpoints whose bins are the tuples, because cocotb-coverage's XML does not name a cross's
source points). Each coverpoint carries the point's `at_least`; its bins are `bins` with the
merged hit counts, and the bins the design's descriptor waives are `ignore` bins, so a UCIS
reader counts covered/total as summary.json does.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DESIGN_UNIT = "montverif"
INSTANCE = "top"


@dataclass(frozen=True)
class UcisPoint:
    """One cover point of a design: its name below the design, hits per bin, waived bins."""

    name: str
    at_least: int
    hits: Mapping[str, int]
    waived: frozenset[str] = frozenset()


def write_ucis(path: Path, designs: Mapping[str, Sequence[UcisPoint]]) -> None:
    """Write the designs' cover points as one UCIS XML file."""
    # pyucis only here, where a file is written: a heavy third-party import (jsonschema,
    # yaml; about 0.13 s) that every `montverif` command paid at its start (issue 33)
    from ucis.cover_type_t import CoverTypeT  # noqa: PLC0415
    from ucis.flags_t import FlagsT  # noqa: PLC0415
    from ucis.mem.mem_ucis import MemUCIS  # noqa: PLC0415
    from ucis.scope_type_t import ScopeTypeT  # noqa: PLC0415
    from ucis.source_t import SourceT  # noqa: PLC0415
    from ucis.xml.xml_writer import XmlWriter  # noqa: PLC0415

    db = MemUCIS()
    du = db.createScope(DESIGN_UNIT, None, 1, SourceT.OTHER, ScopeTypeT.DU_MODULE,
                        FlagsT.SCOPE_UNDER_DU)
    inst = db.createInstance(INSTANCE, None, 1, SourceT.OTHER, ScopeTypeT.INSTANCE, du,
                             FlagsT.INST_ONCE)
    for dut, points in designs.items():
        group = inst.createCovergroup(dut, None, 1, SourceT.OTHER)
        cover = group.createCoverInstance(dut, None, 1, SourceT.OTHER)
        for point in points:
            cp = cover.createCoverpoint(point.name, None, 1, SourceT.OTHER)
            cp.setAtLeast(point.at_least)
            for name, hits in point.hits.items():
                kind = CoverTypeT.IGNOREBIN if name in point.waived else CoverTypeT.CVGBIN
                cp.createBin(name, None, point.at_least, hits, name, kind)
    text = io.StringIO()
    XmlWriter().write(text, db)
    path.write_text(text.getvalue())
