"""Reading a signal as an unsigned int without cocotb's LogicArray.

`handle.value` builds a LogicArray (a Logic per bit, a Range) before it can become an int:
150 us for the fast mode's 8,448-bit log at N = 1024, against 20 us for the simulator's
binary string turned into an int (measured). The testbench reads a handful of signals once
per operation this way; everything else uses cocotb's API.
"""

from __future__ import annotations

import array
import ctypes
from collections.abc import Callable

from montverif.host import environment
from montverif.verif.bus.handles import Handle


class UnknownValueError(ValueError):
    """The signal holds X or Z bits where the testbench needs a number."""


def read_uint(handle: Handle) -> int:
    """The signal's value as an unsigned int (UnknownValueError if any bit is X or Z)."""
    bits: str = handle._handle.get_signal_val_binstr()
    try:
        return int(bits, 2)
    except ValueError:
        shown = bits if len(bits) <= 64 else f"{bits[:32]}...{bits[-32:]}"
        path = getattr(handle, "_path", "signal")
        raise UnknownValueError(f"{path}: not a number, {len(bits)} bits '{shown}' "
                                "(X or Z)") from None


# --- wide signals through the simulator's own VPI ------------------------------------------
# cocotb moves a vector as a binary string, one character per bit, which the simulator builds
# and parses bit by bit: 84 us per operation at N = 1024 for the fast mode's script (8,640
# bits) and log (8,448 bits), measured. VPI's vector format (vpiVectorVal: 32-bit aval/bval
# word pairs) carries the same value a word at a time. Verilator's and Icarus' executables
# export the VPI functions cocotb itself calls; ctypes reaches them in this process.
VPI_VECTOR_VAL = 9  # vpi_user.h: vpiVectorVal
VPI_NO_DELAY = 1  # vpi_user.h: vpiNoDelay


class _Value(ctypes.Structure):
    """s_vpi_value with the union's members this module uses."""

    class _Union(ctypes.Union):
        _fields_ = [("vector", ctypes.c_void_p), ("integer", ctypes.c_int32),
                    ("real", ctypes.c_double)]

    _fields_ = [("format", ctypes.c_int32), ("value", _Union)]


def _vpi() -> tuple[Callable[..., int], Callable[..., None], Callable[..., int]] | None:
    """vpi_handle_by_name, vpi_get_value and vpi_put_value of this process (None where the
    simulator does not export them)."""
    try:
        lib = ctypes.CDLL(None)
        by_name, get, put = lib.vpi_handle_by_name, lib.vpi_get_value, lib.vpi_put_value
    except (OSError, AttributeError):
        return None
    by_name.restype, by_name.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_void_p]
    get.restype, get.argtypes = None, [ctypes.c_void_p, ctypes.c_void_p]
    put.restype = ctypes.c_void_p
    put.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
    return by_name, get, put


