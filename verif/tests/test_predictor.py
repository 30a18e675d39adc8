"""The loader predictor on hand-made transfer streams: timing of BUSY/DONE/CYCLES, error
codes, and that a wrong read is reported as a mismatch."""

from __future__ import annotations

from collections.abc import Callable

from montverif.models.mont import mont_lut, mont_lut_u2
from montverif.models.registry import ModelFunc
from montverif.spec import regmap
from montverif.spec.designs import load_design
from montverif.verif.bus.item import Burst, Transfer
from montverif.verif.env.predictor import LoaderPredictor, Mismatch

PERIOD = 10
N, BUS_W = 16, 8


class Stream:
    def __init__(self, design: str = "mont_lut", model: ModelFunc = mont_lut) -> None:
        self.rm = regmap.load()
        self.pred = LoaderPredictor(self.rm, load_design(design), N, BUS_W, model, PERIOD)

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
    s = Stream("mont_lut_u2", mont_lut_u2)  # Y below M (mont_lut takes any N-bit Y)
    s.load(0, 1, 2, 40000)
    s.write(20, "CTRL", 1)
    assert s.status(21)["ERR"] == s.rm.errors["ERR_EVEN_MODULUS"] and not s.status(21)["BUSY"]
    s.write(22, "M", 0x41, 0)
    s.write(24, "M", 0x9C, 1)  # M = 0x9C41 = 40001, odd; X=1, Y=2
    s.write(26, "Y", 0xFF, 1)  # Y = 0xFF02 >= M: outside mont_lut_u2's domain (Y below M)
    s.write(28, "CTRL", 1)
    assert s.status(29)["ERR"] == s.rm.errors["ERR_RANGE"]
    s.write(30, "Y", 0, 1)
    s.write(31, "X", 0xFF, 1)  # X = 0xFF01 >= M: in its domain (X is only scanned)
    s.write(32, "CTRL", 1)
    assert s.status(33) == {"BUSY": 1, "DONE": 0, "ERR": 0}
    s.write(34, "Y", 7)  # while busy: ignored
    assert s.status(35) == {"BUSY": 1, "DONE": 0, "ERR": s.rm.errors["ERR_BUSY"]}
    assert s.expect(35, "Y") == 2 and s.expect(35, "X", 1) == 0xFF
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


def _burst_script(seed: int) -> list[Burst]:
    """Random bursts at N = 16, BusW = 8 (two words a register): loads, STARTs, reads of
    every register before, during and across the end of an operation, some words wrong."""
    import random

    from montverif.verif.bus.item import Burst

    rng, rm = random.Random(seed), regmap.load()
    edge, out = 1, []
    for _ in range(60):
        region = rng.choice(["X", "Y", "M", "P", "S", "C", "CTRL", "STATUS", "CYCLES", "INFO"])
        count = 2 if region in ("X", "Y", "M", "P", "S", "C") and rng.random() < 0.8 else 1
        index = 0 if count == 2 else rng.randrange(2)
        times = [(edge + k * rng.choice([1, 3])) * PERIOD + 5 for k in range(count)]
        edge = times[-1] // PERIOD + rng.choice([1, 2, 9])
        addr = rm.addr(region, index) if region in rm.regions else 0
        if region in ("X", "Y", "M") and rng.random() < 0.5 or region == "CTRL":
            word = [1] if region == "CTRL" else [rng.randrange(256) | (k == 0 and region == "M")
                                                 for k in range(count)]
            out.append(Burst(True, addr, word, [], times))
        else:
            out.append(Burst(False, addr, [], [rng.randrange(256) for _ in range(count)], times))
    return out


def test_bursts_give_the_word_by_word_verdicts():
    """observe_burst (a register slice at a time where the loader's state cannot change)
    reports exactly the mismatches and ends in exactly the state of observe word by word."""
    sliced = 0
    for seed in range(40):
        a, b = Stream(), Stream()
        for s in (a, b):
            s.load(0, 1234, 4321, 40001)
        fast = a.pred._burst_slice

        def counted(burst: Burst, fast: Callable[[Burst], list[Mismatch] | None] = fast
                    ) -> list[Mismatch] | None:
            nonlocal sliced
            verdict = fast(burst)
            sliced += verdict is not None and burst.count > 1
            return verdict

        vars(a.pred)["_burst_slice"] = counted  # the instance's method, patched
        for burst in _burst_script(seed):
            whole = [str(m) for m in a.pred.observe_burst(burst)]
            words = [str(m) for t in burst.transfers() if (m := b.pred.observe(t))]
            assert whole == words, (seed, str(burst))
            # the read data the operation recorded, the state, the operations
            assert a.pred.operands == b.pred.operands and a.pred.err == b.pred.err
            assert [(o.index, o.error, o.read_words) for o in a.pred.ops] == \
                   [(o.index, o.error, o.read_words) for o in b.pred.ops]
    assert sliced > 100  # the slice path itself was tested, not only the fallback


def test_a_wrong_word_in_a_burst_is_a_mismatch():
    from montverif.verif.bus.item import Burst

    s = Stream()
    s.load(0, 3, 5, 40001)
    good = s.pred.observe_burst(Burst(False, s.rm.addr("M"), [], [0x41, 0x9C], [305, 315]))
    bad = s.pred.observe_burst(Burst(False, s.rm.addr("M"), [], [0x41, 0x9D], [325, 335]))
    assert good == [] and len(bad) == 1
    assert bad[0].expected == 0x9C and bad[0].actual == 0x9D and "read M[1]" in str(bad[0])
