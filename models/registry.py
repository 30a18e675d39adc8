"""Table of modelled algorithms and their gmpy2 references."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from montverif.models import gf2, ref
from montverif.models.dual import check as dual_check
from montverif.models.dual import mont_dual, mp_pack, r_bits_gf2
from montverif.models.inter import inter_csa, inter_lut, inter_r2
from montverif.models.mm42 import iterations, iterations_u2, mm42, mm42_u2
from montverif.models.mont import mont_csa, mont_csa_u2, mont_lut, mont_lut_u2, mont_r2
from montverif.models.result import ModelInputError, Result
from montverif.models.rsa import block_params as rsa_block_params
from montverif.models.rsa import check as rsa_check
from montverif.models.rsa import mprime, r2, rsa_core
from montverif.models.scalable import mwr2mm, mwr2mm_check, mwrkmm, mwrkmm_check, mwrkmm_mprime
from montverif.models.vhr import check as qp_check
from montverif.models.vhr import mhat as qp_mhat
from montverif.models.vhr import mont_qp
from montverif.models.vhr import r_bits as qp_r_bits

# "mont": X*Y*2^-r mod M; "inter": X*Y mod M; "mont_gf2": the binary-field Montgomery product
# X(x)*Y(x)*x^-r mod M(x) (polynomials over GF(2), M holds the whole p(x), so deg p < N);
# "modexp": X^E mod M (the RSA core)
Kind = Literal["mont", "inter", "mont_gf2", "modexp"]
ModelFunc = Callable[..., Result]  # (x, y, m, n), or (x1, x2, y1, y2, m, n) with halves


def _n_bits(n: int, **_params: int) -> int:
    return n


def _no_check(n: int, **_params: int) -> None:
    return None


@dataclass(frozen=True)
class AlgoInfo:
    """One modelled algorithm: model function(x, y, m, n) and what it computes."""

    name: str
    func: ModelFunc
    kind: Kind
    has_sc: bool
    has_lut: bool
    summary: str
    # operands are carry-save pairs: func(x1, x2, y1, y2, m, n) with X = x1 + x2, Y = y1 + y2
    halves: bool = False
    # "mont": the product is X*Y*2^-r_bits(n, **params) mod M (n unless the loop runs more
    # iterations or works on digits)
    r_bits: Callable[..., int] = _n_bits
    # build parameters beyond N (e.g. W, P): their names and defaults; the model takes them
    # as keyword arguments, the RTL as parameters of the same names
    params: tuple[tuple[str, int], ...] = ()
    # check(n, **params) raises ModelInputError for an illegal combination (one line)
    check: Callable[..., None] = _no_check
    # registers the host computes and loads besides the operands (m', M-hat, ...):
    # register name -> f(m, n, **params)
    precompute: tuple[tuple[str, Callable[..., int]], ...] = ()
    # designs with CTRL.FIELD: the kind and R of an operation started with FIELD = 1
    # (GF(2^n)); FIELD = 0 uses `kind` and `r_bits`. Their model takes field=0|1 as a keyword.
    field1_kind: Kind | None = None
    field1_r_bits: Callable[..., int] = _n_bits
    # designs whose RTL selects sub-designs in generate blocks: the build parameters that
    # elaborate a block, by its label (None: any build does); the mutation flow builds a
    # mutant inside such a block with them
    block_params: Callable[[str], dict[str, int] | None] = lambda _label: None

    @property
    def has_field(self) -> bool:
        """Whether each operation chooses its field (CTRL.FIELD at START)."""
        return self.field1_kind is not None

    def defaults(self) -> dict[str, int]:
        return dict(self.params)

    def resolve(self, n: int, given: dict[str, int] | None = None) -> dict[str, int]:
        """The full parameter set of one build (defaults | given), checked; raises
        ModelInputError for an unknown name or an illegal combination."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.defaults()))
        if unknown:
            known = ", ".join(k for k, _ in self.params) or "none"
            raise ModelInputError(f"{self.name} has no parameter(s) {', '.join(unknown)} "
                                  f"(parameters: {known})")
        params = self.defaults() | given
        self.check(n, **params)
        return params

    def model(self, params: dict[str, int]) -> ModelFunc:
        """The model function with the build parameters bound."""
        return functools.partial(self.func, **params) if params else self.func

    def precomputed(self, m: int, n: int, params: dict[str, int]) -> dict[str, int]:
        return {reg: f(m, n, **params) for reg, f in self.precompute}

    def run(self, params: dict[str, int], *args: int, field: int = 0) -> Result:
        """The model on one operation (args: operands..., n); field only for has_field."""
        if self.has_field:
            return self.model(params)(*args, field=field)
        return self.model(params)(*args)


