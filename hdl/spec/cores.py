"""Each design's RTL for reuse outside the project, derived from its descriptor alone and
written by `montverif generate`, every path relative to the file so that the checkout can
move. Nothing of it is written by hand, nor beside a hand-written file:

- `hdl/cores/<design>.f`: a filelist: the include directories (`+incdir+`), then every
  source in the order the project's builds compile them (the register-map package first,
  the bus loader, the RTL of the designs it uses, the shared pieces, its own RTL), the
  generated top last. `verilator -F hdl/cores/<design>.f` reads it relative to itself.
- `hdl/cores/<design>_top.sv`: the generated top (the core behind the bus loader) that each
  build writes into build/gen/, checked in here so that the filelist and the FuseSoC core
  are whole without a build.
- `hdl/<design>.core`: a FuseSoC CAPI2 core, `montverif:mult:<design>:<version>` (the
  version of pyproject.toml). It lies in hdl/, above every file it names: FuseSoC copies a
  core's files below its own folder and refuses (deprecated, an error to come) a file
  outside it, such as hdl/common/ seen from hdl/cores/. Its toplevel is the core module
  itself (targets `default` and `lint`): what a design reusing the RTL instantiates. Its
  `sim` target (Icarus) elaborates the generated top, the core behind the project's bus
  loader and register map.

`montverif files --dut D` prints a filelist, computed here (not read from the file)."""

from __future__ import annotations

import json
import os
from importlib.metadata import version as package_version
from pathlib import Path

from montverif.host.errors import ConfigError
from montverif.host.paths import CHECKOUT, HDL, INCLUDE_DIRS, ROOT, include_files, shown
from montverif.host.tomlfile import read_toml
from montverif.spec import top
from montverif.spec.design import Design

CORES = HDL / "cores"
PYPROJECT = ROOT / "pyproject.toml"
VENDOR = "montverif"
LIBRARY = "mult"
MARK = "by `montverif generate`"  # in the first lines of every file written here
FORMATS = ("f", "list")  # montverif files --format
LINT_OPTIONS = ("-Wall",)  # as `montverif lint` lints every design
THIRD_PARTY_OPTIONS = ("-Wall", "-Wno-fatal")  # a foreign core's own warnings are waived
ICARUS_OPTIONS = ("-g2012",)


def version() -> str:
    """The project's version (pyproject.toml [project] version; an installed package's
    metadata, which holds the same): the cores' VLNV version."""
    if CHECKOUT is None:
        return package_version("montverif")
    project = read_toml(PYPROJECT, shown(PYPROJECT)).get("project", {})
    found = project.get("version") if isinstance(project, dict) else None
    if not isinstance(found, str) or not found:
        raise ConfigError(f"{shown(PYPROJECT)}: [project] version: no version string")
    return found


def vlnv(design: Design, ver: str) -> str:
    return f"{VENDOR}:{LIBRARY}:{design.name}:{ver}"


def core_path(design: Design) -> Path:
    return HDL / f"{design.name}.core"


def filelist_path(design: Design) -> Path:
    return CORES / f"{design.name}.f"


def top_path(design: Design) -> Path:
    """The checked-in copy of the design's generated top."""
    return CORES / f"{design.toplevel}.sv"


def sources(design: Design) -> list[Path]:
    """Every source of the design in the order its builds compile them (montverif.spec.top
    sources), its top being the checked-in copy."""
    return [*design.rtl_sources, top_path(design)]


def relative(path: Path, base: Path = CORES) -> str:
    """A path as a file of folder `base` names it: relative to it."""
    return Path(os.path.relpath(path, base)).as_posix()


def emit_top(design: Design) -> str:
    return (f"// Written into {shown(CORES)}/ {MARK} (each build writes the same text into "
            f"build/gen/).\n{top.emit(design)}")


def emit_filelist(design: Design) -> str:
    lines = [f"// GENERATED from {shown(design.descriptor)} {MARK}: do not edit.",
             f"// {design.name}'s sources in compile order, relative to this file "
             f"(verilator -F {shown(filelist_path(design))}).",
             *(f"+incdir+{relative(d)}" for d in INCLUDE_DIRS),
             *(relative(s) for s in sources(design))]
    return "\n".join(lines) + "\n"


def listing(design: Design, fmt: str) -> str:
    """The design's filelist: `f`, the text of hdl/cores/<design>.f; `list`, the sources
    alone, one absolute path a line, in compile order."""
    if fmt == "f":
        return emit_filelist(design)
    if fmt == "list":
        return "".join(f"{s}\n" for s in sources(design))
    raise ConfigError(f"unknown filelist format {fmt!r} (formats: {', '.join(FORMATS)})")


def _q(text: str) -> str:
    """A YAML scalar: a JSON string is a double-quoted YAML one."""
    return json.dumps(text, ensure_ascii=False)


