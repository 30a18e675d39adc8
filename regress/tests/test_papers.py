"""docs/papers/figures.toml, regress/synth/papers.py and `montverif synth papers`: the
papers' figures parse, each with a citation, a device and a design of its paper; the papers'
own arithmetic holds on them (so a mistyped figure shows); the normalisation's arithmetic;
the renderer on a small fake result set; the committed results file; docs/generated/papers.md
is what the committed files render; bad input is one `error:` line and
exit 2."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.models import rsa as rsa_model
from montverif.regress.cli import main
from montverif.regress.cli import synth as synth_cli
from montverif.regress.synth import papers, synth, synth_results
from montverif.spec.designs import load_design

FIGURES = papers.load()


def _step(text: str) -> float:
    """Half a unit of the last printed digit: the rounding a printed figure carries."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals


def _figs(paper: str) -> list[papers.Figure]:
    return [f for f in FIGURES.figures if f.paper.key == paper]


# --- the figures file ------------------------------------------------------------------------

def test_every_figure_is_cited_and_names_a_design_of_its_paper() -> None:
    assert {p.key for p in FIGURES.papers} == {"amanor-2005", "gajbhiye-2018",
                                              "michalski-buell-2006", "jiang-harris",
                                              "tanimura-2008"}
    for fig in FIGURES.figures:
        assert fig.quantities, fig.label
        for q in fig.quantities:
            assert q in papers.QUANTITIES and fig.citation(q).strip(), (fig.label, q)
        if fig.design:
            design = load_design(fig.design)
            assert design.paper == fig.paper.name or fig.design in fig.paper.others
            synth.plan(fig.spec())  # a configuration the project can synthesise
        else:
            assert fig.why, fig.label
    # every design of a paper with implementation tables has at least one figure
    named = {f.design for f in FIGURES.figures}
    for paper in FIGURES.papers:
        for dut in ("mont_csa", "mont_lut", "inter_lut", "mont_csa_u2", "mont_lut_u2", "mm42",
                    "mm42_u2", "rsa_core", "mont_qp", "mont_dual"):
            if load_design(dut).paper == paper.name:
                assert dut in named, dut


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace('design = "mont_qp"', 'design = "mont_nope"', 1), "unknown DUT"),
    (lambda t: t.replace('design = "mont_qp"', 'design = "mont_r2"', 1),
     "mont_r2 is Amanor 2005's design, not Jiang-Harris's"),
    (lambda t: t.replace('luts = "section V and Table 1 (Hardware)"\n', "", 1),
     "luts has no citation"),
    (lambda t: t.replace('ram = "~5n"', 'rom = "~5n"', 1), "unknown quantity 'rom'"),
    (lambda t: t.replace('luts = "3825"', 'luts = "38x25"', 1), "is not a number as printed"),
    (lambda t: t.replace('luts = "3825"', "luts = 3825", 1), "strings of the printed digits"),
    (lambda t: t.replace('device = "XC2V2000"', 'device = "XC9"', 1), "unknown device 'XC9'"),
    (lambda t: t.replace('P = 20, ConstTime', 'P = 21, ConstTime', 1), "p_max"),
    (lambda t: t.replace('why = "Kelly-Harris', 'note = "Kelly-Harris', 1),
     "needs `why`"),
    (lambda t: t + "\n[oops]\n", "unknown key(s) oops"),
    (lambda t: t + "\n[[figures\n", "not TOML"),
])
def test_a_broken_figures_file_is_refused_in_one_line(tmp_path: Path, edit: object,
                                                      message: str) -> None:
    assert callable(edit)
    path = tmp_path / "figures.toml"
    path.write_text(edit(papers.FIGURES.read_text()))
    with pytest.raises(ConfigError) as exc:
        papers.load(path)
    assert message in str(exc.value) and "\n" not in str(exc.value), str(exc.value)


# --- the papers' own arithmetic, on the figures as transcribed --------------------------------

