"""Sequences of the RSA core: exponentiations over the bus with real gmpy2 RSA keys, edge and
random exponents, the constant-time check, the wipe check and the error paths.

Every bus read is checked by the scoreboard (predictor + gmpy2); the sequences that test a
property (encrypt/decrypt round trip, constant time, wipe, error codes) also assert it
themselves, so those tests do not rest on the scoreboard alone.
"""

from __future__ import annotations

import random

import gmpy2
from pyuvm import ConfigDB

from montverif.models import rsa as rsa_model
from montverif.spec.designs import load_design
from montverif.verif.bus.agent import BusIf
from montverif.verif.bus.handles import Handle
from montverif.verif.context import SeqContext
from montverif.verif.env.env import _handle
from montverif.verif.env.rsa_vectors import load_rsa_vectors
from montverif.verif.sequences import LoaderSeq
from montverif.verif.vectors import directed_file

KEY_TRIES = 1000  # random prime pairs tried before a small width is searched exhaustively


class NoKeyError(ValueError):
    """No RSA key of that width has that public exponent."""


def rsa_key(n: int, e: int, rng: random.Random) -> tuple[int, int]:
    """A real RSA key of exactly n bits with public exponent e: (modulus, private d).
    Raises NoKeyError when none exists (at n = 8 no two primes of four bits have a phi
    prime to 3)."""
    half = n // 2

    def key(p: int, q: int) -> tuple[int, int] | None:
        mod, phi = p * q, (p - 1) * (q - 1)
        if p != q and mod.bit_length() == n and gmpy2.gcd(e, phi) == 1:
            return mod, int(gmpy2.invert(e, phi))
        return None

    for _ in range(KEY_TRIES):
        p = int(gmpy2.next_prime(rng.getrandbits(half) | (3 << (half - 2))))
        q = int(gmpy2.next_prime(rng.getrandbits(n - half) | (3 << (n - half - 2))))
        if found := key(p, q):
            return found
    if n > 24:  # random draws practically always succeed at real widths
        raise NoKeyError(f"no {n}-bit RSA key with e={e} in {KEY_TRIES} random draws")
    primes = [int(v) for v in range(3, 1 << (n - 1)) if gmpy2.is_prime(v)]  # odd moduli
    keys = [k for p in primes for q in primes if p < q and (k := key(p, q))]
    if not keys:
        raise NoKeyError(f"no {n}-bit RSA key has e={e}")
    return rng.choice(keys)


class RsaSeq(LoaderSeq):
    """Base: one exponentiation = load X, E, M (+ R2, MP), START, wait, read P and CYCLES.

    E is the design's secret (its descriptor's [operands] secret): a check that involves it
    uses `require` with E written by `secrets.show`, and one on a value computed from it
    `secrets.derived`, never a bare `assert` (montverif.host.secrets)."""

    def __init__(self, name: str, ctx: SeqContext) -> None:
        super().__init__(name, ctx)
        self.secrets = ctx.secrets
        params = self.params = ctx.params
        self.const_time = bool(params.get("ConstTime", 1))
        worst = rsa_model.rsa_cycles((1 << self.n) - 1, self.n, **params)
        self.done_timeout = 2 * worst + 1000

    async def modexp(self, x: int, e: int, m: int) -> tuple[int, int] | None:
        """P and CYCLES of X^E mod M, or None when the loader refuses the operands."""
        values = await self.load_operands({"X": x, "E": e, "M": m}, ("X", "E", "M"))
        await self.start_op()
        if self.refused(values):
            await self.read("STATUS")
            return None
        await self.wait_done()
        p = await self.read_value("P")
        cycles = await self.read_value("CYCLES")
        await self.read("STATUS")
        return p, cycles

    def random_exponent(self) -> int:
        return self.rng.getrandbits(self.rng.randint(1, self.n))


