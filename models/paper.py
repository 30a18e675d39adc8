"""The papers' cycle formulas (a design's `[paper] cycles`), evaluated in n and the build
parameters: + - * / // %, ceil, floor, min, max; no eval()."""

from __future__ import annotations

import ast
import math
import operator

from montverif.models.result import ModelInputError

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


_FUNCS = {"ceil": math.ceil, "floor": math.floor, "min": min, "max": max}


def formula(expr: str, n: int, params: dict[str, int] | None = None) -> float:
    """Evaluate a paper's cycle formula in n and the build parameters (W, P, ...):
    + - * / // %, ceil, floor, min, max; no eval()."""
    names = {"n": n} | dict(params or {})

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and node.args and not node.keywords):
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise ModelInputError(f"unsupported cycle formula {expr!r}")

    return ev(ast.parse(expr, mode="eval"))
