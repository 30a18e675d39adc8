"""Shared pytest set-up for the testbench tests."""


def pytest_configure(config):  # noqa: ANN001, ANN201 - pytest hook
    config.addinivalue_line("markers", "sim: runs a simulator (Verilator or Icarus)")
