"""regress/lists.toml: the regression lists (see the comment at its top for the schema).

A list is entries (widths x bus widths x simulators x ack waits of one design, a number of
seeds each) and, optionally, `[[<list>.mutation]]` and `[[<list>.formal]]` blocks, which
this module keeps as written for montverif.regress.mutate.campaigns and
montverif.regress.regression.formal_checks to read.

Every number of a list is within its documented bound (montverif.spec.bounds: `seeds`
1..10000, `txns` 1..10^7, `idle_max` 0..1000, `timeout` 1..604800 s ...), and every array
names each of its items once (`widths = [8, 8]`, `tests = ["RandomTest", "RandomTest"]`,
two equal parameter points): one line naming the list, the entry and the key.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from montverif.host import project, tools
from montverif.host.errors import ConfigError
from montverif.host.paths import work
from montverif.host.tomlfile import read_toml
from montverif.regress.flow.spec import (
    ALL_TESTS,
    BUS_MODES,
    DEFAULT_TIMEOUT_S,
    BuildSpec,
    has_engine,
)
from montverif.spec import designs
from montverif.spec.bounds import (
    ACK_WAIT,
    BUS_WIDTH,
    IDLE_MAX,
    SEEDS,
    TIMEOUT_S,
    TXNS,
    WIDTH,
    Bound,
)
from montverif.spec.design import Design
from montverif.spec.designs import known_designs, load_design
from montverif.verif.steer import Bias, BiasError

T = TypeVar("T")
LISTS_FILE = Path(__file__).resolve().parents[1] / "lists.toml"


class ListError(ValueError):
    """lists.toml or a list name cannot be used (one-line message)."""


@dataclass(frozen=True)
class ListEntry:
    """One block of a list: every widths x bus_widths x simulators x ack_wait combination."""

    dut: str
    widths: tuple[int, ...]
    bus_widths: tuple[int, ...]
    simulators: tuple[str, ...]
    seeds: int
    txns: int
    txns_from_n: tuple[tuple[int, int], ...] = ()  # (from N, txns), ascending N
    ack_wait: tuple[int, ...] = (0,)
    tests: tuple[str, ...] = ALL_TESTS
    idle_max: int = 2
    # parameter points beyond N (each a tuple of (name, value)); () = the design's defaults
    params: tuple[tuple[tuple[str, int], ...], ...] = ((),)
    diff_sims: bool = False  # run on both simulators, same seeds, compare transaction logs
    bias: str = ""  # coverage steering (MV_BIAS JSON, verif/steer.py) of every run; "" = none
    bus: str = "pins"  # "pins" (Python drives the bus) or "engine" (the fast bus mode)

    def txns_for(self, n: int) -> int:
        return next((t for start, t in reversed(self.txns_from_n) if n >= start), self.txns)

    def builds(self) -> list[BuildSpec]:
        return [BuildSpec(self.dut, n, bus_w, sim_, wait, params=point, bus=self.bus)
                for n in self.widths
                for point in self.params for bus_w in self.bus_widths
                for sim_ in self.simulators for wait in self.ack_wait]


@dataclass(frozen=True)
class TestList:
    name: str
    description: str
    entries: tuple[ListEntry, ...]
    timeout_s: int = DEFAULT_TIMEOUT_S
    # the [[<list>.mutation]] blocks as written (montverif.regress.mutate.campaigns parses them)
    mutation: tuple[object, ...] = ()
    # the [[<list>.formal]] blocks as written (montverif.regress.regression.formal_checks)
    formal: tuple[object, ...] = ()
    # fail when a design's merged functional coverage misses its goal (coverage.closure)
    coverage_goals: bool = False


_REQUIRED = ("dut", "widths", "bus_widths", "simulators", "seeds", "txns")


_OPTIONAL = ("txns_from_n", "ack_wait", "tests", "idle_max", "params", "diff_sims", "bias",
             "beyond_paper", "bus")


def as_ints(value: object, where: str, bound: Bound) -> tuple[int, ...]:
    """A non-empty array of integers, each within `bound` and each once."""
    if not isinstance(value, list) or not value:
        raise ListError(f"{where}: expected a non-empty list of integers {bound.text}")
    for v in value:
        as_int(v, where, bound)
    return tuple(_once(value, where))


def as_int(value: object, where: str, bound: Bound) -> int:
    """An integer within `bound` (never a bool, a float, nan or infinity)."""
    if not bound.integer or not bound.holds(value):
        raise ListError(f"{where}: {bound.message(value)}")
    assert isinstance(value, int)
    return value


def _once(values: list[T], where: str) -> list[T]:
    """The array, each item given once (`widths = [8, 8]`: which was meant?)."""
    if twice := [v for i, v in enumerate(values) if v in values[:i]]:
        raise ListError(f"{where}: {twice[0]!r} given twice: give each once")
    return values


def as_strs(value: object, where: str, known: Sequence[str]) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ListError(f"{where}: expected a non-empty list of strings")
    if unknown := [v for v in value if v not in known]:
        raise ListError(f"{where}: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    return tuple(_once(value, where))


def _txns_from_n(value: object, where: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, dict) or not all(k.isdigit() and len(k) < 10 for k in value):
        raise ListError(f"{where}: expected a table {{ <N> = <txns> }}")
    return tuple(sorted((as_int(int(k), f"{where}.{k}", WIDTH), as_int(v, f"{where}.{k}", TXNS))
                        for k, v in value.items()))


def _params(value: object, dut: str, where: str) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Parameter points { NAME = <int or a choice's name> } as the RTL takes them (a choice
    by its index), each sorted by name."""
    if not isinstance(value, list) or not value or not all(
            isinstance(p, dict) and all(isinstance(k, str) and isinstance(v, int | str)
                                        and not isinstance(v, bool) for k, v in p.items())
            for p in value):
        raise ListError(f"{where}: expected a non-empty list of tables {{ NAME = <value> }}")
    design = load_design(dut)
    try:
        return tuple(_once([tuple(sorted(design.normalize(p))) for p in value], where))
    except ConfigError as exc:
        raise ListError(f"{where}: {exc}") from None


