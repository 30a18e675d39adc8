"""verif/bus/vpi.py: a signal's value as an unsigned int, and a clear error for X or Z."""

from __future__ import annotations

import pytest

from verif.bus.vpi import UnknownValueError, read_uint


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
