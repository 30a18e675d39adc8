"""Everything a results folder holds about a regression, written at once."""

from __future__ import annotations

from pathlib import Path

from montverif.regress.regression.results import Regression
from montverif.regress.regression.summary import summary_dict, write_summary
from montverif.regress.report import cycles, history, html
from montverif.regress.report.junit import write_junit


def write_all(reg: Regression) -> None:
    """junit.xml, summary.json, cycles.md, the history line (if reg.history) and report.html."""
    reg.out_dir.mkdir(parents=True, exist_ok=True)
    write_junit(reg, reg.out_dir / "junit.xml")
    write_summary(reg, reg.out_dir / "summary.json")
    write_cycles(reg.out_dir)
    summary = summary_dict(reg)
    past: list[dict] = []
    if reg.history is not None:
        history.append(reg.history, summary, reg.out_dir)
        past = history.load(reg.history)
    (reg.out_dir / "report.html").write_text(html.render(summary, reg.out_dir, past))


def write_cycles(out_dir: Path) -> None:
    """cycles.md: the cycle counts of this regression's logs beside the papers' formulas
    (`montverif cycles --write` makes docs/generated/cycles.md from the logs)."""
    unreadable: list[str] = []
    table = cycles.collect([out_dir / "runs"], unreadable)  # the list's runs, not mutation/
    if table:
        left_out = "".join(f"\nLeft out, unreadable: {why}\n" for why in unreadable)
        (out_dir / "cycles.md").write_text(cycles.render(table, list_missing=False)
                                             + left_out)


def finish_report(reg: Regression, history_file: Path | None) -> None:
    """After the coverage merge: the history line (with coverage %) and report.html."""
    summary = summary_dict(reg)
    past: list[dict] = []
    if history_file is not None:
        history.append(history_file, summary, reg.out_dir)
        past = history.load(history_file)
    (reg.out_dir / "report.html").write_text(html.render(summary, reg.out_dir, past))