def _paper_bounds(dut: str, raw: dict, where: str) -> None:
    """A parameter point beyond the hardware the design's paper assumes (its descriptor's
    paper_max) only where the entry says `beyond_paper = true` (reports flag such runs)."""
    allowed = as_bool(raw.get("beyond_paper", False), f"{where}.beyond_paper")
    design = load_design(dut)
    points = _params(raw.get("params", [{}]), dut, f"{where}.params")
    beyond = [b for p in points for b in design.beyond_paper(design.resolve(dict(p)))]
    if beyond and not allowed:
        raise ListError(f"{where}.params: {'; '.join(dict.fromkeys(beyond))}: beyond the "
                        "hardware the paper assumes; `beyond_paper = true` on the entry runs it")
    if allowed and not beyond:
        raise ListError(f"{where}.beyond_paper: no parameter point of the entry is beyond "
                        "the paper's hardware")


def _bias(value: object, where: str) -> str:
    """A list entry's steering table (verif/steer.py) as the MV_BIAS JSON; "" = none."""
    if value is None:
        return ""
    if not isinstance(value, dict):
        raise ListError(f"{where}: expected a table {{ targets = [...], p = .. }}")
    text = json.dumps(value, sort_keys=True)
    try:
        Bias.parse(text)
    except BiasError as exc:
        raise ListError(f"{where}: {exc}") from None
    return text


def as_duts(value: object, where: str, blocks: Sequence[str] = ()) -> tuple[str, ...]:
    """The designs (or `blocks`) a list names (a name or a list of names); a design whose
    descriptor is broken is left out, as the commands that read lists warn
    (montverif.spec.designs.broken)."""
    names = as_strs(value if isinstance(value, list) else [value], where,
                    [*blocks, *known_designs(), *designs.broken_names()])
    return tuple(n for n in names if n in blocks or not designs.broken_design(n))


def _entries(raw: object, where: str) -> list[ListEntry]:
    """An entry whose `dut` is a list stands for one entry per design, in that order (a
    design whose descriptor is broken left out)."""
    if isinstance(raw, dict) and "dut" in raw:
        duts = as_duts(raw["dut"], f"{where}.dut")
        return [_entry(raw | {"dut": dut}, where) for dut in duts]
    return [_entry(raw, where)]


def _entry(raw: object, where: str) -> ListEntry:
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    if missing := [k for k in _REQUIRED if k not in raw]:
        raise ListError(f"{where}: missing {', '.join(missing)}")
    if unknown := [k for k in raw if k not in _REQUIRED + _OPTIONAL]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                        f"(known: {', '.join(_REQUIRED + _OPTIONAL)})")
    dut = as_strs([raw["dut"]], f"{where}.dut", known_designs())[0]
    _paper_bounds(dut, raw, where)
    return ListEntry(
        dut=dut,
        widths=as_ints(raw["widths"], f"{where}.widths", WIDTH),
        bus_widths=as_ints(raw["bus_widths"], f"{where}.bus_widths", BUS_WIDTH),
        simulators=as_strs(raw["simulators"], f"{where}.simulators", tools.SIMULATORS),
        seeds=as_int(raw["seeds"], f"{where}.seeds", SEEDS),
        txns=as_int(raw["txns"], f"{where}.txns", TXNS),
        txns_from_n=_txns_from_n(raw.get("txns_from_n", {}), f"{where}.txns_from_n"),
        ack_wait=as_ints(raw.get("ack_wait", [0]), f"{where}.ack_wait", ACK_WAIT),
        tests=as_strs(raw.get("tests", list(ALL_TESTS)), f"{where}.tests", ALL_TESTS),
        idle_max=as_int(raw.get("idle_max", 2), f"{where}.idle_max", IDLE_MAX),
        params=_params(raw.get("params", [{}]), dut, f"{where}.params"),
        diff_sims=as_bool(raw.get("diff_sims", False), f"{where}.diff_sims"),
        bias=_bias(raw.get("bias"), f"{where}.bias"),
        bus=_bus(raw.get("bus", "pins"), dut, f"{where}.bus"),
    )


