"""The files derived from the register map and the design descriptors: the RTL package
hdl/common/mv_regmap_pkg.sv, docs/regmap.md and README.md's design table.

    montverif generate            write the stale ones
    montverif generate --check    exit 1 naming each stale one (montverif lint runs this)
"""

from __future__ import annotations

from montverif.regress.cli.args import Parser, fail
from montverif.spec import generate
from montverif.spec.errors import ConfigError
from montverif.spec.paths import ROOT


def main(argv: list[str]) -> int:
    ap = Parser("montverif generate", __doc__)
    ap.add_argument("--check", action="store_true", help="only say which files are stale")
    args = ap.parse_args(argv)
    try:
        if args.check:
            stale = generate.stale()
            for path in stale:
                print(f"error: {path.relative_to(ROOT)} is stale; run `montverif generate`")
            return 1 if stale else 0
        for path in generate.write():
            print(f"wrote {path.relative_to(ROOT)}")
    except ConfigError as exc:
        return fail(exc)
    return 0
