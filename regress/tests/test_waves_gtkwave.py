"""waves.gtkw read back by its consumer: GTKWave itself (under Xvfb) opens a failing
`montverif sim --waves` run's save file from another folder, with its marker at the run's
first mismatch, that moment in view and every grouped signal in its group; a screenshot of
it is kept (and checked to show something). The old hand-written file (`[markertime]`, a
directive GTKWave does not know) and a file without `[savefile]` fail the same checks."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import pywellen
from matplotlib import image

from montverif.regress.cli import sim
from montverif.regress.flow import debug
from montverif.regress.flow.spec import UNIT_NS
from montverif.regress.tests import gtkwave_view

_ERROR_AT = re.compile(r"^\s*([\d.]+)\s*(ps|ns|us)\s+ERROR\b", re.MULTILINE)


def first_error_ns(log: Path) -> float:
    """The time of sim.log's first ERROR line, in ns."""
    found = _ERROR_AT.search(log.read_text())
    assert found, f"no ERROR line in {log}"
    return float(found[1]) * UNIT_NS[found[2]]


def units_per_ns(waves: Path) -> float:
    """Time units of the dump a nanosecond (its timescale, read with pywellen)."""
    scale = pywellen.Waveform(str(waves)).timescale
    return 1.0 / ((scale.factor or 1) * UNIT_NS[str(scale).lstrip("0123456789")])


def expected_traces(waves: Path) -> list[str]:
    """What GTKWave's signals pane should list: each non-empty group's name, its signals as
    GTKWave names them (the leaf, vectors with their range), the group's end."""
    variables = {v.full_name: int(v.bitwidth or 1)
                 for v in pywellen.Waveform(str(waves)).all_vars()}
    traces = []
    for name, paths in debug.group_signals(list(variables)).items():
        if paths:
            leafs = [p.rsplit(".", 1)[-1] + (f"[{variables[p] - 1}:0]" if variables[p] > 1
                                             else "") for p in paths]
            traces += [name, *leafs, name]
    return traces


def non_blank(png: Path) -> tuple[int, float]:
    """(distinct colours, share of pixels unlike the commonest colour) of a PNG."""
    rgb = (image.imread(png)[:, :, :3] * 255).astype(np.uint8).reshape(-1, 3)
    colours, counts = np.unique(rgb, axis=0, return_counts=True)
    return len(colours), 1.0 - counts.max() / counts.sum()


@pytest.mark.sim
def test_gtkwave_opens_a_failing_run_at_its_first_mismatch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gtkwave_view.tools()
    run = tmp_path / "run"
    code = sim.main(["--dut", "mont_lut", "--n", "32", "--fault", "--waves", "--txns", "10",
                     "--tests", "RandomTest", "--out", str(run)])
    out = capsys.readouterr().out
    assert code == 1, out
    save, waves = run / "waves.gtkw", run / "waves.fst"
    assert f"gtkw: {save}" in out and f"picture: {run / 'mismatch.png'}" in out
    assert save.is_file() and (run / "mismatch.png").is_file()
    per_ns = units_per_ns(waves)
    want = round(first_error_ns(run / "sim.log") * per_ns)

    # started elsewhere (not in the run folder), on the save file alone
    shot = tmp_path / "gtkwave.png"
    view = gtkwave_view.open_save(save, cwd=tmp_path, screenshot=shot)
    assert Path(view.dump).resolve() == waves.resolve()
    assert view.marker == want
    assert view.start < want < view.end, (view.start, want, view.end)
    # the picture's window: WINDOW_NS before the mismatch and some after it, not 0-2 ps
    assert view.end - want >= debug.WINDOW_NS / 8 * per_ns
    assert view.traces == expected_traces(waves)
    colours, busy = non_blank(shot)
    assert colours >= 16 and busy > 0.2, (colours, busy)

    # the same file moved with its folder opens as well
    moved = tmp_path / "moved" / "run"
    moved.parent.mkdir()
    run.rename(moved)
    again = gtkwave_view.open_save(moved / "waves.gtkw", cwd=tmp_path)
    assert Path(again.dump).resolve() == (moved / "waves.fst").resolve()
    assert again.marker == want


@pytest.mark.nightly(seconds=10)
@pytest.mark.sim
def test_gtkwave_readback_catches_broken_save_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The checks above fail on what was written before: the old file opens with no marker
    at 0 ps; without `[savefile]` GTKWave started elsewhere cannot find the dump."""
    gtkwave_view.tools()
    run = tmp_path / "run"
    assert sim.main(["--dut", "mont_lut", "--n", "32", "--fault", "--waves", "--txns", "10",
                     "--tests", "RandomTest", "--out", str(run)]) == 1
    capsys.readouterr()
    want = round(first_error_ns(run / "sim.log") * units_per_ns(run / "waves.fst"))
    text = (run / "waves.gtkw").read_text()

    # the old writer's lines: [dumpfile], [timestart] 0 and [markertime] (ps)
    old = run / "old.gtkw"
    body = text[text.index("@"):]
    old.write_text(f'[dumpfile] "waves.fst"\n[timestart] 0\n[markertime] {want}\n{body}')
    view = gtkwave_view.open_save(old, cwd=run)
    assert view.marker != want and not view.start <= want <= view.end

    no_save = run / "nosave.gtkw"
    no_save.write_text("".join(ln for ln in text.splitlines(keepends=True)
                               if not ln.startswith("[savefile]")))
    with pytest.raises(gtkwave_view.GtkwaveFailed, match="Could not initialize"):
        gtkwave_view.open_save(no_save, cwd=tmp_path)
