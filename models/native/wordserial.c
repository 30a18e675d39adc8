/* Native loops of the word-serial models (models/vhr.py, models/scalable.py, models/dual.py).
 *
 * Each function is the word loop of one Python model, the same words and carries in C: the
 * models call it when models/native.py could build this file and the build's words fit
 * (mont_qp and mwrkmm: V, W <= 32; mwr2mm: W <= 60; mont_dual: K * Units <= 64), and keep
 * their own loop otherwise. The Python loops stay the reference: models/tests/test_native.py
 * compares every result, hit count and failed check of the two.
 *
 * Operands come as little-endian arrays of `L` 64-bit limbs; the register a loop leaves (Z,
 * S or C) goes back the same way, its words packed at their bit positions. A function
 * returns 0, or the number of the check that failed (the Python loop's assert with that
 * message), or -1 when it could not allocate its words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t limb;
typedef unsigned __int128 u128;

/* bits [off, off + width) of v (L limbs; bits beyond them are 0), width <= 64 */
static limb get_bits(const limb* v, int L, long off, int width) {
  if (width <= 0) return 0;
  long w = off >> 6;
  int sh = (int)(off & 63);
  limb lo = w < L ? v[w] >> sh : 0;
  if (sh && w + 1 < L) lo |= v[w + 1] << (64 - sh);
  return width >= 64 ? lo : lo & ((((limb)1) << width) - 1);
}

/* bits [off, off + width) of v as a 128-bit value, width <= 128 */
static u128 get_wide(const limb* v, int L, long off, int width) {
  if (width <= 64) return get_bits(v, L, off, width);
  return (u128)get_bits(v, L, off, 64) | ((u128)get_bits(v, L, off + 64, width - 64) << 64);
}

/* v[off +: width] = value (width <= 128; value < 2^width is the caller's check) */
static void put_wide(limb* v, int L, long off, int width, u128 value) {
  for (int k = 0; k < width;) {
    long pos = off + k;
    long w = pos >> 6;
    int sh = (int)(pos & 63);
    int take = 64 - sh;
    if (take > width - k) take = width - k;
    limb mask = take >= 64 ? ~(limb)0 : ((((limb)1) << take) - 1);
    limb part = (limb)(value >> k) & mask;
    if (w < L) v[w] = (v[w] & ~(mask << sh)) | (part << sh);
    k += take;
  }
}

static limb mask64(int bits) { return bits >= 64 ? ~(limb)0 : ((((limb)1) << bits) - 1); }
static u128 mask128(int bits) { return bits >= 128 ? ~(u128)0 : ((((u128)1) << bits) - 1); }

/* ---- mont_qp (models/vhr.py mont_qp): Jiang-Harris Fig. 3 on e words, p PEs ---------------
 * z_out: Z's e words (W bits each) at bit W*j; *oldreduce_out: the last quotient digit;
 * hits: the 24 observation bins. Checks: 1 carry digit outgrew v + 1 bits, 2 Z outgrew e
 * words. The final reduction (2v restoring steps on Z << v + oldreduce) is the caller's. */
enum { QP_MAX_PES = 16, QP_PE_BINS = 15, QP_STALL = 16, QP_NO_STALL = 17, QP_CARRY = 18,
       QP_NO_CARRY = 19 };

