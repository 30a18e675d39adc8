"""Sequences for any multiplier behind mv_bus_loader.

`LoaderSeq` turns register-level calls (write an operand, START, wait for done, read the
results) into bus items; the concrete sequences build stimulus on top of it. Every read is
checked by the scoreboard; sequences that exercise error paths also assert the status they
expect, so those tests do not rest on the predictor alone.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from math import gcd
from typing import TypeVar

from pyuvm import uvm_sequence

from montverif.models import gf2
from montverif.models.result import ModelInputError
from montverif.spec import regmap
from montverif.verif.bus.engine_layout import ops_per_script
from montverif.verif.bus.item import BusItem, BusRequest, Kind
from montverif.verif.bus.ops import RESULT_READS, OpLayout, OpScript, PlannedOp
from montverif.verif.context import SeqContext
from montverif.verif.steer import boundary_operands, small_factor

Operands = tuple[int, int, int]
Planned = tuple[OpLayout, PlannedOp]  # a whole operation gathered by a batch
T = TypeVar("T")
GF2N = 1  # CTRL.FIELD value of the binary field
# how often an operand whose domain reaches beyond M (below_2n) is drawn from there
# (LoaderSeq.widen): at or above M, a carry-save pair at or above 2M
BEYOND_M = 0.25
# random irreducible polynomials per width, shared by the sequences of one simulation
# (Rabin's test at degree ~256 takes seconds in Python)
_IRREDUCIBLE_POOL: dict[int, list[int]] = {}
POOL_SIZE = 4


_MODEL_CYCLES: dict[tuple[str, int], int] = {}  # (design, N) -> cycles of one operation
_JOIN = nullcontext()  # batch() inside a batch (or with batching off): gathers nothing itself


def forget_simulation_state() -> None:
    """What the sequences keep for the rest of a simulation (the irreducible polynomials,
    drawn from the first test's random stream) forgotten: the next run of a process that
    runs several (verif/batch.py) draws its own, as in a process of its own."""
    _IRREDUCIBLE_POOL.clear()


def script_groups(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """`items` in groups of `size` (the build's engine.ops_per_script): the operations a
    sequence sends in one batch."""
    return [items[k:k + size] for k in range(0, len(items), size)]


class LoaderSeq(uvm_sequence):
    """Base: register access through the bus agent's sequencer."""

    def __init__(self, name: str, ctx: SeqContext) -> None:
        super().__init__(name)
        self.ctx = ctx
        # the design chooses GF(p) or GF(2^n) per operation (CTRL.FIELD at START): every
        # START without an explicit field picks one at random
        self.has_field = ctx.has_field
        self.n, self.bus_w, self.design, self.rng = ctx.n, ctx.bus_w, ctx.design, ctx.rng
        # draws beyond M that the design's operand domains allow (widen), from their own stream
        self.domain_rng = ctx.domain_rng if ctx.domain_rng is not None else random.Random(0)
        # coverage steering (verif/steer.py, MV_BIAS): None = plain random stimulus;
        # model(x, y, m) -> Result lets it check candidates for subtraction / table targets
        self.bias, self.model = ctx.bias, ctx.model
        # m -> the registers the host computes from the modulus (regmap `precomputed`)
        self.precompute = ctx.precompute
        self.rm = regmap.load()
        self.status_f = self.rm.fields["STATUS"]
        self.ctrl_f = self.rm.fields["CTRL"]
        # watchdog for one operation: generous against the design's cycle count (twice the
        # model's for this build: a word-serial radix-2 array at small W and P needs far more
        # than 8N); MV_DONE_TIMEOUT overrides it (the watchdog's own tests)
        default_timeout = max(8 * ctx.n, 2 * self._model_cycles()) + 1000
        self.done_timeout = ctx.done_timeout if ctx.done_timeout is not None else default_timeout
        # MV_BATCH=0: every item is sent alone (batch() gathers nothing; the tests compare)
        self.batching = ctx.batching
        # operations per batch: as many as one engine script of this build holds
        self.ops_per_script = ops_per_script(ctx.n, ctx.design, ctx.bus_w)
        self._whole: dict[str, tuple[int, int]] = {}  # read_value_item's (address, words)
        # the layout of a whole operation, per tuple of loaded registers (run_operation)
        self._layouts: dict[tuple[str, ...], OpLayout] = {}

    def _model_cycles(self) -> int:
        """The model's busy cycles of one operation of this build (0 when unknown); one
        simulation is one build, so it is computed once per process."""
        key = (self.design.name, self.n)
        if key not in _MODEL_CYCLES:
            m = (1 << self.n) - 1
            try:
                cycles = int(self.model(m - 1, m - 1, m).cycles or 0) if self.model else 0
            except (ModelInputError, AssertionError, TypeError):
                cycles = 0
            _MODEL_CYCLES[key] = cycles
        return _MODEL_CYCLES[key]

    @staticmethod
    def require(ok: bool, message: str) -> None:
        """An assertion that shows only its message. cocotb rewrites `assert` statements to
        print the values in them when one fails; where a value may be a secret (or follow
        from one: montverif.host.secrets) the message says what it may show instead."""
        if not ok:
            raise AssertionError(message)

    # --- register access ------------------------------------------------------------------
    tight = False  # True: no random idle cycles before transfers (short busy windows)
    # inside `batch()`: the items gathered so far, and whole operations (run_operation)
    _batch: list[BusItem | Planned] | None = None

    async def _do(self, item: BusItem) -> BusItem:
        """Send one item (inside `batch()`: append it to the batch; a read's rdata is then
        filled only when the batch has been sent)."""
        item.tight = self.tight
        if self._batch is not None:
            self._batch.append(item)
            return item
        await self._send(BusRequest([item]))
        return item

    async def _send(self, request: BusRequest) -> None:
        await self.start_item(request)
        await self.finish_item(request)

    def batch(self) -> AbstractAsyncContextManager[None]:
        """Gather the items of the block into one BusRequest, sent when the block ends: one
        sequencer hand-shake, and in fast mode one engine script (Python wakes once). Only
        for blocks that use no read's value (`read`, `read_value` and `status` refuse inside
        a batch; `read_item` and `read_value_item` queue reads the scoreboard checks). A batch
        inside a batch joins it (a context that does nothing: an operation's batch inside a
        script's costs no generator); nothing is sent when the block raises."""
        if self._batch is not None or not self.batching:
            return _JOIN
        return self._gather()

    @asynccontextmanager
    async def _gather(self) -> AsyncIterator[None]:
        gathered: list[BusItem | Planned] = []
        self._batch = gathered
        try:
            yield
        finally:
            self._batch = None
        if gathered:
            await self._send(self._request(gathered))

    @staticmethod
    def _request(gathered: list[BusItem | Planned]) -> BusRequest:
        """What a batch sends: its whole operations as one OpScript when it holds nothing
        else and they share a layout, else every item in order."""
        layouts = {id(g[0]) for g in gathered if isinstance(g, tuple)}
        if len(layouts) == 1 and all(isinstance(g, tuple) for g in gathered):
            planned = [g for g in gathered if isinstance(g, tuple)]
            return OpScript(planned[0][0], [op for _, op in planned])
        items: list[BusItem] = []
        for g in gathered:
            if isinstance(g, tuple):
                items += g[1].items(g[0])
            else:
                items.append(g)
        return BusRequest(items)

    def _value(self, item: BusItem) -> BusItem:
        """The item, whose read data the caller is about to use."""
        if self._batch is not None:
            raise RuntimeError(f"{item}: a read's value is not known inside a batch "
                               "(use read_item / read_value_item, or read outside the batch)")
        return item

    async def write(self, region: str, data: int, index: int = 0) -> None:
        await self._do(BusItem(Kind.WRITE, self.rm.addr(region, index), [data]))

    async def read_item(self, region: str, index: int = 0) -> BusItem:
        """One word read, for the scoreboard (its value is not used by the caller)."""
        return await self._do(BusItem(Kind.READ, self.rm.addr(region, index)))

    async def read(self, region: str, index: int = 0) -> int:
        return self._value(await self.read_item(region, index)).rdata[0]

    async def write_value(self, region: str, value: int) -> None:
        """All words of a register in one burst item."""
        words = regmap.split(value, self.n, self.bus_w)
        await self._do(BusItem(Kind.WRITE, self.rm.addr(region), words))

    async def read_value_item(self, region: str) -> BusItem:
        """All words of a register in one burst item, for the scoreboard."""
        if (where := self._whole.get(region)) is None:  # (address, words) of the register
            bits = self.design.region_bits(self.rm, region, self.n, self.bus_w)
            assert bits is not None, f"{region} is not mapped for {self.design.name}"
            where = self._whole[region] = (self.rm.addr(region), regmap.words(bits, self.bus_w))
        return await self._do(BusItem(Kind.READ, where[0], count=where[1]))

    async def read_value(self, region: str) -> int:
        return regmap.join(self._value(await self.read_value_item(region)).rdata, self.bus_w)

    def pick_field(self) -> int:
        return self.rng.randrange(2) if self.has_field else 0

    def start_word(self, field: int | None = None) -> int:
        """CTRL's START word (in `field`; a random one when None, on designs with a field
        bit)."""
        word = self.ctrl_f["START"].put(1)
        if self.has_field:
            word |= self.ctrl_f["FIELD"].put(self.pick_field() if field is None else field)
        return word

    async def start_op(self, field: int | None = None) -> None:
        await self.write("CTRL", self.start_word(field))

    async def clear(self) -> None:
        await self.write("CTRL", self.ctrl_f["CLEAR"].put(1))

    async def wait_done(self) -> None:
        await self._do(BusItem(Kind.WAIT_DONE, timeout_cycles=self.done_timeout))

    async def status(self) -> dict[str, int]:
        word = await self.read("STATUS")
        return {name: f.get(word) for name, f in self.status_f.items()}

    async def read_results(self) -> None:
        """Read everything an operation produced (the scoreboard checks it all; the values
        are not used here, so this may run inside a batch)."""
        await self.read_value_item("P")
        if self.design.redundant_extra_bits is not None:
            await self.read_value_item("S")
            await self.read_value_item("C")
        await self.read_value_item("CYCLES")
        await self.read_item("STATUS")

    async def multiply(self, x: int, y: int, m: int, load: Iterable[str] = ("X", "Y", "M"),
                       field: int | None = None) -> None:
        await self.run_operation({"X": x, "Y": y, "M": m}, load, field)

    def refused(self, values: dict[str, int]) -> bool:
        """Whether the loader must refuse these operands (even modulus, out of range)."""
        m = values[self.design.modulus]
        return m % 2 == 0 or self.design.out_of_range(values)

    def split_value(self, v: int, rng: random.Random | None = None) -> tuple[int, int]:
        """Two n-bit halves summing to v: both non-zero when v allows it, else (v, 0);
        now and then one half zero on purpose (drawn from `rng`, by default the stream)."""
        rng = rng or self.rng
        top = (1 << self.n) - 1
        lo, hi = max(1, v - top), min(top, v - 1)
        if lo > hi:
            return (v, 0) if v <= top else (top, v - top)
        if v <= top and rng.random() < 0.1:
            return (v, 0) if rng.random() < 0.5 else (0, v)
        first = rng.randint(lo, hi)
        return first, v - first

    def widen(self, reg: str, v: int, m: int) -> int:
        """An operand drawn below M, or (a quarter of the time, where the design's domain
        reaches beyond M: below_2n) one drawn from [M, 2^n) instead. The choice and the value
        come from the domain stream: the main stream's draws do not depend on the domain."""
        if self.design.domain.get(reg) != "below_2n" or reg in self._groups:
            return v
        if self.domain_rng.random() >= BEYOND_M:
            return v
        return self.domain_rng.randrange(m, 1 << self.n) if m < 1 << self.n else v

    @property
    def _groups(self) -> dict[str, tuple[str, ...]]:
        return {g[0]: g for g in self.design.carry_save_operands}

    def with_halves(self, values: dict[str, int], load: Iterable[str] | None
                    ) -> tuple[dict[str, int], list[str]]:
        """For designs with carry-save operands (regmap carry_save_operands), fill the halves
        the caller left out: the caller's X (< M) becomes X or X + M (same residue, half the
        time, so the whole range [0, 2M) is exercised), split into X + X2, both halves
        non-zero where possible; where the group's domain reaches beyond 2M (below_2n), a
        quarter of the time a pair of [2M, 2^(n+1) - 1) instead, from the domain stream.
        Loading X loads X2 too. Other designs: unchanged."""
        regions = list(self.design.operands if load is None else load)
        if not self.design.carry_save_operands:
            return values, regions
        values = dict(values)
        m = values[self.design.modulus]
        for base, *halves in self.design.carry_save_operands:
            if any(h in values for h in halves) or base not in values:
                continue  # the caller gave the halves itself
            v = values[base]
            if v < m and self.rng.random() < 0.5:
                v += m
            values[base], values[halves[0]] = self.split_value(v)
            top = (1 << self.n) - 1
            if self.design.domain.get(base) == "below_2n" and 2 * m <= 2 * top \
                    and self.domain_rng.random() < BEYOND_M:
                wide = self.domain_rng.randint(2 * m, 2 * top)
                values[base], values[halves[0]] = self.split_value(wide, self.domain_rng)
            for h in halves[1:]:
                values[h] = 0
            if base in regions:
                regions += [h for h in halves if h not in regions]
        return values, regions

    def with_precomputed(self, values: dict[str, int], regions: list[str]
                         ) -> tuple[dict[str, int], list[str]]:
        """Loading the modulus loads the registers the host computes from it (m', M-hat:
        regmap `precomputed`), unless the caller gave them (e.g. a deliberately wrong one)."""
        if not self.design.precomputed or self.design.modulus not in regions:
            return values, regions
        assert self.precompute is not None, f"{self.design.name} needs a precompute function"
        values = self.precompute(values[self.design.modulus]) | values
        return values, regions + [r for r in self.design.precomputed if r not in regions]

    async def load_operands(self, values: dict[str, int], load: Iterable[str] | None = None
                            ) -> dict[str, int]:
        """Write the named registers (all operands by default), halves filled in; returns
        the values as loaded."""
        values, regions = self.with_precomputed(*self.with_halves(values, load))
        for region in regions:
            await self.write_value(region, values[region])
        return values

    async def run_operation(self, values: dict[str, int], load: Iterable[str] | None = None,
                            field: int | None = None) -> None:
        """Load the named registers (all operands by default), START (in `field`, random
        when None), wait, read back: one batch (no read value is used; whether the loader
        refuses the operands follows from the values)."""
        async with self.batch():
            values, regions = self.with_precomputed(*self.with_halves(values, load))
            ctrl = self.start_word(field)
            refused = self.refused(values)
            if self._batch is not None and not self.tight and not refused:
                # a whole operation: the batch sends it as one (OpScript) where it can
                layout = self._layout(tuple(regions))
                self._batch.append((layout, PlannedOp({r: values[r] for r in regions}, ctrl,
                                                      self.done_timeout)))
                return
            for region in regions:
                await self.write_value(region, values[region])
            await self.write("CTRL", ctrl)
            if refused:  # the loader refuses it: read the error instead
                await self.read_item("STATUS")
                return
            await self.wait_done()
            await self.read_results()

    def _layout(self, loads: tuple[str, ...]) -> OpLayout:
        """The entries of a whole operation that loads `loads` (those of `read_results`)."""
        layout = self._layouts.get(loads)
        if layout is None:
            reads = [r for r in RESULT_READS
                     if r not in ("S", "C") or self.design.redundant_extra_bits is not None]
            words = []
            for region in reads:
                bits = self.design.region_bits(self.rm, region, self.n, self.bus_w)
                assert bits is not None, f"{region} is not mapped for {self.design.name}"
                words.append((region, regmap.words(bits, self.bus_w)))
            layout = self._layouts[loads] = OpLayout.make(self.rm, loads, tuple(words),
                                                          self.n, self.bus_w)
        return layout

    async def expect_error(self, name: str, busy: int = 0) -> None:
        st = await self.status()
        code = self.rm.errors[name]
        assert st["ERR"] == code and st["BUSY"] == busy, (
            f"expected {name} (busy={busy}), STATUS shows ERR={self.rm.error_name(st['ERR'])} "
            f"BUSY={st['BUSY']}")

    # --- operand generation ---------------------------------------------------------------
    def random_modulus(self) -> int:
        n = self.n
        if self.rng.random() < 0.8:  # full-width modulus (the usual case)
            return self.rng.getrandbits(n - 1) | (1 << (n - 1)) | 1
        return self.rng.getrandbits(self.rng.randint(1, n - 1)) | 1

    def random_operands(self, field: int = 0) -> Operands:
        if field == GF2N:
            return self.random_poly_operands()
        m = self.random_modulus()
        x, y = self.rng.randrange(m), self.rng.randrange(m)
        return self.widen("X", x, m), self.widen("Y", y, m), m

    def steered_operands(self) -> Operands:
        """Random operands, or (with MV_BIAS) now and then operands aimed at a coverage hole;
        without a bias exactly `random_operands()`."""
        if self.bias is not None and self.bias.steer(self.rng):
            return self.bias.operands(self.rng, self.n, self.model, self.random_modulus,
                                      self.design.r_bits_at(self.n, self.ctx.params)
                                      if self.design.kind == "mont" else None)
        return self.random_operands()

    # --- binary field: M holds the whole p(x) (degree < N), operands of lower degree -------
    def irreducibles(self) -> list[int]:
        """Random irreducible polynomials for this width: half of degree N-1, half of a
        random degree (built once per simulation)."""
        pool = _IRREDUCIBLE_POOL.setdefault(self.n, [])
        while len(pool) < POOL_SIZE:
            deg = self.n - 1 if len(pool) % 2 == 0 else self.rng.randint(2, self.n - 1)
            pool.append(gf2.random_irreducible(deg, self.rng))
        return pool

    def nist_polys(self) -> list[int]:
        """NIST binary-field reduction polynomials (B-163, B-233, ...) that fit N bits."""
        return [p for p in gf2.NIST_POLYS.values() if p.bit_length() <= self.n]

    def random_poly_modulus(self) -> int:
        r, nist = self.rng.random(), self.nist_polys()
        if r < 0.35 and nist:
            return self.rng.choice(nist)
        if r < 0.8:
            return self.rng.choice(self.irreducibles())
        return self.random_modulus()  # any p(x) with p(0) = 1: Montgomery needs no more

    def poly_element(self, m: int) -> int:
        """Mostly a field element (degree < deg M); now and then any value below M (degree
        deg M, still reduced correctly)."""
        d = m.bit_length() - 1
        return self.rng.getrandbits(d) if d and self.rng.random() < 0.9 else self.rng.randrange(m)

    def random_poly_operands(self) -> Operands:
        m = self.random_poly_modulus()
        x, y = self.poly_element(m), self.poly_element(m)
        return self.widen("X", x, m), self.widen("Y", y, m), m


class RandomSeq(LoaderSeq):
    def __init__(self, name: str, ctx: SeqContext, count: int) -> None:
        super().__init__(name, ctx)
        self.count = count

    async def body(self) -> None:
        for group in script_groups(range(self.count), self.ops_per_script):
            async with self.batch():  # one sequencer hand-shake, one engine script
                for _ in group:
                    field = self.pick_field()
                    ops = self.steered_operands() if field == 0 else self.random_operands(field)
                    await self.multiply(*ops, field=field)


class CornerSeq(LoaderSeq):
    """X = 0, Y = 0, X = M-1, Y = M-1, X = Y, and the moduli 2^(n-1)+1 and 2^n-1."""

    def corner_cases(self) -> list[Operands]:
        n = self.n
        moduli = [(1 << (n - 1)) + 1, (1 << n) - 1, self.random_modulus(), 1, 3]
        cases: list[Operands] = []
        for m in moduli:
            r = self.rng.randrange(m)
            cases += [(0, r, m), (r, 0, m), (m - 1, r, m), (r, m - 1, m), (m - 1, m - 1, m),
                      (r, r, m), (1, 1 % m, m), (0, 0, m)]
        return cases + self.boundary_cases()

    def boundary_cases(self) -> list[Operands]:
        """Operations whose intermediate values meet the reductions' comparison bounds
        exactly (v == M, v == 2M): products that are multiples of M (M = 3k, X = k, Y = 3;
        M = k * j, X = k, Y = j), and random operands under small moduli, where the loop's
        values are small and equality is frequent. A `>=` mutated into `>` survived every
        other test (docs/mutation.md). Fewer at large N, where an operation costs more."""
        n, rng = self.n, self.rng
        cases: list[Operands] = []
        k = rng.randrange(1, max(2, ((1 << n) - 1) // 3)) | 1
        cases += [(k, 3, 3 * k), (3, k, 3 * k)] if 3 * k >= 4 else []
        j = rng.randrange(3, 1 << max(2, n // 2)) | 1
        i = rng.randrange(3, max(4, ((1 << n) - 1) // j)) | 1
        cases += [(i, j, i * j)] if i * j < 1 << n and i < i * j and j < i * j else []
        # products congruent to -1 and to 0 (non-trivially) modulo M: the result M - 1 or 0
        # comes out of a last reduction whose value sits exactly at a bound
        small = [m for m in range(3, min(1 << n, 64), 2)]
        full = [self.random_modulus() for _ in range(4)]
        for m in (small if n <= 32 else small[::4]) + [f for f in full if f >= 3]:
            x = rng.randrange(1, m)
            while gcd(x, m) != 1:
                x = rng.randrange(1, m)
            cases.append((x, (-pow(x, -1, m)) % m, m))
            if f := small_factor(m):
                cases.append((f * rng.randrange(1, m // f), m // f, m))
        count = max(16, 160 * 32 // max(n, 32))
        for _ in range(count):
            m = rng.choice(small)
            cases.append((rng.randrange(m), rng.randrange(m), m))
        return cases + self.model_boundary_cases(small + [f for f in full if f >= 3])

    def model_boundary_cases(self, moduli: list[int]) -> list[Operands]:
        """Candidates checked with the bit-accurate model: one operation for each boundary
        event it reports (Result.boundary_events: a final-reduction compare met exactly at
        its bound or one below it, e.g. inter_csa's V == 2M' - 1 before its 2M' step)."""
        if self.model is None:
            return []
        tries = 8000 if self.n <= 16 else 400 if self.n <= 64 else 40  # N <= 16: ~0.1 ms a try
        return boundary_operands(self.model, self.rng, lambda: self.rng.choice(moduli), tries)

    def halves_cases(self) -> list[dict[str, int]]:
        """Designs with carry-save operands: every operand at the extremes of [0, 2M) with
        both halves non-zero (sum 2M - 1, M, M - 1, 1 + 1), one half all ones, one half zero."""
        n, top = self.n, (1 << self.n) - 1
        cases: list[dict[str, int]] = []
        for m in ((1 << (n - 1)) + 1, top, self.random_modulus()):
            sums = [2 * m - 1, m, m - 1, 2, 2 * m - 1, m + 1]
            for k, (sx, sy) in enumerate(zip(sums, reversed(sums), strict=True)):
                values = {"M": m}
                for (base, half, *_), v in zip(self.design.carry_save_operands, (sx, sy),
                                               strict=False):
                    if k == 4 and v > top:  # one half all ones
                        values[base], values[half] = top, v - top
                    elif k == 5:  # one half zero (where it fits)
                        values[base], values[half] = (v, 0) if v <= top else (top, v - top)
                    elif v < 2:  # too small to split
                        values[base], values[half] = v, 0
                    else:  # both halves non-zero
                        values[base] = self.rng.randint(max(1, v - top), min(top, v - 1))
                        values[half] = v - values[base]
                cases.append(values)
        return cases

    def poly_corner_cases(self) -> list[Operands]:
        """GF(2^n): NIST polynomials that fit, an irreducible of degree N-1, x + 1, 1, the
        all-ones and x^(N-1) + 1 moduli; operands 0, 1, the all-ones element, M-1, X = Y."""
        n = self.n
        moduli = self.nist_polys() + [self.irreducibles()[0], 0b11, 1, (1 << n) - 1,
                                      (1 << (n - 1)) + 1]
        cases: list[Operands] = []
        for m in moduli:
            r, top = self.poly_element(m), (1 << (m.bit_length() - 1)) - 1
            cases += [(0, r, m), (r, 0, m), (top, r, m), (top, top, m), (m - 1, r, m),
                      (r, r, m), (1 % m, 1 % m, m)]
        return cases

    def domain_cases(self) -> list[dict[str, int]]:
        """Operands where the design's domain reaches beyond M (below_2n): M itself, M + 1,
        the all-ones value (a carry-save pair: 2M, both halves all ones, one half all ones)
        against the other operand at M - 1, 0 and 1, and where X and Y both reach beyond M,
        both at M and both all ones, under the moduli 2^(n-1) + 1, 1, 3 and a random one
        (from the domain stream: the cases before these are the same whatever the
        domains)."""
        n, top, d = self.n, (1 << self.n) - 1, self.design
        wide = [r for r, dom in d.domain.items() if dom == "below_2n" and r in ("X", "Y")]
        groups = self._groups
        moduli = [(1 << (n - 1)) + 1, 1, 3,
                  self.domain_rng.getrandbits(n - 1) | (1 << (n - 1)) | 1]
        below = [*d.below_modulus, *(g[0] for g in d.range_groups)]
        cases: list[dict[str, int]] = []
        for m in moduli:
            for reg in wide:
                picks = ([(m, m), (top, top), (top, 0)] if reg in groups
                         else [(m, 0), (min(m + 1, top), 0), (top, 0)])
                # the other operands at M - 1, 0, 1 (another of any N-bit value too)
                others = [*below, *(r for r in wide if r != reg and r not in groups)]
                for k, (first, second) in enumerate(picks):
                    values = {d.modulus: m, reg: first}
                    if reg in groups:
                        values[groups[reg][1]] = second
                    for other in others:
                        values[other] = (m - 1, 0, 1 % m)[k]
                    cases.append(values)
            plain = [r for r in wide if r not in groups]
            if len(plain) > 1:  # every such operand at once at M, then all ones
                cases += [{d.modulus: m, **dict.fromkeys(plain, v)} for v in (m, top)]
        return cases

    async def body(self) -> None:
        for x, y, m in self.corner_cases():
            await self.multiply(x, y, m, field=0)
        if self.has_field:
            for x, y, m in self.poly_corner_cases():
                await self.multiply(x, y, m, field=GF2N)
        if self.design.carry_save_operands:
            for values in self.halves_cases():
                await self.run_operation(values)
        for values in self.domain_cases():
            await self.run_operation(values, field=0)


class BackToBackSeq(LoaderSeq):
    """Operations with no idle time between them, reusing loaded operands: only X
    changes, or nothing changes and START is simply issued again."""

    def __init__(self, name: str, ctx: SeqContext, count: int) -> None:
        super().__init__(name, ctx)
        self.count = count

    async def body(self) -> None:
        x, y, m = self.random_operands(self.pick_field())
        await self.multiply(x, y, m)
        for k in range(self.count):
            if k % 2:
                x = self.rng.randrange(m)
                await self.multiply(x, y, m, load=("X",))
            else:
                await self.multiply(x, y, m, load=())


class StatusWhileBusySeq(LoaderSeq):
    """Poll STATUS and CYCLES over the bus while the core runs, until DONE."""

    def __init__(self, name: str, ctx: SeqContext, count: int) -> None:
        super().__init__(name, ctx)
        self.count = count

    async def body(self) -> None:
        for _ in range(self.count):
            x, y, m = self.random_operands()
            await self.load_operands({"X": x, "Y": y, "M": m}, ("X", "Y", "M"))
            await self.start_op()
            polls = 0
            while not (st := await self.status())["DONE"]:
                assert st["BUSY"], "STATUS shows neither BUSY nor DONE after START"
                await self.read("CYCLES")
                await self.read("P")  # reads zero while busy
                polls += 1
                assert polls < self.done_timeout, "watchdog: DONE never seen while polling"
            await self.read_results()


class ErrorSeq(LoaderSeq):
    """Every error path of the loader: even or zero modulus, operand >= M, writes and
    START/CLEAR while busy, unmapped regions and indices, wrong-direction accesses, CLEAR."""

    async def body(self) -> None:
        x, y, m = self.random_operands()
        # right after reset every result register reads 0 (the predictor checks each word:
        # a wrong reset value of P, S, C or CYCLES survived every other test, see
        # docs/mutation.md)
        await self.read_results()
        # even modulus, zero modulus: error, nothing starts
        for bad_m in (m ^ 1 if m > 1 else 2, 0):
            await self.write_value("X", 0)
            await self.write_value("Y", 0)
            await self.write_value("M", bad_m)
            await self.start_op()
            await self.expect_error("ERR_EVEN_MODULUS")
        # X >= M, Y >= M (the operands whose domain is below M); loading M loads the
        # registers the host computes from it (m' ...), as for every operation
        await self.load_operands({"M": m}, ["M"])
        for region in self.design.below_modulus:
            await self.write_value(region, m + self.rng.randrange((1 << self.n) - m))
            await self.start_op()
            await self.expect_error("ERR_RANGE")
            await self.write_value(region, 0)
        # carry-save operands whose domain is below 2M: X + X2 >= 2M (exactly 2M, then
        # above), Y + Y2 likewise
        top = (1 << self.n) - 1
        for base, half, *_ in self.design.range_groups:
            for extra in (0, self.rng.randint(1, max(1, 2 * top - 2 * m))):
                total = min(2 * m + extra, 2 * top)
                await self.write_value(base, total - total // 2)
                await self.write_value(half, total // 2)
                await self.start_op()
                await self.expect_error("ERR_RANGE")
            await self.write_value(base, 0)
            await self.write_value(half, 0)
        # writes, START and CLEAR while busy are ignored and flagged; the operation is intact
        # (one operation each, no idle cycles: at the smallest widths an operation lasts
        # only ~N cycles; a successful START clears the error of the one before)
        await self.write_value("X", x)
        await self.write_value("Y", y)
        for intrude in ("write", "start", "clear"):
            self.tight = True
            await self.start_op()
            if intrude == "write":
                await self.write("X", self.rng.getrandbits(self.bus_w))
            elif intrude == "start":
                await self.start_op()
            else:
                await self.clear()
            await self.expect_error("ERR_BUSY", busy=1)
            self.tight = False
            await self.wait_done()
            await self.read_results()
        assert await self.read_value("X") == x, "a write while busy changed X"
        # unmapped: an unused region, an index beyond a register, wrong directions
        unused = [c for c in range(1 << self.rm.region_width)
                  if c not in {r.code for r in self.rm.regions.values()}]
        probes = [(c << self.rm.index_width, False) for c in unused[:1]]
        probes += [(self.rm.addr("P", regmap.words(self.n, self.bus_w)), False),
                  (self.rm.addr("CTRL"), False), (self.rm.addr("P"), True),
                  (self.rm.addr("STATUS", 1), True)]
        # optional regions (second halves, precomputed registers) the design does not map
        probes += [(self.rm.addr(r.name), True) for r in self.rm.regions.values()
                   if not self.design.maps(r)]
        for addr, write in probes:
            kind = Kind.WRITE if write else Kind.READ
            item = await self._do(BusItem(kind, addr, [0x5A]))
            assert write or item.rdata == [0], f"unmapped read at 0x{addr:x} returned data"
            await self.expect_error("ERR_UNMAPPED")
        # CLEAR wipes operands, results and the error code
        await self.clear()
        assert await self.status() == {"BUSY": 0, "DONE": 0, "ERR": 0}
        assert await self.read_value("X") == 0 and await self.read_value("P") == 0
        await self.read_results()  # S, C and CYCLES are wiped too (checked by the predictor)
        # and the next operation still works
        await self.multiply(x, y, m)
        # an operand whose domain reaches beyond M starts at its largest value (>= M)
        for reg, dom in self.design.domain.items():
            if dom == "below_2n" and reg in ("X", "Y"):
                values = {"X": x % m, "Y": y % m, "M": m, reg: top}
                if rest := self._groups.get(reg, ())[1:]:
                    values[rest[0]] = top
                await self.run_operation(values, field=0)
                await self.expect_error("ERR_NONE")


class VectorSeq(LoaderSeq):
    """Operand tuples in the design's operand order (see verif.vectors)."""

    def __init__(self, name: str, ctx: SeqContext, vectors: list[tuple[int, ...]],
                 idle_reads: bool = False, fields: list[int | None] | None = None) -> None:
        super().__init__(name, ctx)
        self.vectors = vectors
        # each vector's CTRL.FIELD (designs with a field bit); None: drawn, as a random test
        self.fields = fields if fields is not None else [None] * len(vectors)
        assert len(self.fields) == len(vectors), "one field (or None) per vector"
        # also read every result register right after reset and after a final CLEAR (the
        # mutation flow's equivalence runs: a change to reset or CLEAR values shows there)
        self.idle_reads = idle_reads

    async def body(self) -> None:
        if self.idle_reads:
            await self.read_results()
        fields = iter(self.fields)
        for group in script_groups(self.vectors, self.ops_per_script):
            async with self.batch():  # one sequencer hand-shake, one engine script
                for vector in group:
                    await self.run_operation(dict(zip(self.design.operands, vector,
                                                      strict=True)), field=next(fields))
        if self.idle_reads:
            await self.clear()
            await self.read_results()
