/* Native loops of the bit-serial models (models/mont.py, inter.py, mm42.py and mont_r4.py)
 * and of mont_pipe.py's digit stages.
 *
 * Each function is the hot loop of one Python model, the same arithmetic on little-endian
 * arrays of 64-bit limbs: the models call it when models/native.py could build this file,
 * and fall back to their own Python loop otherwise. The Python loops stay the reference:
 * models/tests/test_native.py compares every result, hit count and failed check of the two.
 *
 * Every array has `L` limbs, enough for the widest register plus one. A function returns 0,
 * or the number of the check that failed (the Python loop's assert with that message).
 */
#include <stdint.h>
#include <string.h>

typedef uint64_t limb;

enum { MV_MAX_LIMBS = 130 }; /* registers up to 8256 bits */
/* mv_inter_r2_words: its reciprocal is floor(2^(n + MV_RECIP_EXTRA) / M); its fractions have
 * MV_FRAC_BITS bits */
enum { MV_RECIP_EXTRA = 192, MV_FRAC_BITS = 128 };

/* The most limbs a register may have (models/native.py reads it). */
int mv_max_limbs(void) { return MV_MAX_LIMBS; }

/* MV_RECIP_EXTRA (models/native.py reads it). */
int mv_reciprocal_extra(void) { return MV_RECIP_EXTRA; }

static int bit(const limb* v, int i) { return (int)((v[i >> 6] >> (i & 63)) & 1u); }

/* v < 2^k: no bit at or above k */
static int below_pow2(const limb* v, int L, int k) {
  int w = k >> 6;
  if (w >= L) return 1;
  if (v[w] >> (k & 63)) return 0;
  for (int i = w + 1; i < L; ++i)
    if (v[i]) return 0;
  return 1;
}

static void shr1(limb* v, int L) {
  for (int i = 0; i < L - 1; ++i) v[i] = (v[i] >> 1) | (v[i + 1] << 63);
  v[L - 1] >>= 1;
}

/* dst = src << k (k = 1 or 2), truncated to L limbs */
static void shl(limb* dst, const limb* src, int L, int k) {
  for (int i = L - 1; i > 0; --i) dst[i] = (src[i] << k) | (src[i - 1] >> (64 - k));
  dst[0] = src[0] << k;
}

/* dst = src & (2^k - 1) */
static void mask_to(limb* dst, const limb* src, int L, int k) {
  for (int i = 0; i < L; ++i) {
    int lo = i * 64;
    if (lo + 64 <= k) dst[i] = src[i];
    else if (lo >= k) dst[i] = 0;
    else dst[i] = src[i] & ((((limb)1) << (k - lo)) - 1);
  }
}

/* Two carry-save adders in series over L limbs: CSA 1 adds p + q + d1, its carry shifted
 * left one place; CSA 2 adds d2 to that pair. s and m get CSA 2's sum and majority (its carry
 * before the shift, which the callers' halving or doubling absorbs). A zero addend (the
 * `zero` array) makes a CSA the half adder it is. p and q may be s and m. */
static void csa_pair(int L, const limb* p, const limb* q, const limb* d1, const limb* d2,
                     limb* s, limb* m) {
  limb carry = 0;
  for (int j = 0; j < L; ++j) {
    const limb t1 = p[j] ^ q[j];
    const limb maj = (p[j] & q[j]) | (t1 & d1[j]);
    const limb s1 = t1 ^ d1[j];
    const limb c1 = (maj << 1) | carry;
    carry = maj >> 63;
    const limb t2 = s1 ^ c1;
    m[j] = (s1 & c1) | (t2 & d2[j]);
    s[j] = t2 ^ d2[j];
  }
}

/* One carry-save adder over L limbs: s = p ^ q ^ d, m = majority(p, q, d) (the carry before
 * its shift). p and q may be s and m. */
static void csa_one(int L, const limb* p, const limb* q, const limb* d, limb* s, limb* m) {
  for (int j = 0; j < L; ++j) {
    const limb t = p[j] ^ q[j];
    m[j] = (p[j] & q[j]) | (t & d[j]);
    s[j] = t ^ d[j];
  }
}

/* The interleaved loops' doubling: a = 2 (S mod 2^n), b = 2 (C mod 2^n) = 4 (h mod 2^(n-1))
 * for C = 2h. */
