"""The RSA core's measured figures: docs/generated/rsa-figures.md
(montverif.regress.bench.rsa_figures)."""

from __future__ import annotations

from montverif.host import pages
from montverif.host.errors import ConfigError
from montverif.models import rsa as rsa_model
from montverif.regress.bench import rsa_figures
from montverif.regress.cli.args import Parser, Repeated, bounded, distinct, fail
from montverif.spec.bounds import SEED
from montverif.spec.designs import load_design


def main(argv: list[str]) -> int:
    ap = Parser("montverif rsa-figures", rsa_figures.__doc__)
    design = load_design("rsa_core")
    ap.add_argument("--widths", default="1024,2048",
                    help=f"widths N, each within rsa_core's {design.min_n}..{design.max_n}")
    ap.add_argument("--mults", default=",".join(map(str, rsa_model.MULTS)),
                    help="the multipliers inside (Mult), comma-separated")
    ap.add_argument("--seed", type=bounded(SEED), default=1, help="the keys' seed")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    try:
        widths = distinct(args.widths, "--widths", int)
        mults = distinct(args.mults, "--mults", int)
    except ValueError as exc:  # a repeated one, or no integer
        return fail(exc if isinstance(exc, Repeated) else
                    "--widths and --mults take comma-separated integers")
    if bad := [w for w in widths if not design.min_n <= w <= design.max_n]:
        return fail(f"--widths: N={bad[0]} is outside rsa_core's widths "
                    f"{design.min_n}..{design.max_n}")
    bad = [m for m in mults if m not in rsa_model.MULTS]
    if bad:
        return fail(f"unknown Mult {bad} (known: {sorted(rsa_model.MULTS)})")
    if not args.no_write:
        try:
            pages.check(rsa_figures.DOC)  # before the measurement, not after it
        except ConfigError as exc:
            return fail(exc)
    text = rsa_figures.table(widths, mults, args.seed)
    print(text)
    if not args.no_write:
        try:
            rsa_figures.write_doc(text)
        except ConfigError as exc:
            return fail(exc)
        print(f"wrote {rsa_figures.DOC}")
    return 0
