"""Native loops of the models (models/native/bitserial.c, wordserial.c), loaded with ctypes.

The Python loops in models/mont.py, inter.py, mm42.py, mont_r4.py (bit-serial), mont_pipe.py
(its digit stages), vhr.py, scalable.py and dual.py (word-serial) are the reference; their
hot paths call these C loops
(the same arithmetic on 64-bit limbs and words; ~9x faster for mont_csa at N = 1024) when
this module could build them, and keep their own loop otherwise. The shared library is built
once per source version with the C compiler Verilator uses (`CC`, else cc) into the user's
cache (montverif.host.paths.cache); MV_NATIVE=0 turns the native loops off (the Python loops
then run).
models/tests/test_native.py checks every result, hit count and failed check of the two.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from montverif.host import environment
from montverif.host.paths import cache

SOURCES = tuple(Path(__file__).resolve().parent / "native" / f
                for f in ("bitserial.c", "wordserial.c"))
Limbs = ctypes.Array  # a ctypes array of c_uint64, little-endian limbs

_i64p = ctypes.POINTER(ctypes.c_int64)
_u64p = ctypes.POINTER(ctypes.c_uint64)
_SIGNATURES: dict[str, list[Any]] = {
    "mv_mont_csa": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_mont_lut": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_inter_csa": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_inter_lut": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, ctypes.POINTER(ctypes.c_int),
                     _u64p, _u64p, _i64p],
    "mv_mont_r2": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_mont_r4": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_mont_r2_words": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_inter_r2": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_inter_r2_words": [ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, _u64p, ctypes.c_int,
                          ctypes.c_int, _u64p, _i64p],
    "mv_mm42": [ctypes.c_int, ctypes.c_int, ctypes.c_int, _u64p, _u64p, _u64p, ctypes.c_int,
                _u64p, _u64p, ctypes.POINTER(ctypes.c_int8)],
    "mv_mont_qp": [ctypes.c_int] * 5 + [_u64p, _u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_mwr2mm": [ctypes.c_int] * 4 + [_u64p, _u64p, _u64p, _u64p, _i64p],
    "mv_mwrkmm": [ctypes.c_int] * 6 + [_u64p, _u64p, _u64p, ctypes.c_uint64, _u64p, _i64p],
    "mv_mont_dual": [ctypes.c_int] * 5 + [_u64p, _u64p, _u64p, ctypes.c_uint64, _u64p],
    "mv_mont_pipe": [ctypes.c_int] * 3 + [ctypes.c_char_p] * 3 + [ctypes.c_uint64, _u64p,
                                                                 _u64p, _i64p],
}

why_not = ""  # why the native loops are off ("" when they are on)


def _build() -> Path:
    """The shared library for this source version (built now if missing)."""
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in SOURCES)).hexdigest()[:16]
    build = cache("native")  # the user's cache: one library per source version
    lib = build / f"models-{digest}.so"
    if lib.exists():
        return lib
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise OSError("no C compiler (cc) on PATH")
    build.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=build)
    os.close(fd)
    try:  # compiled to a private name, then renamed: parallel runs never see half a file
        res = subprocess.run([cc, "-O3", "-shared", "-fPIC", "-o", tmp, *map(str, SOURCES)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise OSError(f"cc failed: {(res.stderr or res.stdout).strip()[:200]}")
        os.replace(tmp, lib)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return lib


def _load() -> ctypes.CDLL | None:
    global why_not
    if environment.NATIVE.equals("0", "1"):
        why_not = "MV_NATIVE=0"
        return None
    try:
        lib = ctypes.CDLL(str(_build()))
    except OSError as exc:
        why_not = " ".join(str(exc).split())
        return None
    for name, args in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, ctypes.c_int
    for name in ("mv_max_limbs", "mv_reciprocal_extra"):
        getattr(lib, name).argtypes, getattr(lib, name).restype = [], ctypes.c_int
    lib.mv_gf2_inverse.argtypes = [ctypes.c_uint64, ctypes.c_int]
    lib.mv_gf2_inverse.restype = ctypes.c_uint64
    return lib


LIB = _load()
MAX_LIMBS = LIB.mv_max_limbs() if LIB is not None else 0  # the C source's MV_MAX_LIMBS
# the C source's MV_RECIP_EXTRA: mv_inter_r2_words takes floor(2^(n + this) / M)
RECIPROCAL_EXTRA = LIB.mv_reciprocal_extra() if LIB is not None else 0


def limb_count(bits: int) -> int:
    """Limbs for registers of `bits` bits with room for a carry out of the top."""
    return (bits + 2) // 64 + 2


def limbs(value: int, count: int) -> Limbs:
    return (ctypes.c_uint64 * count).from_buffer_copy(int(value).to_bytes(8 * count, "little"))


def table(values: list[int], count: int) -> Limbs:
    """Entries of `count` limbs each, one after the other."""
    # a table repeats a few values (mont_lut: 4 in 16 entries): each converted once
    once = {v: int(v).to_bytes(8 * count, "little") for v in set(values)}
    raw = b"".join([once[v] for v in values])
    return (ctypes.c_uint64 * (count * len(values))).from_buffer_copy(raw)


def value(arr: Limbs) -> int:
    return int.from_bytes(bytes(arr), "little")


def out(count: int) -> Limbs:
    return (ctypes.c_uint64 * count)()


def hits(count: int) -> ctypes.Array:
    """Counters the C loops fill; `arr[:]` is their list (a few times faster than list())."""
    return (ctypes.c_int64 * count)()


# --- the loops (None: not available, the caller runs its Python loop) -----------------------
def _fail(code: int, messages: dict[int, str]) -> None:
    if code:
        raise AssertionError(messages.get(code, f"native loop failed with code {code}"))


def _lib() -> ctypes.CDLL:
    """The loaded library (the callers asked _usable first)."""
    assert LIB is not None
    return LIB


def _usable(bits: int) -> int:
    """The limb count for `bits`-bit registers, or 0 when the native loops cannot run."""
    count = limb_count(bits)
    return count if LIB is not None and count <= MAX_LIMBS else 0


# Loops of the form fn(n, L, x, y, m, out_1 .. out_k, hits) called with their operands as
# bytes and one buffer for every output (no ctypes array is made or converted per call: a
# third of a bit-serial model's time at N = 256 was that); the same C functions as LIB's,
# with untyped pointers (mv_inter_r2_words too: its reciprocal and margin after the operands)
_XYM_LOOPS = ("mv_mont_csa", "mv_mont_lut", "mv_mont_r2", "mv_mont_r2_words", "mv_inter_r2",
              "mv_mont_r4")
_XYM: dict[str, Any] = {}
if LIB is not None:
    for _name in (*_XYM_LOOPS, "mv_inter_r2_words"):
        _XYM[_name] = LIB[_name]  # a function object of its own (LIB's keeps its argtypes)
        _XYM[_name].argtypes = [ctypes.c_void_p if t in (_u64p, _i64p) else t
                                for t in _SIGNATURES[_name]]
        _XYM[_name].restype = ctypes.c_int


def _xym_loop(name: str, x: int, y: int, m: int, n: int, count: int, outputs: int,
              hit_count: int) -> tuple[int, bytes]:
    """Run loop `name` of _XYM_LOOPS: (its return code, its outputs' bytes: each output's
    `count` limbs, then the `hit_count` counters)."""
    size = 8 * count
    buf = ctypes.create_string_buffer(size * outputs + 8 * hit_count)
    at = ctypes.addressof(buf)
    code = _XYM[name](n, count, int(x).to_bytes(size, "little"), int(y).to_bytes(size, "little"),
                      int(m).to_bytes(size, "little"), *[at + k * size for k in range(outputs)],
                      at + outputs * size)
    return code, buf.raw


def _limbs_at(raw: bytes, k: int, count: int) -> int:
    return int.from_bytes(raw[8 * count * k:8 * count * (k + 1)], "little")


def _hits_at(raw: bytes, k: int, count: int) -> list[int]:
    return memoryview(raw)[8 * count * k:].cast("q").tolist()


def mont_r2_loop(x: int, y: int, m: int, n: int) -> tuple[int, list[int]] | None:
    """models.mont._mont_r2_loop: (P before the final subtraction, hits)."""
    if not (count := _usable(n + 2)):
        return None
    # an odd M and an n-bit Y: 64 iterations at a time (the same P and hits, no check can
    # fail); anything else bit by bit, with the loop's checks
    loop = "mv_mont_r2_words" if m & 1 and not y >> n else "mv_mont_r2"
    code, raw = _xym_loop(loop, x, y, m, n, count, 1, 4)
    _fail(code, {1: "mont_r2: shift would drop a one bit",
                 2: "mont_r2: P outgrew its N+1-bit register"})
    return _limbs_at(raw, 0, count), _hits_at(raw, 1, count)


def mont_csa_loop(x: int, y: int, m: int, n: int, name: str
                  ) -> tuple[int, int, list[int]] | None:
    """models.mont._mont_csa_loop."""
    if not (count := _usable(n + 2)):
        return None
    code, raw = _xym_loop("mv_mont_csa", x, y, m, n, count, 2, 8)
    _fail(code, {1: f"{name}: shift would drop a one bit",
                 2: f"{name}: S or C outgrew its N-bit register"})
    return _limbs_at(raw, 0, count), _limbs_at(raw, 1, count), _hits_at(raw, 2, count)


def mont_lut_loop(x: int, y: int, m: int, n: int, name: str
                  ) -> tuple[int, int, list[int]] | None:
    """models.mont._mont_lut_loop (the C loop builds the table {0, M, Y, Y + M} itself)."""
    if not (count := _usable(n + 2)):
        return None
    code, raw = _xym_loop("mv_mont_lut", x, y, m, n, count, 2, 32)
    _fail(code, {1: f"{name}: shift would drop a one bit", 2: f"{name}: S or C outgrew N+1 bits"})
    return _limbs_at(raw, 0, count), _limbs_at(raw, 1, count), _hits_at(raw, 2, count)


def mont_r4_loop(x: int, y: int, m: int, n: int) -> tuple[int, int, int, list[int]] | None:
    """models.mont_r4._loop: (the loop's final S, C and pending carry, the 16 hits)."""
    if not (count := _usable(n + 4)):
        return None
    code, raw = _xym_loop("mv_mont_r4", x, y, m, n, count, 3, 16)
    _fail(code, {1: "mont_r4: S2 + C2 not divisible by 4",
                 2: "mont_r4: T = S + C + cin reached 2M",
                 3: "mont_r4: S or C outgrew n+1 bits"})
    return (_limbs_at(raw, 0, count), _limbs_at(raw, 1, count), _limbs_at(raw, 2, count),
            _hits_at(raw, 3, count))


# mv_inter_r2_words: an iteration whose 128-bit fraction is within 2^-margin of a whole number
# runs its word of X bit by bit (the fractions' error stays below 2^-61: at most 60)
INTER_R2_MARGIN = 56


def inter_r2_loop(x: int, y: int, m: int, n: int) -> tuple[int, list[int]] | None:
    """models.inter._inter_r2_loop: (P, hits)."""
    if not (count := _usable(n + 2)):
        return None
    if 0 < m and 0 <= y < m:  # a word of X at a time (the same P and hits)
        size = 8 * count
        r = (1 << (n + RECIPROCAL_EXTRA)) // m
        rl = (r.bit_length() + 63) // 64
        buf = ctypes.create_string_buffer(size + 8 * 3)
        at = ctypes.addressof(buf)
        code = _XYM["mv_inter_r2_words"](
            n, count, int(x).to_bytes(size, "little"), int(y).to_bytes(size, "little"),
            int(m).to_bytes(size, "little"), r.to_bytes(8 * rl, "little"), rl,
            INTER_R2_MARGIN, at, at + size)
        raw = buf.raw
    else:  # bit by bit, with the loop's check
        code, raw = _xym_loop("mv_inter_r2", x, y, m, n, count, 1, 3)
    _fail(code, {1: "inter_r2: 2P + x_i Y >= 3M", 5: "inter_r2: Y >= M"})
    return _limbs_at(raw, 0, count), _hits_at(raw, 1, count)


def inter_csa_loop(x: int, twice: list[int], yn: int, n: int
                   ) -> tuple[int, int, list[int]] | None:
    """models.inter._inter_csa_loop: (S, h, hits)."""
    if not (count := _usable(n + 3)):
        return None
    s, h, k = out(count), out(count), hits(len(twice))
    _fail(_lib().mv_inter_csa(n, count, limbs(x, count), table(twice, count), limbs(yn, count),
                           s, h, k),
          {1: "inter_csa: S, C exceed n + 2 bits", 2: "inter_csa: k >= 7"})
    return value(s), value(h), k[:]


def inter_lut_loop(x: int, entries: list[int], k_by_top: list[int], n: int
                   ) -> tuple[int, int, list[int]] | None:
    """models.inter._inter_lut_loop: (S, h, hits)."""
    if not (count := _usable(n + 3)):
        return None
    s, h, k = out(count), out(count), hits(len(entries))
    tops = (ctypes.c_int * len(k_by_top))(*k_by_top)
    _fail(_lib().mv_inter_lut(n, count, limbs(x, count), table(entries, count), tops, s, h, k),
          {1: "inter_lut: S has a bit above n", 2: "inter_lut: C has a bit above n + 1",
           3: "inter_lut: s_n and c_(n+1) are both set"})
    return value(s), value(h), k[:]


def mm42_loop(algo: str, a: int, x1s: list[int], x2s: list[int], b0: int, n: int, iters: int
              ) -> tuple[int, int, bytes] | None:
    """models.mm42._loop after PRE: (S1, S2, the selection of each iteration, a byte each)."""
    if not (count := _usable(max(n + 3, iters + 1))):
        return None
    s, c, sels = out(count), out(count), (ctypes.c_int8 * iters)()
    _fail(_lib().mv_mm42(n, iters, count, limbs(a, count), table(x1s, count), table(x2s, count),
                      b0, s, c, sels),
          {1: f"{algo}: halving would drop a one bit", 2: f"{algo}: S overflows"})
    return value(s), value(c), bytes(sels)


# --- the word-serial loops (wordserial.c): words of at most 64 bits in C ----------------------
def _run(code: int, messages: dict[int, str]) -> None:
    if code < 0:
        raise MemoryError("native loop: no memory for its words")
    _fail(code, messages)


def mont_qp_loop(x: int, y: int, mh: int, n: int, V: int, W: int, P: int
                 ) -> tuple[int, int, list[int]] | None:
    """models.vhr.mont_qp's word loop: (Z's words joined, the last quotient digit, the 24
    bins); None where V or W exceeds 32 bits."""
    e = -(-n // W) + 1 + (1 if W == V else 0)
    if W > 32 or V > 32 or not (count := _usable(max(n + 2 * V + 2, W * e + 2))):
        return None
    z, old, h = out(count), out(1), hits(24)
    _run(_lib().mv_mont_qp(n, V, W, P, count, limbs(x, count), limbs(y, count),
                           limbs(mh, count), z, old, h),
         {1: "mont_qp: carry digit outgrew v + 1 bits", 2: "mont_qp: Z outgrew e words"})
    return value(z), old[0], h[:]


def mwr2mm_loop(x: int, y: int, m: int, n: int, W: int, P: int
                ) -> tuple[int, list[int]] | None:
    """models.scalable.mwr2mm's word loop: (S before the final subtraction, the 16 bins)."""
    if W > 60 or not (count := _usable(n + W + 2)):
        return None
    s, h = out(count), hits(16)
    _run(_lib().mv_mwr2mm(n, W, P, count, limbs(x, count), limbs(y, count), limbs(m, count),
                          s, h),
         {1: "mwr2mm: carry outgrew two bits", 2: "mwr2mm: the shift would drop a one bit",
          3: "mwr2mm: the top word's carry must be one bit"})
    return value(s), h[:]


def mwrkmm_loop(x: int, y: int, m: int, mp: int, n: int, V: int, W: int, P: int,
                PeAdder: int = 0) -> tuple[int, list[int]] | None:
    """models.scalable.mwrkmm's word loop: (S before the final subtraction, the 16 bins);
    PeAdder = 1: with section 5.2's addition unit beside it (its carries decide the bins)."""
    if V > 32 or not (count := _usable(n + 2 * V + W + 2)):
        return None
    s, h = out(count), hits(16)
    _run(_lib().mv_mwrkmm(n, V, W, P, PeAdder, count, limbs(x, count), limbs(y, count),
                          limbs(m, count), mp, s, h),
         {1: "mwrkmm: Cmod outgrew two bits (eq. 12)",
          2: "mwrkmm: u' M did not clear the low digit", 3: "mwrkmm: Cadd outgrew two bits",
          4: "mwrkmm: S outgrew n_w words",
          5: "mwrkmm: word 0's low W bits are not 0",
          6: "mwrkmm: the CSA unit's Cadd outgrew two bits",
          7: "mwrkmm: the CSA unit's word differs",
          8: "mwrkmm: S outgrew n_w words (CSA unit)"})
    return value(s), h[:]


def mont_dual_loop(x: int, y: int, m: int, q: int, n: int, field: int, K: int, Units: int
                   ) -> int | None:
    """models.dual.mont_dual's FIOS loop: C after it (q: m' in GF(p), q(x) in GF(2^n));
    None where a word K * Units exceeds 64 bits."""
    w = K * Units
    if w > 64 or not (count := _usable(w * (-(-n // w) + 1) + K + 2)):
        return None
    c = out(count)
    _run(_lib().mv_mont_dual(n, field, K, Units, count, limbs(x, count), limbs(y, count),
                             limbs(m, count), q, c),
         {1: "mont_dual: S does not fit the 2W-bit accumulator",
          2: "mont_dual: the lowest digit of S is not zero",
          3: "mont_dual: a register write would drop one bits"})
    return value(c)


def mont_pipe_loop(x: int, y: int, m: int, mp: int, n: int, K: int
                   ) -> tuple[int, int] | None:
    """models.mont_pipe._stages' D digit stages, m' given: the last stage's (S, C)."""
    if not (count := _usable(n + K + 1)):
        return None
    size = 8 * count
    s, c, at = out(count), out(count), (ctypes.c_int64 * 1)()
    code = _lib().mv_mont_pipe(n, K, count, x.to_bytes(size, "little"),
                               y.to_bytes(size, "little"), m.to_bytes(size, "little"), mp, s,
                               c, at)
    stage = f"mont_pipe: stage {at[0]}: "
    _fail(code, {1: f"mont_pipe: a carry out of the stage's {n + K + 1} bits",
                 2: stage + "chain 1's carry vector's low digit is not 0",
                 3: stage + "chain 2's carry vector's low digit is not 0",
                 4: stage + "T + x_i*Y + q_i*M not divisible by 2^K",
                 5: stage + "S or C outgrew n+1 bits", 6: stage + "T = S + C reached 2M"})
    return value(s), value(c)


def gf2_inverse(m: int, w: int) -> int | None:
    """M(x)^-1 mod x^w by models.dual.mp_pack's Newton iterations; None for w > 64."""
    if LIB is None or w > 64:
        return None
    return int(LIB.mv_gf2_inverse(m & ((1 << w) - 1), w))
