"""The nightly's mutation rotation (issue 64, regress/mutate/rotation.py): each night runs one
share of the designs' campaigns, every design once in any `rotate` nights in a row, whether
the nights are dates or CI run numbers; the shares come from the whole list; the designs a
night rests are recorded, with the night their share last came round, in summary.json and
both reports; `--every-campaign` (the weekly workflow) runs them all."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from montverif.regress.cli import regress as regress_cli
from montverif.regress.mutate import campaigns, rotation
from montverif.regress.regression.lists import LISTS_FILE, ListError, get_list
from montverif.regress.regression.results import Regression
from montverif.regress.regression.summary import load_summary, summary_dict, write_summary
from montverif.regress.report import html
from montverif.regress.report.text import format_mutation
from montverif.regress.tests.test_run import FakeLauncher


def nightly() -> tuple[campaigns.CampaignSpec, ...]:
    return campaigns.of_list(get_list("nightly", LISTS_FILE))


def seed_of(day: date) -> int:
    return int(day.strftime("%Y%m%d"))  # what `--seed date` gives (seeds.resolve_base_seed)


def test_the_nightly_list_rotates_over_a_week() -> None:
    specs = nightly()
    assert {s.rotate for s in specs} == {7} and len(specs) >= 7
    owner = rotation.shares(specs)
    assert sorted(set(owner.values())) == list(range(7))  # no night without a campaign


@pytest.mark.parametrize("first", [date(2026, 11, 27), date(2026, 12, 29), date(2028, 2, 25)],
                         ids=["month-end", "year-end", "leap-day"])
def test_every_design_runs_once_in_any_seven_days_in_a_row(first: date) -> None:
    specs = nightly()
    ran: list[str] = []
    for k in range(7):
        day = first + timedelta(days=k)
        runs, resting = rotation.tonight(specs, seed_of(day))
        ran += [s.dut for s in runs]
        assert sorted([s.dut for s in runs] + list(resting)) == sorted(s.dut for s in specs)
        for dut, when in resting.items():  # the most recent earlier day that ran it
            back = (day - date.fromisoformat(when)).days
            assert 1 <= back <= 6
            earlier = rotation.tonight(specs, seed_of(date.fromisoformat(when)))[0]
            assert dut in {s.dut for s in earlier}
            between = [rotation.tonight(specs, seed_of(day - timedelta(days=b)))[0]
                       for b in range(1, back)]
            assert all(dut not in {s.dut for s in n} for n in between)
    assert sorted(ran) == sorted(s.dut for s in specs)  # each exactly once


def test_consecutive_run_numbers_take_consecutive_shares() -> None:
    specs = nightly()
    ran = [s.dut for run in range(118, 125) for s in rotation.tonight(specs, run)[0]]
    assert sorted(ran) == sorted(s.dut for s in specs)
    runs, resting = rotation.tonight(specs, 130)
    assert set(resting.values()) <= {f"seed {130 - b}" for b in range(1, 7)} and runs
    # the same value, the same share: a night replays anywhere with --seed <value>
    assert rotation.tonight(specs, 130) == (runs, resting)


def test_every_campaign_and_a_block_without_rotate() -> None:
    specs = nightly()
    assert rotation.tonight(specs, 20261127, every=True) == (list(specs), {})
    flat = tuple(replace(s, rotate=1) for s in specs)
    assert rotation.tonight(flat, 20261127) == (list(flat), {})


def test_the_shares_come_from_the_whole_list() -> None:
    """A run limited to some designs (--sim, a shard) keeps each design's night."""
    specs = nightly()
    some = [s for s in specs if s.dut.startswith("mont_")]
    for seed in (20261127, 20261128):
        whole = {s.dut for s in rotation.tonight(specs, seed)[0]}
        part = {s.dut for s in rotation.tonight(some, seed, whole=specs)[0]}
        assert part == whole & {s.dut for s in some}


@pytest.mark.parametrize("value", ["0", "32", "true", '"7"', "2.5"])
def test_a_bad_rotate_is_one_line(value: str) -> None:
    with pytest.raises(ListError, match=r"^x\[0\]\.rotate: "):
        campaigns.parse_all([{"dut": "mont_r2", "mutants": 2,
                              "rotate": tomllib.loads(f"v = {value}")["v"]}], "x")


def _regression(tmp_path: Path) -> Regression:
    specs = nightly()
    runs, resting = rotation.tonight(specs, 20261127)
    reg = Regression("nightly", 20261127, 2, tmp_path, datetime(2026, 11, 27, 2, 0))
    reg.mutation = {s.dut: campaigns._base(s, campaigns.PASSED, "", 1.0) for s in runs}
    reg.mutation_planned = len(runs)
    reg.mutation_resting = resting
    return reg


def test_the_resting_designs_are_recorded_and_reported(tmp_path: Path) -> None:
    reg = _regression(tmp_path)
    assert reg.mutation_resting
    write_summary(reg, tmp_path / "summary.json")
    back = load_summary(tmp_path / "summary.json")
    assert back.mutation_resting == reg.mutation_resting
    text = format_mutation(reg)
    line = next(ln for ln in text.splitlines() if ln.startswith("rotation: "))
    assert all(f"{d} {when}" in line for d, when in reg.mutation_resting.items())
    assert all(d in line.split(";")[0] for d in reg.mutation)
    page = html.render(summary_dict(reg), tmp_path)
    assert "Resting this night" in page
    assert all(f"<td>{d}</td><td>{w}</td>" in page for d, w in reg.mutation_resting.items())
    reg.mutation_resting = {}
    assert "Resting" not in html.render(summary_dict(reg), tmp_path)


def _planned(*extra: str) -> regress_cli.Job:
    args = regress_cli.parser().parse_args(
        ["regress", "--list", "nightly", "--parts", "mutation", "--seed", "date:2026-11-27",
         *extra])
    regress_cli.check_args(args)
    return regress_cli.plan_job(args, FakeLauncher())


def test_the_command_runs_the_nights_share_every_campaign_or_a_named_design() -> None:
    runs, resting = rotation.tonight(nightly(), 20261127)
    job = _planned()
    assert [c.dut for c in job.all_campaigns] == [s.dut for s in runs]
    assert job.resting == resting
    every = _planned("--every-campaign")
    assert len(every.all_campaigns) == len(nightly()) and every.resting == {}
    # a design named with --dut runs whatever its share
    named = sorted(resting)[0]
    assert [c.dut for c in _planned("--dut", named).all_campaigns] == [named]
