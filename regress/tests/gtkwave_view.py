"""GTKWave for real, under a virtual X server (xvfb-run): what it shows for a save file, read
back through its Tcl interface, and a screenshot of the screen.

GTKWave runs a Tcl script of ours on a timer (`-R`, after its window is up and sized): it
writes the marker, the visible window and the traces into a file, then waits until the
screenshot is taken and quits. The screenshot is Xvfb's own framebuffer (`-fbdir`: the
screen as an XWD image, kept up to date by the server), turned into a PNG here.
"""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

SCREEN = (1600, 1000)
PERIOD_MS = 700
TIMEOUT_S = 90.0

# Tcl, run by GTKWave every PERIOD_MS: the second call reports, later ones quit once the
# screenshot is taken (the first may come before the window has its size)
PROBE = """\
if {![info exists ::mv_calls]} {set ::mv_calls 0}
incr ::mv_calls
if {$::mv_calls == 2} {
  set f [open {%(tmp)s} w]
  puts $f "marker [gtkwave::getMarker]"
  puts $f "start [gtkwave::getWindowStartTime]"
  puts $f "end [gtkwave::getWindowEndTime]"
  puts $f "dump [gtkwave::getDumpFileName]"
  set n [gtkwave::getTotalNumTraces]
  for {set i 0} {$i < $n} {incr i} { puts $f "trace [gtkwave::getTraceNameFromIndex $i]" }
  close $f
  file rename {%(tmp)s} {%(report)s}
}
if {$::mv_calls > 2 && [file exists {%(shot)s}]} { gtkwave::/File/Quit }
"""


class GtkwaveFailed(AssertionError):
    """GTKWave exited or hung before it showed the save file (its output attached)."""


@dataclass
class View:
    """What GTKWave showed: marker and visible window in dump time units, the dump it opened,
    the traces in the signals pane (group names included), in order."""

    marker: int
    start: int
    end: int
    dump: str
    traces: list[str] = field(default_factory=list)


def tools() -> tuple[str, str]:
    """(gtkwave, xvfb-run), or skip (fail under CI, where `make setup` installs them)."""
    found = [shutil.which(t) for t in ("gtkwave", "xvfb-run")]
    if found[0] and found[1]:
        return found[0], found[1]
    why = ("gtkwave or xvfb-run not installed (make setup installs them: "
           "apt-get install gtkwave xvfb)")
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def parse_report(text: str) -> View:
    values: dict[str, str] = {}
    traces = []
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "trace":
            traces.append(value)
        else:
            values[key] = value
    return View(int(values["marker"]), int(values["start"]), int(values["end"]),
                values["dump"], traces)


def xwd_rgb(data: bytes) -> np.ndarray:
    """The pixels of a 24/32-bit TrueColor XWD image (X11's XWDFileHeader, big-endian
    fields) as an H x W x 3 array of uint8."""
    head = struct.unpack(">25I", data[:100])
    size, fmt, width, height = head[0], head[2], head[4], head[5]
    byte_order, bits, line = head[7], head[11], head[12]
    masks, colors = head[14:17], head[19]
    if fmt != 2 or bits != 32:  # ZPixmap, 32 bits a pixel
        raise ValueError(f"unsupported XWD image: format {fmt}, {bits} bits per pixel")
    start = size + colors * 12  # the header (with the window name), then the colormap
    raw = np.frombuffer(data, dtype="<u4" if byte_order == 0 else ">u4",
                        count=line * height // 4, offset=start)
    pixels = raw.reshape(height, line // 4)[:, :width]
    planes = []
    for mask in masks:
        shift = (mask & -mask).bit_length() - 1
        planes.append(((pixels & mask) >> shift).astype(np.uint8))
    return np.stack(planes, axis=-1)


def open_save(save: Path, cwd: Path, screenshot: Path | None = None) -> View:
    """GTKWave started in `cwd` on the save file alone (no dump file named on its command
    line, as a user would: `gtkwave waves.gtkw`); what it shows, and the screen as a PNG at
    `screenshot`."""
    gtkwave, xvfb_run = tools()
    with tempfile.TemporaryDirectory(prefix="mv-gtkwave-") as tmp_name:
        tmp = Path(tmp_name)
        report, shot = tmp / "report.txt", tmp / "shot.done"
        script = tmp / "probe.tcl"
        script.write_text(PROBE % {"tmp": tmp / "report.tmp", "report": report, "shot": shot})
        (tmp / "fb").mkdir()
        log = tmp / "gtkwave.log"
        server = f"-screen 0 {SCREEN[0]}x{SCREEN[1]}x24 -fbdir {tmp / 'fb'}"
        with log.open("w") as out:
            proc = subprocess.Popen(
                [xvfb_run, "-a", "-s", server, gtkwave, "-R", str(script), "-P",
                 str(PERIOD_MS), str(save)], cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while not report.exists():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise GtkwaveFailed(f"GTKWave did not show {save}:\n{log.read_text()}")
                time.sleep(0.1)
            if screenshot is not None:
                image.imsave(screenshot, xwd_rgb((tmp / "fb" / "Xvfb_screen0").read_bytes()))
            shot.touch()
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:  # hung: end xvfb-run, Xvfb and GTKWave (our session)
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        return parse_report(report.read_text())