static void doubled_low(int L, int n, const limb* s, const limb* h, limb* a, limb* b) {
  limb tmp[MV_MAX_LIMBS];
  mask_to(tmp, s, L, n);
  shl(a, tmp, L, 1);
  mask_to(tmp, h, L, n - 1);
  shl(b, tmp, L, 2);
}

/* dst += src over L limbs (the carry out of the top limb is dropped: the callers' registers
 * have a spare limb) */
static void add_to(limb* dst, const limb* src, int L) {
  limb carry = 0;
  for (int j = 0; j < L; ++j) {
    const limb a = dst[j] + carry;
    const limb c1 = a < carry;
    dst[j] = a + src[j];
    carry = c1 | (dst[j] < a);
  }
}

static const limb kZero[MV_MAX_LIMBS]; /* the zero addend */

/* Algorithm 1b (mont_csa, mont_csa_u2): models.mont._mont_csa_loop. x, y, m: L limbs;
 * s, c: outputs; hits[8]: 4 * (i % 2) + (x_i << 1 | q). 1: shift would drop a one bit,
 * 2: S or C outgrew its N-bit register. */
int mv_mont_csa(int n, int L, const limb* x, const limb* y, const limb* m, limb* s, limb* c,
                int64_t* hits) {
  if (L > MV_MAX_LIMBS) return 3;
  memset(s, 0, 8 * (size_t)L);
  memset(c, 0, 8 * (size_t)L);
  int stage = 0;
  for (int i = 0; i < n; ++i) {
    const int xi = bit(x, i);
    const limb* d1 = xi ? y : kZero; /* CSA 1: S + C + x_i*Y */
    /* q: the LSB of CSA 1's sum (its shifted carry has a zero LSB) selects M for CSA 2 */
    const int q = (int)((s[0] ^ c[0] ^ d1[0]) & 1);
    csa_pair(L, s, c, d1, q ? m : kZero, s, c);
    hits[stage | (xi << 1) | q] += 1;
    if (s[0] & 1) return 1;
    shr1(s, L); /* C stays the majority: its << 1 and the shift cancel */
    if (!below_pow2(s, L, n) || !below_pow2(c, L, n)) return 2;
    stage ^= 4;
  }
  return 0;
}

/* One iteration of Algorithm 3's datapath: the CSA adds the table entry t to (S, C), then S
 * is halved; C stays the majority (its << 1 and the halving cancel). The same arithmetic as
 * csa_one followed by shr1, in two passes the compiler vectorises (s, c and t never alias;
 * about 20% faster at N = 1024). Returns 1 when the halving would drop a one bit. */
static int lut_step(int L, limb* restrict s, limb* restrict c, const limb* restrict t) {
  limb sum[MV_MAX_LIMBS + 1];
  for (int j = 0; j < L; ++j) {
    const limb u = s[j] ^ c[j];
    sum[j] = u ^ t[j];
    c[j] = (s[j] & c[j]) | (u & t[j]);
  }
  if (sum[0] & 1) return 1;
  sum[L] = 0;
  for (int j = 0; j < L; ++j) s[j] = (sum[j] >> 1) | (sum[j + 1] << 63);
  return 0;
}

/* Algorithm 3 (mont_lut, mont_lut_u2): models.mont._mont_lut_loop. x, y, m: L limbs; the
 * table's four values {0, M, Y, Y + M} are built here and addressed as models.mont's
 * mont_lut_table; hits[32]: 16 * (i % 2) + address. 1: shift would drop a one bit, 2: S or C
 * outgrew N+1 bits. */
int mv_mont_lut(int n, int L, const limb* x, const limb* y, const limb* m, limb* s, limb* c,
                int64_t* hits) {
  limb r[MV_MAX_LIMBS];
  if (L > MV_MAX_LIMBS) return 3;
  memcpy(r, y, 8 * (size_t)L);
  add_to(r, m, L); /* R = Y + M */
  const int y0 = (int)(y[0] & 1);
  const limb* table[16];
  for (int addr = 0; addr < 16; ++addr) {
    const int xi = addr >> 3, a_y0 = (addr >> 2) & 1, s0 = (addr >> 1) & 1, c0 = addr & 1;
    if (!xi) table[addr] = s0 == c0 ? kZero : m;
    else table[addr] = (s0 ^ c0 ^ a_y0) == 0 ? y : r;
  }
  memset(s, 0, 8 * (size_t)L);
  memset(c, 0, 8 * (size_t)L);
  int stage = 0;
  for (int i = 0; i < n; ++i) {
    const int addr = (bit(x, i) << 3) | (y0 << 2) | ((int)(s[0] & 1) << 1) | (int)(c[0] & 1);
    hits[stage | addr] += 1;
    if (lut_step(L, s, c, table[addr])) return 1;
    if (!below_pow2(s, L, n + 1) || !below_pow2(c, L, n + 1)) return 2;
    stage ^= 16;
  }
  return 0;
}

