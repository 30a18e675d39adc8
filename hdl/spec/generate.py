"""The files derived from the register map and the descriptors, committed and kept fresh:
hdl/common/mv_regmap_pkg.sv (the RTL package: regions, fields, error codes, design ids),
docs/generated/regmap.md, the design table of README.md (between its `designs` markers) and,
for every design, its FuseSoC core hdl/<design>.core, its filelist and top in hdl/cores/
(montverif.spec.cores). `montverif generate` writes them (and removes the generated files no
design has any more); `montverif generate --check` (in `montverif lint`) fails when one is
stale."""

from __future__ import annotations

import ast
from pathlib import Path

from montverif.host import pages, templates
from montverif.host.errors import ConfigError
from montverif.host.paths import CHECKOUT, COMMON, ROOT, writable
from montverif.spec import cores, designs
from montverif.spec.design import Design
from montverif.spec.regmap import RegMap
from montverif.spec.regmap import load as load_regmap
from montverif.spec.svnames import camel

_TEMPLATES = Path(__file__).resolve().parent / "templates"
SV_PATH = COMMON / "mv_regmap_pkg.sv"
MD_PATH = ROOT / "docs" / "generated" / "regmap.md"
README = ROOT / "README.md"
PATHS = (SV_PATH, MD_PATH, README)  # the derived files but cores, filelists, tops
BEGIN, END = "<!-- designs:begin (montverif generate) -->", "<!-- designs:end -->"


def emit_sv(rm: RegMap, found: list[Design]) -> str:
    """The RTL package (templates/mv_regmap_pkg.sv.j2)."""
    return templates.render(
        _TEMPLATES, "mv_regmap_pkg.sv.j2", version=rm.version, region_width=rm.region_width,
        index_width=rm.index_width, addr_width=rm.addr_width, counter_width=rm.counter_width,
        err_width=rm.fields["STATUS"]["ERR"].width,
        regions=[(camel(r.name), r.code) for r in rm.regions.values()],
        fields=[(camel(reg) + camel(f.name), f.lsb, f.width)
                for reg, fs in rm.fields.items() for f in fs.values()],
        errors=[(camel(name), code) for name, code in rm.errors.items()],
        designs=[(camel(d.name), d.id) for d in sorted(found, key=lambda d: d.id)])


def emit_md(rm: RegMap, found: list[Design]) -> str:
    out = [
        pages.header("montverif generate"),
        "",
        "# Register map",
        "",
        "Derived from `hdl/common/regmap.json` and the design descriptors.",
        "",
        f"Version {rm.version}. Address = `{{region[{rm.region_width - 1}:0], "
        f"index[{rm.index_width - 1}:0]}}` ({rm.addr_width} bits); the index selects a bus word, "
        "little-endian (word 0 holds the least significant bits). Bus widths: "
        + ", ".join(str(w) for w in rm.bus_widths) + ".",
        "",
        "| region | code | access | size | description |",
        "|---|---|---|---|---|",
    ]
    for r in rm.regions.values():
        out.append(f"| {r.name} | {r.code} | {r.access} | {rm.sizes[r.size]} | {r.doc} |")
    out += ["", "## Fields", "", "| register | field | bits |", "|---|---|---|"]
    for reg, fs in rm.fields.items():
        for f in fs.values():
            bits = str(f.lsb) if f.width == 1 else f"{f.lsb + f.width - 1}:{f.lsb}"
            out.append(f"| {reg} | {f.name} | {bits} |")
    out += ["", "## Error codes (STATUS.ERR)", "", "| code | name | meaning |", "|---|---|---|"]
    for name, code in rm.errors.items():
        out.append(f"| {code} | {name} | {rm.error_docs[name]} |")
    out += ["", "## Designs (INFO[23:16])", "",
            "| id | design | family | registers START reads | precomputed | S, C |",
            "|---|---|---|---|---|---|"]
    for d in sorted(found, key=lambda d: d.id):
        red = "-" if d.redundant_extra_bits is None else f"N + {d.redundant_extra_bits} bits"
        out.append(f"| {d.id} | {d.name} | {d.family} | {', '.join(d.operands)} | "
                   f"{', '.join(d.precomputed) or '-'} | {red} |")
    return "\n".join(out) + "\n"


# --- the README's design table ---------------------------------------------------------------
_SYM = {ast.Add: " + ", ast.Sub: " - ", ast.Mult: "·", ast.Div: "/", ast.FloorDiv: " div ",
        ast.Mod: " mod ", ast.Pow: "^"}
_PREC = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2,
         ast.Pow: 3}
_REL = {ast.Eq: " = ", ast.NotEq: " ≠ ", ast.Lt: " < ", ast.LtE: " ≤ ", ast.Gt: " > ",
        ast.GtE: " ≥ "}