class WideSignal:
    """A wide vector read and written as VPI words (`open_wide` makes one)."""

    def __init__(self, path: str, width: int, vpi_handle: int,
                 vpi: tuple[Callable[..., int], Callable[..., None], Callable[..., int]]
                 ) -> None:
        self.path, self.width, self.words = path, width, -(-width // 32)
        self._h, (_, self._get, self._put) = vpi_handle, vpi
        self._value = _Value()
        self._ref = ctypes.byref(self._value)
        # the words handed to vpi_put_value: aval, bval (always 0: no X or Z) pairs
        self._out = array.array("I", bytes(8 * self.words))
        self._out_addr = self._out.buffer_info()[0]

    def read_bytes(self, count: int | None = None) -> bytes:
        """The low `count` bytes (all when None; a multiple of 4) of the value, little
        endian; UnknownValueError if any of the words read holds X or Z."""
        words = self.words if count is None else -(-count // 4)
        self._value.format = VPI_VECTOR_VAL
        self._get(self._h, self._ref)
        pairs = memoryview(ctypes.string_at(self._value.value.vector, 8 * words)).cast("I")
        bval = pairs[1::2].tobytes()
        if bval.count(0) != len(bval):
            raise UnknownValueError(f"{self.path}: not a number, {self.width} bits with X or "
                                    "Z")
        return pairs[0::2].tobytes()[:count]

    def write_bytes(self, data: bytes) -> None:
        """Set the low len(data) bytes (a multiple of 4); the bits above keep the value
        last written through this object (0 at first)."""
        assert len(data) % 4 == 0 and len(data) <= 4 * self.words, len(data)
        self._out[0:len(data) // 2:2] = array.array("I", data)
        self._value.format = VPI_VECTOR_VAL
        self._value.value.vector = self._out_addr
        self._put(self._h, self._ref, None, VPI_NO_DELAY)


# --- variables in place (Verilator engine builds) ----------------------------------------
# The engine main loop (verif/bus/engine_main.cpp) exports STORAGE_SYMBOL: the address and
# size of a public variable's storage in the Verilator model. Its bytes are the value's, least
# significant first, so the testbench reads the engine's log and writes its script with one
# memory copy each instead of VPI's word-by-word aval/bval conversion (113 us a script at
# N = 1024 for the log alone, measured).
STORAGE_SYMBOL = "mv_var_storage"


class MemorySignal:
    """A public variable of a Verilator model read and written in its storage (`open_wide`
    makes one). Only for variables that nothing evaluates on a change: the engine's script,
    which the engine reads at a clock edge, and values that Python only reads."""

    def __init__(self, path: str, width: int, address: int, size: int) -> None:
        self.path, self.width, self.address, self.size = path, width, address, size

    def read_bytes(self, count: int | None = None) -> bytes:
        """The low `count` bytes (all when None) of the value, little endian."""
        return ctypes.string_at(self.address, self.size if count is None else count)

    def read_uint(self) -> int:
        return int.from_bytes(ctypes.string_at(self.address, self.size), "little")

    def write_bytes(self, data: bytes) -> None:
        """Set the low len(data) bytes; the bytes above keep their value."""
        assert len(data) <= self.size, (len(data), self.size)
        ctypes.memmove(self.address, data, len(data))


def _storage() -> Callable[..., int] | None:
    """This process's STORAGE_SYMBOL (None when the simulator does not export it)."""
    try:
        fn = getattr(ctypes.CDLL(None), STORAGE_SYMBOL)
    except (OSError, AttributeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_void_p, [ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_size_t)]
    return fn


def _mode() -> str:
    """MV_VPI: `direct` (the default: in place, else VPI words), `words` or `cocotb`."""
    return environment.VPI.get("direct")


def open_storage(handle: Handle) -> MemorySignal | None:
    """`handle` as a MemorySignal, or None where the simulator does not export its storage
    (Icarus, Verilator builds without the engine main loop) or MV_VPI asks for VPI words
    (`words`) or cocotb's strings (`cocotb`)."""
    if _mode() in ("words", "cocotb"):
        return None
    if not _STORAGE:
        _STORAGE.append(_storage())
    storage, path = _STORAGE[0], getattr(handle, "_path", "")
    if storage is None or not path:
        return None
    size = ctypes.c_size_t(0)
    address = storage(path.encode(), ctypes.byref(size))
    width = len(handle)
    if not address or size.value * 8 < width or size.value > 4 * -(-width // 32) + 4:
        return None
    return MemorySignal(path, width, address, size.value)


_STORAGE: list[Callable[..., int] | None] = []
_VPI: list[tuple[Callable[..., int], Callable[..., None], Callable[..., int]] | None] = []


def open_wide(handle: Handle) -> MemorySignal | WideSignal | None:
    """`handle` in place (open_storage), else as a WideSignal, or None where this simulator's
    VPI cannot be reached (the caller keeps cocotb's path). MV_VPI=words skips the storage,
    MV_VPI=cocotb both (tests compare the three)."""
    if (memory := open_storage(handle)) is not None:
        return memory
    if _mode() == "cocotb":
        return None
    if not _VPI:
        _VPI.append(_vpi())
    vpi = _VPI[0]
    path = getattr(handle, "_path", "")
    if vpi is None or not path:
        return None
    vpi_handle = vpi[0](path.encode(), None)
    if not vpi_handle:
        return None
    return WideSignal(path, len(handle), vpi_handle, vpi)
