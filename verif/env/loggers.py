"""One handler per component logger, however many tests a simulation runs.

pyuvm names a component's logger `uvm.<full name><id(component)>` and never removes it. When a
test ends, its components are freed; a component of the next test built at the address of one
of them (CPython reuses freed memory, so this happens whenever the allocations line up) gets
the old logger with the old component's stream handler still on it, adds its own, and writes
every line twice. Seen in a CI run: the RSA scoreboard's `multiplier products checked` line
twice in the last test of an engine run's sim.log, so that the count of lines disagreed with
pin mode's.

`release_stale_loggers(test)`, called first in the build phase of every test (verif/tb_mult.py,
verif/tb_rsa.py), before the test builds its components, takes the handlers off every
component logger but the test's own (whose handlers other than its own streaming handler are
stale too).
"""

from __future__ import annotations

import logging

from pyuvm import uvm_component

COMPONENT_LOGGERS = "uvm."  # pyuvm's component loggers are the children of logger "uvm"


def release_stale_loggers(test: uvm_component) -> None:
    """Remove the handlers of the component loggers that no live component of `test` owns."""
    own = test.logger
    keep = getattr(test, "_streaming_handler", None)  # pyuvm's handler of the test itself
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if not name.startswith(COMPONENT_LOGGERS) or not isinstance(logger, logging.Logger):
            continue
        for handler in list(logger.handlers):
            if logger is not own or handler is not keep:
                logger.removeHandler(handler)