def math_text(expr: str) -> str:
    """A descriptor expression as the README writes it: N, ⌈x⌉, ⌊x⌋, ·, [a = b] (1 or 0)."""

    def show(node: ast.AST, outer: int = 0, right: bool = False) -> str:
        if isinstance(node, ast.Expression):
            return show(node.body)
        if isinstance(node, ast.Name):
            return "N" if node.id == "n" else node.id
        if isinstance(node, ast.Constant):
            return str(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = [show(a) for a in node.args]
            if node.func.id == "ceil":
                return f"⌈{args[0]}⌉"
            if node.func.id == "floor":
                return f"⌊{args[0]}⌋"
            return f"{node.func.id}({', '.join(args)})"
        if isinstance(node, ast.BinOp) and type(node.op) in _PREC:
            prec = _PREC[type(node.op)]
            text = (show(node.left, prec) + _SYM[type(node.op)]
                    + show(node.right, prec, right=True))
            loose = prec < outer or (right and prec == outer)
            return f"({text})" if loose else text
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"-{show(node.operand, 3)}"
        if isinstance(node, ast.Compare) and type(node.ops[0]) in _REL:
            rel = _REL[type(node.ops[0])]
            return f"[{show(node.left)}{rel}{show(node.comparators[0])}]"
        raise ConfigError(f"cannot show {expr!r}")

    return show(ast.parse(expr, mode="eval"))


def computes(d: Design) -> str:
    if d.kind == "modexp":
        return "X^E mod M"
    if d.kind == "inter":
        return "X·Y mod M"
    ops = d.operands[:-1]
    x, y = ("(X+X2)", "(Y+Y2)") if d.carry_save_operands else ops
    r = math_text(d.r_bits)
    text = f"{x}·{y}·2^-{r if r.isalnum() else '(' + r + ')'} mod M"
    if d.field1 is not None:
        r1 = math_text(d.field1.r_bits)
        text = f"GF(p): {text}; GF(2^n): X(x)·Y(x)·x^-({r1}) mod M(x)"
    return text


def cycles_text(d: Design) -> str:
    if not d.cycles:
        return d.cycles_note or "-"
    text = math_text(d.cycles)
    return f"GF(p) {text}; GF(2^n) {math_text(d.cycles_field1)}" if d.cycles_field1 else text


def design_table(found: list[Design]) -> str:
    rows = ["| design | paper, algorithm | computes | cycles | widths | notes |",
            "|---|---|---|---|---|---|"]
    for d in sorted(found, key=lambda d: d.id):
        params = ", ".join(d.parameters)
        algo = d.algorithm + (f" (parameters {params})" if params else "")
        notes = Path(d.notes).stem if d.notes else ""
        link = f"[{notes}]({d.notes})" if d.notes else ""
        rows.append(f"| `{d.name}` | {d.paper}: {algo} | {computes(d)} | {cycles_text(d)} | "
                    f"{d.min_n}..{d.max_n} | {link} |")
    return "\n".join(rows)


def with_table(readme: str, table: str) -> str:
    if BEGIN not in readme or END not in readme:
        raise ConfigError(f"README.md lacks the {BEGIN} / {END} markers")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def targets() -> dict[Path, str]:
    """Every derived file and the text it must have."""
    rm = load_regmap()
    # montverif's own designs: a user project's are derived into its work folder instead
    found = [d for d in designs.complete() if not d.from_project]
    out = {SV_PATH: emit_sv(rm, found)}
    if CHECKOUT:  # the project's docs: a checkout's (an installed package has none)
        out[MD_PATH] = emit_md(rm, found)
    if CHECKOUT and README.exists():
        out[README] = with_table(README.read_text(), design_table(found))
    return out | cores.targets(found)


def stale() -> list[Path]:
    """The derived files missing or not as generated, and the generated files (cores,
    filelists, tops) that no design has any more."""
    expected = targets()
    return [p for p, text in expected.items()
            if not p.exists() or p.read_text() != text] + cores.orphans(expected)


def write() -> list[Path]:
    """Write the stale files, remove the orphaned ones; the paths written or removed."""
    expected = targets()
    written = []
    for path, text in expected.items():
        if not path.exists() or path.read_text() != text:
            writable(path).parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
    for path in cores.orphans(expected):
        writable(path).unlink()
        written.append(path)
    return written


def snapshot() -> dict[Path, bytes]:
    """The derived files as they are now (every generated core, filelist and top among
    them), for restore()."""
    return {p: p.read_bytes() for p in (*PATHS, *cores.generated()) if p.is_file()}


def restore(before: dict[Path, bytes]) -> None:
    """The derived files as snapshot() found them: those changed written back, the cores,
    filelists and tops generated since removed."""
    for path in cores.generated():
        if path not in before:
            path.unlink()
    for path, data in before.items():
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