int mv_mont_qp(int n, int V, int W, int P, int L, const limb* x, const limb* y,
               const limb* mhat, limb* z_out, limb* oldreduce_out, int64_t* hits) {
  int f = (n + 2 * V + V - 1) / V;
  int e = (n + W - 1) / W + 1 + (W == V ? 1 : 0);
  int kernel = e > 2 * P + 1 ? e : 2 * P + 1;
  int stall = kernel > e;
  limb vmask = mask64(V), wmask = mask64(W);
  limb* buf = calloc((size_t)4 * e + 1, sizeof(limb));
  if (!buf) return -1;
  limb *yw = buf, *mw = buf + e, *z = buf + 2 * e, *nz = buf + 3 * e;
  int rc = 0;
  for (int j = 0; j < e; ++j) {
    yw[j] = get_bits(y, L, (long)W * j, W);
    mw[j] = get_bits(mhat, L, (long)W * j, W);
  }
  limb oldreduce = 0;
  for (int i = 0; i <= f && !rc; ++i) {
    int k = i % P;
    if (k) hits[1 + (k - 1) % QP_PE_BINS]++;
    else if (i == 0) hits[0]++;
    else hits[stall ? QP_STALL : QP_NO_STALL]++;
    limb x_i = get_bits(x, L, (long)V * i, V);
    limb reduce = z[0] & vmask;
    u128 carry = 0;
    for (int j = 0; j < e; ++j) {
      limb upper = j + 1 < e ? z[j + 1] : 0;
      limb shifted = (limb)((((u128)upper << W) | z[j]) >> V) & wmask;
      u128 s = (u128)shifted + (u128)oldreduce * mw[j] + (u128)x_i * yw[j] + carry;
      nz[j] = (limb)s & wmask;
      carry = s >> W;
      if (carry >> (V + 1)) { rc = 1; break; }
      if (k == 0) hits[carry ? QP_CARRY : QP_NO_CARRY]++;
    }
    if (!rc && carry) rc = 2;
    limb* t = z; z = nz; nz = t;
    oldreduce = reduce;
  }
  memset(z_out, 0, sizeof(limb) * (size_t)L);
  for (int j = 0; j < e; ++j) put_wide(z_out, L, (long)W * j, W, z[j]);
  *oldreduce_out = oldreduce;
  free(buf);
  return rc;
}

/* ---- mwr2mm (models/scalable.py mwr2mm): Michalski-Buell Algorithm 1 ----------------------
 * s_out: S's e words (W bits each); hits: the 16 bins 2 * (PE mod 8) + (carry != 0).
 * Checks: 1 carry outgrew two bits, 2 the shift would drop a one bit, 3 the top word's
 * carry is more than one bit. The final subtraction is the caller's. */
static int obs_addr(int pe, int nonzero) { return 2 * (pe % 8) + (nonzero ? 1 : 0); }

int mv_mwr2mm(int n, int W, int P, int L, const limb* x, const limb* y, const limb* m,
              limb* s_out, int64_t* hits) {
  int e = (n + 1 + W - 1) / W;
  limb mask = mask64(W);
  limb* buf = calloc((size_t)4 * e + 1, sizeof(limb));
  if (!buf) return -1;
  limb *yw = buf, *mw = buf + e, *s = buf + 2 * e, *ns = buf + 3 * e;
  int rc = 0;
  for (int j = 0; j < e; ++j) {
    yw[j] = get_bits(y, L, (long)W * j, W);
    mw[j] = get_bits(m, L, (long)W * j, W);
  }
  for (int i = 0; i < n && !rc; ++i) {
    int pe = i % P;
    int x_i = (int)get_bits(x, L, i, 1);
    limb c = 0, q = 0, prev = 0;
    for (int j = 0; j < e; ++j) {
      limb t = s[j] + (x_i ? yw[j] : 0);
      if (j == 0) q = t & 1;
      t += c + (q ? mw[j] : 0);
      c = t >> W;
      limb word = t & mask;
      if (c > 2) { rc = 1; break; }
      hits[obs_addr(pe, c != 0)]++;
      if (j == 0) {
        if (word & 1) { rc = 2; break; }
      } else {
        ns[j - 1] = ((word & 1) << (W - 1)) | (prev >> 1);
      }
      prev = word;
    }
    if (rc) break;
    if (c > 1) { rc = 3; break; }
    ns[e - 1] = (c << (W - 1)) | (prev >> 1);
    limb* t = s; s = ns; ns = t;
  }
  memset(s_out, 0, sizeof(limb) * (size_t)L);
  for (int j = 0; j < e; ++j) put_wide(s_out, L, (long)W * j, W, s[j]);
  free(buf);
  return rc;
}

/* ---- mwrkmm (models/scalable.py mwrkmm): Michalski-Buell Algorithm 2 ----------------------
 * s_out: S's n_w words (V bits each); hits as mwr2mm's. csa = 1 (PeAdder = 1): section 5.2's
 * addition unit beside the words (scalable.py's _CsaPe, clock for clock): its words checked
 * against them, its carries deciding the bins. Checks: 1 Cmod outgrew two bits (eq. 12),
 * 2 u'M did not clear the low digit, 3 Cadd outgrew two bits, 4 S outgrew n_w words; the
 * unit's: 5 word 0's low W bits are not 0, 6 its Cadd outgrew two bits, 7 its word differs,
 * 8 S outgrew n_w words. */
typedef struct {
  limb ra, rb, k, z, cadd, align_a, align_b;
} csa_pe;