_ALGO_LIST: tuple[AlgoInfo, ...] = (
    AlgoInfo(
        name="mont_r2",
        func=mont_r2,
        kind="mont",
        has_sc=False,
        has_lut=True,
        summary="Amanor Algorithm 1a: radix-2 Montgomery, carry-propagate adder; "
        "lut = selection (x_i, q_i) histogram",
    ),
    AlgoInfo(
        name="mont_csa",
        func=mont_csa,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Amanor Algorithm 1b: fast Montgomery, two CSAs, redundant S/C; "
        "lut = selection (x_i, s_0) histogram",
    ),
    AlgoInfo(
        name="mont_lut",
        func=mont_lut,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Amanor Algorithm 3: faster Montgomery, one CSA + 16-entry table "
        "{0,M,Y,Y+M}",
    ),
    AlgoInfo(
        name="mont_csa_u2",
        func=mont_csa_u2,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Gajbhiye 2018: Algorithm 1b unfolded by 2, four CSAs, two bits of X per cycle",
    ),
    AlgoInfo(
        name="mont_lut_u2",
        func=mont_lut_u2,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Gajbhiye 2018: Algorithm 3 unfolded by 2, two table lookups + two CSAs "
        "per cycle",
    ),
    AlgoInfo(
        name="mm42",
        func=mm42,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Gajbhiye 2018 MM42_Multiplier: carry-save operands/result, D = B1+B2+M, "
        "4:2 compressor, n+2 iterations (R = 2^(n+2))",
        halves=True,
        r_bits=iterations,
    ),
    AlgoInfo(
        name="mm42_u2",
        func=mm42_u2,
        kind="mont",
        has_sc=True,
        has_lut=True,
        summary="Gajbhiye 2018: MM42_Multiplier unfolded by 2, two 4:2 compressors per cycle "
        "(R = 2^(n+2), 2^(n+3) for odd n)",
        halves=True,
        r_bits=iterations_u2,
    ),
    AlgoInfo(
        name="inter_r2",
        func=inter_r2,
        kind="inter",
        has_sc=False,
        has_lut=True,
        summary="Amanor Algorithm 2: interleaved MSB first, 2P + x_i*Y and two conditional "
        "subtractions; lut = subtractions per iteration",
    ),
    AlgoInfo(
        name="inter_csa",
        func=inter_csa,
        kind="inter",
        has_sc=True,
        has_lut=True,
        summary="Amanor Algorithm 4: interleaved with two CSAs, A = k*2^n mod M table "
        "(k = 0..6); lut = k histogram",
    ),
    AlgoInfo(
        name="inter_lut",
        func=inter_lut,
        kind="inter",
        has_sc=True,
        has_lut=True,
        summary="Amanor Algorithm 5: interleaved with one CSA and an 8-entry table of "
        "2A + I at address 2k + x",
    ),
    AlgoInfo(
        name="mwr2mm",
        func=mwr2mm,
        kind="mont",
        has_sc=False,
        has_lut=True,
        summary="Michalski-Buell Algorithm 1 (Tenca-Koc MWR2MM): P PEs, W-bit words, "
        "latency 2; lut = 2*(PE mod 8) + carry_nonzero per word step",
        params=(("W", 8), ("P", 1)),
        check=mwr2mm_check,
    ),
    AlgoInfo(
        name="mwrkmm",
        func=mwrkmm,
        kind="mont",
        has_sc=False,
        has_lut=True,
        summary="Michalski-Buell Algorithm 2 (MWRkMM): V-bit words, W-bit digits, "
        "u' = m'S(0) mod 2^W, P PEs of latency 3; lut as mwr2mm",
        params=(("V", 8), ("W", 1), ("P", 1)),
        check=mwrkmm_check,
        precompute=(("MP", mwrkmm_mprime),),
    ),
    AlgoInfo(
        name="mont_qp",
        func=mont_qp,
        kind="mont",
        has_sc=False,
        has_lut=True,
        summary="Jiang-Harris: 1-stage quotient-pipelined very-high-radix scalable Montgomery, "
        "P PEs, V-bit digits, W-bit words, M-hat precomputed (R = 2^(V(ceil(N/V)+1))); "
        "lut = observation bins (PE starts, stalls, carries, reduction steps)",
        r_bits=qp_r_bits,
        params=(("V", 8), ("W", 16), ("P", 2)),
        check=qp_check,
        precompute=(("MHAT", qp_mhat),),
    ),
    AlgoInfo(
        name="mont_dual",
        func=mont_dual,
        kind="mont",
        has_sc=True,  # s = C after the loop (before the final subtraction), c = 0
        has_lut=True,
        summary="Tanimura 2008: unified dual-radix FIOS, GF(p) with four radix-2^16 units "
        "(R = 2^(16*ceil(N/16))), GF(2^n) with a 64-bit carry-less multiplier "
        "(R = x^(64*ceil(N/64))), field per operation; lut = phases {field, T1/T2/MA/MB}",
        r_bits=lambda n, **_p: 16 * (-(-n // 16)),
        check=lambda n, **_p: dual_check(n),
        precompute=(("MP", mp_pack),),
        field1_kind="mont_gf2",
        field1_r_bits=lambda n, **_p: r_bits_gf2(n),
    ),
)

ALGOS: dict[str, AlgoInfo] = {a.name: a for a in _ALGO_LIST}

# Cores built around the multipliers (not multipliers themselves: `montverif models list/run`
# and the multiplier tests iterate over ALGOS only). kind "modexp": P = X^E mod M.
CORES: dict[str, AlgoInfo] = {
    "rsa_core": AlgoInfo(
        name="rsa_core",
        func=rsa_core,
        kind="modexp",
        has_sc=False,
        has_lut=False,
        summary="Michalski-Buell Algorithm 4: right-to-left exponentiation, two Montgomery "
        "multipliers (Mult: 0 mont_lut, 1 mont_csa, 2 mont_csa_u2, 3 mont_lut_u2, 4 mwrkmm, "
        "5 mont_qp; V, W, P for 4 and 5)",
        params=(("Mult", 0), ("ConstTime", 1), ("V", 16), ("W", 16), ("P", 1)),
        check=rsa_check,
        precompute=(("R2", r2), ("MP", mprime)),
        block_params=rsa_block_params,
    ),
}


def get_algo(name: str) -> AlgoInfo:
    """Look up an algorithm by name."""
    try:
        return ALGOS[name] if name in ALGOS else CORES[name]
    except KeyError:
        known = ", ".join(sorted(ALGOS))
        raise ModelInputError(f"unknown algorithm {name!r} (known: {known})") from None


def _product(info: AlgoInfo, args: tuple[int, ...], field: int, params: dict[str, int]
             ) -> tuple[int, int, int, str, int]:
    """A product's (x, y, m, kind, R bits) from the model's args (x, y, m, n), or (x1, x2,
    y1, y2, m, n) for carry-save operands (X = x1 + x2, Y = y1 + y2)."""
    *ops, m, n = args
    x, y = (ops[0] + ops[1], ops[2] + ops[3]) if info.halves else ops
    if field not in (0, 1) or (field and not info.has_field):
        raise ModelInputError(f"{info.name}: no field {field}")
    kind, r_bits = (info.field1_kind, info.field1_r_bits) if field else (info.kind, info.r_bits)
    return x, y, m, kind, r_bits(n, **params)


def matches_reference(info: AlgoInfo, p: int, *args: int, field: int = 0,
                      **params: int) -> bool:
    """p == reference(info, *args, field=field, **params); a Montgomery product is checked
    as a congruence (ref.is_mont_product: no modular inverse, a few times faster)."""
    if info.kind != "modexp":
        x, y, m, kind, r = _product(info, args, field, params)
        if kind == "mont":
            return ref.is_mont_product(p, x, y, m, r)
    return p == reference(info, *args, field=field, **params)


def reference(info: AlgoInfo, *args: int, field: int = 0, **params: int) -> int:
    """Expected P for the algorithm's kind (gmpy2; models.gf2 for the binary field); args
    are the model's (x, y, m, n), or (x1, x2, y1, y2, m, n) for carry-save operands
    (X = x1 + x2, Y = y1 + y2); params are the build parameters beyond N; field is the
    operation's CTRL.FIELD (designs with has_field: 1 selects field1_kind)."""
    if info.kind == "modexp":  # (x, e, m, n)
        x, e, m, _ = args
        return ref.modexp(x, e, m)
    x, y, m, kind, r = _product(info, args, field, params)
    if kind == "mont":
        return ref.mont_product(x, y, m, r)
    if kind == "mont_gf2":
        return gf2.mont_product(x, y, m, r)
    return ref.inter_product(x, y, m)
