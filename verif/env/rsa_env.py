"""The RSA core environment: bus agent and loader predictor (reused from the multiplier
env), a passive monitor on each internal Montgomery multiplier, a done-edge observer for the
wipe check, the RSA scoreboard and coverage.

A core with one multiplier (rsa_core Units = 1) has one monitor, on that multiplier, and the
scoreboard checks its products against Algorithm 4's in the order the core runs them (A*S,
then S*S, each step). In pin mode the multiplier monitors wake twice per product (the rising
edge of the multiplier's busy: operands; its falling edge: result), never per clock. In fast
mode (BUS=engine) neither they nor the done observer wake: the simulation records the
products and the done edges' wipe registers, and verif/env/rsa_capture.py hands them on
after each engine script, in time order with the bus traffic.
"""

from __future__ import annotations

import gmpy2
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from cocotb.utils import get_sim_time
from pyuvm import ConfigDB, uvm_analysis_port, uvm_component, uvm_env

from montverif.models import inter, vhr
from montverif.models import rsa as rsa_model
from montverif.models.mont import final_sub
from montverif.models.registry import get_algo, reference
from montverif.models.result import ModelInputError
from montverif.spec import regmap
from montverif.spec.design import MULT_SIGNALS, RSA_MODULUS, Design
from montverif.verif.bus.agent import BusAgent, BusIf
from montverif.verif.bus.engine_layout import product_tap
from montverif.verif.config import RunConfig
from montverif.verif.env.env import _handle
from montverif.verif.env.predictor import LoaderPredictor, Operation
from montverif.verif.env.probes import make_probes
from montverif.verif.env.rsa_capture import ProductLog, TimeOrder
from montverif.verif.env.rsa_coverage import RsaCoverage
from montverif.verif.env.rsa_items import ONE_UNIT, MultTxn, WipeObservation, mult_names
from montverif.verif.env.scoreboard import Scoreboard, _Sub


class MultMonitor(uvm_component):
    """Passive monitor of one multiplier inside the core (signals <prefix>_busy, _x, ...)."""

    def __init__(self, name: str, parent: uvm_component, mult: str, prefix: str) -> None:
        super().__init__(name, parent)
        self.mult, self.prefix = mult, prefix

    def build_phase(self) -> None:
        self.ap = uvm_analysis_port("ap", self)
        self.bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        self.design: Design = ConfigDB().get(self, "", "DESIGN")

    async def run_phase(self) -> None:
        if self.bus_if.engine:
            return  # the simulation records the products (verif/env/rsa_capture.py)
        core = _handle(self.bus_if.dut, self.design.rsa_at({}).core)  # no variant moves it
        sig = {k: _handle(core, f"{self.prefix}_{k}") for k in MULT_SIGNALS}
        m_sig = getattr(core, RSA_MODULUS)
        while True:
            await RisingEdge(sig["busy"])
            t0 = get_sim_time("ns")
            await ReadOnly()
            x, y, m = int(sig["x"].value), int(sig["y"].value), int(m_sig.value)
            await FallingEdge(sig["busy"])
            t1 = get_sim_time("ns")
            await ReadOnly()
            self.ap.write(MultTxn(self.mult, x, y, m, int(sig["p"].value), int(sig["s"].value),
                                  int(sig["c"].value), t0, t1))


class WipeObserver(uvm_component):
    """At each rising edge of done_o, reads the registers that must hold no secret."""

    def build_phase(self) -> None:
        self.ap = uvm_analysis_port("ap", self)
        self.bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        self.design: Design = ConfigDB().get(self, "", "DESIGN")

    async def run_phase(self) -> None:
        if self.bus_if.engine:
            return  # the bus engine captures the registers at done (rsa_capture.TimeOrder)
        dut = self.bus_if.dut
        run: RunConfig = ConfigDB().get(self, "", "RUN")
        paths = list(self.design.rsa_at(run.params).wipe)
        handles = {p: _handle(dut, p) for p in paths}
        while True:
            await RisingEdge(self.bus_if.done)
            t = get_sim_time("ns")
            await ReadOnly()
            self.ap.write(WipeObservation(t, {p: int(h.value) for p, h in handles.items()}))


