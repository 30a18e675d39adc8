"""Testbench holes that SBY found, turned into directed vectors (docs/mutation.md).

When an equivalence check tells a surviving mutant apart from the original (prove.py), the
operands of the counterexample's last START are the input simulation never gave. `record`
keeps that finding beside the check (`hole.json`: the design, the mutated site, the formal
point and the operands); `place` finds where the input kills the mutant in simulation and
writes it as an entry of `verif/directed/<design>.json`, which the design's corner test
replays at every run:

    montverif mutate directed DIR [DIR ...] [--sim icarus] [--budget S] [--dry-run]

- **Where it applies.** A formal point is tiny (N = 4, V = 2, W = 1) and no simulation
  build has it. The input is replayed, with the VectorTest, on the original and on the
  mutant (an overlay of the changed file) at the points the design's lists run the mutant at
  (regress/mutate/points.py: each list point at its smallest legal width, and each shape
  the lists build at its narrowest point). Where the original passes and the mutant fails,
  the input kills the mutant. First the points that give the formal point's parameters
  their values (`ConstTime = 0`): if it kills at one, the entry's `params` are the formal
  point's, the build parameters it was found under.
  Otherwise the other points, each within a budget of estimated seconds, and `params` are
  the values every point where it kills shares (as a build gives them: values left at their
  defaults are not named). The corner test replays an entry only on builds with its
  `params`.
- **What is written.** The operands (with `field` for a design with a field bit), `kills`
  (the site's description: file, line, change), `found` (the SBY check's point and where the
  simulation showed the kill) and `params`. An entry whose site is already in the file (by
  file and change; lines move with edits) is not written twice.
- **What is refused.** A hole whose file changed since the check (its SHA-256) is stale; an
  input that kills the mutant at no point checked is reported and not written: the hole
  stays open (exit 1), and the report names the points tried.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from montverif.host import readback, tools
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.regress.flow import simulate
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.mutate import prove
from montverif.regress.mutate.points import ParamPoint, campaign_points
from montverif.regress.mutate.sites import all_sites, block_selector, mutant_params
from montverif.regress.mutate.svmut import Site
from montverif.regress.regression.shards import run_cost
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design
from montverif.verif.vectors import DIRECTED

HOLE = "hole.json"  # beside the check's distinguishing.json
Params = tuple[tuple[str, int], ...]


class HoleError(ValueError):
    """A hole file or a directed-vector file cannot be used (one line)."""


@dataclass(frozen=True)
class Hole:
    """A mutant SBY told apart from the original, and the input that did it."""

    path: Path  # the hole file
    dut: str
    file: str  # repository-relative
    sha256: str  # of the file's whole text when the check ran
    start: int
    original: str
    replacement: str
    kills: str  # the site's description
    n: int  # the formal point
    params: Params
    vector: dict[str, str]  # the operands, in the design's vector format

    @property
    def point(self) -> str:
        return ", ".join([f"N={self.n}", *(f"{k}={v}" for k, v in self.params)])


@dataclass
class Placement:
    """Where a hole's input was replayed, and the entry it gives (None: not written)."""

    hole: Hole
    checked: list[str] = field(default_factory=list)  # every point tried, with its verdict
    kills_at: list[ParamPoint] = field(default_factory=list)
    entry: dict[str, object] | None = None
    reason: str = ""  # why there is no entry


def _sha(file: str) -> str:
    return hashlib.sha256((ROOT / file).read_bytes()).hexdigest()


def record(dut: str, site: Site, result: prove.ProofResult) -> Path | None:
    """Keep a DIFFERENT verdict's finding beside its distinguishing input (hole.json);
    returns the hole file, or None when the verdict has no input (no START in the trace)."""
    if result.status != prove.DIFFERENT or not result.vector or result.point is None:
        return None
    vector_path = Path(result.vector)
    vectors = json.loads(vector_path.read_text())["vectors"]
    n, params = result.point
    hole = {"dut": dut, "file": site.file, "sha256": _sha(site.file), "start": site.start,
            "original": site.original, "replacement": site.replacement,
            "kills": site.description, "n": n, "params": dict(params), "vector": vectors[0]}
    path = vector_path.parent / HOLE
    path.write_text(json.dumps(hole, indent=1) + "\n")
    return path


