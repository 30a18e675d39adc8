"""Expressions of the descriptors (a design's cycles and R, the paper's cycle formula, the
relations it promises), evaluated in n and the build parameters (a promise also in the
operands and results): + - * / // % **, comparisons (1 or 0), ceil, floor, min, max, abs;
no eval() of the text (its checked tree is compiled: _compiled). Integers stay exact (a
relation of 1024-bit values: use //, not /)."""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable, Collection, Mapping

from montverif.host.errors import ConfigError

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
    on every operation). The parsed tree is rewritten node by node into one Python function
    (a name reads `names`, ** is _power, a comparison is 1 or 0, a call one of _FUNCS); any
    other node becomes a call that raises ConfigError, as an unknown name does, when it is
    evaluated. Nothing of the text is evaluated but what these nodes say."""
    env: dict[str, object] = {"_power": _power, "_int": int, "_unknown": _unknown(expr),
                              **{f"_f_{k}": f for k, f in _FUNCS.items()}}

    def load(name: str) -> ast.expr:
        return ast.Name(id=name, ctx=ast.Load())

    def call(name: str, *args: ast.expr) -> ast.expr:
        return ast.Call(func=load(name), args=list(args), keywords=[])

    def build(node: ast.AST) -> ast.expr:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool):
            return ast.Constant(value=node.value)
        if isinstance(node, ast.Name):  # names[id] if id in names else _unknown()
            key = ast.Constant(value=node.id)
            return ast.IfExp(test=ast.Compare(left=key, ops=[ast.In()],
                                              comparators=[load("names")]),
                             body=ast.Subscript(value=load("names"), slice=key,
                                                ctx=ast.Load()),
                             orelse=call("_unknown"))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return ast.BinOp(left=build(node.left), op=type(node.op)(), right=build(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return call("_power", build(node.left), build(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return ast.UnaryOp(op=ast.USub(), operand=build(node.operand))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            return call("_int", ast.Compare(left=build(node.left), ops=[type(node.ops[0])()],
                                            comparators=[build(node.comparators[0])]))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and node.args and not node.keywords):
            return call(f"_f_{node.func.id}", *(build(a) for a in node.args))
        return call("_unknown")

    body = build(_parse(expr).body)
    func = ast.Expression(body=ast.Lambda(
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="names")], kwonlyargs=[],
                           kw_defaults=[], defaults=[]), body=body))
    code = compile(ast.fix_missing_locations(func), f"<formula {expr!r}>", "eval")
    # evaluates the code object of the tree above (a lambda), not the text
    built: Compiled = eval(code, {"__builtins__": {}, **env})
    return built


_CHECKED = (ast.Expression, ast.BinOp, ast.USub, ast.Pow, ast.Name, ast.Load, *_OPS, *_CMP)


def check(expr: str, names: Collection[str]) -> None:
    """ConfigError (one line) unless `expr` is an expression of the language above in these
    names only: a descriptor's formula, checked when the descriptor is read (an evaluation
    meets only the values, never an unknown name or construct)."""
    tree = _parse(expr)
    called = {id(c.func) for c in ast.walk(tree) if isinstance(c, ast.Call)}
    for node in ast.walk(tree):
        if not _supported(node):
            raise ConfigError(f"unsupported expression {expr!r}")
        if isinstance(node, ast.Name) and id(node) not in called and node.id not in names:
            raise ConfigError(f"{expr!r}: unknown name {node.id} (known: "
                              f"{', '.join(sorted(names)) or 'none'})")


def _supported(node: ast.AST) -> bool:
    """A node _compiled builds as the language says (others raise when evaluated)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1
    if isinstance(node, ast.Call):
        return (isinstance(node.func, ast.Name) and node.func.id in _FUNCS and bool(node.args)
                and not node.keywords)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub)
    return isinstance(node, _CHECKED)


def _unknown(expr: str) -> Callable[[], float]:
    def unknown() -> float:
        raise ConfigError(f"unsupported expression {expr!r}")
    return unknown


def integer(expr: str, n: int, params: Mapping[str, int] | None = None) -> int:
    """formula() of an expression that must be a whole number (a cycle count, log2 R)."""
    value = formula(expr, n, params)
    if value != int(value):
        raise ConfigError(f"{expr!r} is not a whole number at n={n} ({value})")
    return int(value)