class RsaScoreboard(Scoreboard):
    """Every bus read against the predictor (base class); every product of both multipliers
    (or of the one, in the order it runs them) against gmpy2 and against the operand chain
    of Algorithm 4; the final result against gmpy2.powmod; the cycle count against the model;
    the wipe at every done edge."""

    def __init__(self, name: str, parent: uvm_component, **kw: object) -> None:
        super().__init__(name, parent, **kw)  # type: ignore[arg-type]
        self.n = self.predictor.n
        self.r_bits = rsa_model.r_bits(self.n, **self.params)  # R of the multiplier inside
        # Lazy (mont_qp): the products stay unreduced on a multiplier this wide, each the
        # multiplier's own value (models.vhr.lazy_product); the core reduces the last one
        full = self.algo.defaults() | self.params
        self.lazy = bool(full.get("Lazy")) and full.get("Mult") == 5
        # the interleaved multiplier: P = (S + C) mod M (its FIN cycle), no Montgomery domain
        self.direct = full.get("Mult") in rsa_model.DIRECT_MULTS
        self.formula = "x*y mod m" if self.direct else f"x*y*2^-{self.r_bits} mod m"
        # MM42: carry-save pairs chained from product to product
        self.mult = int(full.get("Mult", 0))
        self.pairs = self.mult in rsa_model.PAIR_MULTS
        self.width = rsa_model.width(self.n, **full)
        self.vwp = (full.get("V", 16), full.get("W", 16), full.get("P", 1))
        self._prod_op = -1
        # the multipliers' names: A and S, or the one that runs both products (Units = 1)
        self.mults = ("A", "S") if self.params.get("Units", 2) == 2 else (ONE_UNIT,)
        self._seen: dict[str, list[MultTxn]] = {k: [] for k in self.mults}
        self._expected: dict[str, list[rsa_model.Product]] = {k: [] for k in self.mults}
        self._steps: list[list[rsa_model.Product]] = []
        self._rinv: dict[int, int] = {}
        self.products_checked = 0
        self.products_expected = 0  # over every operation begun (none: E = 0 in variable time)

    def build_phase(self) -> None:
        super().build_phase()
        self.mult_sub = _Sub("mult_sub", self, self.on_product)
        self.wipe_sub = _Sub("wipe_sub", self, self.on_wipe)

    def mont(self, x: int, y: int, m: int) -> int:
        if m not in self._rinv:
            self._rinv[m] = int(gmpy2.invert(gmpy2.mpz(1) << self.r_bits, m)) if m > 1 else 0
        return int(gmpy2.f_mod(gmpy2.mpz(x) * y * self._rinv[m], m))

    def _begin(self, op: Operation) -> None:
        x, e, m = op.args
        self._prod_op = op.index
        self._seen = {k: [] for k in self.mults}
        self._steps = rsa_model.products(x, e, m, self.n, **self.params)
        flat = [p for step in self._steps for p in step]  # the order one multiplier runs them
        self._expected = {k: [p for p in flat if k in (ONE_UNIT, p.mult)] for k in self.mults}
        self.products_expected += len(flat)

    def on_product(self, t: MultTxn) -> None:
        op = self.predictor.op
        if op is None or op.result is None:
            self.fail(f"@{t.start_ns}ns: multiplier {t.mult} ran with no operation")
            return
        if op.index != self._prod_op:
            self._begin(op)
        if t.mult not in self._seen:
            self.fail(f"@{t.start_ns}ns: a product on multiplier {t.mult}, which this core "
                      f"does not have ({', '.join(self.mults)})")
            return
        k = len(self._seen[t.mult])
        self._seen[t.mult].append(t)
        exp = self._expected[t.mult]
        role = f", {exp[k].mult}'s" if t.mult == ONE_UNIT and k < len(exp) else ""
        tag = f"op {op.index} multiplier {t.mult} product {k}{role} (@{t.start_ns}ns)"
        if t.m != op.m:
            self.fail(f"{tag}: M = 0x{t.m:x}, loaded 0x{op.m:x}")
            return
        # the products' values follow from the secret exponent (whether A changes at a step
        # is a bit of it): left out of the messages unless the run keeps its secrets
        v = self.predictor.secrets.derived
        if self.pairs:
            self._check_pair(t, tag, exp[k].mult if k < len(exp) else "")
            reduced = False
        else:
            reduced = self._check_value(t, tag)
        # the final subtraction of A's or S's product (inter_lut has none: (S + C) mod M)
        if reduced and not self.direct and k < len(exp):
            self.coverage.sample_final_sub(  # type: ignore[attr-defined]
                exp[k].mult, t.s + t.c >= t.m)
        if k >= len(exp):
            self.fail(f"{tag}: Algorithm 4 needs only {len(exp)} products on this multiplier")
        elif (t.x, t.y) != (exp[k].x, exp[k].y):
            self.fail(f"{tag} (step {exp[k].step}): operands ({v(t.x)}, {v(t.y)}), "
                      f"Algorithm 4 expects ({v(exp[k].x)}, {v(exp[k].y)})")
        self.products_checked += 1

    def _check_value(self, t: MultTxn, tag: str) -> bool:
        """A product that is one number: against gmpy2 and its S and C (reduced: whether
        it was, for the final-subtraction coverage)."""
        v = self.predictor.secrets.derived
        want = self.mont(t.x, t.y, t.m)
        # reduced fully: every product, but none with Lazy (the core reduces the last one)
        reduced = not self.lazy
        if reduced and t.p != want:
            self.fail(f"{tag}: P = {v(t.p)}, gmpy2 {self.formula} = {v(want)} "
                      f"(x={v(t.x)}, y={v(t.y)})")
        if reduced and self.direct:
            self._check_direct(t, tag)
        elif reduced and t.p != final_sub(t.s + t.c, t.m):
            self.fail(f"{tag}: P = {v(t.p)} is not S + C ({v(t.s + t.c)}) reduced once")
        if not reduced:
            self._check_lazy(t, tag, want)
        return reduced

    def _check_pair(self, t: MultTxn, tag: str, role: str) -> None:
        """MM42 (Mult = 7, 8): operands and product are carry-save pairs. The product's
        value (its halves' sum) is congruent to gmpy2's x*y*R^-1 of the operands' values and
        below 2M; the pair is the multiplier's own, bit for bit (models/mm42.py), and the s
        port its reduced P (c = 0)."""
        v = self.predictor.secrets.derived
        x, y, got = (rsa_model.pair(w, self.n) for w in (t.x, t.y, t.p))
        value, want = sum(got), self.mont(sum(x), sum(y), t.m)
        if (value - want) % t.m or value >= 2 * t.m:
            self.fail(f"{tag}: the pair's value {v(value)} is not gmpy2's {self.formula} = "
                      f"{v(want)} (x={v(sum(x))}, y={v(sum(y))}) plus 0 or M")
            return
        model = rsa_model.PAIR_MODELS[self.mult](*x, *y, t.m, self.n + 1)
        pair = (model.s or 0) | (model.c or 0) << (self.n + 1)
        if (t.p, t.s, t.c) != (pair, model.p, 0):
            self.fail(f"{tag}: pair {v(t.p)}, P {v(t.s)}, C {v(t.c)}; models.mm42 gives "
                      f"pair {v(pair)}, P {v(model.p)}, C 0")
        if role:  # the multiplier's own final subtraction (its reduced P)
            self.coverage.sample_final_sub(role, value >= t.m)  # type: ignore[attr-defined]

    def _check_direct(self, t: MultTxn, tag: str) -> None:
        """The interleaved multiplier (inter_lut): its S and C after the loop as the
        bit-accurate model computes them (on the normalised modulus), and P their sum
        reduced (its FIN cycle)."""
        v = self.predictor.secrets.derived
        try:
            model = inter.inter_lut(t.x, t.y, t.m, self.width)
        except ModelInputError as exc:
            self.fail(f"{tag}: operands outside the interleaved multiplier's range: {exc}")
            return
        want_s, want_c = model.s or 0, model.c or 0
        if (t.s, t.c) != (want_s, want_c):
            self.fail(f"{tag}: S = {v(t.s)}, C = {v(t.c)}; models.inter.inter_lut gives "
                      f"S = {v(want_s)}, C = {v(want_c)}")
        z = self.width - t.m.bit_length()
        if t.p != ((t.s + t.c) % (t.m << z)) >> z:
            self.fail(f"{tag}: P = {v(t.p)} is not S + C ({v(t.s + t.c)}) reduced mod "
                      f"M * 2^{z} and shifted right by {z}")

    def _check_lazy(self, t: MultTxn, tag: str, want: int) -> None:
        """An unreduced product (Lazy): the residue gmpy2 computes, the multiplier's own value
        (models.vhr.lazy_product on these operands) and that value as S (no C)."""
        v = self.predictor.secrets.derived
        if (t.p - want) % t.m:
            self.fail(f"{tag}: P = {v(t.p)} is not congruent to gmpy2 x*y*2^-{self.r_bits} "
                      f"mod m = {v(want)} (x={v(t.x)}, y={v(t.y)})")
            return
        try:
            model = vhr.lazy_product(t.x, t.y, t.m, self.width, *self.vwp)
        except (ModelInputError, AssertionError) as exc:
            self.fail(f"{tag}: operands outside the lazy multiplier's range: {exc}")
            return
        if (t.p, t.s, t.c) != (model, model, 0):
            self.fail(f"{tag}: P = {v(t.p)}, S = {v(t.s)}, C = {v(t.c)}; the unreduced "
                      f"product of models.vhr is {v(model)} (P and S, C = 0)")

    def on_done(self, obs: object) -> None:  # the base's done subscriber is not connected
        raise NotImplementedError

    def on_wipe(self, obs: WipeObservation) -> None:
        op = self.predictor.op
        if op is None or op.result is None:
            self.fail(f"@{obs.time_ns}ns: done rose with no operation running")
            return
        tag = f"op {op.index}"
        edge = int(obs.time_ns // self.predictor.period_ns)
        if edge != op.end_edge:
            self.fail(f"{tag}: done rose {edge - op.start_edge} cycles after START, "
                      f"model expects {op.result.cycles}")
        left = {p: v for p, v in obs.values.items() if v}
        if left:  # what they hold follows from the secret exponent: shown only when kept
            p, v = next(iter(left.items()))
            self.fail(f"{tag}: not wiped at the end of the operation: {', '.join(left)} "
                      f"(first: {p} = {self.predictor.secrets.derived(v)})")
        if op.index != self._prod_op:
            self._begin(op)  # none seen: none may be due (inter_lut, E = 0, variable time)
            if any(self._expected.values()):
                self.fail(f"{tag}: no multiplier product was observed")
        if not any(self._expected.values()) or any(self._seen.values()):
            for mult in self.mults:
                seen, exp = len(self._seen[mult]), len(self._expected[mult])
                if seen != exp:
                    self.fail(f"{tag}: multiplier {mult} ran {seen} products, Algorithm 4 "
                              f"needs {exp}")
            cov: RsaCoverage = self.coverage  # type: ignore[assignment]
            x, e, m = op.args
            cov.sample_exp(x, e, m, self.n)
            loop = range(1, len(self._steps) + (1 if self.direct else -1))
            for step in self._steps:
                kinds, i = {p.mult for p in step}, step[0].step  # 0: TO, then LOOP, FROM
                if i not in loop:
                    cov.sample_step("to:A+S" if i == 0 else "from:A")
                else:
                    kept = "A_kept" if (e >> (i - 1)) & 1 else "A_discarded"
                    cov.sample_step("loop:" + "+".join(
                        ([kept] if "A" in kinds else []) + (["S"] if "S" in kinds else [])))
        self.observed[op.index] = obs  # type: ignore[assignment]

    def _check_operation(self, op: Operation) -> None:
        assert op.result is not None
        res, p = op.result, self._assemble(op, "P")
        tag = f"op {op.index} ({op.describe()})"
        x, e, m = op.args
        expected_p = reference(self.algo, x, e, m, self.n, **self.params)
        if p != expected_p:
            self.fail(f"{tag}: P = 0x{p:x}, gmpy2.powmod expects 0x{expected_p:x}")
        if res.p != expected_p:
            self.fail(f"{tag}: model P 0x{res.p:x} disagrees with gmpy2 0x{expected_p:x}")
        cycles = self._assemble(op, "CYCLES")
        if cycles != res.cycles:
            self.fail(f"{tag}: CYCLES = {cycles}, model expects {res.cycles}")
        if op.index not in self.observed:
            self.fail(f"{tag}: results read back but no done edge was observed")
        self.checked += 1
        self._write_log(op, {"p": hex(p), "cycles": cycles,
                             "products": sum(len(s) for s in self._steps)})

    def check_phase(self) -> None:
        if self.checked and self.products_expected and not self.products_checked:
            self.fail("operations ran but no multiplier product was observed")
        super().check_phase()
        self.logger.info(f"scoreboard: {self.products_checked} multiplier products checked")


class RsaEnv(uvm_env):
    def build_phase(self) -> None:
        self.run_cfg: RunConfig = ConfigDB().get(self, "", "RUN")
        self.design: Design = ConfigDB().get(self, "", "DESIGN")
        bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        algo = get_algo(self.design.model)
        self.predictor = LoaderPredictor(regmap.load(), self.design, self.run_cfg.n,
                                         self.run_cfg.bus_w, algo.model(self.run_cfg.params),
                                         bus_if.period_ns,
                                         secrets=self.run_cfg.secrets(self.design))
        full = algo.defaults() | self.run_cfg.params
        self.coverage = RsaCoverage(self.design.name, bool(full.get("ConstTime", 1)),
                                    full.get("Mult") in rsa_model.DIRECT_MULTS)
        self.agent = BusAgent("agent", self)
        names = list(self.design.rsa_at(self.run_cfg.params).mults)
        self.monitors = [MultMonitor(f"mon_{k}", self, k, prefix)
                         for k, prefix in zip(mult_names(len(names)), names, strict=True)]
        self.wipe = WipeObserver("wipe", self)
        self.scoreboard = RsaScoreboard("scoreboard", self, predictor=self.predictor,
                                        algo=algo, params=self.run_cfg.params,
                                        coverage=self.coverage,
                                        log_path=self.run_cfg.log_dir / "txns.jsonl")
        self.probes = make_probes(self, self.run_cfg)

    def connect_phase(self) -> None:
        self.agent.monitor.ap.connect(self.scoreboard.bus_sub.analysis_export)
        for mon in self.monitors:
            mon.ap.connect(self.scoreboard.mult_sub.analysis_export)
        self.wipe.ap.connect(self.scoreboard.wipe_sub.analysis_export)
        bus_if: BusIf = ConfigDB().get(self, "", "BUS_IF")
        tap = product_tap(self.design, self.run_cfg.n, self.run_cfg.params)
        if bus_if.engine and tap is not None:  # fast mode: one script's events in time order
            by_name = {mon.mult: mon for mon in self.monitors}
            order = TimeOrder(ProductLog(bus_if.dut, tap, bus_if.period_ns), tap,
                              self.agent.monitor.publish,
                              lambda t: by_name[t.mult].ap.write(t), self.wipe.ap.write)
            driver = self.agent.driver
            driver.publish_to, driver.on_done = order.on_bursts, order.on_done
            driver.on_script_end = order.on_script_end
        if self.probes is not None:
            self.probes.attach(self.agent.driver, self.scoreboard)

    def report_phase(self) -> None:
        self.coverage.export(self.run_cfg.log_dir)