def _param_doc(design: Design, name: str) -> str:
    if name == "N":
        return f"operand width in bits ({design.min_n}..{design.max_n})"
    p = design.parameters[name]
    choices = "; ".join(f"{i} = {c}" for i, c in enumerate(p.choices))
    return "; ".join(filter(None, [p.doc, choices]))


def _defaults(design: Design) -> dict[str, int]:
    """N (the top's default) and the descriptor's parameters at their defaults, as the RTL
    takes them."""
    return {"N": top.default_n(design)} | {
        name: p.value(p.default) for name, p in design.parameters.items()}


def lint_parameters(design: Design) -> list[str]:
    """The defaults the core module itself has a parameter for (a foreign core: none)."""
    if design.foreign is not None:
        return []
    own = top.core_header(design).params
    return [name for name in _defaults(design) if name in own]


def sim_parameters(design: Design) -> list[str]:
    """The defaults the generated top has a parameter for."""
    declared = {name for _, name, _ in top.parameters(design)}
    return [name for name in _defaults(design) if name in declared]


def _parameters(design: Design, names: list[str]) -> list[str]:
    defaults = _defaults(design)
    lines = ["parameters:"]
    for name in names:
        lines += [f"  {name}:", "    datatype: int", f"    default: {defaults[name]}",
                  f"    description: {_q(_param_doc(design, name))}",
                  "    paramtype: vlogparam"]
    return lines


def _fileset(name: str, files: list[Path], include: bool = False) -> list[str]:
    attrs = ": {is_include_file: true}" if include else ""
    return [f"  {name}:", "    files:",
            *(f"      - {_q(relative(f, HDL))}{attrs}" for f in files),
            "    file_type: systemVerilogSource"]


def _target(name: str, body: dict[str, str | list[str]]) -> list[str]:
    lines = [f"  {name}:"]
    for key, value in body.items():
        shown_value = f"[{', '.join(value)}]" if isinstance(value, list) else value
        lines.append(f"    {key}: {shown_value}")
    return lines


def emit_core(design: Design, ver: str) -> str:
    """The design's FuseSoC CAPI2 core."""
    incs = include_files()
    base = ["includes", "rtl"] if incs else ["rtl"]
    lint_params, sim_params = lint_parameters(design), sim_parameters(design)
    third_party = design.foreign is not None and design.foreign.third_party
    options = THIRD_PARTY_OPTIONS if third_party else LINT_OPTIONS
    description = (f"{design.name}, {design.paper}: {design.algorithm}. Toplevel: the "
                   f"core module {design.core_module} (targets default, lint); target sim "
                   f"elaborates {design.toplevel}, the core behind the montverif bus loader "
                   f"({relative(top_path(design), HDL)}, generated).")
    lines = ["CAPI=2:",
             f"# GENERATED from {shown(design.descriptor)} {MARK}: do not edit (change the",
             "# descriptor and regenerate). Paths are relative to this file.",
             f"name: {_q(vlnv(design, ver))}", f"description: {_q(description)}", "",
             "filesets:",
             *(_fileset("includes", incs, include=True) if incs else []),
             *_fileset("rtl", list(design.rtl_sources)),
             *_fileset("top", [top_path(design)]), ""]
    if names := list(dict.fromkeys(lint_params + sim_params)):
        lines += [*_parameters(design, names), ""]
    lines += ["targets:",
              *_target("default", {"filesets": base, "toplevel": design.core_module}),
              *_target("lint", {"default_tool": "verilator", "filesets": base,
                                **({"parameters": lint_params} if lint_params else {}),
                                "toplevel": design.core_module}),
              "    tools:", "      verilator:", "        mode: lint-only",
              f"        verilator_options: [{', '.join(options)}]",
              *_target("sim", {"default_tool": "icarus", "filesets": [*base, "top"],
                               **({"parameters": sim_params} if sim_params else {}),
                               "toplevel": design.toplevel}),
              "    tools:", "      icarus:",
              f"        iverilog_options: [{', '.join(ICARUS_OPTIONS)}]"]
    return "\n".join(lines) + "\n"


def targets(found: list[Design]) -> dict[Path, str]:
    """Every file of hdl/cores/ and the text it must have."""
    ver = version()
    out: dict[Path, str] = {}
    for d in found:
        out[core_path(d)] = emit_core(d, ver)
        out[filelist_path(d)] = emit_filelist(d)
        out[top_path(d)] = emit_top(d)
    return out


def generated() -> list[Path]:
    """The files written here by `montverif generate` (hdl/*.core, hdl/cores/*.f and *.sv,
    its mark in their first three lines); a file written by hand is never one."""
    found = sorted(HDL.glob("*.core")) + sorted(p for s in (".f", ".sv")
                                                for p in CORES.glob(f"*{s}"))
    out = []
    for path in found:
        if path.is_file():
            with path.open(errors="replace") as f:
                head = [f.readline() for _ in range(3)]
            if any(MARK in line for line in head):
                out.append(path)
    return out


def orphans(expected: dict[Path, str]) -> list[Path]:
    """The generated files no design has any more (one renamed or removed)."""
    return [p for p in generated() if p not in expected]