static limb maj3(limb a, limb b, limb c) { return (a & b) | (a & c) | (b & c); }

/* _CsaPe.reduce: word j of the reduction in carry-save form; *k_next the bit leaving it */
static int csa_reduce(csa_pe* pe, int j, limb s_j, limb pum, limb cum, int last, int V, int W,
                      limb* k_next) {
  limb vmask = mask64(V), wmask = mask64(W), ra, rb;
  if (last) {
    ra = cum; rb = pe->k; *k_next = 0;
  } else {
    limb c = j == 0 ? 0 : cum, k = j == 0 ? 0 : pe->k;
    ra = s_j ^ pum ^ c;
    limb car = (maj3(s_j, pum, c) << 1) | k;
    rb = car & vmask; *k_next = car >> V;
  }
  if (j == 0) {
    limb low_a = ra & wmask, low_b = rb & wmask;
    pe->z = (low_a | low_b) != 0;
    if ((u128)low_a + low_b != ((u128)pe->z << W)) return 5;
    pe->cadd = 0;
  }
  pe->align_a = ((ra & wmask) << (V - W)) | (pe->ra >> W);
  pe->align_b = ((rb & wmask) << (V - W)) | (pe->rb >> W);
  pe->ra = ra; pe->rb = rb; pe->k = *k_next;
  return 0;
}

/* _CsaPe.add: the S + xY tree and the CPA, the S word in *word */
static int csa_add(csa_pe* pe, limb pxy, limb cxy, int V, limb* word) {
  u128 t = (u128)pe->align_a + pe->align_b + pxy + cxy + pe->cadd + pe->z;
  pe->z = 0;
  *word = (limb)t & mask64(V);
  pe->cadd = (limb)(t >> V);
  return pe->cadd > 3 ? 6 : 0;
}

int mv_mwrkmm(int n, int V, int W, int P, int csa, int L, const limb* x, const limb* y,
              const limb* m, limb mp, limb* s_out, int64_t* hits) {
  int nw = n / V + 2;
  int jobs = n / W + 1;
  limb vmask = mask64(V), wmask = mask64(W);
  limb* buf = calloc((size_t)4 * nw + 2, sizeof(limb));
  if (!buf) return -1;
  limb *yw = buf, *mw = buf + nw, *s = buf + 2 * nw, *ns = buf + 3 * nw;
  int rc = 0;
  for (int j = 0; j < nw; ++j) {
    yw[j] = get_bits(y, L, (long)V * j, V);
    mw[j] = get_bits(m, L, (long)V * j, V);
  }
  for (int i = 0; i < jobs && !rc; ++i) {
    int pe = i % P;
    limb x_i = get_bits(x, L, (long)W * i, W);
    limb u = (limb)(((u128)mp * s[0]) & wmask);
    u128 cmod = 0, cum = 0, cxy = 0, cadd = 0;
    limb smod_prev = 0, k_next = 0;
    csa_pe unit = {0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j <= nw; ++j) {
      limb s_j = j < nw ? s[j] : 0;
      limb m_j = j < nw ? mw[j] : 0;
      u128 prod = (u128)u * m_j;
      u128 t = cmod + s_j + cum + (prod & vmask);
      if (csa && (rc = csa_reduce(&unit, j, s_j, (limb)prod & vmask, (limb)cum, j == nw, V, W,
                                  &k_next))) break;
      limb smod = (limb)t & vmask;
      cmod = t >> V;
      cum = prod >> V;
      if (cmod > 2) { rc = 1; break; }
      if (j == 0) {
        if (smod & wmask) { rc = 2; break; }
      } else {
        limb shifted = ((smod & wmask) << (V - W)) | (smod_prev >> W);
        u128 pxy = (u128)x_i * yw[j - 1];
        u128 t2 = (u128)shifted + (pxy & vmask) + cxy + cadd;
        ns[j - 1] = (limb)t2 & vmask;
        cadd = t2 >> V;
        if (cadd > 2) { rc = 3; break; }
        int carry_nz = (cmod | cadd) != 0;
        if (csa) {
          limb word;
          if ((rc = csa_add(&unit, (limb)pxy & vmask, (limb)cxy, V, &word))) break;
          if (word != ns[j - 1]) { rc = 7; break; }
          carry_nz = (k_next | unit.cadd) != 0;
        }
        cxy = pxy >> V;
        hits[obs_addr(pe, carry_nz)]++;
      }
      smod_prev = smod;
    }
    if (rc) break;
    if (cmod || cum || cxy || cadd) { rc = 4; break; }
    if (csa && (unit.k || unit.cadd)) { rc = 8; break; }
    limb* t = s; s = ns; ns = t;
  }
  memset(s_out, 0, sizeof(limb) * (size_t)L);
  for (int j = 0; j < nw; ++j) put_wide(s_out, L, (long)V * j, V, s[j]);
  free(buf);
  return rc;
}