/* Algorithm 4 (inter_csa): models.inter.inter_csa's loop, X MSB first. twice: 7 entries
 * (2A for k = 0..6, entry 0 is zero); ym: Y'; s, h: S and CSA 2's majority (C = 2h); hits[7].
 * 1: S or C exceed n + 2 bits, 2: k >= 7. */
int mv_inter_csa(int n, int L, const limb* x, const limb* twice, const limb* ym, limb* s,
                 limb* h, int64_t* hits) {
  limb a[MV_MAX_LIMBS], b[MV_MAX_LIMBS];
  if (L > MV_MAX_LIMBS) return 3;
  memset(s, 0, 8 * (size_t)L);
  memset(h, 0, 8 * (size_t)L);
  int k = 0;
  for (int i = n - 1; i >= 0; --i) {
    hits[k] += 1;
    doubled_low(L, n, s, h, a, b);
    /* CSA 1: + x_i Y'; CSA 2: + 2A */
    csa_pair(L, a, b, bit(x, i) ? ym : kZero, twice + (size_t)k * L, s, h);
    if (!below_pow2(s, L, n + 2) || !below_pow2(h, L, n + 1)) return 1;
    k = bit(s, n) + bit(h, n - 1) + 2 * (bit(s, n + 1) + bit(h, n));
    if (k >= 7) return 2;
  }
  return 0;
}

/* Algorithm 5 (inter_lut): models.inter.inter_lut's loop, X MSB first. entries: 8 of L
 * limbs; k_by_top[8]: LUT_K_BY_TOP_BITS; s, h as inter_csa; hits[8]. 1: S has a bit above
 * n, 2: C has a bit above n + 1, 3: s_n and c_(n+1) both set. */
int mv_inter_lut(int n, int L, const limb* x, const limb* entries, const int* k_by_top,
                 limb* s, limb* h, int64_t* hits) {
  limb a[MV_MAX_LIMBS], b[MV_MAX_LIMBS];
  if (L > MV_MAX_LIMBS) return 4;
  memset(s, 0, 8 * (size_t)L);
  memset(h, 0, 8 * (size_t)L);
  int addr = bit(x, n - 1);
  for (int i = n - 2; i >= -1; --i) {
    hits[addr] += 1;
    doubled_low(L, n, s, h, a, b);
    csa_one(L, a, b, entries + (size_t)addr * L, s, h);
    if (!below_pow2(s, L, n + 1)) return 1;
    if (!below_pow2(h, L, n + 1)) return 2;
    const int k = k_by_top[(bit(s, n) << 2) | (bit(h, n) << 1) | bit(h, n - 1)];
    if (k < 0) return 3;
    addr = 2 * k + (i >= 0 ? bit(x, i) : 0);
  }
  return 0;
}

/* MM42 (mm42, mm42_u2): models.mm42._loop. a: A1 + A2 (its bits LSB first are A_i);
 * x1s, x2s: 4 entries each (zero where a selection adds nothing); b0: (B1 ^ B2) & 1;
 * sels[iters]: the selection of each iteration. 1: halving would drop a one bit,
 * 2: S overflows n + 2 bits. */
int mv_mm42(int n, int iters, int L, const limb* a, const limb* x1s, const limb* x2s, int b0,
            limb* s, limb* c, int8_t* sels) {
  memset(s, 0, 8 * (size_t)L);
  memset(c, 0, 8 * (size_t)L);
  for (int i = 0; i < iters; ++i) {
    const int q = (int)((s[0] ^ c[0]) & 1);
    const int sel = bit(a, i) ? (2 | (q ^ b0)) : q;
    sels[i] = (int8_t)sel;
    /* CSA 1: + X1, CSA 2: + X2, the second carry kept as the majority */
    csa_pair(L, s, c, x1s + (size_t)sel * L, x2s + (size_t)sel * L, s, c);
    if (s[0] & 1) return 1;
    shr1(s, L);
    if (!below_pow2(s, L, n + 2) || !below_pow2(c, L, n + 2)) return 2;
  }
  return 0;
}

