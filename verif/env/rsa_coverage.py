"""Functional coverage of the RSA core (cocotb-coverage, exported like verif/env/coverage.py).

Sampled once per operation from what the DUT did: the exponent's bit pattern and Hamming-
weight class, each step's multiplier activity (from the monitored products), each
multiplier's final subtraction (from its S + C against M), the message class and every error
code the DUT reported.
"""

from __future__ import annotations

from cocotb_coverage.coverage import CoverPoint

from montverif.verif.env.coverage import ERRORS, Coverage

PATTERNS = ["zero", "one", "two", "all_ones", "top_bit_only", "alternating", "other"]
WEIGHTS = ["hw0", "low", "mid", "high", "full"]
MSG = ["zero", "one", "m_minus_1", "other"]
ACT_CT = ["to:A+S", "loop:A_kept+S", "loop:A_discarded+S", "from:A"]
ACT_VT = ["to:A+S", "loop:A_kept+S", "loop:A_kept", "loop:S", "from:A"]
DOMAIN_STEPS = ("to:A+S", "from:A")  # the Montgomery domain's; none with inter_lut (Mult = 6)


def exp_pattern(e: int, n: int) -> str:
    top = (1 << n) - 1
    alt = int("10" * n, 2) & top
    if e in (0, 1, 2):
        return ("zero", "one", "two")[e]
    if e == top:
        return "all_ones"
    if e == 1 << (n - 1):
        return "top_bit_only"
    if e in (alt, alt >> 1):
        return "alternating"
    return "other"


def weight_class(e: int, n: int) -> str:
    w = bin(e).count("1")
    if w == 0:
        return "hw0"
    if w == n:
        return "full"
    if 4 * w <= n:
        return "low"
    return "high" if 4 * w >= 3 * n else "mid"


class RsaCoverage(Coverage):
    def __init__(self, design: str, const_time: bool, direct: bool = False) -> None:
        """`direct`: the core's multiplier computes X*Y mod M (inter_lut), so its steps are
        the loop's only (no TO or FROM)."""
        self.design = design
        self.illegal_bins = frozenset()
        top = design

        @CoverPoint(f"{top}.exp.pattern", bins=PATTERNS)
        def _pat(p: str) -> None: ...

        @CoverPoint(f"{top}.exp.weight", bins=WEIGHTS)
        def _hw(w: str) -> None: ...

        @CoverPoint(f"{top}.msg", bins=MSG)
        def _msg(c: str) -> None: ...

        # one cover point per build kind: the kinds have different bins, and coverage merged
        # over several (a nightly) must not mix them in one point
        kind = ("ct" if const_time else "vt") + ("_direct" if direct else "")
        steps = [a for a in (ACT_CT if const_time else ACT_VT)
                 if not (direct and a in DOMAIN_STEPS)]

        @CoverPoint(f"{top}.step.activity_{kind}", bins=steps)
        def _act(a: str) -> None: ...

        @CoverPoint(f"{top}.mult_a.final_sub", bins=[True, False],
                    bins_labels=["taken", "not_taken"])
        def _sub_a(t: bool) -> None: ...

        @CoverPoint(f"{top}.mult_s.final_sub", bins=[True, False],
                    bins_labels=["taken", "not_taken"])
        def _sub_s(t: bool) -> None: ...

        @CoverPoint(f"{top}.errors.code", bins=ERRORS)
        def _err(name: str) -> None: ...

        self._pat, self._hw, self._msg, self._act = _pat, _hw, _msg, _act
        self.errors = ERRORS  # X below M: the loader's range rule answers ERR_RANGE
        self._mult_sub = {"A": _sub_a, "S": _sub_s}
        self._err = _err

    def sample_exp(self, x: int, e: int, m: int, n: int) -> None:
        self._pat(exp_pattern(e, n))
        self._hw(weight_class(e, n))
        self._msg("zero" if x == 0 else "one" if x == 1 else
                  "m_minus_1" if x == m - 1 else "other")

    def sample_step(self, activity: str) -> None:
        self._act(activity)

    def sample_final_sub(self, mult: str, taken: bool) -> None:
        self._mult_sub[mult](taken)
