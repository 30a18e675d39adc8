"""The fast forms (montverif.host.paths.FAST_FORMS): mont_dual_mul describes its function a
second time for Icarus. The flow defines the macro for a plain Icarus build only, so that a
mutant's build, Verilator, synthesis and formal see the tree; and SymbiYosys proves the two
forms equal (`montverif formal --block mont_dual_mul`), and catches either form broken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from montverif.host.paths import FAST_FORMS, ROOT
from montverif.regress.cli import formal as formal_cli
from montverif.regress.flow import build
from montverif.regress.flow.spec import BuildSpec
from montverif.regress.tests.testshard import standins

MUL = ROOT / "hdl" / "dual" / "mont_dual_mul.sv"
CSA = ROOT / "hdl" / "dual" / "mont_dual_csa.sv"


def test_only_a_plain_icarus_build_simulates_the_fast_forms(tmp_path: Path) -> None:
    assert build.fast_forms(BuildSpec("mont_dual", 80, 32, "icarus")) == {FAST_FORMS: 1}
    assert build.fast_forms(BuildSpec("mont_dual", 80, 32, "verilator")) == {}
    # a mutant's build (an overlay) simulates the tree that mutation mutates
    assert build.fast_forms(BuildSpec("mont_dual", 80, 32, "icarus",
                                      overlay=str(tmp_path))) == {}
    assert f"`ifdef {FAST_FORMS}" in MUL.read_text()


def _overlay(folder: Path, source: Path, old: str, new: str) -> Path:
    """A folder whose copy of `source` has `old` (found once) replaced by `new`."""
    folder.mkdir(parents=True, exist_ok=True)
    text = source.read_text()
    assert text.count(old) == 1, old
    (folder / source.name).write_text(text.replace(old, new))
    return folder


def _formal(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
            ) -> tuple[int, str, dict[str, object]]:
    out = tmp_path / "proof"
    code = formal_cli.main(["--block", "mont_dual_mul", "--params", "W=4", "--timeout", "300",
                            "--out", str(out), *extra])
    line = capsys.readouterr().out.strip()
    record = json.loads((out / "formal.json").read_text()) if code in (0, 1) else {}
    return code, line, record


@pytest.mark.formal
def test_the_forms_are_proved_equal_for_every_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, line, record = _formal(tmp_path, capsys)
    assert code == 0 and line.startswith("PROVED mont_dual_mul W=4"), line
    assert record["status"] == "proved" and record["depth"] == 1
    assert record["covers_total"] == record["covers_reached"] == 2
    sby = (tmp_path / "proof" / "formal.sby").read_text()
    assert f"-D{FAST_FORMS} mont_dual_mul.sv" in sby and "mode prove" in sby


# each form broken in turn: the fast form adding C in GF(p) as XOR, the tree's carry-save
# rows keeping their carries in GF(2^n)
BROKEN = {
    "fast-form": (MUL, "acc = SW'(a) * SW'(b) + c + SW'(d);",
                  "acc = SW'(a) * SW'(b) ^ c + SW'(d);"),
    "tree": (CSA, "{maj & {CarryW{gfp_i}}, 1'b0}", "{maj, 1'b0}"),
}


@pytest.mark.formal
@pytest.mark.parametrize("which", standins(sorted(BROKEN), ("tree",), seconds=6))
def test_either_form_broken_fails_with_a_counterexample(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    source, old, new = BROKEN[which]
    over = _overlay(tmp_path / "over", source, old, new)
    code, line, record = _formal(tmp_path, capsys, "--overlay", str(over))
    assert code == 1 and line.startswith("FAILED mont_dual_mul W=4"), line
    assert record["status"] == "failed" and "FormsEqual_A" in str(record["failed_assertion"])


@pytest.mark.parametrize("params, message", [
    ("W=1", "W=1: mont_dual_mul's harness takes 2 <= W <= 64"),
    ("N=8", "mont_dual_mul has no parameter 'N'"),
])
def test_bad_parameters_are_one_error_line(
        params: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert formal_cli.main(["--block", "mont_dual_mul", "--params", params]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err, err
