"""Recorded equivalence proofs: a survivor proved equivalent stays equivalent while its file
is unchanged, so a campaign (the nightly's among them) does not prove it again.

    montverif mutate proofs accept DIR [DIR ...]   record the equivalents of campaign
                                                           folders (mutants.json) in
                                                           regress/mutate/equivalents.json
    montverif mutate proofs list                   the recorded proofs, current or stale
    montverif mutate proofs carry REV              carry stale proofs over an edit since REV
                                                           (the same statement, below)
    montverif mutate proofs prove [--dut D]        check the proofs no SBY proof backs yet
                                                           with one (regress/mutate/prove.py)
    montverif mutate proofs prove --bounded        and those proved only to a bound, for
                                                           all time where induction closes
    montverif mutate proofs renew [--dut D]        prove the stale proofs again on the
                                                           current text, or remove them
                                                           (regress/mutate/renew.py)

A proof is keyed by the file, the SHA-256 of its whole text, and the change (offset, original,
replacement): any edit of the file makes its proofs stale (they are then proved again by
simulation). It holds for the operand domain it was proved over (its design's descriptor,
[operands] domain, recorded with it): a proof of another domain is stale too. The file is
committed so that CI and every machine share the proofs; review a proof like a waiver (its
text says how it was proved). A proof also names the parameter points it was shown at
(`points`, regress/mutate/points.py; a campaign uses it only where it covers every point the
campaign needs) and, once SBY has proved it, `formal` (what the check covered); `prove`
removes a proof SBY tells apart from the original and reports the distinguishing input.

`carry REV` keeps proofs across a refactor that moves lines but not behaviour: a stale proof
whose file at REV (git) has the recorded SHA-256 is carried to the current text when its
site's whole source line (white space folded) occurs exactly once in the old text and exactly
once in the current one, with the same change at the same place in that line; the carried
proof replaces the stale one and names the version it was proved on. Anything else stays
stale and is proved again by simulation when a campaign draws it. Run it only when the
behaviour is unchanged (a refactor whose regression results are identical).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from montverif.host import readback
from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT, work, writable
from montverif.regress.mutate import directed, prove
from montverif.regress.mutate.sites import all_sites
from montverif.regress.mutate.svmut import Site, candidates
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design

PROOFS_FILE = ROOT / "regress" / "mutate" / "equivalents.json"
RECORDED = "equivalent (recorded proof"  # the reason prefix of a proof taken from the file


class ProofError(ValueError):
    """A proof file or campaign folder cannot be used (one line)."""


def file_sha(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def _key(file: str, sha: str, start: int, original: str, replacement: str) -> str:
    return f"{file}@{sha[:16]}:{start}:{original}->{replacement}"


def site_key(site: Site) -> str:
    return _key(site.file, file_sha(site.file), site.start, site.original, site.replacement)


def load(path: Path | None = None) -> dict[str, dict[str, object]]:
    path = PROOFS_FILE if path is None else path
    if not path.is_file():
        return {}
    try:
        raw = readback.read_json(path, {"proofs": [{"file": str, "sha256": str, "start": int,
                                                   "original": str, "replacement": str,
                                                   "dut": str, "change": str}]})
        proofs = raw["proofs"]
        return {_key(p["file"], p["sha256"], p["start"], p["original"], p["replacement"]): p
                for p in proofs}
    except readback.CorruptFile as exc:
        raise ProofError(f"{exc} (not a proof file)") from None
    except (KeyError, TypeError) as exc:
        raise ProofError(f"{path}: not a proof file ({exc})") from None


def domain_text(design: Design) -> str:
    """The operand domain a proof of the design's mutants holds for (its vectors' range)."""
    return ",".join(f"{reg}={dom}" for reg, dom in sorted(design.domain.items()))


def lookup(site: Site, proofs: dict[str, dict[str, object]], need: list[str],
           legacy: str, domain: str) -> dict[str, object] | None:
    """The recorded proof of this exact change to the current file text over this operand
    domain (domain_text) that covers every parameter point in `need` (labels,
    regress/mutate/points.py), or None. A proof recorded without its points was made at one
    point, `legacy` (the campaign's own)."""
    proof = proofs.get(site_key(site))
    if proof is None or proof.get("domain") != domain:
        return None
    shown = proof.get("points") or [legacy]
    return proof if isinstance(shown, list) and set(need) <= set(shown) else None


def stale_reason(proof: dict[str, object]) -> str:
    """Why a recorded proof no longer holds ("" while it does)."""
    if file_sha(str(proof["file"])) != proof["sha256"]:
        return "the file changed"
    if proof.get("domain") != domain_text(load_design(str(proof["dut"]))):
        return "proved over another operand domain"
    return ""


KINDS = ("for all time", "bounded", "simulated", "stale")


def kind(rec: dict[str, object]) -> str:
    """What stands behind a recorded proof: SBY for all time at every formal point, SBY to a
    bound at some point, simulation only, or nothing (stale: its file or domain changed)."""
    if stale_reason(rec):
        return "stale"
    backed = str(rec.get("formal") or "")
    if not backed:
        return "simulated"
    return "for all time" if prove.for_all_time(backed) else "bounded"


def formal_text(rec: dict[str, object]) -> str:
    """What SBY proved of a campaign's mutant (`--prove`: its reason ends with the check's
    text), or "" for one judged by simulation alone."""
    reason = str(rec.get("reason", ""))
    if rec.get("proof") != prove.PROVED or prove.PROVED_TEXT not in reason:
        return ""
    return reason[reason.rindex(prove.PROVED_TEXT):]


def accept(folders: list[Path], path: Path | None = None) -> tuple[int, int]:
    """Record every equivalent mutant of the campaign folders (the sources must be those the
    campaigns ran on), with what SBY proved of it where the campaign proved it (`formal`: a
    proof without it counts as judged by simulation). Returns (added, already recorded)."""
    path = PROOFS_FILE if path is None else path
    with locked(path):
        return _accept(folders, path, load(path))


def _accept(folders: list[Path], path: Path, proofs: dict[str, dict[str, object]]
            ) -> tuple[int, int]:
    added = known = 0
    for folder in folders:
        try:
            data = json.loads((folder / "mutants.json").read_text())
            dut = data["summary"]["dut"]
            design = load_design(dut)
        except (OSError, json.JSONDecodeError, KeyError, ConfigError) as exc:
            raise ProofError(f"{folder}: not a campaign folder ({exc})") from None
        sites = all_sites(design)
        domain = domain_text(design)
        for rec in data["mutants"]:
            if rec["status"] != "equivalent":
                continue
            site = sites[rec["id"]] if rec["id"] < len(sites) else None
            if site is None or site.description != rec["change"]:
                raise ProofError(f"{folder}: mut{rec['id']:04d} is not the change it was "
                                 f"({rec['change']}): the sources changed since the campaign")
            key = site_key(site)
            points = rec.get("points") or []
            before = proofs.get(key, {}).get("points")
            if key in proofs and proofs[key].get("domain") == domain \
                    and set(points) <= set(before if isinstance(before, list) else []):
                known += 1
                continue
            proofs[key] = {"dut": dut, "file": site.file, "sha256": file_sha(site.file),
                           "start": site.start, "line": site.line, "original": site.original,
                           "replacement": site.replacement, "change": site.description,
                           "domain": domain, "proof": rec["reason"], "points": points,
                           "git": data["summary"].get("git", ""),
                           "recorded": time.strftime("%Y-%m-%d")}
            if formal := formal_text(rec):
                proofs[key]["formal"] = formal
            added += 1
    write(proofs, path)
    return added, known


def write(proofs: dict[str, dict[str, object]], path: Path) -> None:
    """The whole file, replaced at once (a reader never sees half of it); a writer that
    read it first holds `locked(path)`."""
    ordered = sorted(proofs.values(), key=lambda p: (str(p["file"]), int(p["start"]),  # type: ignore[call-overload]
                                                     str(p["replacement"])))
    about = "equivalent mutants shown by simulation, some also proved by SBY " \
            "(regress/mutate/proofs.py)"
    tmp = writable(path).with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps({"about": about, "proofs": ordered}, indent=1) + "\n")
        os.replace(tmp, path)
    finally:  # a full disk or an interrupt leaves the file as it was, and no half copy
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """The proof file to oneself while reading and writing it back: two commands that record
    proofs at once (a campaign's accept beside a long `proofs prove`) both keep theirs. The
    lock is a file of the work folder, named by the proof file's path."""
    name = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    lock = work() / "locks" / f"proofs-{name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def update(path: Path, changes: dict[str, dict[str, object] | None]) -> None:
    """Set (a record) or remove (None) these entries in the file as it is now."""
    with locked(path):
        current = load(path)
        for key, rec in changes.items():
            if rec is None:
                current.pop(key, None)
            else:
                current[key] = rec
        write(current, path)


