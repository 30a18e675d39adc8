"""montverif Python models: gmpy2 references and bit-accurate multiplier models."""

from montverif.models.inter import inter_csa, inter_lut, inter_r2
from montverif.models.mont import (
    csa,
    lut_address,
    mont_csa,
    mont_lut,
    mont_lut_table,
    mont_r2,
    validate,
)
from montverif.models.numbers import parse_int
from montverif.models.ref import inter_product, m_prime, modexp, mont_product, r2_mod
from montverif.models.registry import ALGOS, AlgoInfo, get_algo, reference
from montverif.models.result import ModelInputError, Result

__all__ = [
    "ALGOS",
    "AlgoInfo",
    "ModelInputError",
    "Result",
    "csa",
    "get_algo",
    "inter_csa",
    "inter_lut",
    "inter_product",
    "inter_r2",
    "lut_address",
    "m_prime",
    "modexp",
    "mont_csa",
    "mont_lut",
    "mont_lut_table",
    "mont_product",
    "mont_r2",
    "parse_int",
    "r2_mod",
    "reference",
    "validate",
]
