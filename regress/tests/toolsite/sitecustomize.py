"""Loaded by every Python process the test suite starts (its folder is first on
PYTHONPATH, toolguard.py): the marker guard's audit hook, when the suite set its log."""

import os

if os.environ.get("MONTVERIF_TOOL_LOG"):  # toolhook.LOG
    try:
        from montverif.regress.tests import toolhook
    except ImportError:  # another environment (a fresh venv of the wheel test): no guard
        pass
    else:
        toolhook.install(os.environ["MONTVERIF_TOOL_LOG"])
