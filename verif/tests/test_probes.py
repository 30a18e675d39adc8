"""The measurement probes (verif/env/probes.py), attached from outside the checkers: the
scoreboard's steady rate (throughput.json) and the engine's simulator share (engine.json),
in the form regress/bench/points.py reads them; without probes nothing is written."""

from __future__ import annotations

import json
import time
from pathlib import Path

from montverif.regress.bench import points as bench_points
from montverif.verif.bus.item import Burst
from montverif.verif.env.probes import ENGINE_JSON, THROUGHPUT_JSON, EngineProbe, ThroughputProbe
from montverif.verif.env.scoreboard import Scoreboard
from montverif.verif.tests.test_scoreboard import _make, _op_bursts


def _two_publications(sb: Scoreboard) -> None:
    """Four operations in two publications of two, 50 ms apart."""
    sb.defer_done = True
    base = 0
    for pause in (0.0, 0.05):
        time.sleep(pause)
        script: list[Burst] = []
        for _ in range(2):  # two operations a publication
            bursts, obs = _op_bursts(sb, base)
            sb.on_done(obs)
            script += bursts
            base += 200
        sb.on_bus(script)


def test_the_steady_window_starts_after_the_first_publication(tmp_path: Path) -> None:
    """Fast mode publishes a script's operations together: the steady rate counts the
    checks after the first publication that completed any, over the time from its end."""
    sb = _make(tmp_path)
    sb.probes.append(ThroughputProbe(tmp_path / THROUGHPUT_JSON))
    _two_publications(sb)
    assert sb.errors == [] and sb.checked == 4
    sb.check_phase()
    rec = json.loads((tmp_path / THROUGHPUT_JSON).read_text())
    assert (rec["checked"], rec["steady_checks"]) == (4, 2)
    assert 0.05 <= rec["span_s"] < 1.0
    assert rec["check_thread"] is False
    rate, fixed = bench_points.steady_rate(tmp_path, 4, 1.0)
    assert rate > 0 and fixed >= 0


def test_without_a_probe_the_scoreboard_writes_no_measurement(tmp_path: Path) -> None:
    sb = _make(tmp_path)
    _two_publications(sb)
    sb.check_phase()
    assert sb.checked == 4
    assert not (tmp_path / THROUGHPUT_JSON).exists()


def test_the_engine_probe_times_each_script(tmp_path: Path) -> None:
    probe = EngineProbe(tmp_path / ENGINE_JSON)
    for _ in range(3):
        probe.script_go()
        time.sleep(0.01)
        probe.script_done()
    probe.write("memory")
    rec = json.loads((tmp_path / ENGINE_JSON).read_text())
    assert rec["scripts"] == 3 and rec["vpi"] == "memory"
    assert 0.03 <= rec["sim_s"] < 1.0
    assert bench_points.engine_sim_seconds(tmp_path) == rec["sim_s"]
