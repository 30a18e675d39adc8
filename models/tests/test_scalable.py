"""Scalable word-based models (Michalski-Buell MWR2MM / MWRkMM) vs. gmpy2 and independent
schedules; parameter checks (the RTL's own: verif/tests/test_scalable_params.py)."""

from __future__ import annotations

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montverif.models.cli import main
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError
from montverif.models.scalable import (
    OBS_PE_SLOTS,
    mwr2mm,
    mwr2mm_pmax,
    mwr2mm_words,
    mwrkmm,
    mwrkmm_jobs,
    mwrkmm_mprime,
    mwrkmm_pmax,
    mwrkmm_words,
)

BASE = settings(database=None, deadline=None)


def expected_p(x: int, y: int, m: int, n: int) -> int:
    """x*y*2^-n mod m with gmpy2 (independent of the models)."""
    return int(gmpy2.mpz(x) * y * gmpy2.invert(gmpy2.mpz(2) ** n, m) % m)


def schedule_end(jobs: int, pes: int, latency: int, occupancy: int) -> int:
    """Start clock of the last job from the paper's constraints, by recurrence: job i needs
    S(0) of job i-1 (latency clocks later) and its PE (i mod P) free again (occupancy)."""
    start: list[int] = []
    for i in range(jobs):
        t = 0 if i == 0 else start[i - 1] + latency
        if i >= pes:
            t = max(t, start[i - pes] + occupancy)
        start.append(t)
    return start[-1]


