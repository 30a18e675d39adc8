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

The test history: one MERGE history node for the merged database (logical name `montverif
<list>`, physical name the file, the regression's start as its date) and under it a TEST node
per run of the results folder (of that design, in a design's file), in summary.json order:

    logicalName  the run key (`mont_lut-n32-b32-verilator-s1`)     seed    its seed
    testStatus   true when the run passed                         date    the regression's start
    vendorTool   the simulator, vendorToolVersion its version     cmd     the run's repro
    args         the cocotb tests it ran                          runCwd  runs/<key>
    comment      `PASS, merged` or `FAIL, not merged: not passed`  toolCategory  simulator

(runs record no start time of their own: every run of a regression has its start as date).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

DESIGN_UNIT = "montverif"
INSTANCE = "top"


@dataclass(frozen=True)
class UcisPoint:
    """One cover point of a design: its name below the design, hits per bin, waived bins."""

    name: str
    at_least: int
    hits: Mapping[str, int]
    waived: frozenset[str] = frozenset()


@dataclass(frozen=True)
class UcisRun:
    """One run of the results folder, as a TEST history node records it."""

    key: str
    dut: str
    seed: int | None
    status: str
    sim: str
    sim_version: str
    tests: tuple[str, ...]
    cmd: str
    merged: str  # "merged" or "not merged: <why>"


@dataclass(frozen=True)
class UcisHistory:
    """The regression whose runs were merged: its list, start (ISO) and runs."""

    name: str
    start: str
    runs: tuple[UcisRun, ...] = ()


def _ucis_date(iso: str) -> str:
    """An ISO date (with or without its zone) in pyucis's YYYYMMDDHHMMSS; now if unreadable."""
    try:
        return datetime.fromisoformat(iso).strftime("%Y%m%d%H%M%S")
    except ValueError:
        return datetime.now().strftime("%Y%m%d%H%M%S")


def _history(db: Any, path: Path, history: UcisHistory, runs: Sequence[UcisRun]) -> None:
    """The MERGE node of the file and a TEST node per run below it."""
    from ucis.history_node_kind import HistoryNodeKind  # noqa: PLC0415

    date = _ucis_date(history.start)
    merge = db.createHistoryNode(None, f"montverif {history.name}", path.name,
                                 HistoryNodeKind.MERGE)
    merge.setTestStatus(all(r.status == "PASS" for r in runs))
    merge.setDate(date)
    merge.setToolCategory("merge")
    merge.setVendorId("montverif")
    merge.setVendorTool("montverif")
    merge.setComment(f"{sum(r.merged == 'merged' for r in runs)} of {len(runs)} run(s) merged")
    for r in runs:
        node = db.createHistoryNode(merge, r.key, f"runs/{r.key}", HistoryNodeKind.TEST)
        node.setTestStatus(r.status == "PASS")
        if r.seed is not None:
            node.setSeed(str(r.seed))
        node.setDate(date)
        node.setCmd(r.cmd)
        node.setArgs(" ".join(r.tests))
        node.setRunCwd(f"runs/{r.key}")
        node.setToolCategory("simulator")
        node.setVendorId("montverif")
        node.setVendorTool(r.sim or "unknown")
        node.setVendorToolVersion(r.sim_version or "unknown")
        node.setComment(f"{r.status}, {r.merged}")


def write_ucis(path: Path, designs: Mapping[str, Sequence[UcisPoint]],
               history: UcisHistory | None = None) -> None:
    """Write the designs' cover points as one UCIS XML file, with the history of the runs
    of those designs (none given: pyucis writes its placeholder node)."""
    # pyucis only here, where a file is written: a heavy third-party import (jsonschema,
    # yaml; about 0.13 s) that every `montverif` command paid at its start (issue 33)
    from ucis.cover_type_t import CoverTypeT  # noqa: PLC0415
    from ucis.flags_t import FlagsT  # noqa: PLC0415
    from ucis.mem.mem_ucis import MemUCIS  # noqa: PLC0415
    from ucis.scope_type_t import ScopeTypeT  # noqa: PLC0415
    from ucis.source_t import SourceT  # noqa: PLC0415
    from ucis.xml.xml_writer import XmlWriter  # noqa: PLC0415

    db = MemUCIS()
    if history is not None:
        _history(db, path, history, [r for r in history.runs if r.dut in designs])
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
