"""A list expanded into runs: every build of its entries, each with its seeds, derived from a
base seed and the build key only, so a list always expands to the same runs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from montverif.host import tools
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.regress.regression.lists import ListError, TestList
from montverif.spec.bounds import MAX_RUNS

DEFAULT_BASE_SEED = 1
MAX_BASE_SEED = 2**32 - 1


@dataclass(frozen=True)
class BaseSeed:
    """A regression's base seed and where it came from: `given` (an integer on the command
    line), `date YYYY-MM-DD` or `run number K` (CI). Every run seed and every mutant of the
    regression is derived from `value`, so `--seed <value>` replays it anywhere."""

    value: int
    source: str = "given"

    def describe(self) -> str:
        return f"base seed {self.value}" + ("" if self.source == "given" else
                                            f" (from the {self.source})")


def resolve_base_seed(text: str, today: date, run_number: str | None) -> BaseSeed:
    """`--seed`: an integer 0..2^32-1; `date` (today, UTC, as YYYYMMDD: one seed a day, the
    same in every shard started that day); `date:YYYY-MM-DD` (that day's, to replay a
    nightly by its date); `run` (the CI run number, the same in every job of one workflow run
    and new in each run). Raises ValueError with one line on anything else."""
    word = text.strip()
    if re.fullmatch(r"\d+", word):
        value = int(word)
        if value > MAX_BASE_SEED:
            raise ValueError(f"--seed must be 0..2^32-1 (got {word})")
        return BaseSeed(value)
    if word == "date" or word.startswith("date:"):
        try:
            day = date.fromisoformat(word[5:]) if word != "date" else today
        except ValueError:
            raise ValueError(f"--seed {word}: not a date (date:YYYY-MM-DD)") from None
        return BaseSeed(int(day.strftime("%Y%m%d")), f"date {day.isoformat()}")
    if word == "run":
        if not run_number or not re.fullmatch(r"\d+", run_number.strip()):
            raise ValueError("--seed run: no CI run number (GITHUB_RUN_NUMBER is "
                             f"{'unset' if run_number is None else repr(run_number)})")
        value = int(run_number.strip())
        if value > MAX_BASE_SEED:
            raise ValueError(f"--seed run: run number {value} is above 2^32-1")
        return BaseSeed(value, f"run number {value}")
    raise ValueError(f"--seed must be an integer, date, date:YYYY-MM-DD or run (got {text!r})")


SEED_RANGE = 1_000_000  # derived seeds are 1..999999: short run keys, valid cocotb seeds


def derive_seed(base: int, build_key: str, index: int) -> int:
    """The index-th seed of one build: depends only on the base seed, the build and index."""
    digest = hashlib.sha256(f"{base}:{build_key}:{index}".encode()).digest()
    return 1 + int.from_bytes(digest[:8], "big") % (SEED_RANGE - 1)


def sim_free_key(spec: BuildSpec) -> str:
    """The build key without the simulator and without code coverage (`--code-coverage`
    instruments only the Verilator builds): the same stimulus on every simulator."""
    return replace(spec, coverage=False).key.rsplit("-", 1)[0]


def expand(tlist: TestList, base_seed: int = DEFAULT_BASE_SEED, seeds: int | None = None,
           sims: Sequence[str] | None = None, timeout_s: int | None = None,
           duts: Sequence[str] | None = None, fixed_seed: int | None = None,
           diff_sims: bool = False) -> list[RunSpec]:
    """The runs of a list, in list order; `seeds` overrides every entry's seed count, `sims`
    and `duts` keep only those simulators/designs, `fixed_seed` gives every build exactly one
    run with that seed. With `diff_sims` (or an entry's `diff_sims = true`) every build runs on
    both simulators with the same seeds. Run keys (build + seed) are unique. A list that
    expands to more than MAX_RUNS runs is refused (ListError) as it reaches them."""
    runs: list[RunSpec] = []
    next_index: dict[str, int] = {}
    used: dict[str, set[int]] = {}
    for entry in tlist.entries:
        if duts and entry.dut not in duts:
            continue
        both = diff_sims or entry.diff_sims
        specs = entry.builds() if not both else list(dict.fromkeys(
            replace(b, sim=s_) for b in entry.builds() for s_ in tools.SIMULATORS))
        for spec in specs:
            if sims and spec.sim not in sims:
                continue
            seed_key = sim_free_key(spec) if both else spec.key
            for _ in range(1 if fixed_seed is not None else seeds or entry.seeds):
                index, taken = next_index.get(spec.key, 0), used.setdefault(spec.key, set())
                while (seed := fixed_seed if fixed_seed is not None else
                       derive_seed(base_seed, seed_key, index)) in taken:
                    if fixed_seed is not None:
                        break
                    index += 1
                if seed in taken:  # a fixed seed already run on this build
                    continue
                next_index[spec.key] = index + 1
                taken.add(seed)
                if len(runs) == MAX_RUNS:
                    raise ListError(f"list '{tlist.name}' expands to more than {MAX_RUNS} runs "
                                    "(seeds x widths x bus widths x simulators x ...): split "
                                    "it, or give fewer seeds")
                runs.append(RunSpec(spec, seed=seed, txns=entry.txns_for(spec.n),
                                    tests=entry.tests, idle_max=entry.idle_max,
                                    timeout_s=timeout_s or tlist.timeout_s, bias=entry.bias))
    return runs


def unique_builds(runs: Iterable[RunSpec]) -> list[BuildSpec]:
    """Each build the runs need, once, in first-use order."""
    return list(dict.fromkeys(r.build for r in runs))
