"""Register-level predictor of the bus loader: what every read must return.

It mirrors hdl/common/mv_bus_loader.sv from the transfers the monitor saw, each at the clock
edge that performed it. An accepted START runs the design's bit-accurate model at once, so
the predictor knows the edge at which the operation ends (start edge + model cycles) and hence
BUSY, DONE, the cycle counter and the result registers at any later edge. Reads are predicted
from the state before their edge, as the RTL registers them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from montverif.host.secrets import HIDDEN, Secrets
from montverif.models.result import Result
from montverif.spec import regmap
from montverif.spec.design import Design
from montverif.verif.bus.item import Burst, Transfer

Model = Callable[..., Result]  # (operands..., n) -> Result
_RESULTS = frozenset({"P", "S", "C"})  # result registers: 0 while busy
ACROSS = "<across registers>"  # region_of: words that span registers


@dataclass
class Operation:
    """One START as the predictor accepted or rejected it."""

    index: int
    operands: dict[str, int]  # register name -> value (the design's operand list)
    start_edge: int
    error: str  # "ERR_NONE" when the operation ran
    result: Result | None = None
    # result register -> its words as read back (None: not read yet); mapped words only
    read_words: dict[str, list[int | None]] = field(default_factory=dict)
    # result register -> the model's value as bus words (split when first read)
    result_words: dict[str, list[int]] = field(default_factory=dict)
    # CTRL.FIELD of the START (designs with a binary-field mode); after the fields whose
    # default uses dataclasses.field
    field: int = 0
    # the edge at which it ends (start edge + model cycles), set with the result
    end_edge: int = 0
    # a word of a result register read back after the end differed from the model's
    read_mismatch: bool = False
    # how its operands are written (a secret one as its digest: montverif.host.secrets)
    secrets: Secrets = Secrets()

    @property
    def args(self) -> list[int]:
        """Operand values in the model's argument order."""
        return list(self.operands.values())

    @property
    def m(self) -> int:
        return next(reversed(self.operands.values()))  # args[-1], without the list

    def describe(self) -> str:
        show = self.secrets.show
        return ", ".join(f"{k.lower()}={show(k, v)}" for k, v in self.operands.items())


@dataclass
class Mismatch:
    time_ns: float
    what: str
    expected: int
    actual: int
    # a word of a secret register (montverif.host.secrets): its values are left out
    secret: bool = False

    def __str__(self) -> str:
        if self.secret:
            return f"@{self.time_ns}ns {self.what}: expected {HIDDEN}, got a different {HIDDEN}"
        return (f"@{self.time_ns}ns {self.what}: expected 0x{self.expected:x}, "
                f"got 0x{self.actual:x}")