# what is read of a hole file (record() writes it), checked first
HOLE_SHAPE = {"dut": str, "file": str, "sha256": str, "start": int, "original": str,
              "replacement": str, "kills": str, "n": int, "params": {str: int},
              "vector": {str: None}}


def load_hole(path: Path) -> Hole:
    try:
        raw = readback.read_json(path, HOLE_SHAPE)
        params = tuple(sorted((str(k), int(v)) for k, v in raw["params"].items()))
        hole = Hole(path, str(raw["dut"]), str(raw["file"]), str(raw["sha256"]),
                    int(raw["start"]), str(raw["original"]), str(raw["replacement"]),
                    str(raw["kills"]), int(raw["n"]), params,
                    {str(k): str(v) for k, v in raw["vector"].items()})
    except readback.CorruptFile as exc:
        raise HoleError(f"{exc} (not a hole file)") from None
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise HoleError(f"{path}: not a hole file ({exc})") from None
    if hole.dut not in known_designs():
        raise HoleError(f"{path}: unknown design {hole.dut!r}")
    return hole


def find_holes(dirs: list[Path]) -> list[Hole]:
    """Every hole file below the folders (a campaign's, `mutate proofs prove`'s), in order;
    a folder without one is an error (a typo would otherwise pass silently)."""
    holes: list[Hole] = []
    for d in dirs:
        if d.is_file() and d.name == HOLE:
            holes.append(load_hole(d))
            continue
        if not d.is_dir():
            raise HoleError(f"no such folder: {d}")
        found = sorted(d.rglob(HOLE))
        if not found:
            raise HoleError(f"{d}: no {HOLE} below it (no check told a mutant apart there)")
        holes += [load_hole(p) for p in found]
    return holes


def unlined(kills: str) -> str:
    """A site's description without its line number, which moves with any edit above it."""
    return re.sub(r"^([^:]+):\d+:", r"\1:", kills)


def site_of(hole: Hole, design: Design) -> Site | None:
    """The hole's site in the current text, or None when its file changed since the check."""
    if not (ROOT / hole.file).is_file() or _sha(hole.file) != hole.sha256:
        return None
    return next((s for s in all_sites(design) if s.file == hole.file and s.start == hole.start
                 and s.original == hole.original and s.replacement == hole.replacement), None)


def candidate_points(hole: Hole, design: Design, site: Site
                     ) -> tuple[list[ParamPoint], list[ParamPoint]]:
    """The points the lists run the mutant at where the input fits, narrowest first: those
    that give every parameter of the formal point its value there, and the others."""
    bits = max(int(v, 0).bit_length() for k, v in hole.vector.items() if k != "field")
    pts = sorted((p for p in campaign_points(hole.dut, design, design.min_n,
                                             mutant_params(design, site),
                                             block_selector(design, site)) if p.n >= bits),
                 key=lambda p: (p.n, p.params))
    formal = dict(hole.params)
    agree = [p for p in pts if all(dict(p.params).get(k) == v for k, v in formal.items())]
    return agree, [p for p in pts if p not in agree]


def common_params(points: list[ParamPoint]) -> dict[str, int]:
    """The parameter values every point gives its build (defaults are not named)."""
    first, *rest = [dict(p.params) for p in points]
    return {k: v for k, v in sorted(first.items()) if all(r.get(k) == v for r in rest)}


def _cost(hole: Hole, p: ParamPoint, sim: str) -> float:
    return run_cost(RunSpec(BuildSpec(hole.dut, p.n, 32, sim, params=p.params), seed=1,
                            txns=1, tests=("VectorTest",)))


