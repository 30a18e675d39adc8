"""verif/bus/vpi.py: a signal's value as an unsigned int, and a clear error for X or Z; wide
vectors moved as VPI words."""

from __future__ import annotations

import ctypes

import pytest

from montverif.verif.bus import vpi
from montverif.verif.bus.vpi import (
    VPI_NO_DELAY,
    MemorySignal,
    UnknownValueError,
    WideSignal,
    read_uint,
)


class _Sim:
    def __init__(self, bits: str) -> None:
        self.bits = bits

    def get_signal_val_binstr(self) -> str:
        return self.bits


class _Handle:
    def __init__(self, bits: str, path: str = "top.u_engine.tb_log_q") -> None:
        self._handle = _Sim(bits)
        self._path = path


@pytest.mark.parametrize("value, width", [(0, 1), (1, 1), (0xA5, 8), ((1 << 8448) - 3, 8448)])
def test_the_value_is_the_unsigned_binary_string(value, width):
    assert read_uint(_Handle(format(value, f"0{width}b"))) == value


@pytest.mark.parametrize("bits", ["x", "01z1", "1" * 100 + "X" + "0" * 100])
def test_x_or_z_is_a_clear_error(bits):
    with pytest.raises(UnknownValueError) as err:
        read_uint(_Handle(bits))
    message = str(err.value)
    assert message.startswith("top.u_engine.tb_log_q: not a number")
    assert f"{len(bits)} bits" in message and "(X or Z)" in message
    assert len(message) < 160  # a wide signal is shown shortened


# --- WideSignal: vectors as VPI words (aval/bval pairs), with stand-in VPI functions -------
class _FakeVpi:
    """vpi_get_value / vpi_put_value of one vector signal, as ctypes would call them."""

    def __init__(self, width: int) -> None:
        self.words = -(-width // 32)
        self.pairs = (ctypes.c_uint32 * (2 * self.words))()  # what get hands out
        self.put_pairs: list[int] = []

    def set(self, value: int, unknown_word: int | None = None) -> None:
        for k in range(self.words):
            self.pairs[2 * k] = (value >> (32 * k)) & 0xFFFFFFFF
            self.pairs[2 * k + 1] = 0xFFFFFFFF if k == unknown_word else 0

    def get(self, handle: int, ref: object) -> None:
        ref._obj.value.vector = ctypes.addressof(self.pairs)  # type: ignore[attr-defined]

    def put(self, handle: int, ref: object, time: object, flags: int) -> int:
        """vpi_put_value: returns an event handle (none with vpiNoDelay)."""
        assert flags == VPI_NO_DELAY
        addr = ref._obj.value.vector  # type: ignore[attr-defined]
        self.put_pairs = list((ctypes.c_uint32 * (2 * self.words)).from_address(addr))
        return 0


def _no_lookup(*_: object) -> int:
    """vpi_handle_by_name: never called (a WideSignal is given its handle)."""
    raise AssertionError("a WideSignal looks no handle up")


def _wide(width: int) -> tuple[WideSignal, _FakeVpi]:
    fake = _FakeVpi(width)
    return WideSignal("top.u_engine.tb_log_q", width, 1, (_no_lookup, fake.get, fake.put)), fake


@pytest.mark.parametrize("width", [40, 8448])
def test_wide_signal_reads_the_aval_words(width):
    sig, fake = _wide(width)
    value = (1 << width) - 12345
    fake.set(value)
    assert int.from_bytes(sig.read_bytes(), "little") == value
    assert sig.read_bytes(12) == (value & ((1 << 96) - 1)).to_bytes(12, "little")
    assert sig.read_bytes(5) == (value & ((1 << 40) - 1)).to_bytes(5, "little")


def test_wide_signal_x_or_z_is_a_clear_error():
    sig, fake = _wide(8448)
    fake.set(7, unknown_word=3)
    with pytest.raises(UnknownValueError, match=r"tb_log_q: not a number, 8448 bits with X"):
        sig.read_bytes()
    sig.read_bytes(12)  # the words read hold no X: only the first three
    with pytest.raises(UnknownValueError):
        sig.read_bytes(16)


def test_wide_signal_writes_words_and_keeps_the_bits_above():
    sig, fake = _wide(200)  # 7 words
    sig.write_bytes((0x1122334455667788_99AABBCC_DDEEFF00_11223344).to_bytes(20, "little"))
    assert fake.put_pairs[0::2] == [0x11223344, 0xDDEEFF00, 0x99AABBCC, 0x55667788,
                                    0x11223344, 0, 0]
    assert fake.put_pairs[1::2] == [0] * 7  # no X or Z
    sig.write_bytes(bytes([1, 0, 0, 0]))
    assert fake.put_pairs[0::2][:4] == [1, 0xDDEEFF00, 0x99AABBCC, 0x55667788]


class _Storage:
    """A stand-in for the engine main loop's mv_var_storage over one buffer."""

    def __init__(self, path: str, size: int) -> None:
        self.path, self.buf = path, (ctypes.c_ubyte * size)()
        self.calls = 0

    def __call__(self, path: bytes, size_p: ctypes._Pointer[ctypes.c_size_t]) -> int:
        self.calls += 1
        if path.decode() != self.path:
            return 0
        ctypes.cast(size_p, ctypes.POINTER(ctypes.c_size_t))[0] = len(self.buf)
        return ctypes.addressof(self.buf)


class _Sized(_Handle):
    def __init__(self, width: int, path: str) -> None:
        super().__init__("0" * width, path)
        self.width = width

    def __len__(self) -> int:
        return self.width


@pytest.fixture
def storage(monkeypatch):
    fake = _Storage("top.u_engine.tb_log_q", 4 * 33)  # a 1,042-bit vector: 33 words
    monkeypatch.setattr(vpi, "_STORAGE", [fake])
    monkeypatch.delenv("MV_VPI", raising=False)
    return fake


def test_storage_reads_and_writes_the_variable_in_place(storage):
    sig = vpi.open_storage(_Sized(1042, storage.path))
    assert isinstance(sig, MemorySignal)
    value = (1 << 1041) | 0xDEADBEEF_0123
    ctypes.memmove(storage.buf, value.to_bytes(4 * 33, "little"), 4 * 33)
    assert sig.read_uint() == value
    assert sig.read_bytes(8) == (value & (2**64 - 1)).to_bytes(8, "little")
    sig.write_bytes(bytes(range(1, 9)))  # the low 8 bytes; the bytes above keep their value
    assert sig.read_uint() == (value >> 64 << 64) | int.from_bytes(bytes(range(1, 9)), "little")


def test_storage_is_refused_where_it_does_not_fit(storage, monkeypatch):
    assert vpi.open_storage(_Sized(1042, "top.u_engine.other")) is None  # not exported
    assert vpi.open_storage(_Sized(1100, storage.path)) is None  # storage too small
    assert vpi.open_storage(_Sized(64, storage.path)) is None  # storage of another variable
    for mode in ("words", "cocotb"):  # forced off: not even looked up
        monkeypatch.setenv("MV_VPI", mode)
        before = storage.calls
        assert vpi.open_storage(_Sized(1042, storage.path)) is None
        assert storage.calls == before


def test_no_storage_outside_an_engine_build(monkeypatch):
    """This process (no simulator) exports no mv_var_storage."""
    monkeypatch.setattr(vpi, "_STORAGE", [])
    monkeypatch.delenv("MV_VPI", raising=False)
    assert vpi.open_storage(_Sized(8, "top.x")) is None
