"""The fast mode's done capture (verif/bus/engine.py, EngineBusDriver._report_done): each rise
of done the engine counted is reported once, with the rising edge's time; two rises between
two reads (two operations ended in one script) are refused with a clear error."""

from __future__ import annotations

import pytest

from montverif.spec.sections import Observe
from montverif.verif.bus.engine import EngineBusDriver
from montverif.verif.bus.engine_layout import DONE_VARS, EngineError, observed

PERIOD = 10


class _Sim:
    def __init__(self, value: int, width: int) -> None:
        self.value, self.width = value, width

    def get_signal_val_binstr(self) -> str:
        return format(self.value, f"0{self.width}b")


class _Signal:
    def __init__(self, width: int) -> None:
        self._handle = _Sim(0, width)


OBS_W = 129


def _driver(slots: int = 1) -> tuple[EngineBusDriver, dict[str, _Signal], list[tuple[int, int]]]:
    drv = EngineBusDriver.__new__(EngineBusDriver)  # only what _report_done uses
    signals = {name: _Signal(w) for name, w in zip(DONE_VARS, (32, 64 * slots, OBS_W * slots),
                                                    strict=True)}
    drv.done_rises, drv.done_time, drv.done_obs = (signals[v] for v in DONE_VARS)
    drv.read_rises, drv.read_times, drv.read_obs = (EngineBusDriver._reader(signals[v])
                                                    for v in DONE_VARS)
    drv.period_ns, drv.rises_seen, drv.slots, drv.obs_w = PERIOD, 0, slots, OBS_W
    seen: list[tuple[int, int]] = []
    drv.on_done = lambda t, obs: seen.append((t, obs))
    return drv, signals, seen


def _capture(signals: dict[str, _Signal], rises: int, time_ns: int, obs: int) -> None:
    for name, value in zip(DONE_VARS, (rises, time_ns, obs), strict=True):
        signals[name]._handle.value = value


def test_each_rise_is_reported_once_at_the_rising_edge():
    drv, signals, seen = _driver()
    drv._report_done()
    assert seen == []  # no rise yet
    _capture(signals, 1, 345, 0x1_0000_0003)  # seen at the falling edge at 345 ns
    drv._report_done()
    drv._report_done()  # the next script: nothing new
    assert seen == [(345 - PERIOD // 2, 0x1_0000_0003)]
    _capture(signals, 2, 905, 7)
    drv._report_done()
    assert seen[1:] == [(905 - PERIOD // 2, 7)]


def test_two_rises_between_reads_are_refused():
    drv, signals, seen = _driver()
    _capture(signals, 2, 905, 7)
    with pytest.raises(EngineError, match="done rose 2 times .* keeps 1: at most 1 oper"):
        drv._report_done()
    assert seen == []


def _slots(values: list[int], width: int) -> int:
    return sum(v << (width * k) for k, v in enumerate(values))


def test_each_rise_of_a_script_comes_from_its_slot_in_order():
    """Four slots (a script of four operations): rise r sits in slot (r - 1) % 4; the rises
    since the last read are reported oldest first, across the wrap of the slots."""
    drv, signals, seen = _driver(4)
    hits = [(1 << 128) | 11, 22, (1 << OBS_W) - 1, 44]
    _capture(signals, 3, _slots([105, 205, 305, 0], 64), _slots(hits[:3] + [0], OBS_W))
    drv._report_done()
    assert seen == [(t - PERIOD // 2, h) for t, h in zip((105, 205, 305), hits[:3],
                                                         strict=True)]
    # rises 4, 5 and 6: slot 3, then slots 0 and 1 again (slot 2 keeps rise 3)
    _capture(signals, 6, _slots([505, 605, 305, 405], 64), _slots([55, 66, hits[2], 44], OBS_W))
    drv._report_done()
    assert seen[3:] == [(400, 44), (500, 55), (600, 66)]
    _capture(signals, 11, 0, 0)
    with pytest.raises(EngineError, match="done rose 5 times .* keeps 4: at most 4 oper"):
        drv._report_done()


def test_the_captured_signals_are_packed_hits_first():
    obs = Observe.of({"lut_hits": "u_core.u_observe.lut_hits_q", "lut_bins": 4,
                      "hit_width": 32, "sub_taken": "u_core.u_observe.sub_taken_q",
                      "illegal_bins": []})
    assert observed(obs) == [("lut_hits", "u_core.u_observe.lut_hits_q", 128),
                             ("sub_taken", "u_core.u_observe.sub_taken_q", 1)]
    assert observed(Observe(sub_taken="u.s")) == [("sub_taken", "u.s", 1)]
    assert observed(Observe()) == []