def place(hole: Hole, out: Path, sim: str = "icarus", budget_s: float = 60.0,
          progress: Callable[[str], None] = lambda _: None) -> Placement:
    """Replay the hole's input on the original and on the mutant and make the directed entry
    where it kills the mutant. First at the list points that have the formal point's
    parameters: where it kills at one of them, the entry names those parameters (the input
    was found under them). Otherwise at the other points, each within `budget_s` seconds by
    estimate, and the entry names what the points where it kills share."""
    design = load_design(hole.dut)
    placed = Placement(hole)
    site = site_of(hole, design)
    if site is None:
        placed.reason = (f"stale: {hole.file} changed since the check (or the site is gone); "
                         "check the mutant again")
        return placed
    out.mkdir(parents=True, exist_ok=True)
    overlay = out / "mutant"
    overlay.mkdir(exist_ok=True)
    (overlay / Path(site.file).name).write_text(site.apply((ROOT / site.file).read_text()))
    vectors = out / "vector.json"
    vectors.write_text(json.dumps({"vectors": [hole.vector]}, indent=1) + "\n")
    agree, others = candidate_points(hole, design, site)
    params: dict[str, int] = {}
    for phase, points in (("agree", agree), ("others", others)):
        for p in points:
            at = p.text(design)
            if (cost := _cost(hole, p, sim)) > budget_s:
                verdict = f"not run (estimated {cost:.0f} s, beyond the budget of {budget_s:.0f} s)"
            else:
                verdict = _verdict(hole, p, sim, vectors, overlay, out)
            placed.checked.append(f"{at}: {verdict}")
            progress(f"  {hole.dut} {hole.kills} at {at}: {verdict}")
            if verdict.startswith("kills"):
                placed.kills_at.append(p)
        if placed.kills_at:
            params = dict(hole.params) if phase == "agree" else common_params(placed.kills_at)
            break
    if not placed.kills_at:
        placed.reason = ("the input kills the mutant at none of the points checked ("
                         + ("; ".join(placed.checked) or "no list point fits the input") + ")")
        return placed
    where = "; ".join(p.text(design) for p in placed.kills_at)
    placed.entry = {**hole.vector, "kills": hole.kills,
                    "found": f"SBY equivalence check of the mutant against the original at "
                             f"{hole.point}; kills it in simulation ({sim}) at {where}",
                    "params": params}
    return placed


def _verdict(hole: Hole, p: ParamPoint, sim: str, vectors: Path, overlay: Path, out: Path) -> str:
    """'kills', or why not: the original fails there, the mutant passes, or no run."""
    outcomes = []
    for label, over in (("original", ""), ("mutant", str(overlay))):
        run = RunSpec(BuildSpec(hole.dut, p.n, 32, sim, params=p.params, overlay=over),
                      seed=1, txns=1, vectors=str(vectors), tests=("VectorTest",),
                      timeout_s=300)
        name = f"{label}-n{p.n}" + "".join(f"-{k}{v}" for k, v in p.params)
        try:
            outcomes.append(simulate.execute(run, out / "runs" / name, quiet=True))
        except (tools.ToolError, ConfigError) as exc:
            return f"not run ({label}: {str(exc).splitlines()[0] if str(exc) else exc})"
    original, mutant = outcomes
    if not original.passed:
        return f"the original fails ({original.first_error})"
    return f"kills ({mutant.first_error})" if not mutant.passed else "the mutant passes"


def merge(dut: str, entries: list[dict[str, object]], folder: Path = DIRECTED
          ) -> tuple[int, int, Path]:
    """Add the entries to <folder>/<dut>.json (created if missing); an entry whose site is
    there already (by file and change) is skipped. Returns (added, already there, path)."""
    path = folder / f"{dut}.json"
    if path.is_file():
        try:
            raw = readback.read_json(path, {"vectors": [{str: None}]})
            have = raw["vectors"]
        except readback.CorruptFile as exc:
            raise HoleError(f"{exc} (not a vector file)") from None
    else:
        raw = {"about": f"{dut}'s directed vectors: distinguishing inputs of mutants that "
                        "simulation had called equivalent and SBY told apart "
                        "(docs/mutation.md, directed vectors); CornerTest replays each on "
                        "the builds its params name", "vectors": []}
        have = raw["vectors"]
    known = {unlined(str(e.get("kills", ""))) for e in have if isinstance(e, Mapping)}
    added = 0
    for e in entries:
        if unlined(str(e["kills"])) in known:
            continue
        have.append(e)
        known.add(unlined(str(e["kills"])))
        added += 1
    if added:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(raw, indent=1) + "\n")
    return added, len(entries) - added, path
