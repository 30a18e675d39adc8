"""docs/environment.md lists exactly the MV_ environment variables the code reads; the Python
reads them only through montverif.host.environment."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from montverif.host import environment
from montverif.host.paths import ROOT

DOC = ROOT / "docs" / "environment.md"
MODULE = Path(environment.__file__).resolve()
# a read of an MV_ variable around the module: os.environ.get("MV_..."), os.environ["MV_..."],
# os.getenv("MV_...") (setting one, `env["MV_X"] = ...`, is no read)
DIRECT_READ = re.compile(r"""(?:environ\.get\(|getenv\(|environ\[)\s*["'](MV_\w+)["']"""
                         r"""\s*[,)\]](?!\s*=[^=])""")
CPP_READ = re.compile(r"""std::getenv\("(MV_\w+)"\)""")


def _sources(suffix: str) -> list[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    folders = config["tool"]["setuptools"]["package-dir"].values()
    return sorted(p for folder in folders for p in (ROOT / folder).rglob(f"*{suffix}"))


def _documented() -> set[str]:
    """The first column of every table row of docs/environment.md that names an MV_ one."""
    return set(re.findall(r"^\| `(MV_\w+)` \|", DOC.read_text(), re.M))


def _read_by_python() -> set[str]:
    return {name for name in environment.variables() if name.startswith("MV_")}


def _read_by_cpp() -> set[str]:
    return {name for path in _sources(".cpp") for name in CPP_READ.findall(path.read_text())}


def test_the_doc_lists_every_variable_read_and_no_other() -> None:
    read = _read_by_python() | _read_by_cpp()
    documented = _documented()
    assert read - documented == set(), "read but not in docs/environment.md"
    assert documented - read == set(), "in docs/environment.md but read by nobody"


def test_the_engine_reads_what_the_module_says() -> None:
    assert _read_by_cpp() == set(environment.ENGINE_READS)


def test_python_reads_mv_variables_only_through_the_environment_module() -> None:
    around = [f"{path.relative_to(ROOT)}: {name}" for path in _sources(".py")
              if path.resolve() != MODULE and not path.name.startswith("test_")
              for name in DIRECT_READ.findall(path.read_text())]
    assert around == []


def test_every_variable_of_the_module_is_read_somewhere() -> None:
    """Each Var is used outside the module (the C++ reads count for the engine's)."""
    text = "\n".join(p.read_text() for p in _sources(".py") if p.resolve() != MODULE)
    attrs = {name: var for name, var in vars(environment).items()
             if isinstance(var, environment.Var)}
    unused = [var.name for attr, var in attrs.items()
              if not re.search(rf"\b(?:environment|env)\.{attr}\b", text)
              and var.name not in environment.ENGINE_READS]
    assert unused == []


def test_the_direct_read_pattern_finds_reads_and_not_writes() -> None:
    assert DIRECT_READ.findall('x = os.environ.get("MV_A", "1")') == ["MV_A"]
    assert DIRECT_READ.findall('x = os.environ["MV_B"]') == ["MV_B"]
    assert DIRECT_READ.findall('os.getenv("MV_C")') == ["MV_C"]
    assert DIRECT_READ.findall('os.environ["MV_D"] = "1"') == []