def check_folder(out: Path, dut: str, mid: int, site: Site) -> Path:
    """The folder of one mutant's check below `out`: its file, its offset and its mutant id
    (mutNNNN, the site's index), since two changes at one offset (`a ^ b` to `a & b` and to
    `a | b`) are two mutants and each check needs a folder of its own."""
    return out / dut / f"{Path(site.file).stem}-{site.start}-mut{mid:04d}"


def check(out: Path, dut: str, design: Design, mid: int, site: Site,
          timeout_s: int) -> prove.ProofResult:
    """One mutant of the current text checked by SBY against the original (prove.py), in
    its folder below `out` (check_folder)."""
    folder = check_folder(out, dut, mid, site)
    overlay = folder / "mutant"
    overlay.mkdir(parents=True, exist_ok=True)
    text = (ROOT / site.file).read_text()
    if text[site.start:site.end] != site.original:  # edited since the sites were read
        return prove.ProofResult(prove.NOT_PROVED, f"{site.file} changed during the check")
    (overlay / Path(site.file).name).write_text(site.apply(text))
    return prove.prove(dut, design, overlay, folder / "formal", timeout_s)


def prove_recorded(out: Path, dut: str | None = None, path: Path | None = None,
                   timeout_s: int = 900,
                   done_one: Callable[[dict[str, object], prove.ProofResult], None] | None = None,
                   bounded: bool = False) -> list[tuple[dict[str, object], prove.ProofResult]]:
    """Check every current recorded proof (of `dut`, or of every design) that no SBY proof
    backs yet with one (prove.py), and with `bounded` those SBY proved only to a bound at
    some point, each mutant in a folder below `out`: a proved one gets its `formal` text
    (a bounded proof keeps its own when the new check gives no verdict); one the check
    tells apart from the original is no longer equivalent, and its record goes. Returns each
    checked record with its result."""
    path = PROOFS_FILE if path is None else path
    proofs = load(path)
    done: list[tuple[dict[str, object], prove.ProofResult]] = []
    for name in ([dut] if dut else known_designs()):
        design = load_design(name)
        sites = {site_key(s): (i, s) for i, s in enumerate(all_sites(design))}
        for key, rec in list(proofs.items()):
            backed = str(rec.get("formal") or "")
            if rec["dut"] != name or key not in sites or stale_reason(rec) \
                    or (backed and not (bounded and not prove.for_all_time(backed))):
                continue
            mid, site = sites[key]
            result = check(out, name, design, mid, site, timeout_s)
            if result.status == prove.PROVED:
                rec["formal"] = result.text
                update(path, {key: rec})  # each at once: an interrupted run keeps its proofs
            elif result.status == prove.DIFFERENT:
                update(path, {key: None})
                directed.record(name, site, result)
            done.append((rec, result))
            if done_one is not None:
                done_one(rec, result)
    return done


