"""A new design as a working copy of an existing one (docs/own-design.md).

    montverif new-design NAME --like DESIGN [--family FOLDER]

In a project of your own (montverif.toml: docs/own-design.md) the files go to its first design
folder, <folder>/<family>/, and the design takes an id from 128 on; else, in a checkout of
montverif, below its hdl/. Writes <family>/NAME.sv (DESIGN's core, renamed; with the RTL
files named after DESIGN, e.g. mont_lut's table, renamed as NAME's own) and
<family>/NAME.toml (its descriptor: a new id, DESIGN's model, test points and list
entries), then, in a checkout, the derived files (the RTL package, docs/generated/regmap.md,
README's design table). `montverif sim --dut NAME` passes at once; then replace the core, write the
model and edit the descriptor.

All or nothing: on any error (a name that is a SystemVerilog keyword or an existing module, a
broken descriptor, a full disk) or an interrupt, nothing is left behind. Two at once take two
design ids (a lock of hdl/).
"""

from __future__ import annotations

from montverif.host.errors import ConfigError
from montverif.host.paths import shown, writable
from montverif.regress.cli.args import Parser, fail
from montverif.regress.cli.interrupt import interrupted, terminate_as_interrupt
from montverif.spec.scaffold import base, new_design


def main(argv: list[str]) -> int:
    ap = Parser("montverif new-design", __doc__)
    ap.add_argument("name", help="the new design's name (lower case, e.g. mont_r4)")
    ap.add_argument("--like", required=True, help="the design to copy (montverif models list)")
    ap.add_argument("--family", help="folder below hdl/, or below your project's first design "
                    "folder (default: the copied design's family)")
    args = ap.parse_args(argv)
    try:
        writable(base())  # a project's design folder, or montverif's hdl/ in a checkout
        with terminate_as_interrupt():
            written = new_design(args.name, args.like, args.family)
    except ConfigError as exc:
        return fail(exc)
    except KeyboardInterrupt:  # nothing of the copy is left (montverif.spec.scaffold)
        return interrupted(f"`montverif new-design {args.name}` was ended; nothing written")
    for path in written:
        print(f"wrote {shown(path)}")
    print(f"next: montverif sim --dut {args.name} (docs/own-design.md)")
    return 0
