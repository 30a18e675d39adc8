"""Build parameters beyond N and host precomputation in the algorithm table."""

from __future__ import annotations

import dataclasses

import pytest

from montverif.models.cli import main, parse_params
from montverif.models.registry import ALGOS, reference
from montverif.models.result import ModelInputError
from montverif.spec.design import Param


def _with_params():
    """mont_r2 with an invented parameter W (2..16 in its descriptor, must divide n) and a
    precomputed register."""

    def check(n: int, W: int) -> None:
        if n % W:
            raise ModelInputError(f"W={W} must divide N={n}")

    info = ALGOS["mont_r2"]
    design = dataclasses.replace(info.design, parameters={"W": Param("W", 4, 2, 16)})
    return dataclasses.replace(info, design=design, check=check,
                               precompute=(("MP", lambda m, n, W: (-pow(m, -1, 1 << W))
                                            % (1 << W)),))


def test_resolve_fills_defaults_and_checks():
    info = _with_params()
    assert info.resolve(8) == {"W": 4}
    assert info.resolve(8, {"W": 8}) == {"W": 8}
    with pytest.raises(ModelInputError, match="W=3 must divide N=8"):
        info.resolve(8, {"W": 3})
    with pytest.raises(ModelInputError, match="no parameter"):
        info.resolve(8, {"P": 2})
    with pytest.raises(ModelInputError, match="W=32 is above its largest value 16"):
        info.resolve(64, {"W": 32})


def test_precomputed_registers_are_m_prime():
    info = _with_params()
    for m in (3, 5, 251):
        mp = info.precomputed(m, 8, {"W": 4})["MP"]
        assert (m * mp) % 16 == 15  # m * m' = -1 mod 2^W


def test_model_binds_params_and_reference_ignores_unused_ones():
    info = _with_params()
    res = info.model({})(3, 5, 11, 8)
    assert res.p == reference(info, 3, 5, 11, 8)


def test_parse_params_and_cli_errors(capsys):
    assert parse_params(["W=16,P=4", "V=0x8"]) == {"W": 16, "P": 4, "V": 8}
    with pytest.raises(ModelInputError):
        parse_params(["W"])
    assert main(["run", "mont_lut", "--n", "8", "--x", "3", "--y", "5", "--m", "11",
                 "--param", "W=2"]) == 2
    assert "has no parameter" in capsys.readouterr().err