def pe_totals(hits: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for addr, h in hits.items():
        out[addr // 2] = out.get(addr // 2, 0) + h
    return out


def jobs_per_slot(jobs: int, pes: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for i in range(jobs):
        out[(i % pes) % OBS_PE_SLOTS] = out.get((i % pes) % OBS_PE_SLOTS, 0) + 1
    return out


def check_mwr2mm(x: int, y: int, m: int, n: int, w: int, p: int) -> None:
    r = mwr2mm(x, y, m, n, W=w, P=p)
    assert r.p == expected_p(x, y, m, n), (x, y, m, n, w, p)
    assert r.p == reference(get_algo("mwr2mm"), x, y, m, n, W=w, P=p)
    e = mwr2mm_words(n, w)
    assert r.cycles == schedule_end(n, p, 2, e) + e + 3
    # every job takes e word steps on its PE
    assert pe_totals(r.lut) == {k: j * e for k, j in jobs_per_slot(n, p).items()}


def check_mwrkmm(x: int, y: int, m: int, n: int, v: int, w: int, p: int,
                 lat: int = 3, adder: int = 0) -> None:
    r = mwrkmm(x, y, m, n, V=v, W=w, P=p, PeLatency=lat, PeAdder=adder)
    assert r.p == expected_p(x, y, m, n), (x, y, m, n, v, w, p, lat, adder)
    assert r.p == reference(get_algo("mwrkmm"), x, y, m, n, V=v, W=w, P=p, PeLatency=lat,
                            PeAdder=adder)
    nw, jobs = mwrkmm_words(n, v), mwrkmm_jobs(n, w)
    # the last job's state A, its n_w words leaving lat clocks later, one FIN clock
    assert r.cycles == schedule_end(jobs, p, lat, nw) + nw + lat + 1
    # every job emits n_w words of S
    assert pe_totals(r.lut) == {k: j * nw for k, j in jobs_per_slot(jobs, p).items()}


def mwr2mm_points(n: int) -> list[tuple[int, int]]:
    return [(w, p) for w in range(2, n + 1) for p in range(1, mwr2mm_pmax(n, w) + 1)]


def mwrkmm_points(n: int, lat: int = 3) -> list[tuple[int, int, int]]:
    return [(v, w, p) for v in range(1, n + 1) for w in range(1, v + 1) if n % w == 0
            for p in range(1, mwrkmm_pmax(n, v, lat) + 1)]


@pytest.mark.parametrize("n", [4, 5])
def test_mwr2mm_exhaustive_small(n: int):
    for w, p in mwr2mm_points(n):
        for m in range(3, 1 << n, 2):
            for x in range(m):
                for y in range(m):
                    check_mwr2mm(x, y, m, n, w, p)


@pytest.mark.parametrize("n,lat,adder", [(3, 3, 0), (4, 3, 0), (4, 4, 0), (4, 3, 1), (5, 4, 1)])
def test_mwrkmm_exhaustive_small(n: int, lat: int, adder: int):
    """Every point and operand at small N; PeAdder = 1 checks each word of its carry-save
    unit against the two adders' (the model's own assertions) as well as P."""
    points = mwrkmm_points(n, lat)
    assert points, n
    for v, w, p in points:
        for m in range(3, 1 << n, 2):
            for x in range(m):
                for y in range(m):
                    check_mwrkmm(x, y, m, n, v, w, p, lat, adder)


def test_mwrkmm_pe_latency_sets_p_max_and_cycles_only() -> None:
    """The subpipelined PE (latency 4, section 7): p_max = floor(n_w / 4), the paper's 15 PEs
    at 1024 bits with v = 17 (20 with latency 3, eq. 13); the same result words, the cycles
    of the longer pipeline; any other latency refused in one line."""
    assert (mwrkmm_pmax(1024, 17), mwrkmm_pmax(1024, 17, 4)) == (20, 15)
    m = (1 << 1023) + 12345
    r3 = mwrkmm(m - 5, m - 7, m, 1024, V=17, W=16, P=15)
    r4 = mwrkmm(m - 5, m - 7, m, 1024, V=17, W=16, P=15, PeLatency=4)
    assert r3.p == r4.p and r3.lut == r4.lut and r3.unreduced == r4.unreduced
    assert r4.cycles - r3.cycles == (mwrkmm_jobs(1024, 16) - 1) % 15 + 1
    for bad, msg in ((dict(P=16, PeLatency=4), "p_max=15"), (dict(P=1, PeLatency=5), "3 or 4")):
        with pytest.raises(ModelInputError, match=msg):
            mwrkmm(3, 5, m, 1024, V=17, W=16, **bad)


def test_mwrkmm_csa_adder_changes_the_carries_only() -> None:
    """PeAdder = 1 (section 5.2's carry-save tree and one CPA): the same P, S before the
    subtraction and cycles, each PE the same number of word steps; its bins count its own
    carries (the reduction's overflow bit k or the CPA's carry), so some step's class
    differs from the two adders' (Cmod or Cadd) at the paper's point; any other PeAdder is
    refused in one line."""
    m = (1 << 1023) + 12345
    for lat, p in ((3, 20), (4, 15)):
        r0 = mwrkmm(m - 5, m - 7, m, 1024, V=17, W=16, P=p, PeLatency=lat)
        r1 = mwrkmm(m - 5, m - 7, m, 1024, V=17, W=16, P=p, PeLatency=lat, PeAdder=1)
        assert (r0.p, r0.unreduced, r0.cycles) == (r1.p, r1.unreduced, r1.cycles)
        assert pe_totals(r0.lut) == pe_totals(r1.lut) and r0.lut != r1.lut
    with pytest.raises(ModelInputError, match="PeAdder=2 is above its largest value 1") as exc:
        get_algo("mwrkmm").resolve(64, {"V": 8, "W": 8, "PeAdder": 2})
    assert "\n" not in str(exc.value)
    with pytest.raises(ModelInputError, match="PeAdder=2 must be 0 or 1"):
        mwrkmm(3, 5, m, 1024, V=17, W=16, P=20, PeAdder=2)


@st.composite
def mwr2mm_case(draw: st.DrawFn) -> tuple[int, ...]:
    n = draw(st.integers(8, 300))
    w = draw(st.integers(2, min(n, 64)))
    p = draw(st.integers(1, mwr2mm_pmax(n, w)))
    m = draw(st.integers(3, (1 << n) - 1)) | 1
    return draw(st.integers(0, m - 1)), draw(st.integers(0, m - 1)), m, n, w, p


@st.composite
def mwrkmm_case(draw: st.DrawFn) -> tuple[int, ...]:
    n = draw(st.integers(8, 300))
    v = draw(st.integers(1, min(n // 3 + 1, 40)))
    w = draw(st.sampled_from([d for d in range(1, v + 1) if n % d == 0]))
    lat = draw(st.sampled_from([3, 4]))
    adder = draw(st.sampled_from([0, 1]))
    p = draw(st.integers(1, mwrkmm_pmax(n, v, lat)))
    m = draw(st.integers(3, (1 << n) - 1)) | 1
    return (draw(st.integers(0, m - 1)), draw(st.integers(0, m - 1)), m, n, v, w, p, lat,
            adder)


@BASE
@given(mwr2mm_case())
def test_mwr2mm_property(case: tuple[int, ...]):
    check_mwr2mm(*case)


@BASE
@given(mwrkmm_case())
def test_mwrkmm_property(case: tuple[int, ...]):
    check_mwrkmm(*case)


def test_corner_operands_hit_both_carry_classes_and_subtraction():
    """Full-width operands: every PE sees carries zero and non-zero; both FIN outcomes."""
    n, m = 64, (1 << 64) - 59
    r = mwr2mm(m - 1, m - 1, m, n, W=8, P=4)
    assert all(r.lut.get(2 * k + c, 0) > 0 for k in range(4) for c in (0, 1))
    for adder in (0, 1):
        r = mwrkmm(m - 1, m - 1, m, n, V=8, W=8, P=3, PeAdder=adder)
        assert all(r.lut.get(2 * k + c, 0) > 0 for k in range(3) for c in (0, 1)), adder


@pytest.mark.parametrize("m", [3, 5, 251, (1 << 127) - 1, (1 << 64) + 13])
@pytest.mark.parametrize("w", [1, 4, 16, 17])
def test_mprime_matches_gmpy2_invert(m: int, w: int):
    mp = mwrkmm_mprime(m, 128, V=32, W=w, P=1)
    assert mp == int((-gmpy2.invert(m, 1 << w)) % (1 << w))
    assert (m * mp) % (1 << w) == (1 << w) - 1  # m * m' = -1 mod 2^W
    assert get_algo("mwrkmm").precomputed(m, 128, {"V": 32, "W": w, "P": 1}) == {"MP": mp}


@pytest.mark.parametrize(("algo", "n", "params", "needle"), [
    ("mwr2mm", 32, {"W": 1}, "W=1 is below its least value 2"),
    ("mwr2mm", 32, {"W": 33}, "must be <= N=32"),
    ("mwr2mm", 32, {"W": 8, "P": 3}, "P=3 must be in 1..p_max=2"),
    ("mwr2mm", 32, {"P": 0}, "P=0"),
    ("mwrkmm", 32, {"V": 4, "W": 8}, "W=8 must be <= V=4"),
    ("mwrkmm", 30, {"V": 8, "W": 4}, "W=4 must divide N=30"),
    ("mwrkmm", 32, {"V": 64, "W": 8}, "V=64 must be <= N=32"),
    ("mwrkmm", 32, {"V": 8, "W": 8, "P": 3}, "P=3 must be in 1..p_max=2"),
])
def test_illegal_parameters_one_line(algo: str, n: int, params: dict[str, int], needle: str):
    with pytest.raises(ModelInputError, match=needle) as exc:
        get_algo(algo).resolve(n, params)
    assert "\n" not in str(exc.value)


def test_cli_run_and_error(capsys: pytest.CaptureFixture[str]):
    m = (1 << 64) - 59
    assert main(["run", "mwr2mm", "--n", "64", "--x", "12345", "--y", str(m - 2), "--m",
                 str(m), "--param", "W=8", "--param", "P=2"]) == 0
    assert f'"p": "{expected_p(12345, m - 2, m, 64)}"' in capsys.readouterr().out
    assert main(["run", "mwrkmm", "--n", "64", "--x", "1", "--y", "1", "--m", "7",
                 "--param", "V=4", "--param", "W=8"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "W=8 must be <= V=4" in err[0]
