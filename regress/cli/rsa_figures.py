"""docs/rsa.md's measured RSA figures (montverif.regress.bench.rsa_figures)."""

from __future__ import annotations

from montverif.models import rsa as rsa_model
from montverif.regress.bench import rsa_figures
from montverif.regress.cli.args import Parser, fail
from montverif.regress.flow.paths import ROOT


def main(argv: list[str]) -> int:
    ap = Parser("montverif rsa-figures", rsa_figures.__doc__)
    ap.add_argument("--widths", default="1024,2048")
    ap.add_argument("--mults", default=",".join(map(str, rsa_model.MULTS)))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    try:
        widths = [int(w) for w in args.widths.split(",")]
        mults = [int(m) for m in args.mults.split(",")]
    except ValueError:
        return fail("--widths and --mults take comma-separated integers")
    bad = [m for m in mults if m not in rsa_model.MULTS]
    if bad:
        return fail(f"unknown Mult {bad} (known: {sorted(rsa_model.MULTS)})")
    text = rsa_figures.table(widths, mults, args.seed)
    print(text)
    if not args.no_write:
        rsa_figures.write_doc(text)
        print(f"wrote {rsa_figures.DOC.relative_to(ROOT)}")
    return 0