def test_amanor_times_are_period_times_n_plus_1_and_area_time_holds() -> None:
    """Section 6.3: absolute time = period x (n + 1); section 6.4: AT = slice % x time;
    section 6.5: RSA = 1538 (1536) x the 1024-bit time; Table 3's MHz = 1000 / period."""
    figs = _figs("amanor-2005")
    assert len(figs) == 18
    for f in figs:
        period, product = f.value("period_ns"), f.value("product_ns")
        assert period is not None and product is not None
        assert abs(period * (f.n + 1) - product) <= _step(f.text("period_ns") or "") * (f.n + 1)
        pct, at = f.value("slices_pct"), f.value("area_time")
        assert pct is not None and at is not None
        assert abs(pct * product - at) <= 0.001 * at, f.where()
        assert abs(1000 / period - (f.value("clock_mhz") or 0)) < 0.001
        if (exp := f.value("exp_ns")) is not None:
            assert abs((f.value("exp_products") or 0) * product - exp) < 0.1
        # the flip-flops and LUTs fit the slices printed (2 + 2 a slice, the % rounded)
        fam, slices = f.device.family, f.device.capacity["slices"]
        most = (pct + _step(f.text("slices_pct") or "") * 2) * slices / 100
        assert (f.value("ffs") or 0) <= fam.ffs_per_slice * most, f.where()
        assert (f.value("luts") or 0) <= fam.luts_per_slice * most, f.where()


def _pct_holds(f: papers.Figure, q: str) -> bool:
    """The paper's percentage of the device (Xilinx's map report truncates it) matches the
    count printed beside it and the device's capacity from figures.toml."""
    count, pct = f.value(q) if q not in f.misprints else None, f.value(f"{q}_pct")
    total = f.device.capacity[q]
    if count is None:  # a misprint: read the printed digits anyway, it must fail
        count = float((f.text(q) or "0").replace(",", ""))
    return pct is not None and math.floor(100 * count / total) == pct


def test_michalski_buell_percentages_check_the_devices_and_find_the_misprint() -> None:
    """Tables 1 and 2 print each count's share of the device: they hold for the XC2VP100's
    and XC4VFX100's capacities, on every count but the one figures.toml names a misprint."""
    figs = _figs("michalski-buell-2006")
    checked = failing = 0
    for f in figs:
        for q in ("slices", "luts", "ffs", "mults"):
            holds = _pct_holds(f, q)
            checked += 1
            assert holds == (q not in f.misprints), (f.where(), f.device.key, q)
            failing += not holds
    assert checked == 16 and failing == 1
    # the slices hold the LUTs and flip-flops: 2 LUT4 + 2 FF a slice
    for f in figs:
        fam = f.device.family
        assert (f.value("luts") or 0) <= fam.luts_per_slice * (f.value("slices") or 0)


def test_gajbhiye_area_times_delay_holds_but_for_the_misprint() -> None:
    figs = _figs("gajbhiye-2018")
    assert len(figs) == 12
    for f in figs:
        area = f.value("luts") if f.value("luts") is not None else f.value("gates")
        delay = f.value("delay_ns")
        printed = float(f.text("area_delay") or "0")
        assert area is not None and delay is not None
        holds = abs(area * delay - printed) <= 0.6  # printed to the unit at most
        assert holds == ("area_delay" not in f.misprints), f.where()