def _bus(value: object, dut: str, where: str) -> str:
    """The entry's bus mode: one of BUS_MODES, the fast mode only where the design's
    testbench has it."""
    if value not in BUS_MODES:
        raise ListError(f"{where}: expected one of {', '.join(BUS_MODES)}, got {value!r}")
    if value == "engine" and not has_engine(dut):
        raise ListError(f"{where}: {dut}'s testbench has no fast bus mode")
    return str(value)


def as_bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ListError(f"{where}: expected true or false")
    return value


def _test_list(name: str, raw: object, where: str) -> TestList:
    if not isinstance(raw, dict):
        raise ListError(f"{where}: expected a table")
    known = ("description", "timeout", "entry", "designs", "coverage_goals", "mutation",
             "formal")
    if unknown := [k for k in raw if k not in known]:
        raise ListError(f"{where}: unknown key(s) {', '.join(unknown)} "
                        f"(known: {', '.join(known)})")
    entries = raw.get("entry", [])
    from_designs = as_bool(raw.get("designs", False), f"{where}.designs")
    if not isinstance(entries, list):
        raise ListError(f"{where}: [[{name}.entry]] must be tables")
    expanded = [entry for i, e in enumerate(entries)
                for entry in _entries(e, f"{where}.entry[{i}]")]
    if from_designs:  # every design's own entries of this list, design by design
        for design in (d.name for d in designs.in_scope()):
            expanded += [_entry(dict(e) | {"dut": design},
                                f"{load_design(design).descriptor.name}: lists.{name}[{i}]")
                         for i, e in enumerate(load_design(design).lists.get(name, ()))]
    mutation = raw.get("mutation", [])
    if not isinstance(mutation, list):
        raise ListError(f"{where}.mutation: expected [[...mutation]] blocks")
    formal = raw.get("formal", [])
    if not isinstance(formal, list):
        raise ListError(f"{where}.formal: expected [[...formal]] blocks")
    if not (entries or expanded or mutation or formal):
        raise ListError(f"{where}: no [[{name}.entry]]")
    return TestList(name, str(raw.get("description", "")), tuple(expanded),
                    as_int(raw.get("timeout", DEFAULT_TIMEOUT_S), f"{where}.timeout", TIMEOUT_S),
                    tuple(mutation), tuple(formal),
                    as_bool(raw.get("coverage_goals", False), f"{where}.coverage_goals"))


def check_descriptor_entries(design: Design) -> None:
    """A descriptor's own entries ([[lists.<list>]]) read as a list reads them: a malformed
    one breaks its design only (montverif.spec.designs.add_check), not every list."""
    for name, entries in design.lists.items():
        for i, raw in enumerate(entries):
            try:
                _entry(dict(raw) | {"dut": design.name}, f"lists.{name}[{i}]")
            except ListError as exc:
                raise ConfigError(str(exc)) from None


designs.add_check(check_descriptor_entries)


def default_file() -> Path:
    """The lists a command reads when none is named: montverif's own (regress/lists.toml);
    in a user's project (montverif.host.project) its `lists` file, else lists written into
    its work folder from its descriptors: one list per name its `[[lists.<name>]]` entries
    use, each holding those entries (`designs = true`)."""
    mine = project.current()
    if mine is None:
        return LISTS_FILE
    if mine.lists is not None:
        return mine.lists
    names = sorted({name for d in designs.in_scope() for name in d.lists})
    text = "".join(f'[{name}]\ndescription = "the entries of the project\'s descriptors"\n'
                   "designs = true\n\n" for name in names)
    target = work("lists.toml")
    if not target.is_file() or target.read_text() != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, target)
    return target


def load_lists(path: Path | None = None) -> dict[str, TestList]:
    """Every list of a lists file; raises ListError with a one-line message."""
    path = path or default_file()
    raw = read_toml(path, str(path), ListError)
    return {name: _test_list(name, body, f"{path.name}: {name}") for name, body in raw.items()}


def get_list(name: str, path: Path | None = None) -> TestList:
    lists = load_lists(path)
    if name not in lists:
        raise ListError(f"unknown list '{name}' (known: {', '.join(sorted(lists))})")
    return lists[name]
