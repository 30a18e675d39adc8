"""A design's sources for a build outside the project, computed from its descriptor (the same
text `montverif generate` writes into hdl/cores/<design>.f; hdl/<design>.core is its FuseSoC
core; docs/own-design.md, "Reusing the RTL").

    montverif files --dut D              the filelist: +incdir+, the sources in compile order,
                                         paths relative to hdl/cores/ (verilator -F)
    montverif files --dut D --format list   the sources alone, one absolute path a line
"""

from __future__ import annotations

from montverif.host.errors import ConfigError
from montverif.regress.cli.args import Parser, fail
from montverif.spec import cores
from montverif.spec.designs import load_design


def main(argv: list[str]) -> int:
    ap = Parser("montverif files", __doc__)
    ap.add_argument("--dut", required=True, help="design (montverif models list)")
    ap.add_argument("--format", choices=cores.FORMATS, default="f",
                    help="f: the filelist as hdl/cores/<design>.f has it (default); list: "
                         "the sources alone, absolute paths")
    args = ap.parse_args(argv)
    try:
        text = cores.listing(load_design(args.dut), args.format)
    except ConfigError as exc:
        return fail(exc)
    print(text, end="")
    return 0
