"""Scoreboard: every bus read against the predictor, every operation against gmpy2 and the
bit-accurate model, every done edge against the model's cycle count and table histogram.

Mismatches are logged as they happen ("MISMATCH ...") and fail the test in check_phase.

With a checker thread (fast mode with a spare core: `RunConfig.check_thread`), the handlers run
on a worker thread in publication order, while the engine's main loop runs the next script
without Python's GIL (verif/bus/engine_main.cpp). Mismatches are then logged by the main thread
at the next publication (a script later) and at check_phase, which waits for the worker.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pyuvm import uvm_component, uvm_subscriber

from montverif.models.registry import (
    AlgoInfo,
    ReferenceCheck,
    matches_reference,
    promise_broken,
    reference,
    reference_check,
)
from montverif.models.result import Result
from montverif.spec import regmap
from montverif.verif.bus.engine_layout import CaptureLayout
from montverif.verif.bus.item import Burst, Kind, Transfer
from montverif.verif.bus.ops import OpLayout, ScriptLog, item_bursts
from montverif.verif.env.coverage import Coverage
from montverif.verif.env.predictor import ACROSS, LoaderPredictor, Mismatch, Operation


class CheckProbe(Protocol):
    """Observes the scoreboard's checks (a measurement probe, verif/env/probes.py); called
    in the thread that checks."""

    def published(self, checked: int) -> None:
        """A publication was handled; `checked` operations are checked so far."""

    def operation_checked(self) -> None:
        """One more operation was checked."""

    def checks_done(self, checked: int, check_thread: bool, whole: int) -> None:
        """Every check has run (check_phase, before the verdict); `whole` of the `checked`
        operations were checked as whole operations (Scoreboard.on_ops)."""


@dataclass
class DoneObservation:
    """What the DUT showed at the rising edge of done_o (read once per operation)."""

    time_ns: float  # the simulator's time (cocotb: a float; the engine's capture: an int)
    lut_hits: list[int]
    sub_taken: bool | None


class CheckThread:
    """Runs handlers on one worker thread, in the order they were queued. The first exception
    a handler raises stops the checking (later state would be wrong) and is raised again in
    the caller's thread at the next `put` or at `drain`."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[[Any], None], object] | None] = \
            queue.SimpleQueue()
        self._done = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="scoreboard-checks",
                                        daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            if self.error is None:
                handler, item = job
                try:
                    handler(item)
                except BaseException as exc:
                    self.error = exc
        self._done.set()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def put(self, handler: Callable[[Any], None], item: object) -> None:
        self._raise()
        self._queue.put((handler, item))

    def drain(self) -> None:
        """Wait until every queued handler has run and stop the thread."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._done.wait()
        self._raise()


class _Sub(uvm_subscriber):
    """Hands what is published to `handler`: at once, or on `board`'s checker thread (the
    RSA environment's subscribers have no board)."""

    def __init__(self, name: str, parent: uvm_component, handler: Callable[[Any], None],
                 board: Scoreboard | None = None) -> None:
        super().__init__(name, parent)
        self.handler, self.board = handler, board

    def write(self, item: object) -> None:
        board = self.board
        if board is None or board.checker is None:
            self.handler(item)
        else:
            board.emit()
            board.checker.put(self.handler, item)


_RESULT_REGIONS = frozenset({"P", "S", "C", "CYCLES"})  # read back to check an operation
LOG_FLUSH_S = 0.5  # txns.jsonl reaches the disk at least this often (and at every mismatch)


def json_line(record: dict[str, object]) -> str:
    """`json.dumps(record)` for a flat record of ints and strings, a few times faster for
    ints and hex strings (`hex()`: nothing to escape)."""
    parts = []
    for key, value in record.items():
        if type(value) is int:
            parts.append(f'"{key}": {value}')
        elif type(value) is str and value.startswith("0x") and value.isascii() \
                and '"' not in value and "\\" not in value:
            parts.append(f'"{key}": "{value}"')
        else:
            parts.append(f'"{key}": {json.dumps(value)}')
    return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True)