class RandomExpSeq(RsaSeq):
    def __init__(self, name: str, ctx: SeqContext, count: int) -> None:
        super().__init__(name, ctx)
        self.count = count

    async def body(self) -> None:
        for _ in range(self.count):
            m = self.random_modulus()
            await self.modexp(self.rng.randrange(m), self.random_exponent(), m)


class EdgeExpSeq(RsaSeq):
    """E = 0, 1, 2, all ones, a single top bit, alternating; X = 0, 1, M - 1; M = 1, 3,
    2^(n-1) + 1, 2^n - 1; then the design's directed vectors."""

    async def body(self) -> None:
        n, top = self.n, (1 << self.n) - 1
        alt = int("10" * n, 2) & top
        m = self.random_modulus() | (1 << (n - 1))
        cases = [(self.rng.randrange(m), e, m) for e in (0, 1, 2, top, 1 << (n - 1), alt)]
        cases += [(0, self.random_exponent(), m), (1, top, m), (m - 1, top, m), (m - 1, 2, m)]
        cases += [(0, 0, 1), (0, top, 1), (2, top, 3), (2, alt >> 1, (1 << (n - 1)) + 1),
                  (top - 1, top, top)]
        # the directed vectors: inputs that told a mutant apart (verif/directed/rsa_core.json),
        # those limited to other parameters left out
        if (directed := directed_file(self.design.name)) is not None:
            cases += load_rsa_vectors(directed, n, self.params)
        for x, e, mod in cases:
            result = await self.modexp(x, e, mod)
            want = int(gmpy2.powmod(x, e, mod))
            self.require(result is not None and result[0] == want,
                         f"x^e mod m for x=0x{x:x}, e={self.secrets.show('E', e)}, "
                         f"m=0x{mod:x}")


class KeySeq(RsaSeq):
    """Real RSA keys (gmpy2) of n bits, e = 3 and 65537: encrypt then decrypt returns the
    message; sign then verify returns the digest."""

    async def body(self) -> None:
        for e in (3, 65537):
            if e >= 1 << self.n:
                continue
            try:
                mod, d = rsa_key(self.n, e, self.rng)
            except NoKeyError as exc:
                self.logger.info(f"KeyTest: {exc}; skipped")
                continue
            msg = self.rng.randrange(2, mod)
            enc = await self.modexp(msg, e, mod)
            assert enc is not None
            dec = await self.modexp(enc[0], d, mod)
            assert dec is not None and dec[0] == msg, (
                f"decrypt(encrypt(m)) = 0x{dec and dec[0]:x}, m = 0x{msg:x} (e={e})")
            digest = self.rng.randrange(2, mod)
            sig = await self.modexp(digest, d, mod)
            assert sig is not None
            ver = await self.modexp(sig[0], e, mod)
            assert ver is not None and ver[0] == digest, f"verify(sign(h)) != h (e={e})"


