"""CLI (python -m models), number parsing and JSON encoding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gmpy2
import pytest

from montverif.models import mont_r4
from montverif.models.numbers import parse_int
from montverif.models.registry import ALGOS
from montverif.models.result import ModelInputError, Result

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "montverif.regress.cli", "models", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _accepts(info, n: int) -> bool:
    try:
        info.resolve(n)
    except ModelInputError:
        return False
    return True


def expected_mont(x: int, y: int, m: int, n: int) -> int:
    return int(x * y * gmpy2.invert(gmpy2.mpz(2) ** n, m) % m)


def test_list() -> None:
    cp = run_cli("list")
    assert cp.returncode == 0 and cp.stderr == ""
    lines = cp.stdout.splitlines()
    assert len(lines) == len(ALGOS)
    for line, info in zip(lines, ALGOS.values(), strict=True):
        assert line.split()[:2] == [info.name, info.kind]
        params = " ".join(f"{k}={v}" for k, v in info.params)
        assert line.endswith(info.summary + (f" [parameters: {params}]" if params else ""))


@pytest.mark.parametrize("algo", sorted(ALGOS))
def test_run_json(algo: str) -> None:
    info = ALGOS[algo]
    x, y, m = 0x1234, 0xBEEF, 0xFFF1
    n = 16 if _accepts(info, 16) else 96  # designs with a minimum width (mont_dual: 80)
    cp = run_cli(
        "run", algo, "--n", str(n), "--x", hex(x), "--y", str(y), "--m", f" 0X{m:X} "
    )
    assert cp.returncode == 0, cp.stderr
    assert cp.stderr == ""
    assert len(cp.stdout.splitlines()) == 1
    out = json.loads(cp.stdout)
    assert set(out) == {"algo", "n", "p", "s", "c", "cycles", "lut"}
    assert out["algo"] == algo and out["n"] == n
    mont = info.kind == "mont"  # "inter": x*y mod m
    assert int(out["p"]) == (expected_mont(x, y, m, info.r_bits(n)) if mont else x * y % m)
    if info.has_sc:
        assert (int(out["s"]) + int(out["c"])) % m == int(out["p"])
    else:
        assert out["s"] is None and out["c"] is None
    if info.halves:  # carry-save designs: one histogram entry per loop clock
        assert sum(out["lut"].values()) == out["cycles"] - 2
    elif info.has_field:  # mont_dual: one entry per loop cycle, not the E SUB and FIN cycles
        assert sum(out["lut"].values()) == out["cycles"] - (-(-n // 64)) - 1
    elif info.params and info.design.observe.paths():  # word-based designs: observation bins,
        assert out["lut"]  # tested in their own files (mont_pipe observes nothing)
    elif algo == "mont_r4":  # one entry per radix-4 digit
        assert sum(out["lut"].values()) == mont_r4.digits(n)
    else:
        assert sum(out["lut"].values()) == (n if info.has_lut else 0)


def test_run_halves() -> None:
    """--x2/--y2 give the second halves of carry-save operands (X = x + x2)."""
    x, x2, y, y2, m, n = 0x1234, 0xF00F, 0xBEEF, 0x3001, 0xFFF1, 16
    for algo in (a for a, i in ALGOS.items() if i.halves):
        cp = run_cli("run", algo, "--n", str(n), "--x", hex(x), "--x2", hex(x2), "--y", str(y),
                     "--y2", str(y2), "--m", hex(m))
        assert cp.returncode == 0, cp.stderr
        out = json.loads(cp.stdout)
        assert int(out["p"]) == expected_mont(x + x2, y + y2, m, ALGOS[algo].r_bits(n))
    cp = run_cli("run", "mont_lut", "--n", "8", "--x", "1", "--x2", "1", "--y", "1", "--m", "7")
    assert cp.returncode == 2 and "--x2" in cp.stderr


def test_run_wide_decimal() -> None:
    # > 4300 decimal digits: beyond Python's default int<->str conversion limit, and beyond
    # the design's widest N (--allow-wide)
    n = 16400
    m = 2**n - 159
    x, y = m - 2, 3**10000
    cp = run_cli(
        "run",
        "mont_r2",
        "--allow-wide",
        "--n",
        str(n),
        "--x",
        gmpy2.mpz(x).digits(10),
        "--y",
        hex(y),
        "--m",
        hex(m),
    )
    assert cp.returncode == 0, cp.stderr
    assert gmpy2.mpz(json.loads(cp.stdout)["p"]) == expected_mont(x, y, m, n)


@pytest.mark.parametrize(
    "args",
    [
        [
            "run",
            "mont_lut",
            "--n",
            "8",
            "--x",
            "1",
            "--y",
            "1",
            "--m",
            "0x10",
        ],  # even M
        [
            "run",
            "mont_lut",
            "--n",
            "8",
            "--x",
            "0x1FB",
            "--y",
            "1",
            "--m",
            "0xFB",
        ],  # X >= 2^n (X >= M is in mont_lut's domain)
        ["run", "rsa_core", "--n", "8", "--x", "0xFB", "--y", "1", "--m", "0xFB"],  # X >= M
        [
            "run",
            "mont_r2",
            "--n",
            "8",
            "--x",
            "1",
            "--y",
            "300",
            "--m",
            "0xFB",
        ],  # Y >= M
        ["run", "nope", "--n", "8", "--x", "1", "--y", "1", "--m", "3"],  # unknown algo
        [
            "run",
            "mont_csa",
            "--n",
            "1",
            "--x",
            "0",
            "--y",
            "0",
            "--m",
            "1",
        ],  # n too small
        [
            "run",
            "mont_csa",
            "--n",
            "8",
            "--x",
            "1",
            "--y",
            "1",
            "--m",
            "0x1FF",
        ],  # M >= 2^n
        ["run", "mont_csa", "--n", "8", "--x", "1", "--y", "1", "--m", "0"],  # M = 0
        ["run", "mont_csa", "--n", "8", "--x", "zz", "--y", "1", "--m", "7"],
        ["run", "mont_csa", "--n", "8", "--x", "0x", "--y", "1", "--m", "7"],
        ["run", "mont_csa", "--n", "8", "--x", "-1", "--y", "1", "--m", "7"],
        ["run", "mont_csa", "--n", "8", "--x", "1", "--y", "1\n2", "--m", "7"],
        ["run", "mont_csa", "--n", "eight", "--x", "1", "--y", "1", "--m", "7"],
        ["run", "mont_csa", "--n", "8", "--x", "1", "--y", "1"],  # missing --m
        ["frobnicate"],
        [],
    ],
)
def test_bad_input(args: list[str]) -> None:
    cp = run_cli(*args)
    assert cp.returncode == 2
    assert cp.stdout == ""
    assert "Traceback" not in cp.stderr
    lines = cp.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("42", 42),
        (" 42\n", 42),
        ("0x2A", 42),
        ("0X2a", 42),
        ("\t0xff ", 255),
        ("007", 7),
    ],
)
def test_parse_int(text: str, value: int) -> None:
    got = parse_int(text)
    assert type(got) is int and got == value


def test_parse_int_huge() -> None:
    # beyond Python's default 4300-digit int<->str limit
    assert parse_int("1" * 5000) == (10**5000 - 1) // 9
    assert parse_int("0x" + "f" * 5000) == 16**5000 - 1


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "0x",
        "x10",
        "-1",
        "+1",
        "1_000",
        "1e3",
        "0b101",
        "0o7",
        "12 34",
        "0x1g",
        "\u0661",
        "1.0",
        "٣",
    ],
)
def test_parse_int_rejects(text: str) -> None:
    with pytest.raises(ModelInputError, match="cannot parse integer") as info:
        parse_int(text)
    assert "\n" not in str(info.value)


def test_result_json() -> None:
    big = 7**6000  # > 4300 decimal digits
    r = Result("mont_lut", 8, 5, 3, big, 10, {9: 2, 0: 6})
    d = r.to_json_dict()
    assert d == {
        "algo": "mont_lut",
        "n": 8,
        "p": "5",
        "s": "3",
        "c": gmpy2.mpz(big).digits(10),
        "cycles": 10,
        "lut": {"0": 6, "9": 2},
    }
    assert json.loads(json.dumps(d)) == d
    d2 = Result("mont_r2", 8, 5, None, None, 9, {}).to_json_dict()
    assert d2["s"] is None and d2["c"] is None and d2["lut"] == {}
