"""A component built at the address of a freed one of an earlier test logs each line once
(verif/env/loggers.py)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from pyuvm import uvm_component, uvm_root

from montverif.verif.env.loggers import release_stale_loggers

TESTS = 200  # tests in one simulation; far more than it takes CPython to reuse an address


def _run_tests(release: bool) -> tuple[int, int]:
    """TESTS tests as pyuvm runs them (the tree cleared, a test built, then its scoreboard),
    each logging one line from its scoreboard: (how many scoreboards were built at an address
    an earlier one had, how many of them had more than one handler)."""
    root = uvm_root()
    seen: set[int] = set()
    reused = doubled = 0
    for i in range(TESTS):
        root.clear_children()
        test = uvm_component("uvm_test_top", root)
        if release:
            release_stale_loggers(test)
        board = uvm_component("scoreboard", test)
        if id(board) in seen:
            reused += 1
            doubled += len(board.logger.handlers) > 1
        seen.add(id(board))
        board.logger.info(f"scoreboard line {i}")
    root.clear_children()
    return reused, doubled


def test_without_the_release_a_reused_address_doubles_the_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The failure the release prevents happens here (else the next test proves nothing)."""
    reused, doubled = _run_tests(release=False)
    lines = capsys.readouterr().out.count("scoreboard line")
    assert reused > 0 and doubled > 0
    assert lines > TESTS


def test_a_reused_address_logs_each_line_once(capsys: pytest.CaptureFixture[str]) -> None:
    reused, doubled = _run_tests(release=True)
    out = capsys.readouterr().out
    assert reused > 0 and doubled == 0
    lines = Counter(int(i) for i in re.findall(r"scoreboard line (\d+)\D", out))
    assert lines == Counter(range(TESTS))
