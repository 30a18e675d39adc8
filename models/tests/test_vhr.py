"""mont_qp (Jiang-Harris quotient-pipelined very-high-radix scalable) vs. gmpy2."""

from __future__ import annotations

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models import ref
from montverif.models.cli import main
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError
from montverif.models.vhr import (
    BIN_CARRY,
    BIN_NO_CARRY,
    BIN_NO_STALL,
    BIN_NO_SUB,
    BIN_STALL,
    BIN_SUB,
    MAX_PES,
    OBS_BINS,
    Geometry,
    check,
    fig2_raw,
    mhat,
    mont_qp,
)
from montverif.spec.designs import load_design

BASE = settings(database=None, deadline=None)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def verify(x: int, y: int, m: int, n: int, v: int, w: int, p: int) -> None:
    """One multiplication: P vs gmpy2, cycles vs eq. (2)/(3) + 2 + 2V, every hit bin."""
    r = mont_qp(x, y, m, n, V=v, W=w, P=p)
    g = Geometry(n, v, w, p)
    rb = v * (ceil_div(n, v) + 1)  # independent of Geometry: f - 1 digits
    assert g.r_bits == rb
    assert r.p == ref.mont_product(x, y, m, rb), (x, y, m, n, v, w, p)
    assert r.p == reference(get_algo("mont_qp"), x, y, m, n, V=v, W=w, P=p)
    # cycles: the paper's eq. (2) / (3) written out here, plus 2 register stages + 2V
    f = ceil_div(n + 2 * v, v)
    e = ceil_div(n, w) + 1 + (w == v)
    kern = max(e, 2 * p + 1)
    assert r.cycles == (f // p) * kern + e + 2 * (f % p) + 2 + 2 * v
    # Fig. 2 (no words) gives the same residue, inside Orup's range [0, 2^2v M)
    raw = fig2_raw(x, y, m, n, v)
    assert raw % m == r.p and raw < m << (2 * v)
    # observation bins
    iters = f + 1
    pe_hits = [sum(1 for i in range(iters) if i % p == k) for k in range(p)]
    kernel_starts = pe_hits[0] - 1
    assert r.lut.get(0) == 1
    bins = [0] * MAX_PES  # PE k >= 1 in bin 1 + (k - 1) mod 15
    for k in range(1, p):
        bins[1 + (k - 1) % (MAX_PES - 1)] += pe_hits[k]
    assert [r.lut.get(b, 0) for b in range(1, MAX_PES)] == bins[1:]
    stall_bin, other = (BIN_STALL, BIN_NO_STALL) if kern > e else (BIN_NO_STALL, BIN_STALL)
    assert r.lut.get(stall_bin, 0) == kernel_starts and r.lut.get(other, 0) == 0
    assert r.lut.get(BIN_CARRY, 0) + r.lut.get(BIN_NO_CARRY, 0) == e * pe_hits[0]
    assert r.lut.get(BIN_SUB, 0) + r.lut.get(BIN_NO_SUB, 0) == 2 * v
    assert max(r.lut) < OBS_BINS - 2


POINTS_SMALL = [(1, 1, 1), (1, 2, 3), (2, 2, 2), (2, 3, 5), (3, 4, 1), (4, 4, 4)]


@pytest.mark.parametrize("v,w,p", POINTS_SMALL)
def test_exhaustive_n5(v, w, p):
    n = 5
    for m in range(1, 1 << n, 2):
        for x in range(m):
            for y in range(m):
                verify(x, y, m, n, v, w, p)


@pytest.mark.nightly(seconds=10)
def test_exhaustive_n7_radix16():
    n = 7
    for m in range(1, 1 << n, 2):
        for x in range(0, m, 3):
            for y in range(m):
                verify(x, y, m, n, 4, 8, 2)


@st.composite
def cases(draw):
    n = draw(st.integers(8, 300))
    v = draw(st.integers(1, 17))
    w = draw(st.integers(v, 40))
    f = ceil_div(n + 2 * v, v)
    p = draw(st.integers(1, min(3 * MAX_PES, f + 1)))
    m = draw(st.integers(1, (1 << n) - 1)) | 1
    x = draw(st.integers(0, m - 1))
    y = draw(st.integers(0, m - 1))
    return x, y, m, n, v, w, p


@BASE
@given(cases())
def test_property_random(case):
    verify(*case)


@BASE
@given(st.integers(8, 256), st.integers(1, 16))
def test_extremes(n, v):
    m = (1 << n) - 1
    for w in (v, v + 3):
        for x, y in ((m - 1, m - 1), (0, m - 1), (1, 1)):
            verify(x, y, m, n, v, w, 1)


@BASE
@given(st.integers(2, 2048).map(lambda k: 2 * k + 1), st.integers(1, 16))
def test_mhat_against_gmpy2(m, v):
    mod = 1 << (2 * v)
    mp = int(gmpy2.f_mod(-gmpy2.invert(m, mod), mod))  # M' = -M^-1 mod 2^2v
    mh = mhat(m, m.bit_length(), V=v)
    assert mh * mod == mp * m + 1
    assert 0 < mh <= m and (mh * mod - 1) % m == 0


def test_both_cases_and_carries_occur():
    # Case I (e >= 2p + 1): no stall; Case II: PE 0 waits for the last PE
    assert not Geometry(256, 8, 16, 2).stall and Geometry(64, 16, 16, 4).stall
    hits = mont_qp((1 << 63) + 5, (1 << 63) + 11, (1 << 64) - 59, 64, V=8, W=16, P=2).lut
    assert hits.get(BIN_CARRY, 0) > 0 and hits.get(BIN_NO_STALL, 0) > 0


def test_illegal_parameters_one_line():
    for kw, msg in (({"V": 0}, "V must be >= 1"), ({"V": 9, "W": 8}, "V must not exceed W"),
                    ({"P": 0}, "P must be 1.."), ({"P": 17}, "P must be 1..11"),
                    ({"V": 32, "W": 32, "P": 6}, "P must be 1..5")):
        with pytest.raises(ModelInputError, match=msg) as err:
            check(64, **{"V": 8, "W": 16, "P": 2} | kw)
        assert "\n" not in str(err.value)
    with pytest.raises(ModelInputError, match="V must not exceed W"):
        get_algo("mont_qp").resolve(64, {"V": 9, "W": 8})
    with pytest.raises(ModelInputError):
        mhat(10, 8)


def test_registry_and_cli(capsys):
    info = get_algo("mont_qp")
    params = info.resolve(64, {"V": 8, "W": 16, "P": 2})
    assert info.precomputed(0xFB, 64, params) == {"MHAT": mhat(0xFB, 64, 8)}
    assert info.r_bits(64, **params) == 72
    assert main(["run", "mont_qp", "--n", "64", "--x", "12345", "--y", "999", "--m",
                 "0xfffffffffffffffb", "--param", "V=8", "--param", "W=16",
                 "--param", "P=2"]) == 0
    out = capsys.readouterr().out
    assert str(ref.mont_product(12345, 999, 0xFFFFFFFFFFFFFFFB, 72)) in out
    assert main(["run", "mont_qp", "--n", "64", "--x", "1", "--y", "1", "--m", "3",
                 "--param", "V=9", "--param", "W=8"]) == 2
    err = capsys.readouterr().err.strip()
    assert "V must not exceed W" in err and "\n" not in err


@pytest.mark.parametrize("n", [8, 31, 97, 256, 1024, 2048])
@pytest.mark.parametrize(("v", "w", "p"), [(8, 16, 2), (16, 16, 16), (16, 16, 4), (5, 7, 3)])
def test_the_descriptor_counts_the_core_with_and_without_its_reducer(
        n: int, v: int, w: int, p: int) -> None:
    """mont_qp.toml's cycles (and its [synthesis] cycles with Reduce, a synthesis parameter
    only) are the model's: with the reducer Geometry.cycles, without it raw_cycles, 2V
    fewer; the register stages and the PE loop written out here as in verify."""
    d = load_design("mont_qp")
    g = Geometry(n, v, w, p)
    f, e = ceil_div(n + 2 * v, v), ceil_div(n, w) + 1 + (w == v)
    assert g.raw_cycles == (f // p) * max(e, 2 * p + 1) + e + 2 * (f % p) + 2
    params = {"V": v, "W": w, "P": p}
    assert d.cycles_at(n, params) == d.cycles_at(n, params | {"Reduce": 1}) == g.cycles
    assert d.cycles_at(n, params | {"Reduce": 0}) == g.raw_cycles == g.cycles - 2 * v
