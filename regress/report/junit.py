"""junit.xml: a testsuite per model, a testcase per cocotb test of each run, read from the
run's own results.xml; the mutation campaigns and the cross-simulator comparisons as suites.

Names stay the same when the seeds change, and never collide: classname `<dut>.<point>`
(`mont_lut.n32-b32-verilator`: the run key without design and seed), name
`<test>[<seed index>]` (`RandomTest[0]`: the point's first seed). The seed, the run key and
the repro are properties of each testcase (docs/regression.md#results-other-tools-read)."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from montverif.regress.flow.spec import RunSpec, with_design_tests
from montverif.regress.regression import formal_checks
from montverif.regress.regression.results import (
    ERROR,
    FAIL,
    MUT_ERROR,
    MUT_FAILED,
    MUT_SKIPPED,
    SKIP,
    BuildResult,
    Regression,
    RunResult,
)
from montverif.regress.regression.seeds import sim_free_key
from montverif.regress.report.text import MUT_COLUMNS, config_rows, score_text


def point_of(run: RunSpec) -> str:
    """A run's test point: its key without the seed and the design, dots made `_`
    (`n32-b32-verilator`); the same for every seed, so names outlive the seeds. A
    `--code-coverage` build (every Verilator build of its regression) keeps its name too."""
    extra = run.key.removeprefix(f"{run.build.key}-s{run.seed}")
    base = replace(run.build, coverage=False).key.removeprefix(run.build.dut + "-")
    return f"{base}{extra}".replace(".", "_")


def seed_indexes(results: list[RunResult]) -> dict[str, int]:
    """Run key -> the run's index among the runs of its point (0, 1, ...; in list order,
    `RunResult.index`): `RandomTest[1]` is the point's second seed whatever that seed is."""
    seen: dict[tuple[str, str], int] = {}
    out: dict[str, int] = {}
    for res in sorted(results, key=lambda r: r.index):
        point = (res.run.build.dut, point_of(res.run))
        out[res.run.key] = seen.get(point, 0)
        seen[point] = out[res.run.key] + 1
    return out


def cocotb_cases(xml: Path) -> dict[str, ET.Element]:
    """The testcases of a run's cocotb results.xml by test name ({} if none or unreadable:
    a run killed mid-test leaves none, or half a file)."""
    try:
        root = ET.parse(xml).getroot()
    except (OSError, ET.ParseError):
        return {}
    return {str(c.get("name")): c for c in root.iter("testcase")}


def _run_folder(reg: Regression, res: RunResult) -> Path | None:
    """Where the run's results.xml is: <results>/runs/<key> (also for merged shards), else
    the recorded log folder."""
    own = reg.out_dir / "runs" / res.run.key
    return own if own.is_dir() else res.log_dir


def _testcases(suite: ET.Element, reg: Regression, res: RunResult, index: int) -> int:
    """One testcase per cocotb test of the run, from its results.xml: classname
    `<dut>.<point>`, name `<test>[<seed index>]`, the seed and run as properties. Tests with
    no result in results.xml (a build failure, a killed simulator, a run not started) are
    errors, or skipped for a run not started. Returns how many testcases it wrote."""
    run = res.run
    folder = _run_folder(reg, res)
    found = cocotb_cases(folder / "results.xml") if folder is not None else {}
    tests = list(dict.fromkeys([*with_design_tests(run).tests, *found]))
    classname = f"{run.build.dut}.{point_of(run)}"
    repro = f"repro: {run.repro()}\nlog: {res.log_dir or '-'}"
    if res.rerun:
        repro += f"\n{res.rerun.describe(res.first_error)}"
    failed = False
    beyond = "; ".join(run.beyond_paper())
    for test in tests:
        got = found.get(test)
        case = ET.SubElement(suite, "testcase", classname=classname, name=f"{test}[{index}]",
                             time=got.get("time", "0.000") if got is not None else "0.000")
        props = ET.SubElement(case, "properties")
        for name, value in (("seed", str(run.seed)), ("seed_index", str(index)),
                            ("run", run.key), ("test", test), ("repro", run.repro()),
                            *((("beyond_paper", beyond),) if beyond else ())):
            ET.SubElement(props, "property", name=name, value=value)
        if got is not None:
            for tag in ("failure", "error"):
                if (bad := got.find(tag)) is not None:
                    failed = True
                    el = ET.SubElement(case, tag, message=bad.get("message", res.first_error),
                                       type=bad.get("type", tag))
                    el.text = f"{(bad.text or '').strip()}\n{repro}".lstrip()
            if (skip := got.find("skipped")) is not None:
                ET.SubElement(case, "skipped", message=skip.get("message", "skipped"))
        elif res.status == SKIP:
            ET.SubElement(case, "skipped", message=f"not started: {reg.stopped or 'stopped'}")
        elif res.status == FAIL:
            failed = True
            ET.SubElement(case, "error", message=f"no result: {res.first_error}",
                          type="error").text = f"{res.first_error}\n{repro}"
        elif res.status == ERROR:  # the batch system ended the job: an error, not a failure
            ET.SubElement(case, "error", message=res.first_error,
                          type="infrastructure").text = f"{res.first_error}\n{repro}"
        ET.SubElement(case, "system-out").text = \
            f"seed: {run.seed}\ntxns: {run.txns}\n{repro}"
    if res.status == FAIL and not failed:  # every test passed, the run did not (a checker)
        case = ET.SubElement(suite, "testcase", classname=classname, name=f"run[{index}]",
                             time=f"{res.wall_s:.3f}")
        ET.SubElement(case, "failure", message=res.first_error, type="failure").text = \
            f"{res.first_error}\n{repro}"
        return len(tests) + 1
    return len(tests)


