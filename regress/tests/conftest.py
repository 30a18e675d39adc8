"""pytest set-up of the regression runner tests: the markers of the testbench tests."""

from verif.tests.conftest import pytest_configure  # noqa: F401 - pytest hook, re-exported