/* dst -= src over L limbs (dst >= src) */
static void sub_from(limb* dst, const limb* src, int L) {
  limb borrow = 0;
  for (int j = 0; j < L; ++j) {
    const limb a = dst[j];
    const limb d = a - src[j];
    const limb b1 = a < src[j];
    dst[j] = d - borrow;
    borrow = b1 | (d < borrow);
  }
}

/* a >= b over L limbs */
static int at_least(const limb* a, const limb* b, int L) {
  for (int j = L - 1; j >= 0; --j)
    if (a[j] != b[j]) return a[j] > b[j];
  return 1;
}

/* Algorithm 1a (mont_r2): models.mont._mont_r2_loop, X LSB first, a carry-propagate adder.
 * y, m: L limbs; p: output; hits[4]: x_i << 1 | q. 1: shift would drop a one bit, 2: P
 * outgrew its N+1-bit register (P >= 2^(n+1) after the shift; P < Y + M keeps it below for
 * an n-bit Y). */
int mv_mont_r2(int n, int L, const limb* x, const limb* y, const limb* m, limb* p,
               int64_t* hits) {
  limb bound[MV_MAX_LIMBS];
  if (L > MV_MAX_LIMBS) return 3;
  memset(bound, 0, 8 * (size_t)L);
  bound[(n + 1) / 64] = (limb)1 << ((n + 1) % 64);
  memset(p, 0, 8 * (size_t)L);
  for (int i = 0; i < n; ++i) {
    int addr = 0;
    if (bit(x, i)) { /* step 3 */
      add_to(p, y, L);
      addr = 2;
    }
    if (p[0] & 1) { /* q_i: p_0 after step 3; step 4 */
      add_to(p, m, L);
      addr |= 1;
    }
    hits[addr] += 1;
    if (p[0] & 1) return 1;
    shr1(p, L); /* step 5 */
    if (at_least(p, bound, L)) return 2;
  }
  return 0;
}

/* -m^-1 mod 2^64 for an odd m0 (Newton's iteration doubles the correct low bits). */
static limb neg_inverse64(limb m0) {
  limb inv = m0; /* correct to 3 bits for odd m0 */
  for (int i = 0; i < 5; ++i) inv *= 2 - m0 * inv;
  return (limb)0 - inv;
}

/* t[0..L] += a * b (b: L limbs) */
static void mul_add(limb* t, const limb* b, limb a, int L) {
  limb carry = 0;
  for (int j = 0; j < L; ++j) {
    const unsigned __int128 acc = (unsigned __int128)a * b[j] + t[j] + carry;
    t[j] = (limb)acc;
    carry = (limb)(acc >> 64);
  }
  t[L] += carry;
}

/* mv_mont_r2's result and hits, 64 iterations at a time, for an odd M and an n-bit Y (the
 * caller checks both). The k iterations of one word of X add sum_i 2^i (x_i Y + q_i M) and
 * divide by 2^k; the q_i are the ones that keep every division exact, so Q = sum_i 2^i q_i is
 * the unique Q < 2^k with P + X_w Y + Q M = 0 mod 2^k: Q = (P + X_w Y) (-M^-1) mod 2^k, and
 * each iteration's table address x_i << 1 | q_i is a bit of X_w and of Q. P < Y + M holds
 * after every iteration ((P + Y + M) / 2 < Y + M), so neither of the loop's checks can
 * fail. p: L limbs (L >= limbs of n + 2 bits); hits[4] as mv_mont_r2. */
