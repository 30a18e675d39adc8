"""Files read back against their shapes (montverif.host.readback): each way a file can be
wrong is one CorruptFile naming it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from montverif.host import readback

SHAPE = {"name": str, "n": int, "seconds?": float, "runs": [{"key": str}],
         "extra?": {str: int}, "maybe": (str, type(None))}
GOOD = '{"name": "a", "n": 3, "seconds": 2, "runs": [{"key": "k"}], "extra": {"x": 1}, ' \
       '"maybe": null, "more": "allowed"}'


def test_a_record_of_the_shape_is_read() -> None:
    readback.check({"name": "a", "n": 1, "runs": [], "maybe": "x"}, SHAPE)


@pytest.mark.parametrize(("text", "words"), [
    ('{"name": "a", "n": true, "runs": [], "maybe": null}', "n: expected an integer"),
    ('{"name": "a", "n": 1, "runs": [{"key": 5}], "maybe": null}', "runs[0].key"),
    ('{"name": "a", "n": 1, "runs": [], "maybe": null, "extra": {"x": "y"}}', "extra.x"),
    ('{"name": "a", "n": 1, "runs": []}', "no 'maybe'"),
    ('{"name": "a", "n": 1, "seconds": "2", "runs": [], "maybe": null}', "seconds"),
    ("[1, 2]", "expected a table"),
    ('{"name": ', "not JSON"),
    ("", "empty (cut short?)"),
    ('{"n": ' + "9" * 5000 + "}", "not JSON"),
])
def test_every_way_a_record_can_be_wrong_is_one_line_naming_it(
        tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "record.json"
    path.write_text(text)
    with pytest.raises(readback.CorruptFile) as exc:
        readback.read_json(path, SHAPE)
    assert str(exc.value).startswith(f"{path}: ") and words in str(exc.value)
    assert "\n" not in str(exc.value)
    path.write_text(GOOD)
    assert readback.read_json(path, SHAPE)["name"] == "a"


def test_bytes_that_are_not_utf8_and_files_that_are_not_regular_are_refused(
        tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(readback.CorruptFile, match="not UTF-8 text"):
        readback.read_json(path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(readback.CorruptFile, match="not a regular file"):
        readback.read_json(fifo)  # never blocks waiting for a writer


def test_json_lines_and_xml_name_the_line_and_the_file(tmp_path: Path) -> None:
    lines = tmp_path / "txns.jsonl"
    lines.write_text('{"key": "a"}\n\n{"key": 3}\n')
    with pytest.raises(readback.CorruptFile, match="line 3"):
        readback.read_jsonl(lines, {"key": str})
    xml = tmp_path / "results.xml"
    xml.write_text("<testsuites><testsuite>")
    with pytest.raises(readback.CorruptFile, match="results.xml: not XML"):
        readback.read_xml(xml)
    xml.write_text("<testsuites/>")
    assert readback.read_xml(xml).tag == "testsuites"
