"""Expressions of the descriptors (a design's cycles and R, the paper's cycle formula, the
relations it promises), evaluated in n and the build parameters (a promise also in the
operands and results): + - * / // % **, comparisons (1 or 0), ceil, floor, min, max, abs;
no eval(). Integers stay exact (a relation of 1024-bit values: use //, not /)."""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable, Mapping

from montverif.spec.errors import ConfigError

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge}
MAX_EXPONENT = 1 << 16  # ** with a larger exponent is refused (2**n for any legal n fits)
_FUNCS: dict[str, Callable[..., int]] = {"ceil": math.ceil, "floor": math.floor, "min": min,
                                         "max": max, "abs": abs}


def formula(expr: str, n: int, params: Mapping[str, int] | None = None) -> float:
    """The value of `expr` for width n and these build parameters (W, P, ...)."""
    return evaluate(expr, {"n": n} | dict(params or {}))


def holds(expr: str, names: Mapping[str, int]) -> bool:
    """Whether the relation `expr` (a comparison) holds for these values."""
    return bool(relation(expr)(names))


@functools.lru_cache(maxsize=256)
def relation(expr: str) -> Compiled:
    """The relation `expr` (a comparison) as a function of the names (1 when it holds);
    checked and built once per expression: a promise is checked on every operation."""
    if not isinstance(_parse(expr).body, ast.Compare):
        raise ConfigError(f"{expr!r} is not a relation (a comparison such as p < m)")
    return _compiled(expr)


def _power(base: float, exp: float) -> float:
    if not isinstance(exp, int) or not 0 <= exp <= MAX_EXPONENT:
        raise ConfigError(f"an exponent must be an integer 0..{MAX_EXPONENT} (got {exp})")
    return base ** exp


@functools.lru_cache(maxsize=256)
def _parse(expr: str) -> ast.Expression:
    try:
        return ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ConfigError(f"unsupported expression {expr!r}") from None


def evaluate(expr: str, names: Mapping[str, int]) -> float:
    """The value of `expr` with these names bound."""
    return _compiled(expr)(names)


Compiled = Callable[[Mapping[str, int]], float]


@functools.lru_cache(maxsize=256)
def _compiled(expr: str) -> Compiled:
    """`expr` as a function of the names (built once per expression: a promise is checked
    on every operation)."""

    def unknown(names: Mapping[str, int]) -> float:
        raise ConfigError(f"unsupported expression {expr!r}")

    def build(node: ast.AST) -> Compiled:
        if isinstance(node, ast.Expression):
            return build(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool):
            value = node.value
            return lambda names: value
        if isinstance(node, ast.Name):
            name = node.id
            return lambda names: names[name] if name in names else unknown(names)
        if isinstance(node, ast.BinOp) and (type(node.op) in _OPS or isinstance(node.op, ast.Pow)):
            op = _OPS.get(type(node.op), _power)
            left, right = build(node.left), build(node.right)
            return lambda names: op(left(names), right(names))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = build(node.operand)
            return lambda names: -operand(names)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            cmp = _CMP[type(node.ops[0])]
            left, right = build(node.left), build(node.comparators[0])
            return lambda names: int(cmp(left(names), right(names)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and node.args and not node.keywords):
            func, args = _FUNCS[node.func.id], [build(a) for a in node.args]
            return lambda names: func(*(a(names) for a in args))
        return unknown

    return build(_parse(expr))


def integer(expr: str, n: int, params: Mapping[str, int] | None = None) -> int:
    """formula() of an expression that must be a whole number (a cycle count, log2 R)."""
    value = formula(expr, n, params)
    if value != int(value):
        raise ConfigError(f"{expr!r} is not a whole number at n={n} ({value})")
    return int(value)
