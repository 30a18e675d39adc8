"""The files derived from the register map and the design descriptors: the RTL package
hdl/common/mv_regmap_pkg.sv, docs/generated/regmap.md, README.md's design table and each design's
FuseSoC core (hdl/<design>.core), filelist and top (hdl/cores/).

    montverif generate            write the stale ones (remove those of a design gone)
    montverif generate --check    exit 1 naming each stale one (montverif lint runs this)
"""

from __future__ import annotations

from montverif.host.errors import ConfigError
from montverif.host.paths import ROOT
from montverif.regress.cli.args import Parser, fail
from montverif.spec import generate


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
            print(f"{'wrote' if path.exists() else 'removed'} {path.relative_to(ROOT)}")
    except ConfigError as exc:
        return fail(exc)
    return 0