class ConstantTimeSeq(RsaSeq):
    """One key length, exponents of different values and Hamming weights: with ConstTime
    the cycle counts are identical; without it they differ (the bit length leaks)."""

    async def body(self) -> None:
        n, top = self.n, (1 << self.n) - 1
        m = self.random_modulus() | (1 << (n - 1))
        x = self.rng.randrange(m)
        low_hw = (1 << (n - 1)) | 1
        high_hw = top ^ (1 << self.rng.randrange(n - 1))
        exps = [0, 1, 2, 3, top, 1 << (n - 1), low_hw, high_hw, self.rng.getrandbits(n // 2),
                self.rng.getrandbits(n)]
        counts = {}
        for e in exps:
            result = await self.modexp(x, e, m)
            assert result is not None
            counts[e] = result[1]
        distinct = sorted(set(counts.values()))
        if self.const_time:
            assert len(distinct) == 1, f"cycle counts depend on the exponent: {distinct}"
            assert distinct[0] == rsa_model.rsa_cycles(0, n, **self.params)
        else:
            assert len(distinct) > 1, "ConstTime=0 should leak the exponent's bit length"
        self.logger.info(f"cycles per exponent: {sorted(set(counts.values()))}")


class WipeSeq(RsaSeq):
    """The exponent is write-only (reads return 0 and ERR_UNMAPPED) and wiped with the end
    of each operation (the env checks every internal register at every done edge); CLEAR
    wipes a loaded exponent and every operand."""

    async def body(self) -> None:
        bus_if: BusIf = ConfigDB().get(None, "", "BUS_IF")
        top: Handle = bus_if.dut_handle()  # the design's toplevel (in the engine wrapper)
        m = self.random_modulus()
        x, e = self.rng.randrange(m), self.random_exponent() | 1
        await self.write_value("E", e)
        word = await self.read("E")
        self.require(word == 0, f"E read back {self.secrets.part('E', word)}: it must be "
                                "write-only")
        await self.expect_error("ERR_UNMAPPED")
        await self.modexp(x, e, m)
        self.require(int(top.u_loader.e_q.value) == 0, "the loader kept E after the operation")
        self.require(int(top.u_core.e_q.value) == 0,
                     "the core kept its exponent shift register")
        # CLEAR wipes loaded operands, the exponent and the result
        await self.load_operands({"X": x, "E": e, "M": m}, ("X", "E", "M"))
        self.require(int(top.u_loader.e_q.value) != 0, "the loader did not load E")
        await self.clear()
        for path in load_design(self.design.name).rsa_at(self.params).clear:
            value = int(_handle(top, str(path)).value)
            self.require(value == 0, f"CLEAR left {path} = {self.secrets.derived(value)}")
        assert await self.read_value("X") == 0
        assert await self.read_value("P") == 0


class RsaErrorSeq(RsaSeq):
    """Even and zero modulus, message >= modulus, writes while busy, unmapped reads: the
    right error code and no operation; then a valid operation still works."""

    async def body(self) -> None:
        m = self.random_modulus()
        x, e = self.rng.randrange(m), self.random_exponent()
        for bad_m, err in ((m ^ 1, "ERR_EVEN_MODULUS"), (0, "ERR_EVEN_MODULUS"),
                           (x if x % 2 else x + 1, "ERR_RANGE")):
            if err == "ERR_RANGE" and bad_m > x and bad_m >= 1 << self.n:
                continue
            bx = bad_m if err == "ERR_RANGE" else x
            self.require(await self.modexp(bx, e, bad_m) is None, f"{err}: not refused")
            await self.expect_error(err)
        # message = modulus is refused too
        self.require(await self.modexp(m, e, m) is None, "message = modulus: not refused")
        await self.expect_error("ERR_RANGE")
        # a write while busy is ignored and flagged
        await self.load_operands({"X": x, "E": e, "M": m}, ("X", "E", "M"))
        await self.start_op()
        await self.write_value("X", (x + 1) % m)
        await self.expect_error("ERR_BUSY", busy=1)
        await self.wait_done()
        want = int(gmpy2.powmod(x, e, m))
        p = await self.read_value("P")
        self.require(p == want, f"P = 0x{p:x} after a write while busy, x^e mod m = 0x{want:x}")
        await self.read_value("CYCLES")
        await self.read("S")  # no redundant result: unmapped
        await self.expect_error("ERR_UNMAPPED")
        # the core reads no Y: a Y >= M left in its register refuses nothing
        await self.write_value("Y", m + self.rng.randrange((1 << self.n) - m))
        result = await self.modexp(x, e, m)
        self.require(result is not None and result[0] == int(gmpy2.powmod(x, e, m)),
                     "a Y >= M in the unused Y register refused or changed the exponentiation")
        await self.expect_error("ERR_NONE")


class RsaVectorSeq(RsaSeq):
    def __init__(self, name: str, ctx: SeqContext, vectors: list[tuple[int, int, int]]) -> None:
        super().__init__(name, ctx)
        self.vectors = vectors

    async def body(self) -> None:
        for x, e, m in self.vectors:
            await self.modexp(x, e, m)