class OpPlan:
    """Where the entries of one whole operation (an OpLayout) sit in its engine log: the
    loaded registers' first entry, START, the first read, each result read (register, first
    entry, words) and STATUS."""

    length: int
    start: int  # START's entry
    first_read: int
    reads: tuple[tuple[str, int, int], ...]  # one run of entries from the first's
    status: int

    @property
    def regions(self) -> tuple[str, ...]:
        return tuple(r for r, _, _ in self.reads)

    @property
    def words(self) -> int:
        """Words the result reads return."""
        return sum(count for _, _, count in self.reads)


def op_plan(layout: OpLayout, predictor: LoaderPredictor, need: tuple[str, ...]
            ) -> OpPlan | None:
    """The plan of `layout`, or None when its reads do not read back every word of every
    result register the scoreboard needs (its operations are then checked burst by burst)."""
    reads: list[tuple[str, int, int]] = []
    k = layout.writes + 1  # after the writes (START last) and the wait for done
    for e in layout.entries[:-1]:
        if e.kind is Kind.READ:
            if e.count != predictor.readable_words(e.region):
                return None
            reads.append((e.region, k, e.count))
            k += e.count
    if layout.entries[-1].region != "STATUS" or set(need) - {r for r, _, _ in reads}:
        return None
    return OpPlan(layout.length, layout.writes - 1, layout.writes + 1, tuple(reads), k)


