"""A descriptor's promise on P ([operands] promise p, montverif.spec.formula's language) as a
SystemVerilog condition of a formal harness (docs/formal.md).

A design whose operands may reach past M (mont_r2, mont_csa, mont_lut: any N-bit Y) returns
a P that is congruent to its function's value but not always below M; its harness asserts
the congruence and this condition, the bound the design promises (p < max(y, m)). Every
value is taken in the harness's reference width WW, which holds X*Y and P*2^r, so nothing
wraps: names are P (p), the operands' values (x, y: SystemVerilog expressions the harness
gives), the modulus (m), the width (n, N) and the build parameters (localparams of the
harness); + - * on them, a power of two (2**e), min, max and one comparison. Anything else
is refused with one line (ConfigError): the harness cannot state it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from montverif.host.errors import ConfigError

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_CMPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
         ast.NotEq: "!="}


def condition(expr: str, names: Mapping[str, str]) -> str:
    """`expr` (a relation) as a SystemVerilog condition, each name as `names` gives it (an
    expression of WW bits, or a localparam)."""
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        raise ConfigError(f"promise {expr!r}: not an expression") from None
    if not isinstance(tree, ast.Compare) or len(tree.ops) != 1:
        raise ConfigError(f"promise {expr!r}: a harness states one comparison (a < b)")
    op = _CMPS.get(type(tree.ops[0]))
    if op is None:
        raise ConfigError(f"promise {expr!r}: unsupported comparison")
    return (f"({_term(tree.left, expr, names)} {op} "
            f"{_term(tree.comparators[0], expr, names)})")


def _term(node: ast.expr, expr: str, names: Mapping[str, str]) -> str:
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ConfigError(f"promise {expr!r}: {node.id} is no value of the harness")
        return names[node.id]
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return f"WW'({node.value})"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        if not (isinstance(node.left, ast.Constant) and node.left.value == 2):
            raise ConfigError(f"promise {expr!r}: a power must be of 2 (2**e)")
        return f"(WW'(1) << ({_term(node.right, expr, names)}))"
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return (f"({_term(node.left, expr, names)} {_BINOPS[type(node.op)]} "
                f"{_term(node.right, expr, names)})")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("min", "max") and len(node.args) == 2 and not node.keywords:
        a, b = (_term(arg, expr, names) for arg in node.args)
        pick = ">" if node.func.id == "max" else "<"
        return f"(({a} {pick} {b}) ? {a} : {b})"
    raise ConfigError(f"promise {expr!r}: {ast.unparse(node)} cannot be stated in a harness "
                      "(names, integers, + - *, 2**e, min, max)")
