"""The operand domains and promises of the descriptors against the models: every operation of
a small width in each multiplier's domain is accepted and keeps the promise, every one
outside is refused; a descriptor that claims more than its model does fails here."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from montverif.host.paths import ROOT
from montverif.models import gf2, ref
from montverif.models.registry import ALGOS, check_domain, get_algo, info_of, promise_broken
from montverif.models.result import ModelInputError
from montverif.models.survey import survey
from montverif.spec.design import parse
from montverif.spec.designs import load_design

N = 4  # every operation at N = 4: 8 moduli, 16 values of X, ~1,000 operations a design
# parameters legal at N = 4 where the defaults are not
SMALL = {"mwr2mm": {"W": 2}, "mwrkmm": {"V": 2, "W": 1}, "mont_qp": {"V": 1, "W": 2, "P": 1}}
EXHAUSTIVE = sorted(name for name, info in ALGOS.items() if info.design.min_n <= 8
                    and name != "mont_dual")


@pytest.mark.parametrize("name", EXHAUSTIVE)
def test_every_operation_of_the_domain_keeps_the_promise(name: str) -> None:
    info = get_algo(name)
    result = survey(info, N, info.resolve(N, SMALL.get(name, {})))
    assert result.ok, result.line()
    if info.design.domain.get("Y") == "below_2n":  # Amanor's three: any N-bit Y, none refused
        assert result.inside > 500 and result.refused == 0, result.line()
        assert result.beyond_m.get("Y", 0) > 100, result.line()
    else:
        assert result.inside > 500 and result.refused > 0  # Y >= M (Y + Y2 >= 2M) refused
    # X is only scanned: every design takes X >= M (a carry-save X: any pair)
    assert result.beyond_m.get("X", 0) > 100, result.line()


def _copy(tmp_path: Path, name: str, edit: tuple[str, str]) -> Path:
    """The design's descriptor with one edit, beside its RTL (parse() checks the files)."""
    d = load_design(name)
    folder = tmp_path / d.family
    folder.mkdir()
    for src in d.rtl:
        (folder / src.name).write_text(src.read_text())
    text = d.descriptor.read_text()
    assert edit[0] in text
    path = folder / d.descriptor.name
    path.write_text(text.replace(*edit))
    return path


@pytest.mark.parametrize(("design", "edit", "needle"), [
    # Y >= M: the model refuses what the descriptor claims (Y enters every iteration, and
    # the unfolded core keeps S + C below 2M)
    ("mont_lut_u2", ('Y = "below_m"', 'Y = "below_2n"'), "refused in the domain (Y must be < M"),
    # a bound the algorithm does not keep (S + C reaches past M)
    ("mont_lut_u2", ('v = "v * 2**r < x * y + m * 2**r"', 'v = "v < m"'),
     "breaks its promise v < m"),
    # a Y at or above M leaves P below max(Y, M), not always below M
    ("mont_lut", ('p = "p < max(y, m)"', 'p = "p < m"'), "breaks its promise p < m"),
])
def test_a_descriptor_claiming_more_than_its_model_fails(tmp_path: Path, design: str, edit,
                                                         needle) -> None:
    info = info_of(parse(_copy(tmp_path, design, edit)))
    result = survey(info, N, {})
    assert not result.ok and any(needle in f for f in result.failures), result.line()


def test_a_domain_below_m_refuses_x_at_or_above_m(tmp_path: Path) -> None:
    """The loader's rule, in the models: an X below M by the descriptor is refused from M up
    (the RSA core's message, and mont_lut held to X < M by its descriptor alone)."""
    rsa = get_algo("rsa_core")
    with pytest.raises(ModelInputError, match=r"^X must be < M \(X=0xfb, M=0xfb\)$"):
        rsa.model(rsa.resolve(8))(0xFB, 3, 0xFB, 8)
    narrow = info_of(parse(_copy(tmp_path, "mont_lut", ('X = "below_2n"', 'X = "below_m"'))))
    result = survey(narrow, N, {})
    assert result.ok and "X" not in result.beyond_m, result.line()
    with pytest.raises(ModelInputError, match="^X must be < M"):
        narrow.model({})(7, 1, 7, 4)
    assert get_algo("mont_lut").model({})(7, 1, 7, 4).p == ref.mont_product(7, 1, 7, 4)