int mv_mont_r2_words(int n, int L, const limb* x, const limb* y, const limb* m, limb* p,
                     int64_t* hits) {
  limb t[MV_MAX_LIMBS + 1];
  if (L > MV_MAX_LIMBS) return 3;
  if (!(m[0] & 1)) return 4;
  const limb minv = neg_inverse64(m[0]);
  memset(t, 0, 8 * (size_t)(L + 1));
  for (int lo = 0; lo < n; lo += 64) {
    const int k = n - lo < 64 ? n - lo : 64;
    const limb mask = k == 64 ? ~(limb)0 : (((limb)1) << k) - 1;
    const limb xw = x[lo >> 6] & mask;
    mul_add(t, y, xw, L);
    const limb q = (t[0] * minv) & mask;
    mul_add(t, m, q, L);
    if (k == 64) {
      memmove(t, t + 1, 8 * (size_t)L);
      t[L] = 0;
    } else {
      for (int j = 0; j < L; ++j) t[j] = (t[j] >> k) | (t[j + 1] << (64 - k));
      t[L] >>= k;
    }
    hits[3] += __builtin_popcountll(xw & q);
    hits[2] += __builtin_popcountll(xw & ~q & mask);
    hits[1] += __builtin_popcountll(~xw & q & mask);
    hits[0] += __builtin_popcountll(~xw & ~q & mask);
  }
  memcpy(p, t, 8 * (size_t)L);
  return 0;
}

/* t[0..L+1] -= a * b (b: L limbs); returns the borrow out of t[L+1] */
static limb mul_sub(limb* t, const limb* b, limb a, int L) {
  limb carry = 0, borrow = 0;
  for (int j = 0; j < L + 2; ++j) {
    limb lo = carry;
    if (j < L) {
      const unsigned __int128 prod = (unsigned __int128)a * b[j] + carry;
      lo = (limb)prod;
      carry = (limb)(prod >> 64);
    } else {
      carry = 0;
    }
    const limb tj = t[j], d = tj - lo, b1 = tj < lo;
    t[j] = d - borrow;
    borrow = b1 | (d < borrow);
  }
  return borrow;
}

/* The 128 bits of v * r (v: L limbs, r: RL limbs) from bit `shift` up, as a fraction of 2^128;
 * prod: L + RL + 2 limbs of scratch. */
static unsigned __int128 frac128(const limb* v, int L, const limb* r, int RL, int shift,
                                 limb* prod) {
  memset(prod, 0, 8 * (size_t)(L + RL + 2));
  for (int j = 0; j < RL; ++j) {
    limb carry = 0;
    for (int i = 0; i < L; ++i) {
      const unsigned __int128 acc = (unsigned __int128)v[i] * r[j] + prod[i + j] + carry;
      prod[i + j] = (limb)acc;
      carry = (limb)(acc >> 64);
    }
    prod[L + j] += carry;
  }
  const int w = shift >> 6, b = shift & 63;
  limb word[3];
  for (int k = 0; k < 3; ++k) word[k] = w + k < L + RL + 2 ? prod[w + k] : 0;
  const limb lo = b ? (word[0] >> b) | (word[1] << (64 - b)) : word[0];
  const limb hi = b ? (word[1] >> b) | (word[2] << (64 - b)) : word[1];
  return ((unsigned __int128)hi << 64) | lo;
}

/* Algorithm 2's iterations for the bits [lo, hi) of X, MSB first (mv_inter_r2: all of them;
 * mv_inter_r2_words: a word its fractions leave undecided). 1: 2P + x_i Y >= 3M. */
static int inter_r2_bits(int L, const limb* x, const limb* y, const limb* m, limb* p, int lo,
                         int hi, int64_t* hits) {
  limb bound[MV_MAX_LIMBS]; /* 3M */
  shl(bound, m, L, 1);
  add_to(bound, m, L);
  for (int i = hi - 1; i >= lo; --i) {
    shl(p, p, L, 1);
    if (bit(x, i)) add_to(p, y, L);
    if (at_least(p, bound, L)) return 1;
    int q = 0;
    if (at_least(p, m, L)) {
      sub_from(p, m, L);
      q = 1;
      if (at_least(p, m, L)) {
        sub_from(p, m, L);
        q = 2;
      }
    }
    hits[q] += 1;
  }
  return 0;
}

