"""The mutation rotation of a regression list: a `[[<list>.mutation]]` block with `rotate = R`
runs a share of its designs' campaigns each night, every design once in any R nights in a row
(docs/mutation.md, the nightly list: R = 7, every design once a week).

The block's designs are dealt into R shares by their campaigns' estimated seconds
(campaigns.expected_s; regression.shards.deal: the split depends only on the campaigns, so it
stays the same from night to night while the list and the designs do). The night's share is
its index mod R: for a base seed that is a date (`--seed date`, YYYYMMDD) the day's ordinal,
for any other (`--seed run`: the CI run number) the seed itself, so that consecutive days, or
consecutive runs, take consecutive shares, and `--seed <value>` replays a night's share as it
replays its runs. `--every-campaign` (the weekly workflow) runs every campaign. The designs a
night rests are recorded with the night their share last came round (summary.json
`mutation_resting`, the report).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from montverif.regress.mutate.campaigns import CampaignSpec, expected_s
from montverif.regress.regression.shards import deal


def as_day(base_seed: int) -> date | None:
    """The day a base seed of the form YYYYMMDD names (`--seed date`), else None."""
    year, month, day = base_seed // 10000, base_seed // 100 % 100, base_seed % 100
    try:
        return date(year, month, day) if 1970 <= year <= 9999 else None
    except ValueError:
        return None


def night(base_seed: int) -> int:
    """The night's index: consecutive days (or CI runs) give consecutive indices."""
    day = as_day(base_seed)
    return day.toordinal() if day is not None else base_seed


def shares(specs: Sequence[CampaignSpec]) -> dict[str, int]:
    """Each rotating campaign's share (0-based) among its block's `rotate` shares."""
    out: dict[str, int] = {}
    for rotate in sorted({s.rotate for s in specs if s.rotate > 1}):
        block = [s for s in specs if s.rotate == rotate]
        out |= deal({s.dut: expected_s(s) for s in block}, rotate)
    return out


def label(base_seed: int, back: int) -> str:
    """The night `back` nights before the one of `base_seed`: a date, or a seed."""
    day = as_day(base_seed)
    if day is not None:
        return date.fromordinal(day.toordinal() - back).isoformat()
    return f"seed {base_seed - back}"


def tonight(specs: Sequence[CampaignSpec], base_seed: int, every: bool = False,
            whole: Sequence[CampaignSpec] = ()) -> tuple[list[CampaignSpec], dict[str, str]]:
    """Of `specs` (the campaigns a regression plans), those this night runs (every one with
    `every`) and those it rests, each with the night its share last came round (the most
    recent before this one). The shares are dealt over `whole` (default `specs`): the list's
    every campaign, so that a run limited to some designs or a simulator keeps them."""
    if every:
        return list(specs), {}
    owner, index = shares(whole or specs), night(base_seed)
    runs = [s for s in specs if s.dut not in owner or owner[s.dut] == index % s.rotate]
    resting = {s.dut: label(base_seed, (index - owner[s.dut]) % s.rotate)
               for s in specs if s.dut in owner and owner[s.dut] != index % s.rotate}
    return runs, resting