@pytest.mark.parametrize("name", sorted(n for n in ALGOS if n != "mont_dual") + ["rsa_core"])
def test_the_loaders_range_rule_is_the_models_domain(name: str) -> None:
    """Design.out_of_range (the predictor's ERR_RANGE) refuses exactly what check_domain
    refuses, at and around every bound, for odd moduli: the predictor's model skips the
    domain check (model(domain=False)) because its caller has refused these already."""
    design = get_algo(name).design
    ops, rng, n = design.operands, random.Random(name), 64
    for _ in range(400):
        m = rng.getrandbits(rng.randint(2, n)) | 1
        near = (0, 1, m - 1, m, m + 1, 2 * m - 1, 2 * m, rng.randrange(2 * m + 2))
        values = {r: m if r == design.modulus else rng.choice(near) for r in ops}
        try:
            check_domain(design, (*values.values(), n))
            refused = False
        except ModelInputError:
            refused = True
        assert refused == design.out_of_range(values), (name, values)


def test_the_predictors_model_keeps_the_promise_without_the_domain() -> None:
    """model(domain=False) leaves the domain to its caller but still holds the model to the
    design's promise."""
    broken = info_of(parse(_copy(Path(tempfile.mkdtemp()), "mont_lut",
                                 ('v = "v * 2**r < x * y + m * 2**r"', 'v = "v < m"'))))
    func = broken.model({}, domain=False)
    assert func(1, 1, 7, 4).p == ref.mont_product(1, 1, 7, 4)  # v = S + C below M here
    with pytest.raises(AssertionError, match="breaks its promise v < m"):
        for x in range(16):
            func(x, 6, 7, 4)


@pytest.mark.parametrize("field", [0, 1])
def test_mont_dual_takes_any_x_in_both_fields(field: int) -> None:
    """mont_dual's smallest width is 80 (no exhaustive run): random X >= M in either field
    against the reference, the promise kept."""
    info, n = get_algo("mont_dual"), 80
    func = info.model({})
    rng = random.Random(field)
    for _ in range(40):
        m = rng.getrandbits(rng.choice((n, rng.randint(8, n)))) | 1
        x, y = rng.randrange(m, 1 << n), rng.randrange(m)
        res = func(x, y, m, n, field=field)  # the registry entry checks the promise
        r = info.field1_r_bits(n) if field else info.r_bits(n)
        want = gf2.mont_product(x, y, m, r) if field else ref.mont_product(x, y, m, r)
        assert res.p == want and not promise_broken(info, res.p, res.before_sub,
                                                    (x, y, m, n), field)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "montverif.regress.cli", "models", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def test_the_cli_checks_a_domain_and_runs_x_beyond_m() -> None:
    cp = _cli("domain", "mont_csa", "--n", "3")
    assert cp.returncode == 0 and cp.stdout.startswith("OK mont_csa n=3: "), cp.stdout
    assert "X >= M in " in cp.stdout
    cp = _cli("run", "mont_lut", "--n", "8", "--x", "0xFF", "--y", "0x10", "--m", "0xFB")
    assert cp.returncode == 0, cp.stderr
    assert f'"p": "{ref.mont_product(0xFF, 0x10, 0xFB, 8)}"' in cp.stdout
    for args in (("domain", "mont_csa", "--n", "11"), ("domain", "rsa_core", "--n", "4"),
                 ("domain", "mont_csa", "--n", "x")):
        cp = _cli(*args)
        assert cp.returncode == 2 and cp.stdout == "", args
        assert len(cp.stderr.splitlines()) == 1 and cp.stderr.startswith("error: "), args
