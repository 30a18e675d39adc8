"""Stale recorded proofs proved again or removed (docs/mutation.md, "Which file, which
build, which proof").

    montverif mutate proofs renew [--dut D] [--out DIR]

A recorded proof goes stale when its file changes or its design's operand domain does
(proofs.stale_reason); a stale proof is never used. `renew` takes each one back to the
current text and lets SBY decide, so that no entry of the record describes code that is
gone:

- the text the proof was made on is found in the file's git history by its SHA-256, the
  mutated statement located there and then in the current text, by the same rule as
  `proofs carry` (the whole source line, white space folded, once in each text, the same
  change at the same place in it); a proof stale only by its domain keeps its site;
- the mutant of the current text is checked by SBY at the design's formal points
  (prove.py): proved, the entry is rewritten for the current text and domain with the
  check's `formal` text and a `renewed` note naming the version it came from; told apart,
  the entry goes and the distinguishing input is written as a hole (directed.py); not
  proved, or the statement not found once, the entry goes, and a campaign that draws the
  mutant judges it again (a survivor for the proved score until a formal verdict or a test
  settles it).
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from collections.abc import Callable
from pathlib import Path

from montverif.host.paths import ROOT
from montverif.regress.mutate import directed, proofs, prove
from montverif.regress.mutate.sites import all_sites
from montverif.regress.mutate.svmut import Site, candidates
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design

Record = dict[str, object]
# (file, SHA-256) -> the file's text with that hash, or None
OldText = Callable[[str, str], str | None]


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, check=False)


@functools.cache
def _history() -> None:
    """Raise ProofError unless ROOT is the top of a git checkout with its history (an
    installed copy or a source archive has none, and without it every stale proof would
    look unplaceable and be removed)."""
    try:
        top = _git("rev-parse", "--show-toplevel")
    except OSError as exc:
        raise proofs.ProofError(f"renew needs git to find the proved texts: {exc}") from exc
    if top.returncode or Path(top.stdout.decode().strip()).resolve() != ROOT.resolve():
        raise proofs.ProofError(f"renew needs the project's git history: {ROOT} is not the "
                                "top of a git checkout")


@functools.cache
def _texts(file: str) -> dict[str, str]:
    """Every version of `file` in the history of HEAD, by the SHA-256 of its text (two git
    calls per file: the blob ids from the log, their texts in one batch)."""
    _history()
    log = _git("log", "--format=", "--raw", "--no-abbrev", "--no-renames", "HEAD", "--",
               file).stdout.decode()
    blobs = {f for line in log.splitlines() if line.startswith(":")
             for f in line.split("\t")[0].split()[2:4] if f.strip("0")}
    if not blobs:
        return {}
    batch = subprocess.run(["git", "cat-file", "--batch"], cwd=ROOT,
                           input="\n".join(sorted(blobs)).encode(),
                           capture_output=True, check=False).stdout
    texts: dict[str, str] = {}
    at = 0
    while at < len(batch):
        head_end = batch.index(b"\n", at)
        head = batch[at:head_end].split()
        if len(head) != 3:  # "<id> missing"
            at = head_end + 1
            continue
        size = int(head[2])
        data = batch[head_end + 1:head_end + 1 + size]
        texts[hashlib.sha256(data).hexdigest()] = data.decode(errors="replace")
        at = head_end + 1 + size + 1
    return texts


def git_text(file: str, sha: str) -> str | None:
    """The text of `file` in this repository's git history whose SHA-256 is `sha` (None
    when no version has it); ProofError without the history."""
    return _texts(file).get(sha)


def current_site(rec: Record, old_text: OldText = git_text) -> Site | None:
    """The recorded change in the current text of its file, or None when it cannot be
    located once."""
    file = str(rec["file"])
    if not (ROOT / file).is_file():
        return None
    new_text = (ROOT / file).read_text()
    if proofs.file_sha(file) == rec["sha256"]:  # stale by its domain only: the same site
        same = [s for s in candidates(file, new_text) if s.start == rec["start"]
                and s.original == rec["original"] and s.replacement == rec["replacement"]]
        return same[0] if len(same) == 1 else None
    old = old_text(file, str(rec["sha256"]))
    if old is None:
        return None
    old_sites = candidates(file, old)
    mine = [s for s in old_sites if s.start == rec["start"] and s.original == rec["original"]
            and s.replacement == rec["replacement"]]
    if len(mine) != 1:
        return None
    want = proofs.line_key(old, mine[0])
    if sum(proofs.line_key(old, s) == want for s in old_sites) != 1:
        return None
    same_new = [s for s in candidates(file, new_text) if proofs.line_key(new_text, s) == want]
    return same_new[0] if len(same_new) == 1 else None


def _renewed(rec: Record, design: Design, site: Site, formal: str) -> Record:
    was = f"{str(rec['sha256'])[:16]} line {rec['line']}, domain {rec.get('domain', '?')}"
    return rec | {"sha256": proofs.file_sha(site.file), "start": site.start,
                  "line": site.line, "change": site.description,
                  "domain": proofs.domain_text(design), "formal": formal,
                  "renewed": f"from {was}: proved again by SBY on the current text"}


def renew(out: Path, dut: str | None = None, path: Path | None = None,
          timeout_s: int = 900, old_text: OldText = git_text,
          done_one: Callable[[Record, prove.ProofResult], None] | None = None
          ) -> list[tuple[Record, prove.ProofResult]]:
    """Prove every stale recorded proof (of `dut`, or of every design) again on the current
    text, or remove it (the module's rules); each check in a folder below `out`. Returns
    each stale record with its result; the file is written after each. ProofError, before
    anything is checked, when the old texts cannot be looked up (no git history)."""
    path = proofs.PROOFS_FILE if path is None else path
    if old_text is git_text:
        _history()
    recorded = proofs.load(path)
    done: list[tuple[Record, prove.ProofResult]] = []
    for name in ([dut] if dut else known_designs()):
        design = load_design(name)
        ids = {proofs.site_key(s): i for i, s in enumerate(all_sites(design))}
        for key, rec in list(recorded.items()):
            if rec["dut"] != name or not proofs.stale_reason(rec):
                continue
            del recorded[key]
            changes: dict[str, Record | None] = {key: None}
            site = current_site(rec, old_text)
            mid = ids.get(proofs.site_key(site)) if site is not None else None
            if site is None or mid is None:
                result = prove.ProofResult(prove.NOT_PROVED, "the statement is not found once "
                                           "in the current text: the entry goes")
            else:
                result = proofs.check(out, name, design, mid, site, timeout_s)
                if result.status == prove.PROVED:
                    new = _renewed(rec, design, site, result.text)
                    recorded[proofs.site_key(site)] = new
                    changes[proofs.site_key(site)] = rec = new
                elif result.status == prove.DIFFERENT:
                    directed.record(name, site, result)
            done.append((rec, result))
            proofs.update(path, changes)  # each at once: an interrupted run keeps its work
            if done_one is not None:
                done_one(rec, result)
    return done