def line_key(text: str, site: Site) -> tuple[str, int, str, str, str]:
    """The site's whole source line (white space folded) and the change's place in it."""
    begin = text.rfind("\n", 0, site.start) + 1
    end = text.find("\n", site.start)
    line = text[begin:len(text) if end < 0 else end]
    before = " ".join(line[:site.start - begin].split())
    return " ".join(line.split()), len(before), site.kind, site.original, site.replacement


def carry(rev: str, path: Path | None = None) -> tuple[int, int]:
    """Carry every stale proof whose file at `rev` is the proved version to the current text
    (the rule in the module's docstring). Returns (carried, left stale)."""
    path = PROOFS_FILE if path is None else path
    with locked(path):
        return _carry(rev, path, load(path))


def _carry(rev: str, path: Path, proofs: dict[str, dict[str, object]]) -> tuple[int, int]:
    carried: dict[str, dict[str, object]] = {}
    replaced: list[str] = []
    left = 0
    for old_key, p in proofs.items():
        file = str(p["file"])
        if not (ROOT / file).is_file() or file_sha(file) == p["sha256"]:
            continue
        try:
            old = subprocess.run(["git", "show", f"{rev}:{file}"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        except subprocess.CalledProcessError:
            left += 1
            continue
        if hashlib.sha256(old).hexdigest() != p["sha256"]:
            left += 1
            continue
        old_text, new_text = old.decode(), (ROOT / file).read_text()
        old_sites = candidates(file, old_text)
        mine = [s for s in old_sites if s.start == p["start"] and s.original == p["original"]
                and s.replacement == p["replacement"]]
        if len(mine) != 1:
            left += 1
            continue
        want = line_key(old_text, mine[0])
        same_old = [s for s in old_sites if line_key(old_text, s) == want]
        same_new = [s for s in candidates(file, new_text) if line_key(new_text, s) == want]
        if len(same_old) != 1 or len(same_new) != 1:
            left += 1
            continue
        site = same_new[0]
        new = dict(p) | {"sha256": file_sha(file), "start": site.start, "line": site.line,
                         "change": site.description,
                         "carried": f"from {str(p['sha256'])[:16]} line {p['line']} "
                                    f"(git {rev}): the same statement, behaviour unchanged"}
        carried[_key(file, str(new["sha256"]), site.start, site.original, site.replacement)] = new
        replaced.append(old_key)
    for old_key in replaced:  # the carried proof names the version it was proved on
        del proofs[old_key]
    proofs |= carried
    write(proofs, path)
    return len(carried), left