/* mv_inter_r2's result and hits, 64 iterations at a time, for Y < M (the caller checks it).
 * With P = X_top Y mod M the value before a word of X, the k iterations of the word reach
 * P' = 2^k P + X_w Y - Q M with Q = sum_j 2^(k-1-j) q_j, q_j the Ms iteration j subtracts:
 * q_j = floor(2 f + x_j y) for the fractions f = P_j / M and y = Y / M, and f := frac(...).
 * The fractions run on MV_FRAC_BITS = 128 bits from f = P r / 2^(n+192) and y = Y r /
 * 2^(n+192), r = floor(2^(n+192) / M), 192 = MV_RECIP_EXTRA (each an underestimate by less
 * than 2^-127; after k <= 64 doublings the error is below 2^-61). An iteration whose
 * fraction lands within 2^-margin of a whole number (margin <= 60: its q could differ) sends
 * the word to the exact loop; otherwise P' is computed exactly and checked to be below M (else
 * the word runs exactly too). So P and the hits are mv_inter_r2's, a word costing a few wide
 * multiplications instead of k shifts, additions and subtractions. r: RL limbs. 3: L or RL
 * too large, 4: margin out of range,
 * 5: Y >= M. */
int mv_inter_r2_words(int n, int L, const limb* x, const limb* y, const limb* m,
                      const limb* r, int RL, int margin, limb* p, int64_t* hits) {
  limb t[MV_MAX_LIMBS + 2], prod[2 * MV_MAX_LIMBS + 4];
  if (L > MV_MAX_LIMBS || RL > MV_MAX_LIMBS + 2) return 3;
  if (margin < 1 || margin > 60) return 4;
  if (at_least(y, m, L)) return 5;
  memset(p, 0, 8 * (size_t)L);
  const int shift = n + MV_RECIP_EXTRA - MV_FRAC_BITS;
  const unsigned __int128 yf = frac128(y, L, r, RL, shift, prod);
  const limb near0 = 0, near1 = (((limb)1) << margin) - 1;
  for (int hi = n; hi > 0; hi -= 64) {
    const int lo = hi > 64 ? hi - 64 : 0, k = hi - lo;
    const int wl = lo >> 6, bl = lo & 63; /* X_w = x[lo, hi) */
    limb xw = x[wl] >> bl;
    if (bl && wl + 1 < L) xw |= x[wl + 1] << (64 - bl);
    if (k < 64) xw &= (((limb)1) << k) - 1;
    unsigned __int128 f = frac128(p, L, r, RL, shift, prod), qq = 0;
    int64_t ones = 0, twos = 0; /* iterations that subtract one M, two Ms */
    int exact = 1;
    for (int j = k - 1; j >= 0; --j) {
      /* 2f + x_j y, branch-free (x_j is random): q its whole part, f its fraction */
      const unsigned __int128 d = f << 1, add = yf & -(unsigned __int128)((xw >> j) & 1);
      const int carry = (int)(f >> 127);
      f = d + add;
      const int q = carry + (f < d);
      const limb top = (limb)(f >> (MV_FRAC_BITS - margin));
      if (top == near0 || top == near1) {
        exact = 0;
        break;
      }
      ones += q & 1;
      twos += q >> 1;
      qq = (qq << 1) + (unsigned __int128)q;
    }
    if (exact) { /* t = 2^k P + X_w Y - Q M over L + 2 limbs */
      memset(t, 0, 8 * (size_t)(L + 2));
      const int w = k >> 6, b = k & 63;
      for (int i = L - 1; i >= 0; --i) {
        t[i + w] |= b ? p[i] << b : p[i];
        if (b) t[i + w + 1] |= p[i] >> (64 - b);
      }
      mul_add(t, y, xw, L);
      if (t[L + 1] != 0) exact = 0; /* unreachable: 2^k P + X_w Y < 2^(k+1) M */
      const limb qlo = (limb)qq, qhi = (limb)(qq >> 64); /* Q < 2^(k+1): qhi <= 1 */
      if (exact && mul_sub(t, m, qlo, L)) exact = 0;
      if (exact && qhi) { /* t -= M 2^64 */
        limb borrow = 0;
        for (int j = 0; j < L + 1; ++j) {
          const limb mj = j < L ? m[j] : 0, tj = t[j + 1], d = tj - mj, b1 = tj < mj;
          t[j + 1] = d - borrow;
          borrow = b1 | (d < borrow);
        }
        if (borrow || qhi > 1) exact = 0;
      }
      if (exact && (t[L] != 0 || t[L + 1] != 0 || at_least(t, m, L))) exact = 0;
    }
    if (exact) {
      memcpy(p, t, 8 * (size_t)L);
      hits[0] += k - ones - twos;
      hits[1] += ones;
      hits[2] += twos;
    } else {
      const int code = inter_r2_bits(L, x, y, m, p, lo, hi, hits);
      if (code) return code;
    }
  }
  return 0;
}

