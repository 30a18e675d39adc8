"""junit.xml: a testsuite per model, a testcase per run; the mutation campaigns as a suite."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from pathlib import Path

from montverif.regress.regression.results import (
    FAIL,
    MUT_ERROR,
    MUT_FAILED,
    MUT_SKIPPED,
    SKIP,
    BuildResult,
    Regression,
    RunResult,
)
from montverif.regress.report.text import MUT_COLUMNS, config_rows, score_text


def _testcase(suite: ET.Element, reg: Regression, res: RunResult) -> None:
    case = ET.SubElement(suite, "testcase", classname=f"{reg.name}.{res.run.build.key}",
                         name=res.run.key, time=f"{res.wall_s:.3f}")
    if res.status == FAIL:
        fail = ET.SubElement(case, "failure", message=res.first_error, type="failure")
        fail.text = f"{res.first_error}\nrepro: {res.run.repro()}\nlog: {res.log_dir or '-'}"
        if res.rerun:
            fail.text += f"\n{res.rerun.describe(res.first_error)}"
    elif res.status == SKIP:
        ET.SubElement(case, "skipped", message=f"not started: {reg.stopped or 'stopped'}")
    out = ET.SubElement(case, "system-out")
    out.text = f"seed: {res.run.seed}\ntxns: {res.run.txns}\nrepro: {res.run.repro()}\n" \
               f"log: {res.log_dir or '-'}"


def _counts(results: list[RunResult], seconds: float) -> dict[str, str]:
    return {"tests": str(len(results)),
            "failures": str(sum(r.status == FAIL for r in results)), "errors": "0",
            "skipped": str(sum(r.status == SKIP for r in results)), "time": f"{seconds:.3f}"}


def junit_tree(reg: Regression) -> ET.ElementTree:
    """One testsuite per model, one testcase per run (named by its run key)."""
    root = ET.Element("testsuites", {"name": f"montverif {reg.name}"}
                      | _counts(reg.results, reg.wall_s))
    if reg.mutation:  # the campaigns' testcases count too
        for key, extra in (("tests", len(reg.mutation)), ("failures", reg.campaigns(MUT_FAILED)),
                           ("errors", reg.campaigns(MUT_ERROR)),
                           ("skipped", reg.campaigns(MUT_SKIPPED))):
            root.set(key, str(int(root.get(key, "0")) + extra))
    host = socket.gethostname()
    stamp = reg.start.isoformat(timespec="seconds")
    for row in config_rows(reg):
        attrs = {"name": row.key, "timestamp": stamp, "hostname": host}
        suite = ET.SubElement(root, "testsuite",
                              attrs | _counts(row.results, row.build_s + row.wall_s))
        props = ET.SubElement(suite, "properties")
        for name, value in (("list", reg.name), ("git", reg.git),
                            ("base_seed", str(reg.base_seed)), ("build_s", f"{row.build_s:.3f}"),
                            ("build_error", reg.builds.get(row.key, BuildResult(row.key)).error)):
            ET.SubElement(props, "property", name=name, value=value)
        for res in row.results:
            _testcase(suite, reg, res)
    if reg.mutation:
        _mutation_suite(root, reg, stamp, host)
    if reg.diffs:
        suite = ET.SubElement(root, "testsuite", {
            "name": "cross-simulator", "timestamp": stamp, "hostname": host,
            "tests": str(len(reg.diffs)), "failures": str(sum(not d.same for d in reg.diffs)),
            "errors": "0", "skipped": "0", "time": "0.000"})
        for d in reg.diffs:
            case = ET.SubElement(suite, "testcase", classname=f"{reg.name}.diff", name=d.key,
                                 time="0.000")
            if not d.same:
                ET.SubElement(case, "failure", message=d.detail, type="failure").text = \
                    " vs ".join(d.runs)
    ET.indent(root)
    return ET.ElementTree(root)


def _mutation_suite(root: ET.Element, reg: Regression, stamp: str, host: str) -> None:
    """One testcase per campaign: a failure below the goal (listing the survivors), an error
    when the campaign could not judge its mutants."""
    recs = list(reg.mutation.values())
    suite = ET.SubElement(root, "testsuite", {
        "name": "mutation", "timestamp": stamp, "hostname": host, "tests": str(len(recs)),
        "failures": str(reg.campaigns(MUT_FAILED)), "errors": str(reg.campaigns(MUT_ERROR)),
        "skipped": str(reg.campaigns(MUT_SKIPPED)),
        "time": f"{sum(r['wall_s'] for r in recs):.3f}"})
    for r in recs:
        case = ET.SubElement(suite, "testcase", classname=f"{reg.name}.mutation",
                             name=r["dut"], time=f"{r['wall_s']:.3f}")
        survivors = "".join(f"\nsurvived {s['where']}: {s['change']} ({s['reason']})"
                            for s in r["survivors"])
        if r["status"] == MUT_FAILED:
            ET.SubElement(case, "failure", message=r["message"], type="failure").text = \
                f"{r['message']}{survivors}\nrepro: {r['repro']}"
        elif r["status"] == MUT_ERROR:
            ET.SubElement(case, "error", message=r["message"], type="error").text = \
                f"{r['message']}\nrepro: {r['repro']}"
        elif r["status"] == MUT_SKIPPED:
            ET.SubElement(case, "skipped", message=r["message"])
        ET.SubElement(case, "system-out").text = (
            f"score: {score_text(r)} (goal {r['goal']:g}%)\nmutants: {r['mutants']} of "
            f"{r['sites']} sites, " + ", ".join(f"{r[c]} {c}" for c in MUT_COLUMNS)
            + f"\nseed: {r['seed']}\nreport: {r['dir']}/mutate.html{survivors}")


def write_junit(reg: Regression, path: Path) -> None:
    junit_tree(reg).write(path, encoding="utf-8", xml_declaration=True)
