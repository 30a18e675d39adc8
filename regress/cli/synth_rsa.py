"""`montverif synth rsa`: the RSA core's time per exponentiation at the estimated clock,
with its area, for every multiplier it can hold (docs/generated/rsa-synth.md;
regress/synth/rsa_synth.py).

    montverif synth rsa [--widths 1024,2048] [--measure [--reuse]] [--write [FILE]]

Without --measure nothing is synthesised: the table is rendered from the committed results
(--results, default regress/synth/synth-results.json) and printed, or written between the rsa-synth
markers of docs/rsa.md (--write) or FILE. --measure first synthesises each option the
results file lacks, one after another, each in its folder below --out (default build/synth;
a same-revision result there is taken as it is, with --reuse one of any revision, which
keeps its own revision), and records them in the results file when the last has finished.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.host.tools import ToolError
from montverif.regress.cli.args import distinct, fail
from montverif.regress.synth import papers, rsa_synth, synth, synth_results


def _widths(text: str | None) -> list[int]:
    if not text:
        return list(rsa_synth.WIDTHS)
    try:
        distinct(text, "--widths")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    try:
        widths = [int(w, 0) for w in text.split(",")]
    except ValueError:
        raise ConfigError(f"--widths {text!r}: expected widths such as 1024,2048") from None
    for w in widths:
        for spec in rsa_synth.specs([w]):
            synth.plan(spec)  # a width the core or a multiplier refuses is one line
    return widths


def measure(widths: list[int], record: Path, timeout_s: float, reuse: bool,
            root: Path) -> int:
    """Synthesise the options `record` lacks; record them at the end. The number that
    failed."""
    have = synth_results.load(record)[synth.FAMILY]
    done: list[dict[str, object]] = []
    failed = 0
    for spec, option in zip(rsa_synth.specs(widths), rsa_synth.options(widths), strict=True):
        if synth_results.find(have, spec.dut, spec.n, option.params) is not None:
            continue
        result = synth.taken_here(root / spec.key, reuse)
        if result is None:
            try:
                result = synth.run(spec, root / spec.key, timeout_s)
            except synth.SynthError as exc:
                print(f"FAIL {spec.key}: {exc}", flush=True)
                failed += 1
                continue
        print(f"{spec.key}: taken at {result['revision']}", flush=True)
        done.append(result)
    if done:
        synth_results.record(record, xc7=done)
        print(f"recorded {len(done)} results in {record}")
    return failed


def main(args: argparse.Namespace, root: Path, default_write: Path) -> int:
    if args.table or args.plot or args.papers or args.summary is not None \
            or args.dut is not None or args.pnr:
        return fail("--rsa is a mode of its own: without --table, --plot, --papers, "
                    "--summary, --pnr and --dut")
    if args.reuse and not args.measure:
        return fail("--reuse is an option of rsa --measure")
    try:
        widths = _widths(args.widths)
        figures = papers.load(args.figures)
        synth_results.load(args.results)
    except ConfigError as exc:
        return fail(exc)
    page = rsa_synth.DEFAULT_PAGE if args.write == default_write else args.write
    try:
        if page is not None:
            pages.check(page)  # before any synthesis
    except ConfigError as exc:
        return fail(exc)
    failed = 0
    if args.measure:
        try:
            failed = measure(widths, args.results, args.timeout, args.reuse, root)
        except (ConfigError, ToolError) as exc:
            return fail(exc)
    text = rsa_synth.render(synth_results.load(args.results), figures, widths)
    if page is None:
        print(text)
    else:
        try:
            rsa_synth.write(text, page)
        except ConfigError as exc:
            return fail(exc)
        print(f"wrote {page}")
    return 1 if failed else 0
