"""Unfolded-by-two Montgomery models (Gajbhiye 2018) vs. gmpy2 and the non-unfolded models."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from montverif.models import ref
from montverif.models.mont import (
    U2_STAGE_BINS_CSA,
    U2_STAGE_BINS_LUT,
    _bits_lsb_first,
    csa,
    final_sub,
    lut_address,
    mont_csa,
    mont_csa_u2,
    mont_lut,
    mont_lut_table,
    mont_lut_u2,
    sel_address,
    validate,
)
from montverif.models.registry import ModelFunc, get_algo
from montverif.models.result import ModelInputError, Result
from montverif.models.tests.test_mont import BASE, agree, big_operands, operands

# unfolded model -> (non-unfolded model, selection addresses per stage, extra cycles beyond
# the ceil(n/2) loop cycles, S/C register width beyond n)
PAIRS: dict[str, tuple[ModelFunc, int, int, int]] = {
    "mont_csa_u2": (mont_csa, 4, 1, 0),  # FIN
    "mont_lut_u2": (mont_lut, 16, 2, 1),  # PRE + FIN
}
MODELS: list[ModelFunc] = [mont_csa_u2, mont_lut_u2]


def stage_of_iteration(i: int) -> int:
    """Iterations 2k and 2k+1 run in stages 0 and 1 of loop cycle k."""
    return i % 2


def check(model: ModelFunc, x: int, y: int, m: int, n: int) -> Result:
    """One unfolded run against gmpy2 and the non-unfolded model, field by field."""
    r = model(x, y, m, n)
    base, per_stage, extra, red_extra = PAIRS[r.algo]
    info = get_algo(r.algo)
    assert info.func is model and info.has_sc and info.has_lut
    assert r.n == n
    assert r.p == ref.mont_product(x, y, m, n), (r.algo, x, y, m, n)
    assert r.cycles == math.ceil(n / 2) + extra
    b = base(x, y, m, n)
    # unfolding changes the schedule, not the arithmetic: same P, S, C
    assert (r.p, r.s, r.c) == (b.p, b.s, b.c)
    assert r.s is not None and r.c is not None
    assert r.s < 2 ** (n + red_extra) and r.c < 2 ** (n + red_extra)
    # stage 0 runs ceil(n/2) iterations, stage 1 floor(n/2) (no stage 1 in an odd n's half step)
    stage_hits = [0, 0]
    for addr, hits in r.lut.items():
        assert 0 <= addr < 2 * per_stage and hits > 0
        stage_hits[addr // per_stage] += hits
    assert stage_hits == [sum(stage_of_iteration(i) == s for i in range(n)) for s in (0, 1)]
    # folding the two stages gives the non-unfolded histogram, when that model has one
    if b.lut:
        folded: dict[int, int] = {}
        for addr, hits in r.lut.items():
            folded[addr % per_stage] = folded.get(addr % per_stage, 0) + hits
        assert folded == b.lut
    return r


def expected_lut_u2_hits(x: int, y: int, m: int, n: int) -> dict[int, int]:
    """Replay of Algorithm 3 one iteration at a time (the table address needs s_0 and c_0
    separately, so S and C are kept bit-wise), with the stage of each iteration."""
    table = mont_lut_table(y, m)
    s = c = 0
    hits: dict[int, int] = {}
    for i in range(n):
        addr = lut_address((x >> i) & 1, y & 1, s & 1, c & 1)
        key = 16 * stage_of_iteration(i) + addr
        hits[key] = hits.get(key, 0) + 1
        v = table[addr]
        s, c = (s ^ c ^ v) >> 1, (s & c) | (s & v) | (c & v)
    return hits


def expected_csa_u2_hits(x: int, y: int, m: int, n: int) -> dict[int, int]:
    """Independent replay of Algorithm 1a (carry-propagate): q_i is the parity of
    P + x_i*Y, which equals the s_0 of Algorithm 1b's first CSA."""
    p = 0
    hits: dict[int, int] = {}
    for i in range(n):
        x_i = (x >> i) & 1
        p += x_i * y
        q = p & 1
        key = 4 * stage_of_iteration(i) + sel_address(x_i, q)
        hits[key] = hits.get(key, 0) + 1
        p = (p + q * m) >> 1
    return hits


EXPECTED_HITS = {"mont_csa_u2": expected_csa_u2_hits, "mont_lut_u2": expected_lut_u2_hits}


@settings(BASE, max_examples=200)
@given(operands(2, 64))
def test_u2_random_small(args: tuple[int, int, int, int]) -> None:
    for model in MODELS:
        r = check(model, *args)
        assert r.lut == EXPECTED_HITS[r.algo](*args)


@settings(BASE, max_examples=25)
@given(operands(65, 2048))
def test_u2_random_large(args: tuple[int, int, int, int]) -> None:
    for model in MODELS:
        r = check(model, *args)
        assert r.lut == EXPECTED_HITS[r.algo](*args)