/* Algorithm 2 (inter_r2): models.inter._inter_r2_loop, X MSB first: P := 2P + x_i Y, then
 * up to two subtractions of M. y, m: L limbs; p: output; hits[3]: the Ms subtracted.
 * 1: 2P + x_i Y >= 3M. */
int mv_inter_r2(int n, int L, const limb* x, const limb* y, const limb* m, limb* p,
                int64_t* hits) {
  if (L > MV_MAX_LIMBS) return 3;
  memset(p, 0, 8 * (size_t)L);
  return inter_r2_bits(L, x, y, m, p, 0, n, hits);
}

/* Radix-4 Montgomery (mont_r4): models.mont_r4._loop, K = ceil(n/2) digits x_i of X, least
 * significant first, two carry-save adders per digit and the pending carry cin (models/
 * mont_r4.py's mont_r4_steps, register by register). x, y, m: L limbs (L >= limbs of n + 4
 * bits); s, c: the loop's final S and C; cin: its pending carry (in cin[0]); hits[16]: the
 * table address x_i << 2 | q_i. 1: S2 + C2 not divisible by 4, 2: T = S + C + cin reached 2M,
 * 3: S or C outgrew n+1 bits. */
int mv_mont_r4(int n, int L, const limb* x, const limb* y, const limb* m, limb* s, limb* c,
               limb* cin_out, int64_t* hits) {
  limb ys[4][MV_MAX_LIMBS], ms[4][MV_MAX_LIMBS], s1[MV_MAX_LIMBS], c1[MV_MAX_LIMBS];
  limb maj2[MV_MAX_LIMBS], t[MV_MAX_LIMBS];
  if (L > MV_MAX_LIMBS) return 4;
  /* PRE: the tables {0, Y, 2Y, 3Y} and {0, M, 2M, 3M} */
  memset(ys[0], 0, 8 * (size_t)L);
  memcpy(ys[1], y, 8 * (size_t)L);
  shl(ys[2], y, L, 1);
  memcpy(ys[3], ys[2], 8 * (size_t)L);
  add_to(ys[3], y, L);
  memset(ms[0], 0, 8 * (size_t)L);
  memcpy(ms[1], m, 8 * (size_t)L);
  shl(ms[2], m, L, 1);
  memcpy(ms[3], ms[2], 8 * (size_t)L);
  add_to(ms[3], m, L);
  const int m1 = bit(m, 1);
  memset(s, 0, 8 * (size_t)L);
  memset(c, 0, 8 * (size_t)L);
  limb cin = 0;
  const int k = (n + 1) / 2;
  for (int i = 0; i < k; ++i) {
    const int xi = bit(x, 2 * i) | (bit(x, 2 * i + 1) << 1);
    const limb* a = ys[xi];
    /* CSA 1: S1 = S ^ C ^ A, C1 = maj(S, C, A) << 1 | cin */
    limb carry = cin;
    for (int j = 0; j < L; ++j) {
      const limb u = s[j] ^ c[j];
      const limb maj = (s[j] & c[j]) | (u & a[j]);
      s1[j] = u ^ a[j];
      c1[j] = (maj << 1) | carry;
      carry = maj >> 63;
    }
    /* t = (S1 + C1) mod 4; q_i = t * m' mod 4 in the RTL's gates */
    const int tt = (int)((s1[0] + c1[0]) & 3);
    const int t0 = tt & 1, t1 = tt >> 1;
    const int q = ((t1 ^ (t0 & (m1 ^ 1))) << 1) | t0;
    const limb* b = ms[q];
    /* CSA 2: S2 = S1 ^ C1 ^ B (into s1), C2 = maj(S1, C1, B) << 1 (kept as the majority) */
    csa_one(L, s1, c1, b, s1, maj2);
    /* S2 + C2 = 0 mod 4: S2[0] = 0 and S2[1] = C2[1] = maj2[0] */
    if ((s1[0] & 1) || ((s1[0] >> 1) & 1) != (maj2[0] & 1)) return 1;
    cin = (s1[0] >> 1) & 1;
    /* S := S2 >> 2, C := C2 >> 2 = maj2 >> 1 */
    for (int j = 0; j < L - 1; ++j) {
      s[j] = (s1[j] >> 2) | (s1[j + 1] << 62);
      c[j] = (maj2[j] >> 1) | (maj2[j + 1] << 63);
    }
    s[L - 1] = s1[L - 1] >> 2;
    c[L - 1] = maj2[L - 1] >> 1;
    /* T = S + C + cin < 2M */
    memcpy(t, s, 8 * (size_t)L);
    add_to(t, c, L);
    for (int j = 0; cin && j < L; ++j)
      if (++t[j]) break;
    if (at_least(t, ms[2], L)) return 2;
    if (!below_pow2(s, L, n + 1) || !below_pow2(c, L, n + 1)) return 3;
    hits[(xi << 2) | q] += 1;
  }
  memset(cin_out, 0, 8 * (size_t)L);
  cin_out[0] = cin;
  return 0;
}