/* ---- mont_dual (models/dual.py mont_dual): Tanimura's FIOS loop in either field -----------
 * c: in, C = 0 (L limbs, E words and a top bit); out, C after the loop. q: m' (GF(p)) or
 * q(x) (GF(2^n)). Checks: 1 S does not fit the 2W-bit accumulator, 2 the lowest digit of S
 * is not zero, 3 a register write would drop one bits. The final subtraction is the
 * caller's. clmul: the W x W carry-less product (a, b < 2^W). */
static u128 clmul(limb a, limb b, int w) {
  u128 out = 0;
  for (int i = 0; i < w; ++i)
    if ((b >> i) & 1) out ^= (u128)a << i;
  return out;
}

static u128 dual_mul(int gfp, limb a, limb b, int K, int w) {
  if (gfp) return (u128)(a & mask64(K)) * (b & mask64(w));
  return clmul(a, b & mask64(w), w);
}

static int dual_put(limb* c, int L, long off, int width, u128 value) {
  if (width < 128 && (value >> width)) return 3;
  put_wide(c, L, off, width, value);
  return 0;
}

int mv_mont_dual(int n, int field, int K, int Units, int L, const limb* x, const limb* y,
                 const limb* m, limb q, limb* c) {
  int w = K * Units;
  int e = (n + w - 1) / w;
  int gfp = field == 0;
  int dig = gfp ? K : w;
  int digits = gfp ? (n + K - 1) / K : e;
  limb dmask = mask64(dig);
  limb y0 = get_bits(y, L, 0, w);
  memset(c, 0, sizeof(limb) * (size_t)L);
  for (int i = 0; i < digits; ++i) {
    limb a_i = get_bits(x, L, (long)dig * i, dig);
    limb c0 = get_bits(c, L, 0, w);
    u128 u0 = gfp ? (u128)c0 + dual_mul(1, a_i, y0, K, w) : (u128)c0 ^ dual_mul(0, a_i, y0, K, w);
    limb u = (limb)u0 & dmask;
    limb t = (limb)dual_mul(gfp, u, q, K, w) & dmask;
    u128 z = 0;
    for (int j = 0; j < e; ++j) {
      int top = j == e - 1;
      u128 cw = get_wide(c, L, (long)w * j, top ? w + 1 : w);
      limb b_j = get_bits(y, L, (long)w * j, w), p_j = get_bits(m, L, (long)w * j, w);
      u128 acc = gfp ? cw + dual_mul(1, a_i, b_j, K, w) + z : cw ^ dual_mul(0, a_i, b_j, K, w) ^ z;
      u128 s = gfp ? acc + dual_mul(1, t, p_j, K, w) : acc ^ dual_mul(0, t, p_j, K, w);
      if (2 * w < 128 && (s >> (2 * w))) return 1;
      z = s >> w;
      if (j == 0 && (s & mask128(dig))) return 2;
      int rc = 0;
      if (gfp && j == 0) rc = dual_put(c, L, 0, w - K, (s >> K) & mask128(w - K));
      else if (gfp && j < e - 1) rc = dual_put(c, L, (long)w * j - K, w, s & mask128(w));
      else if (gfp) rc = dual_put(c, L, (long)w * j - K, w + K + 1, s);
      else if (top) rc = dual_put(c, L, (long)w * (j - 1), 2 * w, s);
      else if (j) rc = dual_put(c, L, (long)w * (j - 1), w, s & mask128(w));
      if (rc) return rc;
    }
  }
  return 0;
}

/* M(x)^-1 mod x^W (models/dual.py mp_pack's Newton iterations on the low W bits of M) */
limb mv_gf2_inverse(limb m_low, int w) {
  limb q = 1, mask = mask64(w);
  for (int b = w; b; b >>= 1) {
    limb sq = (limb)clmul(q, q, w) & mask;
    q = (limb)clmul(sq, m_low & mask, w) & mask;
  }
  return q;
}