class Scoreboard(uvm_component):
    def __init__(self, name: str, parent: uvm_component, *, predictor: LoaderPredictor,
                 algo: AlgoInfo, coverage: Coverage, log_path: Path,
                 params: dict[str, int] | None = None, check_thread: bool = False,
                 capture: CaptureLayout | None = None, test: str = "") -> None:
        """`capture`: how the engine's done captures decode (fast mode's whole operations,
        `on_ops`); `test`: the cocotb test it checks, named in every error and log line."""
        super().__init__(name, parent)
        self.test = test
        self.capture = capture
        self.whole = 0  # operations checked whole (on_ops), without their bursts
        # id(layout) -> the layout (kept: its id stays its own) and its plan
        self._plans: dict[int, tuple[OpLayout, OpPlan | None]] = {}
        self.predictor, self.algo, self.coverage = predictor, algo, coverage
        self.params = dict(params or {})  # build parameters beyond N (reference R, model)
        self.log_path = log_path
        self.errors: list[str] = []
        self.checked = 0
        self.observed: dict[int, DoneObservation] = {}  # op index -> observation
        # fast mode: the bus transfers of a whole script reach the scoreboard after the
        # script, i.e. after the done edge inside it; a done observation then waits until the
        # predictor has seen every transfer before it (the first one at or after its time)
        self.defer_done = False
        self._pending_done: list[DoneObservation] = []
        self._logged: set[int] = set()
        self._log = log_path.open("a")
        self._flushed = time.monotonic()
        # the registers an operation's results need read back (every word) before it is
        # checked
        self._need = ("P", "CYCLES", "S", "C") if predictor.red_words else ("P", "CYCLES")
        # the bits CYCLES reads back in (its words) and, per field, the gmpy2 check of a
        # model's P (registry.reference_check: made once)
        self._cycles_bits = predictor.readable_words("CYCLES") * predictor.bus_w
        self._golden: dict[int, ReferenceCheck] = {}
        # told after each publication, each check and at the end of the checks (measurement
        # probes, verif/env/probes.py: the run's steady rate, `throughput.json`)
        self.probes: list[CheckProbe] = []
        # the checker thread (None: the handlers run in the publishing thread); mismatches
        # found on it wait in _unlogged for the main thread to log them (emit)
        self.checker = CheckThread() if check_thread else None
        self._unlogged: list[str] = []
        self._illegal = sorted(coverage.illegal_bins)  # unreachable table addresses
        # the registers txns.jsonl writes as digests (none when the run keeps its secrets)
        self._secret = predictor.secrets.registers if predictor.secrets.redacting else \
            frozenset()

    def build_phase(self) -> None:
        self.bus_sub = _Sub("bus_sub", self, self.on_bus, self)
        self.done_sub = _Sub("done_sub", self, self.on_done, self)

    def fail(self, message: str) -> None:
        """A mismatch, named by the test (its operations are numbered within it)."""
        if self.test:
            message = f"{self.test} {message}"
        self.errors.append(message)
        if self.checker is None:
            self.logger.error(f"MISMATCH {message}")
        else:  # the logger reads the simulator's time: only the main thread logs
            self._unlogged.append(message)
        self._log.flush()  # what ran up to the mismatch is on disk

    def _in_op(self, mismatch: Mismatch) -> str:
        """A word read back wrong, named by the operation it belongs to (the last one
        started), whose operands txns.jsonl holds under that index."""
        op = self.predictor.op
        return str(mismatch) if op is None else f"op {op.index}: {mismatch}"

    def hang_context(self) -> str:
        """Where a hang happened (the watchdog's prefix, verif/bus/bfm.on_hang): the test and
        the operation started last, which is written to txns.jsonl now (`"error": "hang"`)
        when its results were never read back."""
        if self.checker is not None:  # what was published before the hang, checked
            with contextlib.suppress(Exception):  # its error is raised again at the end
                self.checker.drain()
        op = self.predictor.op
        if op is None:
            return self.test
        if op.index not in self._logged:
            self._write_log(op, {"error": "hang"}, ended=False)
            self._log.flush()
        return f"{self.test} op {op.index} ({op.describe()})".strip()

    def emit(self) -> None:
        """Log the mismatches the checker thread found since the last call (main thread)."""
        while self._unlogged:
            self.logger.error(f"MISMATCH {self._unlogged.pop(0)}")

    # --- bus reads and writes -------------------------------------------------------------
    def on_bus(self, item: Transfer | list[Burst] | ScriptLog) -> None:
        """What the monitor published: one transfer (pin mode), a script's bursts or a
        script of whole operations (fast mode)."""
        if isinstance(item, list):
            on_burst = self.on_burst
            for burst in item:
                on_burst(burst)
        elif isinstance(item, ScriptLog):
            self.on_ops(item)
        else:
            self.on_transfer(item)
        for probe in self.probes:
            probe.published(self.checked)

    def on_transfer(self, t: Transfer) -> None:
        if self._pending_done:
            self._flush_done(t.time_ns)
        n_ops = len(self.predictor.ops)
        mismatch: Mismatch | None = self.predictor.observe(t)
        if mismatch:
            self.fail(self._in_op(mismatch))
        self._after(t.we, t.addr, [t.rdata], n_ops)

    def on_burst(self, b: Burst) -> None:
        if self._pending_done:
            self._flush_done(b.first_ns)
        n_ops = len(self.predictor.ops)
        for mismatch in self.predictor.observe_burst(b):
            self.fail(self._in_op(mismatch))
        self._after(b.we, b.addr, b.rdata, n_ops)

    # --- whole operations (fast mode) -------------------------------------------------------
    def on_ops(self, log: ScriptLog) -> None:
        """A script of whole operations. Each operation that went as planned (the loader
        idle at its writes, a plain accepted START, one rise of done between START and the
        first read at the model's edge, every word read back as the model's) is checked at
        once by the same steps its bursts take (the predictor's state changes, the done
        check, the operation's check and its log line); from the first that did not, the
        rest of the script is replayed as its done captures and bursts, as any script."""
        handled, used = self._whole_ops(log)
        ops = log.script.ops
        if handled == len(ops):
            return
        assert self.capture is not None, "a script of whole operations needs its capture layout"
        for time_ns, packed in log.captures[used:]:
            self.on_done(DoneObservation(time_ns, *self.capture.decode(packed)))
        layout = log.script.layout
        items = [item for op in ops[handled:] for item in op.items(layout)]
        skip = handled * layout.length
        bursts, _ = item_bursts(items, log.cycles[skip:], log.rdata[skip:], log.start_ns,
                                log.period_ns, len(log.cycles) - skip)
        for burst in bursts:
            self.on_burst(burst)

    def _whole_ops(self, log: ScriptLog) -> tuple[int, int]:
        """Check the script's operations that went as planned, in order: (operations
        checked, done captures used)."""
        layout = log.script.layout
        known = self._plans.get(id(layout))
        if known is None or known[0] is not layout:  # made once per layout
            known = self._plans[id(layout)] = (layout, op_plan(layout, self.predictor,
                                                                 self._need))
        plan = known[1]
        capture = self.capture
        if plan is None or capture is None or self._pending_done:
            return 0, 0
        predictor = self.predictor
        cycles, rdata, captures = log.cycles, log.rdata, log.captures
        period = log.period_ns
        ack0 = log.start_ns - period // 2  # a transfer's ack: half a cycle before its log time
        status = predictor.status_done()
        # the result reads of an operation compared as one slice of bytes where the log has
        # them so (else register by register, as lists of words)
        raw, size = log.rdata_bytes(), predictor.bus_w // 8
        regions, first, length = plan.regions, plan.reads[0][1], plan.words * size
        used = 0
        for i, planned in enumerate(log.script.ops):
            base = i * plan.length
            first_edge = (ack0 + cycles[base] * period) // period
            start_ns = ack0 + cycles[base + plan.start] * period
            read_ns = ack0 + cycles[base + plan.first_read] * period
            found = predictor.plan_start(planned.values, planned.ctrl, first_edge)
            if found is None or used >= len(captures):
                return i, used
            values, field, result = found
            end_edge = start_ns // period + result.cycles
            done_ns, packed = captures[used]
            if not start_ns < done_ns <= read_ns or done_ns // period != end_edge \
                    or read_ns // period <= end_edge or rdata[base + plan.status] != status \
                    or (used + 1 < len(captures) and captures[used + 1][0] <= read_ns):
                return i, used
            if raw is not None:
                at = (base + first) * size
                if raw[at:at + length] != predictor.expected_bytes(result, regions):
                    return i, used
            else:
                for region, k, count in plan.reads:
                    if rdata[base + k:base + k + count] != predictor.expected_words(result,
                                                                                     region):
                        return i, used
            op = predictor.commit_start(planned.loads(layout), values, first_edge,
                                        start_ns // period, field, result)
            self._check_done(DoneObservation(done_ns, *capture.decode(packed)))
            predictor.settle(read_ns // period)
            if not self._log_whole(op, result):  # its words as read back, and its messages
                for region, k, count in plan.reads:
                    predictor.read_back(op, region, rdata[base + k:base + k + count])
                self._check_operation(op)
            self.coverage.sample_error("ERR_NONE")  # the STATUS read
            self.whole += 1
            used += 1
        return len(log.script.ops), used

    def _log_whole(self, op: Operation, res: Result) -> bool:
        """_check_operation of an operation whose every word read back was the model's
        (on_ops): the same checks, log line and count, with what read-back-as-the-model
        settles taken as settled (P, S and C are the model's, CYCLES the model's count where
        its words hold it, the promise holds of the model's values). False where the model's
        P disagrees with gmpy2, or CYCLES cannot hold the count: then nothing is logged, and
        _check_operation runs (its messages) with the words read back."""
        golden = self._golden.get(op.field)
        if golden is None:
            golden = self._golden[op.field] = reference_check(self.algo, self.predictor.n,
                                                              op.field, self.params)
        if res.cycles >> self._cycles_bits or not golden(res.p, op.args) \
                or op.index not in self.observed:
            return False
        self.checked += 1
        text = f'"p": "{res.p:#x}", "cycles": {res.cycles}'
        if self.predictor.red_words:
            text += f', "s": "{res.s:#x}", "c": "{res.c:#x}"'
        self._write_log(op, None, text)
        for probe in self.probes:
            probe.operation_checked()
        return True

    def _after(self, we: bool, addr: int, rdata: list[int], n_ops: int) -> None:
        """Coverage and checks that follow transfers at addr, addr + 1, ... (the predictor
        has seen them)."""
        if we:  # a write only changes the predictor's state, or starts an operation
            for op in self.predictor.ops[n_ops:]:
                if op.error != "ERR_NONE":
                    self._write_log(op, {"error": op.error})
            return
        name = self.predictor.region_of(addr, len(rdata))
        if name is ACROSS:
            for k, word in enumerate(rdata):  # a burst across registers: word by word
                self._after(False, addr + k, [word], n_ops)
            return
        if name == "STATUS":
            rm = self.predictor.rm
            field = rm.fields["STATUS"]["ERR"]
            for word in rdata:
                self.coverage.sample_error(rm.error_name(field.get(word)))
        elif name in _RESULT_REGIONS:  # the operation is complete once all of them are read
            current = self.predictor.op
            if current is not None and current.index not in self._logged \
                    and self._fully_read(current):
                self._check_operation(current)

    def _fully_read(self, op: Operation) -> bool:
        read = op.read_words
        for region in self._need:  # a loop, not all(genexpr): once per result burst
            words = read.get(region)
            if words is None or None in words:
                return False
        return True

    def _assemble(self, op: Operation, region: str) -> int:
        """A result register's value as read back (every word read: _fully_read)."""
        return regmap.join(op.read_words[region], self.predictor.bus_w)  # type: ignore[arg-type]

    def _check_operation(self, op: Operation) -> None:
        """The whole operation as read back over the bus, against gmpy2 and the model."""
        assert op.result is not None
        res = op.result
        # Read back word for word as the model's value (the predictor checked every word
        # against it and flags the operation otherwise): P, S and C are the model's, with no
        # join of their words; else they are assembled from what was read.
        exact = not op.read_mismatch
        p = res.p if exact else self._assemble(op, "P")
        args, n = op.args, self.predictor.n
        # P and the model's P against gmpy2 (a Montgomery product as a congruence, with no
        # modular inverse: matches_reference); the expected value only for a message
        model_ok = matches_reference(self.algo, res.p, *args, n, field=op.field, **self.params)
        p_ok = model_ok if p == res.p else matches_reference(self.algo, p, *args, n,
                                                               field=op.field, **self.params)
        golden = "gf2" if self.algo.has_field and op.field else "gmpy2"

        def tag() -> str:  # built only for a failure (hex of every operand)
            field = f" field={'GF(2^n)' if op.field else 'GF(p)'}" if self.algo.has_field else ""
            return f"op {op.index} ({op.describe()}){field}"

        if not (p_ok and model_ok):
            expected_p = reference(self.algo, *args, n, field=op.field, **self.params)
            # a design whose P may reach past M owes a congruent P within its promise
            promise = self.algo.design.promise.get("p", "p < m")
            want = f"0x{expected_p:x}" + ("" if promise == "p < m" or op.field
                                          else f" mod M, {promise}")
            if not p_ok:
                self.fail(f"{tag()}: P = 0x{p:x}, {golden} expects {want}")
            if not model_ok:
                self.fail(f"{tag()}: model P 0x{res.p:x} disagrees with {golden} {want}")
        fields: dict[str, object] = {"p": hex(p), "cycles": self._assemble(op, "CYCLES")}
        if fields["cycles"] != res.cycles:
            self.fail(f"{tag()}: CYCLES = {fields['cycles']}, model expects {res.cycles}")
        before = res.before_sub  # the value the final reduction starts from
        if self.predictor.red_words:
            assert res.s is not None and res.c is not None  # a model with S and C
            s, c = (res.s, res.c) if exact else (self._assemble(op, "S"),
                                                 self._assemble(op, "C"))
            if (s, c) != (res.s, res.c):
                self.fail(f"{tag()}: S/C = 0x{s:x}/0x{c:x}, model expects "
                          f"0x{res.s:x}/0x{res.c:x}")
            fields |= {"s": hex(s), "c": hex(c)}
            before = s + c
        # what the design promises over its operand domain (its descriptor's [operands]
        # promise), of the values read back; values read back as the model's hold it already
        # (the predictor's model is held to the promise: registry.AlgoInfo.model)
        if p != res.p or before != res.before_sub:
            for broken in promise_broken(self.algo, p, before, (*args, n), op.field,
                                         self.params):
                self.fail(f"{tag()}: {broken}")
        if op.index not in self.observed:
            self.fail(f"{tag()}: results read back but no done edge was observed")
        self.checked += 1
        self._write_log(op, fields)
        for probe in self.probes:
            probe.operation_checked()

    # --- the done edge --------------------------------------------------------------------
    def on_done(self, obs: DoneObservation) -> None:
        if self.defer_done:
            self._pending_done.append(obs)
        else:
            self._check_done(obs)

    def _flush_done(self, until_ns: float | None = None) -> None:
        """Check the deferred done observations up to `until_ns` (all when None)."""
        while self._pending_done and (until_ns is None
                                      or self._pending_done[0].time_ns <= until_ns):
            self._check_done(self._pending_done.pop(0))

    def _check_done(self, obs: DoneObservation) -> None:
        op = self.predictor.op
        if op is None or op.result is None:
            self.fail(f"@{obs.time_ns}ns: done rose with no operation running")
            return
        period = self.predictor.period_ns
        edge = int(obs.time_ns // period)
        if edge != op.end_edge:
            self.fail(f"op {op.index}: done rose {edge - op.start_edge} cycles after START, "
                      f"model expects {op.result.cycles}")
        hits = obs.lut_hits
        if self._illegal:
            illegal = [a for a in self._illegal if a < len(hits) and hits[a]]
            if illegal:
                self.fail(f"op {op.index}: unreachable table/selection address(es) {illegal} "
                          "were used")
        if hits:
            lut = op.result.lut  # the model's hits at the observed addresses
            model_hits = [lut.get(a, 0) for a in range(len(hits))]
            if hits != model_hits:
                self.fail(f"op {op.index}: table-address hits {obs.lut_hits}, model expects "
                          f"{model_hits}")
        sub_expected = None
        if (before := op.result.before_sub) is not None:
            sub_expected = before >= op.m
        # A model with neither S/C nor the unreduced value (mont_qp's last reduction step is
        # no final subtraction): the observed flag is only sampled (a wrong step shows as a P
        # mismatch).
        if None not in (obs.sub_taken, sub_expected) and obs.sub_taken != sub_expected:
            self.fail(f"op {op.index}: final subtraction taken={obs.sub_taken}, model "
                      f"{sub_expected}")
        self.observed[op.index] = obs
        self.coverage.sample_operation(op.operands, self.predictor.n, obs.lut_hits,
                                       bool(obs.sub_taken if obs.sub_taken is not None
                                            else sub_expected), field=op.field)

    # --- log and final checks -------------------------------------------------------------
    def _write_log(self, op: Operation, fields: dict[str, object] | None,
                   text: str = "", ended: bool = True) -> None:
        """One line of txns.jsonl: the operands and the values read back in hex, cycles and
        times as numbers (`fields`, or `text`: them as json_line writes them, without its
        braces)."""
        self._logged.add(op.index)
        period = self.predictor.period_ns
        parts = [f'"test": "{self.test}", "op": {op.index}' if self.test else
                 f'"op": {op.index}']
        secret = self._secret  # secret registers are written as digests (host.secrets)
        for name, value in op.operands.items():  # register names need no JSON escapes
            shown = op.secrets.show(name, value) if name in secret else f"{value:#x}"
            parts.append(f'"{name.lower()}": "{shown}"')
        if self.algo.has_field:
            parts.append(f'"field": {op.field}')
        parts.append(f'"start_ns": {op.start_edge * period}')
        if fields:
            parts.append(json_line(fields)[1:-1])
        elif text:
            parts.append(text)
        if op.result is not None and ended:
            parts.append(f'"end_ns": {op.end_edge * period}')
        self._log.write("{" + ", ".join(parts) + "}\n")
        if (now := time.monotonic()) - self._flushed >= LOG_FLUSH_S:
            self._log.flush()
            self._flushed = now

    def check_phase(self) -> None:
        if self.checker is not None:
            try:
                self.checker.drain()
            finally:
                self.emit()
        self._flush_done()
        for probe in self.probes:
            probe.checks_done(self.checked, self.checker is not None, self.whole)
        unread = [op.index for op in self.predictor.ops
                  if op.error == "ERR_NONE" and op.index not in self._logged]
        # Only the last operation may legitimately be overwritten by none: any accepted
        # operation that was never read back fully was not checked.
        for index in unread:
            self.fail(f"op {index} was started but its results were never read back")
        self._log.close()
        if self.errors:
            raise AssertionError(f"{len(self.errors)} mismatch(es); first: {self.errors[0]}")
        if not self.predictor.ops:
            raise AssertionError("no operation was started: the test checked nothing")
        self.logger.info(f"scoreboard: {self.checked} operations checked, "
                         f"{len(self.predictor.ops) - self.checked} rejected as expected")
