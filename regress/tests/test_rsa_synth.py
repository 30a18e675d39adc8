"""regress/synth/rsa_synth.py and `montverif synth rsa`: the RSA core's time per
exponentiation at the estimated clock beside its area, per multiplier; the goal's verdict
follows the figures; only a result of exactly the option's parameters is used; --measure
synthesises what the results file lacks and records it at the end; docs/generated/rsa-synth.md is
what the committed results render; bad input is one `error:` line and exit 2. (The
synthesis itself is tested in test_synth.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from montverif.host import pages
from montverif.models import rsa as rsa_model
from montverif.regress.cli import main
from montverif.regress.synth import papers, rsa_synth, synth, synth_results

FIGURES = papers.load()


def _result(n: int, params: dict[str, int], luts: int, ffs: int, delay: float,
            revision: str = "abc1234", dsp: int = 0) -> dict[str, object]:
    return {"dut": "rsa_core", "n": n, "parameters": {"N": n, **params},
            "revision": revision, "yosys": "Yosys 0.70", "synth_s": 1.0,
            "cells": {"luts": luts, "flip_flops": ffs, "carry4": 7, "dsp48e1": dsp},
            "timing": {"logic_delay_ns": delay, "period_floor_ns": delay}}


def _full(n: int, mult: int, **extra: int) -> dict[str, int]:
    """Every parameter of the option, as a synthesis records them (written out here)."""
    vwp = {"V": 16, "W": 16, "P": 1} | rsa_model.paper_params(mult, n)
    return {"Mult": mult, "ConstTime": 1, **vwp, "PeLatency": 3, "Units": 2, "Lazy": 0, **extra}


def _row(text: str, n: int, name: str) -> list[str]:
    rows = [ln for ln in text.splitlines() if ln.startswith(f"| {n} | {name} ")]
    assert len(rows) == 1, (n, name)
    return [c.strip() for c in rows[0].strip("|").split(" | ")]


def test_options_are_every_multiplier_at_the_papers_configurations() -> None:
    got = [(o.n, o.mult, o.params["V"], o.params["W"], o.params["P"])
           for o in rsa_synth.options([1024, 2048])]
    # mwrkmm at p_max (eq. 13: floor((floor(N/17) + 2) / 3)), mont_qp with 16 PEs
    assert (1024, 4, 17, 16, (1024 // 17 + 2) // 3) in got
    assert (2048, 4, 17, 16, (2048 // 17 + 2) // 3) in got
    assert (1024, 5, 16, 16, 16) in got and (2048, 5, 16, 16, 16) in got
    assert sorted({(n, m) for n, m, *_ in got}) == [(n, m) for n in (1024, 2048)
                                                   for m in range(9)]
    # and the subpipelined core (section 7): latency-4 PEs, floor(n_w / 4) of them, 15 at 1024
    sub = [o for o in rsa_synth.options([1024, 2048]) if o.params["PeLatency"] == 4]
    assert [(o.n, o.mult, o.params["P"]) for o in sub] == [(1024, 4, 15),
                                                           (2048, 4, (2048 // 17 + 2) // 4)]
    for o in rsa_synth.options([1024]):
        assert o.params["ConstTime"] == 1
        # the N + 2 steps of constant time, each the multiplier's cycles plus the capture;
        # with one multiplier its 2N + 3 products one after the other; the interleaved
        # multiplier (Mult = 6) has no TO or FROM step: N steps, 1034 cycles each
        lm = rsa_model.mult_cycles(o.mult, 1024, **{k: o.params[k] for k in
                                                    ("V", "W", "P", "PeLatency", "Lazy")})
        steps = 1024 + 2 if o.params["Units"] == 2 else 2 * 1024 + 3
        if o.mult == 6:
            assert lm == 1024 + 9 and o.params["Units"] == 2
            steps = 1024
        if o.mult in (7, 8):  # MM42 at the pairs' half width N + 1
            assert lm == (1025 + 4 if o.mult == 7 else (1025 + 3) // 2 + 2)
        # Lazy: the core's own final reduction, 2V + 1 steps of NI / W words and a select
        red = 33 * (1072 // 16 + 1) if o.params["Lazy"] else 0
        assert o.cycles == steps * (lm + 1) + red


def test_options_include_jiang_harris_on_one_multiplier_beside_two() -> None:
    """Jiang-Harris's exponentiation (the project's derivation from section VI and Table 1:
    2n products in turn on one 16-PE radix 2^16 unit) is the core with one mont_qp
    (Units = 1), at each width beside the two-multiplier core of the same unit; it is the
    only one-multiplier option."""
    for n in (1024, 2048):
        opts = rsa_synth.options([n])
        one = [o for o in opts if o.params["Units"] == 1 and not o.params["Lazy"]]
        assert [(o.mult, o.given) for o in one] == [(5, rsa_model.paper_one_unit(n))]
        two = next(o for o in opts if o.mult == 5 and o.params["Units"] == 2
                   and not o.params["Lazy"])
        assert {k: v for k, v in one[0].params.items() if k != "Units"} == \
            {k: v for k, v in two.params.items() if k != "Units"}
        assert one[0].label == "mont_qp (Mult=5, V=16, W=16, P=16, Units=1)"
        assert one[0].cycles == (2 * n + 3) * (rsa_model.mult_cycles(5, n, V=16, W=16, P=16)
                                               + 1)
    assert next(o for o in rsa_synth.options([1024]) if o.given == rsa_model.paper_one_unit(
        1024)).cycles == 2051 * 369  # docs/rsa.md, measured
    # its own synthesis: a key of its own, not the two-multiplier core's result
    keys = [s.key for s in rsa_synth.specs([1024])]
    assert "rsa_core-n1024-Mult5-V16-W16-P16-Units1-xc7" in keys
    assert "rsa_core-n1024-Mult5-V16-W16-P16-xc7" in keys
    results = synth_results.empty()
    results["xc7"] = [_result(1024, _full(1024, 5), 46000, 24000, 32.0, dsp=64)]
    row = _row(rsa_synth.render(results, FIGURES, [1024]), 1024,
               "mont_qp (Mult=5, V=16, W=16, P=16, Units=1)")
    assert row[2] == "not synthesised yet"
    results["xc7"].append(_result(1024, _full(1024, 5, Units=1), 23000, 13000, 32.0,
                                  dsp=32))
    text = rsa_synth.render(results, FIGURES, [1024])
    row = _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16, Units=1)")
    assert row[2:7] == ["23,000", "13,000", "36,000", "7", "32"]
    assert row[9:11] == [f"{2051 * 369:,}", f"**{2051 * 369 * 32.0 / 1e6:.3f}**"]
    assert _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16)")[2] == "46,000"


def test_rows_multiply_cycles_by_the_logic_delay_and_take_only_the_same_core() -> None:
    full = _full(1024, 2)
    assert set(full) == set(rsa_synth.options([1024])[2].params)
    results = synth_results.empty()
    results["xc7"] = [_result(1024, full, 30000, 15000, 4.0),
                      # ConstTime = 0 is another core: not this option's
                      _result(1024, {**_full(1024, 3), "ConstTime": 0}, 1, 1, 0.5)]
    results["ecp5"] = [_result(1024, full, 1, 1, 0.0) | {"timing": {"fmax_mhz": 125.0}}]
    text = rsa_synth.render(results, FIGURES, [1024])
    cycles = (1024 + 2) * ((1024 + 1) // 2 + 1 + 1)
    row = _row(text, 1024, "mont_csa_u2")
    assert row[2:5] == ["30,000", "15,000", "45,000"]
    assert row[7:10] == ["4.00", "250", f"{cycles:,}"]
    assert row[10] == f"**{cycles * 4.0 / 1e6:.3f}**"
    assert row[11] == f"125.0 MHz: **{cycles / 125.0 / 1e3:.3f} ms**"
    assert _row(text, 1024, "mont_lut_u2")[2] == "not synthesised yet"
    assert "revision abc1234" in text


@pytest.mark.parametrize("delay", [3.0, 6.0])
def test_the_goal_is_judged_on_the_fastest_option_at_its_bound(delay: float) -> None:
    results = synth_results.empty()
    results["xc7"] = [_result(1024, _full(1024, 0), 100, 100, 2.0),
                      _result(1024, _full(1024, 4), 40000, 28000, delay, dsp=80)]
    text = rsa_synth.render(results, FIGURES, [1024])
    cycles = rsa_synth.options([1024])[4].cycles
    bound = cycles * delay / 1e6
    goal = text.split("**The goal**")[1]
    # mont_lut's 1.05M cycles at 2 ns are slower than mwrkmm's 272k at 3 or 6 ns
    assert f"is mwrkmm (Mult=4, V=17, W=16, P=20), {bound:.3f} ms" in goal
    assert ("**not met**" in goal) == (bound >= rsa_synth.GOAL_MS)
    assert ("met at this lower bound only" in goal) == (bound < rsa_synth.GOAL_MS)
    # beside the papers' 1024-bit exponentiations, with their citations and the ratios
    paper = next(f for f in rsa_synth.paper_cores(FIGURES) if f.text("exp_ms") == "3.831")
    row = next(ln for ln in goal.splitlines() if "3.831 ms (section 8, Table 3" in ln)
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[-3] == f"≥ {bound / 3.831:.2f}"  # a lower bound against a routed figure
    norm = papers.paper_area(paper)
    assert norm.value == 19213 + 17992 and cells[-2] == f"{68000 / norm.value:.2f}"
    assert cells[-1] == "–"  # nothing placed and routed


def _unit(dut: str, n: int, params: dict[str, int], fmax: float) -> dict[str, object]:
    return {"dut": dut, "n": n, "parameters": {"N": n, **params}, "revision": "u",
            "cells": {"luts": 1, "flip_flops": 1}, "timing": {"fmax_mhz": fmax}}


def test_a_core_not_routed_whole_takes_its_units_clock_as_a_bound() -> None:
    """The Lazy core's unit is mont_qp without its reducer, the other mont_qp cores' with
    it: the unit's routed clock gives a lower bound, labelled so; a core routed whole
    wins over any unit, and the goal is judged on it, routed against routed beside the
    papers, their processes named."""
    lazy = next(o for o in rsa_synth.options([1024]) if o.params["Lazy"] == 1
                and o.params["Units"] == 2)
    assert rsa_synth.unit_of(lazy) == ("mont_qp", {"V": 16, "W": 16, "P": 16, "Reduce": 0})
    results = synth_results.empty()
    results["xc7"] = [_result(1024, _full(1024, 5, Lazy=1), 40000, 20000, 3.0, dsp=64)]
    results["ecp5"] = [_unit("mont_qp", 1024, {"V": 16, "W": 16, "P": 16, "Reduce": 0}, 100.0),
                       _unit("mont_qp", 1024, {"V": 16, "W": 16, "P": 16, "Reduce": 1}, 50.0)]
    text = rsa_synth.render(results, FIGURES, [1024])
    row = _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16, Lazy=1)")
    assert row[11] == f"unit alone 100.0 MHz: ≥ {lazy.cycles / 100.0 / 1e3:.3f} ms"
    plain = _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16)")
    plain_cycles = next(o.cycles for o in rsa_synth.options([1024]) if o.mult == 5
                        and o.params["Lazy"] == 0 and o.params["Units"] == 2)
    assert plain[-1].endswith("unit alone 50.0 MHz: ≥ " + f"{plain_cycles / 50.0 / 1e3:.3f} ms")
    goal = text.split("**Routed**")[1]
    assert "0 of the 13 1024-bit options placed and routed whole, 4 more" in goal
    assert "The fastest by its unit alone: mont_qp (Mult=5, V=16, W=16, P=16, Lazy=1), ≥" in goal
    # routed whole: it is the one judged, and the papers' rows set it against theirs
    results["ecp5"].append(_result(1024, _full(1024, 5, Lazy=1), 1, 1, 0.0)
                           | {"timing": {"fmax_mhz": 400.0}})
    text = rsa_synth.render(results, FIGURES, [1024])
    ms = lazy.cycles / 400.0 / 1e3
    assert f"The fastest routed whole: mont_qp (Mult=5, V=16, W=16, P=16, Lazy=1), {ms:.3f} ms" \
        in text and ("**met**" in text) == (ms < rsa_synth.GOAL_MS)
    mb = next(ln for ln in text.splitlines() if "3.831 ms (section 8, Table 3" in ln)
    assert "XC2VP100 (0.13 µm)" in mb and mb.endswith(f" | {ms / 3.831:.2f} |")


def test_without_a_1024_bit_result_the_goal_says_so() -> None:
    text = rsa_synth.render(synth_results.empty(), FIGURES, [1024])
    assert "no 1024-bit core synthesised yet" in text
    assert text.startswith("# The RSA core synthesised")


def test_docs_rsa_md_is_what_the_committed_results_render() -> None:
    """docs/generated/rsa-synth.md is `montverif synth rsa` of
    regress/synth/synth-results.json (run `montverif synth rsa --write` after changing it)."""
    head, _, text = rsa_synth.DEFAULT_PAGE.read_text().partition("\n\n")
    assert head == pages.header(rsa_synth.COMMAND)
    assert text.rstrip("\n") == rsa_synth.render(synth_results.load(), papers.load()), \
        "stale: montverif synth rsa --write"


def test_measure_synthesises_what_the_file_lacks_and_records_it_at_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "results.json"
    synth_results.record(record, xc7=[_result(1024, _full(1024, 1), 5, 5, 1.0)])
    calls: list[str] = []

    def run(spec: synth.SynthSpec, out: Path, timeout_s: float = 0) -> dict[str, object]:
        calls.append(spec.key)
        assert record.read_text().count('"rsa_core"') == 1  # nothing recorded yet
        given = dict(spec.params)
        if given["Mult"] == 5 and "Units" not in given and "Lazy" not in given:
            raise synth.SynthError("yosys did not finish within 1 s")
        extra = {k: given[k] for k in ("P", "PeLatency", "Units", "Lazy") if k in given
                 and (given.get("PeLatency") == 4 or given.get("Units") == 1
                      or given.get("Lazy") == 1)}
        return _result(spec.n, _full(spec.n, given["Mult"], **extra), 9, 9, 2.0)

    monkeypatch.setattr(synth, "run", run)
    code = main(["synth", "rsa", "--measure", "--widths", "1024", "--results", str(record),
                 "--out", str(tmp_path / "synth")])
    assert code == 1
    assert calls == ["rsa_core-n1024-Mult0-xc7", "rsa_core-n1024-Mult2-xc7",
                     "rsa_core-n1024-Mult3-xc7", "rsa_core-n1024-Mult4-V17-W16-P20-xc7",
                     "rsa_core-n1024-Mult5-V16-W16-P16-xc7", "rsa_core-n1024-Mult6-xc7",
                     "rsa_core-n1024-Mult7-xc7", "rsa_core-n1024-Mult8-xc7",
                     "rsa_core-n1024-Mult4-V17-W16-P15-PeLatency4-xc7",
                     "rsa_core-n1024-Mult5-V16-W16-P16-Units1-xc7",
                     "rsa_core-n1024-Mult5-V16-W16-P16-Lazy1-xc7",
                     "rsa_core-n1024-Mult5-V16-W16-P16-Units1-Lazy1-xc7"]  # Mult=1 was there
    got = sorted(r["parameters"]["Mult"] for r in synth_results.load(record)["xc7"])  # type: ignore[index]
    assert got == [0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 7, 8]
    out = capsys.readouterr().out
    assert "FAIL rsa_core-n1024-Mult5-V16-W16-P16-xc7: yosys did not finish" in out
    assert "recorded 11 results in" in out and "**The goal**" in out


def test_a_result_taken_before_a_parameter_existed_is_of_its_default() -> None:
    """A result without PeLatency (synthesised before mwrkmm had it) is the latency-3 core
    it was; it is not taken for the subpipelined one."""
    old = _result(1024, {k: v for k, v in _full(1024, 4).items() if k != "PeLatency"},
                  1, 1, 6.0)
    results = synth_results.empty()
    results["xc7"] = [old]
    three, four = (o for o in rsa_synth.options([1024]) if o.mult == 4)
    assert synth_results.find(results["xc7"], "rsa_core", 1024, three.params) is old
    assert synth_results.find(results["xc7"], "rsa_core", 1024, four.params) is None


def test_write_makes_the_page_and_replaces_it_whole(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "rsa.md"
    page.write_text(pages.header(rsa_synth.COMMAND) + "\n\nold\n")
    assert main(["synth", "rsa", "--widths", "1024", "--results",
                 str(tmp_path / "none.json"), "--write", str(page)]) == 0
    text = page.read_text()
    assert text.startswith(pages.header(rsa_synth.COMMAND)) and "\nold\n" not in text
    assert "| 1024 | mwrkmm (Mult=4" in text
    assert capsys.readouterr().out == f"wrote {page}\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--table"], "unrecognized arguments: --table"),
    (["--pnr"], "unrecognized arguments: --pnr"),
    (["--reuse"], "--reuse is an option of rsa --measure"),
    (["--widths", "x"], "--widths 'x'"),
    (["--widths", "4"], "rsa_core"),
    (["--results", "{tmp}/bad.json"], "not JSON"),
    (["--write", "{tmp}/plain.md"], "plain.md exists and montverif did not write it"),
    (["--write", "{tmp}"], "is a folder"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "plain.md").write_text("no markers\n")
    argv = ["synth", "rsa", *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err
    assert message in captured.err and captured.out == ""
    assert (tmp_path / "plain.md").read_text() == "no markers\n"


def test_options_include_jiang_harris_s_unit_with_its_products_unreduced() -> None:
    """Lazy = 1: their unit as they use it (products unreduced, the last one reduced by the
    core), with two multipliers and with one, each a core of its own (its own key and
    row), its cycles the model's and measured (docs/rsa.md)."""
    lazy = [o for o in rsa_synth.options([1024]) if o.params["Lazy"]]
    assert [(o.mult, o.params["Units"]) for o in lazy] == [(5, 2), (5, 1)]
    assert lazy[1].cycles == 736502  # docs/rsa.md, measured
    keys = [s.key for s in rsa_synth.specs([1024])]
    assert "rsa_core-n1024-Mult5-V16-W16-P16-Lazy1-xc7" in keys
    assert "rsa_core-n1024-Mult5-V16-W16-P16-Units1-Lazy1-xc7" in keys
    results = synth_results.empty()
    results["xc7"] = [_result(1024, _full(1024, 5, Units=1), 30000, 16000, 32.0, dsp=32),
                      _result(1024, _full(1024, 5, Units=1, Lazy=1), 29000, 15000, 3.0,
                              dsp=32)]
    text = rsa_synth.render(results, FIGURES, [1024])
    row = _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16, Units=1, Lazy=1)")
    assert row[2] == "29,000" and row[9] == f"{736502:,}"
    assert _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16, Units=1)")[2] == "30,000"
    assert _row(text, 1024, "mont_qp (Mult=5, V=16, W=16, P=16, Lazy=1)")[2] == \
        "not synthesised yet"