def test_jiang_harris_times_are_2n_multiplications_at_the_clock() -> None:
    """Table 1's exponentiation times, over 2n multiplications at the clock, give about
    the paper's own cycle count (eq. (2)/(3)) of each configuration: the reading that
    `exp_products` records."""
    for f in _figs("jiang-harris")[:4]:
        product = papers.paper_product_ns(f)
        clock = papers.paper_clock_ns(f)
        assert product is not None and clock is not None
        cycles = product[0] / clock[0]
        v = w = 16
        p = int(f.params["P"])
        fq = math.ceil((f.width + 2 * v) / v)  # f = ceil(n' / v), n' = n + 2v
        e = math.ceil(f.width / w) + 2  # e = ceil(n / w) + 1, + 1 for w = v
        eq = (fq // p) * max(e, 2 * p + 1) + e + 2 * (fq % p)
        assert abs(cycles - eq) / eq < 0.05, (f.where(), cycles, eq)


# --- normalisation -----------------------------------------------------------------------------

def _figure(**quantities: str) -> papers.Figure:
    base = next(f for f in FIGURES.figures if f.device.key == "XCV2000E")
    return dataclasses.replace(base, quantities=quantities, cite={q: "T" for q in quantities})


def test_area_is_luts_plus_ffs_else_bounded_by_slices() -> None:
    both = papers.paper_area(_figure(luts="1,000", ffs="500", slices_pct="10"))
    assert (both.value, both.unit) == (1500, "LUT4 + FF")
    # 10 % of the XCV2000E's 19,200 slices, each at most 2 LUT4 + 2 FF
    bound = papers.paper_area(_figure(slices_pct="10"))
    assert bound.value == pytest.approx(0.10 * 19200 * (2 + 2)) and "at most" in bound.unit
    only = papers.paper_area(_figure(luts="700"))
    assert (only.value, only.unit) == (700, "LUT4") and "no flip-flops" in only.how
    misprint = dataclasses.replace(_figure(luts="10", ffs="99,999", slices="20"),
                                   misprints=("ffs",))
    assert papers.paper_area(misprint).value == 20 * 4  # the misprint left out
    asic = next(f for f in FIGURES.figures if f.device.family.asic)
    assert papers.paper_area(asic).value is None
    assert "not comparable" in papers.paper_area(asic).how


def test_clock_and_time_per_multiplication() -> None:
    f = _figure(clock_mhz="125", exp_ms="2.048", exp_products="1024")
    clock, product = papers.paper_clock_ns(f), papers.paper_product_ns(f)
    assert clock is not None and clock[0] == pytest.approx(8.0)
    assert product is not None and product[0] == pytest.approx(2.048e6 / 1024)
    implied = papers.paper_clock_ns(_figure(cycles="165", product_us="0.23"))
    assert implied is not None and implied[0] == pytest.approx(230 / 165)
    assert "implied" in implied[1]
    assert papers.paper_clock_ns(_figure(luts="1")) is None


def test_the_rsa_core_counts_its_own_steps() -> None:
    """rsa_core at Michalski-Buell's configuration: a step is the mwrkmm product plus the
    capture cycle, an exponentiation of n ones n + 2 steps (the paper's 1026)."""
    f = next(f for f in _figs("michalski-buell-2006") if f.design == "rsa_core")
    mult = load_design("mwrkmm").cycles_at(1024, {"V": 17, "W": 16, "P": 20})
    assert mult is not None
    assert papers.project_cycles(f) == mult + rsa_model.CAPTURE_CYCLES
    assert papers.project_exp_cycles(f) == (1024 + 2) * (mult + rsa_model.CAPTURE_CYCLES)
    assert f.value("exp_products") == 1024 + 2


# --- rendering on fake results -------------------------------------------------------------------

def _xc7(dut: str, n: int, params: dict[str, int], luts: int, ffs: int, delay: float,
         revision: str = "abc1234") -> dict[str, object]:
    return {"dut": dut, "n": n, "parameters": {"N": n, **params}, "revision": revision,
            "yosys": "Yosys 0.70", "synth_s": 1.0,
            "cells": {"luts": luts, "flip_flops": ffs, "carry4": 1, "dsp48e1": 2, "muxes": 0},
            "timing": {"logic_delay_ns": delay, "period_floor_ns": delay, "logic_levels": 9,
                       "lut_levels": 3,
                       "carry4_on_path": 6, "longest_carry_run": 4}}


def _ecp5(dut: str, n: int, params: dict[str, int], luts: int, ffs: int,
          fmax: float) -> dict[str, object]:
    return {"dut": dut, "n": n, "parameters": {"N": n, **params}, "revision": "def5678",
            "yosys": "Yosys 0.70", "nextpnr": "nextpnr 0.9",
            "cells": {"luts": luts, "flip_flops": ffs, "mult18x18d": 3},
            "timing": {"fmax_mhz": fmax}}


def _row_of(text: str, start: str) -> list[str]:
    rows = [ln for ln in text.splitlines() if ln.startswith(f"| {start}")]
    assert rows, start
    return [c.strip() for c in rows[0].strip("|").split(" | ")]


def test_the_comparison_renders_the_ratios_of_its_inputs() -> None:
    amanor = next(p for p in FIGURES.papers if p.key == "amanor-2005")
    fig = next(f for f in _figs("amanor-2005") if f.design == "mont_lut" and f.n == 256)
    results = synth_results.empty()
    results["xc7"] = [_xc7("mont_lut", 256, {}, 2000, 1000, 8.0)]
    results["ecp5"] = [_ecp5("mont_lut", 256, {}, 2600, 1300, 50.0)]
    lines = papers.render_paper(FIGURES, amanor, results)
    text = "\n".join(lines)
    area = _row_of(text, fig.where())
    paper_total = (fig.value("luts") or 0) + (fig.value("ffs") or 0)
    # the ECP5 count (LUT4, like the Virtex-E's) carries the ratio; the 7-series one not
    assert area[-3] == "3000"
    assert area[-2] == f"3900 ({3900 / paper_total:.2f}×)"
    cycles = load_design("mont_lut").cycles_at(256, {})
    assert cycles is not None
    time_rows = text.split("Time:")[1]
    row = _row_of(time_rows, fig.where())
    period, product = fig.value("period_ns"), fig.value("product_ns")
    assert period is not None and product is not None
    assert row[3] == str(cycles)
    assert row[4] == (f"{papers.fmt_time(cycles * period)} "
                      f"({cycles * period / product:.2f}×)")
    assert row[5] == papers.fmt_time(cycles * 8.0)  # x the 7-series logic delay
    assert row[6] == papers.fmt_time(cycles * 1000 / 50.0)  # over the ECP5 Fmax
    # a configuration without a result says so, with the command that makes it
    other = _row_of(text, next(f for f in _figs("amanor-2005")
                               if f.design == "mont_csa" and f.n == 512).where())
    assert (other[-3], other[-2]) == ("not synthesised yet", "not placed and routed yet")
    assert "`montverif synth run --dut mont_csa --n 512`" in text
    assert "`montverif synth run --dut mont_lut --n 256`" not in text


def test_a_paper_without_widths_compares_ratios_only() -> None:
    gaj = next(p for p in FIGURES.papers if p.key == "gajbhiye-2018")
    results = synth_results.empty()
    results["xc7"] = [_xc7("mont_csa", 256, {}, 400, 100, 2.0),
                      _xc7("mont_csa_u2", 256, {}, 600, 100, 2.5)]
    text = "\n".join(papers.render_paper(FIGURES, gaj, results))
    row = _row_of(text, "Two-CSA [8] with proposed unfolding | Xilinx Spartan-6")
    assert row[3] == f"{77 / 56:.2f}×" and row[4] == f"{2.64 / 3.46:.2f}×"
    c2 = load_design("mont_csa_u2").cycles_at(256, {})
    c1 = load_design("mont_csa").cycles_at(256, {})
    assert c1 is not None and c2 is not None
    assert row[6:] == [f"{600 / 400:.2f}×", f"{700 / 500:.2f}×", f"{c2 / c1:.2f}×",
                       f"{c2 * 2.5 / (c1 * 2.0):.2f}×", "not synthesised yet"]
    assert "`montverif synth run --dut mont_csa_u2 --n 256 --loop-only`" in text
    # the loops alone: their floor x cycles per bit of X, over the baseline's
    results["xc7"] += [_xc7("mont_csa", 256, {}, 300, 100, 1.5) | {"variant": "loop"},
                       _xc7("mont_csa_u2", 256, {}, 500, 100, 2.1) | {"variant": "loop"}]
    text = "\n".join(papers.render_paper(FIGURES, gaj, results))
    row = _row_of(text, "Two-CSA [8] with proposed unfolding | Xilinx Spartan-6")
    assert row[6:9] == [f"{600 / 400:.2f}×", f"{700 / 500:.2f}×", f"{c2 / c1:.2f}×"]
    assert row[10] == f"{c2 * 2.1 / (c1 * 1.5):.2f}×"
    assert "`montverif synth run --dut mont_csa_u2 --n 256 --loop-only`" not in text
    asic = _row_of(text, "Two-CSA [8] with proposed unfolding | TSMC")
    assert asic[3] == f"{528 / 437:.2f}× (gates)"
    lut = _row_of(text, "Pre-computed [8] | Xilinx Spartan-6")
    assert lut[6] == "not synthesised yet"


def test_the_section_names_the_revisions_of_its_results() -> None:
    results = synth_results.empty()
    results["xc7"] = [_xc7("mont_lut", 256, {}, 1, 1, 1.0, "1111111"),
                      _xc7("mont_csa", 256, {}, 1, 1, 1.0, "2222222"),
                      _xc7("mont_r2", 256, {}, 1, 1, 1.0, "3333333")]  # not a paper's
    text = papers.render(FIGURES, results)
    assert text.startswith("# The papers' figures beside the project's synthesis\n")
    assert ("2 results of regress/synth/synth-results.json, measured at revision 1111111, "
            "2222222") in text
    assert "3333333" not in text
    assert "none in regress/synth/synth-results.json yet" in papers.render(FIGURES,
                                                                  synth_results.empty())


# --- the committed results file --------------------------------------------------------------

def test_recording_replaces_the_same_core_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    synth_results.record(path, xc7=[_xc7("mont_csa", 256, {}, 10, 1, 1.0, "old")])
    synth_results.record(path, xc7=[_xc7("mont_lut", 256, {}, 20, 2, 1.0)],
                         ecp5=[_ecp5("mont_lut", 256, {}, 30, 3, 9.0)])
    got = synth_results.record(path, xc7=[_xc7("mont_csa", 256, {}, 11, 1, 1.0, "new")])
    assert [(r["dut"], r["revision"]) for r in got["xc7"]] == [("mont_csa", "new"),
                                                                ("mont_lut", "abc1234")]
    assert json.loads(path.read_text()) == got and len(got["ecp5"]) == 1
    found = synth_results.find(got["xc7"], "mont_lut", 256, {})
    assert found is not None and synth_results.find(got["xc7"], "mont_lut", 512, {}) is None


@pytest.mark.parametrize(("text", "message"), [
    ("[1, 2]", "expected an object"),
    ('{"xc7": {}}', "xc7 must be a list"),
    ('{"xc7": [{"dut": "mont_r2"}]}', "xc7[0] is not a synthesis result (no n, parameters"),
    ("{", "not JSON"),
])
def test_a_bad_results_file_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        synth_results.load(path)


def test_a_written_table_records_its_results(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`synth --table --write` also records the results it rendered in the results file
    (here: a result of any revision, --reuse, below a folder of its own)."""
    root, page, record = tmp_path / "synth", tmp_path / "synth.md", tmp_path / "r.json"
    spec = synth.SynthSpec("mont_r2", 16)
    (root / spec.key).mkdir(parents=True)
    (root / spec.key / synth.RESULT).write_text(json.dumps(_xc7("mont_r2", 16, {}, 144, 48,
                                                                2.0)))
    assert synth_cli.table("mont_r2", "16", page, 60, reuse=True, root=root,
                           record=record) == 0
    recorded = synth_results.load(record)["xc7"]
    assert [(r["dut"], r["n"]) for r in recorded] == [("mont_r2", 16)]
    assert "| `mont_r2` | 16 | 144 | 48 |" in page.read_text()
    assert "recorded 1 results" in capsys.readouterr().out


# --- the generated docs ------------------------------------------------------------------------

def _section(page: Path) -> str:
    """The page without its generated header."""
    head, _, text = page.read_text().partition("\n\n")
    assert head == pages.header(papers.COMMAND)
    return text.rstrip("\n")


def test_docs_papers_md_is_what_the_committed_files_render() -> None:
    """docs/generated/papers.md is `montverif synth papers` of docs/papers/figures.toml
    and regress/synth/synth-results.json (run `montverif synth papers --write` after changing
    either)."""
    rendered = papers.render(papers.load(), synth_results.load())
    assert _section(papers.DEFAULT_OUT) == rendered, "stale: montverif synth papers --write"


def test_the_freshness_check_sees_a_changed_figure(tmp_path: Path) -> None:
    path = tmp_path / "figures.toml"
    path.write_text(papers.FIGURES.read_text().replace('luts = "3825"', 'luts = "3826"'))
    assert papers.render(papers.load(path), synth_results.load()) != \
        _section(papers.DEFAULT_OUT)


def test_write_makes_the_page_and_replaces_it_whole(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "papers.md"
    results = tmp_path / "none.json"
    for _ in range(2):
        assert main(["synth", "papers", "--results", str(results), "--write", str(page)]) == 0
    text = page.read_text()
    assert text.startswith(pages.header(papers.COMMAND) + "\n\n# The papers' figures")
    assert text.count("\n## Amanor 2005") == 1 and not results.exists()
    assert capsys.readouterr().out == f"wrote {page}\n" * 2


# --- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--figures", "{tmp}/none.toml"], "cannot read the papers' figures"),
    (["--figures", "{tmp}/bad.toml"], "not TOML"),
    (["--results", "{tmp}/bad.json"], "not JSON"),
    (["--results", "{tmp}"], "is not a file"),
    (["--write", "{tmp}/plain.md"], "plain.md exists and montverif did not write it"),
    (["--write", "{tmp}/none/page.md"], "no such folder"),
    (["--table"], "unrecognized arguments: --table"),
    (["--measure", "--designs", "mont_nope"], "unknown DUT 'mont_nope'"),
    (["--measure", "--widths", "x"], "--widths 'x'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    (tmp_path / "bad.toml").write_text("[[figures\n")
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "plain.md").write_text("no markers\n")
    argv = ["synth", "papers", *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err
    assert message in captured.err and captured.out == ""
    assert (tmp_path / "plain.md").read_text() == "no markers\n"


def test_measure_without_papers_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth", "--measure"]) == 2
    assert capsys.readouterr().err == "error: --measure is an option of --papers and --rsa\n"


def test_measure_synthesises_what_the_file_lacks_and_records_it_at_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """--measure: only the papers' configurations of --designs at --widths that the results
    file lacks, one after another; a failing one is named and exits 1; the rest are recorded
    once, after the last (the results file is committed: recording earlier would make the
    later syntheses of a dirty checkout)."""
    record = tmp_path / "results.json"
    synth_results.record(record, xc7=[_xc7("mont_csa", 256, {}, 1, 1, 1.0)])
    calls: list[str] = []

    def run(spec: synth.SynthSpec, out: Path, timeout_s: float = 0) -> dict[str, object]:
        calls.append(spec.key)
        assert not record.read_text().count('"mont_lut"')  # nothing recorded yet
        if spec.dut == "mont_lut" and spec.n == 64:
            raise synth.SynthError("yosys did not finish within 1 s")
        return _xc7(spec.dut, spec.n, dict(spec.params), 10 * spec.n, spec.n, 1.0) | (
            {"variant": spec.variant} if spec.variant else {})

    monkeypatch.setattr(synth, "run", run)
    code = main(["synth", "papers", "--measure", "--designs", "mont_csa,mont_lut",
                 "--widths", "32,64,256", "--results", str(record), "--out",
                 str(tmp_path / "synth")])
    assert code == 1
    cores = ["mont_csa-n32", "mont_csa-n64", "mont_lut-n32", "mont_lut-n64", "mont_lut-n256"]
    # mont_csa at 256 was there; then the loops alone (Amanor and Gajbhiye leave the final
    # adder out: loop_only), mont_csa's at 256 too
    loops = ["mont_csa-n32", "mont_csa-n64", "mont_csa-n256", "mont_lut-n32", "mont_lut-n64",
             "mont_lut-n256"]
    assert calls == [f"{c}-xc7" for c in cores] + [f"{c}-loop-xc7" for c in loops]
    got = {(r["dut"], r["n"], r.get("variant", "")) for r in synth_results.load(record)["xc7"]}
    assert got == {(d, n, v) for d, n in (("mont_csa", 32), ("mont_csa", 64),
                                          ("mont_lut", 32), ("mont_lut", 256))
                   for v in ("", "loop")} | {("mont_csa", 256, ""), ("mont_csa", 256, "loop")}
    out = capsys.readouterr().out
    assert "FAIL mont_lut-n64-xc7: yosys did not finish" in out
    assert "FAIL mont_lut-n64-loop-xc7: yosys did not finish" in out
    assert "recorded 9 results in" in out and "## Amanor 2005" in out


def test_a_dual_field_paper_sets_each_field_alone_beside_its_clock() -> None:
    """Tanimura runs both fields at one clock (per_field): each figure's row gets the
    project's core with that field alone (its field input tied), its period floor over the
    paper's implied clock period; one not synthesised says so, with the command."""
    tan = next(p for p in FIGURES.papers if p.key == "tanimura-2008")
    params = {"K": 16, "Units": 4}
    results = synth_results.empty()
    results["xc7"] = [_xc7("mont_dual", 256, params, 1, 1, 9.0),
                      _xc7("mont_dual", 256, params, 1, 1, 4.0) | {"variant": "field1"}]
    text = "\n".join(papers.render_paper(FIGURES, tan, results))
    time_rows = text.split("Time:")[1]
    gf2 = next(f for f in _figs("tanimura-2008") if f.design == "mont_dual" and f.gf == 1)
    clock = papers.paper_clock_ns(gf2)
    assert clock is not None
    assert _row_of(time_rows, gf2.where())[-1] == \
        f"GF(2^n) alone: 4.00 ns ({4.0 / clock[0]:.2f}×)"
    gfp = next(f for f in _figs("tanimura-2008") if f.design == "mont_dual" and f.gf == 0)
    assert _row_of(time_rows, gfp.where())[-1] == "not synthesised yet"
    assert "`montverif synth run --dut mont_dual --n 256 --field 0`" in text