/* dst = src << k (0 <= k < 64), truncated to L limbs */
static void shl_bits(limb* dst, const limb* src, int L, int k) {
  if (!k) {
    memcpy(dst, src, 8 * (size_t)L);
    return;
  }
  shl(dst, src, L, k);
}

/* v >>= k (0 <= k < 64) */
static void shr_bits(limb* v, int L, int k) {
  if (!k) return;
  for (int i = 0; i < L - 1; ++i) v[i] = (v[i] >> k) | (v[i + 1] << (64 - k));
  v[L - 1] >>= k;
}

/* bits pos .. pos + k - 1 of v (k <= 48) */
static limb bits_at(const limb* v, int L, int pos, int k) {
  const int w = pos >> 6, o = pos & 63;
  limb out = w < L ? v[w] >> o : 0;
  if (o && w + 1 < L) out |= v[w + 1] << (64 - o);
  return out & ((((limb)1) << k) - 1);
}

/* mont_pipe's chain of K carry-save adders (models.mont_pipe._rows): the rows digit[j] *
 * 2^j * mult added to (s, c) in w bits, j = 0..K-1; 1 when a carry leaves the w bits. */
static int pipe_rows(int L, int K, int w, limb* s, limb* c, limb digit, const limb* mult) {
  limb row[MV_MAX_LIMBS], maj[MV_MAX_LIMBS];
  for (int j = 0; j < K; ++j) {
    if ((digit >> j) & 1) shl_bits(row, mult, L, j);
    else memset(row, 0, 8 * (size_t)L);
    csa_one(L, s, c, row, s, maj);
    if (!below_pow2(maj, L, w - 1)) return 1;
    shl(c, maj, L, 1);
  }
  return 0;
}

/* mont_pipe's D = ceil(n/K) digit stages (models.mont_pipe._stages, each stage's checks),
 * m' given. x, y, m: L limbs (L >= limbs of n + K + 1 bits); s, c: the last stage's S and C.
 * The failing stage goes to *at. 1: a carry out of the stage's bits, 2: chain 1's carry
 * vector's low digit is not 0, 3: chain 2's, 4: T + x_i*Y + q_i*M not divisible by 2^K,
 * 5: S or C outgrew n+1 bits, 6: T = S + C reached 2M. */
int mv_mont_pipe(int n, int K, int L, const limb* x, const limb* y, const limb* m, limb mp,
                 limb* s, limb* c, int64_t* at) {
  limb twice[MV_MAX_LIMBS], sum[MV_MAX_LIMBS];
  if (L > MV_MAX_LIMBS || K < 1 || K > 48) return 7;
  const int w = n + K + 1, d = (n + K - 1) / K;
  const limb mask = (((limb)1) << K) - 1;
  shl(twice, m, L, 1);
  memset(s, 0, 8 * (size_t)L);
  memset(c, 0, 8 * (size_t)L);
  for (int i = 0; i < d; ++i) {
    *at = i;
    if (pipe_rows(L, K, w, s, c, bits_at(x, L, K * i, K), y)) return 1;
    if (c[0] & mask) return 2;
    const limb q = ((s[0] & mask) * mp) & mask;
    if (pipe_rows(L, K, w, s, c, q, m)) return 1;
    if (c[0] & mask) return 3;
    if (s[0] & mask) return 4;
    shr_bits(s, L, K);
    shr_bits(c, L, K);
    if (!below_pow2(s, L, n + 1) || !below_pow2(c, L, n + 1)) return 5;
    memcpy(sum, s, 8 * (size_t)L);
    add_to(sum, c, L);
    if (at_least(sum, twice, L)) return 6;
  }
  return 0;
}