def _count(suite: ET.Element, seconds: float) -> None:
    """A testsuite's counts, from its testcases."""
    cases = suite.findall("testcase")
    for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(key, str(sum(c.find(tag) is not None for c in cases)))
    suite.set("tests", str(len(cases)))
    suite.set("time", f"{seconds:.3f}")


def junit_tree(reg: Regression) -> ET.ElementTree:
    """One testsuite per model, one testcase per cocotb test of each run (`_testcases`)."""
    root = ET.Element("testsuites", {"name": f"montverif {reg.name}"})
    host = socket.gethostname()
    stamp = reg.start.isoformat(timespec="seconds")
    index = seed_indexes(reg.results)
    for row in config_rows(reg):
        suite = ET.SubElement(root, "testsuite", {"name": row.key, "timestamp": stamp,
                                                  "hostname": host})
        props = ET.SubElement(suite, "properties")
        for name, value in (("list", reg.name), ("git", reg.git),
                            ("base_seed", str(reg.base_seed)), ("build_s", f"{row.build_s:.3f}"),
                            ("build_error", reg.builds.get(row.key, BuildResult(row.key)).error)):
            ET.SubElement(props, "property", name=name, value=value)
        for res in row.results:
            _testcases(suite, reg, res, index[res.run.key])
        _count(suite, row.build_s + row.wall_s)
    if reg.formal:
        _formal_suite(root, reg, stamp, host)
    if reg.mutation:
        _mutation_suite(root, reg, stamp, host)
    if reg.diffs:
        suite = ET.SubElement(root, "testsuite", {
            "name": "cross-simulator", "timestamp": stamp, "hostname": host})
        runs = {res.run.key: res.run for res in reg.results}
        for d in reg.diffs:
            run = runs.get(d.runs[0]) if d.runs else None
            classname, name = f"{reg.name}.diff", d.key
            if run is not None:  # `<dut>.<point without the simulator>`, `sims-agree[<i>]`
                point = sim_free_key(replace(run.build, coverage=False)).removeprefix(
                    run.build.dut + "-")
                classname = f"{run.build.dut}.{point.replace('.', '_')}"
                name = f"sims-agree[{index.get(run.key, 0)}]"
            case = ET.SubElement(suite, "testcase", classname=classname, name=name,
                                 time="0.000")
            props = ET.SubElement(case, "properties")
            for key, value in (("seed", str(run.seed if run else "")), ("runs", " ".join(d.runs))):
                ET.SubElement(props, "property", name=key, value=value)
            if not d.same:
                ET.SubElement(case, "failure", message=d.detail, type="failure").text = \
                    " vs ".join(d.runs)
        _count(suite, 0.0)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root.iter("testsuite"))))
    root.set("time", f"{reg.wall_s:.3f}")
    ET.indent(root)
    return ET.ElementTree(root)


def _formal_suite(root: ET.Element, reg: Regression, stamp: str, host: str) -> None:
    """One testcase per formal check (`<design>.formal`, named by its point): a failure when
    it missed the verdict it needs (the failing assertion, the counterexample and the replay
    line), an error when it could not run, skipped when not started."""
    recs = list(reg.formal.values())
    suite = ET.SubElement(root, "testsuite", {
        "name": "formal", "timestamp": stamp, "hostname": host})
    for r in recs:
        point = "-".join(f"{k}{v}" for k, v in r["point"].items())
        case = ET.SubElement(suite, "testcase", classname=f"{r['dut']}.formal",
                             name=point + ("-fault" if r["fault"] else "")
                             + ("-prove" if r["wanted"] == formal_checks.PROVED_OR_OPEN else ""),
                             time=f"{r['seconds']:.3f}")
        said = formal_checks.describe(r)
        detail = "\n".join(f"{k}: {v}" for k, v in (
            ("where", r.get("location")), ("counterexample", r.get("trace")),
            ("vector", r.get("vector")), ("replay", r.get("replay")), ("repro", r["repro"])) if v)
        if r["status"] == formal_checks.SKIPPED:
            ET.SubElement(case, "skipped", message=r["message"])
        elif r["status"] == formal_checks.ERROR:
            ET.SubElement(case, "error", message=r["message"], type="error").text = detail
        elif not r["ok"]:
            ET.SubElement(case, "failure", message=f"{said} (needs {r['wanted']})",
                          type="failure").text = detail
        ET.SubElement(case, "system-out").text = f"{said}\nfolder: {r['dir']}\n{detail}"
    _count(suite, sum(float(r["seconds"]) for r in recs))


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
