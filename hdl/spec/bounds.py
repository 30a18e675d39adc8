"""The documented bounds of the numbers a user gives: every numeric command-line option, the
numbers of a regression list (regress/lists.toml, a descriptor's `[[lists.<list>]]`) and
of a run (montverif.regress.flow.check).

Each number is finite and within its bound, checked where it enters (the command's parser,
the list's loader), before anything is built: `nan`, `inf`, a negative count or a count
that would run without end (`seeds = 1000000000`) is one `error:` line. The command-line
options show their bound in their help (montverif.regress.cli.args); docs/running.md
lists them. The bounds are generous: each is far above any use the project has, and below
what would exhaust the machine or overflow a tool's integer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WEEK_S = 7 * 24 * 3600


@dataclass(frozen=True)
class Bound:
    """A documented range of a number: `lo..hi` (integers), or a finite number in it (not
    `integer`); `above`: lo itself is excluded (a positive duration). `lo_text` and
    `hi_text` write lo and hi as the docs do (2^32-1)."""

    lo: float
    hi: float
    integer: bool = True
    above: bool = False
    hi_text: str = ""
    lo_text: str = ""
    unit: str = ""  # after the bound in help and errors: `1..604800 s`

    @property
    def text(self) -> str:
        """The bound as the help and the errors say it: `1..604800 s`, `above 0, at most
        1000 MHz`."""
        lo, hi = self.lo_text or _number(self.lo), self.hi_text or _number(self.hi)
        text = f"above {lo}, at most {hi}" if self.above else f"{lo}..{hi}"
        return f"{text} {self.unit}" if self.unit else text

    def holds(self, value: object) -> bool:
        """Whether value is a number of the bound (an integer where it must be; never a
        bool, nan or infinity)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.integer and not isinstance(value, int):
            return False
        if not math.isfinite(value):
            return False
        return (self.lo < value if self.above else self.lo <= value) and value <= self.hi

    def message(self, value: object) -> str:
        """`must be 1..10000 (got 0)`: what a refusal says after the number's name."""
        shown = value if isinstance(value, int | float) else repr(value)
        kind = "an integer " if self.integer else "a number "
        return f"must be {kind}{self.text} (got {shown})"

    def check(self, value: object, what: str) -> int | float:
        """The value, or ValueError `<what> must be ... (got ...)`."""
        if not self.holds(value):
            raise ValueError(f"{what} {self.message(value)}")
        assert isinstance(value, int | float)
        return value


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


# --- the bounds -----------------------------------------------------------------------------
# wall-clock seconds of a run, a tool, an SBY task: at least a second, at most a week
TIMEOUT_S = Bound(1, WEEK_S, unit="s")
# the same as a number (synthesis, budgets in seconds): above 0, at most a week
SECONDS = Bound(0, WEEK_S, integer=False, above=True, unit="s")
# minutes (closure's --budget-min): above 0, at most a week
MINUTES = Bound(0, WEEK_S // 60, integer=False, above=True, unit="min")
# a seed: the base seed of a regression, a run's seed, a tool's seed (32 bits)
SEED = Bound(0, 2**32 - 1, hi_text="2^32-1")
# nextpnr's --seed (a C int)
TOOL_SEED = Bound(0, 2**31 - 1, hi_text="2^31-1")
# seeds per configuration (a list entry's `seeds`, --seeds, closure's --budget-seeds):
# a model's seeds are drawn from 999999 values, each distinct
SEEDS = Bound(1, 10_000)
# the runs a list expands to, all entries together (each is a run folder)
MAX_RUNS = 100_000
# parallel jobs (threads, processes)
JOBS = Bound(1, 1024)
# mutants of a campaign (a sample of a design's sites: a few hundred at most)
MUTANTS = Bound(1, 10_000)
# random operations of a run
TXNS = Bound(1, 10_000_000)
# random idle cycles before a bus transfer
IDLE_MAX = Bound(0, 1000)
# bus acknowledge wait states (the loader's AckWait)
ACK_WAIT = Bound(0, 15)
# an operand width N: the register map's limit (1024 bus words of 64 bits); each design's
# own widths (its descriptor's `widths`) are checked after
WIDTH = Bound(1, 65536)
# a bus width BusW (8, 16, 32 or 64, checked after)
BUS_WIDTH = Bound(8, 64)
# a percentage (a mutation score goal)
PERCENT = Bound(0, 100, integer=False, unit="%")
# a clock constraint (synth --pnr --freq): the ECP5's fastest clocks are some 400 MHz
FREQ_MHZ = Bound(0, 1000, integer=False, above=True, unit="MHz")
# a build parameter's value: a SystemVerilog int parameter (32 bits, signed)
PARAM_VALUE = Bound(-(2**31), 2**31 - 1, lo_text="-2^31", hi_text="2^31-1")