class LoaderPredictor:
    def __init__(self, rm: regmap.RegMap, design: Design, n: int, bus_w: int,
                 model: Model, period_ns: int, has_field: bool = False,
                 secrets: Secrets | None = None) -> None:
        self.rm, self.design, self.n, self.bus_w = rm, design, n, bus_w
        # how the design's secret registers are written (by default: as digests)
        self.secrets = Secrets.of(design.secret, n) if secrets is None else secrets
        # the loader maps CTRL.FIELD (HasField): START's FIELD bit goes to the model
        self.has_field = has_field
        self.model, self.period_ns = model, period_ns
        self.op_words = regmap.words(n, bus_w)
        self.cnt_words = regmap.words(rm.counter_width, bus_w)
        red = design.redundant_width(n)
        self.red_words = 0 if red is None else regmap.words(red, bus_w)
        # every loadable register the design maps (the operands, the host-precomputed ones
        # and any it maps but does not use, such as the RSA core's Y)
        self.operands = {r.name: [0] * self.op_words for r in rm.regions.values()
                         if r.size == "operand" and r.access != "ro" and design.maps(r)}
        self.err = rm.errors["ERR_NONE"]
        self.done = False
        self.ended = True  # the last accepted operation's end has been applied
        self.op: Operation | None = None  # the last accepted operation
        self.ops: list[Operation] = []  # every START, accepted or not
        self.results_zero = True  # after reset or CLEAR the result registers hold 0
        self.status = rm.fields["STATUS"]
        self.ctrl = rm.fields["CTRL"]
        # region -> (words readable, words writable) of this build (0: not mapped that way)
        limit = {"word": 1, "counter": self.cnt_words, "operand": self.op_words,
                 "redundant": self.red_words}
        self._limits = {r.name: ((limit[r.size] if r.access != "wo" else 0),
                                 (limit[r.size] if r.access != "ro" else 0))
                        for r in rm.regions.values() if design.maps(r)}
        # (address, words) -> the register they are in (region_of)
        self._regions: dict[tuple[int, int], str | None] = {}
        # (address, words, write) of a burst -> how it is checked as a slice (_plan)
        self._plans: dict[tuple[int, int, bool], tuple[str, int, int, bool] | tuple[()]] = {}
        # result registers read whole, in order -> (register, bytes, mask) (expected_bytes)
        self._byte_plans: dict[tuple[str, ...], tuple[tuple[str, int, int], ...]] = {}

    # --- state at an edge -----------------------------------------------------------------
    def _value(self, region: str) -> int:
        mask = (1 << self.n) - 1
        return regmap.join(self.operands[region], self.bus_w) & mask

    def busy(self, edge: int) -> bool:
        return self.op is not None and self.op.start_edge < edge <= self.op.end_edge

    def _settle(self, edge: int) -> None:
        """Apply the end of the running operation if it ended before this edge."""
        if self.op is not None and not self.ended and edge > self.op.end_edge:
            self.done = True
            self.ended = True
            if "E" in self.operands:  # the loader wipes the secret exponent at the end
                self.operands["E"] = [0] * self.op_words

    def _cycles(self, edge: int) -> int:
        if self.op is None:
            return 0
        return min(edge - self.op.start_edge - 1, self.op.result.cycles)  # type: ignore[union-attr]

    def _mapped(self, region: str | None, index: int, write: bool) -> bool:
        limits = self._limits.get(region) if region is not None else None
        return limits is not None and index < limits[write]

    def _result_word(self, region: str, index: int) -> int:
        if self.results_zero or self.op is None or self.op.result is None:
            return 0
        res = self.op.result
        value = {"P": res.p, "S": res.s or 0, "C": res.c or 0}[region]
        return (value >> (index * self.bus_w)) & ((1 << self.bus_w) - 1)

    def expected_read(self, region: str | None, index: int, edge: int) -> int:
        self._settle(edge)
        if not self._mapped(region, index, write=False):
            return 0
        assert region is not None
        busy = self.busy(edge)
        if region == "STATUS":
            return (self.status["BUSY"].put(int(busy)) | self.status["DONE"].put(int(self.done))
                    | self.status["ERR"].put(self.err))
        if region == "CYCLES":
            return (self._cycles(edge) >> (index * self.bus_w)) & ((1 << self.bus_w) - 1)
        if region == "INFO":
            info = (self.rm.version << 24) | (self.design.id << 16) | self.n
            return (info >> (index * self.bus_w)) & ((1 << self.bus_w) - 1)
        if region in self.operands:
            return self.operands[region][index]
        return 0 if busy else self._result_word(region, index)

    # --- one observed transfer ------------------------------------------------------------
    def observe(self, t: Transfer) -> Mismatch | None:
        return self.observe_word(t.we, t.addr, t.wdata, t.rdata, t.time_ns)

    def observe_word(self, we: bool, addr: int, wdata: int, rdata: int, time_ns: float
                     ) -> Mismatch | None:
        """One transfer, given by its fields (`observe` without a Transfer object)."""
        edge = int(time_ns // self.period_ns)
        self._settle(edge)
        region_obj, index = self.rm.decode(addr)
        region = None if region_obj is None else region_obj.name
        if not we:
            expected = self.expected_read(region, index, edge)
            self._after_access(region, index, write=False)
            if region in ("P", "S", "C", "CYCLES") and self.op is not None and not self.busy(edge):
                words = self._read_words(self.op, region)
                if index < len(words):
                    words[index] = rdata
                    if expected != rdata:
                        self.op.read_mismatch = True
            if expected != rdata:
                where = f"read {region or 'unmapped'}[{index}] (addr 0x{addr:x})"
                return Mismatch(time_ns, where, expected, rdata, self.secrets.secret(region))
            return None
        self._write(region, index, wdata, edge)
        return None

    # --- one burst (fast mode) -------------------------------------------------------------
    def observe_burst(self, b: Burst) -> list[Mismatch]:
        """A whole item's transfers: the same verdicts as `observe` word by word. A burst in
        one operand or result register during which the loader's state cannot change (no
        operation ends inside it, no write while busy) is checked as a slice; any other
        burst word by word."""
        if len(b.ticks) == 1:  # one word (START, STATUS, CYCLES): no list of transfers
            we = b.we
            m = self.observe_word(we, b.addr, b.wdata[0] if we else 0, 0 if we else b.rdata[0],
                                  b.first_ns)
            return [] if m is None else [m]
        fast = self._burst_slice(b)
        if fast is None:
            return [m for t in b.transfers() if (m := self.observe(t)) is not None]
        return fast

    def _burst_slice(self, b: Burst) -> list[Mismatch] | None:
        period = self.period_ns
        first = b.first_ns // period
        self._settle(first)
        key = (b.addr, len(b.ticks), b.we)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(*key)
        if not plan:
            return None
        region, index, stop, is_operand = plan
        op = self.op
        busy = False  # self.busy at the first and at the last word, inlined
        if op is not None:
            start, end = op.start_edge, op.end_edge
            busy = start < first <= end
            if busy != (start < b.last_ns // period <= end):
                return None  # the operation ends inside the burst
        if b.we:
            if busy:
                return None
            self.operands[region][index:stop] = b.wdata
            return []
        if is_operand:
            expected = self.operands[region][index:stop]
        else:
            if busy or self.results_zero or op is None or op.result is None:
                expected = [0] * (stop - index)
            else:
                expected = self._result_words(op, region)[index:stop]
            if op is not None and not busy:
                self._read_words(op, region)[index:stop] = b.rdata
                if expected != b.rdata:
                    op.read_mismatch = True
        if expected == b.rdata:
            return []
        times, secret = b.times_ns, self.secrets.secret(region)
        return [Mismatch(times[k], f"read {region}[{index + k}] (addr 0x{b.addr + k:x})", e, a,
                         secret)
                for k, (e, a) in enumerate(zip(expected, b.rdata, strict=True)) if e != a]

    def _plan(self, addr: int, count: int, we: bool) -> tuple[str, int, int, bool] | tuple[()]:
        """How a burst of `count` words at `addr` is checked as a slice: (region, first
        index, index after the last, whether the region is a loadable register), or () when
        it is checked word by word (across registers, partly unmapped, a write that is no
        operand's, a read of a register that is neither an operand nor a result)."""
        region = self.region_of(addr, count)
        index = addr & ((1 << self.rm.index_width) - 1)
        stop = index + count
        if region is None or region is ACROSS or not self._mapped(region, stop - 1, we):
            return ()
        if region in self.operands:
            return region, index, stop, True
        if we or region not in _RESULTS:
            return ()
        return region, index, stop, False

    def _read_words(self, op: Operation, region: str) -> list[int | None]:
        """The operation's read-back words of a result register (made at its first read)."""
        words = op.read_words.get(region)
        if words is None:
            words = op.read_words[region] = [None] * self._limits[region][0]
        return words

    def region_of(self, addr: int, count: int) -> str | None:
        """The register that `count` words from `addr` are in: its name, None (unmapped) or
        ACROSS (they span registers); decoded once per (address, count)."""
        region = self._regions.get((addr, count), "")
        if region == "":
            index_w = self.rm.index_width
            if (addr + count - 1) >> index_w != addr >> index_w:
                region = ACROSS
            else:
                found = self.rm.decode(addr)[0]
                region = None if found is None else found.name
            self._regions[(addr, count)] = region
        return region

    def _result_words(self, op: Operation, region: str) -> list[int]:
        """The bus words of a result register of the operation (split once per operation)."""
        words = op.result_words.get(region)
        if words is None:
            res = op.result
            assert res is not None
            value = res.p if region == "P" else (res.s if region == "S" else res.c) or 0
            bits = self._limits[region][0] * self.bus_w
            words = op.result_words[region] = regmap.split(value, bits, self.bus_w)
        return words

    def _after_access(self, region: str | None, index: int, write: bool) -> bool:
        if not self._mapped(region, index, write):
            self.err = self.rm.errors["ERR_UNMAPPED"]
            return False
        return True

    def _write(self, region: str | None, index: int, data: int, edge: int) -> None:
        if not self._after_access(region, index, write=True):
            return
        if self.busy(edge):
            self.err = self.rm.errors["ERR_BUSY"]
            return
        if region in self.operands:
            self.operands[region][index] = data
            return
        assert region == "CTRL"
        if self.ctrl["CLEAR"].get(data):
            self._clear()
        elif self.ctrl["START"].get(data):
            self._start(edge, self.ctrl["FIELD"].get(data) if self.has_field else 0)

    def _clear(self) -> None:
        for words in self.operands.values():
            words[:] = [0] * len(words)
        self.done = False
        self.err = self.rm.errors["ERR_NONE"]
        self.op = None
        self.results_zero = True

    # --- a whole operation at once (fast mode: verif/bus/ops.py) ---------------------------
    def plan_start(self, loads: dict[str, int], ctrl: int, first_edge: int
                   ) -> tuple[dict[str, int], int, Result] | None:
        """What a START would run after the registers in `loads` were written whole (each
        its n-bit value, as the bus words of regmap.split) from `first_edge` on, without
        changing any state: (the operands, the field, the model's result), or None when it
        would not be a plain accepted start (the loader busy at the writes, a register that
        is not a loadable one, a CTRL word that is not a lone START, a refused operand, a
        model that raises). `commit_start` then makes the same changes as those transfers."""
        ctrl_f = self.ctrl
        if not ctrl_f["START"].get(ctrl) or ctrl_f["CLEAR"].get(ctrl):
            return None
        op = self.op  # self.busy(first_edge), inlined
        if op is not None and op.start_edge < first_edge <= op.end_edge:
            return None
        operands = self.operands
        for region in loads:
            if region not in operands:
                return None
        mask = (1 << self.n) - 1
        values = {name: (loads[name] & mask if name in loads else self._value(name))
                  for name in self.design.operands}
        if self._refusal(values) != "ERR_NONE":
            return None
        field = ctrl_f["FIELD"].get(ctrl) if self.has_field else 0
        try:
            result = (self.model(*values.values(), self.n, field=field) if self.has_field
                      else self.model(*values.values(), self.n))
        except Exception:  # the transfers themselves raise it again (_start)
            return None
        return values, field, result

    def commit_start(self, words: dict[str, list[int]], values: dict[str, int],
                     first_edge: int, start_edge: int, field: int, result: Result
                     ) -> Operation:
        """The state after the writes of `words` (each loaded register's bus words) and the
        START at `start_edge` that `plan_start` accepted (its operands and result): the
        operation it started."""
        self._settle(first_edge)
        operands = self.operands
        for region, loaded in words.items():
            operands[region][:] = loaded
        self._begin(values, start_edge, field, "ERR_NONE", result)
        assert self.op is not None
        return self.op

    def settle(self, edge: int) -> None:
        """The state at `edge` (an operation that ended before it applied)."""
        self._settle(edge)

    def expected_words(self, result: Result, region: str) -> list[int]:
        """Every word a read of a result register (P, S, C, CYCLES) returns after the end
        of the operation that produced `result`."""
        bus_w, count = self.bus_w, self._limits[region][0]
        if region == "CYCLES":
            mask = (1 << bus_w) - 1
            return [(result.cycles >> (k * bus_w)) & mask for k in range(count)]
        value = result.p if region == "P" else (result.s if region == "S" else result.c) or 0
        return regmap.split(value, count * bus_w, bus_w)

    def expected_bytes(self, result: Result, regions: tuple[str, ...]) -> bytes:
        """expected_words of each of `regions` (result registers, each read whole, in this
        order), as one run of little-endian bus words of a bus of 8, 16, 32 or 64 bits: the
        reads of a whole operation compare as one slice (ScriptLog.rdata_bytes)."""
        plan = self._byte_plans.get(regions)
        if plan is None:
            plan = self._byte_plans[regions] = tuple(
                (r, size, (1 << (8 * size)) - 1)
                for r in regions for size in (self._limits[r][0] * self.bus_w // 8,))
        out = []
        for region, size, mask in plan:
            if region == "P":
                value = result.p
            elif region == "CYCLES":
                value = result.cycles
            else:
                value = (result.s if region == "S" else result.c) or 0
            out.append((value & mask).to_bytes(size, "little"))
        return b"".join(out)

    def readable_words(self, region: str) -> int:
        """Words of `region` a read may return (0: not readable in this build)."""
        return self._limits.get(region, (0, 0))[0]

    def status_done(self) -> int:
        """STATUS after an accepted operation ended: DONE, no error."""
        return self.status["DONE"].put(1) | self.status["ERR"].put(self.rm.errors["ERR_NONE"])

    def read_back(self, op: Operation, region: str, words: list[int]) -> None:
        """A whole result register of `op` read back after its end, as the model has it."""
        op.read_words[region] = list(words)

    def _refusal(self, values: dict[str, int]) -> str:
        """The error a START with these operands ends in (ERR_NONE: accepted)."""
        if values[self.design.modulus] % 2 == 0:
            return "ERR_EVEN_MODULUS"
        if self.design.out_of_range(values):
            return "ERR_RANGE"
        return "ERR_NONE"

    def _start(self, edge: int, field: int = 0) -> None:
        values = {name: self._value(name) for name in self.design.operands}
        self._begin(values, edge, field, self._refusal(values), None)

    def _begin(self, values: dict[str, int], edge: int, field: int, error: str,
               result: Result | None) -> None:
        """A START at `edge` with these operands: refused with `error`, or the operation
        (its model result: `result` when already known)."""
        self.done = False
        op = Operation(len(self.ops), values, edge, error, field=field, secrets=self.secrets)
        self.ops.append(op)
        self.err = self.rm.errors[error]
        if error != "ERR_NONE":
            return
        if result is None:
            result = (self.model(*op.args, self.n, field=field) if self.has_field
                      else self.model(*op.args, self.n))
        op.result = result
        op.end_edge = edge + op.result.cycles
        self.op = op
        self.ended = False
        self.results_zero = False