@pytest.mark.parametrize("n", [2, 3, 8, 9, 32, 97, 1024, 1025, 2048])
@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_u2_corner_cases(model: ModelFunc, n: int) -> None:
    check(model, 0, 0, 1, n)
    for m in sorted({2 ** (n - 1) + 1, 2**n - 1}):
        vals = sorted({0, 1, m // 3, m - 2, m - 1})
        for x in vals:
            for y in vals:
                check(model, x, y, m, n)


# Table/selection addresses never reached, derived by exhaustive enumeration over every
# odd M < 2^n and every X, Y < M (stage 1 addresses are offset by 4 resp. 16). From n = 4 on
# every address of both stages is reached; a larger n reaches a superset (an operation at n
# is one at n + 1 with the same M, X, Y whose first n iterations, and their stages, are the
# same), so none is unreachable for the designs' min_n = 8.
UNREACHED = {
    "mont_csa_u2": {2: {1}, 3: set(), 4: set(), 5: set(), 6: set()},
    "mont_lut_u2": {
        2: set(range(32)) - {0, 4, 8, 12, 16, 18, 20, 24, 28},
        3: {5, 13, 17, 19, 21, 23, 25, 27, 29, 31},
        4: set(),
        5: set(),
        6: set(),
    },
}


@pytest.mark.parametrize("n", range(2, 7))
@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_u2_exhaustive_small(model: ModelFunc, n: int) -> None:
    """Every operand triple at n = 2..6 (odd n included) against gmpy2, and reachability."""
    per_stage = PAIRS[model.__name__][1]
    reached: set[int] = set()
    for m in range(1, 2**n, 2):
        for x in range(m):
            for y in range(m):
                r = model(x, y, m, n)
                assert r.p == ref.mont_product(x, y, m, n), (x, y, m, n)
                assert r.s is not None and r.c is not None
                assert (r.s + r.c) % m == r.p and r.s + r.c < 2 * m
                reached.update(r.lut)
    assert set(range(2 * per_stage)) - reached == UNREACHED[model.__name__][n]


@settings(BASE, max_examples=50)
@given(operands(2, 40))
def test_u2_reachability_grows_with_n(args: tuple[int, int, int, int]) -> None:
    x, y, m, n = args
    for model in MODELS:
        assert set(model(x, y, m, n).lut) <= set(model(x, y, m, n + 1).lut)


def test_u2_odd_n_is_not_zero_padding() -> None:
    """The half step keeps R = 2^n: padding X to n + 1 bits would give X*Y*2^-(n+1)."""
    x, y, m, n = 5, 6, 7, 3
    for model in MODELS:
        assert model(x, y, m, n).p == ref.mont_product(x, y, m, n)
        assert model(x, y, m, n).p != ref.mont_product(x, y, m, n + 1)


@pytest.mark.parametrize("model", MODELS, ids=lambda f: f.__name__)
def test_u2_bad_input(model: ModelFunc) -> None:
    with pytest.raises(ModelInputError, match="must be odd"):
        model(1, 1, 0x10, 8)
    with pytest.raises(ModelInputError, match="^X must be < 2\\^n"):
        model(0x200, 1, 0x101, 9)
    with pytest.raises(ModelInputError, match="^Y must be < M"):
        model(1, 0x101, 0x101, 9)


# --- The models' shared hot loops against step-by-step references ------------------------


def _u2_pairs(x: int, n: int) -> list[str]:
    """The bits of X, LSB first, two per loop cycle (the last one alone for odd n)."""
    bits = _bits_lsb_first(x, n)
    return [bits[k : k + 2] for k in range(0, n, 2)]


def _check_red(name: str, s: int, c: int, width: int) -> None:
    """The redundant pair fits the RTL's `width`-bit S and C registers."""
    assert 0 <= s < 2**width and 0 <= c < 2**width, f"{name}: S/C outgrew {width} bits"


def _mont_csa_u2_steps(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 1b unfolded by 2, one csa / sel_address call per step, per loop cycle."""
    validate(x, y, m, n)
    s = c = 0
    hits: dict[int, int] = {}
    for pair in _u2_pairs(x, n):
        for stage, xb in enumerate(pair):
            xi = 1 if xb == "1" else 0
            s, c = csa(s, c, y if xi else 0)
            q = s & 1
            addr = U2_STAGE_BINS_CSA * stage + sel_address(xi, q)
            hits[addr] = hits.get(addr, 0) + 1
            s, c = csa(s, c, m if q else 0)
            assert (s | c) & 1 == 0, "mont_csa_u2: shift would drop a one bit"
            s >>= 1
            c >>= 1
            _check_red("mont_csa_u2", s, c, n)  # N-bit registers
    p = final_sub(s + c, m)
    return Result("mont_csa_u2", n, p, s, c, (n + 1) // 2 + 1, hits)


def _mont_lut_u2_steps(x: int, y: int, m: int, n: int) -> Result:
    """Algorithm 3 unfolded by 2, one lut_address / csa call per step, per loop cycle."""
    validate(x, y, m, n)
    table = mont_lut_table(y, m)
    y_0 = y & 1
    s = c = 0
    hits: dict[int, int] = {}
    for pair in _u2_pairs(x, n):
        for stage, xb in enumerate(pair):
            addr = lut_address(1 if xb == "1" else 0, y_0, s & 1, c & 1)
            key = U2_STAGE_BINS_LUT * stage + addr
            hits[key] = hits.get(key, 0) + 1
            s, c = csa(s, c, table[addr])
            assert (s | c) & 1 == 0, "mont_lut_u2: shift would drop a one bit"
            s >>= 1
            c >>= 1
            _check_red("mont_lut_u2", s, c, n + 1)  # N+1 bits
    p = final_sub(s + c, m)
    return Result("mont_lut_u2", n, p, s, c, (n + 1) // 2 + 2, hits)


STEPS: dict[str, tuple[ModelFunc, ModelFunc]] = {
    "mont_csa_u2": (mont_csa_u2, _mont_csa_u2_steps),
    "mont_lut_u2": (mont_lut_u2, _mont_lut_u2_steps),
}


@BASE
@given(operands(2, 300))
def test_u2_inlined_loops(args: tuple[int, int, int, int]) -> None:
    for pair in STEPS.values():
        agree(pair, args)


@pytest.mark.parametrize("args", big_operands(), ids=lambda a: f"n{a[3]}")
@pytest.mark.parametrize("name", sorted(STEPS))
def test_u2_inlined_loops_wide(name: str, args: tuple[int, int, int, int]) -> None:
    agree(STEPS[name], args)
