"""CLI: `montverif models list`, `montverif models run ALGO --n N --x X --y Y --m M` and
`montverif models domain ALGO --n N` (its operand domain and promise, checked exhaustively).

N is held to the design's widths (its descriptor's widths.max); `--allow-wide` runs a wider
one. Bad input is one `error:` line and exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from montverif.host.errors import ConfigError
from montverif.models.numbers import parse_int
from montverif.models.registry import ALGOS, AlgoInfo, get_algo
from montverif.models.result import ModelInputError
from montverif.models.survey import MAX_N, survey
from montverif.spec import designs
from montverif.spec import params as spec_params


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are a single ``error:`` line (exit 2), as
    montverif.regress.cli.args.Parser's (the models sit below the command's layer)."""

    def error(self, message: str) -> NoReturn:
        msg = " ".join(message.split())
        self.exit(2, f"error: {msg} (see {self.prog} --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="montverif models", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list the modelled algorithms")
    run = sub.add_parser("run", help="run one model, print a JSON result line")
    run.add_argument("algo", help="algorithm name (see list)")
    for opt, what in (
        ("n", "width in bits"),
        ("x", "operand X"),
        ("y", "operand Y"),
        ("m", "modulus M"),
    ):
        run.add_argument(f"--{opt}", required=True, help=f"{what} (decimal or 0x-hex)")
    for opt in ("x2", "y2"):
        run.add_argument(f"--{opt}", default=None,
                         help=f"second half of a carry-save operand {opt[0].upper()} "
                         "(algorithms with carry-save operands; default 0)")
    run.add_argument("--field", default="0", choices=("0", "1"),
                     help="CTRL.FIELD for designs with a binary-field mode: 0 = GF(p), "
                     "1 = GF(2^n) (default 0)")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                     help="build parameter beyond N (e.g. W=16), repeatable; see list")
    run.add_argument("--allow-wide", action="store_true",
                     help="run an N above the design's widest (its descriptor's widths.max; "
                     "the models' time and memory grow with N)")
    run.add_argument("--beyond-paper", action="store_true",
                     help="take parameters beyond the hardware the paper assumes (a digit "
                     "width above its multiplier's input: the descriptor's paper_max); the "
                     "result says so")
    domain = sub.add_parser("domain", help="check the design's operand domain and promise "
                            "for every operation of a small width (exit 1 if one fails)")
    domain.add_argument("algo", help="algorithm name (see list)")
    domain.add_argument("--n", required=True, help=f"width in bits (at most {MAX_N})")
    domain.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="build parameter beyond N, repeatable")
    return parser


def _cmd_domain(args: argparse.Namespace) -> int:
    info = get_algo(args.algo)
    if info.name not in ALGOS:
        raise ModelInputError(f"{info.name}: a multiplier's domain only (see list)")
    try:
        n = parse_int(args.n)
    except ModelInputError as exc:
        raise ModelInputError(f"--n: {exc}") from None
    if not 2 <= n <= MAX_N:
        raise ModelInputError(f"--n: N={n}: 2..{MAX_N} (every operation runs: 2^(3N) of them)")
    result = survey(info, n, info.resolve(n, parse_params(args.param)))
    print(result.line())
    return 0 if result.ok else 1


def parse_params(items: list[str]) -> dict[str, int | str]:
    """--param NAME=VALUE strings (comma-separated lists allowed) -> {NAME: value}, a value
    an integer or a choice's name (montverif.spec.params)."""
    try:
        return spec_params.parse_params(",".join(items))
    except ConfigError as exc:
        raise ModelInputError(f"--param: {exc}") from None


def _cmd_list() -> None:
    """The models, one a line; a `warning:` line on stderr per broken descriptor (its design
    is left out, the others are listed)."""
    listed = [info for info in ALGOS.values() if info.name in designs.known_designs()]
    width = max((len(info.name) for info in listed), default=0)
    for info in listed:
        params = " ".join(f"{k}={info.design.param_text(k, v)}" for k, v in info.params)
        print(f"{info.name:<{width}}  {info.kind:<5}  {info.summary}"
              + (f" [parameters: {params}]" if params else ""))
    for line in designs.broken():
        print(f"warning: {line} (left out)", file=sys.stderr)


def check_width(info: AlgoInfo, n: int, allow_wide: bool) -> None:
    """N within the design's widths; above the widest only with --allow-wide (a model's time
    and memory grow with N: N = 10^9 would take gigabytes before failing)."""
    design = info.design
    if n > design.max_n and not allow_wide:
        raise ModelInputError(f"--n: N={n} is above {info.name}'s widest, {design.max_n} "
                              f"(its widths {design.min_n}..{design.max_n}; --allow-wide runs "
                              "it anyway)")


def secret_options(info: AlgoInfo) -> set[str]:
    """The options (x, y, m) that give one of the design's secret operands (the RSA core's
    --y is its private exponent E): an error about one never quotes its value."""
    d = info.design
    halves = {h for g in d.carry_save_operands for h in g[1:]}
    ops = [r for r in d.operands if r not in halves]
    return {opt for opt, reg in (("x", ops[0]), ("y", ops[1]), ("m", ops[-1]))
            if reg in d.secret}


def _cmd_run(args: argparse.Namespace) -> None:
    info = get_algo(args.algo)
    values = {}
    for opt in ("n", "x", "y", "m"):
        try:
            values[opt] = parse_int(getattr(args, opt))
        except ModelInputError as exc:
            if opt in secret_options(info):
                raise ModelInputError(f"--{opt}: not a decimal or 0x-hex integer (the value "
                                      "of a secret operand is not shown)") from None
            raise ModelInputError(f"--{opt}: {exc}") from None
        if opt == "n":
            check_width(info, values["n"], args.allow_wide)
    for opt in ("x2", "y2"):
        text = getattr(args, opt)
        if text is not None and not info.halves:
            raise ModelInputError(f"--{opt}: {info.name} has no carry-save operands")
        try:
            values[opt] = parse_int(text) if text is not None else 0
        except ModelInputError as exc:
            raise ModelInputError(f"--{opt}: {exc}") from None
    params = info.resolve(values["n"], parse_params(args.param))
    try:
        info.design.check_paper(params, args.beyond_paper)
    except ConfigError as exc:
        raise ModelInputError(str(exc)) from None
    func = info.model(params)
    if info.halves:
        res = func(values["x"], values["x2"], values["y"], values["y2"], values["m"],
                   values["n"])
    elif info.has_field:
        res = func(values["x"], values["y"], values["m"], values["n"], field=int(args.field))
    else:
        if args.field != "0":
            raise ModelInputError(f"--field: {info.name} has no binary-field mode")
        res = func(values["x"], values["y"], values["m"], values["n"])
    beyond = info.design.beyond_paper(params)
    print(json.dumps(res.to_json_dict() | ({"beyond_paper": beyond} if beyond else {})))


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args = _build_parser().parse_args(argv)
    try:
        if args.cmd == "list":
            _cmd_list()
        elif args.cmd == "domain":
            return _cmd_domain(args)
        else:
            _cmd_run(args)
    except ModelInputError as exc:
        msg = " ".join(str(exc).split())
        print(f"error: {msg}", file=sys.stderr)
        return 2
    return 0
