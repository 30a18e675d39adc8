"""A design's directed vectors (verif/directed/<design>.json, docs/mutation.md): the corner
test replays every vector whose `params` the build matches and leaves the others out, with
the scoreboard checking each; VectorTest replays a whole file. The filter itself, the
alignment of fields with the vectors it keeps, and bad `params` in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montverif.regress.flow.simulate import execute
from montverif.regress.flow.spec import BuildSpec, RunSpec
from montverif.verif.vectors import VectorError, load_vectors, vector_fields

KEPT = (0x1234, 0x2D, 0xFFF1)
LEFT_OUT = (0x4321, 0x17, 0xFFD9)  # only for P = 2


def test_params_keep_the_vectors_of_the_build_and_their_fields(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"vectors": [
        {"x": 1, "y": 2, "m": 3, "field": 1, "params": {"K": 2}},
        {"x": 1, "y": 1, "m": 5, "field": 0},
        {"x": 2, "y": 1, "m": 7, "field": 1, "params": {"K": 16}}]}))
    build = {"K": 16, "Units": 4}
    assert load_vectors(path, 8, has_field=True, params=build) == [(1, 1, 5), (2, 1, 7)]
    assert vector_fields(path, build) == [0, 1]
    assert load_vectors(path, 8, has_field=True) == [(1, 2, 3), (1, 1, 5), (2, 1, 7)]
    path.write_text(json.dumps({"vectors": [{"x": 1, "y": 2, "m": 3, "params": ["P", 2]}]}))
    with pytest.raises(VectorError, match=r"vectors\[0\]\.params: expected") as info:
        load_vectors(path, 8, params=build)
    assert "\n" not in str(info.value)


@pytest.mark.sim
def test_the_corner_test_replays_the_directed_vectors_of_its_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "directed"
    folder.mkdir()
    vectors = [dict(zip("xym", map(hex, KEPT), strict=True)),
               dict(zip("xym", map(hex, LEFT_OUT), strict=True)) | {"params": {"P": 2}}]
    (folder / "mwr2mm.json").write_text(json.dumps({"vectors": vectors}))
    monkeypatch.setenv("MV_DIRECTED", str(folder))
    run = RunSpec(BuildSpec("mwr2mm", 16, 32, "verilator", params=(("W", 4), ("P", 1))),
                  seed=2, txns=1, tests=("CornerTest",), timeout_s=300)
    outcome = execute(run, tmp_path / "run")
    assert outcome.passed, outcome.first_error
    txns = [json.loads(ln) for ln in (outcome.log_dir / "txns.jsonl").read_text().splitlines()]
    ops = {(int(t["x"], 16), int(t["y"], 16), int(t["m"], 16)) for t in txns}
    assert KEPT in ops and LEFT_OUT not in ops
