"""Expressions of the descriptors (a design's cycles and R, the paper's cycle formula),
evaluated in n and the build parameters: + - * / // %, comparisons (1 or 0), ceil, floor,
min, max, abs; names n and the parameters; no eval()."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping

from montverif.spec.errors import ConfigError

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge}
_FUNCS: dict[str, Callable[..., int]] = {"ceil": math.ceil, "floor": math.floor, "min": min,
                                         "max": max, "abs": abs}


def formula(expr: str, n: int, params: Mapping[str, int] | None = None) -> float:
    """The value of `expr` for width n and these build parameters (W, P, ...)."""
    names = {"n": n} | dict(params or {})

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            return int(_CMP[type(node.ops[0])](ev(node.left), ev(node.comparators[0])))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and node.args and not node.keywords):
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise ConfigError(f"unsupported expression {expr!r}")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ConfigError(f"unsupported expression {expr!r}") from None
    return ev(tree)


def integer(expr: str, n: int, params: Mapping[str, int] | None = None) -> int:
    """formula() of an expression that must be a whole number (a cycle count, log2 R)."""
    value = formula(expr, n, params)
    if value != int(value):
        raise ConfigError(f"{expr!r} is not a whole number at n={n} ({value})")
    return int(value)
