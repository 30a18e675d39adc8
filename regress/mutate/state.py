"""A mutation campaign's settings (CampaignOptions) and what it has found so far (Campaign),
and the overlay folder that holds one mutant's changed file."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host.paths import ROOT
from montverif.regress.mutate import gencond
from montverif.regress.mutate.points import ParamPoint
from montverif.regress.mutate.sites import Mutant
from montverif.spec.design import Design

STATUSES = ("killed", "survived", "equivalent", "stillborn", "error")


@dataclass
class CampaignOptions:
    n: int
    bus_w: int = 32
    seed: int = 1
    txns: int = 20
    timeout_s: int = 120
    eq_bits: int = 5
    eq_max: int = 20000  # most exhaustive vectors one equivalence run may drive
    eq_wide: int = 2000  # full-width vectors added when the exhaustive set is narrower than N
    eq_timeout_s: int = 900
    jobs: int = 1
    keep_builds: bool = False
    tests: tuple[str, ...] = ()  # the tests every mutant must survive; () = the design's own
    sim: str = "verilator"  # the simulator every mutant is built for and run on
    # the simulator of the survivors' equivalence runs (vectors against the original's log,
    # which comes from `sim`), shared builds and own builds alike, in the fast bus mode where
    # the design has it: Verilator simulates the exhaustive vectors about 7x faster than
    # Icarus (mwrkmm, N=8: 1.4 s against 10.6 s for 10,208; mont_dual, N=80: 80x)
    eq_sim: str = "verilator"
    use_proofs: bool = True  # survivors with a recorded proof (regress/mutate/proofs.py)
    share: bool = True  # build-once-run-many: run-time-selectable mutants share one build
    points: bool = True  # judge survivors at every parameter point of the lists (points.py)
    # estimated seconds (shards.run_cost) one run at a point may take: a point whose smoke
    # run costs more is not simulated (said in the mutant's reason)
    point_budget_s: float = 60.0
    # the equivalence vectors at a point beyond the campaign's own are cut to fit this
    # (estimated seconds a run; the campaign's own point gets every vector)
    point_vectors_s: float = 30.0
    # the original's reference log where the equivalence simulator differs from `sim`: its
    # first `ref_share` vectors run on `sim` first; when they promise the whole file there
    # within `ref_full_s` seconds, `sim` runs it all (the reference), else the equivalence
    # simulator does and the share's log must equal its first operations (0: `sim` runs all)
    ref_share: int = 1000
    ref_full_s: float = 30.0
    # check every mutant simulation calls equivalent with SBY at the design's formal points
    # (regress/mutate/prove.py): proved, or a testbench hole with a distinguishing input
    prove: bool = False


@dataclass
class Campaign:
    dut: str
    design: Design
    options: CampaignOptions
    out: Path
    total_sites: int
    mutants: list[Mutant]
    eq_note: str = ""
    wall_s: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)
    # the points (beyond the campaign's own) each survivor passed its smoke tests at
    passed_at: dict[int, list[ParamPoint]] = field(default_factory=dict)
    # the survivors' shared builds built so far: point -> (overlay folder, the ids it holds)
    shared_builds: dict[ParamPoint, tuple[str, frozenset[int]]] = field(default_factory=dict)
    # generate-condition mutants (gencond.py): what the probe found at each point it ran at
    probes: dict[tuple[int, ParamPoint], gencond.Probe] = field(default_factory=dict)
    # the points whose reference log came from the equivalence simulator (_reference)
    ref_on_eq_sim: list[str] = field(default_factory=list)


def write_overlay(m: Mutant, out: Path) -> Path:
    """out/mutants/mutNNNN/<file> with the one change, and the change as a unified diff."""
    src = ROOT / m.site.file
    text = src.read_text()
    new = m.site.apply(text)
    folder = out / "mutants" / f"mut{m.id:04d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / src.name).write_text(new)
    diff = difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                f"a/{m.site.file}", f"b/{m.site.file}", n=2)
    (folder / "change.diff").write_text("".join(diff))
    return folder
