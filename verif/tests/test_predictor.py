"""The loader predictor on hand-made transfer streams: timing of BUSY/DONE/CYCLES, error
codes, and that a wrong read is reported as a mismatch."""

from __future__ import annotations

from models.mont import mont_lut
from verif import regmap
from verif.bus.item import Transfer
from verif.env.predictor import LoaderPredictor

PERIOD = 10
N, BUS_W = 16, 8


class Stream:
    def __init__(self) -> None:
        self.rm = regmap.load()
        self.pred = LoaderPredictor(self.rm, self.rm.designs["mont_lut"], N, BUS_W, mont_lut,
                                    PERIOD)

    def write(self, edge: int, region: str, data: int, index: int = 0) -> None:
        assert self.pred.observe(Transfer(True, self.rm.addr(region, index), data, 0,
                                          edge * PERIOD + 5)) is None

    def expect(self, edge: int, region: str, index: int = 0) -> int:
        return self.pred.expected_read(region, index,
                                       edge)

    def status(self, edge: int) -> dict[str, int]:
        word = self.expect(edge, "STATUS")
        return {k: f.get(word) for k, f in self.rm.fields["STATUS"].items()}

    def load(self, edge: int, x: int, y: int, m: int) -> None:
        for k, (region, value) in enumerate((("X", x), ("Y", y), ("M", m))):
            for i, word in enumerate(regmap.split(value, N, BUS_W)):
                self.write(edge + 2 * (2 * k + i), region, word, i)


def test_busy_done_and_cycle_counter_timing():
    s = Stream()
    s.load(0, 1234, 4321, 40001)
    s.write(20, "CTRL", 1)  # START on edge 20
    cycles = N + 2
    assert s.status(21) == {"BUSY": 1, "DONE": 0, "ERR": 0}
    assert s.expect(25, "CYCLES") == 4  # counted edges 21..24
    assert s.status(20 + cycles) == {"BUSY": 1, "DONE": 0, "ERR": 0}  # FIN cycle
    assert s.status(21 + cycles) == {"BUSY": 0, "DONE": 1, "ERR": 0}
    assert s.expect(30 + cycles, "CYCLES") == cycles
    assert s.expect(22, "P") == 0  # results read zero while busy
    p = mont_lut(1234, 4321, 40001, N).p
    assert s.expect(21 + cycles, "P", 0) | s.expect(21 + cycles, "P", 1) << 8 == p


def test_errors_and_clear():
    s = Stream()
    s.load(0, 1, 2, 40000)
    s.write(20, "CTRL", 1)
    assert s.status(21)["ERR"] == s.rm.errors["ERR_EVEN_MODULUS"] and not s.status(21)["BUSY"]
    s.write(22, "M", 0x41, 0)
    s.write(24, "M", 0x9C, 1)  # M = 0x9C41 = 40001, odd; X=1, Y=2
    s.write(26, "X", 0xFF, 1)  # X = 0xFF01 >= M
    s.write(28, "CTRL", 1)
    assert s.status(29)["ERR"] == s.rm.errors["ERR_RANGE"]
    s.write(30, "X", 0, 1)
    s.write(32, "CTRL", 1)
    s.write(34, "Y", 7)  # while busy: ignored
    assert s.status(35) == {"BUSY": 1, "DONE": 0, "ERR": s.rm.errors["ERR_BUSY"]}
    assert s.expect(35, "Y") == 2
    s.write(60, "P", 1)  # read-only region
    assert s.status(61)["ERR"] == s.rm.errors["ERR_UNMAPPED"]
    s.write(62, "CTRL", 2)  # CLEAR
    assert s.status(63) == {"BUSY": 0, "DONE": 0, "ERR": 0}
    assert s.expect(63, "X") == 0 and s.expect(63, "P") == 0


def test_wrong_read_is_a_mismatch():
    s = Stream()
    s.load(0, 3, 5, 40001)
    bad = s.pred.observe(Transfer(False, s.rm.addr("Y"), 0, 6, 30 * PERIOD + 5))
    assert bad is not None and bad.expected == 5 and bad.actual == 6
    assert "read Y[0]" in str(bad)
