"""The RSA core's fast mode (BUS=engine): what the simulation recorded besides the bus, read
once per engine script and handed on in the order it happened.

The engine wrapper records every product of the core's multipliers (two, or the one that
runs both products of a step in turn; verif/hdl/mv_product_log.sv) and, at every rise of
done, the registers that must be wiped (the engine's done capture). `ProductLog` reads the
products recorded since its last read, in place where the simulator allows. `TimeOrder`
holds a script's bursts, products and done captures until the script ends, then publishes
them by time: bursts before a product only when they happened before it, the products of an
operation before its done edge, the done edge before the reads after it. The scoreboard sees
what the pin-mode monitors report, in the same order, with Python woken once per script
instead of twice per product.
"""

from __future__ import annotations

from collections.abc import Callable

from montverif.verif.bus.engine_layout import (
    PRODUCT_HEAD_BYTES,
    PRODUCT_INSTANCE,
    EngineError,
    ProductTap,
)
from montverif.verif.bus.handles import Handle
from montverif.verif.bus.item import Burst
from montverif.verif.bus.vpi import open_storage, open_wide, read_uint
from montverif.verif.env.rsa_items import MultTxn, WipeObservation, mult_names


class ProductLog:
    """The products mv_product_log recorded, as MultTxns (times: the rising clock edges of
    busy, as the pin-mode monitor reports them)."""

    def __init__(self, top: Handle, tap: ProductTap, period_ns: int) -> None:
        prod = getattr(top, PRODUCT_INSTANCE)
        self.tap, self.half = tap, period_ns // 2
        self.store = prod.tb_prod_q
        self.io = open_wide(self.store)
        count = open_storage(prod.tb_prod_count_q)
        self.count: Callable[[], int] = (count.read_uint if count is not None
                                         else lambda: read_uint(prod.tb_prod_count_q))
        self.seen = 0

    @property
    def names(self) -> tuple[str, ...]:
        """Multiplier index k -> its name: A and S, or the one multiplier (rsa_items)."""
        return mult_names(len(self.tap.mults))

    def _bytes(self, size: int) -> bytes:
        if self.io is not None:
            return self.io.read_bytes(size)
        return read_uint(self.store).to_bytes(len(self.store) // 8, "little")[:size]

    def drain(self) -> list[MultTxn]:
        """The products recorded since the last call, oldest first."""
        total = self.count()
        new = total - self.seen
        if new == 0:
            return []
        tap = self.tap
        if new > tap.depth:
            raise EngineError(f"the multipliers ran {new} products between two reads of the "
                              f"product log, which keeps {tap.depth} (one exponentiation's)")
        first, last = self.seen % tap.depth, (total - 1) % tap.depth
        ent, slot = tap.entry_bytes, tap.slot // 8
        data = self._bytes((tap.depth if last < first else last + 1) * ent)
        out: list[MultTxn] = []
        for i in range(self.seen, total):
            at = (i % tap.depth) * ent
            t0, t1, k = (int.from_bytes(data[at + 8 * j:at + 8 * j + 8], "little")
                         for j in range(3))
            x, y, m, p, s, c = (int.from_bytes(data[v:v + slot], "little") for v in range(
                at + PRODUCT_HEAD_BYTES, at + ent, slot))
            out.append(MultTxn(self.names[k], x, y, m, p, s, c, t0 - self.half,
                               t1 - self.half))
        self.seen = total
        return out


def wipe_values(tap: ProductTap, packed: int) -> dict[str, int]:
    """The wipe registers of one done capture (`tap.wipe`'s order, one Slot each from the
    least significant)."""
    mask = (1 << tap.slot) - 1
    return {path: (packed >> (k * tap.slot)) & mask for k, path in enumerate(tap.wipe)}


class TimeOrder:
    """Holds one script's events and publishes them by time when it ends."""

    def __init__(self, log: ProductLog, tap: ProductTap,
                 bursts: Callable[[list[Burst]], None], product: Callable[[MultTxn], None],
                 wipe: Callable[[WipeObservation], None]) -> None:
        self.log, self.tap = log, tap
        self.to_bursts, self.to_product, self.to_wipe = bursts, product, wipe
        self.bursts: list[Burst] = []
        self.dones: list[WipeObservation] = []

    def on_bursts(self, bursts: list[Burst]) -> None:
        self.bursts += bursts

    def on_done(self, time_ns: int, packed: int) -> None:
        self.dones.append(WipeObservation(time_ns, wipe_values(self.tap, packed)))

    def on_script_end(self) -> None:
        # (time, rank, index): at one time a product ends before done rises, and done before
        # a transfer is acknowledged
        keyed: list[tuple[float, int, int, object]] = []
        keyed += [(t.end_ns, 0, k, t) for k, t in enumerate(self.log.drain())]
        keyed += [(w.time_ns, 1, k, w) for k, w in enumerate(self.dones)]
        keyed += [(b.first_ns, 2, k, b) for k, b in enumerate(self.bursts)]
        self.bursts, self.dones = [], []
        run: list[Burst] = []  # consecutive bursts go out as one publication
        for _, rank, _, event in sorted(keyed, key=lambda e: e[:3]):
            if rank == 2:
                run.append(event)  # type: ignore[arg-type]
                continue
            if run:
                self.to_bursts(run)
                run = []
            if rank == 0:
                self.to_product(event)  # type: ignore[arg-type]
            else:
                self.to_wipe(event)  # type: ignore[arg-type]
        if run:
            self.to_bursts(run)
